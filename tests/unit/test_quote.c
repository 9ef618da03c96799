/* Quoting of machine strings for the formats gpufeed writes (core/quote.h)
 * and the RFC 1123 names of Kubernetes objects (core/dnsname.h): what a
 * recording may hold (quotes, line breaks, bytes that are not UTF-8) comes
 * out as data of the format, never as its syntax. */
#include "helpers.h"

#include <stdio.h>
#include <string.h>

#include "core/dnsname.h"
#include "core/quote.h"

static char *quoted(int (*q)(FILE *, const char *), const char *s)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(f);
	assert_int_equal(q(f, s), 0);
	fclose(f);
	return buf;
}

static int comment(FILE *f, const char *s)
{
	return gf_comment_text(f, s, false);
}

static int xml_comment(FILE *f, const char *s)
{
	return gf_comment_text(f, s, true);
}

/* A quote cannot end the literal: the selector stays one comparison. */
static void cel_literals(void **state)
{
	(void)state;
	assert_string_equal(quoted(gf_cel_quote, "GPU-8f1c"), "\"GPU-8f1c\"");
	assert_string_equal(quoted(gf_cel_quote, "x\" || true || \""), "\"x\\\" || true || \\\"\"");
	assert_string_equal(quoted(gf_cel_quote, "a\\"), "\"a\\\\\"");
	assert_string_equal(quoted(gf_cel_quote, "a\nb"), "\"a\\x0ab\"");
}

/* Only printable ASCII as itself: no reader folds a line break or meets a
 * byte it refuses; bytes that are not UTF-8 are U+FFFD. */
static void yaml_scalars(void **state)
{
	(void)state;
	assert_string_equal(quoted(gf_yaml_quote, "caf\xc3\xa9"), "\"caf\\u00e9\"");
	assert_string_equal(quoted(gf_yaml_quote, "a\xc2\x85" "b\xe2\x80\xa8"), "\"a\\u0085b\\u2028\"");
	assert_string_equal(quoted(gf_yaml_quote, "\xf0\x9f\x98\x80"), "\"\\U0001f600\"");
	assert_string_equal(quoted(gf_yaml_quote, "h\xffost"), "\"h\\ufffdost\"");
	/* overlong '/', a surrogate, a truncated sequence */
	assert_string_equal(quoted(gf_yaml_quote, "\xc0\xaf|\xed\xa0\x80|\xe2\x82"),
			    "\"\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\"");
	assert_string_equal(quoted(gf_yaml_quote, "\x7f"), "\"\\x7f\"");
}

static void xml_values(void **state)
{
	(void)state;
	assert_string_equal(quoted(gf_xml_escape, "mlx5_0"), "mlx5_0");
	assert_string_equal(quoted(gf_xml_escape, "a\"b\nc\x01" "d\xc3\xa9\xff"), "a&quot;b&#xa;c&#xfffd;d&#xe9;&#xfffd;");
}

/* A line break, a comment end, a byte that is not ASCII: all '?'. */
static void comment_text(void **state)
{
	(void)state;
	assert_string_equal(quoted(comment, "host\nName=gpu File=/dev/sda\r\xc2\x85"),
			    "host?Name=gpu File=/dev/sda???");
	assert_string_equal(quoted(comment, "/tmp/a--b -->"), "/tmp/a--b -->");
	assert_string_equal(quoted(xml_comment, "/tmp/a--b -->"), "/tmp/a-?b -?>");
	assert_string_equal(quoted(xml_comment, "---"), "-?-");
}

static void dns_names(void **state)
{
	char name[260];

	(void)state;
	assert_true(gf_dns_subdomain("gpufeed-job"));
	assert_true(gf_dns_subdomain("a"));
	assert_true(gf_dns_subdomain("train-1.team"));
	assert_false(gf_dns_subdomain("My_Job"));
	assert_false(gf_dns_subdomain("-job"));
	assert_false(gf_dns_subdomain("job-"));
	assert_false(gf_dns_subdomain(""));
	assert_false(gf_dns_subdomain("train..team"));
	assert_false(gf_dns_subdomain(".team"));
	assert_false(gf_dns_subdomain("team."));
	assert_false(gf_dns_subdomain("team.-a"));
	memset(name, 'a', 254);
	name[254] = '\0';
	assert_false(gf_dns_subdomain(name));
	name[253] = '\0';
	assert_true(gf_dns_subdomain(name));	/* its parts have no limit of their own */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cel_literals), cmocka_unit_test(yaml_scalars), cmocka_unit_test(xml_values),
		cmocka_unit_test(comment_text), cmocka_unit_test(dns_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
