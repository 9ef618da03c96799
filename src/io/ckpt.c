/* Checkpoint writer: stream into a temp file beside the target with two
 * staging halves (one filling while the other is written), keep dirty page
 * cache bounded, then fdatasync, drop the cache and rename into place.
 * A crash leaves the old file, or none, under the final name; never half
 * of a new one.  The rename replaces only what was there at open (the
 * same file, or nothing): a file another process moved onto the path
 * meanwhile is left in place and the commit fails. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpufeed/outfile.h>
#include "core/error.h"
#include "core/opts.h"
#include "io/ckpt_hook.h"
#include "io/engine.h"

/* The first release's struct gf_ckpt_opts ends with keep_cache. */
#define CKPT_OPTS_V1_SIZE \
	(offsetof(struct gf_ckpt_opts, keep_cache) + sizeof(((struct gf_ckpt_opts *)0)->keep_cache))

struct gf_ckpt {
	struct gf_io *io;
	struct gf_file *f;
	char *path, *tmp;
	struct gf_ckpt_opts o;
	struct gf_buf *stage;		/* two halves of chunk bytes */
	bool registered;		/* stage is registered with io */
	struct gf_io_req req[2];
	bool busy[2];
	int cur;
	size_t fill;			/* bytes in the current half */
	uint64_t off;			/* bytes handed to the engine */
	uint64_t wb_start;		/* bounded dirty: start of the window not yet started */
	uint64_t prev_lo, prev_len;	/* window whose writeback was started */
	int err;
	bool had_target;		/* path existed at open: the file below */
	dev_t target_dev;
	ino_t target_ino;
};

void (*gf_ckpt_before_swap)(const char *path);
bool gf_ckpt_no_rename_flags;

static char *half(struct gf_ckpt *c, int i)
{
	return (char *)c->stage->data + (size_t)i * c->o.chunk;
}

static int fail(struct gf_ckpt *c, int rc)
{
	if (!c->err)
		c->err = rc;
	return c->err;
}

/* Buffered only: start writeback of what was written since the last call
 * and wait for (then drop) the window before it, so at most about two
 * windows of dirty pages exist, whatever the file's size. */
static void bound_dirty(struct gf_ckpt *c, uint64_t written_to)
{
	int fd = gf_file_fd(c->f);
	uint64_t window = c->o.dirty_limit / 2;

	if (c->f->info.direct || written_to - c->wb_start < window)
		return;
	sync_file_range(fd, (off_t)c->wb_start, (off_t)(written_to - c->wb_start), SYNC_FILE_RANGE_WRITE);
	if (c->prev_len) {
		sync_file_range(fd, (off_t)c->prev_lo, (off_t)c->prev_len,
				SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
		if (!c->o.keep_cache)
			posix_fadvise(fd, (off_t)c->prev_lo, (off_t)c->prev_len, POSIX_FADV_DONTNEED);
	}
	c->prev_lo = c->wb_start;
	c->prev_len = written_to - c->wb_start;
	c->wb_start = written_to;
}

static int wait_half(struct gf_ckpt *c, int i)
{
	struct gf_io_req *req = &c->req[i];

	int rc;

	if (!c->busy[i])
		return c->err;
	rc = gf_io__wait_req(c->io, req);
	if (rc)
		return fail(c, rc);
	c->busy[i] = false;
	if (req->res < 0)
		return fail(c, gf_error((int)req->res, "%s: writing %zu bytes at %llu: %s", c->path,
					req->len, (unsigned long long)req->off, strerror((int)-req->res)));
	bound_dirty(c, req->off + req->len);
	return c->err;
}

static int submit_half(struct gf_ckpt *c, size_t len)
{
	struct gf_io_req *req = &c->req[c->cur];
	int rc;

	memset(req, 0, sizeof(*req));
	req->op = GF_IO_WRITE;
	req->file = c->f;
	req->buf = half(c, c->cur);
	req->len = len;
	req->off = c->off;
	rc = gf_io__submit_one(c->io, req);
	if (rc)
		return fail(c, rc);
	c->busy[c->cur] = true;
	c->off += len;
	c->cur ^= 1;
	c->fill = 0;
	return wait_half(c, c->cur);	/* the other half must be free to fill */
}

int gf_ckpt_open(struct gf_io *io, const char *path, const struct gf_ckpt_opts *opts, struct gf_ckpt **out)
{
	struct gf_buf_opts bo = GF_BUF_OPTS_INIT;
	struct gf_ckpt_opts o = GF_CKPT_OPTS_INIT;
	enum gf_outfile_mode mode;
	char real[PATH_MAX];
	struct gf_ckpt *c;
	size_t align;
	int fd, rc;

	if (!io || !path || !out)
		return GF_NULL_ARG(!io ? "io" : !path ? "path" : "out");
	*out = NULL;
	if (!*path)
		return gf_error(-EINVAL, "checkpoint: empty path");
	if (opts) {
		rc = gf_opts_check(opts->struct_size, CKPT_OPTS_V1_SIZE, __func__, "GF_CKPT_OPTS_INIT");
		if (rc)
			return rc;
		gf_opts_copy(&o, sizeof(o), opts, opts->struct_size);
	}
	/* A symlink is followed (the file it leads to is replaced); what is
	 * not a regular file is refused: a checkpoint is renamed into place,
	 * which would replace a device or a FIFO. */
	if ((rc = gf_outfile_check(path, real, sizeof(real), &mode)))
		return rc;
	if (mode == GF_OUTFILE_IN_PLACE)
		return gf_error(-EINVAL, "%s: not a regular file: a checkpoint is renamed into place, which would "
				"replace it", path);
	path = real;
	c = calloc(1, sizeof(*c));
	if (!c)
		return gf_error(-ENOMEM, "checkpoint: out of memory");
	c->o = o;
	if (!c->o.dirty_limit)
		c->o.dirty_limit = 64ull << 20;
	if (!c->o.chunk)
		c->o.chunk = 1u << 20;
	if (!c->o.mode)
		c->o.mode = 0644;
	c->io = io;
	c->path = strdup(path);
	if (c->path && asprintf(&c->tmp, "%s.tmp-XXXXXX", path) < 0)
		c->tmp = NULL;
	if (!c->path || !c->tmp) {
		free(c->path);
		free(c);
		return gf_error(-ENOMEM, "checkpoint: out of memory");
	}
	{
		struct stat st;

		/* What the commit may replace: this file, or nothing. */
		c->had_target = lstat(path, &st) == 0;
		if (!c->had_target && errno != ENOENT) {
			rc = gf_error(-errno, "%s: %s", path, strerror(errno));
			free(c->tmp);
			c->tmp = NULL;
			goto fail;
		}
		c->target_dev = c->had_target ? st.st_dev : 0;
		c->target_ino = c->had_target ? st.st_ino : 0;
	}
	fd = mkostemp(c->tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = gf_error(-errno, "%s: creating a temp file beside it: %s", path, strerror(errno));
		free(c->tmp);
		c->tmp = NULL;
		goto fail;
	}
	fchmod(fd, c->o.mode);
	close(fd);
	rc = gf_file_open(io, c->tmp, GF_FILE_WRITE | (c->o.direct ? GF_FILE_DIRECT : 0), 0, &c->f);
	if (rc)
		goto fail;
	/* Both halves must suit O_DIRECT: the second starts chunk bytes in. */
	align = c->f->info.offset_align > c->f->info.mem_align ? c->f->info.offset_align
								: c->f->info.mem_align;
	if (c->o.chunk % align)
		c->o.chunk = (c->o.chunk + align - 1) / align * align;
	bo.size = 2 * c->o.chunk;
	bo.align = c->f->info.mem_align;
	rc = gf_buf_alloc(&bo, &c->stage);
	if (rc)
		goto fail;
	c->registered = gf_io_register_buf(io, c->stage) == 0;	/* best effort */
	*out = c;
	return 0;
fail:
	gf_ckpt_abort(c);
	return rc;
}

int gf_ckpt_write(struct gf_ckpt *c, const void *data, size_t len)
{
	const char *p = data;

	if (!c || (!data && len))
		return gf_arg_error(__func__, "%s is NULL", !c ? "c" : "data");
	if (c->err)
		return c->err;
	while (len) {
		size_t n = c->o.chunk - c->fill;

		if (n > len)
			n = len;
		memcpy(half(c, c->cur) + c->fill, p, n);
		c->fill += n;
		p += n;
		len -= n;
		if (c->fill == c->o.chunk) {
			int rc = submit_half(c, c->o.chunk);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd, rc = 0;

	if (!copy)
		return gf_error(-ENOMEM, "checkpoint: out of memory");
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		rc = gf_error(-errno, "%s: syncing its directory: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(copy);
	return rc;
}

static int rename_flags(const char *from, const char *to, unsigned flags)
{
	if (gf_ckpt_no_rename_flags) {
		errno = EINVAL;
		return -1;
	}
	return renameat2(AT_FDCWD, from, AT_FDCWD, to, flags);
}

static bool is_target(const struct gf_ckpt *c, const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && st.st_dev == c->target_dev && st.st_ino == c->target_ino;
}

static int appeared(const struct gf_ckpt *c)
{
	return gf_error(-EEXIST, "%s: another file was put there while the checkpoint was written: not "
			"replacing it, checkpoint not saved", c->path);
}

/* Nothing was at path at open: nothing may be replaced now.  Without
 * RENAME_NOREPLACE, link() never replaces either. */
static int move_into_new(struct gf_ckpt *c)
{
	if (rename_flags(c->tmp, c->path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EEXIST)
		return appeared(c);
	if (errno != EINVAL && errno != ENOSYS)
		return gf_error(-errno, "%s: renaming %s into place: %s", c->path, c->tmp, strerror(errno));
	if (link(c->tmp, c->path) == 0)
		return unlink(c->tmp) ? gf_error(-errno, "%s: %s", c->tmp, strerror(errno)) : 0;
	if (errno == EEXIST)
		return appeared(c);
	/* No hard links either (vfat): check, then rename; a window remains. */
	if (access(c->path, F_OK) == 0 || errno != ENOENT)
		return appeared(c);
	if (rename(c->tmp, c->path))
		return gf_error(-errno, "%s: renaming %s into place: %s", c->path, c->tmp, strerror(errno));
	return 0;
}

/* path held the file seen at open: swap, look at what came out, and swap
 * back unless it is that file. */
static int move_over(struct gf_ckpt *c)
{
	if (rename_flags(c->tmp, c->path, RENAME_EXCHANGE)) {
		if (errno == ENOENT)		/* removed meanwhile: fine */
			return move_into_new(c);
		if (errno != EINVAL && errno != ENOSYS)
			return gf_error(-errno, "%s: renaming %s into place: %s", c->path, c->tmp, strerror(errno));
		/* No flags: check, then rename over it; a window remains. */
		if (!is_target(c, c->path))
			return access(c->path, F_OK) && errno == ENOENT ? move_into_new(c) : appeared(c);
		if (rename(c->tmp, c->path))
			return gf_error(-errno, "%s: renaming %s into place: %s", c->path, c->tmp, strerror(errno));
		return 0;
	}
	if (is_target(c, c->tmp))		/* the old checkpoint, now at tmp */
		return unlink(c->tmp) ? gf_error(-errno, "%s: %s", c->tmp, strerror(errno)) : 0;
	if (rename_flags(c->tmp, c->path, RENAME_EXCHANGE)) {
		int rc = gf_error(-EEXIST, "%s: another file was put there while the checkpoint was written, "
				  "and putting it back failed (%s): it is now %s", c->path, strerror(errno), c->tmp);

		free(c->tmp);
		c->tmp = NULL;			/* someone's file: keep it */
		return rc;
	}
	return appeared(c);
}

static int swap_into_place(struct gf_ckpt *c)
{
	int rc = c->had_target ? move_over(c) : move_into_new(c);

	if (!rc) {
		free(c->tmp);
		c->tmp = NULL;	/* nothing to remove any more */
	}
	return rc;
}

int gf_ckpt_commit(struct gf_ckpt *c)
{
	struct gf_io_req sync = { .op = GF_IO_FSYNC };
	uint64_t total;
	int rc;

	if (!c)
		return GF_NULL_ARG("c");
	total = c->off + c->fill;
	rc = c->err;

	if (!rc && c->fill) {
		size_t len = c->fill, align = c->f->info.offset_align;
		if (c->f->info.direct && len % align) {
			/* O_DIRECT writes whole blocks: pad, then cut the file back. */
			size_t padded = (len + align - 1) / align * align;
			memset(half(c, c->cur) + len, 0, padded - len);
			len = padded;
		}
		rc = submit_half(c, len);
	}
	if (!rc)
		rc = wait_half(c, 0);
	if (!rc)
		rc = wait_half(c, 1);
	/* Padded for O_DIRECT: cut back, even when O_DIRECT was dropped
	 * since (the padding went out through the page cache then). */
	if (!rc && c->off != total && ftruncate(gf_file_fd(c->f), (off_t)total))
		rc = gf_error(-errno, "%s: truncating to %llu bytes: %s", c->tmp,
			      (unsigned long long)total, strerror(errno));
	if (!rc) {
		sync.file = c->f;
		rc = gf_io__submit_one(c->io, &sync);
		if (!rc)
			rc = gf_io__wait_req(c->io, &sync);
		if (!rc && sync.res < 0)
			rc = gf_error((int)sync.res, "%s: fdatasync: %s", c->tmp, strerror((int)-sync.res));
	}
	if (!rc && !c->o.keep_cache)
		posix_fadvise(gf_file_fd(c->f), 0, 0, POSIX_FADV_DONTNEED);
	if (!rc && gf_ckpt_before_swap)
		gf_ckpt_before_swap(c->path);
	if (!rc)
		rc = swap_into_place(c);
	if (!rc)
		rc = sync_dir(c->path);
	if (rc)
		fail(c, rc);
	gf_ckpt_abort(c);
	return rc;
}

void gf_ckpt_abort(struct gf_ckpt *c)
{
	if (!c)
		return;
	/* Writes still in flight must finish before their buffer goes. */
	for (int i = 0; i < 2; i++)
		if (c->busy[i])
			gf_io__wait_req(c->io, &c->req[i]);
	if (c->stage) {
		if (c->registered)
			gf_io_unregister_buf(c->io, c->stage);
		gf_buf_free(c->stage);
	}
	if (c->f)
		gf_file_close(c->f);
	if (c->tmp)
		unlink(c->tmp);
	free(c->tmp);
	free(c->path);
	free(c);
}

int gf_io_write_file_atomic(struct gf_io *io, const char *path, const void *data, size_t len,
			    const struct gf_ckpt_opts *opts)
{
	struct gf_ckpt *c;
	int rc;

	if (!io || !path || (!data && len))
		return GF_NULL_ARG(!io ? "io" : !path ? "path" : "data");
	rc = gf_ckpt_open(io, path, opts, &c);
	if (rc)
		return rc;
	rc = gf_ckpt_write(c, data, len);
	if (rc) {
		gf_ckpt_abort(c);
		return rc;
	}
	return gf_ckpt_commit(c);
}
