/* The engine's common layer: slots, routing, short transfers, retries,
 * cancellation and callbacks, over whichever back end was chosen. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/strutil.h"
#include "mem/host.h"
#include "io/engine.h"
#include "io/fault.h"
#include "io/file.h"

/* EINTR/EAGAIN are retried with a backoff that starts tiny (2 us, then
 * doubling) and is capped (10 ms a step); a request that keeps getting
 * them fails with the last one after 64 tries or 100 ms of backoff since
 * it last moved bytes, whichever comes first.  (It used to be 100,000
 * immediate retries: 3.5 s per request in an EAGAIN storm, each one a
 * system call.) */
#define RETRY_MAX 64
#define RETRY_FIRST_NS 2000ull
#define RETRY_STEP_CAP_NS 10000000ull
#define RETRY_BUDGET_NS 100000000ull

/* A wait never blocks longer than this at once, so an interrupt from
 * another thread (which cannot wake a futex or io_uring_enter safely from
 * a signal handler) is seen within it. */
#define WAIT_SLICE_NS 20000000ll

/* The first release's struct gf_io_opts ends with cancel. */
#define IO_OPTS_V1_SIZE (offsetof(struct gf_io_opts, cancel) + sizeof(((struct gf_io_opts *)0)->cancel))
/* Every GF_IO_* flag: others are refused, never silently ignored. */
#define IO_FLAGS (GF_IO_BLOCK_WHEN_FULL | GF_IO_SQPOLL | GF_IO_NO_REGISTER | GF_IO_SQPOLL_CPU | GF_IO_WORKER_NODE)

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
	struct gf_io_opts o = GF_IO_OPTS_INIT;
	struct gf_io *io;
	int rc;

	if (!out)
		return GF_NULL_ARG("out");
	*out = NULL;
	if (opts) {
		rc = gf_opts_check(opts->struct_size, IO_OPTS_V1_SIZE, __func__, "GF_IO_OPTS_INIT");
		if (rc)
			return rc;
		gf_opts_copy(&o, sizeof(o), opts, opts->struct_size);
	}
	if ((unsigned)o.backend > GF_IO_PSYNC)
		return gf_arg_error(__func__, "backend %d is not a gf_io_backend", (int)o.backend);
	if (o.flags & ~IO_FLAGS)
		return gf_arg_error(__func__, "flags 0x%x: unknown bits 0x%x", o.flags, o.flags & ~IO_FLAGS);
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
	pthread_mutex_init(&io->async_lock, NULL);
	io->slots = calloc(o.queue_depth, sizeof(*io->slots));
	io->free_slot = calloc(o.queue_depth, sizeof(*io->free_slot));
	io->bufs = calloc(o.max_bufs, sizeof(*io->bufs));
	if (!io->slots || !io->free_slot || !io->bufs) {
		rc = gf_error(-ENOMEM, "I/O engine: out of memory");
		goto fail;
	}
	for (unsigned i = 0; i < o.queue_depth; i++) {
		io->slots[i].idx = i;
		io->free_slot[i] = o.queue_depth - 1 - i;
	}
	io->nfree = o.queue_depth;

	if (o.backend == GF_IO_PSYNC) {
		rc = start_backend(io, &gf_io_psync_ops, GF_IO_PSYNC);
	} else {
		rc = start_backend(io, &gf_io_uring_ops, GF_IO_URING);
		if (rc && o.backend == GF_IO_AUTO) {
			/* Old kernel, io_uring_disabled, container seccomp: the
			 * pool does the same job with threads. */
			io->fallback_err = rc;
			GF_WARN(GF_LOG_IO, "%s; using the pread/pwrite pool", gf_last_error());
			rc = start_backend(io, &gf_io_psync_ops, GF_IO_PSYNC);
		}
	}
	if (rc)
		goto fail;
	*out = io;
	return 0;
fail:
	pthread_mutex_destroy(&io->async_lock);
	free(io->slots);
	free(io->free_slot);
	free(io->bufs);
	free(io);
	return rc;
}

enum gf_io_backend gf_io_backend_of(const struct gf_io *io)
{
	return io ? io->backend : GF_IO_AUTO;
}

int gf_io_fallback_error(const struct gf_io *io)
{
	if (!io)
		return GF_NULL_ARG("io");
	return io->fallback_err;
}

int gf_io__async_error(struct gf_io *io, int err, const char *fmt, ...)
{
	char msg[sizeof(io->async_msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&io->async_lock);
	if (!io->async_err) {
		io->async_err = err;
		memcpy(io->async_msg, msg, sizeof(msg));
	}
	pthread_mutex_unlock(&io->async_lock);
	GF_WARN(GF_LOG_IO, "%s", msg);
	return err;
}

int gf_io_async_error(struct gf_io *io)
{
	int err;

	if (!io)
		return GF_NULL_ARG("io");
	pthread_mutex_lock(&io->async_lock);
	err = io->async_err;
	if (err)
		gf_error(err, "%s", io->async_msg);
	pthread_mutex_unlock(&io->async_lock);
	return err;
}

unsigned gf_io_inflight(const struct gf_io *io)
{
	return io ? io->inflight : 0;
}

/* ---- registered buffers ---- */

int gf_io_register_buf(struct gf_io *io, struct gf_buf *b)
{
	int slot = -1;

	if (!io || !b)
		return GF_NULL_ARG(!io ? "io" : "b");
	/* Kept on every back end, so registering twice is an error (and
	 * unregistering matches) whether or not the kernel takes part. */
	for (unsigned i = 0; i < io->nbufs; i++)
		if (io->bufs[i] == b)
			return gf_error(-EBUSY, "register buffer: already registered with this engine");
	if (gf_buf__impl(b)->uring_index >= 0)
		return gf_error(-EBUSY, "register buffer: already registered with an engine");
	if (io->nbufs >= io->opts.max_bufs)
		return gf_error(-ENOSPC, "register buffer: all %u slots in use", io->opts.max_bufs);
	if (io->ops->buf_register && !(io->opts.flags & GF_IO_NO_REGISTER)) {
		slot = io->ops->buf_register(io, b);
		if (slot < 0)
			return slot;
	}
	gf_buf__impl(b)->uring_index = slot;
	io->bufs[io->nbufs++] = b;
	return 0;
}

int gf_io_unregister_buf(struct gf_io *io, struct gf_buf *b)
{
	if (!io || !b)
		return GF_NULL_ARG(!io ? "io" : "b");
	for (unsigned i = 0; i < io->nbufs; i++) {
		if (io->bufs[i] != b)
			continue;
		struct gf_buf_impl *bi = gf_buf__impl(b);

		if (bi->uring_index >= 0 && io->ops->buf_unregister)
			io->ops->buf_unregister(io, bi->uring_index);
		bi->uring_index = -1;
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
			return gf_buf__impl(io->bufs[i])->uring_index;
	}
	return -1;
}

/* ---- issuing ---- */

static bool aligned(const struct gf_file *f, const void *ptr, size_t len, uint64_t off)
{
	return (uintptr_t)ptr % f->info.mem_align == 0 && len % f->info.offset_align == 0 &&
	       off % f->info.offset_align == 0;
}

static int issue(struct gf_io *io, struct gf_io_slot *s)
{
	struct gf_io_req *req = s->req;
	struct gf_file *f = req->file;
	struct gf_issue is = {
		.fd = f->fd, .file_index = f->fd_slot, .buf_index = -1,
		.ptr = (char *)req->buf + s->moved,
		.len = req->len - s->moved,
		.off = req->off + s->moved,
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
	s->state = direct ? GF_REQ_ISSUED_DIRECT : GF_REQ_ISSUED;
	return io->ops->issue(io, s, &is);
}

static void release(struct gf_io *io, struct gf_io_slot *s)
{
	s->req->file->inflight--;
	s->req->slot = NULL;
	s->req = NULL;
	s->state = GF_REQ_IDLE;
	io->free_slot[io->nfree++] = s->idx;
	io->inflight--;
}

static void finish(struct gf_io *io, struct gf_io_slot *s, ssize_t res)
{
	struct gf_io_req *req = s->req;

	release(io, s);
	req->res = res;
	io->completed++;
	if (res < 0 && res != -ECANCELED && !io->close_err)
		io->close_err = (int)res;
	req->done = true;
	/* Last: the callback may reuse or free the request. */
	if (req->cb)
		req->cb(req);
}

/* Queues s to go again at CLOCK_MONOTONIC at (0: at once). */
static void retry_later(struct gf_io *io, struct gf_io_slot *s, uint64_t at)
{
	s->state = GF_REQ_RETRY;
	s->retry_at = at;
	if (at && (!io->retry_due || at < io->retry_due))
		io->retry_due = at;
	io->nretry++;
	s->next = NULL;
	if (io->retry_tail)
		io->retry_tail->next = s;
	else
		io->retry_head = s;
	io->retry_tail = s;
}

void gf_io__raw_done(struct gf_io *io, struct gf_io_slot *s, long long res)
{
	struct gf_io_req *req = s->req;
	struct gf_file *f = req->file;
	size_t left = req->len - s->moved;
	bool via_direct = s->state == GF_REQ_ISSUED_DIRECT;

	res = gf_io_fault_apply(req->op, req->off + s->moved, res);
	if (res == -ECANCELED || (s->cancel && res < 0)) {
		finish(io, s, -ECANCELED);
		return;
	}
	if (res == -EINTR || res == -EAGAIN) {
		unsigned shift = s->retries < 20 ? s->retries : 20;
		uint64_t delay = RETRY_FIRST_NS << shift;

		if (delay > RETRY_STEP_CAP_NS)
			delay = RETRY_STEP_CAP_NS;
		if (s->cancel || gf_io__interrupted(io)) {
			finish(io, s, -ECANCELED);
		} else if (++s->retries > RETRY_MAX || s->retry_spent + delay > RETRY_BUDGET_NS) {
			finish(io, s, res);
		} else {
			s->retry_spent += delay;
			retry_later(io, s, gf_io__now_ns() + delay);
		}
		return;
	}
	if (res == -EINVAL && via_direct && !f->direct_ok && !(f->flags & GF_FILE_DIRECT_REQUIRED)) {
		/* The filesystem took O_DIRECT at open and refuses it now
		 * (older tmpfs, some FUSE): go through the page cache.  Every
		 * O_DIRECT issue in flight comes back like this one; the
		 * first drops O_DIRECT, all go again. */
		if (f->info.direct)
			gf_file__drop_direct(f, "O_DIRECT I/O refused (EINVAL)");
		retry_later(io, s, 0);
		return;
	}
	if (res < 0) {
		finish(io, s, res);
		return;
	}
	if (req->op == GF_IO_FSYNC) {
		finish(io, s, 0);
		return;
	}
	if (via_direct)
		f->direct_ok = true;
	if ((unsigned long long)res > left)
		res = (long long)left;
	s->moved += (size_t)res;
	if (res > 0)
		s->retries = 0, s->retry_spent = 0;	/* progress: a new budget */
	if (res == 0 && left) {
		if (req->op == GF_IO_READ) {
			req->eof = true;
			finish(io, s, (ssize_t)s->moved);
		} else {
			/* A write that moves nothing would spin forever. */
			finish(io, s, -EIO);
		}
		return;
	}
	if (s->moved < req->len) {
		if (s->cancel || gf_io__interrupted(io))
			finish(io, s, -ECANCELED);
		else
			retry_later(io, s, 0);	/* short transfer: the rest */
		return;
	}
	finish(io, s, (ssize_t)s->moved);
}

/* Reissues what came back short or interrupted and is due; what is not
 * due yet stays on the list (io->retry_due says when).  After an
 * interrupt, nothing goes again: every retry completes with -ECANCELED.
 * Returns 0 or -errno. */
static int drain_retries(struct gf_io *io)
{
	struct gf_io_slot *list = io->retry_head;
	bool any = false, stop = gf_io__interrupted(io);
	uint64_t now = 0;

	if (!list)
		return 0;
	io->retry_head = io->retry_tail = NULL;
	io->retry_due = 0;
	while (list) {
		struct gf_io_slot *s = list;
		int rc;

		list = s->next;
		io->nretry--;
		if (s->cancel || stop) {
			finish(io, s, -ECANCELED);
			continue;
		}
		if (s->retry_at) {
			if (!now)
				now = gf_io__now_ns();
			if (s->retry_at > now) {
				retry_later(io, s, s->retry_at);
				continue;
			}
		}
		rc = issue(io, s);
		if (rc < 0)
			finish(io, s, rc);
		else
			any = true;
	}
	return any ? io->ops->flush(io) : 0;
}

bool gf_io__interrupted(const struct gf_io *io)
{
	return atomic_load_explicit(&io->interrupted, memory_order_relaxed) || (io->opts.cancel && *io->opts.cancel);
}

void gf_io_interrupt(struct gf_io *io)
{
	/* Only a lock-free atomic store: safe in a signal handler and from
	 * any thread. */
	if (io)
		atomic_store_explicit(&io->interrupted, 1, memory_order_relaxed);
}

void gf_io_interrupt_clear(struct gf_io *io)
{
	if (!io)
		return;
	atomic_store_explicit(&io->interrupted, 0, memory_order_relaxed);
	io->stopped = false;
}

/* The first time a wait sees an interrupt: ask every request in flight to
 * stop, so the ones still queued for a worker come back at once. */
static void stop_all(struct gf_io *io)
{
	if (io->stopped)
		return;
	io->stopped = true;
	for (unsigned i = 0; i < io->opts.queue_depth; i++)
		if (io->slots[i].req && !io->slots[i].cancel)
			gf_io_cancel(io, io->slots[i].req);
}

/* Whether req is one of io's requests in flight.  req->slot is only
 * compared as an address until it is known to be one of io's slots: a
 * request the caller did not zero may hold anything there. */
static bool in_flight(const struct gf_io *io, const struct gf_io_req *req)
{
	uintptr_t p = (uintptr_t)req->slot, lo = (uintptr_t)io->slots;

	if (p < lo || p >= lo + io->opts.queue_depth * sizeof(*io->slots) || (p - lo) % sizeof(*io->slots))
		return false;
	return req->slot->req == req;
}

/* reqs[i] of a gf_io_submit, which the messages name. */
static int validate(struct gf_io *io, const struct gf_io_req *req, unsigned i)
{
	if (!req)
		return gf_arg_error("gf_io_submit", "reqs[%u] is NULL", i);
	if (!req->file)
		return gf_arg_error("gf_io_submit", "reqs[%u]->file is NULL", i);
	if (req->file->io != io)
		return gf_arg_error("gf_io_submit", "reqs[%u]->file is a file of another engine", i);
	if (req->op != GF_IO_READ && req->op != GF_IO_WRITE && req->op != GF_IO_FSYNC)
		return gf_arg_error("gf_io_submit", "reqs[%u]->op %d is not a gf_io_op", i, (int)req->op);
	if (req->op != GF_IO_FSYNC && req->len && !req->buf)
		return gf_arg_error("gf_io_submit", "reqs[%u]->buf is NULL (%zu bytes)", i, req->len);
	/* Here, not in the back ends, so both refuse it alike: off_t is
	 * signed, pread takes an offset past 2^63-1 as negative (EINVAL)
	 * while io_uring takes -1 as "the file position". */
	if (req->op != GF_IO_FSYNC &&
	    (req->off > (uint64_t)INT64_MAX || req->len > (uint64_t)INT64_MAX - req->off))
		return gf_error(-EINVAL, "%s: %s of %zu bytes at offset %llu runs past the largest file offset "
				"(2^63-1)", req->file->path, req->op == GF_IO_READ ? "read" : "write", req->len,
				(unsigned long long)req->off);
	if (req->op != GF_IO_FSYNC && req->len > (size_t)SSIZE_MAX)
		return gf_error(-EINVAL, "I/O request of %zu bytes is too large", req->len);
	if (req->op != GF_IO_READ && !(req->file->flags & GF_FILE_WRITE))
		return gf_error(-EBADF, "%s: opened read-only", req->file->path);
	if (in_flight(io, req))
		return gf_error(-EBUSY, "I/O request submitted twice");
	return 0;
}

static void sleep_ns(long long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ll, .tv_nsec = ns % 1000000000ll };

	nanosleep(&ts, NULL);	/* a signal ends it early: fine, the caller loops */
}

int gf_io_submit(struct gf_io *io, struct gf_io_req **reqs, unsigned n)
{
	unsigned accepted = 0;
	int rc = 0;

	if (!io)
		return GF_NULL_ARG("io");
	if (!reqs && n)
		return GF_NULL_ARG("reqs");
	if (gf_io__interrupted(io))
		return gf_error(-ECANCELED, "submit: the engine was interrupted");
	for (; accepted < n; accepted++) {
		struct gf_io_req *req = reqs[accepted];
		struct gf_io_slot *s;

		rc = validate(io, req, accepted);
		if (rc)
			break;
		while (!io->nfree && (io->opts.flags & GF_IO_BLOCK_WHEN_FULL)) {
			rc = io->ops->flush(io);
			if (!rc)
				rc = gf_io__wait(io, 1, -1, true);
			if (rc == -EINTR) {
				rc = gf_error(-ECANCELED, "submit: the engine was interrupted");
				break;
			}
			if (rc < 0 && rc != -ETIME)
				break;
			rc = 0;
		}
		if (rc)
			break;
		if (!io->nfree) {
			rc = -EBUSY;
			break;
		}
		s = &io->slots[io->free_slot[--io->nfree]];
		s->req = req;
		s->op = req->op;
		s->moved = 0;
		s->retries = 0;
		s->retry_spent = 0;
		s->retry_at = 0;
		s->cancel = false;
		req->slot = s;
		io->inflight++;
		req->file->inflight++;
		req->done = false;
		req->eof = false;
		req->res = 0;
		req->submit_ns = gf_io__now_ns();
		rc = issue(io, s);
		if (rc) {
			release(io, s);
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
	unsigned start;
	int rc;

	if (!io)
		return GF_NULL_ARG("io");
	start = io->completed;
	rc = drain_retries(io);
	if (!rc)
		rc = io->ops->reap(io, 0, 0);
	if (rc >= 0 || rc == -ETIME || rc == -EINTR)
		rc = drain_retries(io);
	if (rc < 0 && rc != -ETIME && io->completed == start)
		return rc;
	return (int)(io->completed - start);
}

int gf_io__wait(struct gf_io *io, unsigned min_complete, int timeout_ms, bool stoppable)
{
	unsigned start = io->completed;
	uint64_t deadline = timeout_ms >= 0 ? gf_io__now_ns() + (uint64_t)timeout_ms * 1000000ull : UINT64_MAX;

	for (;;) {
		long long wait = WAIT_SLICE_NS;
		uint64_t now;
		bool last;
		int rc = drain_retries(io);

		if (rc < 0)
			return rc;
		if (io->completed - start >= min_complete || !io->inflight)
			break;
		if (stoppable && gf_io__interrupted(io)) {
			/* Take what is ready, cancel the rest, and go (with
			 * the count when that was enough). */
			stop_all(io);
			io->ops->reap(io, 0, 0);
			drain_retries(io);
			if (io->completed - start >= min_complete || !io->inflight)
				break;
			return gf_error(-EINTR, "I/O wait interrupted (%u requests still in flight)", io->inflight);
		}
		now = gf_io__now_ns();
		/* Past the deadline (or a zero timeout): still take what is
		 * ready, without blocking, once. */
		last = now >= deadline;
		if (last)
			wait = 0;
		else if (deadline - now < (uint64_t)wait)
			wait = (long long)(deadline - now);
		if (io->retry_head)
			wait = io->retry_due <= now ? 0 : (long long)(io->retry_due - now) < wait ?
				(long long)(io->retry_due - now) : wait;
		if (io->inflight == io->nretry) {
			/* Nothing with the back end, only retries waiting
			 * for their time. */
			if (wait > 0)
				sleep_ns(wait);
		} else {
			rc = io->ops->reap(io, wait > 0, wait);
			if (rc < 0 && rc != -ETIME && rc != -EINTR)
				return rc;
		}
		if (last) {
			drain_retries(io);
			break;
		}
	}
	if (io->completed - start < min_complete && io->inflight)
		return io->completed != start ? (int)(io->completed - start) : -ETIME;
	return (int)(io->completed - start);
}

int gf_io_wait(struct gf_io *io, unsigned min_complete, int timeout_ms)
{
	if (!io)
		return GF_NULL_ARG("io");
	return gf_io__wait(io, min_complete, timeout_ms, true);
}

int gf_io__submit_one(struct gf_io *io, struct gf_io_req *req)
{
	for (;;) {
		int rc = gf_io_submit(io, &req, 1);

		if (rc == 1)
			return 0;
		if (rc != -EBUSY)
			return rc;
		rc = gf_io__wait(io, 1, -1, false);
		if (rc < 0 && rc != -ETIME)
			return rc;
	}
}

int gf_io__wait_req(struct gf_io *io, struct gf_io_req *req)
{
	while (!req->done) {
		int rc = gf_io__wait(io, 1, -1, false);
		if (rc < 0 && rc != -ETIME)
			return rc;
	}
	return 0;
}

int gf_io_cancel(struct gf_io *io, struct gf_io_req *req)
{
	if (!io || !req)
		return GF_NULL_ARG(!io ? "io" : "req");
	if (!in_flight(io, req))
		return gf_error(-ENOENT, "cancel: request not in flight");
	req->slot->cancel = true;
	if ((req->slot->state == GF_REQ_ISSUED || req->slot->state == GF_REQ_ISSUED_DIRECT) && io->ops->cancel)
		return io->ops->cancel(io, req->slot);
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
			if (io->slots[i].req)
				gf_io_cancel(io, io->slots[i].req);
	}
	while (io->inflight) {
		rc = gf_io__wait(io, io->inflight, -1, false);
		if (rc < 0 && rc != -ETIME) {
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
	pthread_mutex_destroy(&io->async_lock);
	free(io->slots);
	free(io->free_slot);
	free(io->bufs);
	free(io);
	return rc;
}
