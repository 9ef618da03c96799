/* Text or JSON Lines: one sample per line, the line ending ("\n" or
 * "\r\n") dropped, empty lines skipped; key "<file>:<line>" (line 1-based,
 * as editors count). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "pack/pack_impl.h"

#define LINE_MAX_BYTES (256u << 20)

int gf_pack_lines(struct gf_pack_out *o, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, key[4096 + 32];
	size_t cap = 0;
	unsigned long long no = 0;
	ssize_t n;
	int ret = 0;

	if (!f)
		return gf_error(-errno, "%s: %s", path, strerror(errno));
	while ((errno = 0, n = getline(&line, &cap, f)) >= 0) {
		size_t len = (size_t)n;
		int klen;

		no++;
		if ((size_t)n > LINE_MAX_BYTES) {
			ret = gf_error(-EBADMSG, "%s:%llu: a line of %zd bytes (at most %u): not a text file?", path, no,
				       n, LINE_MAX_BYTES);
			break;
		}
		if (len && line[len - 1] == '\n')
			len--;
		if (len && line[len - 1] == '\r')
			len--;
		if (!len)
			continue;
		klen = snprintf(key, sizeof(key), "%s:%llu", path, no);
		if (klen < 0 || (size_t)klen >= sizeof(key))
			klen = (int)sizeof(key) - 1;
		if ((ret = gf_pack_record(o, line, len, key, (size_t)klen)))
			break;
	}
	if (!ret && ferror(f))
		ret = gf_error(-EIO, "%s: %s", path, strerror(errno ? errno : EIO));
	free(line);
	fclose(f);
	return ret;
}
