/* Text or JSON Lines: one sample per line, the line ending ("\n" or
 * "\r\n") dropped, empty lines skipped; key "<file>:<line>" (line 1-based,
 * as editors count).  Read in large chunks; a line may be up to 256 MiB,
 * and a file without newlines fails there rather than filling memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "pack/pack_impl.h"

#define LINE_MAX_BYTES (256u << 20)

struct lines {
	struct gf_pack_out *o;
	const char *path;
	unsigned long long no;
};

static int one_line(struct lines *l, const char *line, size_t len)
{
	char key[4096 + 32];
	int klen;

	l->no++;
	if (len && line[len - 1] == '\r')
		len--;
	if (!len)
		return 0;
	klen = snprintf(key, sizeof(key), "%s:%llu", l->path, l->no);
	if (klen < 0 || (size_t)klen >= sizeof(key))
		klen = (int)sizeof(key) - 1;
	return gf_pack_record(l->o, line, len, key, (size_t)klen);
}

static int too_long(const struct lines *l)
{
	return gf_error(-EBADMSG, "%s:%llu: a line over %u bytes: not a text file?", l->path, l->no + 1,
			LINE_MAX_BYTES);
}

int gf_pack_lines(struct gf_pack_out *o, const char *path)
{
	struct lines l = { .o = o, .path = path };
	size_t cap = GF_PACK_CHUNK, have = 0;
	char *buf = malloc(cap);
	int fd, ret = 0;

	if (!buf)
		return gf_error(-ENOMEM, "%s: out of memory", path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		ret = gf_error(-errno, "%s: %s", path, strerror(errno));
		free(buf);
		return ret;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	for (;;) {
		ssize_t n;
		size_t at = 0;
		char *nl;

		if (have == cap) {	/* one line fills the buffer: grow it, to a limit */
			char *nb;

			if (cap > LINE_MAX_BYTES) {
				ret = too_long(&l);
				break;
			}
			if (!(nb = realloc(buf, cap * 2))) {
				ret = gf_error(-ENOMEM, "%s: out of memory", path);
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = gf_error(-EIO, "%s: %s", path, strerror(errno));
			break;
		}
		if (!n) {	/* the last line, without a newline */
			if (have > LINE_MAX_BYTES)
				ret = too_long(&l);
			else if (have)
				ret = one_line(&l, buf, have);
			break;
		}
		have += (size_t)n;
		while (!ret && (nl = memchr(buf + at, '\n', have - at))) {
			size_t len = (size_t)(nl - (buf + at));

			ret = len > LINE_MAX_BYTES ? too_long(&l) : one_line(&l, buf + at, len);
			at += len + 1;
		}
		if (ret)
			break;
		memmove(buf, buf + at, have - at);
		have -= at;
	}
	close(fd);
	free(buf);
	return ret;
}
