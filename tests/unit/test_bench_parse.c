/* Strict parsing of sizes, counts and durations (include/gpufeed/parse.h):
 * whatever is not exactly a number of that kind is refused, with the input
 * named, and the output is left alone. */
#include "helpers.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gpufeed/error.h>
#include <gpufeed/parse.h>

#define SENTINEL 0x5a5a5a5a5a5a5a5aull

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = SENTINEL;

	if (gf_parse_size(s, &v) != 0)
		fail_msg("'%s' refused: %s", s, gf_last_error());
	if (v != want)
		fail_msg("'%s' -> %llu, wanted %llu", s, (unsigned long long)v, (unsigned long long)want);
}

static void size_bad(const char *s, int want_rc)
{
	uint64_t v = SENTINEL;
	int rc = gf_parse_size(s, &v);

	if (rc != want_rc)
		fail_msg("'%s': rc %d, wanted %d (v %llu)", s, rc, want_rc, (unsigned long long)v);
	assert_true(v == SENTINEL);
	assert_non_null(strstr(gf_last_error(), s));	/* the input is named */
}

static void sizes(void **state)
{
	(void)state;
	size_ok("0", 0);
	size_ok("4096", 4096);
	size_ok("4K", 4096);
	size_ok("4k", 4096);
	size_ok("4KiB", 4096);
	size_ok("4kib", 4096);
	size_ok("4KB", 4000);
	size_ok("1M", 1u << 20);
	size_ok("16MiB", 16u << 20);
	size_ok("2MB", 2000000);
	size_ok("1G", 1ull << 30);
	size_ok("3GB", 3000000000ull);
	size_ok("2T", 2ull << 40);
	size_ok("2TiB", 2ull << 40);
	size_ok("1TB", 1000000000000ull);
	size_ok("512B", 512);
	size_ok("007", 7);
	size_ok("18446744073709551615", UINT64_MAX);
	size_ok("16777215T", 16777215ull << 40);

	/* The review's case: ' -1' was read as 2^64-1. */
	size_bad(" -1", -EINVAL);
	size_bad("-1", -EINVAL);
	size_bad("+1", -EINVAL);
	size_bad(" 1", -EINVAL);
	size_bad("1 ", -EINVAL);
	size_bad("1 K", -EINVAL);
	size_bad("\t4K", -EINVAL);
	size_bad("4K\n", -EINVAL);
	size_bad("", -EINVAL);
	size_bad("K", -EINVAL);
	size_bad("0x10", -EINVAL);
	size_bad("1.5G", -EINVAL);
	size_bad("1e3", -EINVAL);
	size_bad("3Q", -EINVAL);
	size_bad("4KK", -EINVAL);
	size_bad("4Kib2", -EINVAL);
	size_bad("1P", -EINVAL);
	size_bad("nan", -EINVAL);
	size_bad("inf", -EINVAL);
	size_bad("18446744073709551616", -ERANGE);		/* 2^64 */
	size_bad("99999999999999999999999999", -ERANGE);
	size_bad("16777216T", -ERANGE);				/* 2^64 bytes */
	size_bad("18446744073709551615K", -ERANGE);
	size_bad("18446744073709552G", -ERANGE);
	assert_int_equal(gf_parse_size(NULL, NULL), -EINVAL);
}

static void count_ok(const char *s, uint64_t lo, uint64_t hi, uint64_t want)
{
	uint64_t v = SENTINEL;

	if (gf_parse_count(s, lo, hi, &v) != 0)
		fail_msg("'%s' refused: %s", s, gf_last_error());
	assert_true(v == want);
}

static void count_bad(const char *s, uint64_t lo, uint64_t hi, int want_rc)
{
	uint64_t v = SENTINEL;
	int rc = gf_parse_count(s, lo, hi, &v);

	if (rc != want_rc)
		fail_msg("'%s' in %llu..%llu: rc %d, wanted %d", s, (unsigned long long)lo, (unsigned long long)hi,
			 rc, want_rc);
	assert_true(v == SENTINEL);
	assert_non_null(strstr(gf_last_error(), s));
}

static void counts(void **state)
{
	(void)state;
	count_ok("1", 1, 4096, 1);
	count_ok("4096", 1, 4096, 4096);
	count_ok("0", 0, 10, 0);
	count_ok("010", 0, 10, 10);
	count_ok("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
	count_bad("0", 1, 4096, -ERANGE);
	count_bad("4097", 1, 4096, -ERANGE);
	count_bad("18446744073709551616", 0, UINT64_MAX, -ERANGE);
	count_bad("99999999999999999999999", 1, 10, -ERANGE);
	count_bad("-1", 0, 10, -EINVAL);
	count_bad(" -1", 0, 10, -EINVAL);
	count_bad("+1", 0, 10, -EINVAL);
	count_bad(" 1", 0, 10, -EINVAL);
	count_bad("1 ", 0, 10, -EINVAL);
	count_bad("1K", 0, 10000, -EINVAL);
	count_bad("1.0", 0, 10, -EINVAL);
	count_bad("0x1", 0, 10, -EINVAL);
	count_bad("", 0, 10, -EINVAL);
	count_bad("nan", 0, 10, -EINVAL);
	assert_int_equal(gf_parse_count(NULL, 0, 1, NULL), -EINVAL);
}

static void duration_ok(const char *s, double want)
{
	double v = -1;

	if (gf_parse_duration(s, &v) != 0)
		fail_msg("'%s' refused: %s", s, gf_last_error());
	if (fabs(v - want) > 1e-9 * (want > 1 ? want : 1))
		fail_msg("'%s' -> %.12g, wanted %.12g", s, v, want);
}

static void duration_bad(const char *s, int want_rc)
{
	double v = -1;
	int rc = gf_parse_duration(s, &v);

	if (rc != want_rc)
		fail_msg("'%s': rc %d, wanted %d (v %g)", s, rc, want_rc, v);
	assert_true(v == -1);
	assert_non_null(strstr(gf_last_error(), s));
}

static void durations(void **state)
{
	(void)state;
	duration_ok("2", 2);
	duration_ok("2s", 2);
	duration_ok("0.25", 0.25);
	duration_ok(".5", 0.5);
	duration_ok("5.", 5);
	duration_ok("500ms", 0.5);
	duration_ok("250us", 0.00025);
	duration_ok("1m", 60);
	duration_ok("1.5m", 90);
	duration_ok("2h", 7200);
	duration_ok("0", 0);
	duration_ok("0s", 0);
	duration_ok("8760h", 31536000);
	duration_ok("0.000000000000000000001", 1e-21);

	duration_bad("", -EINVAL);
	duration_bad("s", -EINVAL);
	duration_bad(".", -EINVAL);
	duration_bad(".s", -EINVAL);
	duration_bad("-1", -EINVAL);
	duration_bad(" -1", -EINVAL);
	duration_bad("+1", -EINVAL);
	duration_bad(" 1", -EINVAL);
	duration_bad("1 ", -EINVAL);
	duration_bad("1 s", -EINVAL);
	duration_bad("nan", -EINVAL);
	duration_bad("NaN", -EINVAL);
	duration_bad("inf", -EINVAL);
	duration_bad("infinity", -EINVAL);
	duration_bad("1e3", -EINVAL);
	duration_bad("0x10", -EINVAL);
	duration_bad("1,5", -EINVAL);
	duration_bad("1.2.3", -EINVAL);
	duration_bad("2S", -EINVAL);
	duration_bad("2sec", -EINVAL);
	duration_bad("1d", -EINVAL);
	duration_bad("2ms5", -EINVAL);
	duration_bad("8761h", -ERANGE);
	duration_bad("31536001", -ERANGE);
	duration_bad("99999999999999999999999999999999999999", -ERANGE);
	duration_bad("999999999999999999999999999999999999999999999999999999999999999999999999999999"
		     "9999999999999999999999999999999999999999999999999999999999999999999999999999999"
		     "9999999999999999999999999999999999999999999999999999999999999999999999999999999"
		     "99999999999999999999999999999999999999999ms", -ERANGE);
	assert_int_equal(gf_parse_duration(NULL, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes),
		cmocka_unit_test(counts),
		cmocka_unit_test(durations),
	};

	return cmocka_run_group_tests_name("bench_parse", tests, NULL, NULL);
}
