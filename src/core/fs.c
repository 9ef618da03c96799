/* Root-prefixed reads of /sys and /proc, tapped by the recorder. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/recorder.h"
#include "core/strutil.h"

/* /proc/cpuinfo of a 400-thread host is ~1 MiB; nothing we read is larger. */
#define GF_FS_MAX_FILE (16u << 20)

int gf_fs_init(struct gf_fs *fs, const char *root)
{
	struct stat st;

	memset(fs, 0, sizeof(*fs));
	fs->rootfd = -1;
	if (!root || !*root)
		return 0;
	if (stat(root, &st))
		return gf_error_errno(-errno, root);
	if (!S_ISDIR(st.st_mode))
		return gf_error(-ENOTDIR, "%s: not a directory (a recording is a directory made by 'gpufeed record')",
				root);
	if (!realpath(root, fs->root))
		return gf_error_errno(-errno, root);
	if (strcmp(fs->root, "/") == 0) {
		fs->root[0] = '\0';	/* --root / is this machine */
		return 0;
	}
	fs->rootlen = strlen(fs->root);
	if (fs->rootlen > GF_FS_MAX_ROOT)
		return gf_error(-ENAMETOOLONG, "%.64s...: recording path longer than %d bytes", fs->root,
				GF_FS_MAX_ROOT);
	fs->rootfd = open(fs->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fs->rootfd < 0)
		return gf_error_errno(-errno, fs->root);
	return 0;
}

void gf_fs_fini(struct gf_fs *fs)
{
	if (fs->rootfd >= 0)
		close(fs->rootfd);
	fs->rootfd = -1;
}

bool gf_fs_live(const struct gf_fs *fs)
{
	return fs->rootlen == 0;
}

void gf_fs_real(const struct gf_fs *fs, const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", fs->root, path);
}

/* Before Linux 5.6 (no openat2): resolve, then refuse what left the root.
 * Absolute links then count as leaving it. */
static int open_checked(const struct gf_fs *fs, const char *path, int flags)
{
	char real[PATH_MAX], canon[PATH_MAX];

	if ((size_t)snprintf(real, sizeof(real), "%s%s", fs->root, path) >= sizeof(real)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (flags & O_NOFOLLOW) {
		/* The last component itself is not followed: check its parent. */
		char *slash = strrchr(real, '/');

		*slash = '\0';
		if (!realpath(real, canon))
			return -1;
		*slash = '/';
	} else if (!realpath(real, canon)) {
		return -1;
	}
	if (strncmp(canon, fs->root, fs->rootlen) || (canon[fs->rootlen] && canon[fs->rootlen] != '/')) {
		errno = EXDEV;
		return -1;
	}
	return open((flags & O_NOFOLLOW) ? real : canon, flags | O_CLOEXEC);
}

/* open() of a machine path: as is for this machine, scoped inside the
 * root for a recording. */
static int fs_open(const struct gf_fs *fs, const char *path, int flags)
{
	static _Atomic int have_openat2 = 1;
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	const char *rel = path;
	long fd;

	if (!fs->rootlen)
		return open(path, flags | O_CLOEXEC);
	while (*rel == '/')
		rel++;
	if (!*rel)
		rel = ".";
	if (have_openat2) {
		fd = syscall(SYS_openat2, fs->rootfd, rel, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return (int)fd;
		have_openat2 = 0;	/* old kernel: fall back for good */
	}
	return open_checked(fs, path, flags);
}

int gf_fs_read(const struct gf_fs *fs, const char *path, char **data, size_t *len)
{
	char real[PATH_MAX];
	size_t cap = 4096, n = 0;
	struct stat st;
	char *buf;
	int fd, ret = 0;

	*data = NULL;
	if (len)
		*len = 0;
	gf_fs_real(fs, path, real, sizeof(real));
	fd = fs_open(fs, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return gf_error_errno(-errno, real);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return gf_error(-EBADMSG, "%s: not a regular file", real);
	}
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return gf_error(-ENOMEM, "%s: out of memory", real);
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb;

			if (cap >= GF_FS_MAX_FILE) {
				ret = gf_error(-EFBIG, "%s: larger than %u bytes", real, GF_FS_MAX_FILE);
				goto out;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				ret = gf_error(-ENOMEM, "%s: out of memory", real);
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = gf_error_errno(-errno, real);
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	if (fs->rec)
		gf_rec_file(fs->rec, fs, path, buf, n);
out:
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	*data = buf;
	if (len)
		*len = n;
	return 0;
}

int gf_fs_read_str(const struct gf_fs *fs, const char *path, char *buf, size_t size)
{
	char real[PATH_MAX], *data;
	size_t len;
	int ret = gf_fs_read(fs, path, &data, &len);

	if (ret)
		return ret;
	/* Trailing NULs and white space go; a NUL inside would cut the value
	 * short unseen ("1\0junk" is not 1). */
	while (len && (data[len - 1] == '\0' || isspace((unsigned char)data[len - 1])))
		len--;
	data[len] = '\0';
	gf_fs_real(fs, path, real, sizeof(real));
	if (memchr(data, '\0', len))
		ret = gf_error(-EBADMSG, "%s: holds a NUL byte inside its value", real);
	else if (len >= size)
		ret = gf_error(-EOVERFLOW, "%s: value longer than %zu bytes", real, size - 1);
	else
		memcpy(buf, data, len + 1);
	free(data);
	return ret;
}

int gf_fs_read_ll(const struct gf_fs *fs, const char *path, long long *v)
{
	char buf[128];
	int ret = gf_fs_read_str(fs, path, buf, sizeof(buf));

	if (ret)
		return ret;
	if (gf_parse_ll(gf_lstrip(buf), v)) {
		char real[PATH_MAX];

		gf_fs_real(fs, path, real, sizeof(real));
		return gf_error(-EBADMSG, "%s: not an integer: '%s'", real, buf);
	}
	return 0;
}

int gf_fs_readlink(const struct gf_fs *fs, const char *path, char *buf, size_t size)
{
	char real[PATH_MAX];
	ssize_t n;
	int fd;

	gf_fs_real(fs, path, real, sizeof(real));
	fd = fs_open(fs, path, O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return gf_error_errno(-errno, real);
	n = readlinkat(fd, "", buf, size - 1);
	close(fd);
	if (n < 0)
		return gf_error_errno(errno == ENOENT ? -EINVAL : -errno, real);
	if ((size_t)n >= size - 1)
		return gf_error(-ENAMETOOLONG, "%s: link target too long", real);
	buf[n] = '\0';
	if (fs->rec)
		gf_rec_path(fs->rec, fs, path);
	return 0;
}

int gf_fs_resolve(const struct gf_fs *fs, const char *path, char *buf, size_t size)
{
	char real[PATH_MAX], proc[64], canon[PATH_MAX];
	const char *rel;
	ssize_t n;
	int fd;

	gf_fs_real(fs, path, real, sizeof(real));
	fd = fs_open(fs, path, O_PATH);
	if (fd < 0)
		return gf_error_errno(-errno, real);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, canon, sizeof(canon) - 1);
	close(fd);
	if (n < 0)
		return gf_error_errno(-errno, real);
	canon[n] = '\0';
	rel = canon;
	if (fs->rootlen) {
		if (strncmp(canon, fs->root, fs->rootlen) ||
		    (canon[fs->rootlen] && canon[fs->rootlen] != '/'))
			return gf_error(-EXDEV, "%s: resolves to %s, outside the recording", real, canon);
		rel = canon + fs->rootlen;
		if (!*rel)
			rel = "/";
	}
	if (strlen(rel) >= size)
		return gf_error(-ENAMETOOLONG, "%s: path too long", real);
	strcpy(buf, rel);
	if (fs->rec)
		gf_rec_path(fs->rec, fs, path);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void gf_strv_free(char **v, int n)
{
	if (!v)
		return;
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int gf_fs_list(const struct gf_fs *fs, const char *path, char ***names, int *n)
{
	char real[PATH_MAX];
	struct dirent *de;
	char **v = NULL;
	int cnt = 0, cap = 0, ret = 0, fd;
	DIR *d;

	*names = NULL;
	*n = 0;
	gf_fs_real(fs, path, real, sizeof(real));
	fd = fs_open(fs, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return gf_error_errno(-errno, real);
	d = fdopendir(fd);
	if (!d) {
		ret = gf_error_errno(-errno, real);
		close(fd);
		return ret;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (cnt == cap) {
			int ncap = cap ? cap * 2 : 32;
			char **nv = realloc(v, (size_t)ncap * sizeof(*v));

			if (!nv) {
				ret = gf_error(-ENOMEM, "%s: out of memory", real);
				goto out;
			}
			v = nv;
			cap = ncap;
		}
		v[cnt] = strdup(de->d_name);
		if (!v[cnt]) {
			ret = gf_error(-ENOMEM, "%s: out of memory", real);
			goto out;
		}
		cnt++;
	}
	if (cnt)
		qsort(v, (size_t)cnt, sizeof(*v), cmp_str);
	if (fs->rec)
		gf_rec_dir(fs->rec, fs, path, v, cnt);
out:
	closedir(d);
	if (ret) {
		gf_strv_free(v, cnt);
		return ret;
	}
	*names = v;
	*n = cnt;
	return 0;
}

/* stat() of a machine path, scoped like every other access. */
static int fs_stat(const struct gf_fs *fs, const char *path, struct stat *st)
{
	int fd = fs_open(fs, path, O_PATH);
	int ret;

	if (fd < 0)
		return -1;
	ret = fstat(fd, st);
	close(fd);
	return ret;
}

bool gf_fs_exists(const struct gf_fs *fs, const char *path)
{
	struct stat st;

	if (fs_stat(fs, path, &st))
		return false;
	if (fs->rec)
		gf_rec_path(fs->rec, fs, path);
	return true;
}

bool gf_fs_is_dir(const struct gf_fs *fs, const char *path)
{
	struct stat st;

	if (fs_stat(fs, path, &st) || !S_ISDIR(st.st_mode))
		return false;
	if (fs->rec)
		gf_rec_path(fs->rec, fs, path);
	return true;
}
