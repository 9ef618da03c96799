/* gpufeed's own persistent files under /etc (sysctl.d, udev rules,
 * tmpfiles.d, modprobe.d, modules-load.d): lines added by tune --persist;
 * and root_replace, which writes them, and a recording's values, whole
 * (temp, fsync, rename) so a crash leaves the old file or the new one,
 * never half of it (nor an empty one). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/strutil.h"
#include "tune/fault.h"
#include "tune/tune_internal.h"

#define PERSIST_HEADER "# Written by 'gpufeed tune --persist'; 'gpufeed revert' removes what it added.\n"

/* Only gpufeed's own files: never a file someone else owns (a journal
 * naming another is refused, so revert cannot be made to write it). */
bool persist_path_ok(const char *path)
{
	static const char *const ours[] = GF_PERSIST_FILES;

	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (!strcmp(path, ours[i]))
			return true;
	return false;
}

int persist_read(const struct tune_state *s, const char *path, char **data, size_t *len, bool *exists)
{
	int ret = gf_fs_read(&s->fs, path, data, len);

	*exists = ret == 0;
	if (ret == -ENOENT || ret == -ENOTDIR) {
		*data = strdup("");
		*len = 0;
		return *data ? 0 : gf_error(-ENOMEM, "out of memory");
	}
	return ret;
}

static bool has_line(const char *contents, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = contents; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, line, n) && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

char *persist_add_line(const char *contents, bool exists, const char *line)
{
	size_t n = strlen(contents);
	char *out;

	if (has_line(contents, line))
		return strdup(contents);
	if (!(out = malloc(n + strlen(line) + sizeof(PERSIST_HEADER) + 3)))
		return NULL;
	sprintf(out, "%s%s%s%s\n", exists ? contents : PERSIST_HEADER, exists && n && contents[n - 1] != '\n' ? "\n" : "",
		exists ? "" : contents, line);
	return out;
}

char *persist_drop_line(const char *contents, const char *line)
{
	size_t n = strlen(line);
	char *out = strdup(contents);

	for (char *p = out; out && p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, line, n) && (p[n] == '\n' || !p[n])) {
			memmove(p, p + n + (p[n] == '\n'), strlen(p + n + (p[n] == '\n')) + 1);
			break;
		}
	return out;
}

/* An absolute path cut into its directory ("" for "/") and its last name;
 * -EINVAL with a message for anything else (a journal is read from disk). */
static int split_path(const char *path, char *dir, size_t dsize, char *base, size_t bsize)
{
	const char *slash = strrchr(path, '/');

	if (path[0] != '/' || !slash[1])
		return gf_error(-EINVAL, "'%s': not an absolute path to a file", path);
	if ((size_t)(slash - path) >= dsize || strlen(slash + 1) >= bsize)
		return gf_error(-ENAMETOOLONG, "%s: path too long", path);
	snprintf(dir, dsize, "%.*s", (int)(slash - path), path);
	gf_strlcpy(base, slash + 1, bsize);
	return 0;
}

/* The directory of path, opened inside the root; its parents made first,
 * each one journalled before it is made (revert removes it when empty). */
static int open_parent(struct tune_state *s, const char *path, bool journal, char *base, size_t size)
{
	char dir[PATH_MAX], walk[PATH_MAX], sofar[PATH_MAX] = "", *rest = walk, *name;
	int ret, fd;

	if ((ret = split_path(path, dir, sizeof(dir), base, size)))
		return ret;
	gf_strlcpy(walk, dir, sizeof(walk));	/* gf_path_next cuts it up */
	while ((name = gf_path_next(&rest))) {
		snprintf(sofar + strlen(sofar), sizeof(sofar) - strlen(sofar), "/%s", name);
		if (gf_fs_is_dir(&s->fs, sofar))
			continue;
		if (journal) {
			struct jrec r = { .kind = J_DIR, .id = "", .path = sofar, .old = "", .val = "" };

			if ((ret = journal_add(s, &r)))
				return ret;
		}
		if ((ret = tune_step("mkdir")))
			return ret;
		*strrchr(sofar, '/') = '\0';
		fd = gf_fs_open(&s->fs, sofar[0] ? sofar : "/", O_RDONLY | O_DIRECTORY);
		ret = fd < 0 || (mkdirat(fd, name, 0755) && errno != EEXIST) ? -errno : 0;
		if (fd >= 0)
			close(fd);
		snprintf(sofar + strlen(sofar), sizeof(sofar) - strlen(sofar), "/%s", name);
		if (ret) {
			char real[PATH_MAX];

			gf_fs_real(&s->fs, sofar, real, sizeof(real));
			return gf_error_errno(ret, real);
		}
	}
	fd = gf_fs_open(&s->fs, dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		char real[PATH_MAX];

		gf_fs_real(&s->fs, dir, real, sizeof(real));
		return gf_error_errno(-errno, real);
	}
	return fd;
}

static int write_tmp(int dirfd, const char *tmp, const char *data, size_t len, mode_t mode)
{
	int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode), ret = 0;

	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode))	/* the umask aside: the mode the file had */
		ret = -errno;
	while (len && !ret) {
		ssize_t w = write(fd, data, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			ret = w < 0 ? -errno : -EIO;
		else {
			data += w;
			len -= (size_t)w;
		}
	}
	if (!ret && (ret = tune_step("fsync file")) == 0 && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* What is at base may be replaced: nothing, a regular file (its mode is
 * kept), or with REPLACE_LINK a symlink (replaced, never followed). */
static int replaceable(int dirfd, const char *base, unsigned flags, const char *real, mode_t *mode)
{
	struct stat st;

	*mode = 0644;
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : gf_error_errno(-errno, real);
	if (S_ISREG(st.st_mode))
		*mode = st.st_mode & 07777;
	else if (!S_ISLNK(st.st_mode) || !(flags & REPLACE_LINK))
		return gf_error(-EINVAL, "%s: not a regular file: not replaced", real);
	return 0;
}

int root_replace(struct tune_state *s, const char *path, const char *data, size_t len, unsigned flags)
{
	char base[PATH_MAX], tmp[PATH_MAX + 16], real[PATH_MAX];
	mode_t mode;
	int dirfd, ret;

	gf_fs_real(&s->fs, path, real, sizeof(real));
	if ((dirfd = open_parent(s, path, flags & REPLACE_JOURNAL_DIRS, base, sizeof(base))) < 0)
		return dirfd;
	snprintf(tmp, sizeof(tmp), ".%s.gpufeed-tmp", base);
	unlinkat(dirfd, tmp, 0);	/* left by a crash: ours, by its name */
	if ((ret = replaceable(dirfd, base, flags, real, &mode)) || (ret = tune_step("write file")))
		goto out;
	if ((ret = write_tmp(dirfd, tmp, data, len, mode))) {
		unlinkat(dirfd, tmp, 0);
		if (!gf_tune_fault_fired)
			ret = gf_error_errno(ret, real);
		goto out;
	}
	if ((ret = tune_step("rename file")))
		goto out;
	if (renameat(dirfd, tmp, dirfd, base)) {
		ret = gf_error_errno(-errno, real);
		unlinkat(dirfd, tmp, 0);
		goto out;
	}
	if ((ret = tune_step("fsync directory")) == 0 && fsync(dirfd))
		ret = gf_error_errno(-errno, real);
out:
	close(dirfd);
	return ret;
}

int persist_unlink(struct tune_state *s, const char *path)
{
	char base[PATH_MAX], real[PATH_MAX];
	int dirfd, ret;

	gf_fs_real(&s->fs, path, real, sizeof(real));
	if ((dirfd = open_parent(s, path, false, base, sizeof(base))) < 0)
		return dirfd;
	ret = tune_step("unlink persistent file");
	if (!ret && unlinkat(dirfd, base, 0) && errno != ENOENT)
		ret = gf_error_errno(-errno, real);
	if (!ret && (ret = tune_step("fsync persistent directory")) == 0 && fsync(dirfd))
		ret = gf_error_errno(-errno, real);
	close(dirfd);
	return ret;
}

int persist_rmdir(struct tune_state *s, const char *path)
{
	char base[PATH_MAX], parent[PATH_MAX], real[PATH_MAX];
	int fd, ret;

	if ((ret = split_path(path, parent, sizeof(parent), base, sizeof(base))))
		return ret;
	gf_fs_real(&s->fs, path, real, sizeof(real));
	fd = gf_fs_open(&s->fs, parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return errno == ENOENT ? 0 : gf_error_errno(-errno, real);
	if (unlinkat(fd, base, AT_REMOVEDIR) && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
		ret = gf_error_errno(-errno, real);
	close(fd);
	return ret;
}

int root_drop_tmp(struct tune_state *s, const char *path)
{
	char parent[PATH_MAX], base[PATH_MAX], tmp[PATH_MAX + 16];
	int fd, ret;

	if ((ret = split_path(path, parent, sizeof(parent), base, sizeof(base))))
		return ret;
	snprintf(tmp, sizeof(tmp), ".%s.gpufeed-tmp", base);
	fd = gf_fs_open(&s->fs, parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return 0;
	unlinkat(fd, tmp, 0);
	close(fd);
	return 0;
}
