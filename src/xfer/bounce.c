/* The bounce path: O_DIRECT reads on the I/O engine (io_uring where the
 * kernel allows it) into the pinned staging buffers, each chunk copied to
 * the GPU on its buffer's stream while the following chunks are read.
 *
 * The file range is cut at aligned offsets: chunk i covers the aligned
 * bytes [base + i*chunk, ...) and only the bytes inside [off, off + len)
 * are copied, so an unaligned start or a tail short of a block costs a
 * little extra read, never a buffered one.  The last read of a file whose
 * size is not a multiple of the block runs past its end, aligned; the
 * engine stops it at end of file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "xfer/xfer_internal.h"

#define READS_MAX 16

struct bounce {
	struct gf_xfer *x;
	struct gf_xfer_job *j;
	struct gf_file *f;
	uint64_t align, base, end, nchunks;
	struct gf_io_req req[GF_XFER_DEPTH_MAX][READS_MAX];
	/* The bytes each request must bring (past them is outside the range). */
	size_t need[GF_XFER_DEPTH_MAX][READS_MAX];
};

static void read_done(struct gf_io_req *r)
{
	struct gf_xfer_slot *s = r->user;

	s->pending--;
	if (r->res < 0 && !s->err)
		s->err = (int)r->res;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* Submits the reads of chunk c into slot s. */
static int submit_chunk(struct bounce *b, unsigned si, uint64_t c)
{
	struct gf_xfer *x = b->x;
	struct gf_xfer_slot *s = &x->slot[si];
	uint64_t p = b->base + c * x->o.chunk;
	uint64_t pe = p + x->o.chunk < b->end ? p + x->o.chunk : b->end;
	uint64_t total = round_up(pe - p, b->align);
	uint64_t piece = round_up((total + x->o.reads - 1) / x->o.reads, b->align);
	struct gf_io_req *list[READS_MAX];
	unsigned n = 0;
	int rc;

	s->chunk = c;
	s->err = 0;
	for (uint64_t at = 0; at < total; at += piece, n++) {
		struct gf_io_req *r = &b->req[si][n];
		uint64_t len = total - at < piece ? total - at : piece;
		uint64_t valid_end = pe - p;

		*r = (struct gf_io_req){ .op = GF_IO_READ, .file = b->f, .buf = (char *)s->buf->data + at,
					 .len = (size_t)len, .off = p + at, .cb = read_done, .user = s };
		b->need[si][n] = at >= valid_end ? 0 : (size_t)((valid_end - at) < len ? valid_end - at : len);
		list[n] = r;
	}
	s->pending = n;
	rc = gf_io_submit(x->io, list, n);
	if (rc < 0) {
		s->pending = 0;
		return gf_error(rc, "%s: submitting the reads at offset %llu: %s", b->j->name,
				(unsigned long long)p, gf_last_error());
	}
	return 0;
}

/* Waits for chunk c's reads (slot si) and checks each brought its bytes. */
static int finish_reads(struct bounce *b, unsigned si)
{
	struct gf_xfer_slot *s = &b->x->slot[si];
	unsigned n = 0;

	while (s->pending) {
		int rc = gf_io_wait(b->x->io, 1, -1);

		if (rc < 0 && rc != -ETIME)
			return gf_error(rc, "%s: waiting for reads: %s", b->j->name, gf_last_error());
	}
	for (; n < READS_MAX && b->req[si][n].cb; n++) {
		struct gf_io_req *r = &b->req[si][n];

		if (r->res < 0)
			return gf_error((int)r->res, "%s: read of %zu bytes at offset %llu: %s", b->j->name, r->len,
					(unsigned long long)r->off, strerror((int)-r->res));
		if ((size_t)r->res < b->need[si][n])
			return gf_error(-EIO, "%s: short read: %zd of %zu bytes at offset %llu (file of %llu bytes)",
					b->j->name, r->res, b->need[si][n], (unsigned long long)r->off,
					(unsigned long long)b->j->file_size);
	}
	return 0;
}

/* Queues the copy of chunk c's bytes inside the range. */
static int copy_chunk(struct bounce *b, unsigned si)
{
	struct gf_xfer_slot *s = &b->x->slot[si];
	uint64_t p = b->base + s->chunk * b->x->o.chunk;
	uint64_t from = p < b->j->off ? b->j->off : p;
	uint64_t to = p + b->x->o.chunk < b->end ? p + b->x->o.chunk : b->end;

	return gf_xfer_slot_copy(b->x, b->j->name, s, (size_t)(from - p), (size_t)(to - from),
				 b->j->dev + (from - b->j->off), from);
}

static int pipeline(struct bounce *b)
{
	struct gf_xfer *x = b->x;
	uint64_t next_read = 0, next_copy = 0;
	int rc = 0;

	while (next_copy < b->nchunks && !rc) {
		/* Keep every free buffer reading; a buffer is free once the
		 * event behind its last copy has fired. */
		while (!rc && next_read < b->nchunks && next_read < next_copy + x->nslots) {
			unsigned si = (unsigned)(next_read % x->nslots);

			memset(b->req[si], 0, sizeof(b->req[si]));
			rc = gf_xfer_slot_wait(x, &x->slot[si]);
			if (!rc)
				rc = submit_chunk(b, si, next_read++);
		}
		if (!rc)
			rc = finish_reads(b, (unsigned)(next_copy % x->nslots));
		if (!rc)
			rc = copy_chunk(b, (unsigned)(next_copy % x->nslots));
		next_copy++;
		b->j->st->chunks++;
	}
	return rc;
}

int gf_xfer_bounce(struct gf_xfer *x, struct gf_xfer_job *j)
{
	struct bounce *b = calloc(1, sizeof(*b));
	const struct gf_file_info *fi;
	int rc, rc2;

	if (!b)
		return gf_error(-ENOMEM, "%s: out of memory", j->name);
	b->x = x;
	b->j = j;
	if ((rc = gf_file_from_fd(x->io, j->fd, GF_FILE_READ, &b->f))) {
		free(b);
		return rc;
	}
	fi = gf_file_info(b->f);
	b->align = fi->offset_align > 1 ? fi->offset_align : 4096;
	if (x->o.chunk % b->align) {
		rc = gf_error(-EINVAL, "%s: chunk of %zu bytes is not a multiple of the file's O_DIRECT alignment %llu",
			      j->name, x->o.chunk, (unsigned long long)b->align);
		gf_file_close(b->f);
		free(b);
		return rc;
	}
	b->base = j->off / b->align * b->align;
	b->end = j->off + j->len;
	b->nchunks = (b->end - b->base + x->o.chunk - 1) / x->o.chunk;
	j->st->direct = fi->direct;
	j->st->api = gf_io_backend_of(x->io) == GF_IO_URING ? "io_uring" : "psync";
	rc = pipeline(b);
	/* Whatever happened, no read may still be writing into a buffer and
	 * no copy still reading one when the call returns. */
	while (gf_io_inflight(x->io))
		gf_io_wait(x->io, gf_io_inflight(x->io), -1);
	for (unsigned i = 0; i < x->nslots; i++)
		x->slot[i].pending = 0;
	rc2 = gf_xfer_slots_drain(x);
	gf_file_close(b->f);
	free(b);
	return rc ? rc : rc2;
}
