/* Shared by the I/O engine tests (test_io_*.c): the file systems a case
 * runs on (a real disk, a tmpfs and a ramfs mounted by the test), the two
 * back ends, a byte pattern that catches shifted or swapped data, and a
 * forked child for what changes process state (seccomp, rlimits, env).
 *
 * A case is one cmocka test per file system:
 *
 *   T_FS_TESTS(whole_file)   // whole_file on disk, on tmpfs, on ramfs
 *
 * with static void whole_file(struct t_fs *fs) as the body; the fixture
 * mounts before and unmounts after (also when the body failed), and the
 * body is skipped when the file system cannot be had (not root, no disk). */
#ifndef GF_TEST_IO_UTIL_H
#define GF_TEST_IO_UTIL_H

#include "helpers.h"
#include "t_child.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpufeed/buf.h>
#include <gpufeed/error.h>
#include <gpufeed/io.h>
#include <gpufeed/log.h>
#include "io/fault.h"

#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC 0x58465342
#endif

enum t_fs_kind { T_DISK, T_TMPFS, T_RAMFS };

struct t_fs {
	enum t_fs_kind kind;
	const char *name;	/* "disk", "tmpfs", "ramfs" */
	const char *size;	/* tmpfs size= option */
	char *base;		/* our temp directory (the mount point) */
	bool mounted;
	char why[200];		/* why the file system is missing, "" when here */
	char path[PATH_MAX];	/* scratch for t_path() */
};

static const enum gf_io_backend t_backends[] = { GF_IO_URING, GF_IO_PSYNC };
#define T_NBACKENDS (sizeof(t_backends) / sizeof(t_backends[0]))

/* A directory on a real disk: $TMPDIR, /var/tmp or /tmp, the first that
 * is ext4, xfs or btrfs (CI often has /tmp on tmpfs). */
static inline char *t_disk_dir(void)
{
	const char *cand[] = { getenv("TMPDIR"), "/var/tmp", "/tmp" };

	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		struct statfs s;
		char *dir;

		if (!cand[i] || statfs(cand[i], &s))
			continue;
		if ((unsigned long)s.f_type != EXT4_SUPER_MAGIC && (unsigned long)s.f_type != XFS_SUPER_MAGIC &&
		    (unsigned long)s.f_type != BTRFS_SUPER_MAGIC)
			continue;
		if (asprintf(&dir, "%s/gpufeed-io-XXXXXX", cand[i]) < 0)
			return NULL;
		if (mkdtemp(dir))
			return dir;
		free(dir);
	}
	return NULL;
}

static inline int t_fs_setup(void **state)
{
	struct t_fs *fs = *state;

	fs->why[0] = '\0';
	fs->mounted = false;
	fs->base = NULL;
	if (fs->kind == T_DISK) {
		fs->base = t_disk_dir();
		if (!fs->base)
			snprintf(fs->why, sizeof(fs->why), "no ext4/xfs/btrfs temp directory");
		return 0;
	}
	fs->base = t_mkdtemp();
	if (fs->kind == T_TMPFS) {
		char opt[64];

		snprintf(opt, sizeof(opt), "size=%s,mode=0700", fs->size ? fs->size : "64m");
		fs->mounted = mount("gpufeed-test", fs->base, "tmpfs", MS_NOSUID | MS_NODEV, opt) == 0;
	} else {
		fs->mounted = mount("gpufeed-test", fs->base, "ramfs", MS_NOSUID | MS_NODEV, "mode=0700") == 0;
	}
	if (!fs->mounted)
		snprintf(fs->why, sizeof(fs->why), "mount -t %s: %s", fs->name, strerror(errno));
	return 0;
}

static inline int t_fs_teardown(void **state)
{
	struct t_fs *fs = *state;

	gf_io_fault_clear();
	if (fs->mounted) {
		/* Lazy: a failed case may have left a descriptor open. */
		umount2(fs->base, MNT_DETACH);
		fs->mounted = false;
	} else {
		t_rmtree(fs->base);
	}
	if (fs->base)
		rmdir(fs->base);
	free(fs->base);
	fs->base = NULL;
	return 0;
}

/* Skips the case when the file system is missing.  Faults come from the
 * case only: none left over, none from the caller's GPUFEED_IO_FAULT. */
static inline void t_fs_need(struct t_fs *fs)
{
	if (fs->why[0]) {
		print_message("[  SKIP    ] %s: %s\n", fs->name, fs->why);
		skip();
	}
	unsetenv("GPUFEED_IO_FAULT");
	gf_io_fault_clear();
}

static inline const char *t_path(struct t_fs *fs, const char *rel)
{
	snprintf(fs->path, sizeof(fs->path), "%s/%s", fs->base, rel);
	return fs->path;
}

/* One cmocka test per file system around static void NAME(struct t_fs *). */
#define T_FS_TEST_ONE(fn, k, fsname, sz)                                                    \
	static void fn##_on_##fsname(void **state)                                          \
	{                                                                                   \
		t_fs_need(*state);                                                          \
		fn(*state);                                                                 \
	}                                                                                   \
	static struct t_fs fn##_fs_##fsname = { .kind = k, .name = #fsname, .size = sz }
#define T_FS_TESTS_SIZED(fn, sz)                                                            \
	T_FS_TEST_ONE(fn, T_DISK, disk, NULL);                                              \
	T_FS_TEST_ONE(fn, T_TMPFS, tmpfs, sz);                                              \
	T_FS_TEST_ONE(fn, T_RAMFS, ramfs, NULL)
#define T_FS_TESTS(fn) T_FS_TESTS_SIZED(fn, NULL)
#define T_FS_CASE(fn, fsname)                                                               \
	cmocka_unit_test_prestate_setup_teardown(fn##_on_##fsname, t_fs_setup, t_fs_teardown, \
						 &fn##_fs_##fsname)
#define T_FS_CASES(fn) T_FS_CASE(fn, disk), T_FS_CASE(fn, tmpfs), T_FS_CASE(fn, ramfs)

/* ---- engines ---- */

/* An engine of back end b, or NULL (with a message) when io_uring is not
 * allowed here: the case then goes on with the other back end. */
static inline struct gf_io *t_io_open(enum gf_io_backend b, unsigned qd, unsigned threads, unsigned flags)
{
	struct gf_io_opts o = { .struct_size = sizeof(struct gf_io_opts),
		.backend = b, .queue_depth = qd, .threads = threads, .flags = flags,
		.sqpoll_cpu = -1, .cpu_node = -1,
	};
	struct gf_io *io = NULL;
	int rc = gf_io_open(&o, &io);

	if (b == GF_IO_URING && (rc == -EPERM || rc == -ENOSYS)) {
		print_message("[  NOTE    ] io_uring not allowed here: %s\n", gf_last_error());
		return NULL;
	}
	if (rc)
		print_message("gf_io_open(%s): %d %s\n", gf_io_backend_name(b), rc, gf_last_error());
	assert_int_equal(rc, 0);
	assert_int_equal(gf_io_backend_of(io), b);
	return io;
}

/* Which back end a failure happened on, in the log. */
static inline void t_case(const struct t_fs *fs, enum gf_io_backend b, const char *what)
{
	print_message("[ -- case  ] %s on %s, %s\n", what, fs ? fs->name : "-", gf_io_backend_name(b));
}

#define T_FOR_EACH_BACKEND(fs, io, what, qd, threads, flags)                               \
	for (size_t t_bi_ = 0; t_bi_ < T_NBACKENDS; t_bi_++)                                 \
		if (t_case(fs, t_backends[t_bi_], what),                                     \
		    !((io) = t_io_open(t_backends[t_bi_], qd, threads, flags))) {            \
		} else

/* ---- data ---- */

/* Byte at file offset off: differs between neighbours, pages and seeds. */
static inline uint8_t t_pat(uint64_t off, unsigned seed)
{
	uint64_t x = (off + seed) * 0x9E3779B97F4A7C15ull;

	return (uint8_t)((x >> 56) ^ (off >> 12) ^ off);
}

static inline void t_fill(void *buf, size_t len, uint64_t off, unsigned seed)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = t_pat(off + i, seed);
}

/* Whether buf holds the pattern of [off, off+len); says where not.
 * Safe in a forked child (no cmocka). */
static inline bool t_same(const void *buf, size_t len, uint64_t off, unsigned seed)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		if (p[i] != t_pat(off + i, seed)) {
			fprintf(stderr, "data differs at file offset %llu (byte %zu of %zu): %02x, want %02x\n",
				(unsigned long long)(off + i), i, len, p[i], t_pat(off + i, seed));
			return false;
		}
	}
	return true;
}

/* Asserts buf holds the pattern of [off, off+len). */
static inline void t_check(const void *buf, size_t len, uint64_t off, unsigned seed)
{
	assert_true(t_same(buf, len, off, seed));
}

/* dir/rel with size bytes of the pattern, written without the engine. */
static inline void t_make_file(struct t_fs *fs, const char *rel, size_t size, unsigned seed)
{
	void *buf = malloc(size ? size : 1);

	assert_non_null(buf);
	t_fill(buf, size, 0, seed);
	t_write_bytes(fs->base, rel, buf, size);
	free(buf);
}

/* The whole file, read without the engine; *len gets its size. */
static inline uint8_t *t_slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		assert_true(n > 0);
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return buf;
}

static inline void t_check_file(const char *path, size_t size, unsigned seed)
{
	size_t len;
	uint8_t *buf = t_slurp(path, &len);

	assert_int_equal(len, size);
	t_check(buf, len, 0, seed);
	free(buf);
}

/* How many entries of dir contain needle in their name. */
static inline int t_count_names(const char *dir, const char *needle)
{
	char cmd[PATH_MAX + 64];
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -a '%s'", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(cmd, sizeof(cmd), p))
		if (strstr(cmd, needle))
			n++;
	pclose(p);
	return n;
}

/* A checkpoint failed: rel still holds text, and no temp file is left. */
static inline void t_check_kept(struct t_fs *fs, const char *rel, const char *text)
{
	char *got = t_read(t_path(fs, rel));

	assert_non_null(got);
	assert_string_equal(got, text);
	free(got);
	assert_int_equal(t_count_names(fs->base, ".tmp-"), 0);
}

static inline bool t_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle)) {
		print_message("'%s' does not mention '%s'\n", hay, needle);
		return false;
	}
	return true;
}

/* ---- the diagnostics channel ---- */

/* What the channel said since t_log_start(): one "SUBSYS:LEVEL: MSG"
 * line per message, io's warnings and up only. */
static char t_log_text[8192];

static inline void t_log_cb(enum gf_log_level level, enum gf_log_subsys subsys, const char *msg, void *user)
{
	size_t n = strlen(t_log_text);

	(void)user;
	snprintf(t_log_text + n, sizeof(t_log_text) - n, "%s:%s: %s\n", gf_log_subsys_name(subsys),
		 gf_log_level_name(level), msg);
}

static inline void t_log_start(void)
{
	t_log_text[0] = '\0';
	gf_log_set_level(GF_LOG_ALL, GF_LOG_WARN);
	gf_log_set_callback(t_log_cb, NULL);
}

/* ---- forked children ---- */

struct t_child_fn {
	const char *(*fn)(void *);
	void *arg;
};

static inline int t_child_run(void *arg, int wfd)
{
	const struct t_child_fn *c = arg;
	const char *err = c->fn(c->arg);

	if (err && write(wfd, err, strlen(err)) < 0)
		return 2;
	return err ? 1 : 0;
}

/* Runs fn in a child; fn returns NULL when all went well, else what went
 * wrong, which fails the case here. */
static inline void t_in_child(const char *(*fn)(void *), void *arg)
{
	struct t_child_fn c = { fn, arg };
	char msg[512];
	int status = t_fork_collect(t_child_run, &c, msg, sizeof(msg));

	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		print_message("child: %s (status 0x%x)\n", msg[0] ? msg : "died", status);
		fail();
	}
}

/* In a child: record what failed, for t_in_child. */
#define T_CHILD_CHECK(cond, ...)                                                           \
	do {                                                                               \
		if (!(cond)) {                                                             \
			static char t_msg_[400];                                           \
			int t_n_ = snprintf(t_msg_, sizeof(t_msg_), "%s:%d: %s: ", __FILE__, \
					    __LINE__, #cond);                              \
			snprintf(t_msg_ + t_n_, sizeof(t_msg_) - (size_t)t_n_, __VA_ARGS__); \
			return t_msg_;                                                     \
		}                                                                          \
	} while (0)

#endif
