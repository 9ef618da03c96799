/* gf_record: cancellation, targets it must not touch, warnings. */
#include "helpers.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpufeed/gpufeed.h>
#include "topo/record_hook.h"

static int entries(const char *dir)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static void cancelled_leaves_nothing(void **state)
{
	char *dir = t_mkdtemp(), target[PATH_MAX];
	volatile sig_atomic_t stop = 1;
	struct gf_record_options o = GF_RECORD_OPTS_INIT;

	(void)state;
	o.machine = T_MACHINE(.root = t_fixture_root("hgx-h100-8gpu"));
	o.cancel = &stop;
	snprintf(target, sizeof(target), "%s/rec", dir);
	assert_int_equal(gf_record(target, &o, NULL), -EINTR);
	assert_non_null(strstr(gf_last_error(), "interrupted"));
	assert_int_equal(entries(dir), 0);	/* neither rec nor rec.tmp-* */
	t_rmtree(dir);
	free(dir);
}

static void never_replaces_what_is_not_a_recording(void **state)
{
	char *dir = t_mkdtemp();
	struct gf_record_options o = GF_RECORD_OPTS_INIT;
	char *text;
	char path[PATH_MAX];

	(void)state;
	o.machine = T_MACHINE(.root = t_fixture_root("ci-vm"));
	o.force = true;
	t_write(dir, "thesis.tex", "precious\n");
	assert_int_equal(gf_record(dir, &o, NULL), -EEXIST);
	assert_non_null(strstr(gf_last_error(), "not a gpufeed recording"));
	snprintf(path, sizeof(path), "%s/thesis.tex", dir);
	text = t_read(path);
	assert_string_equal(text, "precious\n");
	free(text);
	t_rmtree(dir);
	free(dir);
}

static void trailing_slash_and_force(void **state)
{
	char *dir = t_mkdtemp(), target[PATH_MAX];
	struct gf_record_options o = GF_RECORD_OPTS_INIT;
	struct gf_record_stats st;

	(void)state;
	o.machine = T_MACHINE(.root = t_fixture_root("ci-vm"));
	snprintf(target, sizeof(target), "%s/rec/", dir);
	assert_int_equal(gf_record(target, &o, &st), 0);
	assert_true(st.files > 100);
	assert_int_equal(gf_record(target, &o, &st), -EEXIST);	/* a recording is there */
	o.force = true;
	assert_int_equal(gf_record(target, &o, &st), 0);
	assert_int_equal(entries(dir), 1);	/* rec only, no leftovers */
	t_rmtree(dir);
	free(dir);
}

struct seen {
	int n;
	char first[512];
};

static void collect(const char *msg, void *arg)
{
	struct seen *s = arg;

	if (!s->n++)
		snprintf(s->first, sizeof(s->first), "%s", msg);
}

static void warnings_reach_the_caller(void **state)
{
	char *src = t_mkdtemp(), *dst = t_mkdtemp(), target[PATH_MAX];
	struct seen seen = { 0 };
	struct gf_record_options o = GF_RECORD_OPTS_INIT;
	struct gf_record_stats st;

	(void)state;
	o.machine = T_MACHINE(.root = src);
	o.warn = collect;
	o.warn_arg = &seen;
	t_copytree(t_fixture_root("l40s-4gpu-224"), src);
	t_write(src, "sys/devices/pci0000:20/0000:20:01.1/0000:21:00.0/numa_node", "zero\n");
	snprintf(target, sizeof(target), "%s/rec", dst);
	assert_int_equal(gf_record(target, &o, &st), 0);
	assert_int_equal(st.nwarnings, 1);
	assert_int_equal(seen.n, 1);
	assert_non_null(strstr(seen.first, "0000:21:00.0/numa_node: not an integer: 'zero'"));
	t_rmtree(src);
	t_rmtree(dst);
	free(src);
	free(dst);
}

/* What the hook does between "recording complete" and the final swap. */
static enum { RACE_NONE, RACE_MKDIR_NOTES, RACE_RECORD_SAME, RACE_REPLACE_WITH_NOTES } race;

static void write_notes(const char *dir)
{
	char path[PATH_MAX];
	FILE *f;

	assert_true(mkdir(dir, 0755) == 0);
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("precious\n", f);
	fclose(f);
}

static void before_swap(const char *dir)
{
	struct gf_record_options o = GF_RECORD_OPTS_INIT;

	switch (race) {
	case RACE_MKDIR_NOTES:
		write_notes(dir);
		break;
	case RACE_RECORD_SAME:
		o.machine = T_MACHINE(.root = t_fixture_root("ci-vm"));
		gf_record_before_swap = NULL;	/* the other run is not raced */
		assert_int_equal(gf_record(dir, &o, NULL), 0);
		break;
	case RACE_REPLACE_WITH_NOTES:
		t_rmtree(dir);
		write_notes(dir);
		break;
	case RACE_NONE:
		break;
	}
}

static void assert_notes_intact(const char *dir)
{
	char path[PATH_MAX], *text;

	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	text = t_read(path);
	assert_non_null(text);
	assert_string_equal(text, "precious\n");
	free(text);
}

/* A directory made at DIR while record runs is the user's: never replaced. */
static void race_new_dir_created_meanwhile(void **state)
{
	char *dir = t_mkdtemp(), target[PATH_MAX];
	struct gf_record_options o = GF_RECORD_OPTS_INIT;

	(void)state;
	o.machine = T_MACHINE(.root = t_fixture_root("ci-vm"));
	snprintf(target, sizeof(target), "%s/data", dir);
	race = RACE_MKDIR_NOTES;
	gf_record_before_swap = before_swap;
	assert_int_equal(gf_record(target, &o, NULL), -EEXIST);
	gf_record_before_swap = NULL;
	assert_non_null(strstr(gf_last_error(), "appeared"));
	assert_notes_intact(target);
	assert_int_equal(entries(dir), 1);	/* data only, no temp or aside dirs */
	t_rmtree(dir);
	free(dir);
}

/* Two records into one new DIR: the second to finish fails, not both exit 0. */
static void race_two_records_into_one_dir(void **state)
{
	char *dir = t_mkdtemp(), target[PATH_MAX], path[PATH_MAX];
	struct gf_record_options o = GF_RECORD_OPTS_INIT;

	(void)state;
	o.machine = T_MACHINE(.root = t_fixture_root("hgx-h100-8gpu"));
	snprintf(target, sizeof(target), "%s/rec", dir);
	race = RACE_RECORD_SAME;
	gf_record_before_swap = before_swap;
	assert_int_equal(gf_record(target, &o, NULL), -EEXIST);
	gf_record_before_swap = NULL;
	/* The one that won is whole: the ci-vm recording (no nvml.json). */
	snprintf(path, sizeof(path), "%s/gpufeed-recording.json", target);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/nvml.json", target);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_equal(entries(dir), 1);
	t_rmtree(dir);
	free(dir);
}

/* --force over a recording that was swapped for the user's own directory
 * meanwhile: the swap is undone and the directory kept. */
static void race_force_target_replaced_meanwhile(void **state)
{
	char *dir = t_mkdtemp(), target[PATH_MAX];
	struct gf_record_options o = GF_RECORD_OPTS_INIT;

	(void)state;
	o.machine = T_MACHINE(.root = t_fixture_root("ci-vm"));
	snprintf(target, sizeof(target), "%s/rec", dir);
	assert_int_equal(gf_record(target, &o, NULL), 0);
	o.force = true;
	race = RACE_REPLACE_WITH_NOTES;
	gf_record_before_swap = before_swap;
	assert_int_equal(gf_record(target, &o, NULL), -EEXIST);
	gf_record_before_swap = NULL;
	assert_non_null(strstr(gf_last_error(), "not a gpufeed recording"));
	assert_notes_intact(target);
	assert_int_equal(entries(target), 1);
	assert_int_equal(entries(dir), 1);
	t_rmtree(dir);
	free(dir);
}

/* An empty DIR at the start that holds a recording at the end is only
 * replaced with --force. */
static void race_empty_dir_filled_meanwhile(void **state)
{
	char *dir = t_mkdtemp(), target[PATH_MAX], path[PATH_MAX];
	struct gf_record_options o = GF_RECORD_OPTS_INIT;

	(void)state;
	o.machine = T_MACHINE(.root = t_fixture_root("hgx-h100-8gpu"));
	snprintf(target, sizeof(target), "%s/rec", dir);
	assert_int_equal(mkdir(target, 0755), 0);
	race = RACE_RECORD_SAME;
	gf_record_before_swap = before_swap;
	assert_int_equal(gf_record(target, &o, NULL), -EEXIST);
	gf_record_before_swap = NULL;
	snprintf(path, sizeof(path), "%s/nvml.json", target);
	assert_int_not_equal(access(path, F_OK), 0);	/* the ci-vm one stayed */
	assert_int_equal(entries(dir), 1);
	t_rmtree(dir);
	free(dir);
}

/* The same races where the file system has no RENAME_NOREPLACE or
 * RENAME_EXCHANGE: the plain-rename fallback loses nothing either. */
static void races_without_rename_flags(void **state)
{
	gf_record_no_rename_flags = true;
	race_new_dir_created_meanwhile(state);
	race_two_records_into_one_dir(state);
	race_force_target_replaced_meanwhile(state);
	race_empty_dir_filled_meanwhile(state);
	trailing_slash_and_force(state);
	gf_record_no_rename_flags = false;
}

/* A struct not made with GF_RECORD_OPTS_INIT is refused, naming the macro;
 * NULL options are the defaults. */
static void options_are_versioned(void **state)
{
	struct gf_record_options zeroed;

	(void)state;
	memset(&zeroed, 0, sizeof(zeroed));
	zeroed.machine = T_MACHINE(.root = t_fixture_root("ci-vm"));
	assert_int_equal(gf_record("/nonexistent/never-written", &zeroed, NULL), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "GF_RECORD_OPTS_INIT"));
}

/* The summary JSON comes from the library, stamped and parseable. */
static void summary_json(void **state)
{
	struct gf_record_stats st = { .files = 3, .links = 2, .bytes = 99, .ngpus = 8, .nvml = false };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	snprintf(st.nvml_note, sizeof(st.nvml_note), "no NVML");
	assert_non_null(f);
	assert_int_equal(gf_record_write_json(f, "we\"ird\xff", &st), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"schema\": \"gpufeed-record/2\""));
	assert_non_null(strstr(buf, "\"gpufeed_version\""));
	assert_non_null(strstr(buf, "\"generated_at\""));
	assert_non_null(strstr(buf, "\"dir\": \"we\\\"ird\xef\xbf\xbd\""));	/* escaped, U+FFFD */
	assert_non_null(strstr(buf, "\"nvml_note\": \"no NVML\""));
	free(buf);
	assert_int_equal(gf_record_write_json(NULL, "x", &st), -EINVAL);
}

/* A recording of a recording keeps the source's nvml.json byte for byte:
 * a value discovery takes as unknown (an index beyond the GPUs there are),
 * a key this version does not know and the source's layout all stay, so
 * the copy replays what the machine said.  It used to be parsed and
 * written again. */
static void nvml_facts_kept_as_read(void **state)
{
	char *src = t_mkdtemp(), *dir = t_mkdtemp(), target[PATH_MAX + 16], path[PATH_MAX + 32];
	char *facts, *marked, *copy;
	struct gf_record_options o = GF_RECORD_OPTS_INIT;
	const char *at;

	(void)state;
	snprintf(path, sizeof(path), "%s/nvml.json", t_fixture_root("hgx-h100-8gpu"));
	facts = t_read(path);
	assert_non_null(facts);
	at = strstr(facts, "\"index\": 3,");
	assert_non_null(at);
	assert_true(asprintf(&marked, "{\"from_a_newer_gpufeed\": [1, 2],\n%.*s\"index\": 5000,%s", (int)(at - facts - 1),
			     facts + 1, at + strlen("\"index\": 3,")) > 0);
	t_write(src, "nvml.json", marked);
	t_write(src, "sys/devices/system/cpu/online", "0\n");
	t_write(src, "sys/devices/system/cpu/cpu0/topology/core_id", "0\n");
	o.machine = T_MACHINE(.root = src);
	snprintf(target, sizeof(target), "%s/rec", dir);
	assert_int_equal(gf_record(target, &o, NULL), 0);
	snprintf(path, sizeof(path), "%s/nvml.json", target);
	copy = t_read(path);
	assert_non_null(copy);
	assert_string_equal(copy, marked);
	free(copy);
	free(marked);
	free(facts);
	t_rmtree(src);
	t_rmtree(dir);
	free(src);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cancelled_leaves_nothing),
		cmocka_unit_test(never_replaces_what_is_not_a_recording),
		cmocka_unit_test(trailing_slash_and_force),
		cmocka_unit_test(warnings_reach_the_caller),
		cmocka_unit_test(race_new_dir_created_meanwhile),
		cmocka_unit_test(race_two_records_into_one_dir),
		cmocka_unit_test(race_force_target_replaced_meanwhile),
		cmocka_unit_test(race_empty_dir_filled_meanwhile),
		cmocka_unit_test(races_without_rename_flags),
		cmocka_unit_test(options_are_versioned),
		cmocka_unit_test(summary_json),
		cmocka_unit_test(nvml_facts_kept_as_read),
	};

	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
