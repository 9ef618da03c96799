/* Latency histogram (see histogram.h). */
#include "bench/histogram.h"

static unsigned bucket(uint64_t v)
{
	unsigned e;

	if (v < GF_HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);	/* e >= 6 */
	return (e - 5) * GF_HIST_SUB + (unsigned)((v >> (e - 6)) - GF_HIST_SUB);
}

/* Lowest value of bucket i and its width. */
static void bounds(unsigned i, double *lo, double *width)
{
	unsigned k;

	if (i < GF_HIST_SUB) {
		*lo = i;
		*width = 1;
		return;
	}
	k = i / GF_HIST_SUB - 1;
	*lo = (double)((uint64_t)(i % GF_HIST_SUB + GF_HIST_SUB) << k);
	*width = (double)(1ull << k);
}

void gf_hist_add(struct gf_hist *h, uint64_t ns)
{
	h->b[bucket(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

void gf_hist_merge(struct gf_hist *dst, const struct gf_hist *src)
{
	for (unsigned i = 0; i < GF_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

double gf_hist_quantile(const struct gf_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (q <= 0)
		q = 0;
	if (q >= 1)
		return (double)h->max_ns;
	rank = (uint64_t)(q * (double)h->count) + 1;
	for (unsigned i = 0; i < GF_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			double lo, w;
			bounds(i, &lo, &w);
			return lo + (w - 1) / 2;
		}
	}
	return (double)h->max_ns;
}
