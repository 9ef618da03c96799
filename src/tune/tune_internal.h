/* Private to src/tune: the state a tune or revert holds, the journal's
 * records, and the helpers of each step (one file per job: state.c the
 * directory and its lock, journal.c the records, value.c runtime values,
 * persist.c gpufeed's files under /etc, select.c --only/--except,
 * report.c the items, apply.c tune, revert.c revert). */
#ifndef GF_TUNE_INTERNAL_H
#define GF_TUNE_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <gpufeed/tune.h>
#include "core/fs.h"

/* An open state directory: the machine (or recording) tune writes, the
 * journal's directory, locked for the whole run. */
struct tune_state {
	struct gf_fs fs;		/* values and persistent files go through it */
	int dirfd;			/* the state directory (O_RDONLY, flock'ed), -1 */
	int jfd;			/* the journal open for appending, -1 */
	char dir[PATH_MAX];		/* the state directory as this machine names it */
	char journal[PATH_MAX];		/* dir/tune.journal */
	bool own_dir;			/* the default state directory, inside the root */
};

/* gf_fs_init of the root (a directory, not an archive: tune writes into
 * it); then, unless dry_run, the state directory (made when `create`, else
 * -ENOENT when absent) locked with flock: -EBUSY with a message when
 * another tune or revert holds it.  Release with tune_state_close. */
int tune_state_open(struct tune_state *s, const struct gf_tune_options *o, bool create, bool lock);
void tune_state_close(struct tune_state *s);
/* "journal on tmpfs ..." into note when the state directory would not
 * survive a reboot, else note[0] = 0. */
void tune_state_durability(const struct tune_state *s, char *note, size_t size);

/* One journal record (docs/tune.md, "The journal"). */
enum jrec_kind {
	J_SET,		/* id path old new raw: about to write new to path */
	J_DONE,		/* path new: written and read back */
	J_DIR,		/* path: about to create this directory */
	J_FILE,		/* path existed raw: a persistent file before tune touched it */
	J_LINE,		/* path line raw: about to make the file `raw` (adds line) */
	J_WROTE,	/* path: the file is written */
	J_ROOT,		/* path: the root the journal belongs to ("/": this machine);
			 * its first record, checked and not returned by journal_load */
};
struct jrec {
	enum jrec_kind kind;
	/* Whole, however long; "" where the kind has none.  A loaded record's
	 * strings point into its journal's text. */
	const char *id;
	const char *path;
	const char *old;	/* J_SET: the value before, in its write form */
	const char *val;	/* J_SET, J_DONE: the value; J_LINE: the line */
	bool existed;		/* J_FILE */
	const char *raw;	/* J_SET: the file's bytes before; J_FILE, J_LINE: contents */
	size_t rawlen;
};
/* A journal as read: its text, cut into records in place. */
struct journal {
	char *text;
	struct jrec *recs;
	int n, cap;
};
/* Appends one record and syncs the journal (created with its header and
 * its root record, its directory synced on first use).  0 or -errno with
 * a message. */
int journal_add(struct tune_state *s, const struct jrec *r);
/* The records in order into *j (empty when there is no journal: -ENOENT);
 * -EBADMSG for a malformed line, -EPERM for a path tune does not write,
 * -EXDEV for the journal of another root (the message names both).  A
 * torn last line (no newline: a crash mid-append) is not a record: the
 * change it announced was never made. */
int journal_load(struct tune_state *s, struct journal *j);
/* Remembers a record written during this run (its strings must outlive j). */
int journal_remember(struct journal *j, const struct jrec *r);
void journal_free(struct journal *j);
/* Removes the journal and syncs its directory. */
int journal_remove(struct tune_state *s);

/* Runtime values (sysfs/procfs). */
bool value_path_ok(const char *path);
/* The value's meaning, its write form: "always [madvise] never" ->
 * "madvise"; else the text with runs of white space as one space, trimmed.
 * Malloc'ed; NULL: no memory. */
char *value_meaning(const char *text);
/* Same meaning?  (false when out of memory: the value is then written or
 * reported, never wrongly taken as unchanged) */
bool value_same(const char *a, const char *b);
/* The file's bytes (NUL-terminated); -errno with a message. */
int value_read(const struct tune_state *s, const char *path, char **raw, size_t *len);
/* Writes `value` as a write(2) to the kernel file would; in a recording the
 * file then reads as the kernel would show it (brackets moved in a choice
 * file, else value and a newline), replaced whole (root_replace). */
int value_write(struct tune_state *s, const char *path, const char *value, const char *cur);
/* A recording's file back to these exact bytes (whole: root_replace). */
int value_write_raw(struct tune_state *s, const char *path, const char *raw, size_t len);

/* gpufeed's persistent files. */
bool persist_path_ok(const char *path);
/* Current contents; *exists false and 0 when absent. */
int persist_read(const struct tune_state *s, const char *path, char **data, size_t *len, bool *exists);
/* contents with `line` added (a header first in a new file); NULL: no memory. */
char *persist_add_line(const char *contents, bool exists, const char *line);
/* contents with each of the lines removed once. */
char *persist_drop_line(const char *contents, const char *line);
int persist_unlink(struct tune_state *s, const char *path);

/* A file of the root written whole: its directory made (each directory
 * it creates journalled first with REPLACE_JOURNAL_DIRS), then a temp
 * file beside it, fsync, rename, fsync of the directory: a crash leaves
 * the old bytes or the new ones.  What is there must be a regular file
 * (its mode is kept) or, with REPLACE_LINK, a symlink (replaced). */
#define REPLACE_JOURNAL_DIRS 1u
#define REPLACE_LINK 2u
int root_replace(struct tune_state *s, const char *path, const char *data, size_t len, unsigned flags);
/* Removes the temp file a crash between write and rename left beside path. */
int root_drop_tmp(struct tune_state *s, const char *path);
/* rmdir of a directory tune made, when empty (0 also when not empty). */
int persist_rmdir(struct tune_state *s, const char *path);

/* --only / --except: names every token is a check id or a category. */
int select_check(const char *list, const char *what);
bool select_listed(const char *list, const struct gf_check_info *c);
/* Does the list name the check by its id (a category is not enough)? */
bool select_names_id(const char *list, const struct gf_check_info *c);

/* The caller's options over the defaults, checked (apply.c). */
int tune_options(struct gf_tune_options *o, const struct gf_tune_options *opts, const char *what);

/* The report. */
struct gf_tune_report *report_new(bool revert, bool dry_run);
struct gf_tune_item *report_add(struct gf_tune_report *r, enum gf_tune_action a, bool persist, const char *id,
				const char *subject, const char *path);
void report_note(struct gf_tune_item *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* *field = a copy of text (an item's old or value): 0 or -ENOMEM. */
int report_set(char **field, const char *text);

/* Hex of bytes (for the journal); NULL: no memory. */
char *hex_encode(const char *data, size_t len);
/* Decodes hex in place (the bytes, then a NUL); -EBADMSG when not hex. */
int hex_decode(char *hex, size_t *len);

#endif
