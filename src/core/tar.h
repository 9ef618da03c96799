/* A recording as one file: a gzip'd POSIX tar (ustar, with pax records for
 * long names) written and read by us with zlib, no tar program needed. */
#ifndef GF_CORE_TAR_H
#define GF_CORE_TAR_H

#include <stdbool.h>

/* Limits on what an archive may unpack to: a recording is a few MiB. */
#define GF_TAR_MAX_ENTRIES	1000000
#define GF_TAR_MAX_FILE		(64ull << 20)
#define GF_TAR_MAX_TOTAL	(2ull << 30)

/* Writes the tree at `dir` (directories, regular files, symlinks; anything
 * else is an error) to `path` as a .tar.gz whose entries sit under `top/`,
 * sorted, with zero times and owners (the same tree gives the same bytes).
 * Atomic: a temp file beside `path`, fsync'ed, then renamed with `place`,
 * which gets the temp path and `path` and returns 0 or -errno with a
 * message (NULL: plain rename).  0 or -errno with a message. */
int gf_tar_write(const char *dir, const char *top, const char *path,
		 int (*place)(const char *tmp, const char *path, void *arg), void *arg);

/* True when the file starts like a gzip stream or a tar archive. */
bool gf_tar_sniff(const char *path);

/* Unpacks `archive` into the existing empty directory `dest`: only regular
 * files, directories and symlinks (kept as links, whatever they point at:
 * readers resolve them inside the root); no absolute or ".." names, nothing
 * created through a link, no entry twice, sizes bounded.  A malformed,
 * truncated or hostile archive is -EBADMSG with a message naming it. */
int gf_tar_extract(const char *archive, const char *dest);

/* 1 when the archive holds a regular file `name` at its top or in its one
 * top directory, 0 when not, -errno (-EBADMSG) when it is not a sound
 * archive.  Nothing is written. */
int gf_tar_holds(const char *archive, const char *name);

#endif
