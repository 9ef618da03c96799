/* Values discovery reads from sysfs, procfs and nvml.json that parse but
 * cannot be true (issue 7, items 6, 10 and 11): each is reported as a
 * warning naming the file and the value, and taken as unknown, never as a
 * number; and no input file, however large, costs more than a bounded
 * amount of work. */
#include "helpers.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>

#include <gpufeed/gpufeed.h>
#include "vendor/nvml_facts.h"

/* Sanitizers slow everything down: time bounds apply to plain builds. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* A copy of a fixture to break; the caller removes and frees it. */
static char *copy_of(const char *machine)
{
	char *dir = t_mkdtemp();

	t_copytree(t_fixture_root(machine), dir);
	return dir;
}

static void drop(char *dir)
{
	t_rmtree(dir);
	free(dir);
}

static struct gf_topo *discover(const char *root)
{
	struct gf_topo_options o = { .root = root };
	struct gf_topo *t = NULL;

	if (gf_topo_discover(&o, &t))
		fail_msg("%s: %s", root, gf_last_error());
	return t;
}

/* A warning that holds every one of the given pieces (file and value). */
static bool warned(const struct gf_topo *t, const char *a, const char *b)
{
	for (int i = 0; i < t->nwarnings; i++)
		if (strstr(t->warnings[i], a) && (!b || strstr(t->warnings[i], b)))
			return true;
	return false;
}

static void dump_warnings(const struct gf_topo *t)
{
	for (int i = 0; i < t->nwarnings; i++)
		print_message("  warning: %s\n", t->warnings[i]);
}

#define assert_warned(t, a, b)                                            \
	do {                                                              \
		if (!warned((t), (a), (b))) {                             \
			dump_warnings(t);                                 \
			fail_msg("no warning with '%s' and '%s'", (a), (b) ? (b) : ""); \
		}                                                         \
	} while (0)

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static int pci_index(const struct gf_topo *t, const char *bdf)
{
	for (int i = 0; i < t->npci; i++)
		if (!strcmp(t->pci[i].bdf, bdf))
			return i;
	fail_msg("no PCI device %s", bdf);
	return -1;
}

/* ---- item 6: bounded work per input file ---- */

/* Just under the 16 MiB the read layer accepts: "0-8191,0-8191,...". */
static void write_huge_cpulist(const char *dir, const char *rel)
{
	const char unit[] = "0-8191,";
	size_t n = (16u << 20) - 4096, len = 0;
	char *buf = malloc(n + 8);

	assert_non_null(buf);
	while (len + sizeof(unit) - 1 < n) {
		memcpy(buf + len, unit, sizeof(unit) - 1);
		len += sizeof(unit) - 1;
	}
	memcpy(buf + len, "0\n", 2);
	t_write_bytes(dir, rel, buf, len + 2);
	free(buf);
}

static void huge_cpulists_are_bounded(void **state)
{
	const char *dev = "sys/devices/pci0000:00/0000:00:01.0";
	const char *files[] = {
		"sys/devices/pci0000:00/0000:00:01.0/local_cpulist",
		"sys/devices/system/node/node0/cpulist",
		"sys/devices/system/cpu/cpu0/topology/thread_siblings_list",
	};
	char *dir = copy_of("ci-vm");
	struct gf_topo *t;
	double t0, used;

	(void)state;
	(void)dev;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		write_huge_cpulist(dir, files[i]);
	t0 = cpu_seconds();
	t = discover(dir);
	used = cpu_seconds() - t0;
	print_message("three 16 MiB CPU lists: %.3f s of CPU\n", used);
	/* Before the bound: about 30 s of CPU per file. */
	assert_true(used < 5.0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		assert_warned(t, files[i], "longer than");
	assert_false(t->pci[pci_index(t, "0000:00:01.0")].local_cpus_known);
	assert_int_equal(t->cpus.ncpu, 2);
	gf_topo_free(t);
	drop(dir);
}

/* The parser itself is linear in its text: a range costs its words, not
 * its CPUs, so the longest list a file may hold parses at once. */
static void cpulist_parse_is_linear(void **state)
{
	const char unit[] = "0-8191,";
	size_t n = 1u << 20, len = 0;
	char *buf = malloc(n + 8);
	struct gf_cpuset s;
	double t0, used;

	(void)state;
	assert_non_null(buf);
	while (len + sizeof(unit) - 1 < n) {
		memcpy(buf + len, unit, sizeof(unit) - 1);
		len += sizeof(unit) - 1;
	}
	strcpy(buf + len, "8191");
	t0 = cpu_seconds();
	assert_int_equal(gf_cpuset_parse_list(&s, buf), 0);
	used = cpu_seconds() - t0;
	print_message("1 MiB of '0-8191,': %.3f s of CPU\n", used);
	assert_int_equal(gf_cpuset_count(&s), GF_CPUSET_MAX);
	/* 150,000 ranges of 8192 CPUs: 1.2e9 bit sets before, 2e7 word
	 * stores now. */
	assert_true(used < (SANITIZED ? 5.0 : 1.0));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(huge_cpulists_are_bounded),
		cmocka_unit_test(cpulist_parse_is_linear),
	};

	return cmocka_run_group_tests_name("topo_values", tests, NULL, NULL);
}
