/* What reading a recording keeps between reads, to spend fewer and
 * shorter lookups per file without giving up what fs.c guarantees: every
 * path resolves inside the root, and a file is opened for reading only
 * after an O_PATH descriptor of it showed a regular file. */
#ifndef GF_CORE_FS_CACHE_H
#define GF_CORE_FS_CACHE_H

#include <limits.h>

struct gf_fs;
struct stat;

/* The answer "not from the cache: walk the whole path from the root". */
#define GF_FS_UNCACHED INT_MIN

/* NULL when out of memory: every read then takes the whole walk. */
struct gf_fs_cache *gf_fs_cache_new(void);
void gf_fs_cache_free(struct gf_fs_cache *c);

/* O_PATH descriptor of `path` in the recording, its last component looked
 * up in the directory that the previous call opened when `path` is in the
 * same one.  st NULL: the last component is not followed (readlink); else
 * it is stat'ed, and a symlink answers GF_FS_UNCACHED (its target resolves
 * from the root).  -ENOENT when the directory has no such entry;
 * GF_FS_UNCACHED for anything else the whole walk must answer. */
int gf_fs_cache_open(const struct gf_fs *fs, const char *path, struct stat *st);

/* `path` in the recording opened for reading, from the directory kept as
 * above, when it is a regular file, with its stat; -EBADMSG when it is not
 * (a FIFO or device node is never opened), -ENOENT when absent,
 * GF_FS_UNCACHED for the whole walk to answer (a symlink among them).  In
 * a directory whose entries only this user or root can change, the name
 * is stat'ed and then opened; elsewhere an O_PATH descriptor shows the
 * type and /proc/self/fd opens that inode. */
int gf_fs_cache_open_regular(const struct gf_fs *fs, const char *path, struct stat *st);

#endif
