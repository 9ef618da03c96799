/* The engine's insides, shared by the common layer (engine.c) and the two
 * back ends (uring.c, psync.c).
 *
 * The common layer owns request bookkeeping: slots, alignment routing,
 * short transfers, retries, cancellation and callbacks.  A back end only
 * issues one system call's worth of a request ("an issue") and reports its
 * raw result through gf_io__raw_done(). */
#ifndef GF_IO_ENGINE_H
#define GF_IO_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <gpufeed/io.h>
#include "core/error.h"

/* gf_io_slot.state */
enum {
	GF_REQ_IDLE = 0,
	GF_REQ_ISSUED,		/* with the back end */
	GF_REQ_RETRY,		/* waiting on the retry list */
	GF_REQ_DONE,
	GF_REQ_ISSUED_DIRECT,	/* with the back end, through the O_DIRECT descriptor */
};

/* A request in flight: the engine's side of it, one per queue slot, so the
 * public struct gf_io_req carries only what the caller uses.  Back ends
 * see slots, never requests (uring's user_data is the slot). */
struct gf_io_slot {
	struct gf_io_req *req;		/* NULL when the slot is free */
	unsigned idx;			/* index in io->slots */
	int op;				/* req->op, for the back end */
	int state;
	bool cancel;
	size_t moved;			/* bytes done so far */
	unsigned retries;		/* EINTR/EAGAIN since the last progress */
	uint64_t retry_spent;		/* backoff ns since the last progress */
	uint64_t retry_at;		/* CLOCK_MONOTONIC ns before which no retry */
	struct gf_io_slot *next;	/* retry list, or a back end's lists */
};

/* What one issue of a request moves: the part not yet moved. */
struct gf_issue {
	int fd;			/* descriptor to use */
	int file_index;		/* registered slot of fd, -1 none */
	int buf_index;		/* registered buffer slot, -1 none */
	void *ptr;
	size_t len;
	uint64_t off;
};

struct gf_io_backend_ops {
	const char *name;
	int (*init)(struct gf_io *io);
	void (*fini)(struct gf_io *io);
	/* Stage one issue (not yet visible to the kernel or workers). */
	int (*issue)(struct gf_io *io, struct gf_io_slot *s, const struct gf_issue *is);
	/* Make staged issues run. */
	int (*flush)(struct gf_io *io);
	/* Wait for at least min raw completions (0: none), timeout_ns < 0
	 * forever; report each with gf_io__raw_done().  Returns how many were
	 * reported or -ETIME / -EINTR (a signal) / -errno. */
	int (*reap)(struct gf_io *io, unsigned min, long long timeout_ns);
	/* Best effort: the request still completes through reap. */
	int (*cancel)(struct gf_io *io, struct gf_io_slot *s);
	/* Registration hooks; NULL where the back end has none. */
	int (*file_register)(struct gf_io *io, int fd);	/* slot or -errno */
	void (*file_unregister)(struct gf_io *io, int slot);
	int (*buf_register)(struct gf_io *io, struct gf_buf *b);	/* slot or -errno */
	void (*buf_unregister)(struct gf_io *io, int slot);
};

extern const struct gf_io_backend_ops gf_io_uring_ops;
extern const struct gf_io_backend_ops gf_io_psync_ops;

struct gf_file {
	struct gf_io *io;
	int fd;			/* O_DIRECT when info.direct */
	int fd_buffered;	/* same file without O_DIRECT, -1 until needed */
	int fd_slot;		/* registered slot of fd, -1 none */
	bool owns_fd;
	bool direct_ok;		/* an O_DIRECT issue has succeeded */
	bool fd_swapped;	/* O_DIRECT dropped: fd is the buffered twin,
				 * fd_buffered the original descriptor */
	unsigned flags;
	char *path;		/* for messages; "fd N" for gf_file_from_fd */
	unsigned inflight;
	struct gf_file_info info;
	struct gf_file *next;
};

struct gf_io {
	const struct gf_io_backend_ops *ops;
	enum gf_io_backend backend;
	struct gf_io_opts opts;
	int fallback_err;		/* AUTO: why io_uring was not used, -errno */
	pthread_mutex_t async_lock;	/* async_err and async_msg, set from any thread */
	int async_err;
	char async_msg[256];
	struct gf_io_slot *slots;	/* queue_depth entries */
	unsigned *free_slot;		/* stack of free slot numbers */
	unsigned nfree;
	unsigned inflight;		/* accepted, not yet completed */
	struct gf_io_slot *retry_head, *retry_tail;
	unsigned nretry;		/* requests on the retry list */
	uint64_t retry_due;		/* earliest retry_at on the list */
	atomic_int interrupted;		/* gf_io_interrupt(): async-signal-safe store */
	bool stopped;			/* the interrupt was acted on (cancels sent) */
	unsigned completed;		/* counter for poll/wait */
	struct gf_file *files;
	struct gf_buf **bufs;		/* registered with the back end */
	unsigned nbufs;
	int close_err;
	void *be;			/* back end private */
};

/* Back ends call this for each raw result of an issue. */
void gf_io__raw_done(struct gf_io *io, struct gf_io_slot *s, long long res);

uint64_t gf_io__now_ns(void);

/* An error no call returns, met on any thread (a psync worker that cannot
 * run where it was asked to): kept for gf_io_async_error() if it is the
 * first, and said on the diagnostics channel.  Returns err. */
int gf_io__async_error(struct gf_io *io, int err, const char *fmt, ...) GF_PRINTF(3, 4);

/* Whether gf_io_interrupt() or the caller's cancel flag asked to stop. */
bool gf_io__interrupted(const struct gf_io *io);

/* gf_io_wait; with stoppable false an interrupt does not end the wait
 * (retries are still cancelled), for callers that must see their requests
 * complete before their buffers go. */
int gf_io__wait(struct gf_io *io, unsigned min_complete, int timeout_ms, bool stoppable);

/* For the synchronous helpers and the checkpoint writer: submit one
 * request, waiting for room when the queue is full; wait until one request
 * is done (running other callbacks meanwhile).  0 or -errno of the engine
 * (the request's own result stays in req->res); after an interrupt,
 * submitting fails with -ECANCELED and a request already in flight
 * completes (a retry with -ECANCELED). */
int gf_io__submit_one(struct gf_io *io, struct gf_io_req *req);
int gf_io__wait_req(struct gf_io *io, struct gf_io_req *req);

#endif
