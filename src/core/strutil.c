#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpufeed/parse.h>
#include "core/error.h"
#include "core/strutil.h"

char *gf_rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

char *gf_lstrip(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

size_t gf_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t c = n < size - 1 ? n : size - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

bool gf_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int gf_parse_ll(const char *s, long long *v)
{
	char *end;
	int base = 10;
	const char *p = s;

	if (*p == '-' || *p == '+')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16;
	if (!isxdigit((unsigned char)p[base == 16 ? 2 : 0]))
		return -EINVAL;
	errno = 0;
	*v = strtoll(s, &end, base);
	if (errno)
		return -ERANGE;
	while (isspace((unsigned char)*end))
		end++;
	return *end ? -EINVAL : 0;
}

bool gf_kv_find(const char *text, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t llen = nl ? (size_t)(nl - line) : strlen(line);

		if (llen > klen && strncmp(line, key, klen) == 0) {
			const char *p = line + klen;

			while (p < line + llen && (*p == ' ' || *p == '\t'))
				p++;
			if (p < line + llen && *p == ':') {
				size_t vlen;

				p++;
				while (p < line + llen && isspace((unsigned char)*p))
					p++;
				vlen = (size_t)(line + llen - p);
				while (vlen && isspace((unsigned char)p[vlen - 1]))
					vlen--;
				if (vlen >= size)
					vlen = size - 1;
				memcpy(out, p, vlen);
				out[vlen] = '\0';
				return true;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

/* Digits at the start of s into *v; the count of digits, or -ERANGE. */
static int leading_digits(const char *s, uint64_t *v)
{
	uint64_t n = 0;
	int i = 0;

	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (n > (UINT64_MAX - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	*v = n;
	return i;
}

int gf_parse_size(const char *s, uint64_t *v)
{
	static const struct { const char *suffix; uint64_t mult; } units[] = {
		{ "", 1 }, { "b", 1 },
		{ "k", 1ull << 10 }, { "kib", 1ull << 10 }, { "kb", 1000 },
		{ "m", 1ull << 20 }, { "mib", 1ull << 20 }, { "mb", 1000000 },
		{ "g", 1ull << 30 }, { "gib", 1ull << 30 }, { "gb", 1000000000 },
		{ "t", 1ull << 40 }, { "tib", 1ull << 40 }, { "tb", 1000000000000ull },
	};
	uint64_t n;
	int nd;

	if (!s || !v)
		return GF_NULL_ARG(!s ? "s" : "v");
	nd = leading_digits(s, &n);
	if (nd == -ERANGE)
		return gf_error(-ERANGE, "'%s': too large a size", s);
	if (nd == 0)
		return gf_error(-EINVAL, "'%s': not a size (digits and a unit: 4K, 1M, 16MiB, 4096)", s);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(s + nd, units[i].suffix))
			continue;
		if (n > UINT64_MAX / units[i].mult)
			return gf_error(-ERANGE, "'%s': too large a size", s);
		*v = n * units[i].mult;
		return 0;
	}
	return gf_error(-EINVAL, "'%s': not a size: unknown unit '%s' (K, M, G, T; KiB.. are the same, "
			"KB.. are powers of 10)", s, s + nd);
}

int gf_parse_count(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	uint64_t n;
	int nd;

	if (!s || !v)
		return GF_NULL_ARG(!s ? "s" : "v");
	if (lo > hi)
		return gf_arg_error(__func__, "lo %llu is above hi %llu", (unsigned long long)lo,
				    (unsigned long long)hi);
	nd = leading_digits(s, &n);
	if (nd == 0 || (nd > 0 && s[nd]))
		return gf_error(-EINVAL, "'%s': not a whole number (digits only)", s);
	if (nd < 0 || n < lo || n > hi)
		return gf_error(-ERANGE, "'%s': not in %llu..%llu", s, (unsigned long long)lo,
				(unsigned long long)hi);
	*v = n;
	return 0;
}

int gf_parse_duration(const char *s, double *seconds)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "m", 60 }, { "h", 3600 },
	};
	const char *p = s;
	double x = 0, scale = 1;
	bool digits = false;

	if (!s || !seconds)
		return GF_NULL_ARG(!s ? "s" : "seconds");
	/* By hand, not strtod: it takes signs, spaces, "nan", "inf", hex and
	 * exponents, and depends on the locale's decimal point. */
	for (; *p >= '0' && *p <= '9'; p++, digits = true)
		if (x < 1e18)
			x = x * 10 + (*p - '0');
		else
			return gf_error(-ERANGE, "'%s': too long a duration (at most one year)", s);
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits = true) {
			scale /= 10;
			x += (*p - '0') * scale;
		}
	}
	if (!digits)
		return gf_error(-EINVAL, "'%s': not a duration (e.g. 2, 2s, 500ms, 1m)", s);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].unit))
			continue;
		x *= units[i].mult;
		if (x > GF_DURATION_MAX)
			return gf_error(-ERANGE, "'%s': too long a duration (at most one year)", s);
		*seconds = x;
		return 0;
	}
	return gf_error(-EINVAL, "'%s': not a duration: unknown unit '%s' (s, ms, us, m, h)", s, p);
}
