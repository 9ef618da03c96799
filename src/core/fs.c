/* Root-prefixed reads of /sys and /proc, tapped by the recorder. */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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
#include "core/fs_cache.h"
#include "core/recorder.h"
#include "core/rmtree.h"
#include "core/sigclean.h"
#include "core/tar.h"
#include <gpufeed/env.h>
#include "core/strutil.h"

/* /proc/cpuinfo of a 400-thread host is ~1 MiB; nothing we read is larger. */
#define GF_FS_MAX_FILE (16u << 20)

/* Unpacked archives are "gpufeed-unpack-<pid namespace>-<pid>-XXXXXX":
 * gf_fs_fini removes its own, and the next unpack removes those of
 * processes that are gone (killed before they could), in this pid
 * namespace only (a shared /tmp may hold another's live ones). */
#define UNPACK_PREFIX "gpufeed-unpack-"

static unsigned long pid_namespace(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : (unsigned long)st.st_ino;
}

/* The pid in a name of ours from namespace ns, or 0. */
static pid_t unpack_owner(const char *name, unsigned long ns)
{
	char *end;
	unsigned long n;
	long pid;

	if (strncmp(name, UNPACK_PREFIX, strlen(UNPACK_PREFIX)))
		return 0;
	name += strlen(UNPACK_PREFIX);
	n = strtoul(name, &end, 10);
	if (end == name || *end != '-' || n != ns)
		return 0;
	name = end + 1;
	pid = strtol(name, &end, 10);
	if (end == name || *end != '-' || pid <= 0 || pid > INT_MAX)
		return 0;
	return (pid_t)pid;
}

static void remove_stale_unpacks(const char *base, unsigned long ns)
{
	DIR *d = opendir(base);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		pid_t pid = unpack_owner(de->d_name, ns);
		char path[PATH_MAX];
		struct stat st;

		/* EPERM: alive, someone else's. */
		if (!pid || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
		if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		gf_rmtree(path);	/* best effort: a failure leaves it for the next one */
	}
	closedir(d);
}

/* A private directory for an unpacked archive: tmpfs when there is one
 * (a recording is thousands of small files), else $TMPDIR. */
static int make_unpack_dir(char *buf, size_t size, int *slot)
{
	const char *tmpdir = gf_env_str(GF_ENV_TMPDIR);
	const char *bases[] = { "/dev/shm", tmpdir && *tmpdir ? tmpdir : "/tmp" };
	unsigned long ns = pid_namespace();
	char msg[1024];
	int err = -EACCES;

	gf_strlcpy(msg, gf_last_error(), sizeof(msg));
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		remove_stale_unpacks(bases[i], ns);
	gf_error(0, "%s", msg);		/* what cleaning said is no news */
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		if (access(bases[i], W_OK | X_OK)) {
			err = -errno;
			continue;
		}
		snprintf(buf, size, "%s/" UNPACK_PREFIX "%lu-%ld-XXXXXX", bases[i], ns, (long)getpid());
		/* From now until gf_fs_fini, a Ctrl-C takes the copy with it. */
		if (!(err = gf_sigclean_mkdtemp(buf, slot)))
			return 0;
	}
	buf[0] = '\0';
	return gf_error_errno(err, "a temp directory to unpack the recording into");
}

/* The recording inside an unpacked archive: the archive's one top
 * directory ("hgx/" in hgx.tar.gz), or the top itself. */
static void recording_top(const char *unpacked, char *dir, size_t size)
{
	struct dirent *de;
	char only[NAME_MAX + 1] = "";
	int n = 0;
	DIR *d = opendir(unpacked);

	gf_strlcpy(dir, unpacked, size);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && n++ == 0)
			gf_strlcpy(only, de->d_name, sizeof(only));
	closedir(d);
	if (n == 1 && strcmp(only, "sys") && strcmp(only, "proc")) {
		struct stat st;

		snprintf(dir, size, "%s/%s", unpacked, only);
		if (lstat(dir, &st) || !S_ISDIR(st.st_mode))
			gf_strlcpy(dir, unpacked, size);
	}
}

static int unpack(struct gf_fs *fs)
{
	int slot, ret = make_unpack_dir(fs->unpacked, sizeof(fs->unpacked), &slot);

	if (ret)
		return ret;
	fs->sigclean = slot + 1;
	if ((ret = gf_tar_extract(fs->root, fs->unpacked)))
		return ret;
	recording_top(fs->unpacked, fs->dir, sizeof(fs->dir));
	return 0;
}

int gf_fs_init(struct gf_fs *fs, const char *root)
{
	struct stat st;
	int ret;

	memset(fs, 0, sizeof(*fs));
	fs->rootfd = -1;
	if (!root || !*root)
		return 0;
	if (stat(root, &st))
		return gf_error_errno(-errno, root);
	if (!S_ISDIR(st.st_mode) && !(S_ISREG(st.st_mode) && gf_tar_sniff(root)))
		return gf_error(-ENOTDIR, "%s: not a directory or a .tar.gz (a recording is made by 'gpufeed record')",
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
	if (S_ISREG(st.st_mode)) {
		if ((ret = unpack(fs))) {
			gf_fs_fini(fs);
			return ret;
		}
	} else {
		gf_strlcpy(fs->dir, fs->root, sizeof(fs->dir));
	}
	fs->dirlen = strlen(fs->dir);
	if (fs->dirlen > GF_FS_MAX_ROOT) {
		ret = gf_error(-ENAMETOOLONG, "%.64s...: unpacked path longer than %d bytes", fs->dir, GF_FS_MAX_ROOT);
		gf_fs_fini(fs);
		return ret;
	}
	fs->rootfd = open(fs->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fs->rootfd < 0) {
		ret = gf_error_errno(-errno, fs->root);
		gf_fs_fini(fs);
		return ret;
	}
	fs->cache = gf_fs_cache_new();	/* NULL: slower, as correct */
	return 0;
}

void gf_fs_fini(struct gf_fs *fs)
{
	gf_fs_cache_free(fs->cache);
	fs->cache = NULL;
	if (fs->rootfd >= 0)
		close(fs->rootfd);
	fs->rootfd = -1;
	if (fs->unpacked[0]) {
		char msg[1024];

		/* Cleaning up must not replace the error being reported. */
		gf_strlcpy(msg, gf_last_error(), sizeof(msg));
		gf_rmtree(fs->unpacked);
		gf_error(0, "%s", msg);
		fs->unpacked[0] = '\0';
		if (fs->sigclean)
			gf_sigclean_drop(fs->sigclean - 1);
		fs->sigclean = 0;
	}
}

bool gf_fs_live(const struct gf_fs *fs)
{
	return fs->rootlen == 0;
}

void gf_fs_real(const struct gf_fs *fs, const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", fs->root, path);
}

void gf_fs_src(const struct gf_fs *fs, const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", fs->rootlen ? fs->dir : "", path);
}

/* Directories deep enough for any sysfs path (they stay under 40). */
#define WALK_MAX_DEPTH 128
/* As the kernel's MAXSYMLINKS. */
#define WALK_MAX_LINKS 40
/* openat2 answers EAGAIN when a rename anywhere on the host raced its walk
 * of ".."; it is then tried again this many times before the walk below. */
#define OPENAT2_TRIES 16

char *gf_path_next(char **rest)
{
	char *p = *rest, *name;

	while (*p == '/')
		p++;
	if (!*p)
		return NULL;
	name = p;
	while (*p && *p != '/')
		p++;
	if (*p)
		*p++ = '\0';
	*rest = p;
	return name;
}

static bool only_slashes(const char *s)
{
	while (*s == '/')
		s++;
	return !*s;
}

/* RESOLVE_IN_ROOT done in user space: each component is looked up with
 * O_NOFOLLOW relative to a directory fd we hold, symlinks are expanded by
 * hand ("/" restarts at the root), and ".." pops our own stack, so it stops
 * at the root whatever is renamed meanwhile.  Used where openat2 is missing
 * (Linux < 5.6) or keeps answering EAGAIN. */
static int open_in_root(int rootfd, const char *rel, int flags)
{
	int stack[WALK_MAX_DEPTH], depth = 0, links = 0, fd = -1, err = 0;
	char path[PATH_MAX], *rest = path, *name;

	stack[0] = rootfd;
	if (gf_strlcpy(path, rel, sizeof(path)) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	while ((name = gf_path_next(&rest))) {
		bool last = only_slashes(rest);
		struct stat st;

		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			if (depth > 0)
				close(stack[depth--]);
			continue;
		}
		if (fstatat(stack[depth], name, &st, AT_SYMLINK_NOFOLLOW)) {
			err = errno;
			goto out;
		}
		if (S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW))) {
			char target[PATH_MAX], joined[PATH_MAX];
			ssize_t n;

			if (++links > WALK_MAX_LINKS) {
				err = ELOOP;
				goto out;
			}
			n = readlinkat(stack[depth], name, target, sizeof(target) - 1);
			if (n < 0) {
				err = errno;
				goto out;
			}
			target[n] = '\0';
			if ((size_t)snprintf(joined, sizeof(joined), "%s/%s", target, rest) >= sizeof(joined)) {
				err = ENAMETOOLONG;
				goto out;
			}
			memcpy(path, joined, sizeof(path));
			rest = path;
			if (target[0] == '/')
				while (depth > 0)
					close(stack[depth--]);
			continue;
		}
		if (last) {
			/* O_NOFOLLOW: had it become a link since fstatat, we
			 * fail rather than follow it out of the root. */
			fd = openat(stack[depth], name, flags | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				err = errno;
			goto out;
		}
		if (!S_ISDIR(st.st_mode)) {
			err = ENOTDIR;
			goto out;
		}
		if (depth + 1 >= WALK_MAX_DEPTH) {
			err = ENAMETOOLONG;
			goto out;
		}
		fd = openat(stack[depth], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			err = errno;
			goto out;
		}
		stack[++depth] = fd;
		fd = -1;
	}
	/* The path ends at a directory we hold ("", ".", "..", "dir/"). */
	fd = openat(stack[depth], ".", flags | O_CLOEXEC);
	if (fd < 0)
		err = errno;
out:
	while (depth > 0)
		close(stack[depth--]);
	errno = err;
	return err ? -1 : fd;
}

_Atomic int gf_fs_have_openat2 = 1;

/* open() of a machine path: as is for this machine, scoped inside the
 * root for a recording. */
static int fs_open(const struct gf_fs *fs, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	const char *rel = path;
	long fd = -1;

	if (!fs->rootlen)
		return open(path, flags | O_CLOEXEC);
	while (*rel == '/')
		rel++;
	if (!*rel)
		rel = ".";
	if (gf_fs_have_openat2) {
		for (int i = 0; i < OPENAT2_TRIES; i++) {
			fd = syscall(SYS_openat2, fs->rootfd, rel, &how, sizeof(how));
			if (fd >= 0 || errno != EAGAIN)
				break;
		}
		if (fd >= 0 || (errno != ENOSYS && errno != EAGAIN))
			return (int)fd;
		if (errno == ENOSYS)
			gf_fs_have_openat2 = 0;	/* old kernel: walk by hand for good */
	}
	return open_in_root(fs->rootfd, rel, flags);
}

int gf_fs_open(const struct gf_fs *fs, const char *path, int flags)
{
	return fs_open(fs, path, flags);
}

/* Absent is ENOENT or ENOTDIR (a component is a file); anything else is a
 * real failure that must not pass for "no such attribute". */
static bool absent(int err)
{
	return err == ENOENT || err == ENOTDIR;
}

/* O_PATH descriptor of a recording's `path`, its last component followed,
 * and its stat; or -errno. */
static int open_stat(const struct gf_fs *fs, const char *path, struct stat *st)
{
	int fd, err;

	fd = fs_open(fs, path, O_PATH);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* A regular file opened for reading, or -errno (-EBADMSG: not a regular
 * file).  In a recording the type is checked before the file is opened, so
 * a FIFO or a device node planted there is never opened (opening one can
 * block, or act: rewind a tape, arm a watchdog): by name in a directory
 * only this user or root can change (fs_cache.c), else on an O_PATH
 * descriptor, the file then reopened through /proc/self/fd, which opens
 * that very inode. */
static int open_regular(const struct gf_fs *fs, const char *path, struct stat *st)
{
	char proc[64];
	int pfd, fd, err;

	if (!fs->rootlen) {		/* this machine: our own /sys and /proc paths */
		fd = fs_open(fs, path, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			return -errno;
		if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
			close(fd);
			return -EBADMSG;
		}
		return fd;
	}
	fd = gf_fs_cache_open_regular(fs, path, st);
	if (fd != GF_FS_UNCACHED)
		return fd;
	pfd = open_stat(fs, path, st);
	if (pfd < 0)
		return pfd;
	if (!S_ISREG(st->st_mode)) {
		close(pfd);
		return -EBADMSG;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		struct stat again;

		/* No /proc: open by path, then make sure it is the same file. */
		fd = fs_open(fs, path, O_RDONLY | O_NONBLOCK);
		if (fd >= 0 && (fstat(fd, &again) || again.st_ino != st->st_ino || again.st_dev != st->st_dev)) {
			close(fd);
			close(pfd);
			return -EBADMSG;
		}
	}
	err = fd < 0 ? -errno : 0;
	close(pfd);
	return err ? err : fd;
}

/* Where a read buffer starts: 4 KiB, or for a recording (regular files on
 * a real file system, whose st_size is their length) room for the whole
 * file and the NUL, so that one read() takes it; a power of two either way,
 * so that the GF_FS_MAX_FILE check below meets the same sizes. */
static size_t first_cap(const struct gf_fs *fs, const struct stat *st)
{
	size_t cap = 4096;

	if (fs->rootlen && st->st_size > 0)
		while (cap < GF_FS_MAX_FILE && cap < (size_t)st->st_size + 2)
			cap *= 2;
	return cap;
}

int gf_fs_read(const struct gf_fs *fs, const char *path, char **data, size_t *len)
{
	char real[PATH_MAX];
	size_t cap, n = 0;
	struct stat st;
	char *buf;
	int fd, ret = 0;

	*data = NULL;
	if (len)
		*len = 0;
	gf_fs_real(fs, path, real, sizeof(real));
	fd = open_regular(fs, path, &st);
	if (fd < 0) {
		if (fs->rec)
			gf_rec_unread(fs->rec, fs, path);
		return fd == -EBADMSG ? gf_error(-EBADMSG, "%s: not a regular file", real) : gf_error_errno(fd, real);
	}
	cap = first_cap(fs, &st);
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return gf_error(-ENOMEM, "%s: out of memory", real);
	}
	for (;;) {
		size_t want;
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
		want = cap - n - 1;
		r = read(fd, buf + n, want);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = gf_error_errno(-errno, real);
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		/* A recording's file that gave less than asked and all its
		 * st_size is at its end: no read() for the 0 that says so. */
		if (fs->rootlen && (size_t)r < want && n == (size_t)st.st_size)
			break;
	}
	buf[n] = '\0';
	if (fs->rec)
		gf_rec_file(fs->rec, fs, path, buf, n);
out:
	close(fd);
	if (ret) {
		if (fs->rec)
			gf_rec_unread(fs->rec, fs, path);
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

/* readlink() of a path inside the root, its last component not followed:
 * the length, or -errno (-EINVAL: not a link). */
static int readlink_walk(const struct gf_fs *fs, const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = fs_open(fs, path, O_PATH | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	n = readlinkat(fd, "", buf, size);
	if (n < 0)
		n = errno == ENOENT ? -EINVAL : -errno;
	close(fd);
	return (int)n;
}

int gf_fs_readlink(const struct gf_fs *fs, const char *path, char *buf, size_t size)
{
	char real[PATH_MAX];
	int n;

	gf_fs_real(fs, path, real, sizeof(real));
	n = gf_fs_cache_readlink(fs, path, buf, size - 1);
	if (n == GF_FS_UNCACHED)
		n = readlink_walk(fs, path, buf, size - 1);
	if (n < 0)
		return gf_error_errno(n, real);
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
	if (n < 0) {
		close(fd);
		return gf_error_errno(-errno, real);
	}
	canon[n] = '\0';
	rel = canon;
	if (fs->rootlen) {
		if (strncmp(canon, fs->dir, fs->dirlen) ||
		    (canon[fs->dirlen] && canon[fs->dirlen] != '/')) {
			close(fd);
			return gf_error(-EXDEV, "%s: resolves to %s, outside the recording", real, canon);
		}
		rel = canon + fs->dirlen;
		if (!*rel)
			rel = "/";
	}
	if (strlen(rel) >= size) {
		close(fd);
		return gf_error(-ENAMETOOLONG, "%s: path too long", real);
	}
	strcpy(buf, rel);
	/* What is read next is most often inside what was just resolved (a
	 * PCI device's attributes after its sys/bus/pci/devices link): the
	 * cache keeps this descriptor rather than walk the path again. */
	if (gf_fs_cache_adopt(fs, rel, fd))
		close(fd);
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

int gf_fs_probe(const struct gf_fs *fs, const char *path, struct stat *st)
{
	char real[PATH_MAX];
	int fd, ret = gf_fs_cache_stat(fs, path, st);

	if (ret != GF_FS_UNCACHED) {
		if (ret)
			return ret;	/* -ENOENT */
		goto out;
	}
	ret = 0;
	fd = fs_open(fs, path, O_PATH);
	if (fd < 0) {
		if (absent(errno))
			return -ENOENT;
		gf_fs_real(fs, path, real, sizeof(real));
		return gf_error_errno(-errno, real);
	}
	if (fstat(fd, st)) {
		gf_fs_real(fs, path, real, sizeof(real));
		ret = gf_error_errno(-errno, real);
	}
	close(fd);
out:
	if (!ret && fs->rec)
		gf_rec_path(fs->rec, fs, path);
	return ret;
}

bool gf_fs_exists(const struct gf_fs *fs, const char *path)
{
	struct stat st;

	return gf_fs_probe(fs, path, &st) == 0;
}

bool gf_fs_is_dir(const struct gf_fs *fs, const char *path)
{
	struct stat st;

	return gf_fs_probe(fs, path, &st) == 0 && S_ISDIR(st.st_mode);
}
