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

void gf_cli_json_str(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
