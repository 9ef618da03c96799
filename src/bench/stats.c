/* Sample summaries (see stats.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double gf_stats_quantile_sorted(const double *sorted, unsigned n, double q)
{
	double h;
	unsigned lo;

	if (!n)
		return 0;
	if (q <= 0)
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	h = q * (n - 1);
	lo = (unsigned)h;
	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
}

int gf_stats_compute(const double *x, unsigned n, struct gf_stats *out)
{
	double *s, sum = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return 0;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (unsigned i = 0; i < n; i++)
		sum += s[i];
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = gf_stats_quantile_sorted(s, n, 0.5);
	out->q1 = gf_stats_quantile_sorted(s, n, 0.25);
	out->q3 = gf_stats_quantile_sorted(s, n, 0.75);
	out->iqr = out->q3 - out->q1;
	out->mean = sum / n;
	free(s);
	return 0;
}
