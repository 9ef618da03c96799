/* The recorder mirrors what gf_fs reads into a destination tree, keeping
 * symlinks as symlinks, so the copy resolves exactly like the original. */
#ifndef GF_CORE_RECORDER_H
#define GF_CORE_RECORDER_H

#include <signal.h>
#include <stddef.h>

struct gf_fs;

struct gf_recorder {
	char dest[4096];		/* canonical destination root */
	int error;			/* first failure (-errno), 0 if none */
	char error_msg[512];
	unsigned files, links, dirs;
	unsigned long long bytes;
	volatile sig_atomic_t *cancel;	/* non-zero: stop with -EINTR */
};

int gf_rec_init(struct gf_recorder *rec, const char *dest);
/* A file was read: mirror its path and store exactly these bytes. */
void gf_rec_file(struct gf_recorder *rec, const struct gf_fs *fs, const char *path,
		 const char *data, size_t len);
/* A path was resolved or tested: mirror its directories and symlinks (and
 * the file itself when it is a regular file). */
void gf_rec_path(struct gf_recorder *rec, const struct gf_fs *fs, const char *path);
/* A directory was listed: mirror it and its entries that are links or dirs. */
void gf_rec_dir(struct gf_recorder *rec, const struct gf_fs *fs, const char *path,
		char **names, int n);
/* Copy a file or a whole (small) directory tree if it exists; used for the
 * audit files nobody reads yet.  Missing paths are skipped. */
void gf_rec_copy_tree(struct gf_recorder *rec, const struct gf_fs *fs, const char *path,
		      int max_depth);

#endif
