/* The loader: batches of a dataset (gpufeed/dataset.h) read with large
 * O_DIRECT reads on the GPU's NUMA node into a fixed pool of pinned slots,
 * then copied to the GPU asynchronously (docs/loader.md).
 *
 *   struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
 *   o.batch_size = 256; o.rank = rank; o.world_size = world; o.gpu = 0;
 *   struct gf_loader *l;
 *   gf_loader_open("ds", &o, &l);
 *   for (struct gf_batch *b; gf_loader_next(l, &b) == 0; gf_loader_release(l, b))
 *           train_step(b->dev, b->count, b->stream);
 *   gf_loader_close(l);
 *
 * The order.  Epoch e's global order is a pure function of (seed, e, the
 * dataset): shards shuffled, then blocks (runs of consecutive records of
 * about block_bytes) shuffled, then samples shuffled inside a window of
 * window_blocks blocks; so each block is read with one large sequential
 * read while the order stays close to a full permutation
 * (gf_loader_shuffle_quality says how close).  Rank r of world_size W
 * takes global positions r, r + W, r + 2W, ...: every sample goes to
 * exactly one rank per epoch, and the global sequence does not depend on
 * W, so a run stopped on 4 ranks resumes on 2 with the same sequence.
 * Every rank gets the same number of samples: with GF_LOADER_PAD (the
 * default) the epoch is padded to a multiple of W by repeating its first
 * samples, with GF_LOADER_DROP its last (N mod W) samples are left out;
 * either way no rank runs short and DDP never waits on one.
 *
 * Memory is bounded by construction: `slots` batch buffers (pinned host
 * memory, and as much GPU memory when a GPU is asked for) and two window
 * buffers of about window_blocks x block_bytes (the window being served
 * and the next, read whole; none for fixed-size records of 64 KiB or
 * more, read straight into the batch buffers), allocated at open on the
 * GPU's NUMA node, reused for the whole run; RSS does not grow with
 * epochs, threads or prefetch depth (docs/loader.md, "Memory").
 *
 * Threads: `threads` I/O threads started by gf_loader_open (bound to the
 * node's CPUs), reading with io_uring.  An error on a loader thread (a
 * short read, a checksum mismatch with verify on) is returned by the next
 * gf_loader_next with the shard and offset in gf_last_error().
 * gf_loader_next, gf_loader_release and the state calls are for one
 * consumer thread; gf_loader_counters may be called from any thread. */
#ifndef GPUFEED_LOADER_H
#define GPUFEED_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gpufeed/common.h>
#include <gpufeed/dataset.h>
#include <gpufeed/dlpack.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Ranks get equal counts: pad the epoch with its first samples, or drop its tail. */
enum gf_loader_uneven { GF_LOADER_PAD = 0, GF_LOADER_DROP };
/* "pad", "drop"; "?" out of range. */
GF_API const char *gf_loader_uneven_name(enum gf_loader_uneven u);

/* Runs on a loader thread for each sample after it is read and (with
 * verify) checked, before the batch is copied to the GPU: may rewrite the
 * sample in place, *len <= cap (the sample's bytes may grow to cap, which
 * is the sample's slot space).  0, or -errno to fail the batch (the
 * error reaches gf_loader_next).  Called from several threads at once. */
typedef int (*gf_loader_transform_fn)(void *user, uint64_t sample, void *data, size_t *len, size_t cap);

#define GF_LOADER_BLOCK_DEFAULT		(4u << 20)
#define GF_LOADER_WINDOW_DEFAULT	16u

/* Versioned (include/gpufeed/common.h): start from GF_LOADER_OPTS_INIT. */
struct gf_loader_opts {
	size_t struct_size;	/* sizeof(struct gf_loader_opts), set by GF_LOADER_OPTS_INIT */
	unsigned batch_size;	/* samples per batch, > 0 */
	unsigned rank;		/* 0 <= rank < world_size */
	unsigned world_size;	/* 1 by default */
	uint64_t seed;
	bool shuffle;		/* false: dataset order (still split among ranks) */
	bool drop_last;		/* false (PyTorch's default): the last, partial batch is delivered */
	enum gf_loader_uneven uneven;
	size_t block_bytes;	/* the unit of shuffling and of reading; 0: 4 MiB */
	unsigned window_blocks;	/* blocks shuffled together; 0: 16 (x block_bytes <= 1 GiB) */
	unsigned threads;	/* I/O threads; 0: 2 */
	unsigned slots;		/* batch buffers; 0: 4 (at least 2) */
	bool buffered;		/* read through the page cache instead of O_DIRECT */
	bool verify;		/* check every sample's checksum as it is read */
	int gpu;		/* NVML index to copy batches to; -1: host memory only (default) */
	int numa_node;		/* buffers' and threads' node; -1: the GPU's in the
				 * model (the locality override included), none
				 * without a GPU */
	/* The machine the GPU's node comes from: the caller's model (outliving
	 * the loader) or NULL (discovered with the defaults at open). */
	const struct gf_topo *model;
	gf_loader_transform_fn transform;	/* NULL: none */
	void *transform_user;
};
#define GF_LOADER_OPTS_INIT \
	{ .struct_size = sizeof(struct gf_loader_opts), .world_size = 1, .shuffle = true, .gpu = -1, .numa_node = -1 }

/* One batch, owned by the loader until gf_loader_release. */
struct gf_batch {
	uint64_t epoch;
	uint64_t position;	/* this rank's position of its first sample in the epoch */
	unsigned count;		/* samples (< batch_size only for the last batch) */
	size_t bytes;		/* payload bytes */
	size_t record_size;	/* every sample has this size (data is count x
				 * record_size), 0 when sizes vary */
	void *host;		/* the payload in host memory (a pinned slot);
				 * with a GPU still valid, the copy's source */
	uint64_t dev;		/* with a GPU: the payload in GPU memory (CUdeviceptr), else 0 */
	void *stream;		/* with a GPU: the CUstream the copy was queued on;
				 * work queued on it after gf_loader_next sees the bytes */
	const uint64_t *offsets;	/* count + 1 byte offsets of each sample in the
					 * payload (host memory), for any record_size */
	const uint64_t *samples;	/* count dataset-wide sample numbers */
};

struct gf_loader;

/* Opens the dataset (a path as gf_dataset_open takes) and starts the
 * threads, which read nothing until the first gf_loader_next,
 * gf_loader_set_epoch or gf_loader_load_state (epoch 0 at position 0 by
 * default).  0, or -EINVAL (arguments: batch_size 0, rank >= world_size,
 * slots < 2, a batch that cannot fit a slot), the dataset's errors, -ENOSYS
 * / -ENODEV (a GPU asked for without libcuda or that GPU), -ENOMEM. */
GF_API int gf_loader_open(const char *dataset, const struct gf_loader_opts *opts, struct gf_loader **out);
/* Stops the threads and frees everything, mid-epoch too; batches not
 * released and DLPack tensors still alive keep their slot's memory until
 * they are deleted.  NULL does nothing. */
GF_API void gf_loader_close(struct gf_loader *l);

/* The next batch of this rank: 0 with *out set, 1 at the end of the epoch
 * (*out NULL; gf_loader_set_epoch starts the next), -errno from a loader
 * thread (the shard and offset in gf_last_error()), -ENOBUFS when every
 * slot is held by batches not released or their DLPack tensors (waiting
 * could never end).  Waits, the wait counted in the counters' wait_ns. */
GF_API int gf_loader_next(struct gf_loader *l, struct gf_batch **out);
/* Gives the batch's slot back (once its DLPack tensors are deleted too).
 * With a GPU, the slot is reused only after the work queued on the stream
 * given to gf_batch_wait_stream (or the batch's stream) until the last of
 * these (this call or the last tensor's deletion) is done: the release
 * event is recorded on that stream then (docs/loader.md). */
GF_API int gf_loader_release(struct gf_loader *l, struct gf_batch *b);
/* Makes stream (a CUstream of the batch's GPU) wait for the batch's copy,
 * and remembers it for the release event (the last given counts; it must
 * stay valid until the batch and its tensors are gone); a host batch:
 * nothing to do.  -EINVAL after gf_loader_release. */
GF_API int gf_batch_wait_stream(struct gf_batch *b, void *stream);
/* The payload as a DLPack tensor that keeps the slot alive: uint8 of
 * shape {count, record_size} for fixed-size records, {bytes} otherwise;
 * on the GPU when the batch is, else in host memory.  The offsets as an
 * int64 host tensor of shape {count + 1} with offsets_out (may be NULL).
 * The deleter may run on any thread, after gf_loader_release and after
 * gf_loader_close; deleted after the release (the loader open), it
 * records the release event on the remembered stream, so GPU work queued
 * there while the tensor lived is done before the slot is refilled. */
GF_API int gf_batch_dlpack(struct gf_batch *b, struct gf_dl_managed_tensor **data_out,
			   struct gf_dl_managed_tensor **offsets_out);

/* Starts epoch e at position 0 (discards what was prefetched). */
GF_API int gf_loader_set_epoch(struct gf_loader *l, uint64_t epoch);
/* Batches this rank delivers in a whole epoch (len() in Python). */
GF_API uint64_t gf_loader_batches(const struct gf_loader *l);
/* Samples this rank delivers in a whole epoch. */
GF_API uint64_t gf_loader_samples(const struct gf_loader *l);

/* Where the run is, independent of world_size: the global position is
 * the number of samples of the epoch's global order delivered to all
 * ranks together (this rank's delivered batches times batch_size times
 * world_size: ranks move in step, as DDP makes them). */
struct gf_loader_state {
	uint64_t seed;
	uint64_t epoch;
	uint64_t position;	/* global */
	unsigned world_size;	/* when saved (informative) */
	unsigned batch_size;
};
/* This rank's state now: 0, or -EINVAL (l or out NULL). */
GF_API int gf_loader_state(const struct gf_loader *l, struct gf_loader_state *out);
/* Resumes at state (a seed that differs from the loader's is -EINVAL): the
 * next batch starts at the saved global position, whatever this loader's
 * world_size, without reading what came before.  Every rank keeps an equal
 * count: when the positions left in the epoch are not a multiple of
 * world_size, the last (left mod world_size) of them are left out. */
GF_API int gf_loader_load_state(struct gf_loader *l, const struct gf_loader_state *state);

/* Counters, readable at any time from any thread (the monitor reads them). */
struct gf_loader_counters {
	uint64_t wait_ns;		/* the consumer waited in gf_loader_next */
	uint64_t next_calls;
	uint64_t bytes_read;		/* from storage, alignment included */
	uint64_t samples_delivered;
	uint64_t batches_delivered;
	unsigned batches_ready;		/* filled, not yet taken */
	unsigned slots_in_use;		/* taken by the consumer or being filled */
	unsigned slots;
	uint64_t read_ns;		/* summed over the I/O threads */
	uint64_t copy_ns;		/* host to GPU, summed */
};
/* A snapshot of the counters (relaxed atomic reads): 0, or -EINVAL. */
GF_API int gf_loader_counters(const struct gf_loader *l, struct gf_loader_counters *out);

/* How shuffled an epoch's order is, beside a full random permutation of
 * the same samples: the mean over batches of the entropy (bits) of the
 * blocks the batch's samples come from (an entropy score in the spirit of
 * MosaicML Streaming's, docs/loader.md says how they differ); *full is
 * that of a full permutation of the same epoch. */
GF_API int gf_loader_shuffle_quality(const struct gf_loader *l, double *score, double *full);

#ifdef __cplusplus
}
#endif
#endif
