/* The loader's read plan (src/loader/plan.c): records sorted by shard and
 * offset, joined into aligned reads through small gaps, each read within
 * read_max, never more bytes than the buffer; every record's bytes land
 * where the plan says.  Checked by replaying the plan against made-up
 * shard contents. */
#include "helpers.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/error.h>
#include "loader/loader_internal.h"
#include "loader/order.h"
#include "loader/plan.h"

#define MAXN 2048

static struct gf_plan_item items[MAXN];
static struct gf_plan_read reads[MAXN];
static unsigned order_[MAXN];

/* Byte at offset off of shard s: what replaying the plan must find. */
static unsigned char byte_at(unsigned s, uint64_t off)
{
	return (unsigned char)((off * 131u + s * 7u + (off >> 9)) & 0xff);
}

/* Replays the reads into a buffer and checks every record's bytes, the
 * reads' alignment and limits, and that reads of one shard are ascending. */
static void replay(unsigned n, unsigned nreads, const struct gf_plan_limits *lim)
{
	unsigned char *buf = malloc(lim->cap ? lim->cap : 1);
	size_t total = 0;

	assert_non_null(buf);
	for (unsigned i = 0; i < nreads; i++) {
		const struct gf_plan_read *r = &reads[i];

		assert_int_equal(r->off % lim->align, 0);
		assert_int_equal(r->len % lim->align, 0);
		assert_true(r->at + r->len <= lim->cap);
		assert_true(r->need <= r->len);
		for (size_t k = 0; k < r->len; k++)
			buf[r->at + k] = byte_at(r->shard, r->off + k);
		total += r->len;
		if (i && reads[i - 1].shard == r->shard)
			assert_true(reads[i - 1].off <= r->off);
		else if (i)
			assert_true(reads[i - 1].shard < r->shard);
	}
	assert_true(total <= lim->cap);
	for (unsigned j = 0; j < n; j++) {
		const struct gf_plan_item *it = &items[j];
		const struct gf_plan_read *r = &reads[it->read];

		assert_true(it->read < nreads);
		assert_int_equal(r->shard, it->shard);
		assert_true(it->off >= r->off && it->off + it->size <= r->off + r->need);
		for (uint64_t k = 0; k < it->size; k++)
			if (buf[it->at + k] != byte_at(it->shard, it->off + k))
				fail_msg("record %u: byte %llu differs", j, (unsigned long long)k);
	}
	free(buf);
}

/* Adjacent records of one shard in shuffled order: one read. */
static void adjacent_records_join(void **state)
{
	struct gf_plan_limits lim = { .align = 4096, .read_max = 4u << 20, .gap_max = 64u << 10 };
	unsigned n = 64, nreads = 0;

	(void)state;
	for (unsigned j = 0; j < n; j++) {
		unsigned k = (j * 37u) % n;	/* a permutation of 0..63 */

		items[j] = (struct gf_plan_item){ .shard = 0, .off = (uint64_t)k * 4096, .size = 4096 };
	}
	lim.cap = gf_plan_cap(n, 4096, lim.align);
	assert_int_equal(gf_plan_build(items, n, &lim, order_, reads, &nreads), 0);
	assert_int_equal(nreads, 1);
	assert_int_equal(reads[0].len, 64 * 4096);
	replay(n, nreads, &lim);
}

/* Gaps below gap_max are read through, larger ones split the read. */
static void small_gaps_are_read_through(void **state)
{
	struct gf_plan_limits lim = { .align = 4096, .read_max = 4u << 20, .gap_max = 64u << 10 };
	unsigned nreads = 0;

	(void)state;
	items[0] = (struct gf_plan_item){ .shard = 0, .off = 0, .size = 4096 };
	items[1] = (struct gf_plan_item){ .shard = 0, .off = 4096 * 5, .size = 4096 };	/* 16 KiB gap */
	items[2] = (struct gf_plan_item){ .shard = 0, .off = 4096 * 100, .size = 4096 };	/* 380 KiB gap */
	lim.cap = 1u << 20;
	assert_int_equal(gf_plan_build(items, 3, &lim, order_, reads, &nreads), 0);
	assert_int_equal(nreads, 2);
	assert_int_equal(reads[0].len, 6 * 4096);
	assert_int_equal(reads[1].off, 4096 * 100);
	replay(3, nreads, &lim);
	/* Without room for the gap in the buffer, no read-through. */
	lim.cap = gf_plan_cap(3, 4096, lim.align);
	lim.cap = 3 * 4096 + 4096;	/* the spans, and less than the gap */
	assert_int_equal(gf_plan_build(items, 3, &lim, order_, reads, &nreads), 0);
	assert_int_equal(nreads, 3);
	replay(3, nreads, &lim);
}

/* A read stops at read_max; one record larger than it is a read of its own. */
static void reads_stay_within_read_max(void **state)
{
	struct gf_plan_limits lim = { .align = 512, .read_max = 8192, .gap_max = 64u << 10 };
	unsigned n = 40, nreads = 0;

	(void)state;
	for (unsigned j = 0; j < n; j++)
		items[j] = (struct gf_plan_item){ .shard = 0, .off = (uint64_t)j * 1000, .size = 1000 };
	items[n] = (struct gf_plan_item){ .shard = 0, .off = 100000, .size = 30000 };
	lim.cap = gf_plan_cap(n + 1, 30000, lim.align);
	assert_int_equal(gf_plan_build(items, n + 1, &lim, order_, reads, &nreads), 0);
	for (unsigned i = 0; i < nreads; i++)
		if (reads[i].off != 99840)
			assert_true(reads[i].len <= lim.read_max);
	assert_true(nreads >= 5);
	replay(n + 1, nreads, &lim);
}

/* Records of several shards, unaligned and of any size, repeated samples
 * (the pad), at random: every byte where the plan says, within the cap. */
static void random_batches_replay(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int round = 0; round < 300; round++) {
		struct gf_plan_limits lim = { .align = 1u << (x % 13), .read_max = 1u << (10 + x % 12),
					      .gap_max = 64u << 10 };
		unsigned n = 1 + (unsigned)(x % MAXN), nreads = 0;
		uint64_t max_size = 0;

		for (unsigned j = 0; j < n; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			items[j] = (struct gf_plan_item){ .shard = (unsigned)(x % 3), .off = (x >> 8) % (1u << 22),
							  .size = (x >> 40) % 20000 };
			if (j && x % 10 == 0)
				items[j] = items[x % j];	/* the same sample twice */
			if (items[j].size > max_size)
				max_size = items[j].size;
		}
		lim.cap = gf_plan_cap(n, max_size, lim.align);
		assert_int_equal(gf_plan_build(items, n, &lim, order_, reads, &nreads), 0);
		assert_true(nreads >= 1 && nreads <= n);
		replay(n, nreads, &lim);
	}
}

/* With scratch (a window's plan) the records are radix sorted: the same
 * plan as qsort's, field for field, for random records of a few shards,
 * the same record twice, and places too wide for one 64-bit key (qsort
 * then). */
static void radix_sort_plans_as_qsort(void **state)
{
	static struct gf_plan_item copy[MAXN];
	static struct gf_plan_read reads2[MAXN];
	static uint64_t scratch[2 * MAXN];
	uint64_t x = 0x2545f4914f6cdd1dull;

	(void)state;
	for (int round = 0; round < 200; round++) {
		struct gf_plan_limits lim = { .align = 1u << (x % 13), .read_max = 1u << (10 + x % 12),
					      .gap_max = 64u << 10 };
		unsigned n = 1 + (unsigned)(x % MAXN), nreads = 0, nreads2 = 0;
		uint64_t max_size = 0, span = round % 4 == 3 ? UINT64_C(1) << 61 : UINT64_C(1) << (12 + round % 20);

		for (unsigned j = 0; j < n; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			items[j] = (struct gf_plan_item){ .shard = (unsigned)(x % (round % 4 == 3 ? 7919 : 3)),
							  .off = (x >> 3) % span, .size = (x >> 40) % 20000 };
			if (j && x % 10 == 0)
				items[j] = items[x % j];
			if (items[j].size > max_size)
				max_size = items[j].size;
		}
		memcpy(copy, items, n * sizeof(*items));
		lim.cap = gf_plan_cap(n, max_size, lim.align);
		assert_int_equal(gf_plan_build(items, n, &lim, order_, reads, &nreads), 0);
		lim.scratch = scratch;
		assert_int_equal(gf_plan_build(copy, n, &lim, order_, reads2, &nreads2), 0);
		assert_int_equal(nreads, nreads2);
		for (unsigned j = 0; j < n; j++) {
			assert_int_equal(items[j].at, copy[j].at);
			assert_int_equal(items[j].read, copy[j].read);
		}
		for (unsigned i = 0; i < nreads; i++) {
			assert_int_equal(reads[i].shard, reads2[i].shard);
			assert_int_equal(reads[i].off, reads2[i].off);
			assert_int_equal(reads[i].len, reads2[i].len);
			assert_int_equal(reads[i].at, reads2[i].at);
			assert_int_equal(reads[i].need, reads2[i].need);
		}
	}
}

/* A buffer smaller than the records' spans is refused, not overrun. */
static void too_small_a_buffer_is_refused(void **state)
{
	struct gf_plan_limits lim = { .align = 4096, .read_max = 1u << 20, .gap_max = 0, .cap = 8192 };
	unsigned nreads = 7;

	(void)state;
	items[0] = (struct gf_plan_item){ .shard = 0, .off = 0, .size = 4096 };
	items[1] = (struct gf_plan_item){ .shard = 1, .off = 100, .size = 4096 };	/* spans 2 pages */
	assert_int_equal(gf_plan_build(items, 2, &lim, order_, reads, &nreads), -EINVAL);
	assert_int_equal(nreads, 0);
	assert_non_null(strstr(gf_last_error(), "read buffer"));
	assert_int_equal(gf_plan_cap(2, 4096, 4096), 2 * (4096 + 4096));
	assert_int_equal(gf_plan_cap(2, UINT64_MAX - 10, 4096), SIZE_MAX);
	assert_int_equal(gf_plan_cap(SIZE_MAX / 2, 1u << 20, 4096), SIZE_MAX);
}

/* A window's read plan (loader/window.c): rank r of W's positions in the
 * window, their records, planned with the window's limits.  Records of
 * 4 KiB in blocks of 1 MiB, 4 blocks a window: for 1 and 4 ranks, the
 * plan holds exactly the rank's records of the window, its reads are the
 * window's blocks read whole (4 ranks: the 12 KiB gaps read through) in
 * requests of GF_LOADER_WINDOW_READ, and the bytes land where it says. */
static void window_plans_read_whole_blocks(void **state)
{
	enum { PER_BLOCK = 256, BLOCKS = 8, WB = 4, REC = 4096 };
	uint64_t first[BLOCKS + 1];
	unsigned shard[BLOCKS] = { 0 };
	struct gf_order_params p = { .samples = BLOCKS * PER_BLOCK, .nblocks = BLOCKS, .block_first = first,
				     .block_shard = shard, .window_blocks = WB, .seed = 11, .epoch = 2,
				     .shuffle = true, .uneven = GF_LOADER_PAD };
	struct gf_plan_limits lim = { .align = 4096, .read_max = GF_LOADER_WINDOW_READ,
				      .gap_max = GF_LOADER_GAP_MAX, .cap = (size_t)WB * PER_BLOCK * REC };
	static const unsigned worlds[] = { 1, 4 };

	(void)state;
	for (unsigned b = 0; b <= BLOCKS; b++)
		first[b] = (uint64_t)b * PER_BLOCK;
	for (unsigned c = 0; c < 2; c++) {
		struct gf_order *o = NULL;
		unsigned W = worlds[c];

		p.world_size = W;
		assert_int_equal(gf_order_build(&p, &o), 0);
		for (unsigned r = 0; r < W; r++) {
			uint64_t pos = 0;

			while (pos < p.samples) {
				uint64_t idx, wfirst, wend, i0, n, total = 0;
				unsigned nreads = 0, seen[BLOCKS * PER_BLOCK] = { 0 };

				assert_int_equal(gf_order_window(o, pos, &idx, &wfirst, &wend), 0);
				assert_int_equal(wfirst, pos);
				assert_int_equal(wend - wfirst, (uint64_t)WB * PER_BLOCK);
				gf_plan_rank_positions(wfirst, wend, r, W, &i0, &n);
				assert_int_equal(n, (uint64_t)WB * PER_BLOCK / W);
				for (uint64_t i = 0; i < n; i++) {
					uint64_t q = r + (i0 + i) * W, s = gf_order_at(o, q);

					assert_true(q >= wfirst && q < wend);
					items[i] = (struct gf_plan_item){ .shard = 0, .off = s * REC, .size = REC };
				}
				/* Positions just outside belong to the windows beside. */
				if (i0)
					assert_true(r + (i0 - 1) * W < wfirst);
				assert_true(r + (i0 + n) * W >= wend);
				assert_int_equal(gf_plan_build(items, (unsigned)n, &lim, order_, reads, &nreads), 0);
				replay((unsigned)n, nreads, &lim);
				for (unsigned i = 0; i < nreads; i++) {
					assert_true(reads[i].len <= GF_LOADER_WINDOW_READ);
					total += reads[i].len;
				}
				for (uint64_t i = 0; i < n; i++)
					seen[items[i].off / REC]++;
				/* The records of the window's blocks, each once; and
				 * the reads: those blocks, whole but for a block's
				 * ends that no record of the rank needs. */
				for (uint64_t q = wfirst; q < wend; q++) {
					uint64_t s = gf_order_at(o, q);

					assert_int_equal(seen[s], (q - r) % W == 0 && q >= r ? 1 : 0);
				}
				assert_true(total <= (uint64_t)WB * PER_BLOCK * REC);
				assert_true(total >= (uint64_t)WB * PER_BLOCK * REC - 2 * WB * GF_LOADER_GAP_MAX);
				assert_true(nreads <= WB * PER_BLOCK * REC / GF_LOADER_WINDOW_READ + WB);
				if (W == 1)
					assert_int_equal(total, (uint64_t)WB * PER_BLOCK * REC);
				pos = wend;
			}
		}
		gf_order_free(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(adjacent_records_join),
		cmocka_unit_test(window_plans_read_whole_blocks),
		cmocka_unit_test(small_gaps_are_read_through),
		cmocka_unit_test(reads_stay_within_read_max),
		cmocka_unit_test(random_batches_replay),
		cmocka_unit_test(radix_sort_plans_as_qsort),
		cmocka_unit_test(too_small_a_buffer_is_refused),
	};

	return cmocka_run_group_tests_name("loader_plan", tests, NULL, NULL);
}
