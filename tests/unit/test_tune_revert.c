/* gpufeed tune and revert on recordings: tune then revert gives back every
 * byte; a crash at any journal step (the fault seam) leaves a state revert
 * restores; a second tune keeps the first originals; a value changed by
 * someone else is left alone without --force; the lock refuses a second
 * run; nothing is written outside the root. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_fixture.h"
#include <gpufeed/tune.h>
#include "tune/fault.h"
#include "tune/tune_internal.h"

/* ---- a checksum of every file and link of a tree (directories aside:
 * revert leaves the empty state directory) ---- */
static unsigned long long tree_sum;
static size_t tree_base;

static void mix(const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tree_sum = (tree_sum ^ ((const unsigned char *)p)[i]) * 1099511628211ULL;
}

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_SL) {
		char target[4096];
		ssize_t n = readlink(path, target, sizeof(target));

		mix(path + tree_base, strlen(path + tree_base) + 1);
		mix(target, n > 0 ? (size_t)n : 0);
	} else if (flag == FTW_F && S_ISREG(st->st_mode)) {
		char *text = t_read(path);

		mix(path + tree_base, strlen(path + tree_base) + 1);
		mix("F", 1);
		if (text)
			mix(text, strlen(text));
		free(text);
	}
	return 0;
}

static unsigned long long checksum(const char *dir)
{
	tree_sum = 14695981039346656037ULL;
	tree_base = strlen(dir);
	assert_int_equal(nftw(dir, visit, 32, FTW_PHYS), 0);
	return tree_sum;
}

/* A ci-vm copy with vm.swappiness planted at 60 (mem.swappiness: warn,
 * safe fix 10). */
static struct afx *bad_machine(void)
{
	struct afx *fx = afx_new_owned("ci-vm");

	afx_put(fx, "/proc/sys/vm/swappiness", "60\n");
	return fx;
}

static char *machine_file(struct afx *fx, const char *path)
{
	char real[4096];

	snprintf(real, sizeof(real), "%s%s", fx->dir, path);
	return t_read(real);
}

static int tune(struct afx *fx, bool persist, struct gf_tune_report **rep)
{
	struct gf_tune_options o = GF_TUNE_OPTS_INIT;

	o.machine = T_MACHINE(.root = fx->dir, .nvml = GF_NVML_OFF);
	o.persist = persist;
	o.only = "mem.swappiness";
	return gf_tune_run(&o, rep);
}

static int revert(struct afx *fx, bool force, struct gf_tune_report **rep)
{
	struct gf_tune_options o = GF_TUNE_OPTS_INIT;

	o.machine = T_MACHINE(.root = fx->dir);
	o.force = force;
	return gf_tune_revert(&o, rep);
}

static void assert_file(struct afx *fx, const char *path, const char *want)
{
	char *got = machine_file(fx, path);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

/* Writes a journal into the recording's own state directory: the header,
 * the record of the root it belongs to (the recording itself), then
 * `records`. */
static void plant_journal(struct afx *fx, const char *records)
{
	char root[4096], *text = NULL;

	assert_non_null(realpath(fx->dir, root));
	assert_true(asprintf(&text, "%s\nroot\t%s\n%s", GF_TUNE_JOURNAL_SCHEMA, root, records) > 0);
	t_write(fx->dir, "var/lib/gpufeed/tune.journal", text);
	free(text);
}

static void test_tune_then_revert_restores_every_byte(void **state)
{
	struct afx *fx = bad_machine();
	struct gf_tune_report *rep = NULL;
	unsigned long long before = checksum(fx->dir);

	(void)state;
	assert_int_equal(tune(fx, true, &rep), 0);
	assert_int_equal(rep->counts[GF_TUNE_APPLIED], 2);	/* the value and its sysctl.d line */
	assert_int_equal(gf_tune_undone(rep), 0);
	gf_tune_report_free(rep);
	assert_file(fx, "/proc/sys/vm/swappiness", "10\n");
	assert_file(fx, "/etc/sysctl.d/90-gpufeed.conf",
		    "# Written by 'gpufeed tune --persist'; 'gpufeed revert' removes what it added.\n"
		    "vm.swappiness = 10\n");
	/* The audit now passes. */
	afx_expect(fx, "mem.swappiness", NULL, GF_CHECK_PASS);
	assert_true(checksum(fx->dir) != before);

	assert_int_equal(revert(fx, false, &rep), 0);
	assert_int_equal(rep->counts[GF_TUNE_RESTORED], 2);
	gf_tune_report_free(rep);
	assert_true(checksum(fx->dir) == before);
	assert_file(fx, "/var/lib/gpufeed/tune.journal", NULL);
	/* A second revert has nothing to do. */
	assert_int_equal(revert(fx, false, &rep), 0);
	assert_int_equal(rep->nitems, 0);
	gf_tune_report_free(rep);
	afx_free(fx);
}

static void test_persist_into_an_existing_file(void **state)
{
	struct afx *fx = bad_machine();
	struct gf_tune_report *rep = NULL;
	unsigned long long before;

	(void)state;
	afx_put(fx, "/etc/sysctl.d/90-gpufeed.conf", "net.core.somaxconn = 4096");	/* no newline */
	before = checksum(fx->dir);
	assert_int_equal(tune(fx, true, &rep), 0);
	gf_tune_report_free(rep);
	assert_file(fx, "/etc/sysctl.d/90-gpufeed.conf", "net.core.somaxconn = 4096\nvm.swappiness = 10\n");
	assert_int_equal(revert(fx, false, &rep), 0);
	gf_tune_report_free(rep);
	assert_true(checksum(fx->dir) == before);
	afx_free(fx);
}

static void test_dry_run_writes_nothing(void **state)
{
	struct afx *fx = bad_machine();
	struct gf_tune_options o = GF_TUNE_OPTS_INIT;
	struct gf_tune_report *rep = NULL;
	unsigned long long before = checksum(fx->dir);
	struct stat st;
	char dir[4096];

	(void)state;
	o.machine = T_MACHINE(.root = fx->dir, .nvml = GF_NVML_OFF);
	o.dry_run = o.persist = true;
	o.only = "mem.swappiness";	/* ci-vm has other safe fixes too */
	assert_int_equal(gf_tune_run(&o, &rep), 0);
	assert_int_equal(rep->counts[GF_TUNE_WOULD_APPLY], 2);
	assert_string_equal(rep->items[0].old, "60");
	assert_string_equal(rep->items[0].value, "10");
	assert_string_equal(rep->items[0].path, "/proc/sys/vm/swappiness");
	gf_tune_report_free(rep);
	assert_true(checksum(fx->dir) == before);
	snprintf(dir, sizeof(dir), "%s/var/lib/gpufeed", fx->dir);
	assert_int_not_equal(stat(dir, &st), 0);
	afx_free(fx);
}

/* A crash at each durable step of tune (journal appends, fsyncs, the value
 * write, the persistent file's write, rename, directory sync), then revert:
 * every byte back.  Then the same for a crash in revert itself. */
static void test_crash_at_every_tune_step(void **state)
{
	unsigned steps = 0;

	(void)state;
	for (unsigned n = 1;; n++) {
		struct afx *fx = bad_machine();
		struct gf_tune_report *rep = NULL;
		unsigned long long before = checksum(fx->dir);
		int ret;

		gf_tune_fault = (struct gf_tune_fault){ .step = n };
		ret = tune(fx, true, &rep);
		gf_tune_report_free(rep);
		gf_tune_fault.step = 0;
		if (!gf_tune_fault_fired) {
			assert_int_equal(ret, 0);
			steps = n - 1;
			afx_free(fx);
			break;
		}
		assert_int_equal(ret, -EIO);
		assert_int_equal(revert(fx, false, &rep), 0);
		if (gf_tune_undone(rep))
			fail_msg("step %u: revert left %d undone", n, gf_tune_undone(rep));
		gf_tune_report_free(rep);
		if (checksum(fx->dir) != before)
			fail_msg("crash at tune step %u: revert did not restore every byte", n);
		afx_free(fx);
	}
	/* header, its syncs, set, done, file, line, dir, mkdir, write, ... */
	assert_true(steps >= 15);
}

static void test_crash_at_every_revert_step(void **state)
{
	(void)state;
	for (unsigned n = 1;; n++) {
		struct afx *fx = bad_machine();
		struct gf_tune_report *rep = NULL;
		unsigned long long before = checksum(fx->dir);
		int ret;

		assert_int_equal(tune(fx, true, &rep), 0);
		gf_tune_report_free(rep);
		gf_tune_fault = (struct gf_tune_fault){ .step = n };
		ret = revert(fx, false, &rep);
		gf_tune_report_free(rep);
		gf_tune_fault.step = 0;
		if (!gf_tune_fault_fired) {
			assert_int_equal(ret, 0);
			assert_true(n > 3);
			afx_free(fx);
			break;
		}
		assert_int_equal(ret, -EIO);
		assert_int_equal(revert(fx, false, &rep), 0);
		assert_int_equal(gf_tune_undone(rep), 0);
		gf_tune_report_free(rep);
		if (checksum(fx->dir) != before)
			fail_msg("crash at revert step %u: a second revert did not restore every byte", n);
		afx_free(fx);
	}
}

static void test_second_tune_keeps_first_original(void **state)
{
	struct afx *fx = bad_machine();
	struct gf_tune_report *rep = NULL;

	(void)state;
	assert_int_equal(tune(fx, false, &rep), 0);
	gf_tune_report_free(rep);
	afx_put(fx, "/proc/sys/vm/swappiness", "40\n");	/* someone, between two tunes */
	assert_int_equal(tune(fx, false, &rep), 0);
	assert_int_equal(rep->counts[GF_TUNE_APPLIED], 1);
	assert_string_equal(rep->items[0].old, "40");
	gf_tune_report_free(rep);
	assert_file(fx, "/proc/sys/vm/swappiness", "10\n");
	assert_int_equal(revert(fx, false, &rep), 0);
	assert_int_equal(rep->nitems, 1);
	assert_string_equal(rep->items[0].value, "60");
	gf_tune_report_free(rep);
	assert_file(fx, "/proc/sys/vm/swappiness", "60\n");
	afx_free(fx);
}

static void test_changed_by_someone_else(void **state)
{
	struct afx *fx = bad_machine();
	struct gf_tune_report *rep = NULL;
	char journal[4096];
	struct stat st;

	(void)state;
	assert_int_equal(tune(fx, true, &rep), 0);
	gf_tune_report_free(rep);
	afx_put(fx, "/proc/sys/vm/swappiness", "30\n");
	afx_put(fx, "/etc/sysctl.d/90-gpufeed.conf", "vm.swappiness = 10\nkernel.foo = 1\n");
	assert_int_equal(revert(fx, false, &rep), 0);
	assert_int_equal(rep->counts[GF_TUNE_CHANGED], 2);
	assert_int_equal(gf_tune_undone(rep), 2);
	assert_non_null(strstr(rep->items[1].note, "someone else"));
	gf_tune_report_free(rep);
	assert_file(fx, "/proc/sys/vm/swappiness", "30\n");
	snprintf(journal, sizeof(journal), "%s/var/lib/gpufeed/tune.journal", fx->dir);
	assert_int_equal(stat(journal, &st), 0);	/* kept for --force */

	assert_int_equal(revert(fx, true, &rep), 0);
	assert_int_equal(rep->counts[GF_TUNE_FORCED], 2);
	assert_int_equal(gf_tune_undone(rep), 0);
	gf_tune_report_free(rep);
	assert_file(fx, "/proc/sys/vm/swappiness", "60\n");
	assert_file(fx, "/etc/sysctl.d/90-gpufeed.conf", "kernel.foo = 1\n");	/* only tune's line went */
	assert_int_not_equal(stat(journal, &st), 0);
	afx_free(fx);
}

static void test_lock_refuses_a_second_run(void **state)
{
	struct afx *fx = bad_machine();
	struct gf_tune_report *rep = NULL;
	char dir[4096];
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/var/lib/gpufeed", fx->dir);
	t_write(fx->dir, "var/lib/gpufeed/.keep", "");
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);	/* a tune running elsewhere */
	assert_int_equal(tune(fx, false, &rep), -EBUSY);
	assert_non_null(strstr(gf_last_error(), "another gpufeed tune or revert"));
	gf_tune_report_free(rep);
	assert_int_equal(revert(fx, false, &rep), -EBUSY);
	gf_tune_report_free(rep);
	assert_file(fx, "/proc/sys/vm/swappiness", "60\n");
	close(fd);
	assert_int_equal(tune(fx, false, &rep), 0);
	gf_tune_report_free(rep);
	afx_free(fx);
}

/* A state directory that is a symlink out of the recording resolves inside
 * it: nothing is written outside. */
static void test_nothing_written_outside_the_root(void **state)
{
	struct afx *fx = bad_machine();
	struct gf_tune_report *rep = NULL;
	char *outside = t_mkdtemp(), path[4096];
	struct stat st;

	(void)state;
	t_symlink(fx->dir, "var/lib/gpufeed", outside);
	t_symlink(fx->dir, "etc/sysctl.d", outside);
	/* The link's target does not exist inside the root: refused. */
	assert_int_equal(tune(fx, true, &rep), -ENOENT);
	gf_tune_report_free(rep);
	snprintf(path, sizeof(path), "%s/tune.journal", outside);
	assert_int_not_equal(stat(path, &st), 0);
	/* It does: everything goes there. */
	snprintf(path, sizeof(path), "%s/.keep", outside + 1);
	t_write(fx->dir, path, "");
	assert_int_equal(tune(fx, true, &rep), 0);
	gf_tune_report_free(rep);
	snprintf(path, sizeof(path), "%s/tune.journal", outside);
	assert_int_not_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/90-gpufeed.conf", outside);
	assert_int_not_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s%s/tune.journal", fx->dir, outside);
	assert_int_equal(stat(path, &st), 0);	/* the link resolved inside the root */
	assert_int_equal(revert(fx, false, &rep), 0);
	assert_int_equal(gf_tune_undone(rep), 0);
	gf_tune_report_free(rep);
	t_rmtree(outside);
	free(outside);
	afx_free(fx);
}

/* --only naming a check without a safe fix: said, not done (exit 1). */
static void test_only_an_advice_check(void **state)
{
	struct afx *fx = bad_machine();
	struct gf_tune_options o = GF_TUNE_OPTS_INIT;
	struct gf_tune_report *rep = NULL;

	(void)state;
	afx_put(fx, "/proc/swaps", "Filename Type Size Used Priority\n/swapfile file 1024 0 -2\n");
	o.machine = T_MACHINE(.root = fx->dir, .nvml = GF_NVML_OFF);
	o.only = "mem.swap";
	assert_int_equal(gf_tune_run(&o, &rep), 0);
	assert_int_equal(rep->counts[GF_TUNE_MANUAL], 1);
	assert_non_null(strstr(rep->items[0].note, "swapoff"));
	gf_tune_report_free(rep);
	/* Not named, it is advice; the safe ones are applied, but not the one
	 * excepted. */
	o.only = NULL;
	o.except = "mem.swappiness";
	assert_int_equal(gf_tune_run(&o, &rep), 0);
	{
		bool swap_advice = false;

		for (int i = 0; i < rep->nitems; i++) {
			const struct gf_tune_item *it = &rep->items[i];

			if (!strcmp(it->id, "mem.swappiness"))
				fail_msg("mem.swappiness was excepted, yet it is in the report");
			swap_advice |= !strcmp(it->id, "mem.swap") && it->action == GF_TUNE_ADVICE;
		}
		assert_true(swap_advice);
	}
	assert_int_equal(gf_tune_undone(rep), 0);
	gf_tune_report_free(rep);
	o.only = "no.such-check";
	assert_int_equal(gf_tune_run(&o, &rep), -EINVAL);
	afx_free(fx);
}

/* Values in their write form, and a recording's file written as the kernel
 * would show it. */
static void test_write_forms(void **state)
{
	struct afx *fx = afx_new_owned("ci-vm");
	struct gf_tune_options o = GF_TUNE_OPTS_INIT;
	struct tune_state s;
	char *out;

	(void)state;
	assert_non_null(out = value_meaning("always [madvise] never\n"));
	assert_string_equal(out, "madvise");
	free(out);
	assert_non_null(out = value_meaning("4096\t131072\t6291456\n"));
	assert_string_equal(out, "4096 131072 6291456");
	free(out);
	assert_true(value_same("4096 131072 6291456", "4096\t131072\t6291456\n"));
	assert_false(value_path_ok("/etc/passwd"));
	assert_false(value_path_ok("/proc/sys/../../etc/passwd"));
	assert_true(persist_path_ok("/etc/sysctl.d/90-gpufeed.conf"));
	assert_false(persist_path_ok("/etc/sysctl.conf"));
	afx_put(fx, "/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	o.machine = T_MACHINE(.root = fx->dir);
	assert_int_equal(tune_state_open(&s, &o, false, false), 0);
	assert_int_equal(value_write(&s, "/sys/kernel/mm/transparent_hugepage/enabled", "never",
				     "always [madvise] never\n"), 0);
	tune_state_close(&s);
	assert_file(fx, "/sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n");
	afx_free(fx);
}

/* A crash mid-append leaves a torn last line: not a record, cut off. */
static void test_torn_journal_line(void **state)
{
	struct afx *fx = bad_machine();
	struct gf_tune_report *rep = NULL;
	char path[4096];
	FILE *f;

	(void)state;
	assert_int_equal(tune(fx, false, &rep), 0);
	gf_tune_report_free(rep);
	snprintf(path, sizeof(path), "%s/var/lib/gpufeed/tune.journal", fx->dir);
	assert_non_null(f = fopen(path, "a"));
	fputs("set\tmem.x\t/proc/sys/vm/dirty", f);
	fclose(f);
	assert_int_equal(revert(fx, false, &rep), 0);
	assert_int_equal(gf_tune_undone(rep), 0);
	gf_tune_report_free(rep);
	assert_file(fx, "/proc/sys/vm/swappiness", "60\n");
	/* A malformed complete line is an error, not skipped. */
	plant_journal(fx, "bogus\n");
	assert_int_equal(revert(fx, false, &rep), -EBADMSG);
	gf_tune_report_free(rep);
	afx_free(fx);
}

/* A named fix (an MTU: it changes the network) is advice until its check is
 * named by id with --only; then it is applied and journalled like a safe
 * one, and revert gives the old value back. */
static void test_named_fix_only_when_named(void **state)
{
	struct afx *fx = afx_new_owned("hgx-h100-8gpu");
	struct gf_tune_options o = GF_TUNE_OPTS_INIT;
	struct gf_tune_report *rep = NULL;
	const char *mtu = "/sys/class/net/ens21f0np0/mtu";
	bool advised = false;

	(void)state;
	afx_put(fx, mtu, "1500\n");
	o.machine = T_MACHINE(.root = fx->dir, .nvml = GF_NVML_OFF);
	o.only = "network";		/* the category is not enough */
	assert_int_equal(gf_tune_run(&o, &rep), 0);
	for (int i = 0; i < rep->nitems; i++)
		if (!strcmp(rep->items[i].id, "net.mtu") && rep->items[i].action != GF_TUNE_APPLIED &&
		    strstr(rep->items[i].note, "--only net.mtu"))
			advised = true;
	assert_true(advised);
	gf_tune_report_free(rep);
	assert_file(fx, mtu, "1500\n");
	assert_int_equal(revert(fx, false, &rep), 0);
	gf_tune_report_free(rep);

	o.only = "net.mtu";
	assert_int_equal(gf_tune_run(&o, &rep), 0);
	assert_int_equal(rep->counts[GF_TUNE_APPLIED], 1);
	gf_tune_report_free(rep);
	assert_file(fx, mtu, "9000\n");
	assert_int_equal(revert(fx, false, &rep), 0);
	gf_tune_report_free(rep);
	assert_file(fx, mtu, "1500\n");
	afx_free(fx);
}

/* A hostile choice file (the value in it many times, brackets alone):
 * the emulated kernel shows one selection, the first word that is the
 * value, and never writes past what it allocated (each unbracketed
 * "none" used to gain brackets). */
static void test_hostile_choice_file(void **state)
{
	static const struct {
		const char *cur, *value, *want;
	} cases[] = {
		{ "[x] none none none none none none none\n", "none", "x [none] none none none none none none\n" },
		{ "none [none] none none none\n", "none", "[none] none none none none\n" },
		{ "[mq-deadline] kyber\n", "bfq", "bfq\n" },
	};
	const char *path = "/sys/block/vda/queue/scheduler";
	struct afx *fx = afx_new("ci-vm");
	struct gf_tune_options o = GF_TUNE_OPTS_INIT;
	struct tune_state s;

	(void)state;
	o.machine = T_MACHINE(.root = fx->dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		afx_put(fx, path, cases[i].cur);
		assert_int_equal(tune_state_open(&s, &o, false, false), 0);
		assert_int_equal(value_write(&s, path, cases[i].value, cases[i].cur), 0);
		tune_state_close(&s);
		assert_file(fx, path, cases[i].want);
	}
	afx_free(fx);
}

/* A planted journal record naming a file without a '/' (or outside what
 * tune writes): an error, not a crash, and nothing written. */
static void test_journal_path_without_slash(void **state)
{
	struct afx *fx = bad_machine();
	struct gf_tune_report *rep = NULL;

	(void)state;
	plant_journal(fx, "file\tpasswd\t1\t6869\n");
	assert_true(revert(fx, false, &rep) < 0);
	gf_tune_report_free(rep);
	assert_file(fx, "/passwd", NULL);
	plant_journal(fx, "set\tmem.x\tswappiness\t60\t10\t36300a\n");
	assert_true(revert(fx, false, &rep) < 0);
	gf_tune_report_free(rep);
	assert_file(fx, "/swappiness", NULL);
	afx_free(fx);
}

/* The journal could not be removed (a failure at that very step): the
 * report says it is kept, never "(removed)". */
static void test_journal_kept_is_not_said_removed(void **state)
{
	bool seen = false;

	(void)state;
	for (unsigned n = 1; !seen; n++) {
		struct afx *fx = bad_machine();
		struct gf_tune_report *rep = NULL;
		char *text = NULL, path[4096];
		size_t len = 0;
		struct stat st;
		FILE *f;

		assert_int_equal(tune(fx, true, &rep), 0);
		gf_tune_report_free(rep);
		gf_tune_fault = (struct gf_tune_fault){ .step = n };
		revert(fx, false, &rep);
		gf_tune_fault.step = 0;
		assert_true(gf_tune_fault_fired);	/* the removal is a step: reached before the end */
		if (strstr(gf_last_error(), "remove journal")) {
			seen = true;
			snprintf(path, sizeof(path), "%s/var/lib/gpufeed/tune.journal", fx->dir);
			assert_int_equal(stat(path, &st), 0);
			assert_non_null(f = open_memstream(&text, &len));
			gf_tune_print(rep, f, false);
			fclose(f);
			if (strstr(text, "(removed)"))
				fail_msg("the journal is still there, yet the report says:\n%s", text);
			assert_non_null(strstr(text, "kept"));
			free(text);
		}
		gf_tune_report_free(rep);
		afx_free(fx);
	}
}

/* Planted journal records naming files tune never writes: revert refuses
 * the whole journal and writes nothing (it rewrote /etc/passwd: a 'line'
 * record holding the file's current bytes made it look like tune's). */
static void test_planted_journal_paths_refused(void **state)
{
	static const char passwd[] = "root:x:0:0:root:/root:/bin/bash\n";
	char *cur = NULL, line[4096];
	const char *planted[4];
	struct afx *fx = bad_machine();

	(void)state;
	afx_put(fx, "/etc/passwd", passwd);
	afx_put(fx, "/etc/cron.d/gpufeed", "# nothing\n");
	cur = hex_encode(passwd, strlen(passwd));
	/* "evil\n" back as the file's bytes before tune. */
	snprintf(line, sizeof(line), "file\t/etc/passwd\t1\t6576696c0a\nline\t/etc/passwd\tx\t%s\n", cur);
	planted[0] = line;
	planted[1] = "set\tmem.swappiness\t/etc/passwd\tevil\troot:x:0:0:root:/root:/bin/bash\t6576696c0a\n";
	planted[2] = "file\t/etc/cron.d/gpufeed\t1\t6576696c0a\nline\t/etc/cron.d/gpufeed\tx\t23206e6f7468696e670a\n";
	planted[3] = "file\t/etc/sysctl.d/90-gpufeed.conf\t0\t\ndir\t/etc/cron.d\n";
	for (size_t i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
		struct gf_tune_report *rep = NULL;
		int ret;

		plant_journal(fx, planted[i]);
		if ((ret = revert(fx, true, &rep)) != -EPERM)
			fail_msg("planted journal %zu was not refused (%d)", i, ret);
		assert_non_null(strstr(gf_last_error(), "not a path tune writes"));
		gf_tune_report_free(rep);
		assert_file(fx, "/etc/passwd", passwd);
		assert_file(fx, "/etc/cron.d/gpufeed", "# nothing\n");
	}
	free(cur);
	afx_free(fx);
}

static int revert_with(const char *root, const char *state_dir, struct gf_tune_report **rep)
{
	struct gf_tune_options o = GF_TUNE_OPTS_INIT;

	o.machine = T_MACHINE(.root = root);
	o.state_dir = state_dir;
	return gf_tune_revert(&o, rep);
}

static bool journal_in(const char *dir)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/tune.journal", dir);
	return stat(path, &st) == 0;
}

/* The journal names the root it belongs to: a recording's journal (kept in
 * a --state-dir of this machine) is never replayed onto this machine or
 * onto another recording, and this machine's never onto a recording.  A
 * recording's own journal goes with it when it is copied. */
static void test_journal_belongs_to_its_root(void **state)
{
	struct afx *a = bad_machine(), *b = bad_machine(), *c = afx_new("");
	struct gf_tune_options o = GF_TUNE_OPTS_INIT;
	struct gf_tune_report *rep = NULL;
	unsigned long long before = checksum(a->dir);
	char *sd = t_mkdtemp(), real[4096];

	(void)state;
	assert_non_null(realpath(a->dir, real));
	o.machine = T_MACHINE(.root = a->dir, .nvml = GF_NVML_OFF);
	o.only = "mem.swappiness";
	o.state_dir = sd;
	assert_int_equal(gf_tune_run(&o, &rep), 0);
	gf_tune_report_free(rep);
	/* This machine: refused, naming both. */
	assert_int_equal(revert_with(NULL, sd, &rep), -EXDEV);
	assert_non_null(strstr(gf_last_error(), real));
	assert_non_null(strstr(gf_last_error(), "this machine"));
	gf_tune_report_free(rep);
	assert_true(journal_in(sd));
	/* Another recording: refused, for revert and for a second tune. */
	assert_int_equal(revert_with(b->dir, sd, &rep), -EXDEV);
	assert_non_null(strstr(gf_last_error(), real));
	gf_tune_report_free(rep);
	o.machine = T_MACHINE(.root = b->dir);
	assert_int_equal(gf_tune_run(&o, &rep), -EXDEV);
	gf_tune_report_free(rep);
	assert_file(b, "/proc/sys/vm/swappiness", "60\n");
	/* Its own root: restored. */
	assert_int_equal(revert_with(a->dir, sd, &rep), 0);
	assert_int_equal(gf_tune_undone(rep), 0);
	gf_tune_report_free(rep);
	assert_true(checksum(a->dir) == before);
	assert_false(journal_in(sd));

	/* A recording's own journal, the recording copied elsewhere. */
	assert_int_equal(tune(a, false, &rep), 0);
	gf_tune_report_free(rep);
	t_copytree(a->dir, c->dir);
	assert_int_equal(revert(c, false, &rep), 0);
	assert_int_equal(gf_tune_undone(rep), 0);
	gf_tune_report_free(rep);
	assert_true(checksum(c->dir) == before);
	/* This machine's journal found inside a recording: refused. */
	t_write(c->dir, "var/lib/gpufeed/tune.journal", GF_TUNE_JOURNAL_SCHEMA "\nroot\t/\n"
		"set\tmem.swappiness\t/proc/sys/vm/swappiness\t30\t60\t33300a\n");
	assert_int_equal(revert(c, false, &rep), -EXDEV);
	assert_non_null(strstr(gf_last_error(), "this machine"));
	gf_tune_report_free(rep);
	assert_file(c, "/proc/sys/vm/swappiness", "60\n");
	/* A journal that does not say: refused. */
	t_write(c->dir, "var/lib/gpufeed/tune.journal", GF_TUNE_JOURNAL_SCHEMA "\n"
		"set\tmem.swappiness\t/proc/sys/vm/swappiness\t30\t60\t33300a\n");
	assert_int_equal(revert(c, false, &rep), -EBADMSG);
	gf_tune_report_free(rep);
	assert_file(c, "/proc/sys/vm/swappiness", "60\n");
	t_rmtree(sd);
	free(sd);
	afx_free(a);
	afx_free(b);
	afx_free(c);
}

/* A Kubernetes node whose port range overlaps the NodePorts, with
 * `reserved` (a line) already reserved. */
static struct afx *k8s_node(const char *reserved)
{
	struct afx *fx = afx_new("ci-vm");

	afx_put(fx, "/proc/sys/net/ipv4/ip_local_port_range", "1024\t65535\n");
	afx_put(fx, "/proc/sys/net/ipv4/ip_local_reserved_ports", reserved);
	afx_put(fx, "/var/lib/kubelet/config.yaml", "kind: KubeletConfiguration\n");
	return fx;
}

/* Values longer than any fixed buffer: a reserved-ports list of 299
 * characters is extended whole (it was cut at 128 bytes: reservations
 * dropped, a stray port added), reported whole, and revert gives back its
 * exact bytes.  An empty original comes back too. */
static void test_long_and_empty_values(void **state)
{
	const char *path = "/proc/sys/net/ipv4/ip_local_reserved_ports";
	struct gf_tune_options o = GF_TUNE_OPTS_INIT;
	char list[400] = "", line[420], want[440];
	struct gf_tune_report *rep = NULL;

	(void)state;
	for (int port = 10000; strlen(list) < 299; port += 2)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", list[0] ? "," : "", port);
	assert_int_equal(strlen(list), 299);
	snprintf(line, sizeof(line), "%s\n", list);
	snprintf(want, sizeof(want), "%s,30000-32767\n", list);
	for (int empty = 0; empty < 2; empty++) {
		struct afx *fx = k8s_node(empty ? "\n" : line);
		unsigned long long before = checksum(fx->dir);

		o.machine = T_MACHINE(.root = fx->dir, .nvml = GF_NVML_OFF);
		o.only = "net.port-range";
		assert_int_equal(gf_tune_run(&o, &rep), 0);
		assert_int_equal(rep->counts[GF_TUNE_APPLIED], 1);
		assert_string_equal(rep->items[0].old, empty ? "" : list);
		assert_int_equal(strlen(rep->items[0].value), empty ? 11 : 311);
		gf_tune_report_free(rep);
		assert_file(fx, path, empty ? "30000-32767\n" : want);
		assert_int_equal(revert(fx, false, &rep), 0);
		assert_int_equal(gf_tune_undone(rep), 0);
		assert_string_equal(rep->items[0].value, empty ? "" : list);
		gf_tune_report_free(rep);
		assert_file(fx, path, empty ? "\n" : line);
		assert_true(checksum(fx->dir) == before);
		afx_free(fx);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tune_then_revert_restores_every_byte),
		cmocka_unit_test(test_persist_into_an_existing_file),
		cmocka_unit_test(test_dry_run_writes_nothing),
		cmocka_unit_test(test_crash_at_every_tune_step),
		cmocka_unit_test(test_crash_at_every_revert_step),
		cmocka_unit_test(test_second_tune_keeps_first_original),
		cmocka_unit_test(test_changed_by_someone_else),
		cmocka_unit_test(test_lock_refuses_a_second_run),
		cmocka_unit_test(test_nothing_written_outside_the_root),
		cmocka_unit_test(test_only_an_advice_check),
		cmocka_unit_test(test_named_fix_only_when_named),
		cmocka_unit_test(test_write_forms),
		cmocka_unit_test(test_torn_journal_line),
		cmocka_unit_test(test_hostile_choice_file),
		cmocka_unit_test(test_journal_path_without_slash),
		cmocka_unit_test(test_planted_journal_paths_refused),
		cmocka_unit_test(test_journal_belongs_to_its_root),
		cmocka_unit_test(test_long_and_empty_values),
		cmocka_unit_test(test_journal_kept_is_not_said_removed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
