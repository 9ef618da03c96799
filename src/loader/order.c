/* One epoch's order (order.h; docs/loader.md, "The order").
 *
 * The algorithm, exactly, so another implementation can reproduce it.
 *
 * Random streams.  mix(x) is splitmix64's output for state x:
 *     z = x + 0x9e3779b97f4a7c15
 *     z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
 *     z = (z ^ (z >> 27)) * 0x94d049bb133111eb
 *     mix(x) = z ^ (z >> 31)
 * The stream for (purpose, index) of an epoch has the key
 *     key = mix(mix(mix(mix(seed) ^ epoch) ^ purpose) ^ index)
 * with purpose 1 (shards, index 0), 2 (the blocks of one shard, index the
 * shard's number), 3 (the samples of one window, index the window's
 * number), 4 (the full permutation gf_order_quality compares with, index
 * 0).  It is a xoshiro256** generator whose state words are
 * mix(key), mix(key + g), mix(key + 2g), mix(key + 3g) with
 * g = 0x9e3779b97f4a7c15.  below(n) draws from [0, n) with Lemire's
 * method: m = next() * n as a 128-bit product; while the low 64 bits of
 * m are below (2^64 - n) mod n, m = next() * n again; the draw is the
 * high 64 bits of m.
 *
 * shuffle(a[0..n), stream) is the Fisher-Yates shuffle from the end:
 * for i = n - 1 down to 1: j = below(i + 1); swap a[i] and a[j].
 *
 * The epoch's block sequence.  The shards are the runs of equal
 * block_shard values (in block order).  The list of shard runs is
 * shuffled with stream 1; then, for each run in that order, its blocks
 * (in block order) are shuffled with stream (2, its shard number) and
 * appended to the sequence.  So a shard's blocks stay together, in an
 * order of their own.
 *
 * Windows.  Window w is the blocks at sequence places [w * window_blocks,
 * (w + 1) * window_blocks) (fewer for the last).  Its samples, listed
 * block after block in sequence order and each block's in sample order,
 * are shuffled with stream (3, w), and fill the window's global positions,
 * which follow those of window w - 1.
 *
 * Without shuffle, global position p holds sample p.  Either way, the
 * global length is samples rounded up (GF_LOADER_PAD) or down
 * (GF_LOADER_DROP) to a multiple of world_size, and a padded position
 * p >= samples holds what position p mod samples holds.  Rank r's i-th
 * sample is the one at global position r + i * world_size.
 *
 * Cost.  gf_order_build is O(nblocks) time and memory, plus one window's
 * sample buffer.  A window's samples are listed and shuffled when a
 * position in it is first asked for, into one of ORDER_CACHE buffers (the
 * least recently used is reused), so memory is bounded by ORDER_CACHE
 * times the largest window's samples, and resuming at any position costs
 * one window, never the positions before it.  A position in a cached
 * window is found in O(1) (a scan of the few cached windows).
 *
 * Quality.  gf_order_quality scores consecutive groups of batch_size
 * global positions from 0: a group's entropy is -sum(c/k * log2(c/k))
 * over the counts c of each block among its k samples; the score is the
 * mean over the full groups (the one partial group when there is no full
 * one).  The full permutation beside it is the forward Fisher-Yates
 * shuffle of 0 .. samples-1 with stream 4 (for i = 0, 1, ...: j = i +
 * below(samples - i); swap a[i] and a[j]; position i holds a[i]), of which
 * only the positions scored are drawn (kept in a hash of the displaced
 * entries when that is smaller than the whole array), padded the same way. */
#include "loader/order.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rand.h"

/* Windows kept: the pipeline reads across two or three neighbouring
 * windows at once (the batch being filled straddles a boundary while the
 * next ones are planned). */
#define ORDER_CACHE 4
#define NO_WINDOW UINT64_MAX

enum order_purpose { PURPOSE_SHARDS = 1, PURPOSE_BLOCKS, PURPOSE_WINDOW, PURPOSE_FULL };

struct order_window {
	uint64_t index;		/* NO_WINDOW: empty */
	uint64_t first;		/* global position of its first sample */
	uint64_t count;
	uint64_t *samples;	/* window_cap entries, NULL until first used */
	uint64_t used;		/* o->tick when last hit */
};

struct gf_order {
	uint64_t samples;
	unsigned nblocks;
	unsigned window_blocks;
	unsigned world_size;
	bool shuffle;
	uint64_t seed, epoch;
	uint64_t global_len;
	uint64_t *block_first;	/* nblocks + 1, a copy */
	uint64_t *seq;		/* with shuffle: the epoch's block sequence */
	uint64_t *seq_first;	/* with shuffle: nblocks + 1 global positions */
	uint64_t window_cap;	/* samples of the largest window */
	uint64_t tick;
	struct order_window cache[ORDER_CACHE];
};

static void stream_init(struct gf_rand *r, const struct gf_order *o, enum order_purpose purpose,
			uint64_t index)
{
	uint64_t key = gf_rand_mix(gf_rand_mix(gf_rand_mix(gf_rand_mix(o->seed) ^ o->epoch) ^ purpose) ^ index);

	gf_rand_seed(r, key);
}

static void shuffle(uint64_t *a, uint64_t n, struct gf_rand *r)
{
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = gf_rand_below(r, i);
		uint64_t t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

static int check_params(const struct gf_order_params *p)
{
	if (!p)
		return gf_error(-EINVAL, "order: params is NULL");
	if (!p->samples)
		return gf_error(-EINVAL, "order: the dataset has no samples");
	if (!p->nblocks)
		return gf_error(-EINVAL, "order: nblocks is 0");
	if (!p->block_first || !p->block_shard)
		return gf_error(-EINVAL, "order: block_first or block_shard is NULL");
	if (!p->window_blocks)
		return gf_error(-EINVAL, "order: window_blocks is 0");
	if (!p->world_size)
		return gf_error(-EINVAL, "order: world_size is 0");
	if (p->uneven != GF_LOADER_PAD && p->uneven != GF_LOADER_DROP)
		return gf_error(-EINVAL, "order: uneven %d is neither pad nor drop", (int)p->uneven);
	if (p->block_first[0] != 0)
		return gf_error(-EINVAL, "order: block 0 starts at sample %llu, not 0",
				(unsigned long long)p->block_first[0]);
	for (unsigned b = 0; b < p->nblocks; b++) {
		if (p->block_first[b + 1] <= p->block_first[b])
			return gf_error(-EINVAL, "order: block %u is empty or block_first is not ascending "
					"(%llu then %llu)", b, (unsigned long long)p->block_first[b],
					(unsigned long long)p->block_first[b + 1]);
		if (b && p->block_shard[b] < p->block_shard[b - 1])
			return gf_error(-EINVAL, "order: block %u is in shard %u after a block of shard %u "
					"(shards must not decrease)", b, p->block_shard[b], p->block_shard[b - 1]);
	}
	if (p->block_first[p->nblocks] != p->samples)
		return gf_error(-EINVAL, "order: the blocks hold %llu samples, the dataset %llu",
				(unsigned long long)p->block_first[p->nblocks], (unsigned long long)p->samples);
	if (p->uneven == GF_LOADER_PAD && p->samples > UINT64_MAX - p->world_size)
		return gf_error(-EINVAL, "order: %llu samples cannot be padded to a multiple of %u",
				(unsigned long long)p->samples, p->world_size);
	return 0;
}

static void *alloc_array(uint64_t n, size_t size)
{
	if (n > SIZE_MAX / size)
		return NULL;
	return malloc((size_t)n * size);
}

/* Shards shuffled, then each shard's blocks (the header's algorithm). */
static int build_sequence(struct gf_order *o, const unsigned *block_shard)
{
	uint64_t nruns = 1, *runs = NULL, *run_first = NULL, k = 0;
	struct gf_rand r;
	int ret = -ENOMEM;

	for (unsigned b = 1; b < o->nblocks; b++)
		nruns += block_shard[b] != block_shard[b - 1];
	runs = alloc_array(nruns, sizeof(*runs));
	run_first = alloc_array(nruns + 1, sizeof(*run_first));
	if (!runs || !run_first)
		goto out;
	for (unsigned b = 0, n = 0; b < o->nblocks; b++)
		if (!b || block_shard[b] != block_shard[b - 1])
			run_first[n++] = b;
	run_first[nruns] = o->nblocks;
	for (uint64_t i = 0; i < nruns; i++)
		runs[i] = i;
	stream_init(&r, o, PURPOSE_SHARDS, 0);
	shuffle(runs, nruns, &r);

	for (uint64_t i = 0; i < nruns; i++) {
		uint64_t first = run_first[runs[i]], end = run_first[runs[i] + 1], start = k;

		for (uint64_t b = first; b < end; b++)
			o->seq[k++] = b;
		stream_init(&r, o, PURPOSE_BLOCKS, block_shard[first]);
		shuffle(o->seq + start, end - first, &r);
	}

	o->seq_first[0] = 0;
	for (unsigned i = 0; i < o->nblocks; i++)
		o->seq_first[i + 1] = o->seq_first[i] + o->block_first[o->seq[i] + 1] - o->block_first[o->seq[i]];
	ret = 0;
out:
	free(runs);
	free(run_first);
	return ret;
}

static uint64_t window_end_place(const struct gf_order *o, uint64_t w)
{
	uint64_t end = (w + 1) * o->window_blocks;

	return end < o->nblocks ? end : o->nblocks;
}

int gf_order_build(const struct gf_order_params *p, struct gf_order **out)
{
	struct gf_order *o = NULL;
	int ret;

	if (!out)
		return gf_error(-EINVAL, "order: out is NULL");
	*out = NULL;
	ret = check_params(p);
	if (ret)
		return ret;
	o = calloc(1, sizeof(*o));
	if (!o)
		return gf_error(-ENOMEM, "order: out of memory");
	o->samples = p->samples;
	o->nblocks = p->nblocks;
	o->window_blocks = p->window_blocks;
	o->world_size = p->world_size;
	o->shuffle = p->shuffle;
	o->seed = p->seed;
	o->epoch = p->epoch;
	o->global_len = p->samples - p->samples % p->world_size;
	if (p->uneven == GF_LOADER_PAD && o->global_len < p->samples)
		o->global_len += p->world_size;
	for (unsigned i = 0; i < ORDER_CACHE; i++)
		o->cache[i].index = NO_WINDOW;

	ret = -ENOMEM;
	o->block_first = alloc_array((uint64_t)p->nblocks + 1, sizeof(*o->block_first));
	if (!o->block_first)
		goto out;
	memcpy(o->block_first, p->block_first, ((size_t)p->nblocks + 1) * sizeof(*o->block_first));
	if (p->shuffle) {
		o->seq = alloc_array(p->nblocks, sizeof(*o->seq));
		o->seq_first = alloc_array((uint64_t)p->nblocks + 1, sizeof(*o->seq_first));
		if (!o->seq || !o->seq_first || build_sequence(o, p->block_shard))
			goto out;
		for (uint64_t w = 0; w * o->window_blocks < o->nblocks; w++) {
			uint64_t n = o->seq_first[window_end_place(o, w)] - o->seq_first[w * o->window_blocks];

			if (n > o->window_cap)
				o->window_cap = n;
		}
		/* One buffer now, so that gf_order_at can always answer. */
		o->cache[0].samples = alloc_array(o->window_cap, sizeof(uint64_t));
		if (!o->cache[0].samples)
			goto out;
	}
	*out = o;
	return 0;
out:
	gf_order_free(o);
	return gf_error(ret, "order: out of memory for %u blocks", p->nblocks);
}

void gf_order_free(struct gf_order *o)
{
	if (!o)
		return;
	for (unsigned i = 0; i < ORDER_CACHE; i++)
		free(o->cache[i].samples);
	free(o->block_first);
	free(o->seq);
	free(o->seq_first);
	free(o);
}

uint64_t gf_order_global_len(const struct gf_order *o)
{
	return o->global_len;
}

uint64_t gf_order_rank_len(const struct gf_order *o)
{
	return o->global_len / o->world_size;
}

/* The last i with a[i] <= x in the ascending a[0..n), a[0] <= x. */
static uint64_t last_at_or_below(const uint64_t *a, uint64_t n, uint64_t x)
{
	uint64_t lo = 0, hi = n;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (a[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

unsigned gf_order_block_of(const struct gf_order *o, uint64_t sample)
{
	if (sample >= o->samples)
		return o->nblocks;
	return (unsigned)last_at_or_below(o->block_first, o->nblocks, sample);
}

/* A buffer for a window not cached: an empty one, else a new one, else
 * (also when memory is short) the least recently used. */
static struct order_window *cache_slot(struct gf_order *o)
{
	struct order_window *lru = NULL;

	for (unsigned i = 0; i < ORDER_CACHE; i++) {
		struct order_window *c = &o->cache[i];

		if (c->samples && c->index == NO_WINDOW)
			return c;
	}
	for (unsigned i = 0; i < ORDER_CACHE; i++) {
		struct order_window *c = &o->cache[i];

		if (!c->samples) {
			c->samples = alloc_array(o->window_cap, sizeof(uint64_t));
			if (c->samples)
				return c;
		}
	}
	for (unsigned i = 0; i < ORDER_CACHE; i++) {
		struct order_window *c = &o->cache[i];

		if (c->samples && (!lru || c->used < lru->used))
			lru = c;
	}
	return lru;
}

static void fill_window(struct gf_order *o, struct order_window *c, uint64_t w)
{
	uint64_t place = w * o->window_blocks, end = window_end_place(o, w), n = 0;
	struct gf_rand r;

	for (; place < end; place++) {
		uint64_t b = o->seq[place];

		for (uint64_t s = o->block_first[b]; s < o->block_first[b + 1]; s++)
			c->samples[n++] = s;
	}
	stream_init(&r, o, PURPOSE_WINDOW, w);
	shuffle(c->samples, n, &r);
	c->index = w;
	c->first = o->seq_first[w * o->window_blocks];
	c->count = n;
}

uint64_t gf_order_at(struct gf_order *o, uint64_t global_pos)
{
	struct order_window *c;
	uint64_t place;

	if (global_pos >= o->global_len)
		return UINT64_MAX;
	if (global_pos >= o->samples)
		global_pos %= o->samples;
	if (!o->shuffle)
		return global_pos;
	for (unsigned i = 0; i < ORDER_CACHE; i++) {
		c = &o->cache[i];
		if (c->index != NO_WINDOW && global_pos - c->first < c->count) {
			c->used = ++o->tick;
			return c->samples[global_pos - c->first];
		}
	}
	place = last_at_or_below(o->seq_first, o->nblocks, global_pos);
	c = cache_slot(o);
	fill_window(o, c, place / o->window_blocks);
	c->used = ++o->tick;
	return c->samples[global_pos - c->first];
}

int gf_order_window(const struct gf_order *o, uint64_t pos, uint64_t *index, uint64_t *first, uint64_t *end)
{
	/* Shuffled: places in the block sequence; else the blocks themselves. */
	const uint64_t *starts = o->shuffle ? o->seq_first : o->block_first;
	uint64_t w;

	if (pos >= o->samples)
		return gf_error(-EINVAL, "order: position %llu past the %llu samples", (unsigned long long)pos,
				(unsigned long long)o->samples);
	w = last_at_or_below(starts, o->nblocks, pos) / o->window_blocks;
	*index = w;
	*first = starts[w * o->window_blocks];
	*end = starts[window_end_place(o, w)];
	return 0;
}

int gf_order_rank_samples(struct gf_order *o, unsigned rank, uint64_t first, uint64_t n, uint64_t *out)
{
	uint64_t len;

	if (!o || (n && !out))
		return gf_error(-EINVAL, "order: %s is NULL", o ? "out" : "o");
	if (rank >= o->world_size)
		return gf_error(-EINVAL, "order: rank %u of a world of %u", rank, o->world_size);
	len = gf_order_rank_len(o);
	if (first > len || n > len - first)
		return gf_error(-EINVAL, "order: positions %llu + %llu past rank %u's %llu samples",
				(unsigned long long)first, (unsigned long long)n, rank, (unsigned long long)len);
	for (uint64_t i = 0; i < n; i++)
		out[i] = gf_order_at(o, rank + (first + i) * o->world_size);
	return 0;
}

/* The full permutation's first positions, drawn one at a time: a[] is
 * identity but for the entries displaced so far, held densely or, when
 * fewer positions are drawn than that would cost, in an open-addressing
 * hash of (index, value) pairs (one new key per draw at most). */
struct full_perm {
	uint64_t n, i;
	struct gf_rand r;
	uint64_t *dense;	/* n entries, or NULL */
	uint64_t *keys, *vals;	/* cap entries; key UINT64_MAX: empty */
	uint64_t cap;
};

static uint64_t *full_slot(struct full_perm *f, uint64_t key)
{
	uint64_t h = gf_rand_mix(key) & (f->cap - 1);

	while (f->keys[h] != UINT64_MAX && f->keys[h] != key)
		h = (h + 1) & (f->cap - 1);
	return &f->keys[h];
}

static uint64_t full_get(struct full_perm *f, uint64_t x)
{
	uint64_t *k;

	if (f->dense)
		return f->dense[x];
	k = full_slot(f, x);
	return *k == UINT64_MAX ? x : f->vals[k - f->keys];
}

static void full_set(struct full_perm *f, uint64_t x, uint64_t v)
{
	uint64_t *k;

	if (f->dense) {
		f->dense[x] = v;
		return;
	}
	k = full_slot(f, x);
	*k = x;
	f->vals[k - f->keys] = v;
}

static int full_init(struct full_perm *f, const struct gf_order *o, uint64_t draws)
{
	memset(f, 0, sizeof(*f));
	f->n = o->samples;
	stream_init(&f->r, o, PURPOSE_FULL, 0);
	f->cap = 2;
	while (f->cap < 2 * draws && f->cap < UINT64_MAX / 4)
		f->cap *= 2;
	if (f->cap * 2 < f->n) {
		f->keys = alloc_array(f->cap, sizeof(uint64_t));
		f->vals = alloc_array(f->cap, sizeof(uint64_t));
		if (!f->keys || !f->vals)
			return -ENOMEM;
		memset(f->keys, 0xff, f->cap * sizeof(uint64_t));
		return 0;
	}
	f->dense = alloc_array(f->n, sizeof(uint64_t));
	if (!f->dense)
		return -ENOMEM;
	for (uint64_t x = 0; x < f->n; x++)
		f->dense[x] = x;
	return 0;
}

static uint64_t full_next(struct full_perm *f)
{
	uint64_t j = f->i + gf_rand_below(&f->r, f->n - f->i);
	uint64_t vi = full_get(f, f->i), vj = full_get(f, j);

	/* Position i is final and never read again: only j needs the swap. */
	full_set(f, j, vi);
	f->i++;
	return vj;
}

static void full_free(struct full_perm *f)
{
	free(f->dense);
	free(f->keys);
	free(f->vals);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The entropy (bits) of the values of ids[0..k) (sorted in place). */
static double entropy(uint64_t *ids, uint64_t k)
{
	double h = 0;

	qsort(ids, (size_t)k, sizeof(*ids), cmp_u64);
	for (uint64_t i = 0, j; i < k; i = j) {
		double pr;

		for (j = i + 1; j < k && ids[j] == ids[i]; j++)
			;
		pr = (double)(j - i) / (double)k;
		h -= pr * log2(pr);
	}
	return h;
}

int gf_order_quality(struct gf_order *o, unsigned batch_size, uint64_t max_positions, double *score, double *full)
{
	uint64_t len, k, groups, *ids = NULL, *head = NULL, nhead;
	double sum = 0, sum_full = 0;
	struct full_perm f;
	int ret;

	if (!o || !score || !full)
		return gf_error(-EINVAL, "order: %s is NULL", !o ? "o" : !score ? "score" : "full");
	if (!batch_size)
		return gf_error(-EINVAL, "order: batch_size is 0");
	*score = *full = 0;
	len = max_positions && max_positions < o->global_len ? max_positions : o->global_len;
	if (!len)
		return 0;
	k = len < batch_size ? len : batch_size;
	groups = len / k;
	len = groups * k;
	/* Padded positions repeat the first ones; keep those for the full one. */
	nhead = len > o->samples ? len - o->samples : 0;
	ret = full_init(&f, o, len < o->samples ? len : o->samples);
	ids = alloc_array(k, sizeof(*ids));
	head = alloc_array(nhead ? nhead : 1, sizeof(*head));
	if (ret || !ids || !head) {
		ret = gf_error(-ENOMEM, "order: out of memory scoring %llu positions", (unsigned long long)len);
		goto out;
	}
	for (uint64_t g = 0; g < groups; g++) {
		for (uint64_t i = 0; i < k; i++)
			ids[i] = gf_order_block_of(o, gf_order_at(o, g * k + i));
		sum += entropy(ids, k);
		for (uint64_t i = 0; i < k; i++) {
			uint64_t pos = g * k + i, s;

			s = pos < o->samples ? full_next(&f) : head[pos - o->samples];
			if (pos < nhead)
				head[pos] = s;
			ids[i] = gf_order_block_of(o, s);
		}
		sum_full += entropy(ids, k);
	}
	*score = sum / (double)groups;
	*full = sum_full / (double)groups;
	ret = 0;
out:
	full_free(&f);
	free(ids);
	free(head);
	return ret;
}
