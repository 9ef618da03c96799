/* The engine's common layer: slots, routing, short transfers, retries,
 * cancellation and callbacks, over whichever back end was chosen. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/strutil.h"
#include "io/engine.h"
#include "io/fault.h"
#include "io/file.h"

/* EINTR/EAGAIN are retried this many times per request before they are
 * reported: enough for any storm, finite so a wedged device surfaces. */
#define MAX_RETRIES 100000

uint64_t gf_io__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *gf_io_backend_name(enum gf_io_backend b)
{
	switch (b) {
	case GF_IO_AUTO: return "auto";
	case GF_IO_URING: return "uring";
	case GF_IO_PSYNC: return "psync";
	}
	return "?";
}

static int start_backend(struct gf_io *io, const struct gf_io_backend_ops *ops, enum gf_io_backend b)
{
	int rc;

	io->ops = ops;
	io->backend = b;
	rc = ops->init(io);
	if (rc)
		io->ops = NULL;
	return rc;
}

int gf_io_open(const struct gf_io_opts *opts, struct gf_io **out)
{
	struct gf_io_opts o = { 0 };
	struct gf_io *io;
	int rc;

	*out = NULL;
	if (opts)
		o = *opts;
	else
		o.sqpoll_cpu = o.cpu_node = -1;
	if (!o.queue_depth)
		o.queue_depth = 64;
	if (o.queue_depth > 65536)
		return gf_error(-EINVAL, "I/O engine: queue depth %u is above 65536", o.queue_depth);
	if (!o.sqpoll_idle_ms)
		o.sqpoll_idle_ms = 100;
	if (!o.max_files)
		o.max_files = 64;
	if (!o.max_bufs)
		o.max_bufs = 64;
	rc = gf_io_fault_from_env();
	if (rc)
		return rc;

	io = calloc(1, sizeof(*io));
	if (!io)
		return gf_error(-ENOMEM, "I/O engine: out of memory");
	io->opts = o;
	io->slot = calloc(o.queue_depth, sizeof(*io->slot));
	io->free_slot = calloc(o.queue_depth, sizeof(*io->free_slot));
	io->bufs = calloc(o.max_bufs, sizeof(*io->bufs));
	if (!io->slot || !io->free_slot || !io->bufs) {
		rc = gf_error(-ENOMEM, "I/O engine: out of memory");
		goto fail;
	}
	for (unsigned i = 0; i < o.queue_depth; i++)
		io->free_slot[i] = o.queue_depth - 1 - i;
	io->nfree = o.queue_depth;

	if (o.backend == GF_IO_PSYNC) {
		rc = start_backend(io, &gf_io_psync_ops, GF_IO_PSYNC);
	} else {
		rc = start_backend(io, &gf_io_uring_ops, GF_IO_URING);
		if (rc && o.backend == GF_IO_AUTO) {
			/* Old kernel, io_uring_disabled, container seccomp: the
			 * pool does the same job with threads. */
			snprintf(io->note, sizeof(io->note), "%s; using the pread/pwrite pool",
				 gf_last_error());
			rc = start_backend(io, &gf_io_psync_ops, GF_IO_PSYNC);
		}
	}
	if (rc)
		goto fail;
	*out = io;
	return 0;
fail:
	free(io->slot);
	free(io->free_slot);
	free(io->bufs);
	free(io);
	return rc;
}

enum gf_io_backend gf_io_backend_of(const struct gf_io *io)
{
	return io->backend;
}

const char *gf_io_note(const struct gf_io *io)
{
	return io->note;
}

unsigned gf_io_inflight(const struct gf_io *io)
{
	return io->inflight;
}

/* ---- registered buffers ---- */

int gf_io_register_buf(struct gf_io *io, struct gf_buf *b)
{
	int slot = -1;

	if (!b)
		return gf_error(-EINVAL, "register buffer: no buffer");
	/* Kept on every back end, so registering twice is an error (and
	 * unregistering matches) whether or not the kernel takes part. */
	for (unsigned i = 0; i < io->nbufs; i++)
		if (io->bufs[i] == b)
			return gf_error(-EBUSY, "register buffer: already registered with this engine");
	if (b->uring_index >= 0)
		return gf_error(-EBUSY, "register buffer: already registered with an engine");
	if (io->nbufs >= io->opts.max_bufs)
		return gf_error(-ENOSPC, "register buffer: all %u slots in use", io->opts.max_bufs);
	if (io->ops->buf_register && !(io->opts.flags & GF_IO_NO_REGISTER)) {
		slot = io->ops->buf_register(io, b);
		if (slot < 0)
			return slot;
	}
	b->uring_index = slot;
	io->bufs[io->nbufs++] = b;
	return 0;
}

int gf_io_unregister_buf(struct gf_io *io, struct gf_buf *b)
{
	for (unsigned i = 0; i < io->nbufs; i++) {
		if (io->bufs[i] != b)
			continue;
		if (b->uring_index >= 0 && io->ops->buf_unregister)
			io->ops->buf_unregister(io, b->uring_index);
		b->uring_index = -1;
		io->bufs[i] = io->bufs[--io->nbufs];
		return 0;
	}
	return gf_error(-ENOENT, "unregister buffer: not registered here");
}

static int find_buf(const struct gf_io *io, const void *ptr, size_t len)
{
	const char *p = ptr;

	for (unsigned i = 0; i < io->nbufs; i++) {
		const char *d = io->bufs[i]->data;
		if (p >= d && len <= io->bufs[i]->size && (size_t)(p - d) <= io->bufs[i]->size - len)
			return io->bufs[i]->uring_index;
	}
	return -1;
}

/* ---- issuing ---- */

static bool aligned(const struct gf_file *f, const void *ptr, size_t len, uint64_t off)
{
	return (uintptr_t)ptr % f->info.mem_align == 0 && len % f->info.offset_align == 0 &&
	       off % f->info.offset_align == 0;
}

static int issue(struct gf_io *io, struct gf_io_req *req)
{
	struct gf_file *f = req->file;
	struct gf_issue is = {
		.fd = f->fd, .file_index = f->fd_slot, .buf_index = -1,
		.ptr = (char *)req->buf + req->moved,
		.len = req->len - req->moved,
		.off = req->off + req->moved,
	};
	bool direct = false;

	if (req->op != GF_IO_FSYNC) {
		direct = f->info.direct;
		if (direct && !aligned(f, is.ptr, is.len, is.off)) {
			int rc = gf_file__buffered_fd(f);
			if (rc < 0)
				return rc;
			is.fd = rc;
			is.file_index = -1;
			direct = false;
		}
		is.buf_index = find_buf(io, is.ptr, is.len);
	}
	/* Remembered for the result: only an O_DIRECT issue tells whether
	 * the file system takes O_DIRECT I/O. */
	req->state = direct ? GF_REQ_ISSUED_DIRECT : GF_REQ_ISSUED;
	return io->ops->issue(io, req, &is);
}

static void release(struct gf_io *io, struct gf_io_req *req)
{
	io->slot[req->slot] = NULL;
	io->free_slot[io->nfree++] = req->slot;
	io->inflight--;
	req->file->inflight--;
}

static void finish(struct gf_io *io, struct gf_io_req *req, ssize_t res)
{
	req->res = res;
	req->state = GF_REQ_DONE;
	release(io, req);
	io->completed++;
	if (res < 0 && res != -ECANCELED && !io->close_err)
		io->close_err = (int)res;
	req->done = true;
	/* Last: the callback may reuse or free the request. */
	if (req->cb)
		req->cb(req);
}

static void retry_later(struct gf_io *io, struct gf_io_req *req)
{
	req->state = GF_REQ_RETRY;
	req->next = NULL;
	if (io->retry_tail)
		io->retry_tail->next = req;
	else
		io->retry_head = req;
	io->retry_tail = req;
}

void gf_io__raw_done(struct gf_io *io, struct gf_io_req *req, long long res)
{
	struct gf_file *f = req->file;
	size_t left = req->len - req->moved;
	bool via_direct = req->state == GF_REQ_ISSUED_DIRECT;

	res = gf_io_fault_apply(req->op, req->off + req->moved, res);
	if (res == -ECANCELED || (req->cancel && res < 0)) {
		finish(io, req, -ECANCELED);
		return;
	}
	if (res == -EINTR || res == -EAGAIN) {
		if (req->cancel)
			finish(io, req, -ECANCELED);
		else if (++req->retries > MAX_RETRIES)
			finish(io, req, res);
		else
			retry_later(io, req);
		return;
	}
	if (res == -EINVAL && via_direct && !f->direct_ok && !(f->flags & GF_FILE_DIRECT_REQUIRED)) {
		/* The filesystem took O_DIRECT at open and refuses it now
		 * (older tmpfs, some FUSE): go through the page cache.  Every
		 * O_DIRECT issue in flight comes back like this one; the
		 * first drops O_DIRECT, all go again. */
		if (f->info.direct)
			gf_file__drop_direct(f, "O_DIRECT I/O refused (EINVAL)");
		retry_later(io, req);
		return;
	}
	if (res < 0) {
		finish(io, req, res);
		return;
	}
	if (req->op == GF_IO_FSYNC) {
		finish(io, req, 0);
		return;
	}
	if (via_direct)
		f->direct_ok = true;
	if ((unsigned long long)res > left)
		res = (long long)left;
	req->moved += (size_t)res;
	if (res == 0 && left) {
		if (req->op == GF_IO_READ) {
			req->eof = true;
			finish(io, req, (ssize_t)req->moved);
		} else {
			/* A write that moves nothing would spin forever. */
			finish(io, req, -EIO);
		}
		return;
	}
	if (req->moved < req->len) {
		if (req->cancel)
			finish(io, req, -ECANCELED);
		else
			retry_later(io, req);	/* short transfer: the rest */
		return;
	}
	finish(io, req, (ssize_t)req->moved);
}

/* Reissues what came back short or interrupted; returns 0 or -errno. */
static int drain_retries(struct gf_io *io)
{
	bool any = false;

	while (io->retry_head) {
		struct gf_io_req *req = io->retry_head;
		int rc;

		io->retry_head = req->next;
		if (!io->retry_head)
			io->retry_tail = NULL;
		if (req->cancel) {
			finish(io, req, -ECANCELED);
			continue;
		}
		rc = issue(io, req);
		if (rc < 0)
			finish(io, req, rc);
		else
			any = true;
	}
	return any ? io->ops->flush(io) : 0;
}

static int validate(struct gf_io *io, const struct gf_io_req *req)
{
	if (!req || !req->file)
		return gf_error(-EINVAL, "I/O request without a file");
	if (req->file->io != io)
		return gf_error(-EINVAL, "I/O request for a file of another engine");
	if (req->op != GF_IO_READ && req->op != GF_IO_WRITE && req->op != GF_IO_FSYNC)
		return gf_error(-EINVAL, "I/O request with unknown op %d", (int)req->op);
	if (req->op != GF_IO_FSYNC && req->len && !req->buf)
		return gf_error(-EINVAL, "I/O request of %zu bytes without a buffer", req->len);
	if (req->op == GF_IO_READ && req->len > (size_t)SSIZE_MAX)
		return gf_error(-EINVAL, "I/O request of %zu bytes is too large", req->len);
	if (req->op != GF_IO_READ && !(req->file->flags & GF_FILE_WRITE))
		return gf_error(-EBADF, "%s: opened read-only", req->file->path);
	if (req->state == GF_REQ_ISSUED || req->state == GF_REQ_ISSUED_DIRECT || req->state == GF_REQ_RETRY)
		return gf_error(-EBUSY, "I/O request submitted twice");
	return 0;
}

static int reap(struct gf_io *io, unsigned min, int timeout_ms)
{
	int rc = io->ops->reap(io, min, timeout_ms);
	int rc2 = drain_retries(io);

	return rc < 0 ? rc : rc2;
}

int gf_io_submit(struct gf_io *io, struct gf_io_req **reqs, unsigned n)
{
	unsigned accepted = 0;
	int rc = 0;

	for (; accepted < n; accepted++) {
		struct gf_io_req *req = reqs[accepted];

		rc = validate(io, req);
		if (rc)
			break;
		while (!io->nfree && (io->opts.flags & GF_IO_BLOCK_WHEN_FULL)) {
			rc = io->ops->flush(io);
			if (!rc)
				rc = reap(io, 1, -1);
			if (rc < 0 && rc != -EINTR && rc != -ETIME)
				break;
			rc = 0;
		}
		if (rc)
			break;
		if (!io->nfree) {
			rc = -EBUSY;
			break;
		}
		req->slot = io->free_slot[--io->nfree];
		io->slot[req->slot] = req;
		io->inflight++;
		req->file->inflight++;
		req->moved = 0;
		req->retries = 0;
		req->cancel = false;
		req->done = false;
		req->eof = false;
		req->res = 0;
		req->submit_ns = gf_io__now_ns();
		rc = issue(io, req);
		if (rc) {
			release(io, req);
			req->state = GF_REQ_IDLE;
			break;
		}
	}
	{
		int frc = io->ops->flush(io);
		if (frc && !rc)
			rc = frc;
	}
	if (accepted)
		return (int)accepted;
	if (rc == -EBUSY)
		return gf_error(-EBUSY, "I/O queue full: %u requests in flight", io->opts.queue_depth);
	return rc;
}

int gf_io_poll(struct gf_io *io)
{
	unsigned start = io->completed;
	int rc = drain_retries(io);

	if (!rc)
		rc = reap(io, 0, 0);
	if (rc < 0 && rc != -ETIME && io->completed == start)
		return rc;
	return (int)(io->completed - start);
}

int gf_io_wait(struct gf_io *io, unsigned min_complete, int timeout_ms)
{
	unsigned start = io->completed;
	uint64_t deadline = timeout_ms >= 0 ? gf_io__now_ns() + (uint64_t)timeout_ms * 1000000ull : 0;
	int rc = drain_retries(io);

	if (rc < 0)
		return rc;
	while (io->completed - start < min_complete && io->inflight) {
		int left = -1;

		if (timeout_ms >= 0) {
			/* Past the deadline (or a zero timeout): still take
			 * what is ready, without blocking. */
			uint64_t now = gf_io__now_ns();
			left = now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
		}
		rc = reap(io, 1, left);
		if (rc == -ETIME)
			break;
		if (rc < 0 && rc != -EINTR)
			return rc;
		/* Past the deadline, one pass: requests that keep coming back
		 * short or interrupted must not hold the caller past it. */
		if (timeout_ms >= 0 && left == 0)
			break;
	}
	if (io->completed - start < min_complete && io->inflight)
		return io->completed != start ? (int)(io->completed - start) : -ETIME;
	return (int)(io->completed - start);
}

int gf_io__submit_one(struct gf_io *io, struct gf_io_req *req)
{
	for (;;) {
		int rc = gf_io_submit(io, &req, 1);

		if (rc == 1)
			return 0;
		if (rc != -EBUSY)
			return rc;
		rc = gf_io_wait(io, 1, -1);
		if (rc < 0 && rc != -EINTR && rc != -ETIME)
			return rc;
	}
}

int gf_io__wait_req(struct gf_io *io, struct gf_io_req *req)
{
	while (!req->done) {
		int rc = gf_io_wait(io, 1, -1);
		if (rc < 0 && rc != -EINTR && rc != -ETIME)
			return rc;
	}
	return 0;
}

int gf_io_cancel(struct gf_io *io, struct gf_io_req *req)
{
	if (!req || req->slot >= io->opts.queue_depth || io->slot[req->slot] != req)
		return gf_error(-ENOENT, "cancel: request not in flight");
	req->cancel = true;
	if ((req->state == GF_REQ_ISSUED || req->state == GF_REQ_ISSUED_DIRECT) && io->ops->cancel)
		return io->ops->cancel(io, req);
	return 0;
}

int gf_io_close(struct gf_io *io, enum gf_io_close_mode mode)
{
	int rc;

	if (!io)
		return 0;
	io->close_err = 0;
	if (mode == GF_IO_CANCEL) {
		for (unsigned i = 0; i < io->opts.queue_depth; i++)
			if (io->slot[i])
				gf_io_cancel(io, io->slot[i]);
	}
	while (io->inflight) {
		rc = gf_io_wait(io, io->inflight, -1);
		if (rc < 0 && rc != -EINTR) {
			/* The back end failed: nothing more will complete. */
			if (!io->close_err)
				io->close_err = rc;
			break;
		}
	}
	rc = io->close_err;
	while (io->files) {
		io->files->inflight = 0;
		gf_file_close(io->files);
	}
	while (io->nbufs)
		gf_io_unregister_buf(io, io->bufs[0]);
	io->ops->fini(io);
	free(io->slot);
	free(io->free_slot);
	free(io->bufs);
	free(io);
	return rc;
}
