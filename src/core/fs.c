/* Root-prefixed reads of /sys and /proc, tapped by the recorder. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
	if (!root || !*root)
		return 0;
	if (stat(root, &st))
		return gf_error_errno(-errno, root);
	if (!S_ISDIR(st.st_mode))
		return gf_error(-ENOTDIR, "%s: not a directory (a recording is a directory made by 'gpufeed record')",
				root);
	if (!realpath(root, fs->root))
		return gf_error_errno(-errno, root);
	if (strcmp(fs->root, "/") == 0)
		fs->root[0] = '\0';	/* --root / is this machine */
	fs->rootlen = strlen(fs->root);
	return 0;
}

bool gf_fs_live(const struct gf_fs *fs)
{
	return fs->rootlen == 0;
}

void gf_fs_real(const struct gf_fs *fs, const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", fs->root, path);
}

int gf_fs_read(const struct gf_fs *fs, const char *path, char **data, size_t *len)
{
	char real[PATH_MAX];
	size_t cap = 4096, n = 0;
	char *buf;
	int fd, ret = 0;

	*data = NULL;
	if (len)
		*len = 0;
	gf_fs_real(fs, path, real, sizeof(real));
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gf_error_errno(-errno, real);
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
	char *data;
	size_t len;
	int ret = gf_fs_read(fs, path, &data, &len);

	if (ret)
		return ret;
	gf_rstrip(data);
	len = strlen(data);
	if (len >= size) {
		char real[PATH_MAX];

		gf_fs_real(fs, path, real, sizeof(real));
		free(data);
		return gf_error(-EOVERFLOW, "%s: value longer than %zu bytes", real, size - 1);
	}
	memcpy(buf, data, len + 1);
	free(data);
	return 0;
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

	gf_fs_real(fs, path, real, sizeof(real));
	n = readlink(real, buf, size - 1);
	if (n < 0)
		return gf_error_errno(-errno, real);
	if ((size_t)n >= size - 1)
		return gf_error(-ENAMETOOLONG, "%s: link target too long", real);
	buf[n] = '\0';
	if (fs->rec)
		gf_rec_path(fs->rec, fs, path);
	return 0;
}

int gf_fs_resolve(const struct gf_fs *fs, const char *path, char *buf, size_t size)
{
	char real[PATH_MAX], canon[PATH_MAX];
	const char *rel;

	gf_fs_real(fs, path, real, sizeof(real));
	if (!realpath(real, canon))
		return gf_error_errno(-errno, real);
	if (fs->rootlen) {
		if (strncmp(canon, fs->root, fs->rootlen) ||
		    (canon[fs->rootlen] && canon[fs->rootlen] != '/'))
			return gf_error(-EXDEV, "%s: resolves to %s, outside the recording", real, canon);
		rel = canon + fs->rootlen;
		if (!*rel)
			rel = "/";
	} else {
		rel = canon;
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
	int cnt = 0, cap = 0, ret = 0;
	DIR *d;

	*names = NULL;
	*n = 0;
	gf_fs_real(fs, path, real, sizeof(real));
	d = opendir(real);
	if (!d)
		return gf_error_errno(-errno, real);
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

bool gf_fs_exists(const struct gf_fs *fs, const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	gf_fs_real(fs, path, real, sizeof(real));
	if (stat(real, &st))
		return false;
	if (fs->rec)
		gf_rec_path(fs->rec, fs, path);
	return true;
}

bool gf_fs_is_dir(const struct gf_fs *fs, const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	gf_fs_real(fs, path, real, sizeof(real));
	if (stat(real, &st) || !S_ISDIR(st.st_mode))
		return false;
	if (fs->rec)
		gf_rec_path(fs->rec, fs, path);
	return true;
}
