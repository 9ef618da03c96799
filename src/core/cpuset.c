/* Fixed-size CPU bitmaps and the kernel's list/mask text forms. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/cpuset.h>
#include "core/error.h"

#define NWORDS (GF_CPUSET_MAX / 64)

GF_API void gf_cpuset_zero(struct gf_cpuset *s)
{
	if (s)
		memset(s, 0, sizeof(*s));
}

GF_API void gf_cpuset_set(struct gf_cpuset *s, unsigned cpu)
{
	if (s && cpu < GF_CPUSET_MAX)
		s->w[cpu / 64] |= 1ull << (cpu % 64);
}

GF_API void gf_cpuset_clear(struct gf_cpuset *s, unsigned cpu)
{
	if (s && cpu < GF_CPUSET_MAX)
		s->w[cpu / 64] &= ~(1ull << (cpu % 64));
}

GF_API bool gf_cpuset_isset(const struct gf_cpuset *s, unsigned cpu)
{
	return s && cpu < GF_CPUSET_MAX && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

GF_API unsigned gf_cpuset_count(const struct gf_cpuset *s)
{
	unsigned n = 0;

	for (int i = 0; s && i < NWORDS; i++)
		n += (unsigned)__builtin_popcountll(s->w[i]);
	return n;
}

/* A NULL set is no set, so not "empty" either: predicates answer false. */
GF_API bool gf_cpuset_empty(const struct gf_cpuset *s)
{
	if (!s)
		return false;
	for (int i = 0; i < NWORDS; i++)
		if (s->w[i])
			return false;
	return true;
}

GF_API bool gf_cpuset_equal(const struct gf_cpuset *a, const struct gf_cpuset *b)
{
	return a && b && memcmp(a, b, sizeof(*a)) == 0;
}

GF_API void gf_cpuset_and(struct gf_cpuset *dst, const struct gf_cpuset *a, const struct gf_cpuset *b)
{
	if (!dst || !a || !b)
		return;
	for (int i = 0; i < NWORDS; i++)
		dst->w[i] = a->w[i] & b->w[i];
}

GF_API void gf_cpuset_or(struct gf_cpuset *dst, const struct gf_cpuset *a, const struct gf_cpuset *b)
{
	if (!dst || !a || !b)
		return;
	for (int i = 0; i < NWORDS; i++)
		dst->w[i] = a->w[i] | b->w[i];
}

GF_API void gf_cpuset_andnot(struct gf_cpuset *dst, const struct gf_cpuset *a, const struct gf_cpuset *b)
{
	if (!dst || !a || !b)
		return;
	for (int i = 0; i < NWORDS; i++)
		dst->w[i] = a->w[i] & ~b->w[i];
}

GF_API int gf_cpuset_next(const struct gf_cpuset *s, int prev)
{
	unsigned start = prev < 0 ? 0 : (unsigned)prev + 1;

	if (!s)
		return -1;
	for (unsigned i = start / 64; i < NWORDS; i++) {
		uint64_t w = s->w[i];

		if (i == start / 64)
			w &= ~0ull << (start % 64);
		if (w)
			return (int)(i * 64 + (unsigned)__builtin_ctzll(w));
	}
	return -1;
}

GF_API int gf_cpuset_first(const struct gf_cpuset *s)
{
	return gf_cpuset_next(s, -1);
}

/* Members lo..hi (both < GF_CPUSET_MAX) a word at a time, so that a range
 * costs its words, not its CPUs: a list of many wide ranges stays linear
 * in its text. */
static void set_range(struct gf_cpuset *s, unsigned lo, unsigned hi)
{
	unsigned wlo = lo / 64, whi = hi / 64;
	uint64_t first = ~0ull << (lo % 64), last = ~0ull >> (63 - hi % 64);

	if (wlo == whi) {
		s->w[wlo] |= first & last;
		return;
	}
	s->w[wlo] |= first;
	for (unsigned i = wlo + 1; i < whi; i++)
		s->w[i] = ~0ull;
	s->w[whi] |= last;
}

static int parse_cpu(const char **p, unsigned *out, const char *text)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)**p))
		return gf_error(-EINVAL, "not a CPU list: '%s'", text);
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno || v >= GF_CPUSET_MAX)
		return gf_error(-ERANGE, "CPU list '%s': id beyond the %d supported",
				text, GF_CPUSET_MAX);
	*out = (unsigned)v;
	*p = end;
	return 0;
}

GF_API int gf_cpuset_parse_list(struct gf_cpuset *s, const char *text)
{
	const char *p = text;
	int ret;

	if (!s || !text)
		return GF_NULL_ARG(!s ? "s" : "text");
	gf_cpuset_zero(s);
	while (isspace((unsigned char)*p))
		p++;
	while (*p && !isspace((unsigned char)*p)) {
		unsigned lo, hi;

		if ((ret = parse_cpu(&p, &lo, text)))
			return ret;
		hi = lo;
		if (*p == '-') {
			p++;
			if ((ret = parse_cpu(&p, &hi, text)))
				return ret;
			if (hi < lo)
				return gf_error(-EINVAL, "not a CPU list: '%s' (range %u-%u)",
						text, lo, hi);
			/* Stride form "0-15:2" is not produced by the kernel. */
		}
		set_range(s, lo, hi);
		if (*p == ',') {
			p++;
			if (!isdigit((unsigned char)*p))
				return gf_error(-EINVAL, "not a CPU list: '%s'", text);
		} else if (*p && !isspace((unsigned char)*p)) {
			return gf_error(-EINVAL, "not a CPU list: '%s'", text);
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return gf_error(-EINVAL, "not a CPU list: '%s'", text);
	return 0;
}

GF_API int gf_cpuset_parse_mask(struct gf_cpuset *s, const char *text)
{
	const char *p = text, *end;
	unsigned bit = 0;

	if (!s || !text)
		return GF_NULL_ARG(!s ? "s" : "text");
	gf_cpuset_zero(s);
	while (isspace((unsigned char)*p))
		p++;
	end = p + strlen(p);
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (end == p)
		return gf_error(-EINVAL, "not a CPU mask: '%s'", text);
	/* Walk from the least significant (rightmost) digit. */
	for (const char *q = end; q > p; q--) {
		char c = q[-1];
		int v;

		if (c == ',')
			continue;
		if (!isxdigit((unsigned char)c))
			return gf_error(-EINVAL, "not a CPU mask: '%s'", text);
		v = isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
		for (int b = 0; b < 4; b++, bit++) {
			if (!(v >> b & 1))
				continue;
			if (bit >= GF_CPUSET_MAX)
				return gf_error(-ERANGE, "CPU mask '%s': id beyond the %d supported",
						text, GF_CPUSET_MAX);
			gf_cpuset_set(s, bit);
		}
	}
	return 0;
}

GF_API size_t gf_cpuset_format_list(const struct gf_cpuset *s, char *buf, size_t size)
{
	size_t len = 0;
	int c = gf_cpuset_first(s);

	if (!buf)
		size = 0;	/* only the length, as snprintf(NULL, 0, ...) */
	if (size)
		buf[0] = '\0';
	while (c >= 0) {
		int hi = c, n;

		while (gf_cpuset_isset(s, (unsigned)hi + 1))
			hi++;
		if (hi == c)
			n = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
				     "%s%d", len ? "," : "", c);
		else
			n = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
				     "%s%d-%d", len ? "," : "", c, hi);
		len += (size_t)n;
		c = gf_cpuset_next(s, hi);
	}
	return len;
}
