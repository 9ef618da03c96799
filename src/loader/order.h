/* One epoch's order of a dataset's samples (include/gpufeed/loader.h, "The
 * order"): a pure function of (seed, epoch, the blocks, world size), and
 * each rank's share of it.  No I/O here: the pipeline (loader.c) asks which
 * samples a range of positions holds and plans its reads from that.
 *
 * Blocks are runs of consecutive samples of one shard (the caller cuts
 * them, about block_bytes each, never across a shard).  The global order
 * of an epoch: shards shuffled, blocks shuffled inside that shard order's
 * sequence, then the samples of each window of window_blocks consecutive
 * blocks (in the shuffled block sequence) shuffled together.  Without
 * shuffle: dataset order.  The global length is samples, padded up
 * (GF_LOADER_PAD: position p >= samples holds the sample at p - samples)
 * or cut down (GF_LOADER_DROP) to a multiple of world_size.  Rank r's i-th
 * sample is the one at global position r + i * world_size. */
#ifndef GPUFEED_LOADER_ORDER_H
#define GPUFEED_LOADER_ORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <gpufeed/loader.h>

struct gf_order_params {
	uint64_t samples;		/* dataset-wide, > 0 */
	unsigned nblocks;		/* > 0 */
	const uint64_t *block_first;	/* nblocks + 1 ascending sample numbers:
					 * block b is [block_first[b], block_first[b+1]) */
	const unsigned *block_shard;	/* nblocks shard numbers (non-decreasing) */
	unsigned window_blocks;		/* >= 1 */
	uint64_t seed;
	uint64_t epoch;
	unsigned world_size;		/* >= 1 */
	bool shuffle;
	enum gf_loader_uneven uneven;
};

struct gf_order;

/* Builds the epoch's block sequence (O(nblocks)); the samples of a window
 * are shuffled when first asked for.  0, -EINVAL, -ENOMEM. */
int gf_order_build(const struct gf_order_params *p, struct gf_order **out);
void gf_order_free(struct gf_order *o);

/* The global length (a multiple of world_size) and one rank's share of it. */
uint64_t gf_order_global_len(const struct gf_order *o);
uint64_t gf_order_rank_len(const struct gf_order *o);

/* The sample at a global position (< global_len): O(1) once its window is
 * built, O(window samples) the first time; not thread-safe (a cache of the
 * windows in use). */
uint64_t gf_order_at(struct gf_order *o, uint64_t global_pos);

/* Rank r's samples at its positions [first, first + n), into out[n]:
 * 0, or -EINVAL past the rank's share. */
int gf_order_rank_samples(struct gf_order *o, unsigned rank, uint64_t first, uint64_t n, uint64_t *out);

/* The window holding global position pos (< the dataset's samples):
 * *index, and its global positions [*first, *end).  Without shuffle the
 * windows are the same runs of window_blocks blocks in dataset order.
 * 0, or -EINVAL past the samples. */
int gf_order_window(const struct gf_order *o, uint64_t pos, uint64_t *index, uint64_t *first, uint64_t *end);

/* The block a sample is in (binary search over block_first). */
unsigned gf_order_block_of(const struct gf_order *o, uint64_t sample);

/* The mean over consecutive groups of batch_size global positions of the
 * entropy (bits) of the blocks their samples come from; *full, the same
 * for a full Fisher-Yates permutation of the samples with the same seed.
 * Over at most max_positions positions from the start (0: all). */
int gf_order_quality(struct gf_order *o, unsigned batch_size, uint64_t max_positions, double *score, double *full);

#endif
