/* Text that fits a width (core/wrap.h): words wrapped under their line,
 * words longer than a line broken where a URL or path can be read again,
 * columns counted in characters, not bytes. */
#include "helpers.h"

#include <stdio.h>
#include <string.h>

#include <gpufeed/common.h>
#include "core/wrap.h"

static char *wrapped(const char *text, int col, int indent, int width)
{
	static char buf[2048];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(f);
	gf_wrap_print(f, text, col, indent, width);
	fclose(f);
	return buf;
}

/* The widest line of s, in characters, counting the first line from col. */
static int widest(const char *s, int col)
{
	int w = 0, c = col;

	for (const char *p = s; *p; p++) {
		if (*p == '\n') {
			c = 0;
			continue;
		}
		if (((unsigned char)*p & 0xc0) != 0x80 && ++c > w)
			w = c;
	}
	return w;
}

static void words_wrap_under_their_line(void **state)
{
	(void)state;
	assert_string_equal(wrapped("short text", 5, 5, 40), "short text\n");
	assert_string_equal(wrapped("one two three four", 0, 4, 10), "one two\n    three\n    four\n");
	/* no space is left at the end of a line, runs of spaces between words stay */
	assert_string_equal(wrapped("a  b", 0, 0, 10), "a  b\n");
	assert_string_equal(wrapped("aaaa bbbb", 0, 2, 6), "aaaa\n  bbbb\n");
	assert_string_equal(wrapped("", 3, 3, 10), "\n");
}

static void long_words_break_where_they_read(void **state)
{
	const char *url = "https://github.com/redhat-performance/tuned/blob/master/profiles/"
			  "accelerator-performance/tuned.conf";
	char *out;

	(void)state;
	out = wrapped(url, 18, 18, 60);
	assert_true(widest(out, 18) <= 60);
	/* broken after a '/', every character kept */
	assert_non_null(strstr(out, "/\n"));
	{
		char joined[512] = "";
		size_t n = 0;

		for (const char *p = out; *p; p++)
			if (*p != '\n' && *p != ' ')
				joined[n++] = *p;
		joined[n] = '\0';
		assert_string_equal(joined, url);
	}
	/* nowhere to break: cut at the width */
	out = wrapped("xxxxxxxxxxxxxxxxxxxxxxxxx", 0, 0, 10);
	assert_string_equal(out, "xxxxxxxxxx\nxxxxxxxxxx\nxxxxx\n");
}

static void columns_are_characters(void **state)
{
	(void)state;
	assert_int_equal(gf_wrap_columns("≥ 16 MiB"), 8);
	/* "µs µs µs" is 8 columns (11 bytes): it fits 8 */
	assert_string_equal(wrapped("µs µs µs", 0, 0, 8), "µs µs µs\n");
	assert_string_equal(wrapped("µsµsµsµsµs", 0, 0, 4), "µsµs\nµsµs\nµs\n");
}

static void width_from_flags(void **state)
{
	(void)state;
	assert_int_equal(gf_wrap_width(0), GF_PRINT_WIDTH_DEFAULT);
	assert_int_equal(gf_wrap_width(0x1u | GF_PRINT_WIDTH(72)), 72);
	assert_int_equal(gf_wrap_width(GF_PRINT_WIDTH(3)), GF_PRINT_WIDTH_MIN);
	assert_int_equal(GF_PRINT_WIDTH_OF(GF_PRINT_WIDTH(250) | 0x3u), 250);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(words_wrap_under_their_line), cmocka_unit_test(long_words_break_where_they_read),
		cmocka_unit_test(columns_are_characters), cmocka_unit_test(width_from_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
