/* The inside of a struct gf_loader (include/gpufeed/loader.h): the slot
 * pool, the I/O threads, the GPU copy and the run's position, shared by
 * the files of src/loader/, each of which does one of those jobs.
 *
 * Locking: l->mu guards the run (epoch, positions, the order, the error)
 * and every slot's state and references; l->cv is signalled whenever one
 * of them changes.  The counters are atomics, read without the lock. */
#ifndef GF_LOADER_INTERNAL_H
#define GF_LOADER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpufeed/buf.h>
#include <gpufeed/cpuset.h>
#include <gpufeed/dataset.h>
#include <gpufeed/loader.h>
#include "loader/order.h"
#include "vendor/cuda/cuda_device.h"

/* Reads through gaps below this between the records a batch needs. */
#define GF_LOADER_GAP_MAX (64u << 10)
/* Windows resident at once: the one serving batches and the next (a
 * batch may span the two), so memory is 2 window buffers whatever the
 * threads, slots and epochs (docs/loader.md, "Memory"). */
#define GF_LOADER_WINDOWS 2
/* A window's reads are at most this long: large enough for a disk's
 * sequential rate (gpufeed bench io reaches it at 1 MiB x 32 in flight),
 * small enough that a window's reads keep many in flight. */
#define GF_LOADER_WINDOW_READ (1u << 20)
/* The most one window buffer may hold (window_blocks x block_bytes). */
#define GF_LOADER_WINDOW_BYTES_MAX (1ull << 30)

/* Fixed-size records at least this large are read each straight into its
 * place in the slot (one copy, no window buffer): a read of 64 KiB is as
 * long as the gaps the planner reads through, so joining such records
 * into longer reads gains little, and a request per 64 KiB costs the
 * kernel a few microseconds against the ~10 us the bytes take to copy
 * (bench/results/2026-11-26-ci-loader-window-reads measures 128 KiB). */
#define GF_LOADER_DIRECT_MIN (64u << 10)

enum gf_window_state {
	GF_WINDOW_EMPTY = 0,
	GF_WINDOW_LOADING,	/* the thread that claimed it reads it */
	GF_WINDOW_READY,
	GF_WINDOW_FAILED,	/* its reads failed (the loader's error says why) */
};

/* One resident window (window.c): this rank's records of one window of
 * the epoch's order, read with large sequential requests; batches gather
 * their samples from it. */
struct gf_loader_window {
	enum gf_window_state state;
	uint64_t gen;		/* the run generation it belongs to */
	uint64_t index;		/* the order's window number */
	uint64_t first, end;	/* its global positions */
	uint64_t rank_first;	/* the rank index of this rank's first position in it */
	unsigned n;		/* this rank's samples in it */
	unsigned pins;		/* batches being filled from it */
	struct gf_buf *buf;	/* l->win_bytes */
	uint64_t *samples;	/* n: rank_first + i's sample */
	struct gf_plan_item *items;	/* l->win_items each */
	unsigned *order;
	struct gf_plan_read *reads;
	unsigned nreads;
	uint64_t *sort;		/* 2 x l->win_items: the plan's radix sort */
};

enum gf_slot_state {
	GF_SLOT_FREE = 0,
	GF_SLOT_FILLING,	/* an I/O thread owns it */
	GF_SLOT_READY,		/* filled, not yet delivered */
	GF_SLOT_HELD,		/* delivered: the consumer's or its tensors' */
};

struct gf_loader;

/* One batch buffer: pinned host memory for the payload (and GPU memory
 * beside it), reused for the whole run.  The public struct gf_batch is
 * its first member, so a batch pointer leads back to its slot. */
struct gf_loader_slot {
	struct gf_batch batch;
	struct gf_loader *l;
	unsigned idx;
	enum gf_slot_state state;
	uint64_t gen;		/* the run generation it was claimed in */
	uint64_t index;		/* the batch's number since the run's start */
	unsigned refs;		/* HELD: the consumer's and one per tensor */
	bool consumer;		/* not yet released by gf_loader_release */
	struct gf_buf *host;	/* the payload (pinned with a GPU) */
	uint64_t *offsets;	/* batch_size + 1 */
	uint64_t *samples;	/* batch_size */
	/* With a GPU (copy.c). */
	struct gf_devbuf *dev;
	gf_cu_event copy_start, copy_done, released;
	bool copy_pending;	/* copy_done recorded, not yet waited */
	bool release_pending;	/* released recorded, not yet waited by the stream */
	/* From gf_batch_wait_stream (NULL: CUDA's default stream), under l->mu:
	 * the release event goes there when the last reference goes. */
	bool has_consumer_stream;
	void *consumer_stream;
};

/* The GPU side (copy.c). */
struct gf_loader_gpu {
	bool on;
	struct gf_cuda_dev dev;
	const struct gf_cuda_ops *cu;
	gf_cu_stream stream;
	/* Keeps a slot's wait, copy and event record together on the one stream. */
	pthread_mutex_t mu;
	bool mu_init;
};

struct gf_loader_worker;

struct gf_loader {
	struct gf_loader_opts o;
	struct gf_dataset *ds;
	struct gf_dataset_info info;
	unsigned nshards;

	/* Blocks: runs of consecutive records of one shard (blocks.c). */
	unsigned nblocks;
	uint64_t *block_first;	/* nblocks + 1 */
	unsigned *block_shard;
	uint64_t block_max_samples;	/* the most records in one block */
	uint64_t block_max_span;	/* the most bytes one block's records' aligned spans sum to */

	/* Window reads (window.c); off (per-batch reads) where a window's
	 * records cannot fit (small unaligned records) or a batch spans more
	 * than two windows or wraps into the pad. */
	bool direct;		/* records read straight into the slot (GF_LOADER_DIRECT_MIN) */
	bool windowed;
	size_t win_bytes;
	unsigned win_items;
	struct gf_loader_window win[GF_LOADER_WINDOWS];

	/* Sizes fixed at open. */
	size_t align;		/* reads' alignment */
	size_t slot_bytes;	/* the payload of the largest batch */
	size_t stage_bytes;	/* a thread's read buffer (plan.h's cap) */
	uint64_t max_sample;	/* the largest record: each sample's room */

	int node;		/* -1: none */
	bool bind;		/* cpus holds the node's CPUs */
	struct gf_cpuset cpus;

	struct gf_loader_gpu gpu;

	unsigned nslots;
	struct gf_loader_slot *slots;
	unsigned nworkers;
	struct gf_loader_worker *workers;

	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* The run, under mu. */
	struct gf_order *order;	/* this epoch's */
	uint64_t epoch;
	uint64_t gen;		/* bumped by set_epoch / load_state: stale fills are dropped */
	uint64_t start;		/* the global position the run started at */
	uint64_t rank_count;	/* this rank's samples from start to the epoch's end */
	uint64_t nbatches;	/* this rank's batches from start */
	uint64_t next_fill;	/* the next batch a thread claims */
	uint64_t delivered;	/* batches handed to the consumer */
	/* The threads read nothing until the caller first asks (next,
	 * set_epoch, load_state): a read started at open would be thrown
	 * away by the set_epoch or load_state that usually follows. */
	bool running;
	bool stop;		/* close: threads leave */
	bool failed;		/* a thread's error waits for gf_loader_next */
	int err;
	char errmsg[1024];

	/* Counters (counters.c). */
	_Atomic uint64_t c_wait_ns, c_next_calls, c_bytes_read, c_samples, c_batches, c_read_ns, c_copy_ns;
	atomic_uint c_ready, c_in_use;

	/* The caller's reference and one per live DLPack tensor: the struct
	 * (its lock, its slots' bookkeeping) goes with the last. */
	atomic_uint refs;
	bool closed;
	struct gf_loader *live_next;	/* slot.c's list of open loaders */
};

/* ---- blocks.c ---- */
/* Cuts the dataset into blocks of about block_bytes, never across a shard. */
int gf_loader_blocks_cut(struct gf_loader *l);

/* ---- window.c ---- */
/* Sizes the window buffers (after blocks_cut); -EINVAL when window_blocks
 * x block_bytes is more than GF_LOADER_WINDOW_BYTES_MAX. */
int gf_loader_windows_open(struct gf_loader *l);
/* Under l->mu: this rank's positions in the run are start + rank + i * W,
 * all = this phase modulo W (rank itself unless a resume started the run
 * at a start that is not a multiple of W). */
static inline uint64_t gf_loader_rank_phase(const struct gf_loader *l)
{
	return (l->start + l->o.rank) % l->o.world_size;
}
void gf_loader_windows_close(struct gf_loader *l);
/* Under l->mu, for the batch of global positions p0, p0 + world_size,
 * ..., p1: 0 when it is not read through windows, 1 with its windows
 * (one or two, got[1] NULL for one) pinned, the ones this thread must
 * read marked in load[], or -EAGAIN when a window buffer must first be
 * freed (wait on l->cv, nothing pinned). */
int gf_loader_window_acquire_locked(struct gf_loader *l, uint64_t p0, uint64_t p1,
				    struct gf_loader_window *got[2], bool load[2]);
/* Under l->mu, on a thread with nothing to fill: 1 with a window the run
 * needs next (the next batch's, else the one after) assigned to a spare
 * buffer, pinned, for this thread to read; else 0. */
int gf_loader_window_prefetch_locked(struct gf_loader *l, struct gf_loader_window **got);

/* ---- slot.c ---- */
int gf_loader_slots_open(struct gf_loader *l);
/* Frees the slots' memory (tensors still alive keep theirs). */
void gf_loader_slots_close(struct gf_loader *l);
/* Open loaders (from the end of gf_loader_open to gf_loader_close). */
void gf_loader_live_add(struct gf_loader *l);
void gf_loader_live_remove(struct gf_loader *l);
/* The slot of a batch an open loader handed out, or NULL. */
struct gf_loader_slot *gf_loader_slot_of(struct gf_batch *b);
/* Under l->mu: one reference less; the last (gf_loader_release's or a
 * tensor deleter's, on any thread) records the release event on the
 * consumer's stream (copy.c) and frees the slot for a fill.  0, or the
 * error of that record (the slot is freed all the same). */
int gf_loader_slot_unref_locked(struct gf_loader *l, struct gf_loader_slot *s);
/* The loader's own reference count (slot.c): the last frees it. */
void gf_loader_ref(struct gf_loader *l);
void gf_loader_unref(struct gf_loader *l);

/* ---- worker.c ---- */
int gf_loader_workers_start(struct gf_loader *l);
/* Stops every thread (their reads interrupted) and frees them. */
void gf_loader_workers_stop(struct gf_loader *l);

/* ---- copy.c ---- */
/* The GPU, its stream and every slot's device memory and events; nothing
 * without a GPU. */
int gf_loader_gpu_open(struct gf_loader *l);
int gf_loader_gpu_slot_open(struct gf_loader *l, struct gf_loader_slot *s);
void gf_loader_gpu_slot_close(struct gf_loader *l, struct gf_loader_slot *s);
void gf_loader_gpu_close(struct gf_loader *l);
/* On an I/O thread: its CUDA context current (once per thread). */
int gf_loader_gpu_thread(struct gf_loader *l);
/* Before a slot's host memory is written again: its last copy is done. */
int gf_loader_gpu_host_free(struct gf_loader *l, struct gf_loader_slot *s);
/* Queues the payload's copy (after the consumer's release of the slot's
 * previous batch) and records copy_done. */
int gf_loader_gpu_copy(struct gf_loader *l, struct gf_loader_slot *s);
/* Under l->mu, when the slot's last reference goes, the loader open:
 * records `released` on the consumer's stream, on whatever thread that is
 * (the GPU's context made current there). */
int gf_loader_gpu_release(struct gf_loader *l, struct gf_loader_slot *s);

/* ---- counters.c ---- */
uint64_t gf_loader_now_ns(void);
void gf_loader_count(_Atomic uint64_t *c, uint64_t v);

/* ---- loader.c ---- */
/* Under l->mu: the first error of a thread, kept for gf_loader_next
 * (message from gf_last_error() of the calling thread). */
void gf_loader_fail_locked(struct gf_loader *l, int err);

#endif
