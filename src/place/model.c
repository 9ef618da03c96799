/* The free GPUs as slots: what the score needs of each GPU and each pair,
 * read from the model once so the search only adds small numbers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "place/place_internal.h"

int plan_class_rank(enum gf_link_type l)
{
	switch (l) {
	case GF_LINK_X:
		return 0;
	case GF_LINK_PIX:
		return 1;
	case GF_LINK_PXB:
		return 2;
	case GF_LINK_PHB:
		return 3;
	case GF_LINK_NODE:
		return 4;
	case GF_LINK_SYS:
		return 5;
	default:
		return 6;
	}
}

enum gf_link_type plan_pcie_class(const struct gf_link *l)
{
	return l->type == GF_LINK_NV ? l->pcie : l->type;
}

static int matrix_find(const struct gf_topo *t, enum gf_dev_kind kind, int ref)
{
	for (int i = 0; i < t->matrix.n; i++)
		if (t->matrix.dev[i].kind == kind && t->matrix.dev[i].ref == ref)
			return i;
	return -1;
}

int plan_matrix_gpu(const struct gf_topo *t, int g)
{
	return matrix_find(t, GF_DEV_GPU, g);
}

int plan_matrix_nic(const struct gf_topo *t, int n)
{
	return matrix_find(t, GF_DEV_NIC, n);
}

const struct gf_link *plan_gpu_link(const struct gf_topo *t, int a, int b)
{
	int i = plan_matrix_gpu(t, a), j = plan_matrix_gpu(t, b);

	return i < 0 || j < 0 ? NULL : gf_matrix_at(&t->matrix, i, j);
}

/* The most NVLinks any GPU pair of the machine has: "missing" links are
 * counted against it, so a full NV18 pair costs 0. */
static int best_nvlinks(const struct gf_topo *t)
{
	int best = 0;

	for (int a = 0; a < t->ngpus; a++)
		for (int b = a + 1; b < t->ngpus; b++) {
			const struct gf_link *l = plan_gpu_link(t, a, b);

			if (l && l->type == GF_LINK_NV && l->nvlinks > best)
				best = l->nvlinks;
		}
	return best;
}

static void fill_pair(struct plan_model *m, int i, int j, int best_nv)
{
	const struct gf_link *l = plan_gpu_link(m->t, m->gpu[i], m->gpu[j]);
	size_t ij = (size_t)i * (size_t)m->nf + (size_t)j;
	bool nv = l && l->type == GF_LINK_NV;
	enum gf_link_type pc = l ? plan_pcie_class(l) : GF_LINK_UNKNOWN;

	m->gap[ij] = !nv;
	/* An NVSwitch box is one fabric: every NV pair runs at full bandwidth
	 * whatever count NVML reports for it (the device plugin scores 0). */
	m->missing[ij] = nv && !m->t->nvswitch && l->nvlinks < best_nv ? (unsigned char)(best_nv - l->nvlinks) : 0;
	m->pcie[ij] = nv ? 0 : (unsigned char)plan_class_rank(pc);
	m->pix[ij] = pc == GF_LINK_PIX;
}

static void fill_slot(struct plan_model *m, int i, int *node_ids, int *nnode_ids)
{
	const struct gf_gpu *g = &m->t->gpus[m->gpu[i]];
	int nic = gf_topo_nearest_nic(m->t, m->gpu[i]), k;

	/* Unknown (-1) is a node of its own: a set mixing it with node 0
	 * spans two, as far as anyone can tell. */
	for (k = 0; k < *nnode_ids && node_ids[k] != g->numa_node; k++)
		;
	if (k == *nnode_ids)
		node_ids[(*nnode_ids)++] = g->numa_node;
	m->node[i] = k;
	m->nic[i] = nic >= 0 ? nic : -1;
	m->nic_class[i] = 0;
	if (nic >= 0) {
		int a = plan_matrix_gpu(m->t, m->gpu[i]), b = plan_matrix_nic(m->t, nic);

		m->nic_class[i] = a >= 0 && b >= 0 ? plan_class_rank(gf_matrix_at(&m->t->matrix, a, b)->type) : 6;
	}
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* The free list as ascending, distinct positions. */
static int take_free(struct plan_model *m, const struct gf_topo *t, const int *free, int nfree)
{
	m->nf = 0;
	for (int i = 0; i < (free ? nfree : t->ngpus); i++) {
		int g = free ? free[i] : i;

		if (g < 0 || g >= t->ngpus)
			return gf_error(-EINVAL, "free GPU position %d is not a GPU of the model", g);
		if (m->nf == GF_PLAN_MAX_FREE)
			return gf_error(-E2BIG, "more than %d free GPUs: placement handles at most %d",
					GF_PLAN_MAX_FREE, GF_PLAN_MAX_FREE);
		m->gpu[m->nf++] = g;
	}
	qsort(m->gpu, (size_t)m->nf, sizeof(int), cmp_int);
	for (int i = 1; i < m->nf; i++)
		if (m->gpu[i] == m->gpu[i - 1])
			return gf_error(-EINVAL, "GPU%d is named twice in the free list", t->gpus[m->gpu[i]].index);
	return 0;
}

int plan_model_init(struct plan_model *m, const struct gf_topo *t, const int *free, int nfree)
{
	int node_ids[GF_PLAN_MAX_FREE], best_nv, ret;
	size_t n2;

	memset(m, 0, sizeof(*m));
	m->t = t;
	if ((ret = take_free(m, t, free, nfree)))
		return ret;
	n2 = (size_t)m->nf * (size_t)m->nf + 1;
	m->gap = calloc(n2, 1);
	m->missing = calloc(n2, 1);
	m->pcie = calloc(n2, 1);
	m->pix = calloc(n2, 1);
	if (!m->gap || !m->missing || !m->pcie || !m->pix) {
		plan_model_free(m);
		return gf_error(-ENOMEM, "out of memory");
	}
	best_nv = best_nvlinks(t);
	for (int i = 0; i < m->nf; i++) {
		fill_slot(m, i, node_ids, &m->nnodes);
		m->nic_id[i] = -1;
		for (int j = 0; j <= i && m->nic[i] >= 0 && m->nic_id[i] < 0; j++)
			if (m->nic[j] == m->nic[i])
				m->nic_id[i] = j;
		for (int j = 0; j < m->nf; j++)
			if (j != i)
				fill_pair(m, i, j, best_nv);
	}
	return 0;
}

void plan_model_free(struct plan_model *m)
{
	free(m->gap);
	free(m->missing);
	free(m->pcie);
	free(m->pix);
	m->gap = m->missing = m->pcie = m->pix = NULL;
}
