/* The I/O engine: reads and writes of files and ranges, synchronous or
 * asynchronous, on io_uring or on a pread/pwrite thread pool.
 *
 *   struct gf_io *io;
 *   gf_io_open(NULL, &io);                       // io_uring, or the pool
 *   gf_file_open(io, "shard.bin", GF_FILE_DIRECT, 0, &f);
 *   gf_io_read(io, f, buf->data, 1 << 20, 0);    // one read, waits
 *   ...
 *   gf_io_close(io, GF_IO_DRAIN);
 *
 * An engine belongs to one thread at a time (like an io_uring ring): calls
 * on one engine must not race.  Completion callbacks run in the thread that
 * calls gf_io_poll(), gf_io_wait() or gf_io_close(), never elsewhere.
 *
 * A request completes once, as a whole: the engine resubmits the rest of a
 * short transfer and retries EINTR/EAGAIN itself, with a backoff that
 * starts at 2 us and gives up (the request fails with -EAGAIN or -EINTR)
 * after 64 tries or 100 ms without progress.  A read stops early only at
 * end of file (res < len, eof set).  Errors are -errno in res.
 *
 * Full queue: at queue_depth requests in flight, gf_io_submit() reaps
 * completions (running their callbacks) until there is room when
 * GF_IO_BLOCK_WHEN_FULL is set; otherwise it returns what it accepted, or
 * -EBUSY when it accepted none.
 *
 * O_DIRECT: a file opened with GF_FILE_DIRECT uses O_DIRECT where the
 * filesystem takes it (ramfs does not; tmpfs does since Linux 6.6) and falls
 * back to the page cache (gf_file_info()->direct_refused, and a warning on
 * the diagnostics channel, gpufeed/log.h), not an error.  Requests whose buffer,
 * offset or length are not aligned to what the file needs (statx
 * STATX_DIOALIGN, else the device's logical block size) go through a second,
 * buffered descriptor of the same file, so any request is valid; only the
 * aligned ones bypass the cache.  A length that runs past end of file is
 * fine when it is aligned: the tail of a file is read with one aligned
 * request that stops at EOF. */
#ifndef GPUFEED_IO_H
#define GPUFEED_IO_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <gpufeed/common.h>
#include <gpufeed/buf.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gf_io_backend {
	GF_IO_AUTO = 0,		/* io_uring where the kernel allows it, else psync */
	GF_IO_URING,		/* io_uring or fail (-ENOSYS, -EPERM) */
	GF_IO_PSYNC,		/* pread/pwrite on a thread pool */
};
/* "auto", "uring", "psync"; "?" out of range. */
GF_API const char *gf_io_backend_name(enum gf_io_backend b);

#define GF_IO_BLOCK_WHEN_FULL	0x1u	/* submit waits for room, never -EBUSY */
#define GF_IO_SQPOLL		0x2u	/* io_uring: kernel thread submits (burns a core) */
#define GF_IO_NO_REGISTER	0x4u	/* io_uring: plain fds and buffers */
#define GF_IO_SQPOLL_CPU	0x8u	/* pin the SQPOLL thread to sqpoll_cpu */
#define GF_IO_WORKER_NODE	0x10u	/* run psync workers on cpu_node's CPUs */

/* Versioned (include/gpufeed/common.h): start from GF_IO_OPTS_INIT. */
struct gf_io_opts {
	size_t struct_size;	/* sizeof(struct gf_io_opts), set by GF_IO_OPTS_INIT */
	enum gf_io_backend backend;
	unsigned queue_depth;	/* most requests in flight; 0 = 64 */
	unsigned threads;	/* psync workers; 0 = min(queue_depth, 16) */
	unsigned flags;		/* GF_IO_* */
	int sqpoll_cpu;		/* with GF_IO_SQPOLL_CPU; else the kernel chooses */
	unsigned sqpoll_idle_ms;/* 0 = 100 */
	int cpu_node;		/* with GF_IO_WORKER_NODE; else workers run anywhere */
	unsigned max_files;	/* registered file slots; 0 = 64 */
	unsigned max_bufs;	/* registered buffer slots; 0 = 64 */
	/* When non-NULL and *cancel becomes non-zero (from a signal handler,
	 * say), the engine acts as if gf_io_interrupt() had been called. */
	volatile sig_atomic_t *cancel;
};
#define GF_IO_OPTS_INIT \
	{ .struct_size = sizeof(struct gf_io_opts), .backend = GF_IO_AUTO, .sqpoll_cpu = -1, .cpu_node = -1 }

struct gf_io;
struct gf_file;

/* An engine (opts NULL: the defaults, GF_IO_OPTS_INIT), closed with
 * gf_io_close.  0 with *out set, or -EINVAL (out NULL, options not from
 * GF_IO_OPTS_INIT, a backend or flag bits out of range, queue_depth above
 * 65536), or why the back end could not start (GF_IO_URING: -ENOSYS,
 * -EPERM). */
GF_API int gf_io_open(const struct gf_io_opts *opts, struct gf_io **out);
/* The back end in use: GF_IO_URING or GF_IO_PSYNC (GF_IO_AUTO for NULL). */
GF_API enum gf_io_backend gf_io_backend_of(const struct gf_io *io);
/* Why AUTO chose psync: the -errno of io_uring's setup (-EPERM, -ENOSYS,
 * ...), 0 when io_uring is in use or was not asked for (-EINVAL for io
 * NULL).  The channel (gpufeed/log.h) says it in words, as a warning of
 * subsystem io. */
GF_API int gf_io_fallback_error(const struct gf_io *io);
/* The first error the engine met that no call returned, on whichever
 * thread it happened (NCCL's ncclCommGetAsyncError): a psync worker that
 * could not run on the CPUs of GF_IO_WORKER_NODE, say.  0, or -errno with
 * its message in gf_last_error(); it stays until the engine closes.  Each
 * is also a warning on the channel when it happens. */
GF_API int gf_io_async_error(struct gf_io *io);

enum gf_io_close_mode {
	GF_IO_DRAIN = 0,	/* wait for every request in flight */
	GF_IO_CANCEL,		/* cancel what has not finished, then wait */
};
/* Requests still in flight complete (callbacks run here, cancelled ones
 * with -ECANCELED) before the engine goes.  Open files are closed.
 * Returns 0, or the first error a request reported during the close. */
GF_API int gf_io_close(struct gf_io *io, enum gf_io_close_mode mode);

/* Registers the buffer for io_uring fixed reads and writes (on psync, and
 * with GF_IO_NO_REGISTER, it is only recorded).  Requests whose memory lies
 * inside it use it automatically.  -EBUSY when it is registered already
 * (with this engine, or on io_uring with another); -ENOMEM
 * (RLIMIT_MEMLOCK) and -ENOSPC (max_bufs slots) leave it unregistered;
 * the engine still works with it, a bit slower.  Unregister before
 * freeing it (gf_io_close unregisters what is left); unregistering what is
 * not registered here is -ENOENT. */
GF_API int gf_io_register_buf(struct gf_io *io, struct gf_buf *b);
GF_API int gf_io_unregister_buf(struct gf_io *io, struct gf_buf *b);

/* ---- files ---- */
#define GF_FILE_READ		0x00u
#define GF_FILE_WRITE		0x01u	/* read and write */
#define GF_FILE_CREATE		0x02u	/* O_CREAT */
#define GF_FILE_TRUNC		0x04u	/* O_TRUNC */
#define GF_FILE_EXCL		0x08u	/* O_EXCL */
#define GF_FILE_DIRECT		0x10u	/* O_DIRECT where possible, page cache otherwise */
#define GF_FILE_DIRECT_REQUIRED	0x20u	/* O_DIRECT or -EINVAL */

struct gf_file_info {
	uint64_t size;		/* at open (files) or device size (block devices) */
	bool block_device;
	bool direct;		/* O_DIRECT is in use */
	uint32_t mem_align;	/* buffer alignment O_DIRECT needs, 1 when buffered */
	uint32_t offset_align;	/* offset and length alignment, 1 when buffered */
	/* GF_FILE_DIRECT was asked and the file system refused O_DIRECT,
	 * at open or at the first O_DIRECT request: the page cache is used
	 * (and a warning of subsystem io says so). */
	bool direct_refused;
	const char *fs_type;	/* "ext4", "xfs", "tmpfs", "ramfs", ..., "unknown" */
};

/* Opens path on the engine (GF_FILE_* flags; mode for GF_FILE_CREATE, 0:
 * 0644), closed with gf_file_close or by gf_io_close.  0 with *out set, or
 * -EINVAL (io, path or out NULL, an empty path, unknown flag bits,
 * GF_FILE_DIRECT_REQUIRED refused, not a regular file or block device),
 * or open(2)'s -errno with the path in the message. */
GF_API int gf_file_open(struct gf_io *io, const char *path, unsigned flags, mode_t mode,
			struct gf_file **out);
/* Wraps a descriptor the caller keeps owning (not closed by gf_file_close):
 * as gf_file_open, -EBADF for a descriptor that is not open. */
GF_API int gf_file_from_fd(struct gf_io *io, int fd, unsigned flags, struct gf_file **out);
/* What the file is (owned by f; NULL with a message for f NULL), and the
 * descriptor requests go to (-EINVAL for f NULL). */
GF_API const struct gf_file_info *gf_file_info(const struct gf_file *f);
GF_API int gf_file_fd(const struct gf_file *f);
/* -EBUSY while requests on it are in flight; NULL: nothing to close, 0. */
GF_API int gf_file_close(struct gf_file *f);

/* ---- asynchronous requests ---- */
enum gf_io_op { GF_IO_READ = 0, GF_IO_WRITE, GF_IO_FSYNC /* fdatasync */ };

struct gf_io_req;
typedef void (*gf_io_cb)(struct gf_io_req *req);

/* The engine's bookkeeping of a request in flight (src/io/engine.h). */
struct gf_io_slot;

/* The caller owns the request and keeps it alive until it completes.
 * Zero it (or set every field) before its first submit; a completed
 * request may be submitted again as it is. */
struct gf_io_req {
	enum gf_io_op op;
	struct gf_file *file;
	void *buf;
	size_t len;
	uint64_t off;
	gf_io_cb cb;		/* NULL: check done/res after poll or wait */
	void *user;
	/* results */
	ssize_t res;		/* bytes moved, or -errno */
	bool eof;		/* a read met end of file before len */
	bool done;
	uint64_t submit_ns;	/* CLOCK_MONOTONIC at submit, for latency */
	/* The engine's while in flight, NULL otherwise; opaque. */
	struct gf_io_slot *slot;
};

/* Submits n requests in one batch (one system call on io_uring).
 * Returns how many were accepted (all of them with GF_IO_BLOCK_WHEN_FULL),
 * -EBUSY when the queue was full and none was, or -errno (-EINVAL for a bad
 * request, with a message). */
GF_API int gf_io_submit(struct gf_io *io, struct gf_io_req **reqs, unsigned n);
/* Completes what is ready without blocking; returns how many completed. */
GF_API int gf_io_poll(struct gf_io *io);
/* Blocks until at least min_complete requests complete (or none is left in
 * flight), timeout_ms < 0 waits forever, 0 takes what is ready without
 * blocking; returns how many completed or -ETIME when the timeout came
 * first and none did. */
GF_API int gf_io_wait(struct gf_io *io, unsigned min_complete, int timeout_ms);
/* Asks for a request to stop.  It still completes once: with -ECANCELED if
 * it had not started (or came back short and the rest was not issued),
 * else with its real result.  -ENOENT when not in flight. */
GF_API int gf_io_cancel(struct gf_io *io, struct gf_io_req *req);
GF_API unsigned gf_io_inflight(const struct gf_io *io);

/* Asks the engine to stop, from a signal handler or another thread (it is
 * one atomic store: async-signal-safe).  Until gf_io_interrupt_clear():
 *   - requests waiting for a retry (EINTR/EAGAIN backoff, the rest of a
 *     short transfer) complete with -ECANCELED instead of going again;
 *   - gf_io_wait() takes what is ready, asks every request in flight to
 *     stop (gf_io_cancel) and returns -EINTR, within about 20 ms;
 *   - gf_io_submit() refuses new requests with -ECANCELED, so the
 *     synchronous helpers and checkpoints end with -ECANCELED.
 * Requests already with the kernel or a worker still complete once (their
 * buffers stay in use until then): end with gf_io_close(io, GF_IO_CANCEL).
 * gf_io_opts.cancel does the same from a flag the caller owns. */
GF_API void gf_io_interrupt(struct gf_io *io);
GF_API void gf_io_interrupt_clear(struct gf_io *io);

/* ---- synchronous helpers (submit and wait on the caller's engine) ---- */
/* Bytes read (less than len only at EOF) or -errno. */
GF_API ssize_t gf_io_read(struct gf_io *io, struct gf_file *f, void *buf, size_t len, uint64_t off);
GF_API ssize_t gf_io_write(struct gf_io *io, struct gf_file *f, const void *buf, size_t len, uint64_t off);

struct gf_io_range {
	uint64_t off;
	size_t len;
	void *buf;
	ssize_t res;		/* out: bytes or -errno */
};
/* Reads every range, keeping the queue full; returns 0 when all succeeded
 * (short only at EOF), else the first error (every range has its res). */
GF_API int gf_io_read_ranges(struct gf_io *io, struct gf_file *f, struct gf_io_range *r, unsigned n);

/* Reads a whole file into a new buffer (placed on numa_node, -1 any) in
 * chunk-sized requests (0 = 1 MiB), O_DIRECT when flags ask for it.
 * *len gets the file size; free the buffer with gf_buf_free(). */
GF_API int gf_io_read_file(struct gf_io *io, const char *path, unsigned flags, int numa_node,
			   size_t chunk, struct gf_buf **out, size_t *len);

/* ---- checkpoints: a crash never leaves a half-written file under the
 * final name.  Data goes to "PATH.tmp-XXXXXX" in the same directory,
 * then fdatasync, posix_fadvise(DONTNEED), rename, fsync of the directory. */
/* Versioned (include/gpufeed/common.h): start from GF_CKPT_OPTS_INIT. */
struct gf_ckpt_opts {
	size_t struct_size;	/* sizeof(struct gf_ckpt_opts), set by GF_CKPT_OPTS_INIT */
	bool direct;		/* O_DIRECT (falls back like GF_FILE_DIRECT) */
	uint64_t dirty_limit;	/* buffered: write back every this many bytes
				 * (sync_file_range) and drop them; 0 = 64 MiB */
	size_t chunk;		/* request size; 0 = 1 MiB */
	mode_t mode;		/* 0 = 0644 */
	bool keep_cache;	/* skip the DONTNEED at the end */
};
#define GF_CKPT_OPTS_INIT { .struct_size = sizeof(struct gf_ckpt_opts) }
struct gf_ckpt;
/* opts NULL: the defaults (GF_CKPT_OPTS_INIT). */
GF_API int gf_ckpt_open(struct gf_io *io, const char *path, const struct gf_ckpt_opts *opts,
			struct gf_ckpt **out);
/* Appends; the data is copied into aligned staging, so any buffer will do. */
GF_API int gf_ckpt_write(struct gf_ckpt *c, const void *data, size_t len);
/* Flushes, syncs and renames into place; frees c whatever happens (on
 * failure the temp file is removed and the old file, if any, kept). */
GF_API int gf_ckpt_commit(struct gf_ckpt *c);
/* Removes the temp file; the final name is untouched. */
GF_API void gf_ckpt_abort(struct gf_ckpt *c);
GF_API int gf_io_write_file_atomic(struct gf_io *io, const char *path, const void *data, size_t len,
				   const struct gf_ckpt_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
