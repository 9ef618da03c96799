/* rm -rf that stays on one mount.  A mount point inside a recording (a
 * tmpfs, or a bind mount of the same file system, which has the same
 * st_dev) is found by its mount id (statx STATX_MNT_ID, Linux 5.8), else by
 * st_dev, and the whole removal is refused before anything goes.
 * gf_rmtree_signal_safe is the walk a signal handler may do (sigclean.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/error.h"
#include "core/rmtree.h"

struct mount_key {
	unsigned long long dev, mnt_id;
};

/* The mount `name` (in dirfd) lives on, and its type. */
static int mount_of(int dirfd, const char *name, struct mount_key *k, mode_t *mode)
{
	struct statx stx;
	struct stat st;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_TYPE | STATX_MNT_ID, &stx) == 0) {
		k->dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
		k->mnt_id = (stx.stx_mask & STATX_MNT_ID) ? stx.stx_mnt_id : 0;
		*mode = stx.stx_mode;
		return 0;
	}
	if (errno != ENOSYS)
		return -errno;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	k->dev = st.st_dev;
	k->mnt_id = 0;
	*mode = st.st_mode;
	return 0;
}

struct walk {
	struct mount_key top;
	bool remove;
	const char *name;		/* for messages: the path as the user knows it */
	char path[PATH_MAX];		/* relative path of what is visited */
};

static int walk_dir(struct walk *w, int dirfd, int depth)
{
	size_t len = strlen(w->path);
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (depth > GF_RMTREE_MAX_DEPTH)
		return gf_error(-ELOOP, "%s%s: nested too deep to remove", w->name, w->path);
	d = fdopendir(dirfd);
	if (!d) {
		ret = gf_error_errno(-errno, w->name);
		close(dirfd);
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		struct mount_key k;
		mode_t mode;
		int fd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(w->path + len, sizeof(w->path) - len, "/%s", de->d_name);
		if ((ret = mount_of(dirfd, de->d_name, &k, &mode))) {
			ret = gf_error_errno(ret, w->path);
			break;
		}
		if (S_ISDIR(mode)) {
			if (k.dev != w->top.dev || k.mnt_id != w->top.mnt_id) {
				ret = gf_error(-EXDEV, "%s%s: a mount point inside; not removing across it (unmount it first)",
					       w->name, w->path);
				break;
			}
			fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				ret = gf_error_errno(-errno, w->path);
				break;
			}
			if ((ret = walk_dir(w, fd, depth + 1)))
				break;
		}
		if (w->remove && unlinkat(dirfd, de->d_name, S_ISDIR(mode) ? AT_REMOVEDIR : 0) && errno != ENOENT) {
			ret = gf_error_errno(-errno, w->path);
			break;
		}
	}
	w->path[len] = '\0';
	closedir(d);
	return ret;
}

static int walk(const char *path, const char *name, bool remove)
{
	struct walk w = { .remove = remove, .name = name };
	mode_t mode;
	int fd, ret;

	if ((ret = mount_of(AT_FDCWD, path, &w.top, &mode)))
		return ret == -ENOENT ? 0 : gf_error_errno(ret, name);
	if (!S_ISDIR(mode)) {
		if (remove && unlink(path) && errno != ENOENT)
			return gf_error_errno(-errno, name);
		return 0;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return gf_error_errno(-errno, name);
	if ((ret = walk_dir(&w, fd, 0)))
		return ret;
	if (remove && rmdir(path) && errno != ENOENT)
		return gf_error_errno(-errno, name);
	return 0;
}

int gf_rmtree_check(const char *path, const char *name)
{
	return walk(path, name, false);
}

int gf_rmtree(const char *path)
{
	int ret = walk(path, path, false);

	return ret ? ret : walk(path, path, true);
}

/* Removes what `fd` (the directory at rel under the top) holds but its
 * non-empty subdirectories; opens the first of those into *sub (-1: none
 * left).  0 or -errno. */
static int empty_dir(int fd, dev_t dev, int *sub, char *rel, size_t *len)
{
	char buf[2048];
	ssize_t n;

	*sub = -1;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);
			const char *name = de->d_name;
			bool dir = de->d_type == DT_DIR;
			struct stat st;
			size_t nlen;

			off += de->d_reclen;
			if (!strcmp(name, ".") || !strcmp(name, ".."))
				continue;
			if (de->d_type == DT_UNKNOWN) {
				if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW))
					return errno == ENOENT ? 0 : -errno;
				dir = S_ISDIR(st.st_mode);
			}
			if (!unlinkat(fd, name, dir ? AT_REMOVEDIR : 0) || errno == ENOENT)
				continue;
			if (!dir || (errno != ENOTEMPTY && errno != EEXIST))
				return -errno;
			nlen = strlen(name);
			if (*len + 1 + nlen >= PATH_MAX)
				return -ENAMETOOLONG;
			*sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (*sub < 0)
				return -errno;
			if (fstat(*sub, &st) || st.st_dev != dev) {
				close(*sub);
				*sub = -1;
				return -EXDEV;
			}
			rel[(*len)++] = '/';
			memcpy(rel + *len, name, nlen + 1);
			*len += nlen;
			return 0;
		}
	}
	return n < 0 ? -errno : 0;
}

int gf_rmtree_signal_safe(const char *path)
{
	char rel[PATH_MAX];	/* "/a/b": where fd is, below path */
	size_t len = 0;
	struct stat top;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &top)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	rel[0] = '\0';
	for (;;) {
		int sub, up;
		char *slash;

		if ((ret = empty_dir(fd, top.st_dev, &sub, rel, &len)))
			break;
		if (sub >= 0) {
			close(fd);
			fd = sub;
			continue;
		}
		if (!len)
			break;		/* the top is empty */
		/* Up one level, and remove the directory just emptied. */
		up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (up < 0) {
			ret = -errno;
			break;
		}
		close(fd);
		fd = up;
		slash = strrchr(rel, '/');
		if (unlinkat(fd, slash + 1, AT_REMOVEDIR) && errno != ENOENT) {
			ret = -errno;
			break;
		}
		*slash = '\0';
		len = (size_t)(slash - rel);
	}
	close(fd);
	if (!ret && rmdir(path) && errno != ENOENT)
		ret = -errno;
	return ret;
}
