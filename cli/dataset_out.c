/* Byte counts and JSON strings for pack and inspect. */
#include <string.h>

#include "dataset_out.h"

const char *gf_cli_bytes(uint64_t v, char *buf, size_t size)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double x = (double)v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)v);
		return buf;
	}
	while (x >= 1024 && u < 4) {
		x /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", x, unit[u]);
	return buf;
}

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	uint32_t cp;

	if (!len || len > n || (s[0] >= 0xf5))
		return 0;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and past U+10FFFF are not UTF-8. */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void gf_cli_json_str(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (size_t i = 0; i < len;) {
		unsigned char c = p[i];
		size_t n;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, f);
		else if ((n = utf8_len(p + i, len - i))) {
			fwrite(p + i, 1, n, f);
			i += n;
			continue;
		} else {
			fputs("\\ufffd", f);	/* not UTF-8: the replacement character */
		}
		i++;
	}
	fputc('"', f);
}
