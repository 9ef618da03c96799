/* gpufeed config nccl-topo: an NCCL topology file (emit.h).
 *
 * The shape is NCCL's own (src/graph/xml.cc, topo.cc): <system version="1">,
 * a <cpu> per NUMA node, and under it the <pci> tree NCCL would build from
 * sysfs: a device's parent is the PCI device two levels up (a switch's
 * upstream port; downstream and root ports are skipped), or the <cpu> when
 * that is a root port.  NCCL keeps a file's attributes over what it reads
 * itself, so only facts the model holds are written; rank and gdr (set per
 * process) and the net plugin's properties are left to NCCL.  Spaces only
 * (NCCL's parser skips no tabs) and no <?xml?> line (it would not parse it). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/quote.h"
#include "emit/emit_internal.h"

#define NVSWITCH_CLASS 0x068000		/* NCCL's PCI_NVSWITCH_CLASS */
#define HIDDEN_TARGET "fffffff:ffff:ff"	/* NCCL's name for an NVLink end it cannot see */

struct ctx {
	const struct gf_topo *t;
	const struct gf_emit_options *o;
	FILE *f;
	int *used;		/* per PCI device: 1 when written */
	int *leaf_node;		/* per PCI device: NUMA node of its GPUs/NICs */
	int *nic_at;		/* per PCI device: first NIC merged into it, -1 */
	int mask_bits;
};

/* The device NCCL hangs x under: two levels up, -1 for the <cpu>. */
static int nccl_parent(const struct gf_topo *t, int x)
{
	int p = t->pci[x].parent;

	return p < 0 ? -1 : t->pci[p].parent;
}

/* NCCL merges the ports of a multi-port NIC into function 0 (net_ib). */
static int nic_pci(const struct gf_topo *t, int pci)
{
	char bdf[16];

	snprintf(bdf, sizeof(bdf), "%s", t->pci[pci].bdf);
	bdf[strlen(bdf) - 1] = '0';
	for (int i = 0; i < t->npci; i++)
		if (!strcmp(t->pci[i].bdf, bdf))
			return i;
	return pci;
}

static void mark(struct ctx *c, int pci, int node)
{
	for (int x = pci; x >= 0; x = nccl_parent(c->t, x)) {
		if (!c->used[x])
			c->leaf_node[x] = node;
		c->used[x] = 1;
	}
}

static int top_of(const struct gf_topo *t, int x)
{
	while (nccl_parent(t, x) >= 0)
		x = nccl_parent(t, x);
	return x;
}

/* NCCL reads max_link_speed/width of the device and of the port above it
 * and keeps the smaller. */
static void link_attrs(struct ctx *c, int x)
{
	const struct gf_pci_dev *d = &c->t->pci[x];
	double gts = d->link.max_gts > 0 ? d->link.max_gts : d->link.cur_gts;
	int width = d->link.max_width > 0 ? d->link.max_width : d->link.cur_width;

	if (d->parent >= 0) {
		const struct gf_pcie_link *p = &c->t->pci[d->parent].link;
		double pg = p->max_gts > 0 ? p->max_gts : p->cur_gts;
		int pw = p->max_width > 0 ? p->max_width : p->cur_width;

		if (pg > 0 && (gts <= 0 || pg < gts))
			gts = pg;
		if (pw > 0 && (width <= 0 || pw < width))
			width = pw;
	}
	/* Unknown: empty, as NCCL writes it (it then assumes Gen3 x16). */
	if (gts > 0)
		fprintf(c->f, " link_speed=\"%.1f GT/s PCIe\"", gts);
	else
		fputs(" link_speed=\"\"", c->f);
	if (width > 0)
		fprintf(c->f, " link_width=\"%d\"", width);
	else
		fputs(" link_width=\"\"", c->f);
}

static void indent(FILE *f, int depth)
{
	fprintf(f, "%*s", 2 * depth, "");
}

static int gpu_at(const struct gf_topo *t, int pci)
{
	for (int g = 0; g < t->ngpus; g++)
		if (t->gpus[g].pci == pci)
			return g;
	return -1;
}

static void nvlinks(struct ctx *c, int g, int depth)
{
	const struct gf_topo *t = c->t;
	const struct gf_gpu *gpu = &t->gpus[g];

	if (t->nvswitch && gpu->nvswitch_links > 0) {
		/* All links end on the fabric; NCCL joins every NVSwitch into
		 * one node and adds the links' bandwidth, so one entry says it. */
		indent(c->f, depth);
		fprintf(c->f, "<nvlink target=\"%s\" count=\"%d\" tclass=\"0x%06x\"/>\n", HIDDEN_TARGET,
			gpu->nvswitch_links, NVSWITCH_CLASS);
		return;
	}
	for (int p = 0; p < t->ngpus; p++) {
		int n = emit_nvlinks(t, g, p);

		if (p == g || n <= 0)
			continue;
		indent(c->f, depth);
		fprintf(c->f, "<nvlink target=\"%s\" count=\"%d\" tclass=\"0x%06x\"/>\n", t->gpus[p].bdf, n,
			t->pci[t->gpus[p].pci].class_code);
	}
}

static void gpu_elem(struct ctx *c, int g, int depth)
{
	const struct gf_gpu *gpu = &c->t->gpus[g];
	int sm = emit_gpu_sm(gpu->name);

	indent(c->f, depth);
	fprintf(c->f, "<gpu dev=\"%d\"", gpu->index);
	if (sm)
		fprintf(c->f, " sm=\"%d\"", sm);
	fputs(">\n", c->f);
	nvlinks(c, g, depth + 1);
	indent(c->f, depth);
	fputs("</gpu>\n", c->f);
}

static void nic_elem(struct ctx *c, int x, int depth)
{
	const struct gf_topo *t = c->t;

	indent(c->f, depth);
	fputs("<nic>\n", c->f);
	for (int i = 0, dev = 0; i < t->nnics; i++) {
		if (!t->nics[i].rdma[0])
			continue;
		if (nic_pci(t, t->nics[i].pci) == x) {
			indent(c->f, depth + 1);
			fputs("<net name=\"", c->f);
			gf_xml_escape(c->f, t->nics[i].rdma);
			fprintf(c->f, "\" dev=\"%d\"", dev);
			if (t->nics[i].speed_mbps > 0)
				fprintf(c->f, " speed=\"%lld\"", t->nics[i].speed_mbps);
			fputs("/>\n", c->f);
		}
		dev++;
	}
	indent(c->f, depth);
	fputs("</nic>\n", c->f);
}

static void pci_elem(struct ctx *c, int x, int depth)
{
	const struct gf_pci_dev *d = &c->t->pci[x];
	int g = gpu_at(c->t, x);
	bool nic = c->nic_at[x] >= 0, leaf = g >= 0 || nic;

	indent(c->f, depth);
	fprintf(c->f, "<pci busid=\"%s\" class=\"0x%06x\" vendor=\"0x%04x\" device=\"0x%04x\"", d->bdf, d->class_code,
		d->vendor, d->device);
	/* NCCL tells Broadcom PEX switches (flattened) by their subsystem ids. */
	if (d->subsystem_vendor >= 0 && d->subsystem_device >= 0)
		fprintf(c->f, " subsystem_vendor=\"0x%04x\" subsystem_device=\"0x%04x\"", (unsigned)d->subsystem_vendor,
			(unsigned)d->subsystem_device);
	link_attrs(c, x);
	if (leaf && c->o->skeleton) {
		fputs("/>\n", c->f);
		return;
	}
	fputs(">\n", c->f);
	if (g >= 0)
		gpu_elem(c, g, depth + 1);
	else if (nic)
		nic_elem(c, x, depth + 1);
	for (int y = 0; y < c->t->npci; y++)
		if (c->used[y] && nccl_parent(c->t, y) == x)
			pci_elem(c, y, depth + 1);
	indent(c->f, depth);
	fputs("</pci>\n", c->f);
}

static void cpu_elem(struct ctx *c, int node, const struct gf_cpuset *cpus, const struct gf_cpus *ci)
{
	fprintf(c->f, "  <cpu numaid=\"%d\" affinity=\"", node);
	emit_write_mask(c->f, cpus, c->mask_bits);
	fputc('"', c->f);
	if (*ci->arch)
		fprintf(c->f, " arch=\"%s\"", ci->arch);
	if (*ci->vendor) {
		fputs(" vendor=\"", c->f);
		gf_xml_escape(c->f, ci->vendor);
		fputc('"', c->f);
	}
	if (ci->family >= 0 && ci->model_id >= 0)
		fprintf(c->f, " familyid=\"%d\" modelid=\"%d\"", ci->family, ci->model_id);
	fputs(">\n", c->f);
	for (int x = 0; x < c->t->npci; x++)
		if (c->used[x] && nccl_parent(c->t, x) < 0 && c->leaf_node[top_of(c->t, x)] == node)
			pci_elem(c, x, 2);
	fputs("  </cpu>\n", c->f);
}

static int highest_cpu(const struct gf_topo *t)
{
	int hi = -1;

	for (int i = gf_cpuset_first(&t->cpus.possible); i >= 0; i = gf_cpuset_next(&t->cpus.possible, i))
		hi = i;
	for (int i = 0; i < t->cpus.ncpu; i++)
		if (t->cpus.cpu[i].id > hi)
			hi = t->cpus.cpu[i].id;
	return hi;
}

static void comments(struct ctx *c)
{
	const struct gf_topo *t = c->t;

	emit_banner(c->f, "<!--", t, "NCCL topology (NCCL_TOPO_FILE)");
	fputs("     A <cpu> per NUMA node, the PCIe switches above each GPU and RDMA NIC as NCCL\n"
	      "     builds them from sysfs, GPUs with their NVLinks.  NCCL fills in what is left\n"
	      "     out (rank, gdr, the NICs' properties) on the machine it runs on. -->\n", c->f);
	for (int g = 0; g < t->ngpus; g++)
		if (t->gpus[g].numa_node < 0) {
			fputs("<!-- A GPU has no known NUMA node: give it with --pci-locality. -->\n", c->f);
			break;
		}
}

static int write_all(struct ctx *c)
{
	const struct gf_topo *t = c->t;
	const struct gf_cpus *ci = &t->cpus;
	struct gf_cpuset all;
	bool unknown = false;

	for (int g = 0; g < t->ngpus; g++) {
		mark(c, t->gpus[g].pci, t->gpus[g].numa_node);
		unknown |= t->gpus[g].numa_node < 0;
	}
	for (int i = 0; i < t->nnics; i++)
		if (t->nics[i].rdma[0] && t->nics[i].pci >= 0) {
			int x = nic_pci(t, t->nics[i].pci);

			if (c->nic_at[x] < 0)
				c->nic_at[x] = i;
			mark(c, x, t->nics[i].numa_node);
			unknown |= t->nics[i].numa_node < 0;
		}
	comments(c);
	fputs("<system version=\"1\">\n", c->f);
	for (int i = 0; i < t->numa.nnodes; i++)
		if (!gf_cpuset_empty(&t->numa.node[i].cpus))
			cpu_elem(c, t->numa.node[i].id, &t->numa.node[i].cpus, ci);
	if (unknown || !t->numa.nnodes) {
		gf_cpuset_zero(&all);
		for (int i = 0; i < t->cpus.ncpu; i++)
			gf_cpuset_set(&all, (unsigned)t->cpus.cpu[i].id);
		cpu_elem(c, -1, &all, ci);
	}
	fputs("</system>\n", c->f);
	return emit_done(c->f);
}

int gf_emit_nccl_topo(const struct gf_topo *t, const struct gf_emit_options *opts, FILE *f)
{
	struct gf_emit_options o;
	struct ctx c = { .t = t, .o = &o, .f = f };
	int ret;

	if (!t || !f)
		return GF_NULL_ARG(!t ? "t" : "f");
	if ((ret = emit_opts(opts, &o, __func__)))
		return ret;
	if (!t->ngpus)
		return gf_error(-ENODEV, "no NVIDIA GPU in the model: no NCCL topology to write");
	c.used = calloc((size_t)t->npci + 1, sizeof(int));
	c.leaf_node = calloc((size_t)t->npci + 1, sizeof(int));
	c.nic_at = malloc(((size_t)t->npci + 1) * sizeof(int));
	if (!c.used || !c.leaf_node || !c.nic_at) {
		ret = gf_error(-ENOMEM, "NCCL topology: out of memory");
	} else {
		for (int i = 0; i < t->npci; i++)
			c.nic_at[i] = -1;
		c.mask_bits = highest_cpu(t) + 1;
		ret = write_all(&c);
	}
	free(c.used);
	free(c.leaf_node);
	free(c.nic_at);
	return ret;
}
