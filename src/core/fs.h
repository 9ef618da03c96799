/* Every read of the machine goes through here: a root prefix (a recording
 * directory, or "" for this machine) and an optional recorder that copies
 * what is read.  Paths are absolute machine paths such as "/sys/bus/pci". */
#ifndef GF_CORE_FS_H
#define GF_CORE_FS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct gf_recorder;

struct gf_fs {
	char root[PATH_MAX];		/* canonical, "" for this machine */
	size_t rootlen;
	struct gf_recorder *rec;	/* NULL unless recording */
};

/* root NULL or "" = this machine. -ENOENT/-ENOTDIR with a message. */
int gf_fs_init(struct gf_fs *fs, const char *root);
bool gf_fs_live(const struct gf_fs *fs);

/* Where `path` really is: root + path (for messages and opening). */
void gf_fs_real(const struct gf_fs *fs, const char *path, char *buf, size_t size);

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
bool gf_fs_exists(const struct gf_fs *fs, const char *path);
bool gf_fs_is_dir(const struct gf_fs *fs, const char *path);

void gf_strv_free(char **v, int n);

#endif
