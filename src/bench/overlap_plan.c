/* bench overlap's arithmetic (overlap_bench.h): the buckets of an
 * iteration, each bucket's share of the compute phase, and the overlap
 * fraction.  No GPU here, so the unit tests hold it exactly. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <gpufeed/parse.h>
#include "bench/overlap_bench.h"
#include "core/error.h"

static const char *const mode_names[GF_OVERLAP_MODES] = { "compute", "comm", "serial", "overlap" };

const char *gf_overlap_mode_name(enum gf_overlap_mode m)
{
	return (unsigned)m < GF_OVERLAP_MODES ? mode_names[m] : "?";
}

int gf_overlap_parse_buckets(const char *text, uint64_t grad_bytes, uint64_t *sizes, unsigned max, unsigned *n)
{
	char buf[256], *save = NULL, *tok;

	*n = 0;
	if (strlen(text) >= sizeof(buf))
		return gf_error(-EINVAL, "--buckets: '%s' is too long", text);
	strcpy(buf, text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (*n == max)
			return gf_error(-ERANGE, "--buckets: at most %u sizes", max);
		if (!strcmp(tok, "all")) {
			sizes[(*n)++] = GF_OVERLAP_ALL;
			continue;
		}
		if (gf_parse_size(tok, &v))
			return gf_error(-EINVAL, "--buckets: '%s': %s", tok, gf_last_error());
		if (v < GF_OVERLAP_BUCKET_MIN || v > grad_bytes || v % GF_OVERLAP_ELEM)
			return gf_error(-ERANGE, "--buckets: '%s' is not a multiple of %u bytes from 4K to the "
					"gradients' %llu bytes (--grad-bytes)", tok, GF_OVERLAP_ELEM,
					(unsigned long long)grad_bytes);
		sizes[(*n)++] = v;
	}
	if (!*n)
		return gf_error(-EINVAL, "--buckets: '%s' names no size", text);
	return 0;
}

int gf_overlap_plan(uint64_t grad_bytes, uint64_t bucket_bytes, struct gf_overlap_plan *p)
{
	uint64_t nb;

	if (!grad_bytes || grad_bytes % GF_OVERLAP_ELEM)
		return gf_error(-EINVAL, "--grad-bytes: %llu is not a positive multiple of %u bytes",
				(unsigned long long)grad_bytes, GF_OVERLAP_ELEM);
	if (bucket_bytes == GF_OVERLAP_ALL || bucket_bytes > grad_bytes)
		bucket_bytes = grad_bytes;
	if (bucket_bytes % GF_OVERLAP_ELEM)
		return gf_error(-EINVAL, "--buckets: %llu is not a multiple of %u bytes",
				(unsigned long long)bucket_bytes, GF_OVERLAP_ELEM);
	nb = (grad_bytes + bucket_bytes - 1) / bucket_bytes;
	if (nb > GF_OVERLAP_NBUCKETS_MAX)
		return gf_error(-ERANGE, "--buckets: %llu-byte buckets make %llu buckets of %llu bytes, more than %u",
				(unsigned long long)bucket_bytes, (unsigned long long)nb,
				(unsigned long long)grad_bytes, GF_OVERLAP_NBUCKETS_MAX);
	p->grad_bytes = grad_bytes;
	p->bucket_bytes = bucket_bytes;
	p->nbuckets = (unsigned)nb;
	return 0;
}

uint64_t gf_overlap_bucket_bytes(const struct gf_overlap_plan *p, unsigned i)
{
	uint64_t off = (uint64_t)i * p->bucket_bytes;

	if (i >= p->nbuckets)
		return 0;
	return p->grad_bytes - off < p->bucket_bytes ? p->grad_bytes - off : p->bucket_bytes;
}

unsigned long long gf_overlap_bucket_cycles(const struct gf_overlap_plan *p, unsigned i, double cycles_per_ms,
					    double compute_ms)
{
	double c = cycles_per_ms * compute_ms * (double)gf_overlap_bucket_bytes(p, i) / (double)p->grad_bytes;

	return c >= 1 ? (unsigned long long)llround(c) : 1;
}

double gf_overlap_fraction(double t_serial, double t_overlap, double t_compute, double t_comm)
{
	double shorter = t_compute < t_comm ? t_compute : t_comm;

	if (!(t_serial > 0 && t_overlap > 0 && shorter > 0))
		return NAN;
	return (t_serial - t_overlap) / shorter;
}
