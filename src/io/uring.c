/* io_uring back end (liburing): registered files and buffers, batched
 * submission, optional SQPOLL. */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/engine.h"

#define REAP_BATCH 64

/* user_data of cancel requests: their completions are not requests'
 * (whose user_data is their struct gf_io_slot). */
static char cancel_tag;

struct uring_be {
	struct io_uring ring;
	bool files_ok, bufs_ok;
	unsigned char *file_used;	/* max_files */
	unsigned char *buf_used;	/* max_bufs */
	unsigned staged;
};

static unsigned pow2_at_least(unsigned v)
{
	unsigned p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* Ring parameters; coop: completions as cooperative task work (5.19+). */
static void ring_params(const struct gf_io *io, struct io_uring_params *p, unsigned entries, bool coop)
{
	memset(p, 0, sizeof(*p));
	/* The kernel takes at most 32768 submission entries (EINVAL above):
	 * clamp, since a full submission queue is flushed as it fills
	 * (get_sqe), and keep a completion entry for every request in
	 * flight plus their cancels. */
	p->flags = IORING_SETUP_CLAMP | IORING_SETUP_CQSIZE;
	p->cq_entries = 2 * entries;
	if (io->opts.flags & GF_IO_SQPOLL) {
		p->flags |= IORING_SETUP_SQPOLL;
		p->sq_thread_idle = io->opts.sqpoll_idle_ms;
		if ((io->opts.flags & GF_IO_SQPOLL_CPU) && io->opts.sqpoll_cpu >= 0) {
			p->flags |= IORING_SETUP_SQ_AFF;
			p->sq_thread_cpu = (unsigned)io->opts.sqpoll_cpu;
		}
	} else if (coop) {
		/* Completions run as task work when we enter the kernel
		 * anyway: fewer interrupts of the submitting thread.
		 * TASKRUN_FLAG tells us when such work waits, so a
		 * gf_io_poll() that finds no completion enters the kernel to
		 * run it instead of waiting for the next timer tick. */
		p->flags |= IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
	}
}

static int uring_init(struct gf_io *io)
{
	struct uring_be *be = calloc(1, sizeof(*be));
	struct io_uring_params p;
	unsigned entries = pow2_at_least(io->opts.queue_depth < 8 ? 8 : io->opts.queue_depth);
	int rc;

	if (!be)
		return gf_error(-ENOMEM, "io_uring: out of memory");
	ring_params(io, &p, entries, true);
	rc = io_uring_queue_init_params(entries, &be->ring, &p);
	if (rc == -EINVAL && (p.flags & IORING_SETUP_COOP_TASKRUN)) {
		ring_params(io, &p, entries, false);	/* before 5.19 */
		rc = io_uring_queue_init_params(entries, &be->ring, &p);
	}
	if (rc < 0) {
		free(be);
		return gf_error(rc, "io_uring_setup: %s", strerror(-rc));
	}
	if (!(io->opts.flags & GF_IO_NO_REGISTER)) {
		be->file_used = calloc(io->opts.max_files, 1);
		be->buf_used = calloc(io->opts.max_bufs, 1);
		if (!be->file_used || !be->buf_used) {
			io_uring_queue_exit(&be->ring);
			free(be->file_used);
			free(be->buf_used);
			free(be);
			return gf_error(-ENOMEM, "io_uring: out of memory");
		}
		/* Sparse tables (5.19+): slots are filled as files open. */
		be->files_ok = io_uring_register_files_sparse(&be->ring, io->opts.max_files) == 0;
		be->bufs_ok = io_uring_register_buffers_sparse(&be->ring, io->opts.max_bufs) == 0;
	}
	io->be = be;
	return 0;
}

static void uring_fini(struct gf_io *io)
{
	struct uring_be *be = io->be;

	io_uring_queue_exit(&be->ring);
	free(be->file_used);
	free(be->buf_used);
	free(be);
	io->be = NULL;
}

static struct io_uring_sqe *get_sqe(struct uring_be *be)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&be->ring);

	if (!sqe) {
		/* Only when cancels filled the ring: push what is staged. */
		int rc = io_uring_submit(&be->ring);
		if (rc > 0)
			be->staged -= (unsigned)rc < be->staged ? (unsigned)rc : be->staged;
		sqe = io_uring_get_sqe(&be->ring);
	}
	return sqe;
}

static int uring_issue(struct gf_io *io, struct gf_io_slot *s, const struct gf_issue *is)
{
	struct uring_be *be = io->be;
	struct io_uring_sqe *sqe = get_sqe(be);
	int fd = is->file_index >= 0 ? is->file_index : is->fd;
	unsigned len = is->len > 0x7ffff000u ? 0x7ffff000u : (unsigned)is->len;

	if (!sqe)
		return gf_error(-EBUSY, "io_uring: submission queue full");
	switch (s->op) {
	case GF_IO_READ:
		if (is->buf_index >= 0)
			io_uring_prep_read_fixed(sqe, fd, is->ptr, len, is->off, is->buf_index);
		else
			io_uring_prep_read(sqe, fd, is->ptr, len, is->off);
		break;
	case GF_IO_WRITE:
		if (is->buf_index >= 0)
			io_uring_prep_write_fixed(sqe, fd, is->ptr, len, is->off, is->buf_index);
		else
			io_uring_prep_write(sqe, fd, is->ptr, len, is->off);
		break;
	case GF_IO_FSYNC:
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
		break;
	}
	if (is->file_index >= 0)
		io_uring_sqe_set_flags(sqe, IOSQE_FIXED_FILE);
	io_uring_sqe_set_data(sqe, s);
	be->staged++;
	return 0;
}

static int uring_flush(struct gf_io *io)
{
	struct uring_be *be = io->be;
	int rc;

	if (!be->staged && !io_uring_sq_ready(&be->ring))
		return 0;
	do {
		rc = io_uring_submit(&be->ring);
	} while (rc == -EINTR);
	if (rc < 0)
		return gf_error(rc, "io_uring_enter: %s", strerror(-rc));
	be->staged = 0;
	return 0;
}

static int uring_reap(struct gf_io *io, unsigned min, long long timeout_ns)
{
	struct uring_be *be = io->be;
	struct io_uring_cqe *cqes[REAP_BATCH], *cqe;
	int total = 0, rc;

	if (min) {
		if (timeout_ns < 0) {
			rc = io_uring_wait_cqe(&be->ring, &cqe);
		} else {
			struct __kernel_timespec ts = {
				.tv_sec = timeout_ns / 1000000000ll,
				.tv_nsec = timeout_ns % 1000000000ll,
			};
			rc = io_uring_wait_cqe_timeout(&be->ring, &cqe, &ts);
		}
		if (rc == -ETIME || rc == -EINTR)
			return rc;
		if (rc < 0)
			return gf_error(rc, "io_uring wait: %s", strerror(-rc));
	}
	/* At most a queue's worth per call: callbacks that submit again can
	 * complete inline (cached reads), and the caller must get control
	 * back to see its deadline. */
	while ((unsigned)total < io->opts.queue_depth) {
		struct { void *data; int res; } got[REAP_BATCH];
		unsigned n = io_uring_peek_batch_cqe(&be->ring, cqes, REAP_BATCH);

		if (!n)
			break;
		/* Copy out and advance first: callbacks may submit. */
		for (unsigned i = 0; i < n; i++) {
			got[i].data = io_uring_cqe_get_data(cqes[i]);
			got[i].res = cqes[i]->res;
		}
		io_uring_cq_advance(&be->ring, n);
		for (unsigned i = 0; i < n; i++) {
			/* Not requests: our cancels, and the timeouts liburing
			 * queues itself on kernels without EXT_ARG (< 5.11). */
			if (got[i].data == &cancel_tag ||
			    (uintptr_t)got[i].data == (uintptr_t)LIBURING_UDATA_TIMEOUT)
				continue;
			gf_io__raw_done(io, got[i].data, got[i].res);
			total++;
		}
	}
	return total;
}

static int uring_cancel(struct gf_io *io, struct gf_io_slot *s)
{
	struct uring_be *be = io->be;
	struct io_uring_sqe *sqe = get_sqe(be);

	if (!sqe)
		return gf_error(-EBUSY, "io_uring: submission queue full");
	io_uring_prep_cancel(sqe, s, 0);
	io_uring_sqe_set_data(sqe, &cancel_tag);
	be->staged++;
	return uring_flush(io);
}

static int uring_file_register(struct gf_io *io, int fd)
{
	struct uring_be *be = io->be;

	if (!be->files_ok)
		return -ENOTSUP;
	for (unsigned i = 0; i < io->opts.max_files; i++) {
		if (be->file_used[i])
			continue;
		if (io_uring_register_files_update(&be->ring, i, &fd, 1) != 1)
			return -EIO;
		be->file_used[i] = 1;
		return (int)i;
	}
	return -ENOSPC;
}

static void uring_file_unregister(struct gf_io *io, int slot)
{
	struct uring_be *be = io->be;
	int none = -1;

	if (slot < 0 || !be->files_ok)
		return;
	io_uring_register_files_update(&be->ring, (unsigned)slot, &none, 1);
	be->file_used[slot] = 0;
}

static int uring_buf_register(struct gf_io *io, struct gf_buf *b)
{
	struct uring_be *be = io->be;
	struct iovec iov = { .iov_base = b->data, .iov_len = b->size };

	if (!be->bufs_ok)
		return gf_error(-ENOTSUP, "io_uring: this kernel has no sparse buffer table");
	for (unsigned i = 0; i < io->opts.max_bufs; i++) {
		int rc;

		if (be->buf_used[i])
			continue;
		rc = io_uring_register_buffers_update_tag(&be->ring, i, &iov, NULL, 1);
		if (rc != 1) {
			rc = rc < 0 ? rc : -EIO;
			return gf_error(rc, "io_uring: registering a %zu-byte buffer: %s%s", b->size,
					strerror(-rc), rc == -ENOMEM ? " (RLIMIT_MEMLOCK too low?)" : "");
		}
		be->buf_used[i] = 1;
		return (int)i;
	}
	return gf_error(-ENOSPC, "io_uring: all buffer slots in use");
}

static void uring_buf_unregister(struct gf_io *io, int slot)
{
	struct uring_be *be = io->be;
	struct iovec none = { 0 };

	if (slot < 0 || !be->bufs_ok)
		return;
	io_uring_register_buffers_update_tag(&be->ring, (unsigned)slot, &none, NULL, 1);
	be->buf_used[slot] = 0;
}

const struct gf_io_backend_ops gf_io_uring_ops = {
	.name = "uring",
	.init = uring_init,
	.fini = uring_fini,
	.issue = uring_issue,
	.flush = uring_flush,
	.reap = uring_reap,
	.cancel = uring_cancel,
	.file_register = uring_file_register,
	.file_unregister = uring_file_unregister,
	.buf_register = uring_buf_register,
	.buf_unregister = uring_buf_unregister,
};
