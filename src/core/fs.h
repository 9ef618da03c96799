/* Every read of the machine goes through here: a root (a recording
 * directory, or "" for this machine) and an optional recorder that copies
 * what is read.  Paths are absolute machine paths such as "/sys/bus/pci".
 *
 * Under a root, every path resolves inside it as if chroot'ed there
 * (openat2 RESOLVE_IN_ROOT, retried when a rename elsewhere on the host
 * makes it answer EAGAIN, else the same walk done in user space): "..",
 * absolute and relative symlinks cannot leave the recording, and only
 * regular files are opened for reading (a FIFO or device node planted in a
 * recording is refused before it is opened). */
#ifndef GF_CORE_FS_H
#define GF_CORE_FS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct gf_recorder;
struct gf_fs_cache;

struct gf_fs {
	char root[PATH_MAX];		/* canonical, "" for this machine; the
					 * archive's path for a .tar.gz (messages) */
	size_t rootlen;
	char dir[PATH_MAX];		/* the directory read: root, or where the
					 * archive was unpacked */
	size_t dirlen;
	int rootfd;			/* O_PATH of dir, -1 for this machine */
	char unpacked[PATH_MAX];	/* private temp dir to remove, or "" */
	int sigclean;			/* its gf_sigclean_add slot + 1, 0 none */
	struct gf_recorder *rec;	/* NULL unless recording */
	struct gf_fs_cache *cache;	/* a recording's open directory and
					 * /proc/self/fd (fs_cache.c), or NULL */
};

/* Longest root we accept, so that root + machine path always fits. */
#define GF_FS_MAX_ROOT (PATH_MAX - 1024)

/* root NULL or "" = this machine; a directory; or a .tar.gz (or .tar) made
 * by 'gpufeed record', unpacked into a private temp dir (under /dev/shm when
 * writable, else $TMPDIR) that gf_fs_fini removes, as does SIGINT, SIGTERM
 * or SIGHUP ending the process before (core/sigclean.h); one left by a
 * process killed outright is removed by the next unpack.  -ENOENT/-ENOTDIR/
 * -ENAMETOOLONG/-EBADMSG with a message.  Release with gf_fs_fini (copies
 * of the struct share the fd, the cache and the temp dir). */
int gf_fs_init(struct gf_fs *fs, const char *root);
void gf_fs_fini(struct gf_fs *fs);
bool gf_fs_live(const struct gf_fs *fs);

/* How messages name `path`: root + path (archive + path for a .tar.gz). */
void gf_fs_real(const struct gf_fs *fs, const char *path, char *buf, size_t size);
/* Where `path` is on disk: dir + path (for code that opens it itself). */
void gf_fs_src(const struct gf_fs *fs, const char *path, char *buf, size_t size);

/* open() of a machine path for code that writes (gpufeed tune): as is on
 * this machine, resolved inside the root for a recording, so no "..", or
 * symlink leaves it.  The fd, or -1 with errno. */
int gf_fs_open(const struct gf_fs *fs, const char *path, int flags);

/* Whole file, NUL-terminated; caller frees *data.  Absent = -ENOENT. */
int gf_fs_read(const struct gf_fs *fs, const char *path, char **data, size_t *len);
/* Whole file into buf with trailing white space removed; -EOVERFLOW if longer. */
int gf_fs_read_str(const struct gf_fs *fs, const char *path, char *buf, size_t size);
/* One integer (decimal, or 0x hex); -EBADMSG with a message naming the file. */
int gf_fs_read_ll(const struct gf_fs *fs, const char *path, long long *v);
int gf_fs_readlink(const struct gf_fs *fs, const char *path, char *buf, size_t size);
/* Canonical machine path of `path` (symlinks resolved inside the root). */
int gf_fs_resolve(const struct gf_fs *fs, const char *path, char *buf, size_t size);
/* Sorted entry names (no "." or ".."); free with gf_strv_free(). */
int gf_fs_list(const struct gf_fs *fs, const char *path, char ***names, int *n);
/* stat() of a path (followed inside the root): 0, -ENOENT when absent (also
 * ENOTDIR: a component is a file), or another -errno with a message naming
 * the file; a failure is never reported as absent. */
struct stat;
int gf_fs_probe(const struct gf_fs *fs, const char *path, struct stat *st);
/* Shorthands of gf_fs_probe for where any failure may read as "no". */
bool gf_fs_exists(const struct gf_fs *fs, const char *path);
bool gf_fs_is_dir(const struct gf_fs *fs, const char *path);

void gf_strv_free(char **v, int n);

/* Splits a path in place: the next component of *rest (leading "/"
 * skipped, the "/" after it cut), or NULL at the end. */
char *gf_path_next(char **rest);

/* 1 until openat2 answers ENOSYS; tests set it to 0 to exercise the walk
 * done in user space. */
extern _Atomic int gf_fs_have_openat2;

#endif
