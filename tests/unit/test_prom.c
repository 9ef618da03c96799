/* The Prometheus writer (core/prom.h): what a hostile label value becomes,
 * how numbers are spelt, and HELP text that cannot start a line. */
#include "helpers.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/prom.h"

static char *written(void (*fn)(FILE *f))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	fn(f);
	fclose(f);
	return text;
}

static void hostile(FILE *f)
{
	const char *const labels[] = { "gpu", "0", "uuid", "GPU-\"x\"\n} 1\nevil{a=\"b", "path", "C:\\dir", NULL };

	gf_prom_sample(f, "gpufeed_gpu_up", labels, 1);
}

static void numbers(FILE *f)
{
	gf_prom_sample(f, "a", NULL, 42);
	gf_prom_sample(f, "b", NULL, 0.25);
	gf_prom_sample(f, "c", NULL, NAN);
	gf_prom_sample(f, "d", NULL, INFINITY);
	gf_prom_sample(f, "e", NULL, -INFINITY);
	gf_prom_sample(f, "f", NULL, 1795704477);
	gf_prom_sample(f, "g", NULL, -3);
}

static void family(FILE *f)
{
	gf_prom_family(f, "gpufeed_x", "gauge", "Two lines\nand a \"quote\" and a \\");
}

static void test_label_values_escaped(void **state)
{
	char *t = written(hostile);

	(void)state;
	/* One line: the quote, the newline and the backslash are escaped, so
	 * the value cannot close the label or start a sample. */
	assert_string_equal(t, "gpufeed_gpu_up{gpu=\"0\",uuid=\"GPU-\\\"x\\\"\\n} 1\\nevil{a=\\\"b\","
			       "path=\"C:\\\\dir\"} 1\n");
	free(t);
}

static void test_numbers(void **state)
{
	char *t = written(numbers);

	(void)state;
	assert_string_equal(t, "a 42\nb 0.25\nc NaN\nd +Inf\ne -Inf\nf 1795704477\ng -3\n");
	free(t);
}

static void test_help_one_line(void **state)
{
	char *t = written(family);

	(void)state;
	assert_string_equal(t, "# HELP gpufeed_x Two lines\\nand a \"quote\" and a \\\\\n# TYPE gpufeed_x gauge\n");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_values_escaped),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_help_one_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
