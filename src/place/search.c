/* The set search: depth first over the slots in ascending order, each
 * part of the score added as a GPU joins.  Every part only grows as a set
 * grows (counts and sums of non-negative numbers, a maximum, a number of
 * distinct nodes), so a partial set already worse than the best complete
 * one, compared part by part, cannot end better: that branch is cut.
 * Ascending order and "replace only when strictly better" make the lowest
 * indices win the ties that are left. */
#include <string.h>

#include "place/place_internal.h"

int plan_score_cmp(const struct gf_plan_score *a, const struct gf_plan_score *b)
{
	for (int i = 0; i < GF_PLAN_NPARTS; i++)
		if (a->part[i] != b->part[i])
			return a->part[i] < b->part[i] ? -1 : 1;
	return 0;
}

/* The look-ahead as one vector compared the same way: the next 4-GPU
 * set's score, the next 2-GPU set's, the broken PIX pairs. */
struct la {
	struct gf_plan_next next[2];
	int broken;
};

static int la_cmp(const struct la *a, const struct la *b)
{
	for (int i = 0; i < 2; i++) {
		int c = plan_score_cmp(&a->next[i].score, &b->next[i].score);

		if (c)
			return c;
	}
	return (a->broken > b->broken) - (a->broken < b->broken);
}

struct search {
	const struct plan_model *m;
	uint64_t mask;
	int k, depth;
	int cur[GF_PLAN_MAX_FREE];
	int node_count[GF_PLAN_MAX_FREE];
	int nic_count[GF_PLAN_MAX_FREE];
	struct gf_plan_score s;		/* of cur[0..depth-1] */
	bool have_best;
	int best[GF_PLAN_MAX_FREE];
	struct gf_plan_score best_s;
	/* look-ahead (main search only) */
	struct gf_plan *p;
	bool best_la_known;
	struct la best_la;
	bool la_decided;
};

static uint64_t slots_mask(const int *set, int n)
{
	uint64_t r = 0;

	for (int i = 0; i < n; i++)
		r |= 1ull << set[i];
	return r;
}

/* Adds slot i to the set: the parts it brings with the GPUs already in. */
static void join(struct search *s, int i)
{
	const struct plan_model *m = s->m;
	int *part = s->s.part;

	for (int d = 0; d < s->depth; d++) {
		size_t ij = (size_t)i * (size_t)m->nf + (size_t)s->cur[d];

		part[GF_PLAN_FABRIC_GAPS] += m->gap[ij];
		part[GF_PLAN_FABRIC_MISSING] += m->missing[ij];
		if (m->pcie[ij] > part[GF_PLAN_PCIE_WORST])
			part[GF_PLAN_PCIE_WORST] = m->pcie[ij];
		part[GF_PLAN_PCIE_SUM] += m->pcie[ij];
	}
	if (!s->node_count[m->node[i]]++)
		part[GF_PLAN_NUMA_NODES]++;
	if (m->nic_id[i] >= 0) {
		int c = s->nic_count[m->nic_id[i]]++;

		/* The first GPU to share a NIC makes two sharing, later ones one. */
		part[GF_PLAN_RAIL_SHARED] += c == 1 ? 2 : c > 1 ? 1 : 0;
		part[GF_PLAN_RAIL_DISTANCE] += m->nic_class[i];
	}
	s->cur[s->depth++] = i;
}

static void evaluate(struct search *s);

static void dfs(struct search *s, int from)
{
	if (s->depth == s->k) {
		evaluate(s);
		return;
	}
	for (int i = from; i <= s->m->nf - (s->k - s->depth); i++) {
		struct gf_plan_score undo = s->s;

		if (!(s->mask & (1ull << i)))
			continue;
		join(s, i);
		if (!s->have_best || plan_score_cmp(&s->s, &s->best_s) <= 0)
			dfs(s, i + 1);
		s->depth--;
		s->node_count[s->m->node[i]]--;
		if (s->m->nic_id[i] >= 0)
			s->nic_count[s->m->nic_id[i]]--;
		s->s = undo;
	}
}

static void lookahead_of(const struct search *s, const int *set, struct la *out)
{
	plan_lookahead(s->m, s->mask, slots_mask(set, s->k), out->next, &out->broken);
}

static void take(struct search *s)
{
	memcpy(s->best, s->cur, sizeof(int) * (size_t)s->k);
	s->best_s = s->s;
	s->have_best = true;
}

static void evaluate(struct search *s)
{
	int c = s->have_best ? plan_score_cmp(&s->s, &s->best_s) : -1;
	struct la la;

	if (s->p)
		s->p->sets_scored++;
	if (c < 0) {
		take(s);
		s->best_la_known = false;
		if (s->p)
			s->p->tied = 0;
		return;
	}
	if (c > 0 || !s->p)
		return;
	/* Equal on every part: the look-ahead decides, computed only now
	 * (most searches never need it). */
	s->p->tied++;
	if (!s->best_la_known) {
		lookahead_of(s, s->best, &s->best_la);
		s->best_la_known = true;
	}
	lookahead_of(s, s->cur, &la);
	c = la_cmp(&la, &s->best_la);
	if (c)
		s->la_decided = true;
	if (c < 0) {
		take(s);
		s->best_la = la;
	}
}

bool plan_search(const struct plan_model *m, uint64_t mask, int k, int *set, struct gf_plan_score *score,
		 struct gf_plan *p, bool *lookahead_decided)
{
	static const struct search zero;
	struct search s = zero;

	s.m = m;
	s.mask = mask;
	s.k = k;
	s.p = p;
	if (k <= 0 || __builtin_popcountll(mask) < k)
		return false;
	dfs(&s, 0);
	memcpy(set, s.best, sizeof(int) * (size_t)k);
	*score = s.best_s;
	if (lookahead_decided)
		*lookahead_decided = s.la_decided;
	return s.have_best;
}

void plan_lookahead(const struct plan_model *m, uint64_t free_mask, uint64_t chosen, struct gf_plan_next next[2],
		    int *broken)
{
	static const int sizes[2] = { 4, 2 };
	uint64_t rest = free_mask & ~chosen;

	for (int i = 0; i < 2; i++) {
		int set[4];

		memset(&next[i], 0, sizeof(next[i]));
		next[i].size = sizes[i];
		/* A remainder too small scores every part at its worst, the
		 * same for every candidate (they leave as many GPUs). */
		if (!plan_search(m, rest, sizes[i], set, &next[i].score, NULL, NULL))
			continue;
		next[i].n = sizes[i];
		for (int j = 0; j < sizes[i]; j++)
			next[i].gpu[j] = m->gpu[set[j]];
	}
	*broken = 0;
	for (int a = 0; a < m->nf; a++)
		for (int b = 0; b < m->nf; b++)
			if ((chosen >> a & 1) && (rest >> b & 1) && m->pix[(size_t)a * (size_t)m->nf + (size_t)b])
				(*broken)++;
}
