/* Problems the model already shows: unknown GPU locality, links running
 * below their capability, NICs faster than the PCIe behind them, inactive
 * NVLinks, and disagreement between our PCIe tree and NVML. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/render.h"
#include "topo/topo_internal.h"

const char *gf_pci_dev_name(const struct gf_topo *t, int pci, char *buf, size_t size)
{
	for (int i = 0; i < t->ngpus; i++)
		if (t->gpus[i].pci == pci) {
			snprintf(buf, size, "GPU%d", t->gpus[i].index);
			return buf;
		}
	for (int i = 0; i < t->nnics; i++)
		if (t->nics[i].pci == pci) {
			snprintf(buf, size, "%s", t->nics[i].label);
			return buf;
		}
	for (int i = 0; i < t->nblocks; i++)
		if (t->blocks[i].pci == pci && t->blocks[i].label[0]) {
			snprintf(buf, size, "%s", t->blocks[i].label);
			return buf;
		}
	snprintf(buf, size, "%s", t->pci[pci].bdf);
	return buf;
}

/* Every device on a path that feeds a GPU: GPUs, NICs, NVMe and the bridges
 * above them. */
static void mark_relevant(const struct gf_topo *t, bool *rel)
{
	for (int i = 0; i < t->npci; i++) {
		enum gf_pci_kind k = t->pci[i].kind;

		if (k == GF_PCI_GPU || k == GF_PCI_NIC || k == GF_PCI_NVME || k == GF_PCI_NVSWITCH)
			for (int x = i; x >= 0 && !rel[x]; x = t->pci[x].parent)
				rel[x] = true;
	}
}

static void link_findings(struct gf_topo *t)
{
	bool *rel = calloc((size_t)(t->npci > 0 ? t->npci : 1), sizeof(*rel));

	if (!rel)
		return;
	mark_relevant(t, rel);
	for (int i = 0; i < t->npci; i++) {
		const struct gf_pci_dev *d = &t->pci[i];
		const struct gf_pcie_link *l = &d->link, *port;
		double cap_gts;
		int cap_width;
		char name[24];

		/* A downstream port reports the link below it: the same link
		 * its child reports, so say it once, from the child. */
		if (!rel[i] || gf_pci_downstream_port(t, i))
			continue;
		gf_pci_dev_name(t, i, name, sizeof(name));
		/* What the link can do is the lesser of its two ends. */
		port = d->parent >= 0 ? &t->pci[d->parent].link : NULL;
		cap_width = l->max_width;
		if (port && port->max_width && port->max_width < cap_width)
			cap_width = port->max_width;
		cap_gts = l->max_gts;
		if (port && port->max_gts && port->max_gts < cap_gts)
			cap_gts = port->max_gts;
		if (l->cur_width && cap_width && l->cur_width < cap_width)
			gf_finding(t, GF_SEV_WARN, "topo.pcie-width-degraded", name,
				   "%s (%s) runs PCIe x%d but its link is capable of x%d: its bandwidth is cut to %d%% (reseat the card, check the riser and the slot's bifurcation in the BIOS)",
				   name, d->bdf, l->cur_width, cap_width, 100 * l->cur_width / cap_width);
		else if (l->max_width && cap_width && cap_width < l->max_width)
			gf_finding(t, GF_SEV_INFO, "topo.pcie-slot-narrower", name,
				   "%s (%s) is an x%d device in an x%d slot", name, d->bdf, l->max_width,
				   cap_width);
		if (l->cur_gts && cap_gts && l->cur_gts + 0.01 < cap_gts) {
			if (d->kind == GF_PCI_GPU)
				gf_finding(t, GF_SEV_INFO, "topo.pcie-speed-idle", name,
					   "%s (%s) runs at %.1f GT/s, capable of %.1f GT/s: normal for an idle GPU; if it stays there under load the slot or riser is at fault",
					   name, d->bdf, l->cur_gts, cap_gts);
			else
				gf_finding(t, GF_SEV_WARN, "topo.pcie-speed-degraded", name,
					   "%s (%s) runs at %.1f GT/s but its link is capable of %.1f GT/s",
					   name, d->bdf, l->cur_gts, cap_gts);
		} else if (l->max_gts && cap_gts && cap_gts + 0.01 < l->max_gts) {
			gf_finding(t, GF_SEV_INFO, "topo.pcie-slot-slower", name,
				   "%s (%s) is a %.1f GT/s device in a %.1f GT/s slot", name, d->bdf,
				   l->max_gts, cap_gts);
		}
	}
	free(rel);
}

static void gpu_findings(struct gf_topo *t)
{
	for (int i = 0; i < t->ngpus; i++) {
		const struct gf_gpu *g = &t->gpus[i];
		char name[16];

		snprintf(name, sizeof(name), "GPU%d", g->index);
		if (g->numa_node < 0)
			gf_finding(t, GF_SEV_WARN, "topo.gpu-numa-unknown", name,
				   "%s (%s): NUMA node unknown (sysfs numa_node is -1%s); CPU and memory binding cannot be chosen. Set GPUFEED_PCI_LOCALITY=\"%s=NODE\" if you know it",
				   name, g->bdf, t->machine.nvml ? " and NVML gives no single node" : ", no NVML",
				   g->bdf);
		if (g->cpus_source == GF_SRC_UNKNOWN)
			gf_finding(t, GF_SEV_WARN, "topo.gpu-cpus-unknown", name,
				   "%s (%s): local CPUs unknown", name, g->bdf);
	}
}

static void nvlink_findings(struct gf_ctx *c)
{
	struct gf_topo *t = c->t;
	bool some_up = false;

	for (int i = 0; c->facts && i < c->facts->ngpus; i++)
		for (int k = 0; k < c->facts->gpus[i].nlinks; k++)
			some_up |= c->facts->gpus[i].links[k].active;

	for (int i = 0; c->facts && i < c->facts->ngpus; i++) {
		const struct gf_nvml_gpu *f = &c->facts->gpus[i];
		int active = 0;
		char name[16];

		for (int k = 0; k < f->nlinks; k++)
			active += f->links[k].active;
		snprintf(name, sizeof(name), "GPU%d", f->index);
		if (active && active < f->nlinks)
			gf_finding(t, GF_SEV_WARN, "topo.nvlink-inactive", name,
				   "%s: %d of its %d NVLinks are active: peer bandwidth is cut to %d%%",
				   name, active, f->nlinks, 100 * active / f->nlinks);
		/* None up while the machine has NVLink (an NVSwitch, or other
		 * GPUs' links up): fabric manager down or a failed link.  A PCIe
		 * card without its bridge also lists links, all down: no finding. */
		else if (!active && f->nlinks && (t->nvswitch || some_up))
			gf_finding(t, GF_SEV_WARN, "topo.nvlink-down", name,
				   "%s: none of its %d NVLinks is active (is nvidia-fabricmanager running?): it talks to its peers over PCIe",
				   name, f->nlinks);
	}
}

/* A NIC whose line rate exceeds the PCIe path to the CPU cannot be fed. */
static void nic_findings(struct gf_topo *t)
{
	for (int i = 0; i < t->nnics; i++) {
		const struct gf_nic *n = &t->nics[i];
		double line = n->speed_mbps > 0 ? n->speed_mbps / 8000.0 : 0;
		struct gf_narrowest nw = GF_NARROWEST_INIT;

		gf_pcie_narrowest(t, n->pci, -1, &nw);
		if (line > 0 && nw.gb_per_s > 0 && line > nw.gb_per_s * 1.02)
			gf_finding(t, GF_SEV_WARN, "topo.nic-pcie-capped", n->label,
				   "%s (%s, %g Gb/s = %.1f GB/s) sits behind PCIe Gen%d x%d at %s (%.1f GB/s): capped at ~%.0f GB/s",
				   n->label, n->name, n->speed_mbps / 1000.0, line, gf_pcie_gen(nw.gts),
				   nw.width, t->pci[nw.pci].bdf, nw.gb_per_s, nw.gb_per_s);
	}
}

static void nvml_cross_check(struct gf_topo *t)
{
	const struct gf_matrix *m = &t->matrix;

	for (int i = 0; i < m->n; i++) {
		for (int j = i + 1; j < m->n; j++) {
			enum gf_link_type nv = m->nvml_pcie[i * m->n + j];
			enum gf_link_type ours = m->link[i * m->n + j].pcie;
			char subject[40];

			if (nv == GF_LINK_UNKNOWN || nv == ours)
				continue;
			snprintf(subject, sizeof(subject), "%s-%s", m->dev[i].name, m->dev[j].name);
			gf_finding(t, GF_SEV_INFO, "topo.nvml-pcie-mismatch", subject,
				   "%s-%s: the PCIe tree in sysfs gives %s, NVML says %s (NVML sees the physical topology a VM may hide)",
				   m->dev[i].name, m->dev[j].name, gf_link_type_name(ours), gf_link_type_name(nv));
		}
	}
}

int gf_build_findings(struct gf_ctx *c)
{
	struct gf_topo *t = c->t;

	gpu_findings(t);
	link_findings(t);
	nvlink_findings(c);
	nic_findings(t);
	nvml_cross_check(t);
	return 0;
}

GF_API int gf_topo_finding_count(const struct gf_topo *t, enum gf_severity min)
{
	int n = 0;

	if (!t)
		return GF_NULL_ARG("t");
	if ((unsigned)min > GF_SEV_ERROR)
		return gf_arg_error(__func__, "min %d is not a gf_severity", (int)min);
	for (int i = 0; i < t->nfindings; i++)
		n += t->findings[i].severity >= min;
	return n;
}
