/* The shared bench layer: sample statistics, the runner against a
 * deterministic fake target (warm-up dropped, repeats kept, failing points,
 * Ctrl-C, progress), bench mem's pointer chain (one cycle through every
 * line) and a live one-node run whose pages are checked with move_pages. */
#include "helpers.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/error.h>
#include "bench/mem_bench.h"
#include "bench/mem_chain.h"
#include "bench/runner.h"
#include "bench/stats.h"
#include "core/error.h"

static void test_stats(void **state)
{
	const double x[] = { 7, 1, 3, 5, 100 };	/* sorted: 1 3 5 7 100 */
	const double even[] = { 4, 1, 3, 2 };
	struct gf_stats s;

	(void)state;
	assert_int_equal(gf_stats_compute(x, 5, &s), 0);
	assert_int_equal(s.n, 5);
	assert_true(s.median == 5 && s.min == 1 && s.max == 100);
	assert_true(s.q1 == 3 && s.q3 == 7 && s.iqr == 4);
	assert_true(fabs(s.mean - 23.2) < 1e-9);
	assert_true(x[0] == 7);		/* the input is left alone */
	assert_int_equal(gf_stats_compute(even, 4, &s), 0);
	assert_true(s.median == 2.5 && s.q1 == 1.75 && s.q3 == 3.25);
	assert_int_equal(gf_stats_compute(x, 0, &s), 0);
	assert_true(s.n == 0 && s.median == 0);
	assert_true(gf_stats_quantile_sorted((const double[]){ 10 }, 1, 0.9) == 10);
}

/* Point i's k-th sample is 100 * i + k; point 2 fails to prepare, point 3
 * fails its third sample; cancel_at stops the run when point cancel_at is
 * prepared. */
struct fake {
	unsigned taken[8], prepared[8], cleaned[8];
	int cancel_at;
	volatile sig_atomic_t cancel;
};

static int f_prepare(void *ctx, unsigned i)
{
	struct fake *f = ctx;

	f->prepared[i]++;
	if ((int)i == f->cancel_at)
		f->cancel = 1;
	if (i == 2)
		return gf_error(-EIO, "point 2 cannot be prepared");
	return 0;
}

static int f_sample(void *ctx, unsigned i, double *v)
{
	struct fake *f = ctx;
	unsigned k = f->taken[i]++;

	if (i == 3 && k == 2)
		return gf_error(-EINVAL, "point 3 failed its third sample");
	*v = 100.0 * i + k;
	return 0;
}

static void f_cleanup(void *ctx, unsigned i)
{
	((struct fake *)ctx)->cleaned[i]++;
}

static void f_label(void *ctx, unsigned i, char *buf, size_t size)
{
	(void)ctx;
	snprintf(buf, size, "fake point %u", i);
}

static const struct gf_bench_ops fake_ops = { f_prepare, f_sample, f_cleanup, f_label, NULL };

static void test_runner(void **state)
{
	struct fake f = { .cancel_at = -1 };
	struct gf_runner_point r[5];
	char *text = NULL;
	size_t len = 0;
	FILE *prog = open_memstream(&text, &len);
	struct gf_runner_opts o = { .name = "test", .repeats = 4, .warmup = 2, .progress = prog, .cancel = &f.cancel };

	(void)state;
	assert_int_equal(gf_runner_run(&fake_ops, &f, 5, &o, r), 0);
	fclose(prog);
	/* Point 1: warm-ups 100 and 101 dropped, 102..105 kept. */
	assert_int_equal(r[1].status, 0);
	assert_int_equal(r[1].nsamples, 4);
	assert_true(r[1].samples[0] == 102 && r[1].samples[3] == 105);
	assert_true(r[1].stats.median == 103.5 && r[1].stats.min == 102 && r[1].stats.max == 105);
	assert_int_equal(f.taken[1], 6);
	/* Point 2 failed in prepare: no sample, no cleanup, the message kept. */
	assert_int_equal(r[2].status, -EIO);
	assert_non_null(strstr(r[2].error, "cannot be prepared"));
	assert_int_equal(f.taken[2], 0);
	assert_int_equal(f.cleaned[2], 0);
	/* Point 3 failed a sample: cleaned up, marked failed; point 4 still ran. */
	assert_int_equal(r[3].status, -EINVAL);
	assert_int_equal(f.cleaned[3], 1);
	assert_int_equal(r[4].status, 0);
	assert_true(r[4].stats.median == 403.5);
	/* One progress line per point (not a terminal, no interval), with ETA. */
	assert_non_null(strstr(text, "test: [5/5] fake point 4: elapsed "));
	assert_non_null(strstr(text, "ETA "));
	free(text);
	gf_runner_points_free(r, 5);
}

static void test_runner_cancel(void **state)
{
	struct fake f = { .cancel_at = 1 };
	struct gf_runner_point r[4];
	struct gf_runner_opts o = { .name = "test", .repeats = 3, .cancel = &f.cancel };

	(void)state;
	assert_int_equal(gf_runner_run(&fake_ops, &f, 4, &o, r), -ECANCELED);
	assert_int_equal(r[0].status, 0);
	assert_int_equal(r[0].nsamples, 3);
	/* Interrupted in point 1: it took no sample, was cleaned up, and no
	 * later point was prepared. */
	assert_int_equal(r[1].status, -ECANCELED);
	assert_int_equal(f.taken[1], 0);
	assert_int_equal(f.cleaned[1], 1);
	assert_int_equal(f.prepared[2] + f.prepared[3], 0);
	assert_int_equal(r[3].status, -ECANCELED);
	gf_runner_points_free(r, 4);
	assert_int_equal(gf_runner_run(NULL, &f, 1, &o, r), -EINVAL);
}

/* Every line is reached exactly once in `lines` loads and the walk is back
 * at the start: one cycle, not several. */
static void check_chain(size_t len, size_t stride, uint64_t seed)
{
	char *buf = aligned_alloc(64, (len + 63) / 64 * 64);	/* C11: a multiple of the alignment */
	unsigned char *seen;
	size_t lines;
	void *p;

	assert_non_null(buf);
	lines = gf_mem_chain_build(buf, len, stride, seed);
	assert_int_equal(lines, len / stride);
	seen = calloc(lines, 1);
	p = buf;
	for (size_t i = 0; i < lines; i++) {
		size_t off = (size_t)((char *)p - buf);
		assert_int_equal(off % stride, 0);
		assert_true(off / stride < lines);
		assert_int_equal(seen[off / stride], 0);
		seen[off / stride] = 1;
		p = gf_mem_chain_walk(p, 1);
	}
	assert_ptr_equal(p, buf);
	assert_ptr_equal(gf_mem_chain_walk(buf, lines * 3), buf);
	free(seen);
	free(buf);
}

static void test_chain(void **state)
{
	char small[256];

	(void)state;
	check_chain(64 * 2, 64, 1);
	check_chain(64 * 3, 64, 2);
	check_chain(1u << 20, 64, 3);
	check_chain((1u << 20) + 100, 128, 4);	/* a partial last line is left out */
	check_chain(1u << 16, 8, 5);
	/* Not shuffled in order: the first load does not go to the next line
	 * for every seed (a sequential chain would be prefetched). */
	{
		unsigned sequential = 0;
		for (uint64_t s = 0; s < 16; s++) {
			char *b = aligned_alloc(64, 4096);
			gf_mem_chain_build(b, 4096, 64, s);
			sequential += *(char **)b == b + 64;
			free(b);
		}
		assert_true(sequential < 8);
	}
	assert_int_equal(gf_mem_chain_build(small, 64, 64, 1), 0);	/* one line */
	assert_int_equal(gf_mem_chain_build(small, sizeof(small), 12, 1), 0);
	assert_int_equal(gf_mem_chain_build(small, sizeof(small), 0, 1), 0);
	assert_int_equal(gf_mem_chain_build(NULL, 4096, 64, 1), 0);
}

static void test_mem_options(void **state)
{
	struct gf_bench_mem_opts o = { 0 };
	struct gf_bench_mem *m = (void *)1;
	struct gf_bench_env env = { .model = t_live_model() };

	(void)state;
	assert_int_equal(gf_bench_mem_check(&o), 0);
	o.nodes = "0,x";
	assert_int_equal(gf_bench_mem_check(&o), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--nodes"));
	o.nodes = NULL;
	o.size = 4096;
	assert_int_equal(gf_bench_mem_check(&o), -ERANGE);
	o.size = 0;
	o.threads = GF_BENCH_MEM_THREADS_MAX + 1;
	assert_int_equal(gf_bench_mem_check(&o), -ERANGE);
	o.threads = 0;
	assert_int_equal(gf_bench_mem_run(&o, NULL, &m), -EINVAL);
	assert_null(m);
	o.nodes = "1000";
	assert_int_equal(gf_bench_mem_run(&o, &env, &m), -ENODEV);
	assert_non_null(strstr(gf_last_error(), "no NUMA node 1000"));
	/* Two buffers larger than the memory available: refused before any
	 * allocation (an OOM kill otherwise), naming --size. */
	o.nodes = NULL;
	o.size = GF_BENCH_MEM_SIZE_MAX;
	assert_int_equal(gf_bench_mem_run(&o, &env, &m), -ENOMEM);
	assert_null(m);
	assert_non_null(strstr(gf_last_error(), "--size 1048576 MiB"));
	assert_non_null(strstr(gf_last_error(), "MemAvailable"));
	gf_topo_free((struct gf_topo *)env.model);
}

/* Live, on this machine's node 0 (every Linux machine has one): a 1x1
 * pair, pages verified on node 0, four figures with their samples. */
static void test_mem_live(void **state)
{
	struct gf_bench_mem_opts o = { 0 };
	struct gf_bench_env env = { .model = t_live_model() };
	struct gf_bench_mem *m = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	o.nodes = "0";
	o.size = 4u << 20;
	o.repeats = 2;
	o.quick = true;
	o.threads = 2;
	assert_int_equal(gf_bench_mem_run(&o, &env, &m), 0);
	assert_int_equal(m->nrows, 1);
	assert_int_equal(m->ncols, 1);
	assert_int_equal(m->npoints, GF_MEM_KINDS);
	assert_true(m->placement[0].done);
	assert_int_equal(m->placement[0].checked, 2 * GF_MEM_PAGES_CHECKED);	/* a and b */
	assert_int_equal(m->placement[0].on_node, m->placement[0].checked);
	assert_int_equal(m->pairs[0].threads, 2);
	for (unsigned i = 0; i < m->npoints; i++) {
		assert_int_equal(m->res[i].status, 0);
		assert_int_equal(m->res[i].nsamples, 2);
		assert_true(m->res[i].stats.median > 0);
	}
	f = open_memstream(&text, &len);
	assert_int_equal(gf_bench_mem_write_json(m, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "\"schema\": \"gpufeed-bench-mem/1\""));
	assert_non_null(strstr(text, "\"latency_ns\""));
	free(text);
	gf_bench_mem_free(m);
	gf_topo_free((struct gf_topo *)env.model);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_runner),
		cmocka_unit_test(test_runner_cancel),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_mem_options),
		cmocka_unit_test(test_mem_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
