/* Reading a recording through fs_cache.c: the directory kept between reads
 * and its two ways of opening a file (by name in a directory only we can
 * change; through an O_PATH descriptor elsewhere) give the bytes of the
 * file, refuse FIFOs and device nodes without opening them, and keep
 * symlinks inside the root, in both kinds of directory. */
#include "helpers.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fs.h"
#include <gpufeed/error.h>

static const size_t sizes[] = { 0, 1, 4094, 4095, 4096, 4097, 10000, 300000 };

static mode_t dir_mode;

static int chmod_dir(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_D)
		assert_int_equal(chmod(path, dir_mode), 0);
	return 0;
}

/* Files of each size in two device directories, links to them, and every
 * directory set to `mode`: 0755 (only we may change it) or 0777 (anyone). */
static char *make_rec(mode_t mode)
{
	char *d = t_mkdtemp(), rel[128];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *data = malloc(sizes[i] + 1);

		assert_non_null(data);
		for (size_t k = 0; k < sizes[i]; k++)
			data[k] = (char)('a' + (k * 7 + i) % 26);
		snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/0000:00:01.0/f%zu", sizes[i]);
		t_write_bytes(d, rel, data, sizes[i]);
		snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/0000:00:02.0/f%zu", sizes[i]);
		t_write_bytes(d, rel, data, sizes[i]);
		free(data);
	}
	t_write(d, "sys/devices/pci0000:00/0000:00:01.0/vendor", "0x10de\n");
	t_write(d, "sys/devices/pci0000:00/0000:00:02.0/vendor", "0x15b3\n");
	t_write(d, "nvml.json", "{}\n");
	t_symlink(d, "sys/bus/pci/devices/0000:00:01.0", "../../../devices/pci0000:00/0000:00:01.0");
	t_symlink(d, "sys/devices/pci0000:00/0000:00:01.0/rel", "../0000:00:02.0/vendor");
	t_symlink(d, "sys/devices/pci0000:00/0000:00:01.0/abs", "/sys/devices/pci0000:00/0000:00:02.0/vendor");
	t_symlink(d, "sys/devices/pci0000:00/0000:00:01.0/out", "/etc/hostname");
	t_symlink(d, "sys/devices/pci0000:00/0000:00:01.0/up", "../../../../../../../etc/hostname");
	dir_mode = mode;
	assert_int_equal(nftw(d, chmod_dir, 16, FTW_PHYS), 0);
	return d;
}

static char *expected(size_t size, size_t i)
{
	char *data = malloc(size + 1);

	assert_non_null(data);
	for (size_t k = 0; k < size; k++)
		data[k] = (char)('a' + (k * 7 + i) % 26);
	data[size] = '\0';
	return data;
}

/* Every size byte for byte, read from directories visited in turn (the
 * kept one replaced each time) and through a link to a directory. */
static void whole_files(mode_t mode)
{
	static const char *dirs[] = { "/sys/devices/pci0000:00/0000:00:01.0", "/sys/devices/pci0000:00/0000:00:02.0",
				      "/sys/bus/pci/devices/0000:00:01.0" };
	char *d = make_rec(mode), path[256], *data;
	struct gf_fs fs;
	size_t len;

	assert_int_equal(gf_fs_init(&fs, d), 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *want = expected(sizes[i], i);

		for (size_t k = 0; k < 2 * sizeof(dirs) / sizeof(dirs[0]); k++) {
			snprintf(path, sizeof(path), "%s/f%zu", dirs[k % 3], sizes[i]);
			assert_int_equal(gf_fs_read(&fs, path, &data, &len), 0);
			assert_int_equal(len, sizes[i]);
			assert_memory_equal(data, want, sizes[i] + 1);
			free(data);
		}
		free(want);
	}
	assert_int_equal(gf_fs_read(&fs, "/nvml.json", &data, &len), 0);
	assert_string_equal(data, "{}\n");
	free(data);
	gf_fs_fini(&fs);
	t_rmtree(d);
	free(d);
}

static void whole_files_closed_dirs(void **state)
{
	(void)state;
	whole_files(0755);
}

static void whole_files_open_dirs(void **state)
{
	(void)state;
	whole_files(0777);
}

/* Links in the last component resolve inside the root as before; what is
 * absent, or under a file, says so. */
static void links_and_absence(mode_t mode)
{
	char *d = make_rec(mode), buf[256];
	const char *dev = "/sys/devices/pci0000:00/0000:00:01.0";
	struct gf_fs fs;
	struct stat st;

	assert_int_equal(gf_fs_init(&fs, d), 0);
	for (int pass = 0; pass < 2; pass++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/rel", dev);
		assert_int_equal(gf_fs_read_str(&fs, path, buf, sizeof(buf)), 0);
		assert_string_equal(buf, "0x15b3");
		snprintf(path, sizeof(path), "%s/abs", dev);
		assert_int_equal(gf_fs_read_str(&fs, path, buf, sizeof(buf)), 0);
		assert_string_equal(buf, "0x15b3");
		snprintf(path, sizeof(path), "%s/out", dev);
		assert_int_equal(gf_fs_read_str(&fs, path, buf, sizeof(buf)), -ENOENT);
		snprintf(path, sizeof(path), "%s/up", dev);
		assert_int_equal(gf_fs_read_str(&fs, path, buf, sizeof(buf)), -ENOENT);
		snprintf(path, sizeof(path), "%s/abs", dev);
		assert_int_equal(gf_fs_readlink(&fs, path, buf, sizeof(buf)), 0);
		assert_string_equal(buf, "/sys/devices/pci0000:00/0000:00:02.0/vendor");
		snprintf(path, sizeof(path), "%s/vendor", dev);
		assert_int_equal(gf_fs_readlink(&fs, path, buf, sizeof(buf)), -EINVAL);
		snprintf(path, sizeof(path), "%s/rel", dev);
		assert_int_equal(gf_fs_probe(&fs, path, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		snprintf(path, sizeof(path), "%s/none", dev);
		assert_int_equal(gf_fs_probe(&fs, path, &st), -ENOENT);
		assert_int_equal(gf_fs_read_str(&fs, path, buf, sizeof(buf)), -ENOENT);
		assert_non_null(strstr(gf_last_error(), "/none"));
		snprintf(path, sizeof(path), "%s/vendor/x", dev);
		assert_int_equal(gf_fs_read_str(&fs, path, buf, sizeof(buf)), -ENOTDIR);
		assert_int_equal(gf_fs_read_str(&fs, "/sys/nodir/x", buf, sizeof(buf)), -ENOENT);
		assert_int_equal(gf_fs_read_str(&fs, dev, buf, sizeof(buf)), -EBADMSG);
		gf_fs_have_openat2 = 0;		/* the second pass: the walk in user space */
	}
	gf_fs_have_openat2 = 1;
	gf_fs_fini(&fs);
	t_rmtree(d);
	free(d);
}

static void links_and_absence_closed_dirs(void **state)
{
	(void)state;
	links_and_absence(0755);
}

static void links_and_absence_open_dirs(void **state)
{
	(void)state;
	links_and_absence(0777);
}

/* A FIFO with a writer blocked in open(): reading it is refused and the
 * writer stays blocked, so it was never opened.  A device node (when this
 * user may make one: /dev/null's numbers) is refused too, where reading it
 * would have given "" and success. */
static void special_files(mode_t mode)
{
	char *d = make_rec(mode), fifo[PATH_MAX], node[PATH_MAX], buf[64];
	struct gf_fs fs;
	pid_t pid;
	int status, fd;

	snprintf(fifo, sizeof(fifo), "%s/sys/devices/pci0000:00/0000:00:01.0/fifo", d);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	snprintf(node, sizeof(node), "%s/sys/devices/pci0000:00/0000:00:01.0/null", d);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int wfd = open(fifo, O_WRONLY);	/* blocks until a reader opens */

		_exit(wfd >= 0 ? 0 : 1);
	}
	usleep(100 * 1000);
	assert_int_equal(gf_fs_init(&fs, d), 0);
	assert_int_equal(gf_fs_read_str(&fs, "/sys/devices/pci0000:00/0000:00:01.0/vendor", buf, sizeof(buf)), 0);
	assert_int_equal(gf_fs_read_str(&fs, "/sys/devices/pci0000:00/0000:00:01.0/fifo", buf, sizeof(buf)),
			 -EBADMSG);
	assert_non_null(strstr(gf_last_error(), "not a regular file"));
	assert_int_equal(gf_fs_read_str(&fs, "/sys/bus/pci/devices/0000:00:01.0/fifo", buf, sizeof(buf)), -EBADMSG);
	if (mknod(node, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		assert_int_equal(gf_fs_read_str(&fs, "/sys/devices/pci0000:00/0000:00:01.0/null", buf, sizeof(buf)),
				 -EBADMSG);
		assert_non_null(strstr(gf_last_error(), "not a regular file"));
	}
	usleep(200 * 1000);
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);	/* still blocked */
	fd = open(fifo, O_RDONLY | O_NONBLOCK);			/* release it */
	waitpid(pid, &status, 0);
	close(fd);
	gf_fs_fini(&fs);
	t_rmtree(d);
	free(d);
}

static void special_files_closed_dirs(void **state)
{
	(void)state;
	special_files(0755);
}

static void special_files_open_dirs(void **state)
{
	(void)state;
	special_files(0777);
}

static int open_fds(void)
{
	char **names;
	int n;
	struct gf_fs fs;

	assert_int_equal(gf_fs_init(&fs, "/"), 0);
	gf_fs_fini(&fs);
	assert_int_equal(gf_fs_list(&fs, "/proc/self/fd", &names, &n), 0);
	gf_strv_free(names, n);
	return n;
}

/* Whether this process holds a descriptor of d/rel. */
static bool holds_fd_to(const char *d, const char *rel)
{
	char want[PATH_MAX], real[PATH_MAX], link[64], got[PATH_MAX];
	char **names;
	bool found = false;
	int n;
	struct gf_fs fs;

	snprintf(want, sizeof(want), "%s/%s", d, rel);
	assert_non_null(realpath(want, real));
	assert_int_equal(gf_fs_init(&fs, "/"), 0);
	gf_fs_fini(&fs);
	assert_int_equal(gf_fs_list(&fs, "/proc/self/fd", &names, &n), 0);
	for (int i = 0; i < n && !found; i++) {
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", names[i]);
		len = readlink(link, got, sizeof(got) - 1);
		if (len > 0) {
			got[len] = '\0';
			found = !strcmp(got, real);
		}
	}
	gf_strv_free(names, n);
	return found;
}

/* gf_fs_resolve hands the directory it resolved to the cache: what is read
 * in it next gives the same bytes and the same refusals (a FIFO with no
 * writer would read as "" if it were opened), a link to a file is not kept
 * as a directory, and nothing stays open after gf_fs_fini. */
static void resolve_then_read(mode_t mode)
{
	char *d = make_rec(mode), buf[PATH_MAX], fifo[PATH_MAX];
	struct gf_fs fs;
	int fds = open_fds();

	snprintf(fifo, sizeof(fifo), "%s/sys/devices/pci0000:00/0000:00:01.0/fifo", d);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(gf_fs_init(&fs, d), 0);
	for (int pass = 0; pass < 2; pass++) {
		char *want = expected(4097, 5);	/* sizes[5] */

		/* Kept: the directory read last is 02.0, so a descriptor of
		 * 01.0 after the resolve is the one the resolve handed over. */
		assert_int_equal(gf_fs_read_str(&fs, "/sys/devices/pci0000:00/0000:00:02.0/vendor", buf, sizeof(buf)),
				 0);
		assert_false(holds_fd_to(d, "sys/devices/pci0000:00/0000:00:01.0"));
		assert_int_equal(gf_fs_resolve(&fs, "/sys/bus/pci/devices/0000:00:01.0", buf, sizeof(buf)), 0);
		assert_string_equal(buf, "/sys/devices/pci0000:00/0000:00:01.0");
		assert_true(holds_fd_to(d, "sys/devices/pci0000:00/0000:00:01.0"));
		assert_int_equal(gf_fs_read_str(&fs, "/sys/devices/pci0000:00/0000:00:01.0/vendor", buf, sizeof(buf)),
				 0);
		assert_string_equal(buf, "0x10de");
		assert_int_equal(gf_fs_resolve(&fs, "/sys/bus/pci/devices/0000:00:01.0", buf, sizeof(buf)), 0);
		assert_int_equal(gf_fs_read_str(&fs, "/sys/devices/pci0000:00/0000:00:01.0/fifo", buf, sizeof(buf)),
				 -EBADMSG);
		assert_int_equal(gf_fs_resolve(&fs, "/sys/devices/pci0000:00/0000:00:01.0/rel", buf, sizeof(buf)), 0);
		assert_string_equal(buf, "/sys/devices/pci0000:00/0000:00:02.0/vendor");
		assert_false(holds_fd_to(d, "sys/devices/pci0000:00/0000:00:02.0/vendor"));	/* a file: not kept */
		assert_int_equal(gf_fs_read_str(&fs, "/sys/devices/pci0000:00/0000:00:02.0/vendor", buf, sizeof(buf)),
				 0);
		assert_string_equal(buf, "0x15b3");
		assert_int_equal(gf_fs_resolve(&fs, "/sys/bus/pci/devices/0000:00:01.0", buf, sizeof(buf)), 0);
		assert_int_equal(gf_fs_read_str(&fs, "/sys/devices/pci0000:00/0000:00:02.0/f4097", buf, sizeof(buf)),
				 -EOVERFLOW);
		{
			char *data;
			size_t len;

			assert_int_equal(gf_fs_read(&fs, "/sys/devices/pci0000:00/0000:00:02.0/f4097", &data, &len), 0);
			assert_int_equal(len, 4097);
			assert_memory_equal(data, want, 4098);
			free(data);
		}
		assert_int_equal(gf_fs_resolve(&fs, "/sys/devices/pci0000:00/0000:00:01.0/out", buf, sizeof(buf)),
				 -ENOENT);
		free(want);
		gf_fs_have_openat2 = 0;		/* the second pass: the walk in user space */
	}
	gf_fs_have_openat2 = 1;
	gf_fs_fini(&fs);
	assert_int_equal(open_fds(), fds);
	t_rmtree(d);
	free(d);
}

static void resolve_then_read_closed_dirs(void **state)
{
	(void)state;
	resolve_then_read(0755);
}

static void resolve_then_read_open_dirs(void **state)
{
	(void)state;
	resolve_then_read(0777);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_files_closed_dirs),
		cmocka_unit_test(whole_files_open_dirs),
		cmocka_unit_test(links_and_absence_closed_dirs),
		cmocka_unit_test(links_and_absence_open_dirs),
		cmocka_unit_test(special_files_closed_dirs),
		cmocka_unit_test(special_files_open_dirs),
		cmocka_unit_test(resolve_then_read_closed_dirs),
		cmocka_unit_test(resolve_then_read_open_dirs),
	};

	umask(022);
	return cmocka_run_group_tests_name("fs cache", tests, NULL, NULL);
}
