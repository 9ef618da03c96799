/* Why the set was chosen, one line per decision, from the same numbers the
 * search compared (so the text cannot disagree with the choice). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "place/place_internal.h"

void plan_index_list(const struct gf_topo *t, const int *gpu, int n, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? "," : "", t->gpus[gpu[i]].index);
}

static int add(struct gf_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add(struct gf_plan *p, const char *fmt, ...)
{
	char **r = realloc(p->reason, sizeof(char *) * (size_t)(p->nreason + 1));
	va_list ap;
	int n;

	if (!r)
		return gf_error(-ENOMEM, "out of memory");
	p->reason = r;
	va_start(ap, fmt);
	n = vasprintf(&r[p->nreason], fmt, ap);
	va_end(ap);
	if (n < 0)
		return gf_error(-ENOMEM, "out of memory");
	p->nreason++;
	return 0;
}

static const char *class_name(int rank)
{
	return rank >= 1 && rank <= 5 ? gf_link_type_name((enum gf_link_type)(GF_LINK_PIX + rank - 1)) : "unknown";
}

/* "node 0", "nodes 0,1", "an unknown node". */
static void node_text(const struct gf_topo *t, const int *gpu, int n, char *buf, size_t size)
{
	struct gf_cpuset nodes;
	bool unknown = false;
	char list[256];

	gf_cpuset_zero(&nodes);
	for (int i = 0; i < n; i++) {
		if (t->gpus[gpu[i]].numa_node < 0)
			unknown = true;
		else
			gf_cpuset_set(&nodes, (unsigned)t->gpus[gpu[i]].numa_node);
	}
	gf_cpuset_format_list(&nodes, list, sizeof(list));
	if (gf_cpuset_empty(&nodes))
		snprintf(buf, size, "an unknown NUMA node");
	else
		snprintf(buf, size, "node%s %s%s", gf_cpuset_count(&nodes) > 1 ? "s" : "", list,
			 unknown ? " and an unknown one" : "");
}

/* The deepest PCI device above every GPU of the set (a switch port), or -1. */
static int common_bridge(const struct gf_topo *t, const int *gpu, int n)
{
	for (int a = t->pci[t->gpus[gpu[0]].pci].parent; a >= 0; a = t->pci[a].parent) {
		bool all = true;

		for (int i = 1; i < n && all; i++) {
			int b = t->pci[t->gpus[gpu[i]].pci].parent;

			while (b >= 0 && b != a)
				b = t->pci[b].parent;
			all = b == a;
		}
		if (all)
			return a;
	}
	return -1;
}

/* "one NVSwitch fabric (every pair NV18)", "PIX pair under switch
 * 0000:16:00.0", "worst PCIe pair NODE": what joins the GPUs. */
static void link_text(const struct gf_topo *t, const int *gpu, int n, const struct gf_plan_score *s, char *buf,
		      size_t size)
{
	int pairs = n * (n - 1) / 2, nv = pairs - s->part[GF_PLAN_FABRIC_GAPS], minnv = 0;
	const struct gf_link *l;
	int bridge;

	if (n == 1) {
		snprintf(buf, size, "one GPU");
		return;
	}
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if ((l = plan_gpu_link(t, gpu[i], gpu[j])) && l->type == GF_LINK_NV &&
			    (!minnv || l->nvlinks < minnv))
				minnv = l->nvlinks;
	if (nv == pairs && t->nvswitch) {
		snprintf(buf, size, "one NVSwitch fabric (every pair NV%d)", minnv);
		return;
	}
	if (nv == pairs) {
		snprintf(buf, size, "NVLink between every pair (at least NV%d)", minnv);
		return;
	}
	bridge = common_bridge(t, gpu, n);
	if (n == 2 && s->part[GF_PLAN_PCIE_WORST] <= 2 && bridge >= 0)
		snprintf(buf, size, "%s pair under switch %s", class_name(s->part[GF_PLAN_PCIE_WORST]),
			 t->pci[bridge].bdf);
	else if (bridge >= 0)
		snprintf(buf, size, "one PCIe tree below %s, worst pair %s", t->pci[bridge].bdf,
			 class_name(s->part[GF_PLAN_PCIE_WORST]));
	else
		snprintf(buf, size, "worst PCIe pair %s", class_name(s->part[GF_PLAN_PCIE_WORST]));
	if (nv)
		snprintf(buf + strlen(buf), size - strlen(buf), ", NVLink on %d of %d pairs", nv, pairs);
}

static int explain_set(struct gf_plan *p, const struct gf_topo *t)
{
	char list[256], links[160], nodes[96];

	plan_index_list(t, p->gpu, p->n, list, sizeof(list));
	link_text(t, p->gpu, p->n, &p->score, links, sizeof(links));
	node_text(t, p->gpu, p->n, nodes, sizeof(nodes));
	return add(p, "GPU%s %s: %s on %s", p->n > 1 ? "s" : "", list, links, nodes);
}

static int explain_rails(struct gf_plan *p, const struct gf_topo *t)
{
	char buf[1024];
	size_t len = 0;
	int shared = p->score.part[GF_PLAN_RAIL_SHARED];

	for (int i = 0; i < p->n && len < sizeof(buf); i++) {
		int a = plan_matrix_gpu(t, p->gpu[i]), b = p->nic[i] >= 0 ? plan_matrix_nic(t, p->nic[i]) : -1;

		if (p->nic[i] < 0)
			continue;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%sGPU%d->%s (%s)", len ? ", " : "",
					t->gpus[p->gpu[i]].index, t->nics[p->nic[i]].name,
					a >= 0 && b >= 0 ? gf_link_type_name(gf_matrix_at(&t->matrix, a, b)->type) : "?");
	}
	if (!len)
		return add(p, "NIC rails: no RDMA NIC is up near these GPUs");
	if (!shared)
		return add(p, "NIC rails: %s: each GPU its own", buf);
	return add(p, "NIC rails: %s: %d GPUs share a NIC", buf, shared);
}

static void next_text(const struct gf_topo *t, const struct gf_plan_next *x, char *buf, size_t size)
{
	char list[64], links[160], nodes[96];

	plan_index_list(t, x->gpu, x->n, list, sizeof(list));
	link_text(t, x->gpu, x->n, &x->score, links, sizeof(links));
	node_text(t, x->gpu, x->n, nodes, sizeof(nodes));
	snprintf(buf, size, "%s (%s on %s) for the next %d-GPU job", list, links, nodes, x->size);
}

static int explain_lookahead(struct gf_plan *p, const struct gf_topo *t)
{
	char rest[256], a[400] = "", b[400] = "";

	if (!p->nrest)
		return add(p, "leaves no free GPU");
	plan_index_list(t, p->rest, p->nrest, rest, sizeof(rest));
	if (p->next[1].n)
		next_text(t, &p->next[1], a, sizeof(a));
	if (p->next[0].n)
		next_text(t, &p->next[0], b, sizeof(b));
	if (!*a)
		return add(p, "leaves %s free", rest);
	return add(p, "leaves %s free: %s%s%s", rest, a, *b ? "; " : "", b);
}

/* A chosen GPU whose PCIe-switch mate is taken already: taking it mends
 * the broken pair instead of breaking a whole one (k8s-device-plugin #1193). */
static int explain_mates(const struct plan_model *m, struct gf_plan *p, const struct gf_topo *t)
{
	int ret = 0;

	for (int i = 0; i < p->n && !ret; i++)
		for (int g = 0; g < t->ngpus && !ret; g++) {
			const struct gf_link *l = g != p->gpu[i] ? plan_gpu_link(t, p->gpu[i], g) : NULL;
			bool is_free = false;

			for (int s = 0; s < m->nf; s++)
				is_free = is_free || m->gpu[s] == g;
			if (l && plan_pcie_class(l) == GF_LINK_PIX && !is_free)
				ret = add(p, "GPU%d's PIX mate GPU%d is in use: taking GPU%d keeps whole pairs free",
					  t->gpus[p->gpu[i]].index, t->gpus[g].index, t->gpus[p->gpu[i]].index);
		}
	if (!ret && p->broken_pairs)
		ret = add(p, "splits %d PIX pair%s with the GPUs left free (no better set keeps them whole)",
			  p->broken_pairs, p->broken_pairs > 1 ? "s" : "");
	return ret;
}

static int explain_decision(struct gf_plan *p, bool lookahead_decided)
{
	if (!p->tied)
		return add(p, "%llu complete set%s scored (the others cut early): no other scored the same on "
			   "fabric, PCIe, NUMA and rails", p->sets_scored, p->sets_scored == 1 ? "" : "s");
	return add(p, "%llu complete sets scored (the others cut early): %d other%s the same on fabric, PCIe, NUMA "
		   "and rails; %s", p->sets_scored, p->tied, p->tied > 1 ? "s score" : " scores",
		   lookahead_decided ? "the look-ahead chose among them"
				     : "the look-ahead ties too: the lowest indices win");
}

int plan_explain(const struct plan_model *m, struct gf_plan *p, bool lookahead_decided)
{
	int ret;

	if ((ret = explain_set(p, m->t)) || (ret = explain_rails(p, m->t)) || (ret = explain_mates(m, p, m->t)) ||
	    (ret = explain_lookahead(p, m->t)))
		return ret;
	return explain_decision(p, lookahead_decided);
}
