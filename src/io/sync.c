/* Synchronous helpers on top of the asynchronous engine: one read or
 * write, a list of ranges, a whole file. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/engine.h"
#include "io/file.h"

static ssize_t one(struct gf_io *io, struct gf_file *f, enum gf_io_op op, void *buf, size_t len,
		   uint64_t off, const char *func)
{
	struct gf_io_req req = { .op = op, .file = f, .buf = buf, .len = len, .off = off };
	const char *what = op == GF_IO_READ ? "read" : "write";
	int rc;

	if (!io || !f || (!buf && len))
		return gf_arg_error(func, "%s is NULL", !io ? "io" : !f ? "f" : "buf");
	if (len > (size_t)SSIZE_MAX)
		return gf_arg_error(func, "len %zu is above SSIZE_MAX", len);
	rc = gf_io__submit_one(io, &req);
	if (!rc)
		rc = gf_io__wait_req(io, &req);
	if (rc)
		return rc;
	if (req.res < 0)
		return gf_error((int)req.res, "%s: %s of %zu bytes at %llu: %s", f->path, what, len, (unsigned long long)off,
				strerror((int)-req.res));
	return req.res;
}

ssize_t gf_io_read(struct gf_io *io, struct gf_file *f, void *buf, size_t len, uint64_t off)
{
	return one(io, f, GF_IO_READ, buf, len, off, __func__);
}

ssize_t gf_io_write(struct gf_io *io, struct gf_file *f, const void *buf, size_t len, uint64_t off)
{
	return one(io, f, GF_IO_WRITE, (void *)buf, len, off, __func__);
}

int gf_io_read_ranges(struct gf_io *io, struct gf_file *f, struct gf_io_range *r, unsigned n)
{
	struct gf_io_req *reqs;
	unsigned next = 0;
	int rc = 0, first = 0;

	/* A range without a buffer is refused with the others read: every
	 * range has its result (res). */
	if (!io || !f || (!r && n))
		return GF_NULL_ARG(!io ? "io" : !f ? "f" : "r");
	reqs = calloc(n ? n : 1, sizeof(*reqs));
	if (!reqs)
		return gf_error(-ENOMEM, "read ranges: out of memory");
	for (unsigned i = 0; i < n; i++) {
		reqs[i].op = GF_IO_READ;
		reqs[i].file = f;
		reqs[i].buf = r[i].buf;
		reqs[i].len = r[i].len;
		reqs[i].off = r[i].off;
	}
	/* Keep the queue full: submit what fits, wait for one, repeat. */
	while (next < n) {
		struct gf_io_req *batch[64];
		unsigned k = 0;

		while (k < 64 && next + k < n)
			batch[k] = &reqs[next + k], k++;
		rc = gf_io_submit(io, batch, k);
		if (rc > 0) {
			next += (unsigned)rc;
			continue;
		}
		if (rc != -EBUSY)
			break;
		rc = gf_io_wait(io, 1, -1);
		if (rc < 0 && rc != -EINTR)
			break;
		rc = 0;
	}
	for (unsigned i = 0; i < next; i++) {
		int wrc = gf_io__wait_req(io, &reqs[i]);
		if (wrc && !rc)
			rc = wrc;
	}
	if (rc < 0) {
		first = rc;
		for (unsigned i = next; i < n; i++)
			r[i].res = rc;
	} else {
		rc = 0;
	}
	for (unsigned i = 0; i < next; i++) {
		r[i].res = reqs[i].res;
		if (reqs[i].res < 0 && !first)
			first = gf_error((int)reqs[i].res, "%s: read of %zu bytes at %llu: %s", f->path,
					 r[i].len, (unsigned long long)r[i].off,
					 strerror((int)-reqs[i].res));
	}
	free(reqs);
	return first;
}

int gf_io_read_file(struct gf_io *io, const char *path, unsigned flags, int numa_node, size_t chunk,
		    struct gf_buf **out, size_t *len)
{
	struct gf_buf_opts bo = GF_BUF_OPTS_INIT;
	struct gf_io_range *r = NULL;
	struct gf_file *f;
	struct gf_buf *b = NULL;
	uint64_t size, span;
	size_t got = 0, nr, align;
	bool registered;
	int rc;

	if (!io || !path || !out || !len)
		return GF_NULL_ARG(!io ? "io" : !path ? "path" : !out ? "out" : "len");
	*out = NULL;
	*len = 0;
	if (numa_node < -1)
		return gf_arg_error(__func__, "numa_node %d: a node, or -1 for any", numa_node);
	if (flags & ~GF_FILE__FLAGS)
		return gf_arg_error(__func__, "flags 0x%x: unknown bits 0x%x", flags, flags & ~GF_FILE__FLAGS);
	if (!chunk)
		chunk = 1u << 20;
	rc = gf_file_open(io, path, flags & (GF_FILE_DIRECT | GF_FILE_DIRECT_REQUIRED), 0, &f);
	if (rc)
		return rc;
	size = f->info.size;
	align = f->info.offset_align;
	if (chunk % align)
		chunk = (chunk + align - 1) / align * align;
	/* Room for the aligned tail request that stops at EOF. */
	span = (size + align - 1) / align * align;
	if (span > SIZE_MAX - 1) {
		gf_file_close(f);
		return gf_error(-EFBIG, "%s: %llu bytes do not fit in memory", path, (unsigned long long)size);
	}
	bo.numa_node = numa_node;
	bo.size = span ? (size_t)span : 1;
	bo.align = f->info.mem_align;
	rc = gf_buf_alloc(&bo, &b);
	if (rc)
		goto out;
	nr = (size_t)((span + chunk - 1) / chunk);
	r = calloc(nr ? nr : 1, sizeof(*r));
	if (!r) {
		rc = gf_error(-ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		r[i].off = (uint64_t)i * chunk;
		r[i].len = (size_t)((span - r[i].off) < chunk ? span - r[i].off : chunk);
		r[i].buf = (char *)b->data + r[i].off;
	}
	registered = gf_io_register_buf(io, b) == 0;	/* best effort: fixed reads when it works */
	rc = gf_io_read_ranges(io, f, r, (unsigned)nr);
	if (registered)
		gf_io_unregister_buf(io, b);
	if (rc)
		goto out;
	for (size_t i = 0; i < nr; i++) {
		got += (size_t)r[i].res;
		if ((size_t)r[i].res < r[i].len)
			break;	/* EOF: the file shrank, or this was the tail */
	}
	if (got > size)
		got = (size_t)size;
out:
	free(r);
	gf_file_close(f);
	if (rc) {
		gf_buf_free(b);
		return rc;
	}
	*out = b;
	*len = got;
	return 0;
}
