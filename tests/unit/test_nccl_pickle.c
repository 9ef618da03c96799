/* src/nccl/pickle.c: the Flight Recorder dumps recorded on 2 x H200, the
 * opcodes that would run code refused by name and offset, and hostile
 * input (every truncation, a deterministic mutation loop, cycles, bombs)
 * answered with an error, never a crash or a leak (run under ASan). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "core/error.h"
#include "nccl/pickle.h"

#define FR "tests/fixtures/nccl/h200x2/flight-recorder/nccl_trace_rank_"

static char *slurp(const char *rel, size_t *len)
{
	const char *path = t_src_path(rel);
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	assert_true(*len > 0 && *len < (1 << 20));
	fclose(f);
	return buf;
}

static int load(const void *p, size_t n, json_t **out)
{
	return gf_nccl_pickle_load(p, n, "t", out);
}

static void fixture_rank0_reads_as_the_dump(void **state)
{
	size_t len;
	char *buf = slurp(FR "0", &len);
	json_t *v, *e;

	(void)state;
	assert_int_equal(gf_nccl_pickle_load(buf, len, "rank0", &v), 0);
	assert_string_equal(json_string_value(json_object_get(v, "version")), "2.10");
	assert_string_equal(json_string_value(json_object_get(v, "comm_lib_version")), "2.28.9");
	e = json_object_get(v, "entries");
	assert_int_equal(json_array_size(e), 4);
	json_t *last = json_array_get(e, 3);
	assert_int_equal(json_integer_value(json_object_get(last, "collective_seq_id")), 4);
	assert_string_equal(json_string_value(json_object_get(last, "profiling_name")), "nccl:all_reduce");
	assert_string_equal(json_string_value(json_object_get(last, "state")), "scheduled");
	assert_true(json_is_false(json_object_get(last, "retired")));
	assert_true(json_is_null(json_object_get(last, "time_discovered_completed_ns")));
	/* a 64-bit nanosecond time stamp (LONG1 in the pickle) */
	assert_true(json_integer_value(json_object_get(last, "time_created_ns")) == 1795722546895244847LL);
	/* ('0', 'default_pg') */
	json_t *pg = json_object_get(last, "process_group");
	assert_int_equal(json_array_size(pg), 2);
	assert_string_equal(json_string_value(json_array_get(pg, 1)), "default_pg");
	assert_int_equal(json_integer_value(json_array_get(json_array_get(json_object_get(last, "input_sizes"), 0), 0)),
			 67108864);
	json_t *st = json_object_get(json_object_get(v, "pg_status"), "0");
	assert_int_equal(json_integer_value(json_object_get(st, "last_enqueued_collective")), 4);
	assert_int_equal(json_integer_value(json_object_get(st, "last_started_collective")), -1);
	json_decref(v);
	free(buf);
}

static void fixture_rank1_has_three_entries(void **state)
{
	size_t len;
	char *buf = slurp(FR "1", &len);
	json_t *v;

	(void)state;
	assert_int_equal(load(buf, len, &v), 0);
	assert_int_equal(json_array_size(json_object_get(v, "entries")), 3);
	json_decref(v);
	free(buf);
}

static void expect_refused(const char *p, size_t n, int err, const char *words)
{
	json_t *v = (json_t *)&v;

	assert_int_equal(load(p, n, &v), err);
	assert_null(v);
	if (!strstr(gf_last_error(), words))
		fail_msg("'%s' lacks '%s'", gf_last_error(), words);
}

#define REFUSED(lit, err, words) expect_refused(lit, sizeof(lit) - 1, err, words)

static void code_is_refused_by_name_and_offset(void **state)
{
	(void)state;
	/* pickle.dumps(os.system) and friends start with GLOBAL or STACK_GLOBAL */
	REFUSED("\x80\x02" "cos\nsystem\n" "q\x00.", -EPROTO, "t: offset 2: opcode 0x63 'c' (GLOBAL) would run code");
	REFUSED("\x80\x04\x95\x0c\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x8c\x06system\x93.", -EPROTO,
		"offset 23: opcode 0x93 (STACK_GLOBAL)");
	REFUSED("\x80\x02N)R.", -EPROTO, "offset 4: opcode 0x52 'R' (REDUCE)");
	REFUSED("\x80\x02}}b.", -EPROTO, "(BUILD)");
	REFUSED("\x80\x02(N)\x81.", -EPROTO, "(NEWOBJ)");
	REFUSED("\x80\x02(i__main__\nX\n.", -EPROTO, "(INST)");
	REFUSED("\x80\x02(No.", -EPROTO, "(OBJ)");
	REFUSED("\x80\x02\x82\x01.", -EPROTO, "(EXT1)");
	REFUSED("\x80\x02K\x01Q.", -EPROTO, "(BINPERSID)");
	REFUSED("\x80\x05\x97.", -EPROTO, "(NEXT_BUFFER)");
	/* protocol 0 text opcodes and DUP are not plain binary data */
	REFUSED("I1\n.", -EPROTO, "offset 0: opcode 0x49 'I' is not one this reader takes");
	REFUSED("\x80\x02]2a.", -EPROTO, "opcode 0x32 '2'");
	REFUSED("\x80\x06N.", -EPROTO, "protocol 6 is newer than 5");
}

static void malformed_is_refused(void **state)
{
	(void)state;
	REFUSED("", -EBADMSG, "offset 0: truncated");
	REFUSED("\x80\x02N", -EBADMSG, "no STOP");
	REFUSED("\x80\x02X\xff\xff\xff\x7f" "ab.", -EBADMSG, "offset 2: truncated");
	REFUSED("\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\xff.", -EBADMSG, "truncated");
	REFUSED("\x80\x02.", -EPROTO, "STOP with not exactly one value");
	REFUSED("\x80\x02NN.", -EPROTO, "STOP with not exactly one value");
	REFUSED("\x80\x02(N.", -EPROTO, "a MARK open");
	REFUSED("\x80\x02" "a.", -EPROTO, "the stack is empty");
	REFUSED("\x80\x02Na.", -EPROTO, "APPEND with no list below");
	REFUSED("\x80\x02NK\x01" "a.", -EPROTO, "not a list");
	REFUSED("\x80\x02}(K\x01u.", -EPROTO, "odd number");
	REFUSED("\x80\x02}(]K\x01u.", -EPROTO, "dict key that is not a str or an int");
	REFUSED("\x80\x02]NK\x01s.", -EPROTO, "not a dict");
	REFUSED("\x80\x02(e.", -EPROTO, "no container below the MARK");
	REFUSED("\x80\x02" "e.", -EPROTO, "no MARK");
	REFUSED("\x80\x02h\x05.", -EPROTO, "memo slot 5 was never set");
	REFUSED("\x80\x02Nr\xff\xff\xff\xff.", -EPROTO, "memo index 4294967295 is above");
	REFUSED("\x80\x02\x8a\x09\x01\x01\x01\x01\x01\x01\x01\x01\x01.", -EPROTO, "wider than 64 bits");
	REFUSED("\x80\x02\x8b\xff\xff\xff\xff.", -EPROTO, "a negative length");
	REFUSED("\x80\x02\x86.", -EPROTO, "the stack is empty");
	REFUSED("\x80\x02(N\x86.", -EPROTO, "the stack is empty");
}

static void values_read_right(void **state)
{
	json_t *v;

	(void)state;
	/* {1: -2, 'k': (True, None, 1.5, b'\xff'), 'x': -2**63} */
	static const char p[] = "\x80\x02}q\x00(K\x01J\xfe\xff\xff\xffX\x01\x00\x00\x00k\x88NG\x3f\xf8\x00\x00\x00\x00\x00\x00"
				"\x87q\x01" "C\x01\xff\x85\x86" "X\x01\x00\x00\x00x\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80u.";
	assert_int_equal(load(p, sizeof(p) - 1, &v), 0);
	assert_int_equal(json_integer_value(json_object_get(v, "1")), -2);
	json_t *k = json_object_get(v, "k");
	assert_int_equal(json_array_size(k), 2);
	assert_true(json_is_true(json_array_get(json_array_get(k, 0), 0)));
	assert_true(json_is_null(json_array_get(json_array_get(k, 0), 1)));
	assert_true(json_real_value(json_array_get(json_array_get(k, 0), 2)) == 1.5);
	assert_string_equal(json_string_value(json_array_get(json_array_get(k, 1), 0)), "\xef\xbf\xbd");
	assert_true(json_integer_value(json_object_get(v, "x")) == INT64_MIN);
	json_decref(v);
}

static void a_list_fetched_into_itself_is_a_copy(void **state)
{
	json_t *v;

	(void)state;
	/* l = []; l.append(l): shared, it would be a cycle */
	static const char p[] = "\x80\x02]q\x00h\x00" "a.";
	assert_int_equal(load(p, sizeof(p) - 1, &v), 0);
	assert_int_equal(json_array_size(v), 1);
	assert_int_equal(json_array_size(json_array_get(v, 0)), 0);
	json_decref(v);
}

static void bombs_are_bounded(void **state)
{
	char *p = malloc(1 << 17);
	size_t n = 0;
	int i;

	(void)state;
	assert_non_null(p);
	/* a = [x, x] over and over through the memo: 2^60 values if shared */
	memcpy(p, "\x80\x02]q\x00", 5);
	n = 5;
	for (i = 1; i < 60; i++) {
		p[n++] = '(';
		p[n++] = 'h'; p[n++] = (char)(i - 1);
		p[n++] = 'h'; p[n++] = (char)(i - 1);
		p[n++] = 't';
		p[n++] = 'q'; p[n++] = (char)i;
		p[n++] = '0';
	}
	p[n++] = 'h'; p[n++] = 59; p[n++] = '.';
	expect_refused(p, n, -EPROTO, "values: refused");
	/* [[[[...]]]] deeper than the bound */
	n = 2;
	for (i = 0; i < 100; i++)
		p[n++] = ']';
	for (i = 0; i < 99; i++)
		p[n++] = 'a';
	p[n++] = '.';
	expect_refused(p, n, -EPROTO, "nested deeper than 64");
	/* the same depth through memo copies */
	memcpy(p, "\x80\x02]q\x00", 5);
	n = 5;
	for (i = 1; i < 100; i++) {
		p[n++] = ']';
		p[n++] = 'h'; p[n++] = (char)(i - 1);
		p[n++] = 'a';
		p[n++] = 'q'; p[n++] = (char)i;
	}
	p[n++] = '.';
	expect_refused(p, n, -EPROTO, "nested deeper than 64");
	/* MARKs without end */
	for (n = 2; n < (1 << 17) - 1; n++)
		p[n] = '(';
	expect_refused(p, n, -EPROTO, "MARKs: refused");
	free(p);
}

/* Each prefix of a dump is an error; each mutation of it an error or a
 * tree; ASan and UBSan watch the reads (make sanitize). */
static void hostile_variants_of_the_dumps(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	int ok = 0, bad = 0;

	(void)state;
	for (int r = 0; r < 2; r++) {
		size_t len;
		char rel[128];

		snprintf(rel, sizeof(rel), FR "%d", r);
		char *orig = slurp(rel, &len);
		char *m = malloc(len);
		json_t *v;

		assert_non_null(m);
		for (size_t cut = 0; cut < len; cut++) {
			assert_true(load(orig, cut, &v) < 0);
			assert_null(v);
		}
		for (int iter = 0; iter < 3000; iter++) {
			memcpy(m, orig, len);
			int edits = 1 + iter % 4;
			for (int e = 0; e < edits; e++) {
				x ^= x << 13; x ^= x >> 7; x ^= x << 17;
				size_t at = (size_t)(x % len);
				switch ((x >> 32) % 3) {
				case 0: m[at] = (char)(x >> 40); break;		/* any byte */
				case 1: m[at] ^= (char)(1u << ((x >> 40) % 8)); break;	/* one bit */
				default: m[at] = "()]}aeqhu.0ts\x85\x86\x87\x94\x8a"[(x >> 40) % 19]; break;
				}
			}
			int ret = load(m, len, &v);
			if (ret == 0) {
				ok++;
				json_decref(v);
			} else {
				assert_true(ret == -EPROTO || ret == -EBADMSG);
				assert_null(v);
				bad++;
			}
		}
		free(m);
		free(orig);
	}
	/* the loop reaches both outcomes, so it tests something either way */
	assert_true(ok > 0);
	assert_true(bad > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixture_rank0_reads_as_the_dump),
		cmocka_unit_test(fixture_rank1_has_three_entries),
		cmocka_unit_test(code_is_refused_by_name_and_offset),
		cmocka_unit_test(malformed_is_refused),
		cmocka_unit_test(values_read_right),
		cmocka_unit_test(a_list_fetched_into_itself_is_a_copy),
		cmocka_unit_test(bombs_are_bounded),
		cmocka_unit_test(hostile_variants_of_the_dumps),
	};
	return cmocka_run_group_tests_name("nccl_pickle", tests, NULL, NULL);
}
