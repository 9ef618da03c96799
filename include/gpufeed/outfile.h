/* Writing a file a user named (-o FILE, check --prom FILE, a checkpoint):
 * one rule for every writer.  What is at the path decides:
 *
 *   nothing, or a regular file   written whole: a temporary file beside it,
 *                                renamed over it at the end (GF_OUTFILE_REPLACE)
 *   a character device, a FIFO   written in place, as a shell's '>' does
 *                                (/dev/null, /dev/stdout, a pipe: GF_OUTFILE_IN_PLACE)
 *   a symbolic link              followed: what it leads to decides; a link
 *                                to nothing is refused, never replaced
 *   anything else                refused: a directory, a block device, a socket
 *
 * So nothing that is not a regular file is ever renamed over, and a
 * symbolic link is never replaced (docs/exit-codes.md, "Output"). */
#ifndef GPUFEED_OUTFILE_H
#define GPUFEED_OUTFILE_H

#include <stddef.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gf_outfile_mode {
	GF_OUTFILE_REPLACE = 0,		/* a temporary file beside `real`, renamed over it */
	GF_OUTFILE_IN_PLACE = 1,	/* open `real` for writing (no O_CREAT, no O_TRUNC) */
};

/* Decides how `path` is written: *mode, and in `real` the path to write:
 * with REPLACE, the symbolic link's final target when path is one, else
 * path; with IN_PLACE, path itself (opening follows the links, /dev/stdout
 * included).  0, or -errno with a message naming path: -EISDIR, -ENOENT (a
 * link to nothing), -EINVAL (a block device, a socket), -ENAMETOOLONG, or
 * what lstat answered. */
GF_API int gf_outfile_check(const char *path, char *real, size_t size, enum gf_outfile_mode *mode);

/* Renames tmp (a temporary file beside `real`) to `real`, only over
 * nothing or a regular file: what is at `real` at that very moment is
 * checked (renameat2 RENAME_EXCHANGE, swapped back when it was not a
 * regular file, or RENAME_NOREPLACE; where the file system has no such
 * flags, a check and then rename(2)).  0, or -errno with a message naming
 * real.  Either way tmp is gone afterwards, except in the one case the
 * message names: someone's file that could not be swapped back. */
GF_API int gf_outfile_rename(const char *tmp, const char *real);

#ifdef __cplusplus
}
#endif
#endif
