/* The link matrix over GPUs, NICs and NVMe drives, in the vocabulary of
 * `nvidia-smi topo -m`, derived from the PCIe tree and NUMA facts so that it
 * replays from a recording; NVLink (direct or through NVSwitch) on top. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "topo/topo_internal.h"

GF_API const char *gf_link_type_name(enum gf_link_type t)
{
	static const char *names[] = { "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS", "unknown" };

	return (unsigned)t <= GF_LINK_UNKNOWN ? names[t] : "?";
}

GF_API int gf_link_format(const struct gf_link *l, char *buf, size_t size)
{
	if (!l)
		return GF_NULL_ARG("l");
	if (!buf)
		size = 0;	/* only the length, as snprintf(NULL, 0, ...) */
	if (l->type == GF_LINK_NV)
		return snprintf(buf, size, "NV%d", l->nvlinks);
	return snprintf(buf, size, "%s", gf_link_type_name(l->type));
}

int gf_topo_gpu_args(const struct gf_topo *t, int gpu, const char *func)
{
	if (!t)
		return gf_arg_error(func, "t is NULL");
	if (gpu < 0 || gpu >= t->ngpus)
		return gf_arg_error(func, "gpu %d is not a position in the model's %d GPUs", gpu, t->ngpus);
	if (gf_matrix_gpu(t, gpu) < 0)
		return gf_arg_error(func, "gpu %d is not in the model's matrix", gpu);
	return 0;
}

GF_API const struct gf_link *gf_matrix_at(const struct gf_matrix *m, int i, int j)
{
	if (!m) {
		GF_NULL_ARG("m");
		return NULL;
	}
	if (i < 0 || j < 0 || i >= m->n || j >= m->n || !m->link)
		return NULL;
	return &m->link[i * m->n + j];
}

static int node_of(const struct gf_topo *t, const struct gf_matrix_dev *d)
{
	switch (d->kind) {
	case GF_DEV_GPU:  return t->gpus[d->ref].numa_node;
	case GF_DEV_NIC:  return t->nics[d->ref].numa_node;
	case GF_DEV_NVME: return t->blocks[d->ref].numa_node;
	}
	return -1;
}

/* PIX: the lowest common ancestor is at most one switch away on both sides
 * (a switch's upstream port, or one port above two functions of a device);
 * PXB: deeper; PHB: only the host bridge in common; NODE/SYS: different host
 * bridges on the same / different NUMA nodes. */
static enum gf_link_type pcie_class(const struct gf_topo *t, const struct gf_matrix_dev *a,
				    const struct gf_matrix_dev *b)
{
	const struct gf_pci_dev *pa = &t->pci[a->pci], *pb = &t->pci[b->pci];
	int lca, na, nb;

	if (a->pci == b->pci)
		return GF_LINK_PIX;	/* one device, e.g. namespaces of a controller */
	if (pa->host_bridge != pb->host_bridge) {
		na = node_of(t, a);
		nb = node_of(t, b);
		return na >= 0 && na == nb ? GF_LINK_NODE : GF_LINK_SYS;
	}
	lca = gf_pci_common_ancestor(t, a->pci, b->pci);
	if (lca < 0)
		return GF_LINK_PHB;
	if (pa->depth - t->pci[lca].depth <= 2 && pb->depth - t->pci[lca].depth <= 2)
		return GF_LINK_PIX;
	return GF_LINK_PXB;
}

/* Direct links whose far end is the peer; through NVSwitch every GPU pair
 * gets the smaller of the two GPUs' switch links. */
static int nvlinks_between(const struct gf_ctx *c, const struct gf_gpu *a, const struct gf_gpu *b)
{
	int direct = 0;

	if (!c->facts)
		return 0;
	for (int i = 0; i < c->facts->ngpus; i++) {
		const struct gf_nvml_gpu *f = &c->facts->gpus[i];

		if (strcmp(f->pci, a->bdf))
			continue;
		for (int k = 0; k < f->nlinks; k++)
			if (f->links[k].active && !strcmp(f->links[k].remote_pci, b->bdf))
				direct++;
	}
	if (direct)
		return direct;
	if (a->nvswitch_links > 0 && b->nvswitch_links > 0)
		return a->nvswitch_links < b->nvswitch_links ? a->nvswitch_links : b->nvswitch_links;
	return 0;
}

static enum gf_link_type nvml_level(const char *s)
{
	static const char *names[] = { "PIX", "PXB", "PHB", "NODE", "SYS" };
	static const enum gf_link_type types[] = { GF_LINK_PIX, GF_LINK_PXB, GF_LINK_PHB, GF_LINK_NODE,
						   GF_LINK_SYS };

	if (!strcmp(s, "INTERNAL"))
		return GF_LINK_PIX;
	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i]))
			return types[i];
	return GF_LINK_UNKNOWN;
}

static int gpu_pos(const struct gf_topo *t, int nvml_index)
{
	for (int i = 0; i < t->ngpus; i++)
		if (t->gpus[i].index == nvml_index)
			return i;
	return -1;
}

/* Namespaces of one NVMe controller share its label: one matrix entry. */
static bool first_of_label(const struct gf_topo *t, int i)
{
	return t->blocks[i].label[0] && (i == 0 || strcmp(t->blocks[i].label, t->blocks[i - 1].label));
}

static void add_dev(struct gf_matrix *m, const char *name, enum gf_dev_kind kind, int ref, int pci)
{
	struct gf_matrix_dev *d = &m->dev[m->n++];

	snprintf(d->name, sizeof(d->name), "%s", name);
	d->kind = kind;
	d->ref = ref;
	d->pci = pci;
}

/* nvidia-smi numbers its NIC columns over RDMA devices in their order
 * (mlx5_0, mlx5_1, ..., mlx5_10: the kernel's registration order, which
 * its names count); NCCL numbers them the same way. */
static int cmp_rdma(const void *a, const void *b, void *arg)
{
	const struct gf_topo *t = arg;

	return strverscmp(t->nics[*(const int *)a].rdma, t->nics[*(const int *)b].rdma);
}

/* Labels: RDMA devices are NIC0.. (nvidia-smi's columns); a network function
 * without one is named by its first interface (eth0), else its address. */
static void label_nics(struct gf_topo *t, int *rdma_order, int *nrdma)
{
	*nrdma = 0;
	for (int i = 0; i < t->nnics; i++) {
		struct gf_nic *n = &t->nics[i];

		if (n->rdma[0]) {
			rdma_order[(*nrdma)++] = i;
			continue;
		}
		gf_strlcpy(n->label, n->netdevs[0] ? n->netdevs : t->pci[n->pci].bdf, sizeof(n->label));
		n->label[strcspn(n->label, ",")] = '\0';
	}
	qsort_r(rdma_order, (size_t)*nrdma, sizeof(*rdma_order), cmp_rdma, t);
	for (int k = 0; k < *nrdma; k++)
		snprintf(t->nics[rdma_order[k]].label, sizeof(t->nics[0].label), "NIC%d", k);
}

/* Devices in nvidia-smi's order first (GPUs, then RDMA NICs: m->nsmi of
 * them), then the rest the paths need: other NICs in PCI order, NVMe. */
int gf_build_matrix(struct gf_ctx *c)
{
	struct gf_topo *t = c->t;
	struct gf_matrix *m = &t->matrix;
	int n = t->ngpus + t->nnics, nrdma;
	int *order;
	char name[16];

	for (int i = 0; i < t->nblocks; i++)
		n += first_of_label(t, i);
	order = calloc((size_t)(t->nnics ? t->nnics : 1), sizeof(*order));
	if (!order)
		return gf_error(-ENOMEM, "out of memory");
	label_nics(t, order, &nrdma);
	if (!n) {
		free(order);
		return 0;
	}
	m->dev = calloc((size_t)n, sizeof(*m->dev));
	m->link = calloc((size_t)n * (size_t)n, sizeof(*m->link));
	m->nvml_pcie = calloc((size_t)n * (size_t)n, sizeof(*m->nvml_pcie));
	if (!m->dev || !m->link || !m->nvml_pcie) {
		free(order);
		return gf_error(-ENOMEM, "out of memory");
	}
	for (int i = 0; i < t->ngpus; i++) {
		snprintf(name, sizeof(name), "GPU%d", t->gpus[i].index);
		add_dev(m, name, GF_DEV_GPU, i, t->gpus[i].pci);
	}
	for (int k = 0; k < nrdma; k++)
		add_dev(m, t->nics[order[k]].label, GF_DEV_NIC, order[k], t->nics[order[k]].pci);
	free(order);
	m->nsmi = m->n;
	for (int i = 0; i < t->nnics; i++)
		if (!t->nics[i].rdma[0])
			add_dev(m, t->nics[i].label, GF_DEV_NIC, i, t->nics[i].pci);
	for (int i = 0; i < t->nblocks; i++)
		if (first_of_label(t, i))
			add_dev(m, t->blocks[i].label, GF_DEV_NVME, i, t->blocks[i].pci);
	for (int i = 0; i < m->n; i++) {
		for (int j = 0; j < m->n; j++) {
			struct gf_link *l = &m->link[i * m->n + j];

			m->nvml_pcie[i * m->n + j] = GF_LINK_UNKNOWN;
			if (i == j) {
				l->type = l->pcie = GF_LINK_X;
				continue;
			}
			l->pcie = pcie_class(t, &m->dev[i], &m->dev[j]);
			l->type = l->pcie;
			if (m->dev[i].kind == GF_DEV_GPU && m->dev[j].kind == GF_DEV_GPU) {
				int nv = nvlinks_between(c, &t->gpus[m->dev[i].ref], &t->gpus[m->dev[j].ref]);

				if (nv > 0) {
					l->type = GF_LINK_NV;
					l->nvlinks = nv;
				}
			}
		}
	}
	/* NVML's own answers, to cross-check the tree (findings.c). */
	for (int p = 0; c->facts && p < c->facts->npairs; p++) {
		const struct gf_nvml_pair *pr = &c->facts->pairs[p];
		int a = gpu_pos(t, pr->a), b = gpu_pos(t, pr->b);
		enum gf_link_type lv = nvml_level(pr->common_ancestor);

		if (a < 0 || b < 0)
			continue;
		m->nvml_pcie[a * m->n + b] = m->nvml_pcie[b * m->n + a] = lv;
	}
	return 0;
}

int gf_matrix_gpu(const struct gf_topo *t, int gpu)
{
	for (int i = 0; i < t->matrix.n; i++)
		if (t->matrix.dev[i].kind == GF_DEV_GPU && t->matrix.dev[i].ref == gpu)
			return i;
	return -1;
}
