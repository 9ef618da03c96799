/* Latency histogram: log-linear buckets (64 per power of two, under 1.6%
 * error), fixed memory whatever the number of samples, mergeable across
 * threads. */
#ifndef GF_BENCH_HISTOGRAM_H
#define GF_BENCH_HISTOGRAM_H

#include <stdint.h>

#define GF_HIST_SUB 64
#define GF_HIST_BUCKETS ((64 - 6 + 1) * GF_HIST_SUB)

struct gf_hist {
	uint64_t count, sum_ns, max_ns;
	uint64_t b[GF_HIST_BUCKETS];
};

void gf_hist_add(struct gf_hist *h, uint64_t ns);
void gf_hist_merge(struct gf_hist *dst, const struct gf_hist *src);
/* The value at quantile q (0..1) in ns, the middle of its bucket; 0 when empty. */
double gf_hist_quantile(const struct gf_hist *h, double q);

#endif
