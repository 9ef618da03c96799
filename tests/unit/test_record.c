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
#include "audit_fixture.h"
#include "record/record_hook.h"

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

/* ---- what a recording holds: whatever the checks read, as the policy
 * (src/record/record_policy.c) allows ---- */

/* Records fx's copy into a fresh directory (NVML as the copy has it);
 * returns the recording, under *top (free both, t_rmtree(*top)). */
static char *record_copy(struct afx *fx, char **top)
{
	struct gf_record_options o = GF_RECORD_OPTS_INIT;
	char *dest;

	*top = t_mkdtemp();
	assert_true(asprintf(&dest, "%s/rec", *top) > 0);
	o.machine = T_MACHINE(.root = fx->dir);
	assert_int_equal(gf_record(dest, &o, NULL), 0);
	return dest;
}

/* The bytes of DIR/REL, or NULL when absent; *len set. */
static char *bytes_at(const char *dir, const char *rel, size_t *len)
{
	char path[PATH_MAX];
	FILE *f;
	char *buf = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (!(f = fopen(path, "rb")))
		return NULL;
	buf = calloc(1, 4096);
	assert_non_null(buf);
	*len = fread(buf, 1, 4095, f);
	fclose(f);
	return buf;
}

/* Every check agrees on fx's copy and its recording `rec`; then all goes. */
static void agree_and_free(struct afx *fx, struct afx *rec, char *top, char *dest)
{
	afx_same_results(fx, rec);
	gf_audit_free(rec->last);
	t_rmtree(top);
	free(top);
	free(dest);
	afx_free(fx);
}

static bool absent_at(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return lstat(path, &st) && errno == ENOENT;
}

/* A file no list of record's ever named is recorded because a check read
 * it: cpu.cstate's PM QoS request (/dev/cpu_dma_latency), read when a
 * C-state is too deep.  A recording used to lack it, and warned where the
 * machine passed. */
static void what_a_check_reads_is_recorded(void **state)
{
	struct afx *fx = afx_new("ci-vm"), rec = { 0 };
	const struct gf_check_result *r;
	int32_t qos = 50;
	char *top, *dest, *copy;
	size_t len = 0;

	(void)state;
	afx_put(fx, "/sys/devices/system/cpu/cpu0/cpuidle/state2/name", "C6\n");
	afx_put(fx, "/sys/devices/system/cpu/cpu0/cpuidle/state2/latency", "170\n");
	afx_put(fx, "/sys/devices/system/cpu/cpu0/cpuidle/state2/disable", "0\n");
	t_write_bytes(fx->dir, "dev/cpu_dma_latency", &qos, sizeof(qos));
	afx_expect(fx, "cpu.cstate", "", GF_CHECK_PASS);
	dest = record_copy(fx, &top);
	copy = bytes_at(dest, "dev/cpu_dma_latency", &len);
	assert_non_null(copy);
	assert_int_equal(len, sizeof(qos));
	assert_memory_equal(copy, &qos, sizeof(qos));
	rec.dir = dest;
	r = afx_expect(&rec, "cpu.cstate", "", GF_CHECK_PASS);
	assert_non_null(strstr(r->note, "50 us"));
	free(copy);
	agree_and_free(fx, &rec, top, dest);
}

/* The checks list /proc for daemons: a recording keeps PID 1 and the
 * daemons they look for, and no other process, not even as a directory. */
static void only_the_watched_processes_are_recorded(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu"), rec = { 0 };
	enum gf_check_status want;
	char *top, *dest, *comm;
	size_t len = 0;

	(void)state;
	afx_put(fx, "/proc/1/comm", "systemd\n");
	afx_put(fx, "/proc/5150/comm", "sshd\n");
	afx_put(fx, "/proc/5150/cmdline", "sshd: alice@pts/0");
	afx_put(fx, "/proc/5151/comm", "irqbalance\n");
	want = afx_run(fx, "irq.balance", "")->status;
	dest = record_copy(fx, &top);
	assert_true(absent_at(dest, "proc/5150"));
	comm = bytes_at(dest, "proc/5151/comm", &len);
	assert_non_null(comm);
	assert_string_equal(comm, "irqbalance\n");
	free(comm);
	assert_false(absent_at(dest, "proc/1/comm"));
	rec.dir = dest;
	afx_expect(&rec, "irq.balance", "", want);
	agree_and_free(fx, &rec, top, dest);
}

/* Container detection reads PID 1's environment: the recording keeps its
 * container= and nothing else (the rest holds secrets). */
static void environ_keeps_container_only(void **state)
{
	static const char env[] = "HOME=/root\0container=lxc\0API_TOKEN=hunter2\0";
	struct afx *fx = afx_new("hgx-h100-8gpu"), rec = { 0 };
	char *top, *dest, *copy;
	size_t len = 0;

	(void)state;
	t_write_bytes(fx->dir, "proc/1/environ", env, sizeof(env) - 1);
	afx_run(fx, "mem.swap", NULL);
	assert_string_equal(fx->last->container_kind, "lxc");
	dest = record_copy(fx, &top);
	copy = bytes_at(dest, "proc/1/environ", &len);
	assert_non_null(copy);
	assert_int_equal(len, strlen("container=lxc") + 1);
	assert_memory_equal(copy, "container=lxc", len);
	rec.dir = dest;
	afx_run(&rec, "mem.swap", NULL);
	assert_true(rec.last->container);
	assert_string_equal(rec.last->container_kind, "lxc");
	free(copy);
	agree_and_free(fx, &rec, top, dest);
}

/* A library a check probes outside the directories it lists (cuda-compat's
 * libcuda.so.1, looked for when the driver is older than the runtime) is
 * kept by name, never its bytes; the listed directories keep only the
 * names the checks use. */
static void libraries_recorded_by_name(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu"), rec = { 0 };
	char *top, *dest, *copy;
	size_t len = 1;

	(void)state;
	/* CUDA 13 needs driver 580; the fixture's is 535. */
	afx_put(fx, "/usr/local/cuda/version.json", "{\"cuda\": {\"version\": \"13.0.1\"}}\n");
	afx_put(fx, "/usr/local/cuda/compat/libcuda.so.1", "\177ELF a driver library\n");
	afx_put(fx, "/usr/local/cuda/lib64/libcudart.so.13.0.48", "\177ELF a runtime\n");
	afx_put(fx, "/usr/local/cuda/lib64/libnvrtc.so.13", "\177ELF another\n");
	afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_WARN);	/* cuda-compat is there */
	dest = record_copy(fx, &top);
	copy = bytes_at(dest, "usr/local/cuda/compat/libcuda.so.1", &len);
	assert_non_null(copy);
	assert_int_equal(len, 0);
	free(copy);
	copy = bytes_at(dest, "usr/local/cuda/lib64/libcudart.so.13.0.48", &len);
	assert_non_null(copy);
	assert_int_equal(len, 0);
	free(copy);
	assert_true(absent_at(dest, "usr/local/cuda/lib64/libnvrtc.so.13"));
	rec.dir = dest;
	afx_expect(&rec, "gpu.driver-cuda", "", GF_CHECK_WARN);
	agree_and_free(fx, &rec, top, dest);
}

/* Every fixture recorded again replays every check as the fixture does,
 * under both profiles: what the checks read is there, and so are the facts
 * about the recording process (euid, device nodes, limits) that the
 * source's manifest holds. */
static void every_fixture_recorded_again_agrees(void **state)
{
	static const char *const machines[] = { "ci-vm", "hgx-h100-8gpu", "h200x2-vm", "h200x4-vm", "tuned-hgx",
						"untuned-hgx" };

	(void)state;
	for (size_t m = 0; m < sizeof(machines) / sizeof(machines[0]); m++) {
		struct afx *fx = afx_new(machines[m]), rec = { 0 };
		char *top, *dest = record_copy(fx, &top);

		rec.dir = dest;
		for (int p = GF_PROFILE_TRAINING; p <= GF_PROFILE_INFERENCE; p++) {
			fx->profile = rec.profile = (enum gf_profile)p;
			afx_same_results(fx, &rec);
		}
		agree_and_free(fx, &rec, top, dest);
	}
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
		cmocka_unit_test(what_a_check_reads_is_recorded),
		cmocka_unit_test(only_the_watched_processes_are_recorded),
		cmocka_unit_test(environ_keeps_container_only),
		cmocka_unit_test(libraries_recorded_by_name),
		cmocka_unit_test(every_fixture_recorded_again_agrees),
	};

	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
