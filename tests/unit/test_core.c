/* Core helpers: PCI addresses, key/value text, integers, atomic writes. */
#include "helpers.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/atomic.h"
#include "core/error.h"
#include "core/pciaddr.h"
#include "core/quote.h"
#include "core/strutil.h"

static void pci_addresses(void **state)
{
	char out[16];

	(void)state;
	assert_true(gf_pci_normalize("00000000:1B:00.0", out, sizeof(out)));
	assert_string_equal(out, "0000:1b:00.0");
	assert_true(gf_pci_normalize("3b:00.1", out, sizeof(out)));
	assert_string_equal(out, "0000:3b:00.1");
	assert_true(gf_pci_normalize("10000:e0:06.0", out, sizeof(out)));	/* VMD domain */
	assert_string_equal(out, "10000:e0:06.0");
	assert_false(gf_pci_normalize("0000:1b:00", out, sizeof(out)));
	assert_false(gf_pci_normalize("0000:1b:20.0", out, sizeof(out)));	/* device > 31 */
	assert_false(gf_pci_normalize("0000:1b:00.8", out, sizeof(out)));
	assert_false(gf_pci_normalize("GPU-1234", out, sizeof(out)));
	assert_string_equal(out, "");
}

static void key_values(void **state)
{
	const char *text = "Model: \t\t NVIDIA H100\nGPU UUID: \t GPU-abc \nDevice Minor: \t 3\n";
	char v[64];

	(void)state;
	assert_true(gf_kv_find(text, "Model", v, sizeof(v)));
	assert_string_equal(v, "NVIDIA H100");
	assert_true(gf_kv_find(text, "GPU UUID", v, sizeof(v)));
	assert_string_equal(v, "GPU-abc");
	assert_true(gf_kv_find(text, "Device Minor", v, sizeof(v)));
	assert_string_equal(v, "3");
	assert_false(gf_kv_find(text, "Device", v, sizeof(v)));	/* whole keys only */
	assert_false(gf_kv_find("", "Model", v, sizeof(v)));
}

static void integers(void **state)
{
	long long v;

	(void)state;
	assert_int_equal(gf_parse_ll("42", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(gf_parse_ll("-1", &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(gf_parse_ll("0x10de", &v), 0);
	assert_int_equal(v, 0x10de);
	assert_int_equal(gf_parse_ll("12 ", &v), 0);
	assert_int_not_equal(gf_parse_ll("", &v), 0);
	assert_int_not_equal(gf_parse_ll("abc", &v), 0);
	assert_int_not_equal(gf_parse_ll("12abc", &v), 0);
	assert_int_not_equal(gf_parse_ll("0x", &v), 0);
	assert_int_not_equal(gf_parse_ll("99999999999999999999999", &v), 0);
}

static int write_hello(FILE *f, void *arg)
{
	(void)arg;
	fputs("hello\n", f);
	return 0;
}

static int write_fail(FILE *f, void *arg)
{
	(void)arg;
	fputs("half", f);
	return -EIO;
}

static void atomic_write(void **state)
{
	char *dir = t_mkdtemp(), path[PATH_MAX], *text;
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/out.json", dir);
	t_write(dir, "out.json", "old\n");
	/* A failing writer leaves the old file and no temp file. */
	assert_int_equal(gf_atomic_write(path, write_fail, NULL), -EIO);
	text = t_read(path);
	assert_string_equal(text, "old\n");
	free(text);
	assert_int_equal(system("ls -A \"$TMPDIR\" >/dev/null 2>&1; true"), 0);
	{
		char cmd[PATH_MAX + 64];

		snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | wc -l) -eq 1", dir);
		assert_int_equal(system(cmd), 0);
	}
	assert_int_equal(gf_atomic_write(path, write_hello, NULL), 0);
	text = t_read(path);
	assert_string_equal(text, "hello\n");
	free(text);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* A missing directory is named in the error. */
	snprintf(path, sizeof(path), "%s/no/such/out.json", dir);
	assert_int_equal(gf_atomic_write(path, write_hello, NULL), -ENOENT);
	t_rmtree(dir);
	free(dir);
}

/* What each quoter writes, for the strings that break naive emitters. */
static char *quoted(int (*q)(FILE *, const char *), const char *s)
{
	static char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	assert_int_equal(q(f, s), 0);
	fclose(f);
	return buf;
}

static void quoting(void **state)
{
	(void)state;
	assert_string_equal(quoted(gf_shell_quote, "--cpuset-cpus=0-3,8"), "--cpuset-cpus=0-3,8");
	assert_string_equal(quoted(gf_shell_quote, "device=0,1"), "device=0,1");
	assert_string_equal(quoted(gf_shell_quote, "\"device=0,1\""), "'\"device=0,1\"'");
	assert_string_equal(quoted(gf_shell_quote, "it's"), "'it'\\''s'");
	assert_string_equal(quoted(gf_shell_quote, ""), "''");
	assert_string_equal(quoted(gf_shell_quote, "a b"), "'a b'");
	assert_string_equal(quoted(gf_yaml_quote, "0-3"), "\"0-3\"");
	assert_string_equal(quoted(gf_yaml_quote, "a\"b\\c\n"), "\"a\\\"b\\\\c\\x0a\"");
	assert_string_equal(quoted(gf_xml_escape, "<a & 'b'>\""), "&lt;a &amp; &apos;b&apos;&gt;&quot;");
}

/* A message wrapping the previous one, the common idiom, keeps both. */
static void error_wraps_itself(void **state)
{
	(void)state;
	assert_int_equal(gf_error(-EIO, "cuFileHandleRegister: CU_FILE_HANDLE_NOT_REGISTERED (5027)"), -EIO);
	assert_int_equal(gf_error(-EIO, "/var/tmp/f.bin: %s", gf_last_error()), -EIO);
	assert_string_equal(gf_last_error(),
			    "/var/tmp/f.bin: cuFileHandleRegister: CU_FILE_HANDLE_NOT_REGISTERED (5027)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pci_addresses),
		cmocka_unit_test(key_values),
		cmocka_unit_test(integers),
		cmocka_unit_test(atomic_write),
		cmocka_unit_test(quoting),
		cmocka_unit_test(error_wraps_itself),
	};

	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
