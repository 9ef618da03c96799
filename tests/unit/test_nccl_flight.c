/* src/nccl/flight.c: the straggler run recorded on 2 x H200 names rank 1;
 * synthetic dumps (tests/fixtures/nccl/synthetic/make-fr.py) cover four
 * ranks with one missing, a size mismatch, agreement (one dump as JSON),
 * a member without a dump and mixed NCCL versions; bad input is an error
 * naming the file. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "helpers.h"
#include <gpufeed/error.h>
#include <gpufeed/nccl_hang.h>

#define H200 "tests/fixtures/nccl/h200x2/flight-recorder/"
#define SYN "tests/fixtures/nccl/synthetic/"

static char *report(const struct gf_nccl_fr *fr, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(json ? gf_nccl_fr_write_json(fr, f) : gf_nccl_fr_print(fr, f), 0);
	fclose(f);
	return buf;
}

static void contains(const char *text, const char *words)
{
	if (!strstr(text, words))
		fail_msg("no '%s' in:\n%s", words, text);
}

static struct gf_nccl_fr *load1(const char *rel)
{
	char path[4096];
	const char *p[1] = { path };
	struct gf_nccl_fr *fr = NULL;

	snprintf(path, sizeof(path), "%s", t_src_path(rel));
	if (gf_nccl_fr_load(p, 1, &fr))
		fail_msg("%s: %s", rel, gf_last_error());
	return fr;
}

static void h200_straggler_is_rank_1(void **state)
{
	struct gf_nccl_fr *fr = load1(H200);
	int ranks[4] = { -1, -1 };
	char *t;

	(void)state;
	assert_int_equal(gf_nccl_fr_missing_ranks(fr, ranks, 4), 1);
	assert_int_equal(ranks[0], 1);
	assert_int_equal(gf_nccl_fr_finding_count(fr), 1);
	t = report(fr, false);
	contains(t, "Flight Recorder: 2 dumps: rank 0 (NCCL 2.28.9), rank 1 (NCCL 2.28.9)");
	contains(t, "process group 0 (default_pg)");
	contains(t, "rank 0: last enqueued #4, started none, completed #3");
	contains(t, "rank 1: last enqueued #3, started none, completed #3");
	contains(t, "missing: rank 1 did not enter all_reduce #4 (seq 4) of process group 0 (default_pg) "
		    "that rank 0 enqueued at 2026-11-26T");
	contains(t, "rank 1's last was #3 (last completed #3)");
	contains(t, "verdict: rank 1 did not enter a collective the others entered");
	free(t);
	t = report(fr, true);
	json_error_t je;
	json_t *j = json_loads(t, 0, &je);
	assert_non_null(j);
	json_t *v = json_object_get(j, "verdict");
	assert_true(json_is_false(json_object_get(v, "agree")));
	assert_int_equal(json_integer_value(json_array_get(json_object_get(v, "missing_ranks"), 0)), 1);
	assert_int_equal(json_array_size(json_object_get(v, "missing_ranks")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "findings"), 0), "kind")),
			    "missing");
	json_decref(j);
	free(t);
	gf_nccl_fr_free(fr);
}

static void the_same_from_files_and_from_the_prefix(void **state)
{
	char a[4096], b[4096];
	const char *two[2] = { a, b }, *pre[1] = { a };
	struct gf_nccl_fr *fr;
	int r = -1;

	(void)state;
	/* given in the other order: the rank comes from the name */
	snprintf(a, sizeof(a), "%s", t_src_path(H200 "nccl_trace_rank_1"));
	snprintf(b, sizeof(b), "%s", t_src_path(H200 "nccl_trace_rank_0"));
	assert_int_equal(gf_nccl_fr_load(two, 2, &fr), 0);
	assert_int_equal(gf_nccl_fr_missing_ranks(fr, &r, 1), 1);
	assert_int_equal(r, 1);
	gf_nccl_fr_free(fr);
	snprintf(a, sizeof(a), "%s", t_src_path(H200 "nccl_trace_rank_"));
	assert_int_equal(gf_nccl_fr_load(pre, 1, &fr), 0);
	assert_int_equal(gf_nccl_fr_missing_ranks(fr, &r, 1), 1);
	assert_int_equal(r, 1);
	gf_nccl_fr_free(fr);
}

static void four_ranks_one_missing(void **state)
{
	struct gf_nccl_fr *fr = load1(SYN "fr4-missing");
	int ranks[4];
	char *t;

	(void)state;
	assert_int_equal(gf_nccl_fr_missing_ranks(fr, ranks, 4), 1);
	assert_int_equal(ranks[0], 2);
	t = report(fr, false);
	contains(t, "rank 2 did not enter all_reduce #4 (seq 4) of process group 0 (default_pg) that rank 0 enqueued");
	contains(t, "rank 2's last was #3 (last completed #3)");
	contains(t, "rank 3: last enqueued #5");
	free(t);
	gf_nccl_fr_free(fr);
}

static void a_size_mismatch_names_both_ranks(void **state)
{
	struct gf_nccl_fr *fr = load1(SYN "fr4-size");
	char *t;

	(void)state;
	assert_int_equal(gf_nccl_fr_missing_ranks(fr, NULL, 0), 0);
	assert_int_equal(gf_nccl_fr_finding_count(fr), 1);
	t = report(fr, false);
	contains(t, "mismatch: seq 2 of process group 0 (default_pg): rank 0 runs all_reduce sizes [[1048576]] "
		    "dtypes [\"Float\"], rank 3 runs all_reduce sizes [[2048]] dtypes [\"Half\"]");
	contains(t, "verdict: the ranks disagree (1 finding), no rank is missing");
	free(t);
	gf_nccl_fr_free(fr);
}

static void agreement_with_a_json_dump(void **state)
{
	struct gf_nccl_fr *fr = load1(SYN "fr3-agree");
	char *t;

	(void)state;
	assert_int_equal(gf_nccl_fr_finding_count(fr), 0);
	t = report(fr, false);
	contains(t, "Flight Recorder: 3 dumps");
	contains(t, "rank 2: last enqueued #3, started none, completed #3");
	contains(t, "verdict: all ranks agree");
	free(t);
	t = report(fr, true);
	contains(t, "\"agree\": true");
	free(t);
	gf_nccl_fr_free(fr);
}

static void a_member_without_a_dump(void **state)
{
	struct gf_nccl_fr *fr = load1(SYN "fr3-nodump");
	char *t;

	(void)state;
	assert_int_equal(gf_nccl_fr_finding_count(fr), 1);
	assert_int_equal(gf_nccl_fr_missing_ranks(fr, NULL, 0), 0);
	t = report(fr, false);
	contains(t, "no-dump: rank 2 of process group 0 (default_pg) wrote no dump");
	free(t);
	gf_nccl_fr_free(fr);
}

static void mixed_nccl_versions(void **state)
{
	struct gf_nccl_fr *fr = load1(SYN "fr2-versions");
	char *t;

	(void)state;
	t = report(fr, false);
	contains(t, "nccl-version: rank 0 runs NCCL 2.28.9, rank 1 NCCL 2.28.3");
	free(t);
	gf_nccl_fr_free(fr);
}

static void expect_error(const char *path, int err, const char *words)
{
	const char *p[1] = { path };
	struct gf_nccl_fr *fr = (struct gf_nccl_fr *)&fr;

	assert_int_equal(gf_nccl_fr_load(p, 1, &fr), err);
	assert_null(fr);
	if (!strstr(gf_last_error(), words))
		fail_msg("'%s' lacks '%s'", gf_last_error(), words);
}

static void bad_input_names_the_file(void **state)
{
	char *dir = t_mkdtemp(), path[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/nope_", dir);
	expect_error(path, -ENOENT, "nope_: no such dump, directory of dumps or TORCH_FR_DUMP_TEMP_FILE prefix");
	t_write(dir, "empty/README", "x");
	snprintf(path, sizeof(path), "%s/empty/README", dir);
	expect_error(path, -EINVAL, "README: the name does not end in the rank");
	/* a directory skips what is not a dump by name, and says when nothing is left */
	snprintf(path, sizeof(path), "%s/empty", dir);
	expect_error(path, -ENOENT, "empty: no dump in this directory");
	t_write(dir, "mixed/rank_0", "{\"entries\": []}");
	t_write(dir, "mixed/job.log", "not a dump");
	snprintf(path, sizeof(path), "%s/mixed", dir);
	const char *one[1] = { path };
	struct gf_nccl_fr *m;
	assert_int_equal(gf_nccl_fr_load(one, 1, &m), 0);
	assert_int_equal(gf_nccl_fr_finding_count(m), 0);
	gf_nccl_fr_free(m);
	t_write_bytes(dir, "evil/rank_0", "\x80\x02" "cos\nsystem\n.", 14);
	snprintf(path, sizeof(path), "%s/evil", dir);
	expect_error(path, -EPROTO, "evil/rank_0: offset 2: opcode 0x63 'c' (GLOBAL) would run code");
	t_write(dir, "json/rank_0", "{\"entries\": 3}");
	snprintf(path, sizeof(path), "%s/json/rank_0", dir);
	expect_error(path, -EBADMSG, "json/rank_0: entries: expected an array");
	t_write(dir, "json2/rank_0", "{\"entries\": [");
	snprintf(path, sizeof(path), "%s/json2/rank_0", dir);
	expect_error(path, -EBADMSG, "json2/rank_0: offset 13: not JSON");
	t_write(dir, "list/rank_0", "[]");
	snprintf(path, sizeof(path), "%s/list/rank_0", dir);
	expect_error(path, -EPROTO, "list/rank_0: offset 0");
	t_write(dir, "noent/rank_0", "{\"version\": \"2.10\"}");
	snprintf(path, sizeof(path), "%s/noent/rank_0", dir);
	expect_error(path, -EBADMSG, "noent/rank_0: no entries: not a Flight Recorder dump");
	t_write(dir, "dup/a/rank_1", "{\"entries\": []}");
	t_write(dir, "dup/b/rank_1", "{\"entries\": []}");
	char a[4096], b[4096];
	const char *two[2] = { a, b };
	struct gf_nccl_fr *fr;
	snprintf(a, sizeof(a), "%s/dup/a", dir);
	snprintf(b, sizeof(b), "%s/dup/b", dir);
	assert_int_equal(gf_nccl_fr_load(two, 2, &fr), -EINVAL);
	contains(gf_last_error(), "two dumps of rank 1");
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(h200_straggler_is_rank_1),
		cmocka_unit_test(the_same_from_files_and_from_the_prefix),
		cmocka_unit_test(four_ranks_one_missing),
		cmocka_unit_test(a_size_mismatch_names_both_ranks),
		cmocka_unit_test(agreement_with_a_json_dump),
		cmocka_unit_test(a_member_without_a_dump),
		cmocka_unit_test(mixed_nccl_versions),
		cmocka_unit_test(bad_input_names_the_file),
	};
	return cmocka_run_group_tests_name("nccl_flight", tests, NULL, NULL);
}
