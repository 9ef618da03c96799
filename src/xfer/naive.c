/* The naive path, the baseline: read() into pageable malloc'd memory (the
 * page cache serves or fills it), then a copy from that pageable memory,
 * which the driver stages through its own pinned buffer and which
 * finishes before the next read starts: nothing overlaps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "xfer/xfer_internal.h"

/* pread until n bytes or end of file; bytes or -errno. */
static ssize_t read_full(int fd, char *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int gf_xfer_naive(struct gf_xfer *x, struct gf_xfer_job *j)
{
	struct gf_xfer_slot *s = &x->slot[0];
	char *buf = malloc(x->o.chunk);
	int rc = 0;

	if (!buf)
		return gf_error(-ENOMEM, "%s: no memory for a %zu-byte read buffer", j->name, x->o.chunk);
	j->st->api = "read";
	for (uint64_t at = 0; at < j->len && !rc; at += x->o.chunk) {
		size_t n = j->len - at < x->o.chunk ? (size_t)(j->len - at) : x->o.chunk;
		ssize_t r = read_full(j->fd, buf, n, j->off + at);

		if (r < 0) {
			rc = gf_error((int)r, "%s: read of %zu bytes at offset %llu: %s", j->name, n,
				      (unsigned long long)(j->off + at), strerror((int)-r));
			break;
		}
		if ((size_t)r < n) {
			rc = gf_error(-EIO, "%s: short read: %zd of %zu bytes at offset %llu (file of %llu bytes)",
				      j->name, r, n, (unsigned long long)(j->off + at),
				      (unsigned long long)j->file_size);
			break;
		}
		rc = gf_xfer_cu(x, x->cu->memcpy_htod_async(j->dev + at, buf, n, s->stream), "cuMemcpyHtoDAsync",
				"pageable copy");
		if (!rc)
			rc = gf_xfer_hook(x, j->name, s->stream, j->dev + at, n, j->off + at);
		/* The buffer is read into again next: the copy must be over. */
		if (!rc)
			rc = gf_xfer_cu(x, x->cu->stream_synchronize(s->stream), "cuStreamSynchronize", j->name);
		j->st->chunks++;
	}
	if (rc)
		x->cu->stream_synchronize(s->stream);
	free(buf);
	return rc;
}
