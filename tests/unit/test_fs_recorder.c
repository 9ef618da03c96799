/* Root-prefixed reads and the recorder that mirrors them (symlinks kept). */
#include "helpers.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/recorder.h"
#include <gpufeed/error.h>
#include <gpufeed/record.h>
#include <gpufeed/topo.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <stdatomic.h>

/* A tiny sysfs: a PCI device reached through /sys/bus/pci/devices and a
 * /proc/self link, like the kernel lays them out. */
static char *make_tree(void)
{
	char *d = t_mkdtemp();

	t_write(d, "sys/devices/pci0000:00/0000:00:01.0/vendor", "0x10de\n");
	t_write(d, "sys/devices/pci0000:00/0000:00:01.0/numa_node", "1\n");
	t_write(d, "sys/devices/pci0000:00/0000:00:01.0/bad_int", "12abc\n");
	t_write(d, "sys/devices/pci0000:00/0000:00:02.0/vendor", "0x15b3\n");
	t_symlink(d, "sys/bus/pci/devices/0000:00:01.0", "../../../devices/pci0000:00/0000:00:01.0");
	t_symlink(d, "sys/bus/pci/devices/0000:00:02.0", "../../../devices/pci0000:00/0000:00:02.0");
	t_symlink(d, "sys/class/escape", "/etc");
	t_symlink(d, "sys/class/climb", "../../../../../../..");
	t_symlink(d, "sys/class/inside", "/sys/devices/pci0000:00/0000:00:01.0");
	t_write(d, "proc/42/status", "Name:\tgpufeed\nCpus_allowed_list:\t0-3\n");
	t_symlink(d, "proc/self", "42");
	return d;
}

static void reads_through_root(void **state)
{
	char *d = make_tree(), buf[256];
	struct gf_fs fs;
	long long v;
	char **names;
	int n;

	(void)state;
	assert_int_equal(gf_fs_init(&fs, d), 0);
	assert_false(gf_fs_live(&fs));
	assert_int_equal(gf_fs_read_str(&fs, "/sys/bus/pci/devices/0000:00:01.0/vendor", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x10de");
	assert_int_equal(gf_fs_read_ll(&fs, "/sys/bus/pci/devices/0000:00:01.0/numa_node", &v), 0);
	assert_int_equal(v, 1);
	/* Malformed content: an error that names the file inside the root. */
	assert_int_equal(gf_fs_read_ll(&fs, "/sys/bus/pci/devices/0000:00:01.0/bad_int", &v), -EBADMSG);
	assert_non_null(strstr(gf_last_error(), "bad_int"));
	assert_non_null(strstr(gf_last_error(), "12abc"));
	assert_int_equal(gf_fs_read_ll(&fs, "/sys/nothing", &v), -ENOENT);
	assert_non_null(strstr(gf_last_error(), d));
	assert_int_equal(gf_fs_resolve(&fs, "/sys/bus/pci/devices/0000:00:01.0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/devices/pci0000:00/0000:00:01.0");
	/* Links and ".." cannot leave the recording: "/" and ".." stay inside
	 * it, as in a chroot, so the host's /etc is never read. */
	assert_int_not_equal(gf_fs_read_str(&fs, "/sys/class/escape/hostname", buf, sizeof(buf)), 0);
	assert_int_not_equal(gf_fs_read_str(&fs, "/sys/class/climb/etc/hostname", buf, sizeof(buf)), 0);
	assert_int_not_equal(gf_fs_read_str(&fs, "/../../../../../etc/hostname", buf, sizeof(buf)), 0);
	assert_int_equal(gf_fs_read_str(&fs, "/sys/../sys/class/inside/vendor", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x10de");
	assert_int_equal(gf_fs_resolve(&fs, "/sys/class/climb", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/");	/* clamped at the recording's root */
	assert_int_equal(gf_fs_list(&fs, "/sys/bus/pci/devices", &names, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "0000:00:01.0");
	assert_string_equal(names[1], "0000:00:02.0");
	gf_strv_free(names, n);
	assert_true(gf_fs_exists(&fs, "/proc/self/status"));
	assert_true(gf_fs_is_dir(&fs, "/sys/devices"));
	assert_false(gf_fs_is_dir(&fs, "/proc/self/status"));
	gf_fs_fini(&fs);
	t_rmtree(d);
	free(d);
}

/* The same confinement from the walk used without openat2 (Linux < 5.6, or
 * openat2 answering EAGAIN again and again). */
static void reads_through_root_without_openat2(void **state)
{
	gf_fs_have_openat2 = 0;
	reads_through_root(state);
	gf_fs_have_openat2 = 1;
}

/* Only ENOENT and ENOTDIR mean absent; a link loop is an error. */
static void probe_tells_absent_from_failed(void **state)
{
	char *d = make_tree();
	struct gf_fs fs;
	struct stat st;

	(void)state;
	t_symlink(d, "sys/loop", "loop");
	assert_int_equal(gf_fs_init(&fs, d), 0);
	assert_int_equal(gf_fs_probe(&fs, "/sys/devices", &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(gf_fs_probe(&fs, "/sys/nothing", &st), -ENOENT);
	assert_int_equal(gf_fs_probe(&fs, "/proc/42/status/x", &st), -ENOENT);
	assert_int_equal(gf_fs_probe(&fs, "/sys/loop", &st), -ELOOP);
	assert_non_null(strstr(gf_last_error(), "sys/loop"));
	gf_fs_have_openat2 = 0;
	assert_int_equal(gf_fs_probe(&fs, "/sys/loop", &st), -ELOOP);
	assert_int_equal(gf_fs_probe(&fs, "/sys/nothing", &st), -ENOENT);
	gf_fs_have_openat2 = 1;
	gf_fs_fini(&fs);
	t_rmtree(d);
	free(d);
}

static void bad_roots(void **state)
{
	struct gf_fs fs;
	char *d = t_mkdtemp();

	(void)state;
	assert_int_equal(gf_fs_init(&fs, "/no/such/recording"), -ENOENT);
	assert_non_null(strstr(gf_last_error(), "/no/such/recording"));
	t_write(d, "file", "x");
	{
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/file", d);
		assert_int_equal(gf_fs_init(&fs, path), -ENOTDIR);
		assert_non_null(strstr(gf_last_error(), "not a directory"));
	}
	assert_int_equal(gf_fs_init(&fs, "/"), 0);
	assert_true(gf_fs_live(&fs));
	gf_fs_fini(&fs);
	t_rmtree(d);
	free(d);
}

/* A FIFO (or a device) planted in a recording is refused, never waited on. */
static void refuses_special_files(void **state)
{
	char *d = make_tree(), path[PATH_MAX], buf[64];
	struct gf_fs fs;

	(void)state;
	snprintf(path, sizeof(path), "%s/sys/devices/pci0000:00/0000:00:01.0/fifo", d);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(gf_fs_init(&fs, d), 0);
	assert_int_equal(gf_fs_read_str(&fs, "/sys/devices/pci0000:00/0000:00:01.0/fifo", buf, sizeof(buf)),
			 -EBADMSG);
	assert_non_null(strstr(gf_last_error(), "not a regular file"));
	assert_int_equal(gf_fs_read_str(&fs, "/sys/devices", buf, sizeof(buf)), -EBADMSG);
	gf_fs_fini(&fs);
	t_rmtree(d);
	free(d);
}

/* A root so long that root + path could be cut is refused up front. */
static void refuses_long_roots(void **state)
{
	char *d = t_mkdtemp(), path[PATH_MAX + 1];
	struct gf_fs fs;
	size_t n;

	(void)state;
	snprintf(path, sizeof(path), "%s", d);
	while ((n = strlen(path)) < GF_FS_MAX_ROOT + 10) {
		strcat(path, "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
		assert_int_equal(mkdir(path, 0755), 0);
	}
	assert_int_equal(gf_fs_init(&fs, path), -ENAMETOOLONG);
	assert_non_null(strstr(gf_last_error(), "recording path longer than"));
	t_rmtree(d);
	free(d);
}

static void recorder_mirrors_links(void **state)
{
	char *src = make_tree(), *dst = t_mkdtemp(), buf[256], path[PATH_MAX], link[256];
	struct gf_recorder rec;
	struct gf_fs fs, copy;
	char **names;
	int n;
	ssize_t len;

	(void)state;
	assert_int_equal(gf_fs_init(&fs, src), 0);
	assert_int_equal(gf_rec_init(&rec, dst), 0);
	fs.rec = &rec;
	assert_int_equal(gf_fs_read_str(&fs, "/sys/bus/pci/devices/0000:00:01.0/vendor", buf, sizeof(buf)), 0);
	assert_int_equal(gf_fs_read_str(&fs, "/proc/self/status", buf, sizeof(buf)), 0);
	assert_int_equal(gf_fs_list(&fs, "/sys/bus/pci/devices", &names, &n), 0);
	gf_strv_free(names, n);
	assert_int_equal(rec.error, 0);
	/* The links are links, with their original relative targets. */
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:00:01.0", dst);
	len = readlink(path, link, sizeof(link) - 1);
	assert_true(len > 0);
	link[len] = '\0';
	assert_string_equal(link, "../../../devices/pci0000:00/0000:00:01.0");
	snprintf(path, sizeof(path), "%s/proc/self", dst);
	len = readlink(path, link, sizeof(link) - 1);
	assert_true(len > 0);
	link[len] = '\0';
	assert_string_equal(link, "42");
	/* The copy replays: same bytes through the same paths. */
	assert_int_equal(gf_fs_init(&copy, dst), 0);
	assert_int_equal(gf_fs_read_str(&copy, "/sys/bus/pci/devices/0000:00:01.0/vendor", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x10de");
	assert_int_equal(gf_fs_read_str(&copy, "/proc/self/status", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "Cpus_allowed_list"));
	/* A link that climbs above the root is written where it lands. */
	assert_int_equal(gf_fs_read_str(&fs, "/sys/class/climb/proc/42/status", buf, sizeof(buf)), 0);
	snprintf(path, sizeof(path), "%s/sys/class/climb", dst);
	len = readlink(path, link, sizeof(link) - 1);
	assert_true(len > 0);
	link[len] = '\0';
	assert_string_equal(link, "../..");
	/* Only what was read: numa_node was not. */
	assert_false(gf_fs_exists(&copy, "/sys/devices/pci0000:00/0000:00:01.0/numa_node"));
	/* The listing recorded both entries (as links). */
	assert_int_equal(gf_fs_list(&copy, "/sys/bus/pci/devices", &names, &n), 0);
	assert_int_equal(n, 2);
	gf_strv_free(names, n);
	assert_true(rec.files >= 2);
	assert_true(rec.links >= 3);
	gf_rec_fini(&rec);
	gf_fs_fini(&fs);
	gf_fs_fini(&copy);
	t_rmtree(src);
	t_rmtree(dst);
	free(src);
	free(dst);
}

/* A listing records its regular entries as empty files, so the copy lists
 * the same names (msi_irqs/<irq> are used by name only); a read fills one,
 * a failed read removes it (absent, not empty), and what was read first
 * stays. */
static void recorder_keeps_listed_names(void **state)
{
	char *src = make_tree(), *dst = t_mkdtemp(), buf[64], path[PATH_MAX];
	struct gf_recorder rec;
	struct gf_fs fs, copy;
	struct stat st;
	char **names;
	int n;

	(void)state;
	t_write(src, "sys/devices/pci0000:00/0000:00:01.0/msi_irqs/120", "msi\n");
	t_write(src, "sys/devices/pci0000:00/0000:00:01.0/msi_irqs/121", "msi\n");
	t_write(src, "sys/devices/pci0000:00/0000:00:01.0/secret", "0400\n");
	snprintf(path, sizeof(path), "%s/sys/devices/pci0000:00/0000:00:01.0/secret", src);
	assert_int_equal(chmod(path, 0200), 0);		/* write-only: never a name to read */
	t_write(src, "sys/devices/pci0000:00/0000:00:01.0/big", "");
	snprintf(path, sizeof(path), "%s/sys/devices/pci0000:00/0000:00:01.0/big", src);
	assert_int_equal(truncate(path, 17 << 20), 0);	/* beyond what a read takes */
	assert_int_equal(gf_fs_init(&fs, src), 0);
	assert_int_equal(gf_rec_init(&rec, dst), 0);
	fs.rec = &rec;
	assert_int_equal(gf_fs_list(&fs, "/sys/bus/pci/devices/0000:00:01.0/msi_irqs", &names, &n), 0);
	gf_strv_free(names, n);
	assert_int_equal(gf_fs_list(&fs, "/sys/bus/pci/devices/0000:00:01.0", &names, &n), 0);
	gf_strv_free(names, n);
	assert_int_equal(gf_fs_read_str(&fs, "/sys/bus/pci/devices/0000:00:01.0/vendor", buf, sizeof(buf)), 0);
	/* numa_node is read once, then changes: the copy keeps the first. */
	assert_int_equal(gf_fs_read_str(&fs, "/sys/bus/pci/devices/0000:00:01.0/numa_node", buf, sizeof(buf)), 0);
	t_write(src, "sys/devices/pci0000:00/0000:00:01.0/numa_node", "0\n");
	assert_int_equal(gf_fs_read_str(&fs, "/sys/bus/pci/devices/0000:00:01.0/numa_node", buf, sizeof(buf)), 0);
	/* big is listed, then its read fails (as EIO or EINVAL would). */
	assert_int_equal(gf_fs_read_str(&fs, "/sys/bus/pci/devices/0000:00:01.0/big", buf, sizeof(buf)), -EFBIG);
	assert_int_equal(rec.error, 0);
	gf_rec_fini(&rec);

	assert_int_equal(gf_fs_init(&copy, dst), 0);
	assert_int_equal(gf_fs_list(&copy, "/sys/bus/pci/devices/0000:00:01.0/msi_irqs", &names, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "120");
	assert_string_equal(names[1], "121");
	gf_strv_free(names, n);
	snprintf(path, sizeof(path), "%s/sys/devices/pci0000:00/0000:00:01.0/msi_irqs/120", dst);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);		/* the name, not the bytes */
	assert_int_equal(gf_fs_read_str(&copy, "/sys/bus/pci/devices/0000:00:01.0/vendor", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x10de");
	assert_int_equal(gf_fs_read_str(&copy, "/sys/bus/pci/devices/0000:00:01.0/numa_node", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1");
	assert_false(gf_fs_exists(&copy, "/sys/bus/pci/devices/0000:00:01.0/secret"));
	assert_false(gf_fs_exists(&copy, "/sys/bus/pci/devices/0000:00:01.0/big"));
	assert_true(gf_fs_exists(&copy, "/sys/bus/pci/devices/0000:00:01.0/bad_int"));	/* listed, not read */
	assert_true(gf_fs_exists(&copy, "/sys/bus/pci/devices/0000:00:01.0/numa_node"));
	gf_fs_fini(&fs);
	gf_fs_fini(&copy);
	t_rmtree(src);
	t_rmtree(dst);
	free(src);
	free(dst);
}

/* A policy that drops one file, keeps another as its name, and edits a
 * third; what it drops is not even listed. */
static enum gf_rec_keep test_keep(void *arg, const struct gf_fs *fs, const char *path)
{
	int *asked = arg;

	(void)fs;
	(*asked)++;
	if (strstr(path, "0000:00:02.0"))
		return GF_REC_DROP;
	if (strstr(path, "/numa_node"))
		return GF_REC_NAME;
	if (strstr(path, "/status"))
		return GF_REC_EDIT;
	return GF_REC_KEEP;
}

static char *test_edit(void *arg, const char *path, const char *data, size_t len, size_t *out_len)
{
	(void)arg;
	(void)data;
	(void)len;
	assert_non_null(strstr(path, "/status"));
	*out_len = strlen("edited\n");
	return strdup("edited\n");
}

static void recorder_follows_its_policy(void **state)
{
	char *src = make_tree(), *dst = t_mkdtemp(), buf[64];
	struct gf_recorder rec;
	struct gf_fs fs, copy;
	char **names;
	int n, asked = 0;

	(void)state;
	assert_int_equal(gf_fs_init(&fs, src), 0);
	assert_int_equal(gf_rec_init(&rec, dst), 0);
	rec.policy = (struct gf_rec_policy){ test_keep, test_edit, &asked };
	fs.rec = &rec;
	assert_int_equal(gf_fs_list(&fs, "/sys/bus/pci/devices", &names, &n), 0);
	gf_strv_free(names, n);
	assert_int_equal(gf_fs_read_str(&fs, "/sys/bus/pci/devices/0000:00:01.0/vendor", buf, sizeof(buf)), 0);
	assert_int_equal(gf_fs_read_str(&fs, "/sys/bus/pci/devices/0000:00:01.0/numa_node", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1");		/* the reader sees the bytes */
	assert_int_equal(gf_fs_read_str(&fs, "/sys/bus/pci/devices/0000:00:02.0/vendor", buf, sizeof(buf)), 0);
	assert_true(gf_fs_exists(&fs, "/proc/self/status"));
	assert_int_equal(rec.error, 0);
	assert_true(asked >= 6);
	gf_rec_fini(&rec);

	assert_int_equal(gf_fs_init(&copy, dst), 0);
	assert_int_equal(gf_fs_read_str(&copy, "/sys/bus/pci/devices/0000:00:01.0/vendor", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x10de");
	assert_int_equal(gf_fs_read_str(&copy, "/sys/bus/pci/devices/0000:00:01.0/numa_node", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(gf_fs_read_str(&copy, "/proc/self/status", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "edited");
	assert_int_equal(gf_fs_list(&copy, "/sys/bus/pci/devices", &names, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "0000:00:01.0");
	gf_strv_free(names, n);
	assert_false(gf_fs_exists(&copy, "/sys/devices/pci0000:00/0000:00:02.0"));
	gf_fs_fini(&fs);
	gf_fs_fini(&copy);
	t_rmtree(src);
	t_rmtree(dst);
	free(src);
	free(dst);
}

/* A link chain that the readers resolve inside the root (up -> /, then
 * ".." stops there) must not become, in the copy, a link that a tool
 * following links resolves to the host's /etc/passwd. */
static void recorded_links_stay_inside(void **state)
{
	char *src = t_mkdtemp(), *dst = t_mkdtemp(), buf[256], path[PATH_MAX], real[PATH_MAX];
	char *host = t_read("/etc/passwd"), *text;
	struct gf_recorder rec;
	struct gf_fs fs;
	char **names;
	int n;

	(void)state;
	t_write(src, "etc/passwd", "recorded\n");
	t_symlink(src, "sys/a/b/up", "/");
	t_symlink(src, "sys/a/b/evil", "up/../../../etc/passwd");
	t_symlink(src, "sys/a/b/deep", "up/sys/a/b/up/../../../../../../etc/passwd");
	assert_int_equal(gf_fs_init(&fs, src), 0);
	assert_int_equal(gf_rec_init(&rec, dst), 0);
	fs.rec = &rec;
	assert_int_equal(gf_fs_list(&fs, "/sys/a/b", &names, &n), 0);
	gf_strv_free(names, n);
	assert_int_equal(gf_fs_read_str(&fs, "/sys/a/b/evil", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "recorded");
	assert_int_equal(gf_fs_read_str(&fs, "/sys/a/b/deep", buf, sizeof(buf)), 0);
	assert_int_equal(rec.error, 0);
	for (int i = 0; i < 3; i++) {
		const char *name[] = { "up", "evil", "deep" };

		snprintf(path, sizeof(path), "%s/sys/a/b/%s", dst, name[i]);
		if (realpath(path, real))	/* followed by the host: inside dst */
			assert_true(strncmp(real, dst, strlen(dst)) == 0);
		{
			struct stat st;

			if (stat(path, &st) || !S_ISREG(st.st_mode))
				continue;	/* "up" is a directory */
		}
		text = t_read(path);
		if (text && host)
			assert_string_not_equal(text, host);
		free(text);
	}
	snprintf(path, sizeof(path), "%s/sys/a/b/evil", dst);
	text = t_read(path);
	assert_non_null(text);
	assert_string_equal(text, "recorded\n");
	free(text);
	gf_rec_fini(&rec);
	gf_fs_fini(&fs);
	t_rmtree(src);
	t_rmtree(dst);
	free(src);
	free(dst);
	free(host);
}

/* A FIFO in a recording is refused without being opened: a writer blocked
 * in open() stays blocked (opening it for reading would release it). */
static void special_files_never_opened(void **state)
{
	char *d = make_tree(), path[PATH_MAX], buf[64];
	struct gf_fs fs;
	pid_t pid;
	int status, fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/sys/devices/pci0000:00/0000:00:01.0/fifo", d);
	assert_int_equal(mkfifo(path, 0644), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int wfd = open(path, O_WRONLY);	/* blocks until a reader opens */

		_exit(wfd >= 0 ? 0 : 1);
	}
	usleep(100 * 1000);
	assert_int_equal(gf_fs_init(&fs, d), 0);
	assert_int_equal(gf_fs_read_str(&fs, "/sys/bus/pci/devices/0000:00:01.0/fifo", buf, sizeof(buf)),
			 -EBADMSG);
	usleep(200 * 1000);
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);	/* still blocked */
	fd = open(path, O_RDONLY | O_NONBLOCK);			/* release it */
	waitpid(pid, &status, 0);
	close(fd);
	gf_fs_fini(&fs);
	t_rmtree(d);
	free(d);
}

/* openat2(RESOLVE_IN_ROOT) fails with EAGAIN when any rename happens on the
 * host while it walks "..".  A thread renaming two scratch files back and
 * forth makes that frequent; discovery must still see every GPU and a
 * recording must still be whole. */
struct renamer {
	char dir[PATH_MAX];
	atomic_int stop;
};

static void *rename_loop(void *arg)
{
	struct renamer *r = arg;
	char a[PATH_MAX + 8], b[PATH_MAX + 8];

	snprintf(a, sizeof(a), "%s/a", r->dir);
	snprintf(b, sizeof(b), "%s/b", r->dir);
	while (!atomic_load(&r->stop)) {
		rename(a, b);
		rename(b, a);
	}
	return NULL;
}

static void reads_survive_concurrent_renames(void **state)
{
	char *scratch = t_mkdtemp(), *out = t_mkdtemp(), target[PATH_MAX];
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_record_options ro = GF_RECORD_OPTS_INIT;
	struct gf_record_stats quiet_st, st;
	struct renamer r = { .stop = 0 };
	pthread_t th;

	(void)state;
	o.root = t_fixture_root("hgx-h100-8gpu");
	ro.machine = &o;
	snprintf(target, sizeof(target), "%s/quiet", out);
	assert_int_equal(gf_record(target, &ro, &quiet_st), 0);
	snprintf(r.dir, sizeof(r.dir), "%s", scratch);
	t_write(scratch, "a", "x");
	assert_int_equal(pthread_create(&th, NULL, rename_loop, &r), 0);
	for (int i = 0; i < 10; i++) {
		struct gf_topo *t = NULL;

		assert_int_equal(gf_topo_discover(&o, &t), 0);
		assert_int_equal(t->ngpus, 8);
		assert_int_equal(t->nwarnings, 0);
		gf_topo_free(t);
	}
	snprintf(target, sizeof(target), "%s/busy", out);
	assert_int_equal(gf_record(target, &ro, &st), 0);
	assert_int_equal(st.files, quiet_st.files);
	assert_int_equal(st.links, quiet_st.links);
	assert_int_equal(st.ngpus, 8);
	gf_fs_have_openat2 = 0;		/* the fallback walk sees the same machine */
	{
		struct gf_topo *t = NULL;

		assert_int_equal(gf_topo_discover(&o, &t), 0);
		assert_int_equal(t->ngpus, 8);
		assert_int_equal(t->nwarnings, 0);
		gf_topo_free(t);
	}
	gf_fs_have_openat2 = 1;
	atomic_store(&r.stop, 1);
	pthread_join(th, NULL);
	t_rmtree(scratch);
	t_rmtree(out);
	free(scratch);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_through_root),
		cmocka_unit_test(reads_through_root_without_openat2),
		cmocka_unit_test(probe_tells_absent_from_failed),
		cmocka_unit_test(bad_roots),
		cmocka_unit_test(refuses_special_files),
		cmocka_unit_test(refuses_long_roots),
		cmocka_unit_test(recorder_mirrors_links),
		cmocka_unit_test(recorder_keeps_listed_names),
		cmocka_unit_test(recorder_follows_its_policy),
		cmocka_unit_test(recorded_links_stay_inside),
		cmocka_unit_test(special_files_never_opened),
		cmocka_unit_test(reads_survive_concurrent_renames),
	};

	return cmocka_run_group_tests_name("fs+recorder", tests, NULL, NULL);
}
