/* PCIe checks, a NIC faster than its PCIe among them (docs/checks.md,
 * "PCIe", which names each one's public source).
 *
 * Link width/speed and the NIC-vs-PCIe comparison come from the topology
 * model's findings (src/topo/findings.c), so `gpufeed topo` and `gpufeed
 * check` never disagree; this file only turns them into statuses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "audit/audit_internal.h"
#include "topo/render.h"

#define AER_CORRECTABLE_MAX 100		/* since boot; more: a marginal link replaying */
#define PCI_EXT_CAP_ACS 0x000d
#define ACS_CTRL_RR (1u << 2)		/* P2P Request Redirect */
#define ACS_CTRL_CR (1u << 3)		/* P2P Completion Redirect */
#define ACS_CTRL_EC (1u << 5)		/* P2P Egress Control */

static bool feeds_gpu(enum gf_pci_kind k)
{
	return k == GF_PCI_GPU || k == GF_PCI_NIC || k == GF_PCI_NVME || k == GF_PCI_NVSWITCH;
}

/* Devices on a path that feeds a GPU and their bridges (as the model's
 * findings choose them) whose link reports a width and a speed. */
static int known_links(const struct gf_topo *t)
{
	bool *rel = calloc((size_t)(t->npci > 0 ? t->npci : 1), sizeof(*rel));
	int n = 0;

	if (!rel)
		return 0;
	for (int i = 0; i < t->npci; i++)
		if (feeds_gpu(t->pci[i].kind))
			for (int x = i; x >= 0 && !rel[x]; x = t->pci[x].parent)
				rel[x] = true;
	for (int i = 0; i < t->npci; i++)
		n += rel[i] && t->pci[i].link.cur_width > 0 && t->pci[i].link.cur_gts > 0;
	free(rel);
	return n;
}

/* One result per model finding named `id`; returns how many. */
static int from_findings(struct gf_audit_ctx *c, const char *id, enum gf_check_status st, const char *note)
{
	int n = 0;

	for (int i = 0; i < c->t->nfindings; i++) {
		const struct gf_finding *f = &c->t->findings[i];
		struct gf_check_result *r;

		if (strcmp(f->id, id))
			continue;
		r = audit_result(c, f->subject);
		audit_observed(r, "%s", f->message);
		audit_source(r, "current_link_{width,speed} vs max_link_{width,speed} of %s and its port (gpufeed topo: %s)",
			     f->subject, f->id);
		/* A VM shows the emulated port's link: never a failure there. */
		audit_status(r, st == GF_CHECK_FAIL && c->t->machine.hypervisor ? GF_CHECK_WARN : st);
		if (c->t->machine.hypervisor)
			audit_note(r, "%s%sa VM may show an emulated port's link: confirm on the host", note ? note : "",
				   note ? "; " : "");
		else if (note)
			audit_note(r, "%s", note);
		n++;
	}
	return n;
}

static void links_pass(struct gf_audit_ctx *c, const char *what)
{
	struct gf_check_result *r = audit_result(c, "");
	int known = known_links(c->t);

	audit_source(r, "/sys/bus/pci/devices/*/{current,max}_link_{width,speed} of GPUs, NICs, NVMe and their bridges");
	if (!known) {
		audit_na(r, "no device on a GPU's path reports its PCIe link (a VM or no PCIe devices)");
		return;
	}
	audit_observed(r, "%d link%s at their full %s", known, known == 1 ? "" : "s", what);
}

static void run_link_width(struct gf_audit_ctx *c)
{
	if (!from_findings(c, "topo.pcie-width-degraded", GF_CHECK_FAIL,
			   "reseat the card, check the riser and the slot's bifurcation in the BIOS"))
		links_pass(c, "width");
	for (int i = 0; i < c->a->nresults; i++)
		if (c->a->results[i].check == &c->cur->info)
			audit_expected(&c->a->results[i], "current width = the lesser of both ends' max width");
}

static void run_link_speed(struct gf_audit_ctx *c)
{
	int n = from_findings(c, "topo.pcie-speed-degraded", GF_CHECK_FAIL,
			      "the link trained below its generation: slot, riser, retimer or BIOS speed setting");

	n += from_findings(c, "topo.pcie-speed-idle", GF_CHECK_WARN,
			   "GPUs lower the link speed when idle; check under load (nvidia-smi -q -d PCIE while a job runs)");
	if (!n)
		links_pass(c, "speed");
	for (int i = 0; i < c->a->nresults; i++)
		if (c->a->results[i].check == &c->cur->info)
			audit_expected(&c->a->results[i], "current speed = the lesser of both ends' max speed (GPUs: under load)");
}

/* "RxErr 0\nBadTLP 0\n...\nTOTAL_ERR_COR 3\n": the TOTAL line, else the sum. */
static long long aer_total(const char *text)
{
	const char *tot = strstr(text, "TOTAL_ERR_");
	long long sum = 0;

	if (tot) {
		const char *sp = strchr(tot, ' ');

		return sp ? strtoll(sp + 1, NULL, 10) : 0;
	}
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *sp = strchr(line, ' '), *nl = strchr(line, '\n');

		if (sp && (!nl || sp < nl))
			sum += strtoll(sp + 1, NULL, 10);
	}
	return sum;
}

/* 0 read, 1 absent (no AER), <0 another failure (status set on r). */
static int read_aer(struct gf_audit_ctx *c, struct gf_check_result *r, const char *dir, const char *name,
		    long long *v)
{
	char path[400], *data = NULL;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ret = gf_fs_read(&c->fs, path, &data, &len);
	if (ret == -ENOENT)
		return 1;
	if (ret) {
		audit_read(c, r, path, &data, &len);	/* sets needs-root / error */
		free(data);
		return -1;
	}
	*v = aer_total(data);
	free(data);
	return 0;
}

static void run_aer(struct gf_audit_ctx *c)
{
	int seen = 0;

	for (int i = 0; i < c->t->npci; i++) {
		const struct gf_pci_dev *d = &c->t->pci[i];
		struct gf_check_result *r;
		long long cor = 0, fat = 0, nonfat = 0;
		char name[24];
		int a;

		if (d->kind != GF_PCI_GPU && d->kind != GF_PCI_NIC && d->kind != GF_PCI_NVME)
			continue;
		{
			char path[400];

			snprintf(path, sizeof(path), "%s/aer_dev_correctable", d->path);
			if (!audit_exists(c, path))
				continue;	/* no AER on this device: nothing to report */
		}
		r = audit_result(c, gf_pci_dev_name(c->t, i, name, sizeof(name)));
		seen++;
		audit_source(r, "%s/aer_dev_{correctable,fatal,nonfatal}", d->path);
		if ((a = read_aer(c, r, d->path, "aer_dev_correctable", &cor)) < 0 ||
		    read_aer(c, r, d->path, "aer_dev_fatal", &fat) < 0 ||
		    read_aer(c, r, d->path, "aer_dev_nonfatal", &nonfat) < 0)
			continue;
		audit_observed(r, "%s: fatal %lld, nonfatal %lld, correctable %lld (since boot)", d->bdf, fat, nonfat, cor);
		audit_expected(r, "fatal 0, nonfatal 0, correctable <= %d", AER_CORRECTABLE_MAX);
		if (fat > 0 || nonfat > 0) {
			audit_status(r, GF_CHECK_FAIL);
			audit_note(r, "uncorrectable PCIe errors: the device or its slot is failing (drain the node, check riser/cable, RMA)");
		} else if (cor > AER_CORRECTABLE_MAX) {
			audit_status(r, GF_CHECK_WARN);
			audit_note(r, "many corrected errors: the link replays packets and loses bandwidth (reseat, check the riser/retimer)");
		}
	}
	if (!seen) {
		struct gf_check_result *r = audit_result(c, "");

		audit_source(r, "/sys/bus/pci/devices/*/aer_dev_{correctable,fatal,nonfatal}");
		audit_na(r, "no GPU, NIC or NVMe device exposes AER counters (no AER in this kernel or a VM)");
	}
}

/* ---- ACS -------------------------------------------------------------- */

/* Bridges above GPUs and RDMA NICs: peer traffic between them crosses these. */
static void mark_p2p_bridges(const struct gf_topo *t, bool *on)
{
	for (int i = 0; i < t->npci; i++) {
		bool rdma = false;

		for (int k = 0; k < t->nnics; k++)
			rdma |= t->nics[k].pci == i && t->nics[k].rdma[0];
		if (t->pci[i].kind != GF_PCI_GPU && !rdma)
			continue;
		for (int x = t->pci[i].parent; x >= 0; x = t->pci[x].parent)
			on[x] = true;
	}
}

static bool p2p_pairs(const struct gf_topo *t)
{
	int rdma = 0;

	for (int k = 0; k < t->nnics; k++)
		rdma += t->nics[k].rdma[0] != '\0';
	return t->ngpus >= 2 || (t->ngpus >= 1 && rdma >= 1);
}

/* The ACS Control register, from the extended capability list; -1 no ACS. */
static int acs_ctrl(const unsigned char *b, size_t len)
{
	unsigned off = 0x100;

	for (int hops = 0; off >= 0x100 && off + 8 <= len && hops < 480; hops++) {
		unsigned hdr = b[off] | b[off + 1] << 8 | (unsigned)b[off + 2] << 16 | (unsigned)b[off + 3] << 24;

		if (hdr == 0 || hdr == 0xffffffffu)
			return -1;
		if ((hdr & 0xffff) == PCI_EXT_CAP_ACS)
			return b[off + 6] | b[off + 7] << 8;
		off = (hdr >> 20) & 0xffc;
	}
	return -1;
}

/* false when the bridge has no config file (an older recording). */
static bool acs_bridge(struct gf_audit_ctx *c, const struct gf_pci_dev *d)
{
	struct gf_check_result *r;
	char path[400], *cfg = NULL;
	size_t len;
	int ctrl;

	snprintf(path, sizeof(path), "%s/config", d->path);
	if (!audit_exists(c, path))
		return false;
	r = audit_result(c, d->bdf);
	if (audit_read(c, r, path, &cfg, &len))
		return true;
	audit_expected(r, "no P2P redirect (ACSCtl ReqRedir- CmpltRedir- EgressCtrl-)");
	if (len < 4096 && !c->privileged) {
		free(cfg);
		r->status = GF_CHECK_NEEDS_ROOT;
		audit_note(r, "%s: %zu bytes readable; the extended config space (ACS) needs root", path, len);
		return true;
	}
	ctrl = acs_ctrl((const unsigned char *)cfg, len);
	free(cfg);
	if (ctrl < 0) {
		audit_observed(r, "no ACS capability");
		return true;
	}
	audit_observed(r, "ACSCtl 0x%04x: ReqRedir%c CmpltRedir%c EgressCtrl%c", (unsigned)ctrl,
		       ctrl & ACS_CTRL_RR ? '+' : '-', ctrl & ACS_CTRL_CR ? '+' : '-', ctrl & ACS_CTRL_EC ? '+' : '-');
	if (ctrl & (ACS_CTRL_RR | ACS_CTRL_CR | ACS_CTRL_EC)) {
		audit_status(r, GF_CHECK_FAIL);
		audit_note(r, "peer-to-peer traffic (GPU-GPU, GPUDirect RDMA) is sent up to the root complex: slow, or NCCL hangs");
		audit_fix(r, "setpci -s %s ECAP_ACS+0x6.w=0000 (lost at reboot)", d->bdf);
		audit_persist(r, "disable VT-d/IO virtualization or ACS in the BIOS, or boot with pci=disable_acs_redir=%s",
			      d->bdf);
		r->fix_class = GF_FIX_ADVICE;
	}
	return true;
}

static void run_acs(struct gf_audit_ctx *c)
{
	bool *on;
	int judged = 0;

	if (c->t->machine.hypervisor || !p2p_pairs(c->t)) {
		struct gf_check_result *r = audit_result(c, "");

		audit_source(r, "ACS extended capability in /sys/bus/pci/devices/BDF/config of bridges");
		if (c->t->machine.hypervisor)
			audit_na(r, "a VM: keep ACS as the hypervisor needs it (GPUDirect RDMA in a VM wants ATS enabled on the NIC instead)");
		else
			audit_na(r, "no peer-to-peer path: fewer than two GPUs and no GPU with an RDMA NIC");
		return;
	}
	on = calloc((size_t)c->t->npci, sizeof(*on));
	if (!on) {
		audit_error(audit_result(c, ""), "out of memory");
		return;
	}
	mark_p2p_bridges(c->t, on);
	for (int i = 0; i < c->t->npci; i++)
		if (on[i] && c->t->pci[i].kind == GF_PCI_BRIDGE)
			judged += acs_bridge(c, &c->t->pci[i]);
	free(on);
	if (!judged) {
		struct gf_check_result *r = audit_result(c, "");

		audit_source(r, "/sys/bus/pci/devices/BDF/config of bridges above GPUs and RDMA NICs");
		audit_na(r, "no bridge above a GPU or RDMA NIC has a config file here (a recording without them)");
	}
}

/* ---- IOMMU ------------------------------------------------------------ */

/* The IOMMU words of the kernel command line, "" when none. */
static void iommu_words(const char *cmdline, char *out, size_t size)
{
	char buf[4096], *save = NULL;

	out[0] = '\0';
	gf_strlcpy(buf, cmdline, sizeof(buf));
	for (char *tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
		if (!strncmp(tok, "iommu=", 6) || !strncmp(tok, "intel_iommu=", 12) || !strncmp(tok, "amd_iommu=", 10) ||
		    !strncmp(tok, "iommu.passthrough=", 18))
			snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? " " : "", tok);
}

static void run_iommu(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char cmd[4096], words[256], type[32];
	int identity = 0, dma = 0;
	bool pt, on;

	if (c->t->machine.hypervisor) {
		audit_source(r, "/proc/cmdline, /sys/bus/pci/devices/BDF/iommu_group/type");
		audit_na(r, "a VM: the host's IOMMU setting is what counts");
		return;
	}
	if (audit_read_str(c, r, "/proc/cmdline", cmd, sizeof(cmd)))
		return;
	audit_source(r, "/proc/cmdline, /sys/bus/pci/devices/BDF/iommu_group/type of GPUs and NICs");
	iommu_words(cmd, words, sizeof(words));
	for (int i = 0; i < c->t->npci; i++) {
		char path[400];

		if (c->t->pci[i].kind != GF_PCI_GPU && c->t->pci[i].kind != GF_PCI_NIC)
			continue;
		snprintf(path, sizeof(path), "%s/iommu_group/type", c->t->pci[i].path);
		if (audit_peek_str(c, path, type, sizeof(type)))
			continue;	/* no group: the IOMMU does not translate it */
		identity += !strcmp(type, "identity");
		dma += !strncmp(type, "DMA", 3);	/* DMA, DMA-FQ */
	}
	pt = strstr(words, "iommu=pt") || strstr(words, "iommu.passthrough=1");
	on = strstr(words, "intel_iommu=on") || strstr(words, "amd_iommu=on");
	audit_observed(r, "cmdline: %s; GPU/NIC groups: %d identity, %d translated", words[0] ? words : "no iommu words",
		       identity, dma);
	audit_expected(r, "passthrough (iommu=pt: identity groups) or IOMMU off");
	if (dma || (!identity && on && !pt)) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, dma ? "GPU/NIC DMA goes through IOMMU translation: IOTLB misses cut GPUDirect and NIC bandwidth"
				  : "the command line turns translation on without iommu=pt (no IOMMU group was readable)");
		audit_fix(r, "add iommu=pt to the kernel command line and reboot");
		audit_persist(r, "GRUB_CMDLINE_LINUX in /etc/default/grub (then update-grub / grub2-mkconfig)");
		r->fix_class = GF_FIX_ADVICE;
	}
}

/* ---- NIC vs its PCIe --------------------------------------------------- */

static bool path_links_known(const struct gf_topo *t, int pci)
{
	for (int x = pci; x >= 0; x = t->pci[x].parent)
		if (t->pci[x].link.cur_width <= 0 || t->pci[x].link.cur_gts <= 0)
			return false;
	return true;
}

static void run_nic_bandwidth(struct gf_audit_ctx *c)
{
	int n = 0;

	for (int i = 0; i < c->t->nnics; i++) {
		const struct gf_nic *nic = &c->t->nics[i];
		struct gf_check_result *r;
		bool capped = false;

		if (nic->virtual_function)
			continue;	/* shares the PF's link: judged there */
		r = audit_result(c, nic->label);
		n++;
		audit_source(r, "line rate of %s vs the PCIe links from %s to the CPU (gpufeed topo: topo.nic-pcie-capped)",
			     nic->name, c->t->pci[nic->pci].bdf);
		audit_expected(r, "line rate <= the narrowest PCIe link behind it");
		for (int k = 0; k < c->t->nfindings; k++) {
			const struct gf_finding *f = &c->t->findings[k];

			if (!strcmp(f->id, "topo.nic-pcie-capped") && !strcmp(f->subject, nic->label)) {
				audit_observed(r, "%s", f->message);
				capped = true;
			}
		}
		if (capped) {
			audit_status(r, GF_CHECK_WARN);
			audit_note(r, "the NIC cannot reach its line rate: GPUDirect RDMA and NCCL are capped by the slot");
			audit_fix(r, "move the NIC to a slot of a newer generation or full width (check the riser)");
			r->fix_class = GF_FIX_ADVICE;
		} else if (nic->speed_mbps <= 0) {
			audit_na(r, "line rate unknown (link down or a virtual NIC)");
		} else if (!path_links_known(c->t, nic->pci)) {
			audit_na(r, "a PCIe link between %s and the CPU reports no speed or width", nic->name);
		} else {
			audit_observed(r, "%g Gb/s; every PCIe link behind it is wider", nic->speed_mbps / 1000.0);
		}
	}
	if (!n)
		audit_na(audit_result(c, ""), "no PCI network device");
}

const struct gf_check_def gf_checks_pcie[] = {
	{ { "pcie.link-width", "pcie", "PCIe links of GPUs, NICs and NVMe should run at full width",
	    "a link trained below its width cuts the device's bandwidth; docs/checks.md#pcie.link-width; "
	    "\"DCGM Diagnostics\", https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html; "
	    "\"nvidia-smi documentation\", https://docs.nvidia.com/deploy/nvidia-smi/index.html",
	    "/sys/bus/pci/devices/BDF/{current,max}_link_width of GPUs, NICs, NVMe and bridges on their path",
	    "current width = max width", "current width = max width",
	    "reseat the card, check the riser and BIOS bifurcation (advice)", GF_CHECK_CROSS_LAYER },
	  run_link_width },
	{ { "pcie.link-speed", "pcie", "PCIe links should run at their generation's speed",
	    "a link trained below its generation cuts bandwidth (a GPU lowers it when idle); "
	    "docs/checks.md#pcie.link-speed; "
	    "\"nvidia-smi documentation\", https://docs.nvidia.com/deploy/nvidia-smi/index.html; "
	    "\"DCGM Diagnostics\", https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html",
	    "/sys/bus/pci/devices/BDF/{current,max}_link_speed of GPUs, NICs, NVMe and bridges on their path",
	    "current speed = max speed (GPUs: under load)", "current speed = max speed (GPUs: under load)",
	    "check the slot, riser and BIOS link speed setting (advice)", GF_CHECK_CROSS_LAYER },
	  run_link_speed },
	{ { "pcie.aer", "pcie", "PCIe should show no uncorrectable errors and few corrected ones",
	    "PCIe errors and replays slow transfers and foretell a failing link; docs/checks.md#pcie.aer; "
	    "\"The PCI Express Advanced Error Reporting Driver Guide HOWTO\", https://docs.kernel.org/PCI/pcieaer-howto.html; "
	    "\"DCGM Diagnostics\", https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html",
	    "/sys/bus/pci/devices/BDF/aer_dev_{correctable,fatal,nonfatal}", "fatal 0, nonfatal 0, correctable <= 100",
	    "fatal 0, nonfatal 0, correctable <= 100", "drain the node; reseat or replace the device, riser or cable (advice)",
	    0 },
	  run_aer },
	{ { "pcie.acs", "pcie", "ACS should not redirect peer-to-peer traffic (bare metal)",
	    "ACS redirects peer-to-peer traffic through the root complex: slow, or a hang; "
	    "docs/checks.md#pcie.acs; "
	    "\"NCCL Troubleshooting: GPU troubleshooting\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/gpu_troubleshooting.html",
	    "ACS Control register (ext. capability 0x0d, +6) in /sys/bus/pci/devices/BDF/config of bridges above GPUs and RDMA NICs",
	    "ReqRedir- CmpltRedir- EgressCtrl- on bare metal", "same as training",
	    "setpci -s BDF ECAP_ACS+0x6.w=0000; BIOS or pci=disable_acs_redir= to persist (advice)",
	    GF_CHECK_NEEDS_GPU | GF_CHECK_CROSS_LAYER },
	  run_acs },
	{ { "pcie.iommu", "pcie", "the IOMMU should pass GPU and NIC DMA through (bare metal)",
	    "a translating IOMMU slows or breaks GPU peer-to-peer and GPUDirect DMA on bare metal; "
	    "docs/checks.md#pcie.iommu; "
	    "\"NCCL Troubleshooting: GPU troubleshooting\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/gpu_troubleshooting.html; "
	    "\"The kernel's command-line parameters\", https://docs.kernel.org/admin-guide/kernel-parameters.html",
	    "/proc/cmdline (iommu=, intel_iommu=, amd_iommu=), /sys/bus/pci/devices/BDF/iommu_group/type",
	    "iommu=pt (identity) or IOMMU off", "same as training", "add iommu=pt to the kernel command line; reboot (advice)",
	    0 },
	  run_iommu },
	{ { "pcie.nic-bandwidth", "pcie", "no NIC should be faster than the PCIe behind it",
	    "a NIC behind a narrower PCIe link cannot reach its line rate; docs/checks.md#pcie.nic-bandwidth; "
	    "\"PCI Express (Wikipedia): throughput per lane by generation\", https://en.wikipedia.org/wiki/PCI_Express",
	    "NIC line rate (/sys/class/net/IF/speed, /sys/class/infiniband/DEV/ports/N/rate) vs the model's PCIe path",
	    "line rate <= the PCIe bandwidth behind the NIC", "same as training",
	    "move the NIC to a faster or wider slot (advice)", GF_CHECK_CROSS_LAYER },
	  run_nic_bandwidth },
	GF_CHECK_END,
};
