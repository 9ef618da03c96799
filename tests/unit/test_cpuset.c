/* CPU sets: the kernel's list and mask formats, both ways. */
#include "helpers.h"
#include <errno.h>
#include <string.h>
#include <gpufeed/cpuset.h>
#include <gpufeed/error.h>

static void list_roundtrip(void **state)
{
	struct gf_cpuset s;
	char buf[256];

	(void)state;
	assert_int_equal(gf_cpuset_parse_list(&s, "0-31,64-95\n"), 0);
	assert_int_equal(gf_cpuset_count(&s), 64);
	assert_true(gf_cpuset_isset(&s, 0));
	assert_true(gf_cpuset_isset(&s, 95));
	assert_false(gf_cpuset_isset(&s, 32));
	gf_cpuset_format_list(&s, buf, sizeof(buf));
	assert_string_equal(buf, "0-31,64-95");
	assert_int_equal(gf_cpuset_parse_list(&s, "3,5,7-8"), 0);
	gf_cpuset_format_list(&s, buf, sizeof(buf));
	assert_string_equal(buf, "3,5,7-8");
	assert_int_equal(gf_cpuset_parse_list(&s, ""), 0);
	assert_true(gf_cpuset_empty(&s));
	gf_cpuset_format_list(&s, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* Ranges are set a word at a time: every edge of a 64-bit word. */
static void list_ranges_at_word_edges(void **state)
{
	static const char *lists[] = { "0", "63", "64", "63-64", "0-63", "64-127", "1-62", "60-130",
				       "8191", "0-8191", "8128-8191", "3-4", "5,70-200,8000-8190" };
	struct gf_cpuset s;
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		assert_int_equal(gf_cpuset_parse_list(&s, lists[i]), 0);
		gf_cpuset_format_list(&s, buf, sizeof(buf));
		assert_string_equal(buf, lists[i]);
	}
	assert_int_equal(gf_cpuset_parse_list(&s, "60-130"), 0);
	assert_int_equal(gf_cpuset_count(&s), 71);
	assert_false(gf_cpuset_isset(&s, 59));
	assert_false(gf_cpuset_isset(&s, 131));
}

static void list_errors(void **state)
{
	struct gf_cpuset s;

	(void)state;
	assert_int_equal(gf_cpuset_parse_list(&s, "abc"), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "abc"));
	assert_int_equal(gf_cpuset_parse_list(&s, "5-3"), -EINVAL);
	assert_int_equal(gf_cpuset_parse_list(&s, "1,,2"), -EINVAL);
	assert_int_equal(gf_cpuset_parse_list(&s, "1,"), -EINVAL);
	assert_int_equal(gf_cpuset_parse_list(&s, "1-"), -EINVAL);
	assert_int_equal(gf_cpuset_parse_list(&s, "0-3 junk"), -EINVAL);
	assert_int_equal(gf_cpuset_parse_list(&s, "99999"), -ERANGE);
	assert_int_equal(gf_cpuset_parse_list(&s, "18446744073709551617"), -ERANGE);
}

static void mask_parse(void **state)
{
	struct gf_cpuset s;
	char buf[256];

	(void)state;
	assert_int_equal(gf_cpuset_parse_mask(&s, "00000000,00000000,ffffffff,00000000,00000000,ffffffff\n"), 0);
	gf_cpuset_format_list(&s, buf, sizeof(buf));
	assert_string_equal(buf, "0-31,96-127");
	assert_int_equal(gf_cpuset_parse_mask(&s, "3"), 0);
	gf_cpuset_format_list(&s, buf, sizeof(buf));
	assert_string_equal(buf, "0-1");
	assert_int_equal(gf_cpuset_parse_mask(&s, "xyz"), -EINVAL);
	assert_int_equal(gf_cpuset_parse_mask(&s, ""), -EINVAL);
}

static void set_algebra(void **state)
{
	struct gf_cpuset a, b, c;

	(void)state;
	gf_cpuset_parse_list(&a, "0-7");
	gf_cpuset_parse_list(&b, "4-11");
	gf_cpuset_and(&c, &a, &b);
	assert_int_equal(gf_cpuset_count(&c), 4);
	assert_int_equal(gf_cpuset_first(&c), 4);
	gf_cpuset_or(&c, &a, &b);
	assert_int_equal(gf_cpuset_count(&c), 12);
	gf_cpuset_andnot(&c, &a, &b);
	assert_int_equal(gf_cpuset_count(&c), 4);
	assert_int_equal(gf_cpuset_next(&c, 3), -1);
	assert_int_equal(gf_cpuset_next(&c, 0), 1);
	gf_cpuset_zero(&c);
	gf_cpuset_set(&c, GF_CPUSET_MAX - 1);
	assert_int_equal(gf_cpuset_first(&c), GF_CPUSET_MAX - 1);
	gf_cpuset_set(&c, GF_CPUSET_MAX);	/* ignored, not a crash */
	assert_int_equal(gf_cpuset_count(&c), 1);
	assert_false(gf_cpuset_equal(&a, &b));
}

static void format_truncates_safely(void **state)
{
	struct gf_cpuset s;
	char small[6];
	size_t need;

	(void)state;
	gf_cpuset_parse_list(&s, "0,2,4,6,8,10");
	need = gf_cpuset_format_list(&s, small, sizeof(small));
	assert_int_equal(need, strlen("0,2,4,6,8,10"));
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(list_roundtrip),
		cmocka_unit_test(list_ranges_at_word_edges),
		cmocka_unit_test(list_errors),
		cmocka_unit_test(mask_parse),
		cmocka_unit_test(set_algebra),
		cmocka_unit_test(format_truncates_safely),
	};

	return cmocka_run_group_tests_name("cpuset", tests, NULL, NULL);
}
