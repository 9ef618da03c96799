/* The loader (include/gpufeed/loader.h) on host memory, over datasets
 * packed here with gf_pack: fixed-size records and files of varied sizes
 * whose bytes say which sample they are.  Every sample exactly once per
 * epoch across 1 to 4 ranks, with each batch's bytes checked; batch sizes,
 * the last partial batch, drop_last, pad and drop; determinism; resume on
 * another world size; a truncated shard and a corrupted record reaching
 * gf_loader_next with the shard and offset; close with batches held;
 * DLPack tensors outliving their batch and the loader; memory flat over 50
 * epochs. */
#include "helpers.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpufeed/dataset.h>
#include <gpufeed/dlpack.h>
#include <gpufeed/error.h>
#include <gpufeed/loader.h>
#include <gpufeed/topo.h>

static char *dir;

/* Byte k of sample i: no shift of one sample matches another. */
static unsigned char sample_byte(uint64_t i, uint64_t k)
{
	return (unsigned char)((i * 2654435761u + k * 40503u + (k >> 8) * 31u + (i >> 8)) & 0xff);
}

/* Sample i's size in the variable-size datasets (0..~9000, some of them
 * past a page, one of them empty at times). */
static size_t var_size(uint64_t i)
{
	return (size_t)((i * 7919u) % 9001u);
}

/* A dataset of n records of record_size bytes at dir/name, in shards of
 * shard_bytes; returns its path. */
static char *pack_records(const char *name, uint64_t n, size_t record_size, uint64_t shard_bytes)
{
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	struct gf_pack_result res;
	char in[600], *out = malloc(600);
	const char *inputs[1] = { in };
	unsigned char *data = malloc(n * record_size);
	FILE *f;

	assert_non_null(out);
	assert_non_null(data);
	for (uint64_t i = 0; i < n; i++)
		for (size_t k = 0; k < record_size; k++)
			data[i * record_size + k] = sample_byte(i, k);
	snprintf(in, sizeof(in), "%s/%s.raw", dir, name);
	snprintf(out, 600, "%s/%s", dir, name);
	assert_non_null(f = fopen(in, "wb"));
	assert_int_equal(fwrite(data, 1, n * record_size, f), n * record_size);
	fclose(f);
	free(data);
	po.input = GF_PACK_RECORDS;
	po.record_size = record_size;
	po.shard_bytes = shard_bytes;
	if (gf_pack(inputs, 1, out, &po, &res))
		fail_msg("gf_pack: %s", gf_last_error());
	assert_int_equal(res.samples, n);
	return out;
}

/* A dataset of n files (one sample each, var_size(i) bytes, named so that
 * byte order is sample order). */
static char *pack_files(const char *name, uint64_t n, uint64_t shard_bytes)
{
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	struct gf_pack_result res;
	char in[600], rel[64], *out = malloc(600);
	const char *inputs[1] = { in };
	unsigned char *data = malloc(9001);

	assert_non_null(out);
	assert_non_null(data);
	snprintf(in, sizeof(in), "%s/%s.in", dir, name);
	snprintf(out, 600, "%s/%s", dir, name);
	for (uint64_t i = 0; i < n; i++) {
		size_t len = var_size(i);

		for (size_t k = 0; k < len; k++)
			data[k] = sample_byte(i, k);
		snprintf(rel, sizeof(rel), "%s.in/s%06llu", name, (unsigned long long)i);
		t_write_bytes(dir, rel, data, len);
	}
	free(data);
	po.input = GF_PACK_FILES;
	po.shard_bytes = shard_bytes;
	if (gf_pack(inputs, 1, out, &po, &res))
		fail_msg("gf_pack: %s", gf_last_error());
	assert_int_equal(res.samples, n);
	return out;
}

/* Each sample of the batch has its own bytes, the offsets are ascending
 * from 0 to bytes, and fixed-size batches say so. */
static void check_batch(const struct gf_batch *b, size_t record_size)
{
	const unsigned char *p = b->host;

	assert_non_null(b->host);
	assert_int_equal(b->offsets[0], 0);
	assert_int_equal(b->offsets[b->count], b->bytes);
	assert_int_equal(b->record_size, record_size);
	for (unsigned j = 0; j < b->count; j++) {
		uint64_t s = b->samples[j], len = b->offsets[j + 1] - b->offsets[j];

		assert_int_equal(len, record_size ? record_size : var_size(s));
		for (uint64_t k = 0; k < len; k++)
			if (p[b->offsets[j] + k] != sample_byte(s, k))
				fail_msg("sample %llu (batch position %llu, #%u): byte %llu differs",
					 (unsigned long long)s, (unsigned long long)b->position, j, (unsigned long long)k);
	}
}

static struct gf_loader *open_loader(const char *path, const struct gf_loader_opts *o)
{
	struct gf_loader *l = NULL;

	if (gf_loader_open(path, o, &l))
		fail_msg("gf_loader_open %s: %s", path, gf_last_error());
	return l;
}

/* Runs one epoch of l, checking each batch; appends its samples to seq
 * (room for cap) and returns how many; *nbatches gets the batches. */
static uint64_t run_epoch(struct gf_loader *l, size_t record_size, uint64_t *seq, uint64_t cap, uint64_t *nbatches)
{
	struct gf_batch *b;
	uint64_t n = 0, nb = 0;
	int rc;

	while ((rc = gf_loader_next(l, &b)) == 0) {
		check_batch(b, record_size);
		for (unsigned j = 0; j < b->count; j++) {
			assert_true(n < cap);
			seq[n++] = b->samples[j];
		}
		nb++;
		assert_int_equal(gf_loader_release(l, b), 0);
	}
	if (rc != 1)
		fail_msg("gf_loader_next: %d: %s", rc, gf_last_error());
	assert_null(b);
	if (nbatches)
		*nbatches = nb;
	return n;
}

static int setup(void **state)
{
	(void)state;
	dir = t_mkdtemp();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t_rmtree(dir);
	free(dir);
	return 0;
}

/* Every sample goes to exactly one rank per epoch (pad: the first ones
 * again to even the ranks; drop: the tail left out), each rank the same
 * count, for 1 to 4 ranks, fixed and variable sizes. */
static void every_sample_once_across_ranks(void **state)
{
	const uint64_t n = 203;
	char *fixed = pack_records("once_fixed", n, 1000, 64 << 10);
	char *var = pack_files("once_var", n, 200 << 10);
	uint64_t *seq = malloc(2 * n * sizeof(*seq));
	unsigned *seen = calloc(n, sizeof(*seen));

	(void)state;
	for (int v = 0; v < 2; v++) {
		for (int uneven = 0; uneven < 2; uneven++) {
			for (unsigned w = 1; w <= 4; w++) {
				uint64_t total = 0, per_rank = 0;

				memset(seen, 0, n * sizeof(*seen));
				for (unsigned r = 0; r < w; r++) {
					struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
					struct gf_loader *l;
					uint64_t got, nb;

					o.batch_size = 7;
					o.rank = r;
					o.world_size = w;
					o.seed = 42;
					o.uneven = uneven ? GF_LOADER_DROP : GF_LOADER_PAD;
					o.block_bytes = 16 << 10;
					o.window_blocks = 3;
					l = open_loader(v ? var : fixed, &o);
					got = run_epoch(l, v ? 0 : 1000, seq, 2 * n, &nb);
					assert_int_equal(got, gf_loader_samples(l));
					assert_int_equal(nb, gf_loader_batches(l));
					if (r)
						assert_int_equal(got, per_rank);
					per_rank = got;
					for (uint64_t i = 0; i < got; i++)
						seen[seq[i]]++;
					total += got;
					gf_loader_close(l);
				}
				if (uneven) {
					assert_int_equal(total, n / w * w);
					for (uint64_t i = 0; i < n; i++)
						assert_true(seen[i] <= 1);
				} else {
					assert_int_equal(total, (n + w - 1) / w * w);
					for (uint64_t i = 0; i < n; i++)
						if (seen[i] < 1 || seen[i] > 2)
							fail_msg("%u ranks: sample %llu seen %u times", w,
								 (unsigned long long)i, seen[i]);
				}
			}
		}
	}
	free(seq);
	free(seen);
	free(fixed);
	free(var);
}

/* The read paths (docs/loader.md, "Reads"): small records through
 * windows of blocks read whole, with batches that span two windows (48
 * records a window, batches of 5), on 1 and 4 ranks; records of 128 KiB
 * read straight into the slot.  Every sample once, its bytes, and
 * bytes_read: a window's blocks read once each (4 ranks: through the
 * gaps, so at least twice the quarter of the records a rank needs; whole
 * blocks but for their ends), a large record once. */
static void window_and_direct_reads(void **state)
{
	const uint64_t n = 200, nbig = 40;
	char *small = pack_records("win_small", n, 4096, 1 << 20);
	char *big = pack_records("win_big", nbig, 128 << 10, 4 << 20);
	uint64_t *seq = malloc(2 * n * sizeof(*seq));
	unsigned *seen = calloc(n, sizeof(*seen));

	(void)state;
	for (int v = 0; v < 2; v++) {
		uint64_t count = v ? nbig : n;
		size_t rec = v ? 128 << 10 : 4096;

		for (unsigned w = 1; w <= 4; w += 3) {
			memset(seen, 0, n * sizeof(*seen));
			for (unsigned r = 0; r < w; r++) {
				struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
				struct gf_loader_counters c;
				struct gf_loader *l;
				uint64_t got;

				o.batch_size = v ? 3 : 5;
				o.rank = r;
				o.world_size = w;
				o.seed = 9;
				o.threads = 2;
				o.slots = 3;
				o.block_bytes = v ? 256 << 10 : 64 << 10;
				o.window_blocks = 3;
				l = open_loader(v ? big : small, &o);
				got = run_epoch(l, rec, seq, 2 * n, NULL);
				assert_int_equal(got, count / w);
				for (uint64_t i = 0; i < got; i++)
					seen[seq[i]]++;
				assert_int_equal(gf_loader_counters(l, &c), 0);
				if (v || w == 1)
					assert_int_equal(c.bytes_read, got * rec);
				else
					assert_true(c.bytes_read >= count * rec / 2 && c.bytes_read <= count * rec);
				gf_loader_close(l);
			}
			for (uint64_t i = 0; i < count; i++)
				assert_int_equal(seen[i], 1);
		}
	}
	free(seq);
	free(seen);
	free(small);
	free(big);
}

/* The threads read nothing before the caller first asks: set_epoch(0)
 * (or load_state) right after open, as bench loader and gpufeed.torch
 * do, throws nothing away, so an epoch reads each window once.  (Reads
 * started at open used to be dropped by that set_epoch and read again.)
 * Several loaders, each given time to have started reading if it did. */
static void set_epoch_after_open_reads_once(void **state)
{
	const uint64_t n = 200;
	char *path = pack_records("epoch_after_open", n, 4096, 1 << 20);
	uint64_t *seq = malloc(n * sizeof(*seq));

	(void)state;
	for (int k = 0; k < 6; k++) {
		struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
		struct gf_loader_counters c;
		struct gf_loader *l;

		o.batch_size = 5;
		o.seed = 3;
		o.threads = 2;
		o.slots = 3;
		o.block_bytes = 64 << 10;
		o.window_blocks = 3;
		l = open_loader(path, &o);
		/* Room for the threads to read ahead, had they been let. */
		usleep(2000);
		assert_int_equal(gf_loader_counters(l, &c), 0);
		assert_int_equal(c.bytes_read, 0);
		if (k % 3 == 0)
			assert_int_equal(gf_loader_set_epoch(l, 0), 0);
		else if (k % 3 == 1) {
			struct gf_loader_state st;

			assert_int_equal(gf_loader_state(l, &st), 0);
			assert_int_equal(gf_loader_load_state(l, &st), 0);
		}
		assert_int_equal(run_epoch(l, 4096, seq, n, NULL), n);
		assert_int_equal(gf_loader_counters(l, &c), 0);
		assert_int_equal(c.bytes_read, n * 4096);
		gf_loader_close(l);
	}
	free(seq);
	free(path);
}

/* PyTorch's drop_last: the last partial batch is delivered unless asked. */
static void batch_sizes_and_the_last_batch(void **state)
{
	const uint64_t n = 50;
	char *path = pack_records("batches", n, 512, 1 << 20);
	unsigned sizes[] = { 1, 7, 10, 49, 50, 64 };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (int drop = 0; drop < 2; drop++) {
			struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
			struct gf_loader *l;
			struct gf_batch *b;
			uint64_t batches = 0, samples = 0;
			unsigned last = 0;

			o.batch_size = sizes[i];
			o.drop_last = drop;
			o.shuffle = false;
			l = open_loader(path, &o);
			while (gf_loader_next(l, &b) == 0) {
				assert_int_equal(b->position, samples);
				for (unsigned j = 0; j < b->count; j++)
					assert_int_equal(b->samples[j], samples + j);	/* no shuffle: dataset order */
				check_batch(b, 512);
				batches++;
				samples += b->count;
				last = b->count;
				gf_loader_release(l, b);
			}
			assert_int_equal(batches, gf_loader_batches(l));
			if (drop) {
				assert_int_equal(batches, n / sizes[i]);
				assert_int_equal(samples, n / sizes[i] * sizes[i]);
			} else {
				assert_int_equal(batches, (n + sizes[i] - 1) / sizes[i]);
				assert_int_equal(samples, n);
				assert_int_equal(last, n % sizes[i] ? n % sizes[i] : sizes[i]);
			}
			/* The end stays the end until the next epoch. */
			assert_int_equal(gf_loader_next(l, &b), 1);
			gf_loader_close(l);
		}
	}
	free(path);
}

/* The order is a function of (seed, epoch): the same for two loaders,
 * another for another epoch or seed, and shuffled. */
static void order_is_deterministic(void **state)
{
	const uint64_t n = 300;
	char *path = pack_records("determinism", n, 256, 32 << 10);
	uint64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b)), *c = malloc(n * sizeof(*c));
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader *l1, *l2;
	size_t moved = 0;
	double score, full;

	(void)state;
	o.batch_size = 16;
	o.seed = 7;
	o.block_bytes = 4096;
	o.threads = 3;
	l1 = open_loader(path, &o);
	o.threads = 1;
	o.slots = 2;
	l2 = open_loader(path, &o);
	assert_int_equal(run_epoch(l1, 256, a, n, NULL), n);
	assert_int_equal(run_epoch(l2, 256, b, n, NULL), n);
	assert_memory_equal(a, b, n * sizeof(*a));
	for (uint64_t i = 0; i < n; i++)
		moved += a[i] != i;
	assert_true(moved > n / 2);
	assert_int_equal(gf_loader_shuffle_quality(l1, &score, &full), 0);
	assert_true(score > 0 && full > 0);
	/* The next epoch: another order. */
	assert_int_equal(gf_loader_set_epoch(l1, 1), 0);
	assert_int_equal(run_epoch(l1, 256, c, n, NULL), n);
	assert_memory_not_equal(a, c, n * sizeof(*a));
	/* Epoch 0 again: the first order. */
	assert_int_equal(gf_loader_set_epoch(l1, 0), 0);
	assert_int_equal(run_epoch(l1, 256, c, n, NULL), n);
	assert_memory_equal(a, c, n * sizeof(*a));
	gf_loader_close(l1);
	gf_loader_close(l2);
	/* Another seed: another order. */
	o.seed = 8;
	l1 = open_loader(path, &o);
	assert_int_equal(run_epoch(l1, 256, c, n, NULL), n);
	assert_memory_not_equal(a, c, n * sizeof(*a));
	gf_loader_close(l1);
	free(a);
	free(b);
	free(c);
	free(path);
}

/* The global sequence: rank r of w takes positions r, r + w, ...; a run
 * stopped after k batches on 4 ranks resumes on 2 (and on 3) where the
 * global sequence stands, without reading what came before. */
/* A resume at a global position that is not a multiple of the new world
 * size, on records small enough to be read a window at a time: each rank's
 * positions are then start + rank + i * W, which is not rank modulo W (the
 * windows once listed the rank's positions as rank + i * W, and every
 * batch failed with -EIO). */
static void resume_at_an_odd_position_reads_windows(void **state)
{
	const uint64_t n = 200;
	char *path = pack_records("oddresume", n, 4096, 0);
	uint64_t *g = malloc(n * sizeof(*g)), *seq = malloc(2 * n * sizeof(*seq));
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader *l;

	(void)state;
	o.seed = 99;
	o.batch_size = 1;
	o.block_bytes = 64 << 10;
	o.window_blocks = 3;
	o.uneven = GF_LOADER_DROP;
	l = open_loader(path, &o);
	assert_int_equal(run_epoch(l, 4096, g, n, NULL), n);	/* the global order */
	gf_loader_close(l);
	o.batch_size = 5;
	o.world_size = 3;
	for (uint64_t pos = 1; pos <= 5; pos++) {
		struct gf_loader_state st = { .seed = 99, .epoch = 0, .position = pos, .world_size = 4, .batch_size = 5 };

		for (unsigned r = 0; r < 3; r++) {
			uint64_t got;

			o.rank = r;
			l = open_loader(path, &o);
			assert_int_equal(gf_loader_load_state(l, &st), 0);
			got = run_epoch(l, 4096, seq, 2 * n, NULL);
			assert_true(got >= (n - pos) / 3 - 1);
			for (uint64_t i = 0; i < got && pos + r + i * 3 < n; i++)
				assert_int_equal(seq[i], g[pos + r + i * 3]);
			gf_loader_close(l);
		}
	}
	free(g);
	free(seq);
	free(path);
}

static void resume_on_another_world_size(void **state)
{
	const uint64_t n = 500;
	char *path = pack_files("resume", n, 256 << 10);
	uint64_t *g = malloc(n * sizeof(*g)), *seq = malloc(2 * n * sizeof(*seq));
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader_state st = { 0 };
	struct gf_loader *l;
	struct gf_batch *b;
	const unsigned k = 5, bs = 6;

	(void)state;
	o.seed = 1234;
	o.batch_size = 1;
	o.block_bytes = 8192;
	o.window_blocks = 4;
	o.uneven = GF_LOADER_DROP;
	l = open_loader(path, &o);
	assert_int_equal(run_epoch(l, 0, g, n, NULL), n);	/* the global order */
	gf_loader_close(l);

	o.batch_size = bs;
	o.uneven = GF_LOADER_PAD;
	for (unsigned r = 0; r < 4; r++) {
		o.rank = r;
		o.world_size = 4;
		l = open_loader(path, &o);
		for (unsigned i = 0; i < k; i++) {
			assert_int_equal(gf_loader_next(l, &b), 0);
			for (unsigned j = 0; j < b->count; j++)
				assert_int_equal(b->samples[j], g[r + (i * bs + j) * 4]);
			gf_loader_release(l, b);
		}
		assert_int_equal(gf_loader_state(l, &st), 0);
		assert_int_equal(st.position, (uint64_t)k * bs * 4);
		assert_int_equal(st.epoch, 0);
		assert_int_equal(st.world_size, 4);
		gf_loader_close(l);
	}
	for (unsigned w = 2; w <= 3; w++) {
		uint64_t covered = st.position;

		for (unsigned r = 0; r < w; r++) {
			struct gf_loader_counters c;
			uint64_t got, i;

			o.rank = r;
			o.world_size = w;
			o.slots = 2;
			o.threads = 1;
			l = open_loader(path, &o);
			assert_int_equal(gf_loader_load_state(l, &st), 0);
			/* What was read before load_state: at most the first slots. */
			assert_int_equal(gf_loader_counters(l, &c), 0);
			got = run_epoch(l, 0, seq, 2 * n, NULL);
			for (i = 0; i < got && st.position + r + i * w < n; i++)
				assert_int_equal(seq[i], g[st.position + r + i * w]);
			/* Past the end (the pad): the epoch's first samples. */
			for (; i < got; i++)
				assert_int_equal(seq[i], g[(st.position + r + i * w) % n]);
			assert_int_equal(got, (n - st.position + w - 1) / w);
			covered += got;
			gf_loader_close(l);
		}
		assert_true(covered >= n && covered < n + w);
	}
	/* A state of another seed is refused. */
	o.world_size = 1;
	o.rank = 0;
	l = open_loader(path, &o);
	st.seed++;
	assert_int_equal(gf_loader_load_state(l, &st), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "seed"));
	gf_loader_close(l);
	free(g);
	free(seq);
	free(path);
}

/* Resume is O(1) in the position: starting near the end of a dataset reads
 * a few batches' records, not what comes before. */
static void resume_reads_only_what_follows(void **state)
{
	const uint64_t n = 2000;
	char *path = pack_records("resume_far", n, 4096, 1 << 20);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader_state st = { .seed = 5, .epoch = 3, .position = n - 20, .world_size = 1, .batch_size = 4 };
	struct gf_loader_counters c;
	struct gf_loader *l;
	struct gf_batch *b;
	uint64_t got = 0;

	(void)state;
	o.seed = 5;
	o.batch_size = 4;
	o.slots = 2;
	o.threads = 1;
	o.shuffle = false;
	/* Windows of 8 records (2 blocks of 4). */
	o.block_bytes = 4 * 4096;
	o.window_blocks = 2;
	l = open_loader(path, &o);
	assert_int_equal(gf_loader_load_state(l, &st), 0);
	while (gf_loader_next(l, &b) == 0) {
		assert_int_equal(b->epoch, 3);
		assert_int_equal(b->samples[0], n - 20 + got);
		got += b->count;
		gf_loader_release(l, b);
	}
	assert_int_equal(got, 20);
	assert_int_equal(gf_loader_counters(l, &c), 0);
	/* The 20 records and the rest of the window the first of them is in
	 * (at most 8 records), plus what was read before load_state: the two
	 * windows resident at most. */
	assert_true(c.bytes_read <= (20 + 8 + 2 * 8) * 4096);
	gf_loader_close(l);
	free(path);
}

static const char *shard_path(const char *ds, unsigned shard, uint64_t *first)
{
	static char path[600];
	struct gf_dataset *d;
	struct gf_shard_info si;

	assert_int_equal(gf_dataset_open(ds, &d), 0);
	assert_int_equal(gf_dataset_shard(d, shard, &si), 0);
	snprintf(path, sizeof(path), "%s", si.data_path);
	if (first)
		*first = si.first_sample;
	gf_dataset_close(d);
	return path;
}

/* Runs l from its epoch's start until an error; the error. */
static int run_to_error(struct gf_loader *l)
{
	struct gf_batch *b;
	int rc;

	assert_int_equal(gf_loader_set_epoch(l, 0), 0);
	while ((rc = gf_loader_next(l, &b)) == 0)
		gf_loader_release(l, b);
	return rc;
}

/* A shard cut short after open: the batch that needs its tail fails at
 * gf_loader_next with the shard and the offset; the loader stays failed,
 * and recovers at the next epoch only if the data is whole again. */
static void truncated_shard_fails_next(void **state)
{
	char *path = pack_records("truncated", 100, 4096, 1 << 30);
	const char *shard = shard_path(path, 0, NULL);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader *l;
	struct gf_batch *b;
	int rc;

	(void)state;
	o.batch_size = 8;
	o.shuffle = false;
	l = open_loader(path, &o);
	assert_int_equal(truncate(shard, 4096 * 90 + 100), 0);
	rc = run_to_error(l);
	assert_int_equal(rc, -EIO);
	if (!strstr(gf_last_error(), shard) || !strstr(gf_last_error(), "offset"))
		fail_msg("the message should name %s and the offset: %s", shard, gf_last_error());
	/* Failed until set_epoch or load_state. */
	assert_int_equal(gf_loader_next(l, &b), -EIO);
	assert_null(b);
	gf_loader_close(l);
	free(path);

	/* Records of 128 KiB, read straight into the slot: the same (one
	 * thread: the batch with the cut record fails before the next). */
	o.threads = 1;
	path = pack_records("truncated_big", 20, 128 << 10, 1 << 30);
	shard = shard_path(path, 0, NULL);
	l = open_loader(path, &o);
	assert_int_equal(truncate(shard, (128 << 10) * 15 + 100), 0);
	assert_int_equal(run_to_error(l), -EIO);
	if (!strstr(gf_last_error(), shard) || !strstr(gf_last_error(), "offset 1966080"))
		fail_msg("the message should name %s and the offset 1966080: %s", shard, gf_last_error());
	gf_loader_close(l);
	free(path);
}

/* A record whose bytes changed after packing: with verify, the batch that
 * holds it fails naming the shard and the record's offset; without, the
 * bytes are delivered as they are. */
static void corrupted_record_with_verify(void **state)
{
	char *path = pack_records("corrupt", 64, 1000, 1 << 30);
	const char *shard = shard_path(path, 0, NULL);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_sample_loc at;
	struct gf_dataset *d;
	struct gf_loader *l;
	char offset[32];
	unsigned char x;
	const char *msg;
	int fd;

	(void)state;
	assert_int_equal(gf_dataset_open(path, &d), 0);
	assert_int_equal(gf_dataset_sample(d, 41, &at), 0);
	gf_dataset_close(d);
	fd = open(shard, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &x, 1, (off_t)at.offset + 10), 1);
	x ^= 0x5a;
	assert_int_equal(pwrite(fd, &x, 1, (off_t)at.offset + 10), 1);
	close(fd);

	o.batch_size = 5;
	o.verify = true;
	o.buffered = true;
	l = open_loader(path, &o);
	assert_int_equal(run_to_error(l), -EBADMSG);
	snprintf(offset, sizeof(offset), "%llu", (unsigned long long)at.offset);
	msg = gf_last_error();
	if (!strstr(msg, shard) || !strstr(msg, offset))
		fail_msg("the message should name %s and offset %s: %s", shard, offset, msg);
	gf_loader_close(l);

	o.verify = false;
	l = open_loader(path, &o);
	{
		struct gf_batch *b;
		bool found = false;

		while (gf_loader_next(l, &b) == 0) {
			for (unsigned j = 0; j < b->count; j++)
				if (b->samples[j] == 41) {
					found = true;
					assert_int_equal(((unsigned char *)b->host)[b->offsets[j] + 10], x);
				}
			gf_loader_release(l, b);
		}
		assert_true(found);
	}
	gf_loader_close(l);
	free(path);
}

/* A batch held across set_epoch keeps its bytes (its slot is not refilled)
 * while the new epoch runs on the other slots, and is released after. */
static void batch_held_across_set_epoch(void **state)
{
	char *path = pack_files("held", 120, 64 << 10);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	uint64_t *seq = malloc(120 * sizeof(*seq));
	struct gf_loader *l;
	struct gf_batch *held;

	(void)state;
	o.batch_size = 5;
	o.slots = 2;
	o.threads = 3;
	l = open_loader(path, &o);
	assert_int_equal(gf_loader_next(l, &held), 0);
	assert_int_equal(held->epoch, 0);
	assert_int_equal(gf_loader_set_epoch(l, 4), 0);
	assert_int_equal(run_epoch(l, 0, seq, 120, NULL), 120);
	check_batch(held, 0);
	assert_int_equal(held->epoch, 0);
	assert_int_equal(gf_loader_release(l, held), 0);
	/* And across load_state, mid-epoch. */
	assert_int_equal(gf_loader_set_epoch(l, 5), 0);
	assert_int_equal(gf_loader_next(l, &held), 0);
	{
		struct gf_loader_state st = { .seed = 0, .epoch = 5, .position = 60 };

		assert_int_equal(gf_loader_load_state(l, &st), 0);
	}
	assert_int_equal(run_epoch(l, 0, seq, 120, NULL), 60);
	check_batch(held, 0);
	assert_int_equal(gf_loader_release(l, held), 0);
	gf_loader_close(l);
	free(seq);
	free(path);
}

/* More threads than slots, tiny batches: the threads contend for slots,
 * batches still come in order with their own bytes. */
static void more_threads_than_slots(void **state)
{
	char *path = pack_files("contend", 150, 32 << 10);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	uint64_t *seq = malloc(150 * sizeof(*seq)), *ref = malloc(150 * sizeof(*ref));
	struct gf_loader *l;

	(void)state;
	o.batch_size = 2;
	o.slots = 2;
	o.threads = 6;
	o.seed = 77;
	o.block_bytes = 8192;
	l = open_loader(path, &o);
	for (uint64_t e = 0; e < 3; e++) {
		assert_int_equal(gf_loader_set_epoch(l, e), 0);
		assert_int_equal(run_epoch(l, 0, seq, 150, NULL), 150);
	}
	gf_loader_close(l);
	/* The same order as one thread makes. */
	o.threads = 1;
	l = open_loader(path, &o);
	assert_int_equal(gf_loader_set_epoch(l, 2), 0);
	assert_int_equal(run_epoch(l, 0, ref, 150, NULL), 150);
	assert_memory_equal(seq, ref, 150 * sizeof(*seq));
	gf_loader_close(l);
	free(seq);
	free(ref);
	free(path);
}

/* Waits (without a clock) until the threads have filled `ready` batches. */
static void wait_ready(struct gf_loader *l, unsigned ready)
{
	struct gf_loader_counters c;

	for (;;) {
		assert_int_equal(gf_loader_counters(l, &c), 0);
		if (c.batches_ready >= ready)
			return;
		usleep(1000);
	}
}

/* Closing mid-epoch with batches held and every slot full frees
 * everything (the sanitizer build checks nothing leaks); holding every
 * slot makes gf_loader_next say so rather than wait forever. */
static void close_mid_epoch_with_batches_held(void **state)
{
	char *path = pack_files("close", 400, 64 << 10);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader_counters c;
	struct gf_loader *l;
	struct gf_batch *b1, *b2, *b3;

	(void)state;
	o.batch_size = 10;
	o.slots = 3;
	o.threads = 2;
	l = open_loader(path, &o);
	assert_int_equal(gf_loader_next(l, &b1), 0);
	assert_int_equal(gf_loader_next(l, &b2), 0);
	assert_int_equal(gf_loader_next(l, &b3), 0);
	assert_int_equal(gf_loader_next(l, &b1), -ENOBUFS);
	assert_non_null(strstr(gf_last_error(), "slots"));
	assert_int_equal(gf_loader_counters(l, &c), 0);
	assert_int_equal(c.slots_in_use, 3);
	assert_int_equal(c.slots, 3);
	assert_int_equal(c.batches_delivered, 3);
	gf_loader_release(l, b3);
	wait_ready(l, 1);
	/* A batch released twice, or of nobody, is refused. */
	assert_int_equal(gf_loader_release(l, b3), -EINVAL);
	assert_int_equal(gf_loader_release(l, (struct gf_batch *)&c), -EINVAL);
	gf_loader_close(l);

	/* Closing right after open, while the threads read. */
	l = open_loader(path, &o);
	gf_loader_close(l);
	free(path);
}

/* The payload as DLPack tensors: shape {count, record_size}; the tensor
 * keeps the slot after release, and its memory after close. */
static void dlpack_keeps_the_slot(void **state)
{
	char *path = pack_records("dlpack", 40, 100, 1 << 20);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_dl_managed_tensor *t, *offs;
	struct gf_loader_counters c;
	struct gf_loader *l;
	struct gf_batch *b, *none;
	uint64_t first;

	(void)state;
	o.batch_size = 8;
	o.slots = 2;
	o.threads = 1;
	l = open_loader(path, &o);
	assert_int_equal(gf_loader_next(l, &b), 0);
	assert_int_equal(gf_batch_dlpack(b, &t, &offs), 0);
	assert_int_equal(t->dl_tensor.ndim, 2);
	assert_int_equal(t->dl_tensor.shape[0], 8);
	assert_int_equal(t->dl_tensor.shape[1], 100);
	assert_int_equal(t->dl_tensor.device.device_type, GF_DL_CPU);
	assert_ptr_equal((char *)t->dl_tensor.data + t->dl_tensor.byte_offset, b->host);
	assert_int_equal(offs->dl_tensor.shape[0], 9);
	assert_int_equal(((int64_t *)offs->dl_tensor.data)[8], 800);
	offs->deleter(offs);
	assert_int_equal(gf_loader_release(l, b), 0);
	/* Released, the batch makes no tensor; its slot stays with the tensor. */
	assert_int_equal(gf_batch_dlpack(b, &offs, NULL), -EINVAL);
	assert_int_equal(gf_loader_counters(l, &c), 0);
	assert_true(c.slots_in_use >= 1);
	assert_int_equal(gf_loader_next(l, &b), 0);
	assert_int_equal(gf_loader_next(l, &none), -ENOBUFS);	/* the tensor holds the other slot */
	assert_null(none);
	t->deleter(t);
	/* A tensor outlives the loader. */
	assert_int_equal(gf_batch_dlpack(b, &t, NULL), 0);
	first = b->samples[0];
	gf_loader_close(l);
	for (unsigned k = 0; k < 100; k++)
		assert_int_equal(((unsigned char *)t->dl_tensor.data)[k], sample_byte(first, k));
	t->deleter(t);
	free(path);
}

/* The transform hook runs on each sample: it may rewrite and resize it. */
static int shrink_and_flip(void *user, uint64_t sample, void *data, size_t *len, size_t cap)
{
	unsigned char *p = data;

	(void)user;
	if (sample == 999999)
		return -EPROTO;
	assert_true(cap >= *len);
	for (size_t k = 0; k < *len; k++)
		p[k] ^= 0xff;
	if (sample % 2)
		*len /= 2;
	return 0;
}

static int refuse_sample_7(void *user, uint64_t sample, void *data, size_t *len, size_t cap)
{
	(void)user;
	(void)data;
	(void)len;
	(void)cap;
	return sample == 7 ? -EPROTO : 0;
}

static void transform_hook(void **state)
{
	char *path = pack_records("transform", 30, 200, 1 << 20);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader *l;
	struct gf_batch *b;

	(void)state;
	o.batch_size = 4;
	o.transform = shrink_and_flip;
	l = open_loader(path, &o);
	while (gf_loader_next(l, &b) == 0) {
		const unsigned char *p = b->host;
		bool odd = false;

		for (unsigned j = 0; j < b->count; j++) {
			uint64_t s = b->samples[j], len = b->offsets[j + 1] - b->offsets[j];

			odd |= s % 2;
			assert_int_equal(len, s % 2 ? 100 : 200);
			for (uint64_t k = 0; k < len; k++)
				assert_int_equal(p[b->offsets[j] + k], sample_byte(s, k) ^ 0xff);
		}
		assert_int_equal(b->record_size, odd ? 0 : 200);
		gf_loader_release(l, b);
	}
	gf_loader_close(l);

	o.transform = refuse_sample_7;
	l = open_loader(path, &o);
	assert_int_equal(run_to_error(l), -EPROTO);
	assert_non_null(strstr(gf_last_error(), "sample 7"));
	gf_loader_close(l);
	free(path);
}

/* Counters say what happened. */
static void counters_add_up(void **state)
{
	char *path = pack_records("counters", 64, 4096, 1 << 20);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader_counters c;
	struct gf_loader *l;
	uint64_t seq[64], nb;

	(void)state;
	o.batch_size = 10;
	l = open_loader(path, &o);
	assert_int_equal(run_epoch(l, 4096, seq, 64, &nb), 64);
	assert_int_equal(gf_loader_counters(l, &c), 0);
	assert_int_equal(c.batches_delivered, 7);
	assert_int_equal(c.samples_delivered, 64);
	assert_int_equal(c.next_calls, 8);
	assert_true(c.bytes_read >= 64 * 4096);
	assert_int_equal(c.slots_in_use, 0);
	assert_int_equal(c.batches_ready, 0);
	assert_int_equal(c.slots, 4);
	assert_int_equal(c.copy_ns, 0);
	gf_loader_close(l);
	free(path);
}

static long rss_pages(void)
{
	long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld %ld", &size, &rss), 2);
	fclose(f);
	return rss;
}

/* Memory is the pool's: 50 epochs do not grow the resident set. */
static void memory_flat_over_epochs(void **state)
{
	char *path = pack_files("memory", 300, 128 << 10);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader *l;
	uint64_t *seq = malloc(300 * sizeof(*seq));
	long after_first, now, page = sysconf(_SC_PAGESIZE);

	(void)state;
	o.batch_size = 16;
	o.threads = 3;
	o.slots = 4;
	l = open_loader(path, &o);
	assert_int_equal(run_epoch(l, 0, seq, 300, NULL), 300);
	assert_int_equal(gf_loader_set_epoch(l, 1), 0);
	assert_int_equal(run_epoch(l, 0, seq, 300, NULL), 300);
	after_first = rss_pages();
	for (uint64_t e = 2; e < 50; e++) {
		assert_int_equal(gf_loader_set_epoch(l, e), 0);
		assert_int_equal(run_epoch(l, 0, seq, 300, NULL), 300);
	}
	now = rss_pages();
	if ((now - after_first) * page > (1 << 20))
		fail_msg("RSS grew by %ld KiB over 48 epochs", (now - after_first) * page / 1024);
	gf_loader_close(l);
	free(seq);
	free(path);
}

/* The line of a /proc file that starts with key, its value in out. */
static bool proc_line(const char *path, const char *key, char *out, size_t size)
{
	char line[512];
	FILE *f = fopen(path, "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key))) {
			found = sscanf(line + strlen(key), " %255s", out) == 1 && strlen(out) < size;
		}
	if (f)
		fclose(f);
	return found;
}

/* The CPUs each I/O thread (named gf-loader-io) may run on, as the kernel
 * says; waits until `want` of them are there. */
static unsigned io_thread_cpus(unsigned want, char lists[][256])
{
	unsigned n = 0;

	/* A bound on the polls, not a timing: a thread never named fails. */
	for (unsigned tries = 0;; tries++) {
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;

		assert_non_null(d);
		n = 0;
		while ((e = readdir(d)) && n < want) {
			char p[300], comm[256];

			if (e->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "/proc/self/task/%s/status", e->d_name);
			if (proc_line(p, "Name:", comm, sizeof(comm)) && !strcmp(comm, "gf-loader-io"))
				assert_true(proc_line(p, "Cpus_allowed_list:", lists[n++], 256));
		}
		closedir(d);
		if (n == want)
			return n;
		if (tries == 60000)
			fail_msg("%u of the %u I/O threads named gf-loader-io found", n, want);
		usleep(1000);
	}
}

/* With a node, the I/O threads run on its CPUs (the model's, within this
 * process's): a model whose node 0 holds only this process's last CPU. */
static void threads_bound_to_the_node(void **state)
{
	char *path = pack_records("bind", 40, 512, 1 << 20);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_topo *t = t_live_model();
	char lists[3][256], want[16];
	struct gf_loader *l;
	cpu_set_t set;
	int last = -1;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			last = c;
	if (CPU_COUNT(&set) < 2 || !t || t->numa.nnodes < 1) {
		gf_topo_free(t);
		free(path);
		skip();
	}
	gf_cpuset_zero(&t->numa.node[0].cpus);
	gf_cpuset_set(&t->numa.node[0].cpus, (unsigned)last);
	o.batch_size = 4;
	o.threads = 3;
	o.numa_node = t->numa.node[0].id;
	o.model = t;
	l = open_loader(path, &o);
	snprintf(want, sizeof(want), "%d", last);
	/* An io_uring worker the kernel starts for an I/O thread carries its
	 * creator's name, unbound, until it names itself iou-wrk: look again
	 * (a bound on the polls; an unbound I/O thread still fails). */
	for (unsigned tries = 0; tries < 1000; tries++) {
		bool all = true;

		assert_int_equal(io_thread_cpus(3, lists), 3);
		for (unsigned i = 0; i < 3; i++)
			all = all && !strcmp(lists[i], want);
		if (all)
			break;
		usleep(1000);
	}
	for (unsigned i = 0; i < 3; i++)
		assert_string_equal(lists[i], want);
	gf_loader_close(l);
	gf_topo_free(t);
	free(path);
}

/* Bad options are refused at open, naming the option. */
static void bad_options_refused(void **state)
{
	char *path = pack_records("options", 10, 64, 1 << 20);
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader *l = (struct gf_loader *)&o;

	(void)state;
	assert_int_equal(gf_loader_open(path, &o, &l), -EINVAL);	/* batch_size 0 */
	assert_null(l);
	assert_non_null(strstr(gf_last_error(), "batch_size"));
	o.batch_size = 4;
	o.rank = 2;
	o.world_size = 2;
	assert_int_equal(gf_loader_open(path, &o, &l), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "rank"));
	o.rank = 0;
	o.slots = 1;
	assert_int_equal(gf_loader_open(path, &o, &l), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "slots"));
	o.slots = 0;
	o.uneven = (enum gf_loader_uneven)7;
	assert_int_equal(gf_loader_open(path, &o, &l), -EINVAL);
	o.uneven = GF_LOADER_DROP;
	o.numa_node = -2;
	assert_int_equal(gf_loader_open(path, &o, &l), -EINVAL);
	o.numa_node = -1;
	/* Two windows of 16 x 128 MiB could not be resident. */
	o.block_bytes = 128 << 20;
	assert_int_equal(gf_loader_open(path, &o, &l), -EINVAL);
	assert_null(l);
	assert_non_null(strstr(gf_last_error(), "window_blocks"));
	o.block_bytes = 0;
	/* A dataset that is not there. */
	assert_true(gf_loader_open("/nonexistent/dataset", &o, &l) < 0);
	assert_null(l);
	assert_string_equal(gf_loader_uneven_name(GF_LOADER_PAD), "pad");
	assert_string_equal(gf_loader_uneven_name(GF_LOADER_DROP), "drop");
	assert_string_equal(gf_loader_uneven_name((enum gf_loader_uneven)9), "?");
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_sample_once_across_ranks),
		cmocka_unit_test(window_and_direct_reads),
		cmocka_unit_test(batch_sizes_and_the_last_batch),
		cmocka_unit_test(order_is_deterministic),
		cmocka_unit_test(resume_on_another_world_size),
		cmocka_unit_test(resume_at_an_odd_position_reads_windows),
		cmocka_unit_test(resume_reads_only_what_follows),
		cmocka_unit_test(truncated_shard_fails_next),
		cmocka_unit_test(corrupted_record_with_verify),
		cmocka_unit_test(close_mid_epoch_with_batches_held),
		cmocka_unit_test(batch_held_across_set_epoch),
		cmocka_unit_test(more_threads_than_slots),
		cmocka_unit_test(dlpack_keeps_the_slot),
		cmocka_unit_test(set_epoch_after_open_reads_once),
		cmocka_unit_test(transform_hook),
		cmocka_unit_test(counters_add_up),
		cmocka_unit_test(memory_flat_over_epochs),
		cmocka_unit_test(threads_bound_to_the_node),
		cmocka_unit_test(bad_options_refused),
	};

	return cmocka_run_group_tests_name("loader", tests, setup, teardown);
}
