/* The epoch order (src/loader/order.h): every sample exactly once per
 * epoch across ranks with equal counts, over many shapes of dataset and
 * world; the same order for the same (seed, epoch) and another for
 * another; the same global sequence whatever the world size; resume at
 * any position without the positions before it; windows made of whole
 * blocks, blocks of one shard together; no shuffle is dataset order; the
 * shuffle-quality score; pathological inputs refused. */
#include "helpers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/error.h>
#include "core/rand.h"
#include "loader/order.h"

/* A dataset's blocks: sizes cut at random (or all `bs`), a shard every
 * `per_shard` blocks. */
struct shape {
	uint64_t samples;
	unsigned nblocks;
	uint64_t *first;
	unsigned *shard;
	struct gf_order_params p;
};

static void shape_make(struct shape *s, uint64_t samples, unsigned bs, unsigned per_shard, uint64_t cut_seed)
{
	struct gf_rand r;
	unsigned n = 0;

	s->samples = samples;
	s->first = calloc(samples + 1, sizeof(*s->first));
	s->shard = calloc(samples, sizeof(*s->shard));
	assert_non_null(s->first);
	assert_non_null(s->shard);
	gf_rand_seed(&r, cut_seed);
	for (uint64_t at = 0; at < samples; n++) {
		uint64_t len = bs ? bs : 1 + gf_rand_below(&r, 40);

		s->first[n] = at;
		s->shard[n] = n / per_shard;
		at += len < samples - at ? len : samples - at;
	}
	s->first[n] = samples;
	s->nblocks = n;
	s->p = (struct gf_order_params){
		.samples = samples, .nblocks = n, .block_first = s->first, .block_shard = s->shard,
		.window_blocks = 4, .seed = 42, .epoch = 0, .world_size = 1, .shuffle = true,
		.uneven = GF_LOADER_PAD,
	};
}

static void shape_free(struct shape *s)
{
	free(s->first);
	free(s->shard);
}

static struct gf_order *build(const struct gf_order_params *p)
{
	struct gf_order *o = NULL;

	assert_int_equal(gf_order_build(p, &o), 0);
	assert_non_null(o);
	return o;
}

/* The first n samples of the global order. */
static uint64_t *sequence(const struct gf_order_params *p, uint64_t n)
{
	struct gf_order *o = build(p);
	uint64_t *seq = malloc(n * sizeof(*seq));

	assert_non_null(seq);
	assert_true(n <= gf_order_global_len(o));
	for (uint64_t i = 0; i < n; i++)
		seq[i] = gf_order_at(o, i);
	gf_order_free(o);
	return seq;
}

/* Each rank's share, gathered rank by rank: equal counts, each entry what
 * its global position holds, and every sample once (pad: the padding
 * repeats the order's first samples; drop: the order's last left out). */
static void check_epoch(const struct gf_order_params *p)
{
	struct gf_order *o = build(p), *ref = build(p);
	uint64_t n = p->samples, w = p->world_size, len = gf_order_global_len(o);
	uint64_t per_rank = gf_order_rank_len(o), seen_total = 0;
	unsigned *seen = calloc(n, sizeof(*seen));
	uint64_t *mine = malloc((per_rank + 1) * sizeof(*mine));

	assert_non_null(seen);
	assert_non_null(mine);
	assert_int_equal(len % w, 0);
	assert_int_equal(per_rank * w, len);
	if (p->uneven == GF_LOADER_PAD)
		assert_int_equal(len, (n + w - 1) / w * w);
	else
		assert_int_equal(len, n / w * w);
	for (unsigned r = 0; r < w; r++) {
		assert_int_equal(gf_order_rank_samples(o, r, 0, per_rank, mine), 0);
		for (uint64_t i = 0; i < per_rank; i++) {
			assert_true(mine[i] < n);
			assert_int_equal(mine[i], gf_order_at(ref, r + i * w));
			seen[mine[i]]++;
			seen_total++;
		}
		/* One past the share is refused. */
		assert_int_equal(gf_order_rank_samples(o, r, per_rank, 1, mine), -EINVAL);
	}
	assert_int_equal(seen_total, len);
	for (uint64_t pos = 0; pos < len; pos++) {
		uint64_t s = gf_order_at(ref, pos);

		if (pos >= n)
			assert_int_equal(s, gf_order_at(ref, pos % n));
	}
	for (uint64_t s = 0; s < n; s++) {
		if (p->uneven == GF_LOADER_DROP)
			assert_true(seen[s] <= 1);
		else
			assert_true(seen[s] >= 1);
	}
	if (p->uneven == GF_LOADER_DROP) {
		/* The ones left out are the last of the order padding keeps whole. */
		struct gf_order_params padded = *p;
		struct gf_order *whole;

		padded.uneven = GF_LOADER_PAD;
		whole = build(&padded);
		for (uint64_t pos = 0; pos < n; pos++)
			assert_int_equal(seen[gf_order_at(whole, pos)], pos < len);
		gf_order_free(whole);
	}
	assert_int_equal(gf_order_at(ref, len), UINT64_MAX);
	free(seen);
	free(mine);
	gf_order_free(o);
	gf_order_free(ref);
}

static void exactly_once(void **state)
{
	static const uint64_t sizes[] = { 1, 2, 3, 5, 7, 8, 63, 64, 100, 1237 };
	static const unsigned block_sizes[] = { 0, 1, 3, 16, 5000 };	/* 0: random cuts */
	static const unsigned windows[] = { 1, 2, 3, 1000 };
	unsigned combos = 0;

	(void)state;
	for (unsigned a = 0; a < sizeof(sizes) / sizeof(*sizes); a++)
		for (unsigned b = 0; b < sizeof(block_sizes) / sizeof(*block_sizes); b++) {
			struct shape s;

			shape_make(&s, sizes[a], block_sizes[b], 1 + a % 4, a * 31 + b);
			for (unsigned c = 0; c < sizeof(windows) / sizeof(*windows); c++)
				for (unsigned w = 1; w <= 8; w++)
					for (int u = 0; u < 2; u++)
						for (int sh = 0; sh < 2; sh++) {
							s.p.window_blocks = windows[c];
							s.p.world_size = w;
							s.p.uneven = u ? GF_LOADER_DROP : GF_LOADER_PAD;
							s.p.shuffle = sh;
							s.p.seed = combos;
							check_epoch(&s.p);
							combos++;
						}
			shape_free(&s);
		}
	assert_int_equal(combos, 10 * 5 * 4 * 8 * 2 * 2);
}

/* With drop and fewer samples than ranks, nobody gets anything (and
 * nobody waits). */
static void fewer_samples_than_ranks(void **state)
{
	struct shape s;
	struct gf_order *o;
	double score, full, want;

	(void)state;
	shape_make(&s, 3, 1, 1, 1);
	s.p.world_size = 8;
	s.p.uneven = GF_LOADER_DROP;
	o = build(&s.p);
	assert_int_equal(gf_order_global_len(o), 0);
	assert_int_equal(gf_order_rank_len(o), 0);
	assert_int_equal(gf_order_at(o, 0), UINT64_MAX);
	assert_int_equal(gf_order_quality(o, 4, 0, &score, &full), 0);
	assert_true(score == 0 && full == 0);
	gf_order_free(o);
	s.p.uneven = GF_LOADER_PAD;
	o = build(&s.p);
	assert_int_equal(gf_order_global_len(o), 8);
	assert_int_equal(gf_order_rank_len(o), 1);
	/* 8 positions over 3 one-sample blocks hold what positions 0 1 2 0 1
	 * 2 0 1 hold: block counts 3 3 2, in both orders. */
	assert_int_equal(gf_order_quality(o, 8, 0, &score, &full), 0);
	want = -2 * (3.0 / 8) * log2(3.0 / 8) - (2.0 / 8) * log2(2.0 / 8);
	assert_true(fabs(score - want) < 1e-12);
	assert_true(fabs(full - want) < 1e-12);
	gf_order_free(o);
	shape_free(&s);
}

static bool same(const uint64_t *a, const uint64_t *b, uint64_t n)
{
	return memcmp(a, b, n * sizeof(*a)) == 0;
}

static void determinism(void **state)
{
	struct shape s;
	uint64_t *a, *b, *c, *d;

	(void)state;
	shape_make(&s, 5000, 0, 20, 7);
	a = sequence(&s.p, s.samples);
	b = sequence(&s.p, s.samples);
	assert_true(same(a, b, s.samples));
	s.p.epoch = 1;
	c = sequence(&s.p, s.samples);
	assert_false(same(a, c, s.samples));
	s.p.epoch = 0;
	s.p.seed = 43;
	d = sequence(&s.p, s.samples);
	assert_false(same(a, d, s.samples));
	assert_false(same(c, d, s.samples));
	free(a);
	free(b);
	free(c);
	free(d);
	shape_free(&s);
}

/* Rank r of W holds global positions r, r + W, ...: interleaving the
 * ranks' shares gives the same sequence for W = 1, 2, 4. */
static void same_sequence_any_world_size(void **state)
{
	struct shape s;
	uint64_t *one;

	(void)state;
	shape_make(&s, 1001, 0, 10, 3);
	one = sequence(&s.p, s.samples);
	for (unsigned w = 2; w <= 4; w *= 2) {
		struct gf_order *o;
		uint64_t per_rank, *mine;

		s.p.world_size = w;
		o = build(&s.p);
		per_rank = gf_order_rank_len(o);
		mine = malloc(per_rank * sizeof(*mine));
		assert_non_null(mine);
		for (unsigned r = 0; r < w; r++) {
			assert_int_equal(gf_order_rank_samples(o, r, 0, per_rank, mine), 0);
			for (uint64_t i = 0; i < per_rank; i++)
				if (r + i * w < s.samples)
					assert_int_equal(mine[i], one[r + i * w]);
		}
		free(mine);
		gf_order_free(o);
	}
	free(one);
	shape_free(&s);
}

/* A fresh order asked for a late position first, then jumping around
 * (windows evicted and rebuilt), answers what the start-to-end walk saw. */
static void resume(void **state)
{
	struct shape s;
	struct gf_order *o;
	uint64_t *all, late;
	struct gf_rand r;

	(void)state;
	shape_make(&s, 20000, 0, 50, 11);
	s.p.window_blocks = 3;
	all = sequence(&s.p, s.samples);
	o = build(&s.p);
	late = s.samples - 1234;
	for (uint64_t pos = late; pos < s.samples; pos++)
		assert_int_equal(gf_order_at(o, pos), all[pos]);
	gf_rand_seed(&r, 5);
	for (unsigned i = 0; i < 20000; i++) {
		uint64_t pos = gf_rand_below(&r, s.samples);

		assert_int_equal(gf_order_at(o, pos), all[pos]);
	}
	gf_order_free(o);

	/* A rank resuming mid-epoch on another world size. */
	s.p.world_size = 4;
	o = build(&s.p);
	{
		uint64_t mine[100];

		assert_int_equal(gf_order_rank_samples(o, 3, 4000, 100, mine), 0);
		for (unsigned i = 0; i < 100; i++)
			assert_int_equal(mine[i], all[3 + (4000 + i) * 4]);
	}
	gf_order_free(o);
	free(all);
	shape_free(&s);
}

/* Walking the order, a window ends where the blocks seen so far are all
 * complete and there are window_blocks of them: a window that split a
 * block, or mixed in another's, would show more blocks than that
 * before all were complete. */
static void windows_are_whole_blocks(void **state)
{
	static const unsigned windows[] = { 1, 2, 5, 16 };
	struct shape s;

	(void)state;
	shape_make(&s, 3000, 0, 7, 13);
	for (unsigned c = 0; c < sizeof(windows) / sizeof(*windows); c++) {
		unsigned wb = windows[c], *left = calloc(s.nblocks, sizeof(*left));
		unsigned in_window = 0, open = 0, nwindows = 0, shard_changes = 0, last_shard = UINT32_MAX;
		bool blocks_ascending = true, shards_ascending = true;
		unsigned prev_block = UINT32_MAX;
		struct gf_order *o;

		assert_non_null(left);
		s.p.window_blocks = wb;
		o = build(&s.p);
		for (unsigned b = 0; b < s.nblocks; b++)
			left[b] = (unsigned)(s.first[b + 1] - s.first[b]);
		for (uint64_t pos = 0; pos < s.samples; pos++) {
			unsigned b = gf_order_block_of(o, gf_order_at(o, pos));

			assert_true(b < s.nblocks);
			assert_true(s.first[b] <= gf_order_at(o, pos) && gf_order_at(o, pos) < s.first[b + 1]);
			if (left[b] == s.first[b + 1] - s.first[b]) {
				in_window++;
				open++;
				assert_true(in_window <= wb);
			}
			if (--left[b] == 0)
				open--;
			if (wb == 1) {
				/* One block per window: the block sequence itself. */
				if (b != prev_block) {
					if (prev_block != UINT32_MAX && s.shard[b] == s.shard[prev_block] && b < prev_block)
						blocks_ascending = false;
					if (s.shard[b] != last_shard) {
						shard_changes++;
						if (last_shard != UINT32_MAX && s.shard[b] < last_shard)
							shards_ascending = false;
					}
					last_shard = s.shard[b];
					prev_block = b;
				}
			}
			if (!open && (in_window == wb || pos + 1 == s.samples)) {
				nwindows++;
				in_window = 0;
			}
		}
		assert_int_equal(open, 0);
		assert_int_equal(nwindows, (s.nblocks + wb - 1) / wb);
		if (wb == 1) {
			/* Each shard's blocks together, shards and the blocks
			 * inside one out of dataset order. */
			assert_int_equal(shard_changes, s.shard[s.nblocks - 1] + 1);
			assert_false(blocks_ascending);
			assert_false(shards_ascending);
		}
		gf_order_free(o);
		free(left);
	}
	shape_free(&s);
}

/* Windows of the same shape are shuffled each with a stream of its own:
 * with one 64-sample block a window, the samples' places inside their
 * blocks differ from window to window. */
static void windows_shuffled_apart(void **state)
{
	struct shape s;
	struct gf_order *o;
	uint64_t prev[64], cur[64];
	unsigned repeats = 0;

	(void)state;
	shape_make(&s, 64 * 32, 64, 32, 29);
	s.p.window_blocks = 1;
	o = build(&s.p);
	for (uint64_t w = 0; w < 32; w++) {
		for (uint64_t i = 0; i < 64; i++)
			cur[i] = gf_order_at(o, w * 64 + i) % 64;
		if (w && same(prev, cur, 64))
			repeats++;
		memcpy(prev, cur, sizeof(cur));
	}
	assert_int_equal(repeats, 0);
	gf_order_free(o);
	shape_free(&s);
}

/* The algorithm as docs/loader.md writes it (its Python reference gave
 * these): the order of a given epoch never changes from one release to
 * the next, so a saved position resumes the same sequence. */
static void known_answer(void **state)
{
	static const uint64_t first[] = { 0, 3, 4, 9, 12, 20, 21, 30 };
	static const unsigned shard[] = { 0, 0, 1, 1, 1, 4, 4 };
	static const uint64_t want_a[30] = {
		0, 2, 1, 3, 27, 29, 22, 25, 26, 23, 21, 24, 28, 20, 14,
		10, 13, 9, 19, 16, 15, 17, 11, 12, 18, 8, 7, 6, 4, 5,
	}, want_b[30] = {
		8, 17, 5, 13, 15, 12, 16, 11, 7, 14, 10, 6, 18, 4, 9,
		19, 24, 27, 2, 1, 23, 22, 26, 25, 20, 29, 21, 0, 28, 3,
	};
	struct gf_order_params p = {
		.samples = 30, .nblocks = 7, .block_first = first, .block_shard = shard,
		.window_blocks = 2, .seed = 7, .epoch = 1, .world_size = 3, .shuffle = true,
	};
	uint64_t *got;

	(void)state;
	got = sequence(&p, 30);
	assert_memory_equal(got, want_a, sizeof(want_a));
	free(got);
	p.window_blocks = 3;
	p.seed = UINT64_MAX;
	p.epoch = 1ull << 40;
	got = sequence(&p, 30);
	assert_memory_equal(got, want_b, sizeof(want_b));
	free(got);
}

static void no_shuffle_is_dataset_order(void **state)
{
	struct shape s;
	struct gf_order *o;

	(void)state;
	shape_make(&s, 103, 10, 2, 17);
	s.p.shuffle = false;
	s.p.world_size = 5;
	o = build(&s.p);
	assert_int_equal(gf_order_global_len(o), 105);
	for (uint64_t pos = 0; pos < 105; pos++)
		assert_int_equal(gf_order_at(o, pos), pos % 103);
	gf_order_free(o);
	shape_free(&s);
}

/* A full permutation of single-sample blocks has log2(k) bits in every
 * group of k: it holds no sample twice (both ways of drawing it). */
static void quality_full_is_a_permutation(void **state)
{
	struct shape s;
	struct gf_order *o;
	double score, full;

	(void)state;
	shape_make(&s, 1 << 16, 1, 1 << 16, 19);
	o = build(&s.p);
	/* All positions: the whole permutation, in an array. */
	assert_int_equal(gf_order_quality(o, 1 << 16, 0, &score, &full), 0);
	assert_true(fabs(full - 16.0) < 1e-9);
	assert_true(fabs(score - 16.0) < 1e-9);
	/* A few positions of many: only those drawn, in a hash. */
	assert_int_equal(gf_order_quality(o, 2048, 2048, &score, &full), 0);
	assert_true(fabs(full - 11.0) < 1e-9);
	assert_true(fabs(score - 11.0) < 1e-9);
	gf_order_free(o);
	shape_free(&s);
}

static void quality(void **state)
{
	struct shape s;
	struct gf_order *o;
	double score, full, score2, full2;

	(void)state;
	shape_make(&s, 64 * 256, 64, 16, 23);
	o = build(&s.p);
	assert_int_equal(gf_order_quality(o, 32, 0, &score, &full), 0);
	/* Window 4: at most 2 bits; a full permutation of 256 blocks is near
	 * log2(32) = 5. */
	assert_true(score > 1.0 && score <= 2.0 + 1e-9);
	assert_true(full > 4.5 && full <= 5.0 + 1e-9);
	assert_true(score < full);
	/* The same again (windows rebuilt, same stream). */
	assert_int_equal(gf_order_quality(o, 32, 0, &score2, &full2), 0);
	assert_true(score2 == score && full2 == full);
	gf_order_free(o);

	s.p.window_blocks = 64;
	o = build(&s.p);
	assert_int_equal(gf_order_quality(o, 32, 4096, &score2, &full2), 0);
	assert_true(score2 > score);
	gf_order_free(o);

	/* Dataset order, batches inside a block: nothing mixed. */
	s.p.shuffle = false;
	o = build(&s.p);
	assert_int_equal(gf_order_quality(o, 16, 0, &score, &full), 0);
	assert_true(fabs(score) < 1e-12);
	assert_true(full > 3.5);
	assert_int_equal(gf_order_quality(o, 0, 0, &score, &full), -EINVAL);
	assert_int_equal(gf_order_quality(o, 16, 0, NULL, &full), -EINVAL);
	assert_int_equal(gf_order_quality(o, 16, 0, &score, NULL), -EINVAL);
	gf_order_free(o);
	shape_free(&s);
}

static void refused(const struct gf_order_params *p, const char *needle)
{
	struct gf_order *o = (struct gf_order *)(uintptr_t)1;	/* must come back NULL */

	assert_int_equal(gf_order_build(p, &o), -EINVAL);
	assert_null(o);
	if (!strstr(gf_last_error(), needle))
		fail_msg("'%s' does not say '%s'", gf_last_error(), needle);
}

static void pathological(void **state)
{
	uint64_t first[] = { 0, 4, 8, 12 }, unsorted[] = { 0, 8, 4, 12 }, late[] = { 1, 4, 8, 12 };
	unsigned shard[] = { 0, 0, 1 }, down[] = { 1, 0, 2 };
	struct gf_order_params good = {
		.samples = 12, .nblocks = 3, .block_first = first, .block_shard = shard,
		.window_blocks = 2, .world_size = 2, .shuffle = true,
	}, p;
	struct gf_order *o;

	(void)state;
	o = build(&good);
	assert_int_equal(gf_order_rank_samples(o, 2, 0, 1, first), -EINVAL);
	assert_int_equal(gf_order_rank_samples(o, 0, 0, 1, NULL), -EINVAL);
	assert_int_equal(gf_order_rank_samples(o, 0, 7, 0, NULL), -EINVAL);
	assert_int_equal(gf_order_rank_samples(o, 0, 6, 0, NULL), 0);
	assert_int_equal(gf_order_rank_samples(o, 1, 5, UINT64_MAX, first), -EINVAL);
	assert_int_equal(gf_order_at(o, UINT64_MAX), UINT64_MAX);
	assert_int_equal(gf_order_block_of(o, 12), 3);
	assert_int_equal(gf_order_block_of(o, 11), 2);
	assert_int_equal(gf_order_block_of(o, 4), 1);
	assert_int_equal(gf_order_block_of(o, 3), 0);
	gf_order_free(o);
	gf_order_free(NULL);

	assert_int_equal(gf_order_build(&good, NULL), -EINVAL);
	refused(NULL, "params");
	p = good, p.nblocks = 0;
	refused(&p, "nblocks");
	p = good, p.samples = 0;
	refused(&p, "no samples");
	p = good, p.samples = 13;
	refused(&p, "the blocks hold 12 samples, the dataset 13");
	p = good, p.block_first = unsorted;
	refused(&p, "not ascending");
	p = good, p.block_first = late;
	refused(&p, "block 0 starts at sample 1");
	p = good, p.block_first = NULL;
	refused(&p, "block_first");
	p = good, p.block_shard = NULL;
	refused(&p, "block_shard");
	p = good, p.block_shard = down;
	refused(&p, "shards must not decrease");
	p = good, p.window_blocks = 0;
	refused(&p, "window_blocks");
	p = good, p.world_size = 0;
	refused(&p, "world_size");
	p = good, p.uneven = (enum gf_loader_uneven)7;
	refused(&p, "uneven 7");
	{
		uint64_t huge[] = { 0, UINT64_MAX - 1 };
		unsigned one[] = { 0 };

		p = good, p.samples = UINT64_MAX - 1, p.nblocks = 1, p.block_first = huge, p.block_shard = one;
		p.world_size = 8;
		refused(&p, "padded");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exactly_once),
		cmocka_unit_test(fewer_samples_than_ranks),
		cmocka_unit_test(determinism),
		cmocka_unit_test(same_sequence_any_world_size),
		cmocka_unit_test(resume),
		cmocka_unit_test(windows_are_whole_blocks),
		cmocka_unit_test(windows_shuffled_apart),
		cmocka_unit_test(known_answer),
		cmocka_unit_test(no_shuffle_is_dataset_order),
		cmocka_unit_test(quality_full_is_a_permutation),
		cmocka_unit_test(quality),
		cmocka_unit_test(pathological),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
