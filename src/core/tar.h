/* A recording as one file: a gzip'd POSIX tar (ustar, with pax records for
 * long names) written and read by us with zlib, no tar program needed. */
#ifndef GF_CORE_TAR_H
#define GF_CORE_TAR_H

#include <stdbool.h>

/* Limits on what an archive may unpack to.  A recording of a 224-thread
 * 8-GPU host is 26,000 entries, 13 levels deep and 26 MiB unpacked; a
 * 790 KB archive of empty directories could otherwise fill /dev/shm. */
#define GF_TAR_MAX_DEPTH	64		/* names of at most 64 components */
#define GF_TAR_MAX_ENTRIES	250000		/* headers, long-name records included */
#define GF_TAR_MAX_FILE		(64ull << 20)	/* bytes of one file */
#define GF_TAR_MAX_TOTAL	(1ull << 30)	/* headers and data, in 512-byte blocks */

struct gf_tar_limits {
	unsigned depth;
	unsigned long entries;
	unsigned long long file, total;
};
#define GF_TAR_LIMITS_DEFAULT { GF_TAR_MAX_DEPTH, GF_TAR_MAX_ENTRIES, GF_TAR_MAX_FILE, GF_TAR_MAX_TOTAL }

/* Writes the tree at `dir` (directories, regular files, symlinks; anything
 * else is an error) to `path` as a .tar.gz whose entries sit under `top/`,
 * sorted, with zero times and owners (the same tree gives the same bytes).
 * A tree beyond the limits above is -EFBIG, naming the limit: the reader
 * would refuse the archive.
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
 * created through a link, no entry twice, within the limits above.  The
 * gzip stream must end with its trailer (CRC and length) and the file with
 * it; after tar's end marker only zeros may follow.  A malformed,
 * truncated or hostile archive is -EBADMSG with a message naming it (what
 * was unpacked before is left in dest for the caller to remove). */
int gf_tar_extract(const char *archive, const char *dest);
/* The same with other limits (tests). */
int gf_tar_extract_within(const char *archive, const char *dest, const struct gf_tar_limits *lim);

/* 1 when the archive holds a regular file `name` at its top or in its one
 * top directory, 0 when not, -errno (-EBADMSG) when it is not a sound
 * archive.  Nothing is written. */
int gf_tar_holds(const char *archive, const char *name);

/* For readers of plain tar streams (gpufeed pack's WebDataset input): an
 * octal header field (NUL or space terminated), -1 when malformed; and
 * whether a 512-byte header block's checksum is right. */
long long gf_tar_octal(const char *f, size_t size);
bool gf_tar_checksum_ok(const void *block);
/* Fills a header block's checksum field (its other fields set). */
void gf_tar_set_checksum(void *block);

#endif
