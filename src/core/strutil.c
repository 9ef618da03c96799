#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
