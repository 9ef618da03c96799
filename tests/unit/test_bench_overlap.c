/* bench overlap's arithmetic: the bucket plan of an iteration (DDP's
 * buckets of bucket_cap bytes, the last the remainder), each bucket's
 * share of the compute phase, the --buckets list, and the overlap
 * fraction (t_serial - t_overlap) / min(t_compute, t_comm).  The CLI test
 * runs the whole command on the stand-in CUDA and NCCL. */
#include "helpers.h"
#include <errno.h>
#include <math.h>
#include <string.h>

#include <gpufeed/error.h>
#include "bench/overlap_bench.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

static void plan_buckets(void **state)
{
	struct gf_overlap_plan p;
	uint64_t sum = 0;

	(void)state;
	assert_int_equal(gf_overlap_plan(GiB, 25 * MiB, &p), 0);
	assert_int_equal(p.nbuckets, 41);	/* 40 x 25 MiB + 24 MiB */
	for (unsigned i = 0; i < p.nbuckets; i++)
		sum += gf_overlap_bucket_bytes(&p, i);
	assert_true(sum == GiB);
	assert_true(gf_overlap_bucket_bytes(&p, 0) == 25 * MiB);
	assert_true(gf_overlap_bucket_bytes(&p, 40) == 24 * MiB);
	assert_true(gf_overlap_bucket_bytes(&p, 41) == 0);

	assert_int_equal(gf_overlap_plan(GiB, GF_OVERLAP_ALL, &p), 0);
	assert_int_equal(p.nbuckets, 1);
	assert_true(gf_overlap_bucket_bytes(&p, 0) == GiB);
	assert_int_equal(gf_overlap_plan(GiB, 2 * GiB, &p), 0);	/* larger than the model: one */
	assert_int_equal(p.nbuckets, 1);
	assert_int_equal(gf_overlap_plan(100 * MiB, 100 * MiB, &p), 0);
	assert_int_equal(p.nbuckets, 1);
	assert_int_equal(gf_overlap_plan(100 * MiB + 4, 100 * MiB, &p), 0);
	assert_int_equal(p.nbuckets, 2);
	assert_true(gf_overlap_bucket_bytes(&p, 1) == 4);
}

static void plan_refused(void **state)
{
	struct gf_overlap_plan p;

	(void)state;
	assert_int_equal(gf_overlap_plan(0, 4096, &p), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--grad-bytes"));
	assert_int_equal(gf_overlap_plan(4098, GF_OVERLAP_ALL, &p), -EINVAL);
	assert_int_equal(gf_overlap_plan(GiB, 4098, &p), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--buckets"));
	/* 64 GiB in 4 KiB buckets: 16 Mi kernels and all-reduces a pass. */
	assert_int_equal(gf_overlap_plan(64 * GiB, 4096, &p), -ERANGE);
	assert_non_null(strstr(gf_last_error(), "16777216 buckets"));
	assert_int_equal(gf_overlap_plan(256 * MiB, 4096, &p), 0);	/* exactly 65536 */
	assert_int_equal(p.nbuckets, GF_OVERLAP_NBUCKETS_MAX);
}

static void compute_shares(void **state)
{
	struct gf_overlap_plan p;
	unsigned long long total = 0;

	(void)state;
	/* 100 MiB in 40 MiB buckets, 10 ms at 1e6 cycles/ms: 4 + 4 + 2 ms. */
	assert_int_equal(gf_overlap_plan(100 * MiB, 40 * MiB, &p), 0);
	assert_int_equal(p.nbuckets, 3);
	assert_true(gf_overlap_bucket_cycles(&p, 0, 1e6, 10) == 4000000ull);
	assert_true(gf_overlap_bucket_cycles(&p, 2, 1e6, 10) == 2000000ull);
	for (unsigned i = 0; i < p.nbuckets; i++)
		total += gf_overlap_bucket_cycles(&p, i, 1e6, 10);
	assert_true(total == 10000000ull);
	/* A bucket too small for one cycle still launches a kernel. */
	assert_int_equal(gf_overlap_plan(256 * MiB, 4096, &p), 0);
	assert_true(gf_overlap_bucket_cycles(&p, 0, 1, 1) == 1);
}

static void parse_list(void **state)
{
	uint64_t s[GF_OVERLAP_CONFIGS_MAX];
	unsigned n;

	(void)state;
	assert_int_equal(gf_overlap_parse_buckets(GF_OVERLAP_BUCKETS_DEFAULT, GiB, s, GF_OVERLAP_CONFIGS_MAX, &n),
			 0);
	assert_int_equal(n, 7);
	assert_true(s[0] == MiB && s[3] == 25 * MiB && s[5] == 100 * MiB && s[6] == GF_OVERLAP_ALL);
	assert_int_equal(gf_overlap_parse_buckets("all", 4096, s, GF_OVERLAP_CONFIGS_MAX, &n), 0);
	assert_int_equal(n, 1);

	assert_int_equal(gf_overlap_parse_buckets("2G", GiB, s, GF_OVERLAP_CONFIGS_MAX, &n), -ERANGE);
	assert_non_null(strstr(gf_last_error(), "'2G'"));
	assert_non_null(strstr(gf_last_error(), "--grad-bytes"));
	assert_int_equal(gf_overlap_parse_buckets("1K", GiB, s, GF_OVERLAP_CONFIGS_MAX, &n), -ERANGE);
	assert_int_equal(gf_overlap_parse_buckets("4098", GiB, s, GF_OVERLAP_CONFIGS_MAX, &n), -ERANGE);
	assert_int_equal(gf_overlap_parse_buckets("25Q", GiB, s, GF_OVERLAP_CONFIGS_MAX, &n), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--buckets: '25Q'"));
	assert_int_equal(gf_overlap_parse_buckets(",", GiB, s, GF_OVERLAP_CONFIGS_MAX, &n), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "names no size"));
	assert_int_equal(gf_overlap_parse_buckets("1M,2M,3M", GiB, s, 2, &n), -ERANGE);
	assert_non_null(strstr(gf_last_error(), "at most 2"));
}

static void fraction(void **state)
{
	(void)state;
	/* The seed's DDP example: 12 ms compute, 10 ms comm, 22 ms serial;
	 * hidden entirely: 12 ms, fraction 1; nothing hidden: 0. */
	assert_true(fabs(gf_overlap_fraction(22, 12, 12, 10) - 1.0) < 1e-12);
	assert_true(fabs(gf_overlap_fraction(22, 22, 12, 10)) < 1e-12);
	assert_true(fabs(gf_overlap_fraction(22, 17, 12, 10) - 0.5) < 1e-12);
	/* Noise is shown, not clamped. */
	assert_true(gf_overlap_fraction(22, 23, 12, 10) < 0);
	assert_true(isnan(gf_overlap_fraction(22, 12, 12, 0)));
	assert_true(isnan(gf_overlap_fraction(0, 12, 12, 10)));
	assert_true(isnan(gf_overlap_fraction(22, NAN, 12, 10)));
	assert_string_equal(gf_overlap_mode_name(GF_OVERLAP_OVERLAPPED), "overlap");
	assert_string_equal(gf_overlap_mode_name(GF_OVERLAP_MODES), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plan_buckets),
		cmocka_unit_test(plan_refused),
		cmocka_unit_test(compute_shares),
		cmocka_unit_test(parse_list),
		cmocka_unit_test(fraction),
	};

	return cmocka_run_group_tests_name("bench_overlap", tests, NULL, NULL);
}
