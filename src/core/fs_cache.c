/* Shorter lookups for reading a recording.  A device's attributes are read
 * one after another from its directory, so the directory opened last is
 * kept and each file is looked up in it by name instead of walking the
 * whole path from the root again (eight components for a GPU behind two
 * switches).  And where only this user or root can change that directory,
 * a file's type is checked by name and the file opened once, instead of
 * an O_PATH open, its check, and a second open through /proc/self/fd (the
 * most expensive of the three). */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/fs_cache.h"

struct gf_fs_cache {
	atomic_bool busy;	/* one user at a time: another thread goes uncached */
	int dirfd;		/* O_PATH of `dir`, resolved inside the root, or -1 */
	char dir[PATH_MAX];	/* the machine path dirfd was opened by */
	bool dir_closed;	/* dirfd's entries change only by us or root */
	int root_closed;	/* the same for the root: -1 not known yet */
	uid_t euid;		/* who reads: the user the cache was made for */
	dev_t fs_dev;		/* the file system last asked about by local_fs() */
	int fs_local;		/* its answer; -1 none asked yet */
};

struct gf_fs_cache *gf_fs_cache_new(void)
{
	struct gf_fs_cache *c = calloc(1, sizeof(*c));

	if (c) {
		c->dirfd = -1;
		c->root_closed = -1;
		c->fs_local = -1;
		c->euid = geteuid();
	}
	return c;
}

void gf_fs_cache_free(struct gf_fs_cache *c)
{
	if (!c)
		return;
	if (c->dirfd >= 0)
		close(c->dirfd);
	free(c);
}

static bool take(struct gf_fs_cache *c)
{
	return c && !atomic_exchange(&c->busy, true);
}

static void give(struct gf_fs_cache *c)
{
	atomic_store(&c->busy, false);
}

/* Whether a directory's mode bits are the whole story of who may change
 * it: a local file system.  On NFS, CIFS, 9p or FUSE another host or a
 * daemon can change names whatever the bits say.  Asked once per device. */
static bool local_fs(struct gf_fs_cache *c, int fd, dev_t dev)
{
	struct statfs sf;

	if (c->fs_local < 0 || c->fs_dev != dev) {
		c->fs_dev = dev;
		c->fs_local = !fstatfs(fd, &sf) &&
			      (sf.f_type == EXT4_SUPER_MAGIC || sf.f_type == XFS_SUPER_MAGIC ||
			       sf.f_type == BTRFS_SUPER_MAGIC || sf.f_type == TMPFS_MAGIC);
	}
	return c->fs_local;
}

/* Whether only this user (or root) can add, remove or rename entries of
 * directory fd: on a local file system, ours, and no write bit for group
 * or others (with an ACL the group bits are its mask, so no named user or
 * group may write either).  Then a name in it cannot turn from a regular
 * file into a FIFO or a device node between our stat and our open, but by
 * our own hand. */
static bool closed_st(struct gf_fs_cache *c, int fd, const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == c->euid && !(st->st_mode & (S_IWGRP | S_IWOTH)) &&
	       local_fs(c, fd, st->st_dev);
}

static bool closed_dir(struct gf_fs_cache *c, int fd)
{
	struct stat st;

	return !fstat(fd, &st) && closed_st(c, fd, &st);
}

/* fd (of the recording's directory `dir`, a machine path that fits) as the
 * directory kept, in place of the one kept before. */
static void keep(struct gf_fs_cache *c, int fd, const char *dir, bool closed)
{
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->dirfd = fd;
	strcpy(c->dir, dir);
	c->dir_closed = closed;
}

/* The directory `path` is in, as an fd (the root's own, the one kept, or
 * newly opened inside the root and kept), *leaf pointing at the last
 * component and *closed saying closed_dir(); -1 when the last component is
 * no plain name or the directory does not open (the whole walk then says
 * why). */
static int dir_of(const struct gf_fs *fs, struct gf_fs_cache *c, const char *path, const char **leaf,
		  bool *closed)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	size_t len;
	int fd;

	if (!slash)
		return -1;
	*leaf = slash + 1;
	if (!**leaf || !strcmp(*leaf, ".") || !strcmp(*leaf, ".."))
		return -1;
	len = (size_t)(slash - path);
	if (len == 0) {
		if (c->root_closed < 0)
			c->root_closed = closed_dir(c, fs->rootfd);
		*closed = c->root_closed;
		return fs->rootfd;
	}
	if (len >= sizeof(dir))
		return -1;
	if (c->dirfd < 0 || strncmp(c->dir, path, len) || c->dir[len] != '\0') {
		memcpy(dir, path, len);
		dir[len] = '\0';
		fd = gf_fs_open(fs, dir, O_PATH | O_DIRECTORY);
		if (fd < 0)
			return -1;
		keep(c, fd, dir, closed_dir(c, fd));
	}
	*closed = c->dir_closed;
	return c->dirfd;
}

int gf_fs_cache_adopt(const struct gf_fs *fs, const char *path, int fd)
{
	struct gf_fs_cache *c = fs->cache;
	size_t len = strlen(path);
	struct stat st;

	if (!fs->rootlen || len == 0 || len >= sizeof(c->dir) || !take(c))
		return -1;
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
		give(c);
		return -1;
	}
	keep(c, fd, path, closed_st(c, fd, &st));
	give(c);
	return 0;
}

/* The O_PATH way: the leaf's own descriptor shows its type before anything
 * opens it, and /proc/self/fd opens that very inode. */
static int open_checked(int dfd, const char *leaf, struct stat *st)
{
	char proc[64];
	int pfd = openat(dfd, leaf, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd;

	if (pfd < 0)
		return errno == ENOENT ? -ENOENT : GF_FS_UNCACHED;
	if (fstat(pfd, st) || S_ISLNK(st->st_mode)) {
		close(pfd);
		return GF_FS_UNCACHED;
	}
	if (!S_ISREG(st->st_mode)) {
		close(pfd);
		return -EBADMSG;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	close(pfd);
	return fd < 0 ? GF_FS_UNCACHED : fd;
}

/* In a closed directory the type stat'ed by name is the type opened (the
 * name cannot change in between), so one open does, not an O_PATH one and
 * a second through /proc. */
static int open_closed(int dfd, const char *leaf, struct stat *st)
{
	int fd;

	if (fstatat(dfd, leaf, st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? -ENOENT : GF_FS_UNCACHED;
	if (S_ISLNK(st->st_mode))
		return GF_FS_UNCACHED;
	if (!S_ISREG(st->st_mode))
		return -EBADMSG;
	fd = openat(dfd, leaf, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? GF_FS_UNCACHED : fd;
}

/* One lookup in the directory `path` is in; the names are plain and not
 * followed, so none can lead out of that directory. */
struct lookup {
	char *buf;		/* readlink: target and its room */
	size_t size;
	struct stat *st;	/* open, stat */
	int (*op)(const struct lookup *l, int dfd, const char *leaf, bool closed);
};

/* l->op in `path`'s directory, when the cache is free and the directory
 * opens; else GF_FS_UNCACHED. */
static int in_dir(const struct gf_fs *fs, const char *path, const struct lookup *l)
{
	struct gf_fs_cache *c = fs->cache;
	const char *leaf;
	bool closed;
	int dfd, ret = GF_FS_UNCACHED;

	if (!fs->rootlen || !take(c))
		return GF_FS_UNCACHED;
	dfd = dir_of(fs, c, path, &leaf, &closed);
	if (dfd >= 0)
		ret = l->op(l, dfd, leaf, closed);
	give(c);
	return ret;
}

static int op_open(const struct lookup *l, int dfd, const char *leaf, bool closed)
{
	return closed ? open_closed(dfd, leaf, l->st) : open_checked(dfd, leaf, l->st);
}

static int op_readlink(const struct lookup *l, int dfd, const char *leaf, bool closed)
{
	ssize_t n = readlinkat(dfd, leaf, l->buf, l->size);

	(void)closed;
	if (n >= 0)
		return (int)n;
	return errno == ENOENT || errno == EINVAL ? -errno : GF_FS_UNCACHED;	/* absent; not a link */
}

static int op_stat(const struct lookup *l, int dfd, const char *leaf, bool closed)
{
	(void)closed;
	if (fstatat(dfd, leaf, l->st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? -ENOENT : GF_FS_UNCACHED;
	return S_ISLNK(l->st->st_mode) ? GF_FS_UNCACHED : 0;
}

int gf_fs_cache_open_regular(const struct gf_fs *fs, const char *path, struct stat *st)
{
	return in_dir(fs, path, &(struct lookup){ .st = st, .op = op_open });
}

int gf_fs_cache_readlink(const struct gf_fs *fs, const char *path, char *buf, size_t size)
{
	return in_dir(fs, path, &(struct lookup){ .buf = buf, .size = size, .op = op_readlink });
}

int gf_fs_cache_stat(const struct gf_fs *fs, const char *path, struct stat *st)
{
	return in_dir(fs, path, &(struct lookup){ .st = st, .op = op_stat });
}
