/* The recorder mirrors what gf_fs reads into a destination tree, keeping
 * symlinks as symlinks, so the copy resolves exactly like the original.
 * A policy set by whoever records (gpufeed record) says what of it to keep:
 * the readers never know they are recorded. */
#ifndef GF_CORE_RECORDER_H
#define GF_CORE_RECORDER_H

#include <signal.h>
#include <stddef.h>

struct gf_fs;

/* What a recording keeps of a path that was read, probed or listed. */
enum gf_rec_keep {
	GF_REC_KEEP,		/* as it is */
	GF_REC_DROP,		/* nothing: neither its bytes nor its name */
	GF_REC_NAME,		/* its name only: a file kept empty, a link as a link */
	GF_REC_EDIT,		/* the bytes the policy's edit returns */
};

struct gf_rec_policy {
	/* Asked for every path read, probed, and every entry of a listing
	 * (DIR/NAME), as the reader named it (links not resolved).  May read
	 * through `fs` (its recorder is not called back).  NULL: keep all. */
	enum gf_rec_keep (*keep)(void *arg, const struct gf_fs *fs, const char *path);
	/* For GF_REC_EDIT: the bytes of `path` to keep (malloc'ed, *out_len),
	 * or NULL to keep nothing. */
	char *(*edit)(void *arg, const char *path, const char *data, size_t len, size_t *out_len);
	void *arg;
};

struct gf_recorder {
	char dest[4096];		/* canonical destination root */
	int error;			/* first failure (-errno), 0 if none */
	char error_msg[512];
	unsigned files, links, dirs;
	unsigned long long bytes;
	volatile sig_atomic_t *cancel;	/* non-zero: stop with -EINTR */
	struct gf_rec_policy policy;
	/* Empty files standing for the regular entries of a listing, filled
	 * when read (a tsearch tree of their destination paths). */
	void *placeholders;
};

int gf_rec_init(struct gf_recorder *rec, const char *dest);
/* Frees what the recorder keeps (not the recording). */
void gf_rec_fini(struct gf_recorder *rec);
/* A file was read: mirror its path and store exactly these bytes. */
void gf_rec_file(struct gf_recorder *rec, const struct gf_fs *fs, const char *path,
		 const char *data, size_t len);
/* A read of `path` failed (EIO, EINVAL, EACCES): the empty file a listing
 * left for it goes, so the copy says absent rather than empty. */
void gf_rec_unread(struct gf_recorder *rec, const struct gf_fs *fs, const char *path);
/* A path was resolved or tested: mirror its directories and symlinks (and
 * the file itself when it is a regular file). */
void gf_rec_path(struct gf_recorder *rec, const struct gf_fs *fs, const char *path);
/* A directory was listed: mirror it and its entries, links as links,
 * directories as directories, readable files as empty files that a later
 * read fills (so the copy lists the same names). */
void gf_rec_dir(struct gf_recorder *rec, const struct gf_fs *fs, const char *path,
		char **names, int n);

#endif
