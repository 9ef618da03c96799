/* Summary of a set of samples, shared by every bench target: the median
 * and its spread (min, max, quartiles, IQR).  Medians, not means: one
 * disturbed sample (a page fault storm, a neighbour's burst) moves a mean
 * but not a median, and the spread says how much to trust it. */
#ifndef GF_BENCH_STATS_H
#define GF_BENCH_STATS_H

struct gf_stats {
	unsigned n;
	double median, min, max, q1, q3, iqr, mean;
};

/* Summarises x[0..n) (left unchanged); quartiles interpolate linearly
 * between order statistics (type 7, R's and numpy's default).  n == 0
 * gives all zeros.  Returns 0, or -ENOMEM. */
int gf_stats_compute(const double *x, unsigned n, struct gf_stats *out);

/* The value at quantile q (0..1) of sorted[0..n), interpolated (type 7). */
double gf_stats_quantile_sorted(const double *sorted, unsigned n, double q);

#endif
