/* What NCCL chose for a collective (gpufeed/nccl.h: gf_nccl_choice_parse,
 * gf_nccl_tuning_begin/end): its choice line read on real lines (NCCL 2.28.9
 * recorded on 2 x H200, the lines of NCCL's own format string and of its
 * user guide), on 2.23's numbered form, and refused on malformed and
 * hostile ones; then the capture around calls of the stand-in NCCL: only
 * the calls between begin and end are caught, the environment is put back,
 * the file goes, and each refusal says why. */
#include "helpers.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpufeed/error.h>
#include <gpufeed/nccl.h>
#include "vendor/nccl/nccl.h"

static int parse(const char *line, struct gf_nccl_choice *c)
{
	return gf_nccl_choice_parse(line, strlen(line), c);
}

static void expect_choice(const char *line, const char *func, unsigned long long bytes, const char *algo,
			  const char *proto, int lo, int hi, int nch)
{
	struct gf_nccl_choice c;

	if (parse(line, &c) != 1)
		fail_msg("not read: %s", line);
	assert_string_equal(c.func, func);
	assert_true(c.bytes == bytes);
	assert_string_equal(c.algo, algo);
	assert_string_equal(c.proto, proto);
	assert_int_equal(c.channel_lo, lo);
	assert_int_equal(c.channel_hi, hi);
	assert_int_equal(c.nchannels, nch);
}

static void expect_none(const char *line)
{
	struct gf_nccl_choice c;

	memset(&c, 0x5a, sizeof(c));
	if (parse(line, &c) != 0)
		fail_msg("read as a choice: %s", line);
	assert_int_equal(c.algo[0], 0);
	assert_int_equal(c.nchannels, 0);
}

/* Lines NCCL 2.28.9 wrote on 2 x H200 (tests/fixtures/nccl/h200x2/), and
 * its user guide's example (docs/userguide troubleshooting, "logging"). */
static void real_lines(void **state)
{
	(void)state;
	expect_choice("vm:1503:1503 [0] NCCL INFO AllReduce: 8388608 Bytes -> Algo RING proto SIMPLE "
		      "channel{Lo..Hi}={0..23}", "AllReduce", 8388608, "RING", "SIMPLE", 0, 23, 24);
	/* NCCL_MAX_NCHANNELS=1 */
	expect_choice("vm:1832:1832 [0] NCCL INFO AllReduce: 268435456 Bytes -> Algo RING proto SIMPLE "
		      "channel{Lo..Hi}={0..0}", "AllReduce", 268435456, "RING", "SIMPLE", 0, 0, 1);
	expect_choice("node-01:631871:631871 [0] NCCL INFO AllReduce: 33554432 Bytes -> Algo RING proto SIMPLE "
		      "channel{Lo..Hi}={0..31}", "AllReduce", 33554432, "RING", "SIMPLE", 0, 31, 32);
	/* behind the launchers' prefixes and NCCL's timestamp, with a CR */
	expect_choice("[rank0]:vm:1:1 [0] NCCL INFO AllGather: 1024 Bytes -> Algo RING proto LL channel{Lo..Hi}={2..3}\r\n",
		      "AllGather", 1024, "RING", "LL", 2, 3, 2);
	expect_choice("[0] [2026-11-26 19:48:57] vm:1:1 [0] NCCL INFO ReduceScatter: 4096 Bytes -> Algo PAT proto "
		      "LL128 channel{Lo..Hi}={0..15}", "ReduceScatter", 4096, "PAT", "LL128", 0, 15, 16);
}

/* Every choice line of the recorded logs is read, and as many as grep
 * counts: no line of that shape is missed. */
static void recorded_logs(void **state)
{
	static const char *const logs[] = { "max-nchannels-1.log", "ncclt-single-process.log", "plain.log",
					     "proto-simple.log" };
	int total = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		char path[512], *text, *save = NULL;
		int shaped = 0, read = 0;

		snprintf(path, sizeof(path), "tests/fixtures/nccl/h200x2/%s", logs[i]);
		text = t_read(t_src_path(path));
		assert_non_null(text);
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			struct gf_nccl_choice c;

			/* nccl-tests' table sometimes runs into NCCL's line
			 * ("... -1vm:1503:..."): not a line NCCL began */
			if (!strstr(l, "Bytes -> Algo") || strncmp(l, "vm:", 3))
				continue;
			shaped++;
			if (parse(l, &c) == 1 && !strcmp(c.algo, "RING") && c.nchannels >= 1)
				read++;
		}
		free(text);
		assert_int_equal(read, shaped);
		total += read;
	}
	assert_true(total > 20);
}

/* Each algorithm and protocol name NCCL 2.28.9 has (src/collectives.cc,
 * ncclAlgoToString/ncclProtoToString) in the format of its src/enqueue.cc
 * line 741: "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}". */
static void every_name(void **state)
{
	static const char *const algos[] = { "TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE",
					     "PAT" };
	static const char *const protos[] = { "LL", "LL128", "SIMPLE" };

	(void)state;
	for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++)
		for (size_t p = 0; p < sizeof(protos) / sizeof(protos[0]); p++) {
			char line[256];

			snprintf(line, sizeof(line), "h:1:2 [3] NCCL INFO Broadcast: 9223372036854775807 Bytes -> Algo %s "
				 "proto %s channel{Lo..Hi}={4..63}", algos[a], protos[p]);
			expect_choice(line, "Broadcast", 9223372036854775807ull, algos[a], protos[p], 4, 63, 60);
		}
}

/* NCCL 2.23 (src/enqueue.cc, getAlgoInfo): "%s: %ld Bytes -> Algo %d proto
 * %d time %f", numbers of src/include/nccl_common.h. */
static void numbered_form(void **state)
{
	(void)state;
	expect_choice("h:1:1 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo 1 proto 2 time 40.500000", "AllReduce",
		      1048576, "RING", "SIMPLE", -1, -1, 0);
	expect_choice("h:1:1 [0] NCCL INFO Reduce: 8 Bytes -> Algo 6 proto 0 time 5.1", "Reduce", 8, "PAT", "LL", -1,
		      -1, 0);
	expect_none("h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo 7 proto 0 time 5.1");
	expect_none("h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo 1 proto 3 time 5.1");
	expect_none("h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo 1 proto 2");
	expect_none("h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo -1 proto 2 time 1");
}

static void malformed_and_hostile(void **state)
{
	const char *pre = "h:1:1 [0] NCCL INFO ";
	static const char *const bad[] = {
		"AllReduce: 8 Bytes -> Algo RING proto SIMPLE",				/* no channels */
		"AllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..",	/* cut */
		"AllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={5..2}",	/* lo > hi */
		"AllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..99999}",
		"AllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={-1..2}",
		"AllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}x",	/* trailing */
		"AllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2} and more",
		"AllReduce: 99999999999999999999 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}",
		"AllReduce: 9223372036854775808 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}",
		"AllReduce: -8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}",
		"AllReduce: 8 Bytes -> Algo ring proto SIMPLE channel{Lo..Hi}={0..2}",	/* NCCL says RING */
		"AllReduce: 8 Bytes -> Algo  proto SIMPLE channel{Lo..Hi}={0..2}",
		"AllReduce: 8 Bytes -> Algo RING proto \x1b[31mSIMPLE channel{Lo..Hi}={0..2}",
		"AllReduce: 8 Bytes -> Algo RING\x1b]0;x\x07 proto SIMPLE channel{Lo..Hi}={0..2}",
		"All Reduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}",
		": 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}",
		"AllReduceAllReduceAllReduceAllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}",
		"AllReduce: 8 Bytes -> Algo RINGRINGRINGRINGRINGRINGRING proto SIMPLE channel{Lo..Hi}={0..2}",
		"AllReduce: 8 Bytes -> Algo RING proto SIMPLESIMPLESIMPLE channel{Lo..Hi}={0..2}",
		"Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}",
		"",
	};
	struct gf_nccl_choice c;
	char line[8192];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "%s%s", pre, bad[i]);
		expect_none(line);
	}
	/* not NCCL's INFO: a WARN, no NCCL prefix, text quoting one */
	expect_none("h:1:1 [0] enqueue.cc:1 NCCL WARN AllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}");
	expect_none("AllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}");
	expect_none("echo 'h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}'");
	/* a NUL inside: the bytes after it are not the line NCCL wrote */
	{
		static const char nul[] = "h:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RI\0NG proto SIMPLE "
					  "channel{Lo..Hi}={0..2}";

		assert_int_equal(gf_nccl_choice_parse(nul, sizeof(nul) - 1, &c), 0);
	}
	/* far longer than any NCCL line */
	memset(line, 'A', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	memcpy(line, pre, strlen(pre));
	expect_none(line);
	/* len bounds the read: the choice line cut short is no choice */
	snprintf(line, sizeof(line), "%sAllReduce: 8 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..2}", pre);
	assert_int_equal(gf_nccl_choice_parse(line, strlen(line) - 1, &c), 0);
	assert_int_equal(gf_nccl_choice_parse(line, strlen(line), &c), 1);
	assert_int_equal(gf_nccl_choice_parse(NULL, 0, &c), -EINVAL);
	assert_int_equal(gf_nccl_choice_parse(line, 1, NULL), -EINVAL);
}

/* ---- the capture, on the stand-in NCCL ---- */

static const struct gf_nccl_ops *nccl;
static char *dir;

static void debug_env_clear(void)
{
	unsetenv("NCCL_DEBUG");
	unsetenv("NCCL_DEBUG_SUBSYS");
	unsetenv("NCCL_DEBUG_FILE");
}

/* The stand-in NCCL alone: without the stand-in CUDA loaded its buffers
 * are host memory (tests/fakes/fake_nccl.c). */
static int setup(void **state)
{
	const char *lib = getenv("GPUFEED_FAKE_NCCL");
	static const char *const knobs[] = { "FAKE_NCCL_NO_RESET_DEBUG", "FAKE_NCCL_FAIL", "NCCL_ALGO", "NCCL_PROTO",
					     "NCCL_MAX_NCHANNELS" };
	char why[400];

	(void)state;
	setenv("GPUFEED_NCCL_LIBRARY", lib ? lib : "build/fakes/libnccl.so.2", 1);
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		unsetenv(knobs[i]);
	debug_env_clear();
	dir = t_mkdtemp();
	setenv("FAKE_NCCL_DIR", dir, 1);
	gf_nccl_unload();
	assert_int_equal(gf_nccl_load(&nccl, why, sizeof(why)), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	debug_env_clear();
	gf_nccl_unload();
	t_rmtree(dir);
	free(dir);
	return 0;
}

static int files_in(const char *d)
{
	char cmd[600], out[32] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", d);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof(out), p));
	pclose(p);
	return atoi(out);
}

/* n all-reduces of count floats on a communicator of one rank. */
static void all_reduces(gf_nccl_comm comm, size_t count, int n)
{
	float *s = calloc(count, 4), *r = calloc(count, 4);

	assert_non_null(s);
	assert_non_null(r);
	for (int i = 0; i < n; i++)
		assert_int_equal(nccl->all_reduce(s, r, count, GF_NCCL_FLOAT32, GF_NCCL_SUM, comm, NULL), 0);
	free(s);
	free(r);
}

/* Only the calls between begin and end are caught; before and after, NCCL
 * logs nothing (the timed passes stay free of it); the variables are back
 * as they were, the file gone. */
static void catches_only_between(void **state)
{
	struct gf_nccl_choice got[4];
	struct gf_nccl_tuning *t;
	gf_nccl_comm comm;
	char *cap = t_mkdtemp();

	(void)state;
	setenv("NCCL_DEBUG", "WARN", 1);
	setenv("NCCL_MAX_NCHANNELS", "3", 1);
	assert_int_equal(nccl->comm_init_all(&comm, 1, NULL), 0);
	all_reduces(comm, 1024, 2);
	assert_int_equal(gf_nccl_tuning_begin(cap, &t), 0);
	assert_string_equal(getenv("NCCL_DEBUG_SUBSYS"), "TUNING");
	assert_int_equal(files_in(cap), 1);
	all_reduces(comm, 1 << 20, 1);
	assert_int_equal(gf_nccl_tuning_end(t, got, 4), 1);
	assert_string_equal(got[0].func, "AllReduce");
	assert_true(got[0].bytes == 4ull << 20);
	assert_string_equal(got[0].algo, "RING");
	assert_string_equal(got[0].proto, "SIMPLE");
	assert_int_equal(got[0].nchannels, 3);
	assert_string_equal(getenv("NCCL_DEBUG"), "WARN");
	assert_null(getenv("NCCL_DEBUG_SUBSYS"));
	assert_null(getenv("NCCL_DEBUG_FILE"));
	assert_int_equal(files_in(cap), 0);
	/* after: nothing caught by a new capture around no call */
	all_reduces(comm, 1024, 3);
	assert_int_equal(gf_nccl_tuning_begin(cap, &t), 0);
	assert_int_equal(gf_nccl_tuning_end(t, got, 4), 0);
	/* more lines than room: all counted, max kept */
	assert_int_equal(gf_nccl_tuning_begin(cap, &t), 0);
	all_reduces(comm, 256, 5);
	assert_int_equal(gf_nccl_tuning_end(t, got, 2), 5);
	assert_true(got[1].bytes == 1024);
	assert_string_equal(got[1].proto, "LL");
	assert_int_equal(nccl->comm_destroy(comm), 0);
	unsetenv("NCCL_MAX_NCHANNELS");
	t_rmtree(cap);
	free(cap);
}

/* A '%' in the directory reaches NCCL doubled (NCCL_DEBUG_FILE expands
 * %h and %p), so NCCL writes the file gpufeed reads. */
static void percent_in_dir(void **state)
{
	struct gf_nccl_choice got[1];
	struct gf_nccl_tuning *t;
	gf_nccl_comm comm;
	char cap[600];

	(void)state;
	snprintf(cap, sizeof(cap), "%s/50%%p", dir);
	assert_int_equal(mkdir(cap, 0700), 0);
	assert_int_equal(nccl->comm_init_all(&comm, 1, NULL), 0);
	assert_int_equal(gf_nccl_tuning_begin(cap, &t), 0);
	assert_non_null(strstr(getenv("NCCL_DEBUG_FILE"), "/50%%p/"));
	all_reduces(comm, 64, 1);
	assert_int_equal(gf_nccl_tuning_end(t, got, 1), 1);
	assert_int_equal(files_in(cap), 0);
	assert_int_equal(nccl->comm_destroy(comm), 0);
}

static void refusals(void **state)
{
	struct gf_nccl_tuning *t = (void *)1, *t2;
	char why[400];

	(void)state;
	/* the user's own log file is not reopened (NCCL's "w" would empty it) */
	setenv("NCCL_DEBUG_FILE", "/tmp/users-nccl.log", 1);
	assert_int_equal(gf_nccl_tuning_begin(dir, &t), -EBUSY);
	assert_null(t);
	assert_non_null(strstr(gf_last_error(), "NCCL_DEBUG_FILE is set (/tmp/users-nccl.log)"));
	unsetenv("NCCL_DEBUG_FILE");
	/* one capture at a time */
	assert_int_equal(gf_nccl_tuning_begin(dir, &t), 0);
	assert_int_equal(gf_nccl_tuning_begin(dir, &t2), -EBUSY);
	assert_non_null(strstr(gf_last_error(), "under way"));
	assert_int_equal(gf_nccl_tuning_end(t, NULL, 0), 0);
	/* a directory that is not there: named */
	assert_int_equal(gf_nccl_tuning_begin("/nonexistent/dir", &t), -ENOENT);
	assert_non_null(strstr(gf_last_error(), "/nonexistent/dir/gpufeed-nccl-tuning."));
	assert_null(getenv("NCCL_DEBUG"));
	/* an NCCL before 2.24 */
	setenv("FAKE_NCCL_NO_RESET_DEBUG", "1", 1);
	gf_nccl_unload();
	assert_int_equal(gf_nccl_load(&nccl, why, sizeof(why)), 0);
	assert_int_equal(gf_nccl_tuning_begin(dir, &t), -ENOTSUP);
	assert_non_null(strstr(gf_last_error(), "NCCL 2.28.9 has no ncclResetDebugInit (2.24 and later)"));
	unsetenv("FAKE_NCCL_NO_RESET_DEBUG");
	/* no NCCL at all */
	setenv("GPUFEED_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
	gf_nccl_unload();
	assert_int_equal(gf_nccl_tuning_begin(dir, &t), -ENOSYS);
	gf_nccl_unload();
	assert_null(getenv("NCCL_DEBUG"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_lines),
		cmocka_unit_test(recorded_logs),
		cmocka_unit_test(every_name),
		cmocka_unit_test(numbered_form),
		cmocka_unit_test(malformed_and_hostile),
		cmocka_unit_test_setup_teardown(catches_only_between, setup, teardown),
		cmocka_unit_test_setup_teardown(percent_in_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(refusals, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
