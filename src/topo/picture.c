/* What the picture of the machine shows, decided from the model alone, in
 * an order that depends on nothing but the model (PCI order, node ids), so
 * the same machine always gives the same drawing. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/picture.h"
#include "topo/render.h"
#include "topo/topo_internal.h"

#define PCI_VENDOR_BROADCOM_PLX 0x10b5u

static bool shown_kind(enum gf_pci_kind k)
{
	return k == GF_PCI_GPU || k == GF_PCI_NIC || k == GF_PCI_NVME || k == GF_PCI_NVSWITCH ||
	       k == GF_PCI_STORAGE;
}

/* A finding of one of `ids` (NULL-terminated) about subject, or -1. */
static int find_finding(const struct gf_topo *t, const char *subject, const char *const *ids)
{
	for (int i = 0; i < t->nfindings; i++)
		for (const char *const *id = ids; *id; id++)
			if (!strcmp(t->findings[i].id, *id) && !strcmp(t->findings[i].subject, subject))
				return i;
	return -1;
}

/* Labels hold what a recording says: cut to size, whole or with "...". */
static void label(char *dst, const char *fmt, ...) GF_PRINTF(2, 3);
static void label(char *dst, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (strlen(buf) > GF_PIC_LABEL)
		memcpy(buf + GF_PIC_LABEL - 3, "...", 4);
	memcpy(dst, buf, strlen(buf) + 1);
	gf_sanitize_text(dst);
}

struct builder {
	struct gf_picture *p;
	bool *relevant;			/* on the way to a device the picture shows */
	int *nchildren;			/* relevant children of each PCI device */
};

static struct gf_pic_box *new_box(struct builder *b, enum gf_pic_kind kind, int pci, int hb, int parent,
				  int depth)
{
	struct gf_picture *p = b->p;
	struct gf_pic_box *x = gf_push(&p->box, &p->nbox, sizeof(*p->box));

	if (!x)
		return NULL;
	x->kind = kind;
	x->pci = pci;
	x->hb = hb;
	x->parent = parent;
	x->depth = depth;
	x->gpu = -1;
	return x;
}

static const char *bridge_title(const struct gf_topo *t, int i)
{
	const struct gf_pci_dev *d = &t->pci[i];
	bool upstream = d->pcie_type == 5 || (d->pcie_type < 0 && !gf_pci_downstream_port(t, i));

	if (upstream)
		return d->vendor == PCI_VENDOR_BROADCOM_PLX ? "PCIe switch (Broadcom PEX)" : "PCIe switch";
	return d->pcie_type == 4 || d->parent < 0 ? "PCIe root port" : "PCIe port";
}

static void describe_gpu(const struct gf_topo *t, struct gf_pic_box *x, int gi)
{
	const struct gf_gpu *g = &t->gpus[gi];
	static const char *const nvlink_ids[] = { "topo.nvlink-inactive", "topo.nvlink-down", NULL };
	char mem[32] = "", node[24];
	double per_link = gf_nvlink_link_gb_per_s(g->nvlink_version);

	x->gpu = gi;
	snprintf(x->name, sizeof(x->name), "GPU%d", g->index);
	label(x->title, "GPU%d %s", g->index, g->name[0] ? g->name : "NVIDIA GPU");
	if (g->memory_bytes)
		gf_fmt_bytes(g->memory_bytes, mem, sizeof(mem));
	if (g->numa_node >= 0)
		snprintf(node, sizeof(node), "NUMA %d", g->numa_node);
	else
		snprintf(node, sizeof(node), "NUMA unknown");
	label(x->detail, "%s%s%s, %s", g->bdf, mem[0] ? ", " : "", mem, node);
	x->locality_unknown = g->numa_node < 0;
	x->nvlink_degraded = find_finding(t, x->name, nvlink_ids) >= 0;
	if (g->nvlinks_active > 0) {
		x->nvlink_gb_per_s = per_link * g->nvlinks_active;
		if (x->nvlink_gb_per_s > 0)
			label(x->nvlink, "NVLink %s x%d, %.0f GB/s%s", gf_nvlink_version_name(g->nvlink_version),
			      g->nvlinks_active, x->nvlink_gb_per_s, g->nvswitch_links ? " to NVSwitch" : "");
		else
			label(x->nvlink, "NVLink x%d, rate unknown", g->nvlinks_active);
	} else if (x->nvlink_degraded) {
		label(x->nvlink, "NVLink: none active");
	}
}

static void describe_nic(const struct gf_topo *t, struct gf_pic_box *x, int ni)
{
	const struct gf_nic *n = &t->nics[ni];
	char speed[32] = "";

	snprintf(x->name, sizeof(x->name), "%s", n->label);
	if (strcmp(n->label, n->name))
		label(x->title, "%s %s%s%s%s", n->label, n->name, n->rdma[0] && n->netdevs[0] ? " (" : "",
		      n->rdma[0] ? n->netdevs : "", n->rdma[0] && n->netdevs[0] ? ")" : "");
	else
		label(x->title, "NIC %s", n->name);
	if (n->speed_mbps > 0)
		snprintf(speed, sizeof(speed), ", %g Gb/s", n->speed_mbps / 1000.0);
	label(x->detail, "%s%s%s%s%s%s", t->pci[n->pci].bdf, n->link_layer[0] ? ", " : "", n->link_layer, speed,
	      n->state[0] ? ", " : "", n->state);
}

static void describe_device(struct builder *b, struct gf_pic_box *x, int i)
{
	const struct gf_topo *t = b->p->t;
	const struct gf_pci_dev *d = &t->pci[i];

	gf_pci_dev_name(t, i, x->name, sizeof(x->name));
	for (int g = 0; g < t->ngpus; g++)
		if (t->gpus[g].pci == i) {
			describe_gpu(t, x, g);
			return;
		}
	for (int n = 0; n < t->nnics; n++)
		if (t->nics[n].pci == i) {
			describe_nic(t, x, n);
			return;
		}
	for (int k = 0; k < t->nblocks; k++) {
		const struct gf_block *bl = &t->blocks[k];
		char size[32] = "";

		if (bl->pci != i)
			continue;
		if (bl->size_bytes)
			gf_fmt_bytes(bl->size_bytes, size, sizeof(size));
		if (bl->label[0])
			label(x->title, "%s %s", bl->label, bl->name);
		else
			label(x->title, "%s %s", x->kind == GF_PIC_NVME ? "NVMe" : "Storage", bl->name);
		label(x->detail, "%s%s%s%s%s", d->bdf, bl->model[0] ? ", " : "", bl->model, size[0] ? ", " : "",
		      size);
		return;
	}
	switch (x->kind) {
	case GF_PIC_NVSWITCH: label(x->title, "NVSwitch"); break;
	case GF_PIC_NVME: label(x->title, "NVMe controller"); break;
	case GF_PIC_STORAGE: label(x->title, "Storage controller"); break;
	case GF_PIC_NIC: label(x->title, "NIC"); break;
	case GF_PIC_GPU: label(x->title, "GPU"); break;
	default:
		label(x->title, "%s", bridge_title(t, i));
		label(x->detail, "%s", d->bdf);
		return;
	}
	label(x->detail, "%s%s%s", d->bdf, d->driver[0] ? ", driver " : "", d->driver);
}

/* The link from the parent box down to device i: every PCIe link on the
 * way, the narrowest one named, and a finding about any of them. */
static void describe_link(struct builder *b, struct gf_pic_box *x, int i)
{
	const struct gf_topo *t = b->p->t;
	static const char *const degraded_ids[] = { "topo.pcie-width-degraded", "topo.pcie-speed-degraded", NULL };
	static const char *const capped_ids[] = { "topo.nic-pcie-capped", NULL };
	int stop = x->parent >= 0 ? b->p->box[x->parent].pci : -1;
	struct gf_narrowest nw = GF_NARROWEST_INIT;
	char name[24];
	int f;

	gf_pcie_narrowest(t, i, stop, &nw);
	if (nw.unknown_pci < 0 && nw.pci < 0) {
		/* Only ports on the way, and a port's link is the one below it:
		 * a root port, drawn under its host bridge. */
		label(x->link, "port of the host bridge");
	} else if (nw.unknown_pci >= 0 || nw.pci < 0) {
		x->state = GF_PIC_LINK_UNKNOWN;
		label(x->link, "PCIe rate unknown");
	} else {
		x->gb_per_s = nw.gb_per_s;
		if (gf_pcie_gen(nw.gts))
			label(x->link, "PCIe Gen%d x%d, %.1f GB/s", gf_pcie_gen(nw.gts), nw.width, nw.gb_per_s);
		else
			label(x->link, "PCIe %.1f GT/s x%d, %.1f GB/s", nw.gts, nw.width, nw.gb_per_s);
	}
	for (int y = i; y >= 0 && y != stop; y = t->pci[y].parent) {
		gf_pci_dev_name(t, y, name, sizeof(name));
		if ((f = find_finding(t, name, degraded_ids)) >= 0) {
			x->state = GF_PIC_LINK_DEGRADED;
			label(x->note, "below its capability (finding %d)", gf_pic_pin_number(f));
			return;
		}
	}
	if (x->kind == GF_PIC_NIC && (f = find_finding(t, x->name, capped_ids)) >= 0) {
		x->state = GF_PIC_LINK_CAPPED;
		label(x->note, "faster than its PCIe (finding %d)", gf_pic_pin_number(f));
	}
}

static enum gf_pic_kind box_kind(enum gf_pci_kind k)
{
	switch (k) {
	case GF_PCI_GPU: return GF_PIC_GPU;
	case GF_PCI_NIC: return GF_PIC_NIC;
	case GF_PCI_NVME: return GF_PIC_NVME;
	case GF_PCI_STORAGE: return GF_PIC_STORAGE;
	case GF_PCI_NVSWITCH: return GF_PIC_NVSWITCH;
	default: return GF_PIC_FANOUT;
	}
}

/* Device i and what is below it, depth first in PCI order.  A bridge with
 * one relevant device below it gets no box: its link joins the link into
 * the next box down. */
static int add_subtree(struct builder *b, int i, int parent, int depth)
{
	const struct gf_topo *t = b->p->t;
	bool drawn = t->pci[i].kind != GF_PCI_BRIDGE || b->nchildren[i] >= 2;
	int here = parent;

	if (drawn) {
		struct gf_pic_box *x = new_box(b, box_kind(t->pci[i].kind), i, t->pci[i].host_bridge, parent,
					       depth);

		if (!x)
			return -ENOMEM;
		describe_device(b, x, i);
		describe_link(b, x, i);
		here = b->p->nbox - 1;
		depth++;
	}
	for (int c = 0; c < t->npci; c++)
		if (t->pci[c].parent == i && b->relevant[c]) {
			int ret = add_subtree(b, c, here, depth);

			if (ret)
				return ret;
		}
	return 0;
}

/* The node a host bridge's column stands under: the bridge's own, else
 * that of the first device under it the model places. */
static int column_node(const struct gf_topo *t, int hb, const bool *relevant)
{
	if (t->host_bridges[hb].numa_node >= 0)
		return t->host_bridges[hb].numa_node;
	for (int i = 0; i < t->npci; i++)
		if (t->pci[i].host_bridge == hb && relevant[i] && t->pci[i].local_node >= 0)
			return t->pci[i].local_node;
	return -1;
}

static int add_column(struct builder *b, int hb, int node)
{
	struct gf_picture *p = b->p;
	const struct gf_topo *t = p->t;
	struct gf_pic_column *c = gf_push(&p->col, &p->ncol, sizeof(*p->col));
	struct gf_pic_box *x;
	int first = p->nbox, ret;

	if (!c || !(x = new_box(b, GF_PIC_HOST_BRIDGE, -1, hb, -1, 0)))
		return -ENOMEM;
	snprintf(x->name, sizeof(x->name), "%s", t->host_bridges[hb].name);
	label(x->title, "Host bridge %s", t->host_bridges[hb].name);
	x->state = GF_PIC_LINK_OK;
	for (int i = 0; i < t->npci; i++)
		if (t->pci[i].host_bridge == hb && t->pci[i].parent < 0 && b->relevant[i] &&
		    (ret = add_subtree(b, i, first, 1)))
			return ret;
	c = &p->col[p->ncol - 1];	/* gf_push may have moved it */
	c->node = node;
	c->first = first;
	c->n = p->nbox - first;
	for (int k = first; k < p->nbox; k++)
		c->ngpus += p->box[k].kind == GF_PIC_GPU;
	return 0;
}

/* Columns grouped by node: every node of the machine in id order (a node
 * without devices still has its CPUs and memory to show), then the
 * devices whose node is unknown. */
static int add_nodes(struct builder *b)
{
	struct gf_picture *p = b->p;
	const struct gf_topo *t = p->t;
	int nn = t->numa.nnodes, ret;

	for (int k = 0; k <= nn; k++) {
		int id = k < nn ? t->numa.node[k].id : -1, first = p->ncol;
		struct gf_pic_node *n;

		for (int hb = 0; hb < t->nhost_bridges; hb++) {
			bool any = false;

			for (int i = 0; i < t->npci && !any; i++)
				any = t->pci[i].host_bridge == hb && b->relevant[i];
			if (any && column_node(t, hb, b->relevant) == id && (ret = add_column(b, hb, id)))
				return ret;
		}
		if (id < 0 && p->ncol == first)
			continue;	/* no unknown group without devices */
		if (!(n = gf_push(&p->node, &p->nnode, sizeof(*p->node))))
			return -ENOMEM;
		n->id = id;
		n->package = id >= 0 ? gf_node_package(t, id) : -1;
		n->first_col = first;
		n->ncols = p->ncol - first;
	}
	/* A model without NUMA nodes (a kernel without NUMA) still draws its
	 * devices: under one group. */
	if (!nn && !p->nnode && p->ncol) {
		struct gf_pic_node *n = gf_push(&p->node, &p->nnode, sizeof(*p->node));

		if (!n)
			return -ENOMEM;
		n->id = -1;
		n->package = -1;
		n->ncols = p->ncol;
	}
	return 0;
}

static int add_fabric(struct gf_picture *p)
{
	const struct gf_topo *t = p->t;
	const struct gf_matrix *m = &t->matrix;

	if (t->nvswitch) {
		p->fabric = true;
		if (t->nvswitches > 0)
			label(p->fabric_title, "NVLink fabric: %d NVSwitch chip%s", t->nvswitches,
			      t->nvswitches == 1 ? "" : "s");
		else
			label(p->fabric_title, "NVLink fabric: NVSwitch (chips not visible here)");
		return 0;
	}
	for (int i = 0; i < m->n; i++)
		for (int j = i + 1; j < m->n; j++) {
			const struct gf_link *l = &m->link[i * m->n + j];
			struct gf_pic_pair *pr;

			if (l->type != GF_LINK_NV || m->dev[i].kind != GF_DEV_GPU || m->dev[j].kind != GF_DEV_GPU)
				continue;
			if (!(pr = gf_push(&p->pair, &p->npair, sizeof(*p->pair))))
				return -ENOMEM;
			pr->a = m->dev[i].ref;
			pr->b = m->dev[j].ref;
			pr->nvlinks = l->nvlinks;
		}
	if (p->npair) {
		p->fabric = true;
		label(p->fabric_title, "NVLink between GPUs (no NVSwitch)");
	}
	return 0;
}

static int add_pins(struct builder *b)
{
	struct gf_picture *p = b->p;
	const struct gf_topo *t = p->t;

	if (t->nfindings && !(p->pin = calloc((size_t)t->nfindings, sizeof(*p->pin))))
		return -ENOMEM;
	p->npin = t->nfindings;
	for (int f = 0; f < t->nfindings; f++) {
		const char *s = t->findings[f].subject;

		p->pin[f].finding = f;
		p->pin[f].box = -1;
		for (int k = 0; k < p->nbox && p->pin[f].box < 0; k++) {
			const struct gf_pic_box *x = &p->box[k];

			if (!strcmp(x->name, s) || (x->pci >= 0 && !strcmp(t->pci[x->pci].bdf, s)))
				p->pin[f].box = k;
		}
	}
	return 0;
}

/* The colour of a link by its rate; a finding overrides it. */
const char *gf_pic_rate_colour(double gb_per_s)
{
	if (gb_per_s <= 0)
		return "#8c959f";	/* unknown */
	if (gb_per_s >= 200)
		return "#6639ba";	/* NVLink class */
	if (gb_per_s >= 50)
		return "#116329";	/* PCIe Gen5 x16, 400G NICs */
	if (gb_per_s >= 25)
		return "#2da44e";	/* Gen4 x16, Gen5 x8 */
	if (gb_per_s >= 10)
		return "#0969da";	/* Gen3 x16, Gen4 x8 */
	return "#bc4c00";		/* narrower: x4 drives, old slots */
}

const char *gf_pic_link_colour(const struct gf_pic_box *x)
{
	if (x->state == GF_PIC_LINK_DEGRADED || x->state == GF_PIC_LINK_CAPPED)
		return GF_PIC_RED;
	return gf_pic_rate_colour(x->state == GF_PIC_LINK_UNKNOWN ? 0 : x->gb_per_s);
}

/* Wider lines for faster links: 1.5 px at 1 GB/s, 6 px at 450. */
double gf_pic_rate_width(double gb_per_s)
{
	double w = gb_per_s > 0 ? 1.5 + log2(1 + gb_per_s / 8) * 0.8 : 1.5;

	return w > 6 ? 6 : w;
}

const char *gf_pic_severity_colour(enum gf_severity s)
{
	return s == GF_SEV_ERROR ? GF_PIC_RED : s == GF_SEV_WARN ? "#bf8700" : "#0969da";
}

int gf_picture_build(const struct gf_topo *t, struct gf_picture *p)
{
	size_t n = (size_t)(t->npci > 0 ? t->npci : 1);
	struct builder b = { .p = p };
	int ret = -ENOMEM;

	memset(p, 0, sizeof(*p));
	p->t = t;
	b.relevant = calloc(n, sizeof(*b.relevant));
	b.nchildren = calloc(n, sizeof(*b.nchildren));
	if (!b.relevant || !b.nchildren)
		goto out;
	for (int i = 0; i < t->npci; i++) {
		if (shown_kind(t->pci[i].kind))
			for (int x = i; x >= 0 && !b.relevant[x]; x = t->pci[x].parent)
				b.relevant[x] = true;
	}
	for (int i = 0; i < t->npci; i++)
		if (b.relevant[i] && t->pci[i].parent >= 0)
			b.nchildren[t->pci[i].parent]++;
	if ((ret = add_nodes(&b)) || (ret = add_fabric(p)) || (ret = add_pins(&b)))
		goto out;
	ret = 0;
out:
	free(b.relevant);
	free(b.nchildren);
	return ret ? gf_error(ret, "out of memory") : 0;
}

void gf_picture_free(struct gf_picture *p)
{
	free(p->box);
	free(p->col);
	free(p->node);
	free(p->pin);
	free(p->pair);
	memset(p, 0, sizeof(*p));
}

/* Build, draw with `write`, free: what both public writers do. */
static int draw(const struct gf_topo *t, FILE *f, const char *func,
		int (*write)(const struct gf_picture *, FILE *))
{
	struct gf_picture p;
	int ret;

	if (!t || !f)
		return gf_arg_error(func, "%s is NULL", !t ? "t" : "f");
	if (!(ret = gf_picture_build(t, &p)))
		ret = write(&p, f);
	gf_picture_free(&p);
	return ret;
}

GF_API int gf_topo_write_svg(const struct gf_topo *t, FILE *f)
{
	return draw(t, f, __func__, gf_picture_write_svg);
}

GF_API int gf_topo_write_dot(const struct gf_topo *t, FILE *f)
{
	return draw(t, f, __func__, gf_picture_write_dot);
}
