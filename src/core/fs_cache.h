/* What reading a recording keeps between reads, to spend fewer and
 * shorter lookups per file without giving up what fs.c guarantees: every
 * path resolves inside the root, and a file is opened for reading only
 * once it was seen to be a regular file, where no one else can swap it
 * for a FIFO or a device node before the open. */
#ifndef GF_CORE_FS_CACHE_H
#define GF_CORE_FS_CACHE_H

#include <limits.h>
#include <stddef.h>

struct gf_fs;
struct stat;

/* The answer "not from the cache: walk the whole path from the root". */
#define GF_FS_UNCACHED INT_MIN

/* NULL when out of memory: every read then takes the whole walk. */
struct gf_fs_cache *gf_fs_cache_new(void);
void gf_fs_cache_free(struct gf_fs_cache *c);

/* stat() of `path` in the recording, its last component looked up in the
 * directory that the previous call (of any of these) opened when `path` is
 * in the same one: 0, -ENOENT when the directory has no such entry,
 * GF_FS_UNCACHED for anything else the whole walk must answer (a symlink
 * among them: its target resolves from the root). */
int gf_fs_cache_stat(const struct gf_fs *fs, const char *path, struct stat *st);

/* readlinkat() of `path`'s last component in the directory kept as above:
 * the length, -ENOENT (absent), -EINVAL (not a link) or GF_FS_UNCACHED. */
int gf_fs_cache_readlink(const struct gf_fs *fs, const char *path, char *buf, size_t size);

/* `path` in the recording opened for reading, from the directory kept as
 * above, when it is a regular file, with its stat; -EBADMSG when it is not
 * (a FIFO or device node is never opened), -ENOENT when absent,
 * GF_FS_UNCACHED for the whole walk to answer (a symlink among them).  In
 * a directory whose entries only this user or root can change (ours, no
 * group or other write bit, on a local file system), the name is stat'ed
 * and then opened; elsewhere an O_PATH descriptor shows the
 * type and /proc/self/fd opens that inode. */
int gf_fs_cache_open_regular(const struct gf_fs *fs, const char *path, struct stat *st);

/* Keep fd, a descriptor of the recording's directory `path` (a machine
 * path, as gf_fs_resolve gives it) that the caller opened inside the root,
 * as the directory the next lookups start from: 0 when taken (the cache
 * closes it), -1 when not (not a directory, the cache busy or absent, this
 * machine): the caller closes it. */
int gf_fs_cache_adopt(const struct gf_fs *fs, const char *path, int fd);

#endif
