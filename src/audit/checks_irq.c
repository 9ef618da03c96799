/* IRQ checks (docs/checks.md, "Interrupts", which names each one's public
 * source).
 *
 * Where an IRQ is served: /proc/irq/N/effective_affinity_list (the CPUs the
 * kernel really delivers it to) when present and not empty, else
 * smp_affinity_list (the CPUs it may go to).  A device's IRQs are the
 * entries of /sys/bus/pci/devices/BDF/msi_irqs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "audit/audit_internal.h"

#define IRQ_SOURCE "/proc/irq/<n>/effective_affinity_list (else smp_affinity_list)"

static bool numeric(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* A CPU list file; "(null)" (nohz_full when unset on older kernels) and ""
 * are the empty set.  0 or -errno. */
static int read_cpulist(struct gf_audit_ctx *c, const char *path, struct gf_cpuset *s)
{
	char buf[4096];
	int ret = audit_peek_str(c, path, buf, sizeof(buf));

	gf_cpuset_zero(s);
	if (ret)
		return ret;
	if (!strcmp(buf, "(null)"))
		return 0;
	return gf_cpuset_parse_list(s, buf) ? -EBADMSG : 0;
}

/* served: where IRQ `irq` lands; mask: its smp_affinity_list. */
static int irq_cpus(struct gf_audit_ctx *c, const char *irq, struct gf_cpuset *served, struct gf_cpuset *mask)
{
	char path[96];
	int ret;

	snprintf(path, sizeof(path), "/proc/irq/%s/smp_affinity_list", irq);
	if ((ret = read_cpulist(c, path, mask)))
		return ret;
	snprintf(path, sizeof(path), "/proc/irq/%s/effective_affinity_list", irq);
	if (read_cpulist(c, path, served) || gf_cpuset_empty(served))
		*served = *mask;
	return 0;
}

/* Status for a list or read of `path` that failed with err, as the audit
 * helpers set it: absent na, EACCES needs-root, else error. */
static void read_failure(struct gf_check_result *r, const char *path, int err)
{
	if (err == -ENOENT || err == -ENOTDIR) {
		audit_na(r, "%s is absent here", path);
		return;
	}
	if (err == -EACCES || err == -EPERM) {
		audit_status(r, GF_CHECK_NEEDS_ROOT);
		audit_note(r, "%s: permission denied (run as root)", path);
		return;
	}
	audit_error(r, "%s: %s", path, strerror(-err));
}

static const struct gf_cpuset *node_cpus(const struct gf_topo *t, int node)
{
	for (int i = 0; i < t->numa.nnodes; i++)
		if (t->numa.node[i].id == node)
			return &t->numa.node[i].cpus;
	return NULL;
}

/* A device passed through to a VM: its interrupts are the guest's. */
static bool passed_through(const struct gf_pci_dev *p)
{
	return !strcmp(p->driver, "vfio-pci") || !strcmp(p->driver, "pci-stub");
}

/* ---- one device's IRQs vs its node ---- */

struct irq_tally {
	int n, off, full;		/* IRQs read, served off the node, mask = all online CPUs */
	int err;			/* first read failure */
	char err_path[128];
	struct gf_cpuset masks;		/* union of the masks narrower than all CPUs */
	char examples[160];		/* "IRQ 140 on 3; ..." (first three off the node) */
};

static void tally_irq(struct gf_audit_ctx *c, const char *irq, const struct gf_cpuset *local, struct irq_tally *s)
{
	struct gf_cpuset served, mask, outside;
	int ret = irq_cpus(c, irq, &served, &mask);

	if (ret) {
		if (!s->err) {
			s->err = ret;
			snprintf(s->err_path, sizeof(s->err_path), "/proc/irq/%s/smp_affinity_list", irq);
		}
		return;
	}
	s->n++;
	if (gf_cpuset_equal(&mask, &c->t->cpus.online))
		s->full++;
	else
		gf_cpuset_or(&s->masks, &s->masks, &mask);
	gf_cpuset_andnot(&outside, &served, local);
	if (gf_cpuset_empty(&outside))
		return;
	if (s->off++ < 3) {
		char list[48];
		size_t l = strlen(s->examples);

		gf_cpuset_format_list(&served, list, sizeof(list));
		snprintf(s->examples + l, sizeof(s->examples) - l, "%sIRQ %s on %s", l ? "; " : "", irq, list);
	}
}

/* Tallies every MSI IRQ of PCI device `p` against `local`.  0, or -errno
 * when msi_irqs cannot be listed. */
static int tally_device(struct gf_audit_ctx *c, const struct gf_pci_dev *p, const struct gf_cpuset *local,
			struct irq_tally *s)
{
	char path[300], **names;
	int n, ret;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/msi_irqs", p->path);
	if ((ret = gf_fs_list(&c->fs, path, &names, &n)))
		return ret;
	for (int i = 0; i < n; i++)
		if (numeric(names[i]))
			tally_irq(c, names[i], local, s);
	gf_strv_free(names, n);
	return 0;
}

/* NVMe queues (managed IRQs) are spread over every CPU on purpose: a
 * CPU's I/O completes on its own queue's vector, so a vector on the far
 * node serves that node's submitters.  Seen as: the narrower masks cover
 * all online CPUs, and at most one vector (the admin queue) spans them all. */
static bool spread_queues(const struct gf_audit_ctx *c, const struct irq_tally *s)
{
	struct gf_cpuset missing;

	gf_cpuset_andnot(&missing, &c->t->cpus.online, &s->masks);
	return s->n >= 2 && s->full <= 1 && gf_cpuset_empty(&missing);
}

static void check_device(struct gf_audit_ctx *c, const char *subject, int pci, int node, bool nvme)
{
	struct gf_check_result *r = audit_result(c, subject);
	const struct gf_pci_dev *p = &c->t->pci[pci];
	const struct gf_cpuset *local = node_cpus(c->t, node);
	struct irq_tally s;
	char cpus[256], path[300];
	int ret;

	audit_source(r, "%s/msi_irqs, " IRQ_SOURCE, p->path);
	if (node < 0 || !local || gf_cpuset_empty(local)) {
		audit_na(r, "the NUMA node of %s is unknown", p->bdf);
		return;
	}
	if ((ret = tally_device(c, p, local, &s))) {
		snprintf(path, sizeof(path), "%s/msi_irqs", p->path);
		if (ret == -ENOENT)
			audit_na(r, "%s has no MSI interrupts listed (%s absent)", p->bdf, path);
		else
			read_failure(r, path, ret);
		return;
	}
	if (!s.n) {
		if (s.err)
			read_failure(r, s.err_path, s.err);
		else
			audit_na(r, "%s has no MSI interrupt", p->bdf);
		return;
	}
	gf_cpuset_format_list(local, cpus, sizeof(cpus));
	audit_expected(r, "served on node %d (CPUs %s)", node, cpus);
	if (nvme && s.off && spread_queues(c, &s)) {
		audit_observed(r, "%d queue IRQs spread over all CPUs", s.n);
		audit_note(r, "per-CPU queues: each CPU completes its own I/O on its own vector");
		return;
	}
	if (!s.off) {
		audit_observed(r, "%d IRQ%s, all on node %d", s.n, s.n == 1 ? "" : "s", node);
		return;
	}
	audit_observed(r, "%d of %d IRQs off node %d: %s%s", s.off, s.n, node, s.examples, s.off > 3 ? "; ..." : "");
	audit_status(r, GF_CHECK_WARN);
	audit_note(r, "an interrupt served on the far node crosses the socket link and wakes a far cache");
	audit_fix(r, "for each IRQ N in %s/msi_irqs: echo %s > /proc/irq/N/smp_affinity_list "
		     "(with irqbalance stopped, or banned from these IRQs)", p->path, cpus);
	audit_persist(r, "a boot-time unit that pins them (mlnx set_irq_affinity_bynode.sh %d), or irqbalance "
			 "honouring the driver's affinity hints", node);
	r->fix_class = GF_FIX_ADVICE;
}

/* One NUMA node: every CPU is local, there is nothing to place. */
static bool single_node(struct gf_audit_ctx *c)
{
	if (c->t->numa.nnodes > 1)
		return false;
	audit_na(audit_result(c, ""), "%s NUMA node: every CPU is local to every device",
		 c->t->numa.nnodes == 1 ? "one" : "no");
	return true;
}

static void run_gpu_local(struct gf_audit_ctx *c)
{
	if (single_node(c))
		return;
	for (int g = 0; g < c->t->ngpus; g++) {
		const struct gf_gpu *gpu = &c->t->gpus[g];
		char subject[16];

		if (gpu->pci < 0 || passed_through(&c->t->pci[gpu->pci]))
			continue;
		snprintf(subject, sizeof(subject), "GPU%d", gpu->index);
		check_device(c, subject, gpu->pci, gpu->numa_node, false);
	}
}

static void run_nic_local(struct gf_audit_ctx *c)
{
	if (single_node(c))
		return;
	for (int i = 0; i < c->t->nnics; i++) {
		const struct gf_nic *nic = &c->t->nics[i];

		if (nic->pci < 0 || passed_through(&c->t->pci[nic->pci]))
			continue;
		check_device(c, nic->label[0] ? nic->label : nic->name, nic->pci, nic->numa_node, false);
	}
	if (!c->t->nnics)
		audit_na(audit_result(c, ""), "no PCI network device here");
}

static void run_nvme_local(struct gf_audit_ctx *c)
{
	int n = 0;

	if (single_node(c))
		return;
	for (int i = 0; i < c->t->npci; i++) {
		const struct gf_pci_dev *p = &c->t->pci[i];
		const char *subject = p->bdf;
		int node = p->numa_node;

		if (p->kind != GF_PCI_NVME || passed_through(p))
			continue;
		/* Named by its first namespace; the controller owns the IRQs. */
		for (int b = 0; b < c->t->nblocks; b++)
			if (c->t->blocks[b].pci == i) {
				subject = c->t->blocks[b].name;
				if (c->t->blocks[b].numa_node >= 0)
					node = c->t->blocks[b].numa_node;
				break;
			}
		n++;
		check_device(c, subject, i, node, true);
	}
	if (!n)
		audit_na(audit_result(c, ""), "no NVMe controller here");
}

/* ---- irqbalance ---- */

/* irqbalance from files only: its process name in /proc/PID/comm.  1 with
 * *pid, 0 when not running, -1 when process names cannot be seen (a
 * recording without them: `gpufeed record` keeps /proc/1/comm as the mark
 * that it looked; hidepid). */
static int irqbalance_running(struct gf_audit_ctx *c, long *pid)
{
	int n = audit_processes(c, AUDIT_PROC_IRQBALANCE, pid);

	return n < 0 ? -1 : n > 0;
}

struct irqbalance_conf {
	char file[40];			/* "" when there is none */
	bool banned_set;		/* IRQBALANCE_BANNED_CPULIST / _CPUS given */
	char banned_key[32];
	struct gf_cpuset banned;
	char args[200];			/* IRQBALANCE_ARGS / OPTIONS */
};

static void conf_line(char *line, struct irqbalance_conf *k)
{
	char *eq = strchr(line, '='), *key = line, *val;
	size_t l;

	if (!eq || *gf_lstrip(line) == '#')
		return;
	*eq = '\0';
	key = gf_strip(key);
	if (!strncmp(key, "export ", 7))
		key = gf_lstrip(key + 7);
	val = gf_strip(eq + 1);
	l = strlen(val);
	if (l >= 2 && (val[0] == '"' || val[0] == '\'') && val[l - 1] == val[0]) {
		val[l - 1] = '\0';
		val++;
	}
	if (!strcmp(key, "IRQBALANCE_BANNED_CPULIST") || !strcmp(key, "IRQBALANCE_BANNED_CPUS")) {
		struct gf_cpuset s;
		bool list = !strcmp(key, "IRQBALANCE_BANNED_CPULIST");

		/* The list wins over the older hex mask, as in irqbalance. */
		if ((list || !k->banned_set || strcmp(k->banned_key, "IRQBALANCE_BANNED_CPULIST")) &&
		    !(list ? gf_cpuset_parse_list(&s, val) : gf_cpuset_parse_mask(&s, val))) {
			k->banned = s;
			k->banned_set = true;
			gf_strlcpy(k->banned_key, key, sizeof(k->banned_key));
		}
	} else if (!strcmp(key, "IRQBALANCE_ARGS") || !strcmp(key, "OPTIONS")) {
		gf_strlcpy(k->args, val, sizeof(k->args));
	}
}

/* /etc/default/irqbalance (Debian) or /etc/sysconfig/irqbalance (Red Hat). */
static void read_irqbalance_conf(struct gf_audit_ctx *c, struct irqbalance_conf *k)
{
	static const char *const files[] = { "/etc/default/irqbalance", "/etc/sysconfig/irqbalance" };
	char *data = NULL, *line, *save = NULL;
	size_t len;

	memset(k, 0, sizeof(*k));
	for (int f = 0; f < 2 && !data; f++)
		if (!gf_fs_read(&c->fs, files[f], &data, &len))
			gf_strlcpy(k->file, files[f], sizeof(k->file));
	if (!data)
		return;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		conf_line(line, k);
	free(data);
}

/* ---- isolated CPUs vs irqbalance vs IRQ affinities ---- */

/* The IRQs served on `cpus` among all of /proc/irq: count and examples.
 * 0, or -errno when /proc/irq cannot be listed. */
static int irqs_on(struct gf_audit_ctx *c, const struct gf_cpuset *cpus, int *count, char *ex, size_t size)
{
	char **names;
	int n, ret;

	*count = 0;
	ex[0] = '\0';
	if ((ret = gf_fs_list(&c->fs, "/proc/irq", &names, &n)))
		return ret;
	for (int i = 0; i < n; i++) {
		struct gf_cpuset served, mask, both;

		if (!numeric(names[i]) || irq_cpus(c, names[i], &served, &mask))
			continue;
		gf_cpuset_and(&both, &served, cpus);
		if (gf_cpuset_empty(&both))
			continue;
		if ((*count)++ < 4) {
			size_t l = strlen(ex);

			snprintf(ex + l, size - l, "%s%s", l ? "," : "", names[i]);
		}
	}
	gf_strv_free(names, n);
	return 0;
}

/* isolated ∪ nohz_full; -errno (both absent or unreadable) on r. */
static int isolated_cpus(struct gf_audit_ctx *c, struct gf_check_result *r, struct gf_cpuset *iso)
{
	struct gf_cpuset nohz;
	int a = read_cpulist(c, "/sys/devices/system/cpu/isolated", iso);
	int b = read_cpulist(c, "/sys/devices/system/cpu/nohz_full", &nohz);

	if (a && b) {
		read_failure(r, "/sys/devices/system/cpu/isolated", a);
		return a;
	}
	gf_cpuset_or(iso, iso, &nohz);
	return 0;
}

static void isolation_fix(struct gf_check_result *r, const char *iso)
{
	audit_fix(r, "set IRQBALANCE_BANNED_CPULIST to include %s (or remove it: irqbalance then bans isolated "
		     "and nohz_full CPUs itself); move the listed IRQs: echo <housekeeping CPUs> > "
		     "/proc/irq/N/smp_affinity_list", iso);
	audit_persist(r, "/etc/default/irqbalance or /etc/sysconfig/irqbalance; irqaffinity=<housekeeping CPUs> "
			 "and isolcpus=managed_irq,... on the kernel command line");
	r->fix_class = GF_FIX_ADVICE;
}

static void run_isolation(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	struct irqbalance_conf k;
	struct gf_cpuset iso, uncovered;
	char isos[128], ban[128] = "its default (isolated + nohz_full)", ex[64];
	long pid;
	int running, nirq, ret;
	bool bad_ban;

	audit_source(r, "/sys/devices/system/cpu/{isolated,nohz_full}, irqbalance config, " IRQ_SOURCE);
	if (isolated_cpus(c, r, &iso))
		return;
	if (gf_cpuset_empty(&iso)) {
		audit_na(r, "no isolated or nohz_full CPU");
		return;
	}
	if ((ret = irqs_on(c, &iso, &nirq, ex, sizeof(ex)))) {
		read_failure(r, "/proc/irq", ret);
		return;
	}
	running = irqbalance_running(c, &pid);
	read_irqbalance_conf(c, &k);
	gf_cpuset_format_list(&iso, isos, sizeof(isos));
	gf_cpuset_andnot(&uncovered, &iso, &k.banned);
	/* Setting a banned list replaces irqbalance's own ban of isolated and
	 * nohz_full CPUs: a list that misses them hands them back to it. */
	bad_ban = k.banned_set && !gf_cpuset_empty(&uncovered) && running != 0;
	if (k.banned_set) {
		char list[96];

		gf_cpuset_format_list(&k.banned, list, sizeof(list));
		snprintf(ban, sizeof(ban), "%s=%s", k.banned_key, list[0] ? list : "(none)");
	}
	audit_observed(r, "isolated %s; irqbalance %s, bans %s; %d IRQ%s served there%s%s", isos,
		       running > 0 ? "running" : running == 0 ? "not running" : "state unknown", ban, nirq,
		       nirq == 1 ? "" : "s", nirq ? ": " : "", nirq ? ex : "");
	audit_expected(r, "no IRQ on %s; irqbalance bans them", isos);
	if (!bad_ban && !nirq)
		return;
	audit_status(r, GF_CHECK_WARN);
	if (bad_ban)
		audit_note(r, "%s leaves isolated CPUs to irqbalance", k.banned_key);
	else
		audit_note(r, "interrupts preempt the isolated CPUs' work");
	isolation_fix(r, isos);
}

/* irqbalance running, or else device IRQs pinned: not neither.  (Both at
 * once shows only as affinities changing over time; the note says so.) */
static void run_balance(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	struct irqbalance_conf k;
	long pid;
	int running = irqbalance_running(c, &pid), dev = 0, unpinned = 0;

	audit_source(r, "/proc/<pid>/comm, /etc/{default,sysconfig}/irqbalance, /sys/bus/pci/devices/<bdf>/msi_irqs, "
			"/proc/irq/<n>/smp_affinity_list");
	if (running < 0) {
		audit_na(r, "process names are not readable (/proc/1/comm absent: an older recording, or hidepid)");
		return;
	}
	read_irqbalance_conf(c, &k);
	audit_expected(r, "irqbalance running, or off with device IRQs pinned to their node");
	if (running) {
		audit_observed(r, "irqbalance running (pid %ld)%s%s", pid, k.args[0] ? ", args " : "", k.args);
		audit_note(r, "irqbalance owns IRQ placement: affinities set by hand are rewritten unless banned "
			      "(--banirq, IRQBALANCE_BANNED_CPULIST)");
		return;
	}
	for (int i = 0; i < c->t->npci; i++) {
		const struct gf_pci_dev *p = &c->t->pci[i];
		struct irq_tally s;

		if ((p->kind != GF_PCI_GPU && p->kind != GF_PCI_NIC) || passed_through(p) ||
		    tally_device(c, p, &c->t->cpus.online, &s))
			continue;
		dev += s.n;
		unpinned += s.full;
	}
	audit_observed(r, "irqbalance not running; %d of %d GPU/NIC IRQs on the all-CPU mask", unpinned, dev);
	if (c->t->numa.nnodes <= 1 || !unpinned) {
		if (c->t->numa.nnodes <= 1)
			audit_note(r, "one NUMA node: the kernel's own placement is local");
		return;
	}
	audit_status(r, GF_CHECK_WARN);
	audit_note(r, "neither irqbalance nor pinned affinities: nothing keeps device IRQs on their node");
	audit_fix(r, "systemctl enable --now irqbalance, or pin each device's IRQs to its node's CPUs");
	audit_persist(r, "the irqbalance unit enabled, or a boot-time unit that pins the IRQs");
	r->fix_class = GF_FIX_ADVICE;
}

const struct gf_check_def gf_checks_irq[] = {
	{ { "irq.gpu-local", "irq", "GPU interrupts should be served on the GPU's NUMA node",
	    "a GPU interrupt served on another node crosses the socket link on every completion; "
	    "docs/checks.md#irq.gpu-local; "
	    "\"SMP IRQ affinity\", https://docs.kernel.org/core-api/irq/irq-affinity.html",
	    "/sys/bus/pci/devices/<bdf>/msi_irqs, " IRQ_SOURCE ", the model's GPU NUMA node",
	    "on the GPU's node", "on the GPU's node",
	    "echo <node CPUs> > /proc/irq/N/smp_affinity_list for each IRQ; keep irqbalance off them",
	    GF_CHECK_CROSS_LAYER | GF_CHECK_NEEDS_GPU },
	  run_gpu_local },
	{ { "irq.nic-local", "irq", "NIC interrupts should be served on the NIC's NUMA node",
	    "NIC interrupts on another node cross the socket link for every packet; "
	    "docs/checks.md#irq.nic-local; "
	    "\"SMP IRQ affinity\", https://docs.kernel.org/core-api/irq/irq-affinity.html; "
	    "\"NCCL Troubleshooting: Networking\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/networking_troubleshooting.html",
	    "/sys/bus/pci/devices/<bdf>/msi_irqs, " IRQ_SOURCE ", the model's NIC NUMA node",
	    "on the NIC's node", "on the NIC's node",
	    "echo <node CPUs> > /proc/irq/N/smp_affinity_list for each IRQ (set_irq_affinity_bynode.sh)",
	    GF_CHECK_CROSS_LAYER },
	  run_nic_local },
	{ { "irq.nvme-local", "irq", "NVMe interrupts should be served on the drive's node (or spread per CPU)",
	    "NVMe completions served far from the drive cross the socket link; blk-mq spreads queues per CPU; "
	    "docs/checks.md#irq.nvme-local; "
	    "\"SMP IRQ affinity\", https://docs.kernel.org/core-api/irq/irq-affinity.html; "
	    "\"Multi-Queue Block IO Queueing Mechanism (blk-mq)\", https://docs.kernel.org/block/blk-mq.html",
	    "/sys/bus/pci/devices/<bdf>/msi_irqs, " IRQ_SOURCE ", the model's NVMe NUMA node",
	    "on the drive's node, or one queue per CPU group", "on the drive's node, or one queue per CPU group",
	    "echo <node CPUs> > /proc/irq/N/smp_affinity_list for each IRQ not managed by the kernel",
	    GF_CHECK_CROSS_LAYER },
	  run_nvme_local },
	{ { "irq.isolation", "irq", "isolated CPUs should get no interrupts and irqbalance should ban them",
	    "interrupts on isolated CPUs break the isolation they were made for; docs/checks.md#irq.isolation; "
	    "\"The kernel's command-line parameters\", https://docs.kernel.org/admin-guide/kernel-parameters.html; "
	    "\"TuneD cpu-partitioning profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/cpu-partitioning/tuned.conf",
	    "/sys/devices/system/cpu/{isolated,nohz_full}, IRQBALANCE_BANNED_CPULIST in "
	    "/etc/{default,sysconfig}/irqbalance, /proc/irq/<n>/effective_affinity_list",
	    "no IRQ on isolated CPUs; irqbalance bans them", "no IRQ on isolated CPUs; irqbalance bans them",
	    "ban the isolated CPUs in irqbalance; irqaffinity= on the kernel command line",
	    GF_CHECK_HOST_ONLY | GF_CHECK_CROSS_LAYER },
	  run_isolation },
	{ { "irq.balance", "irq", "irqbalance should run, or device IRQs be pinned by hand (not neither)",
	    "interrupts need one owner: irqbalance, or static NUMA-local affinity set by hand; "
	    "docs/checks.md#irq.balance; "
	    "\"SMP IRQ affinity\", https://docs.kernel.org/core-api/irq/irq-affinity.html; "
	    "\"irqbalance\", https://github.com/Irqbalance/irqbalance",
	    "/proc/<pid>/comm (irqbalance), /etc/{default,sysconfig}/irqbalance, /proc/irq/<n>/smp_affinity_list",
	    "one owner: irqbalance, or static NUMA-local affinity", "one owner: irqbalance, or static NUMA-local affinity",
	    "systemctl enable --now irqbalance, or pin device IRQs to their node and stop irqbalance",
	    GF_CHECK_HOST_ONLY },
	  run_balance },
	GF_CHECK_END,
};
