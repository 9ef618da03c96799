/* Discovery's "does it exist?" questions (issue 7 leftovers): a file that
 * cannot be looked at (a symlink loop, a directory we may not search) is a
 * warning, never "absent"; warnings are said once each, in linear time;
 * and a block device whose size is unknown is printed as unknown. */
#include "helpers.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpufeed/gpufeed.h>
#include "topo/topo_internal.h"

/* The least a root needs for discovery, plus what each case breaks. */
static char *small_root(void)
{
	char *dir = t_mkdtemp();

	t_write(dir, "sys/devices/system/cpu/online", "0\n");
	t_write(dir, "sys/devices/system/cpu/cpu0/topology/core_id", "0\n");
	t_write(dir, "sys/devices/system/node/online", "0-1\n");
	t_write(dir, "sys/devices/system/node/node0/cpulist", "0\n");
	/* node1 cannot be looked at: a loop, as a broken recording can hold. */
	t_symlink(dir, "sys/devices/system/node/node1", "node1");
	/* sda: a disk with no size file; sdb: whether it is a partition
	 * cannot be told. */
	t_write(dir, "sys/devices/platform/host0/block/sda/removable", "0\n");
	t_symlink(dir, "sys/class/block/sda", "../../devices/platform/host0/block/sda");
	t_write(dir, "sys/devices/platform/host0/block/sdb/size", "2048\n");
	t_symlink(dir, "sys/devices/platform/host0/block/sdb/partition", "partition");
	t_symlink(dir, "sys/class/block/sdb", "../../devices/platform/host0/block/sdb");
	/* A unified cgroup line, with cgroup.controllers unreadable. */
	t_write(dir, "proc/self/cgroup", "0::/job\n");
	t_symlink(dir, "sys/fs/cgroup/cgroup.controllers", "cgroup.controllers");
	return dir;
}

static struct gf_topo *discover(const char *root)
{
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t = NULL;

	o.root = root;
	o.nvml = GF_NVML_OFF;
	if (gf_topo_discover(&o, &t))
		fail_msg("%s: %s", root, gf_last_error());
	return t;
}

static int warnings_with(const struct gf_topo *t, const char *a, const char *b)
{
	int n = 0;

	for (int i = 0; i < t->nwarnings; i++)
		n += strstr(t->warnings[i], a) && (!b || strstr(t->warnings[i], b));
	return n;
}

static int block_index(const struct gf_topo *t, const char *name)
{
	for (int i = 0; i < t->nblocks; i++)
		if (!strcmp(t->blocks[i].name, name))
			return i;
	return -1;
}

/* A node directory that cannot be looked at is kept (the kernel listed
 * it) with a warning naming why; it used to be dropped as "no node1
 * directory". */
static void unreadable_is_not_absent(void **state)
{
	char *root = small_root();
	struct gf_topo *t;

	(void)state;
	t = discover(root);
	assert_int_equal(t->numa.nnodes, 2);
	assert_int_equal(warnings_with(t, "node/node1:", "symbolic links"), 1);
	assert_int_equal(warnings_with(t, "which has no node1 directory", NULL), 0);
	/* Not known to be a whole disk: left out, said why. */
	assert_int_equal(block_index(t, "sdb"), -1);
	assert_int_equal(warnings_with(t, "sdb/partition", "symbolic links"), 1);
	assert_true(block_index(t, "sda") >= 0);
	/* cgroup v2 not known to be mounted: no cgroup, and a warning. */
	assert_int_equal(t->cpus.cgroup_version, 0);
	assert_int_equal(warnings_with(t, "cgroup.controllers", "symbolic links"), 1);
	gf_topo_free(t);
	t_rmtree(root);
	free(root);
}

/* The same with a directory a non-root user may not search (EACCES), in
 * a child that drops to nobody; skipped where that cannot be done.  sdb's
 * directory is closed: whether it is a partition cannot be told, and it
 * used to be listed as a whole disk. */
static void eacces_is_not_absent(void **state)
{
	char *root = small_root(), sdb[PATH_MAX], part[PATH_MAX + 16];
	int status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		t_rmtree(root);
		free(root);
		skip();
	}
	snprintf(sdb, sizeof(sdb), "%s/sys/devices/platform/host0/block/sdb", root);
	snprintf(part, sizeof(part), "%s/partition", sdb);
	assert_int_equal(unlink(part), 0);	/* the loop small_root made */
	t_write(root, "sys/devices/platform/host0/block/sdb/partition", "1\n");
	assert_int_equal(chmod(sdb, 0), 0);
	assert_int_equal(chmod(root, 0755), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct gf_topo *t = NULL;
		struct gf_topo_options o = GF_TOPO_OPTS_INIT;
		int code;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(77);
		o.root = root;
		o.nvml = GF_NVML_OFF;
		if (gf_topo_discover(&o, &t))
			_exit(access(root, X_OK) ? 77 : 2);	/* $TMPDIR closed to nobody */
		code = block_index(t, "sdb") == -1 && warnings_with(t, "sdb/partition", "Permission denied") == 1 &&
		       block_index(t, "sda") >= 0 ? 0 : 1;
		gf_topo_free(t);
		_exit(code);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	chmod(sdb, 0755);
	t_rmtree(root);
	free(root);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* 100,000 distinct warnings, each said twice: kept once each.  With the
 * old list scan this is 5e9 string compares (minutes: the test times
 * out); with the hash, a fraction of a second. */
static void many_warnings_once_each(void **state)
{
	struct gf_ctx c = { 0 };
	const int n = 100000;

	(void)state;
	c.t = calloc(1, sizeof(*c.t));
	assert_non_null(c.t);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < n; i++)
			gf_warn(&c, "/sys/devices/x%d/value: not a number", i);
	assert_int_equal(c.t->nwarnings, n);
	/* In the order first said. */
	assert_string_equal(c.t->warnings[0], "/sys/devices/x0/value: not a number");
	assert_string_equal(c.t->warnings[n - 1], "/sys/devices/x99999/value: not a number");
	gf_warn_fini(&c);
	/* A table dropped and made again still knows what was said. */
	gf_warn(&c, "/sys/devices/x5/value: not a number");
	gf_warn(&c, "one more");
	assert_int_equal(c.t->nwarnings, n + 1);
	gf_warn_fini(&c);
	gf_topo_free(c.t);
}

/* sda has no size file: its size is unknown, and printed so (it was
 * "0 B"). */
static void unknown_size_is_unknown(void **state)
{
	char *root = small_root(), *text = NULL;
	struct gf_topo *t;
	size_t len = 0;
	FILE *f;

	(void)state;
	t = discover(root);
	assert_true(block_index(t, "sda") >= 0);
	assert_int_equal(t->blocks[block_index(t, "sda")].size_bytes, 0);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(gf_topo_print(t, f, 0), 0);
	fclose(f);
	{
		char *line = strstr(text, "\n  sda ");

		assert_non_null(line);
		*strchrnul(line + 1, '\n') = '\0';
		assert_non_null(strstr(line, "unknown"));
		assert_null(strstr(line, "0 B"));
	}
	free(text);
	gf_topo_free(t);
	t_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unreadable_is_not_absent),
		cmocka_unit_test(eacces_is_not_absent),
		cmocka_unit_test(many_warnings_once_each),
		cmocka_unit_test(unknown_size_is_unknown),
	};

	return cmocka_run_group_tests_name("topo_probe", tests, NULL, NULL);
}
