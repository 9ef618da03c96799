/* `gpufeed tune` and `gpufeed revert`: apply the audit's safe fixes, and
 * undo exactly what was applied.
 *
 * A safe fix (GF_FIX_SAFE in <gpufeed/audit.h>) is a write of one value to
 * one sysfs/procfs file: runtime, reversible, no reboot, no GPU state, no
 * service restart.  Before each write the previous value (in the form a
 * write takes: "madvise", not "always [madvise] never") goes into a journal
 * on disk, synced, so that gf_tune_revert restores the machine even after
 * a kill -9 half-way through or a reboot (docs/tune.md).  A lock keeps two
 * tunes, or a tune and a revert, from running at once. */
#ifndef GPUFEED_TUNE_H
#define GPUFEED_TUNE_H

#include <stdbool.h>
#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/audit.h>

#ifdef __cplusplus
extern "C" {
#endif

/* First line of the journal (docs/tune.md, "The journal"). */
#define GF_TUNE_JOURNAL_SCHEMA "gpufeed-tune-journal/2"
/* Where the journal lives (under the root with a recording). */
#define GF_TUNE_STATE_DIR "/var/lib/gpufeed"
#define GF_TUNE_JOURNAL "tune.journal"

struct gf_tune_options {
	size_t struct_size;
	/* The machine (NULL: this one, the defaults): with a recording's root
	 * every read and write stays in the recording. */
	const struct gf_topo_options *machine;
	enum gf_profile profile;
	/* Comma-separated check ids or categories.  only: just these (a
	 * named check without a safe fix is reported as not applicable
	 * automatically); except: all but these.  NULL: none. */
	const char *only;
	const char *except;
	/* The journal's directory; NULL: GF_TUNE_STATE_DIR (inside the root
	 * with a recording).  Given, it is a path of this machine. */
	const char *state_dir;
	bool dry_run;			/* tune: say what would change, write nothing */
	bool persist;			/* tune: also add the lines to gpufeed's files under /etc */
	bool force;			/* revert: restore values changed since tune too */
	/* New fields go here, at the end. */
};

#define GF_TUNE_OPTS_INIT \
	{ .struct_size = sizeof(struct gf_tune_options), .machine = NULL, .profile = GF_PROFILE_TRAINING, .only = NULL, .except = NULL, \
	  .state_dir = NULL, .dry_run = false, .persist = false, .force = false }

/* What happened to one value or one persistent file. */
enum gf_tune_action {
	GF_TUNE_APPLIED = 0,	/* tune wrote the new value (or the line) */
	GF_TUNE_WOULD_APPLY,	/* --dry-run: would write it */
	GF_TUNE_ALREADY,	/* already at the value: nothing written */
	GF_TUNE_ADVICE,		/* no safe fix: the advice, for a person */
	GF_TUNE_MANUAL,		/* named with --only, but no safe fix: not applied */
	GF_TUNE_FAILED,		/* the write failed or did not take */
	GF_TUNE_RESTORED,	/* revert wrote the original value back */
	GF_TUNE_UNCHANGED,	/* revert: already at the original value */
	GF_TUNE_CHANGED,	/* revert: changed by someone else since tune: left alone */
	GF_TUNE_FORCED,		/* revert --force: restored over such a change */
	GF_TUNE_NACTIONS
};
/* "applied", "would-apply", ... as the JSON writes them; "?" out of range. */
GF_API const char *gf_tune_action_name(enum gf_tune_action a);
/* The actions that leave something undone (exit 1): manual, failed,
 * changed (false out of range). */
GF_API bool gf_tune_action_undone(enum gf_tune_action a);

/* path, old, value and note are whole, however long (a reserved-ports
 * list), never NULL, and owned by the report (gf_tune_report_free). */
struct gf_tune_item {
	enum gf_tune_action action;
	bool persist;			/* a persistent file, not a runtime value */
	char id[64];			/* the check ("mem.swappiness"), "" for a file */
	char subject[64];
	char *path;			/* the machine path or the persistent file */
	char *old;			/* the value before (write form), "" when none */
	char *value;			/* the value written, or the line added */
	char *note;			/* advice, the reason of a failure, who changed it */
};

struct gf_tune_report {
	bool revert;			/* made by gf_tune_revert */
	bool dry_run;
	char journal[4096];		/* the journal's path, as this machine names it */
	char note[256];			/* e.g. the journal is on tmpfs: a reboot loses it */
	struct gf_tune_item *items;
	int nitems;
	int counts[GF_TUNE_NACTIONS];
	bool journal_removed;		/* revert: everything restored and the journal gone */
};

/* Runs the audit and applies the safe fixes.  0 with *out set; -errno with
 * gf_last_error() when the run could not go on (the lock is held: -EBUSY;
 * the journal could not be written: nothing more is changed), *out then
 * holds what was done before (may be NULL).  A single value that could
 * not be written is an item GF_TUNE_FAILED, not a failure of the run. */
GF_API int gf_tune_run(const struct gf_tune_options *opts, struct gf_tune_report **out);
/* Restores everything the journal holds, newest first, and removes the
 * journal once all is restored.  No journal: 0 and an empty report. */
GF_API int gf_tune_revert(const struct gf_tune_options *opts, struct gf_tune_report **out);
/* NULL does nothing. */
GF_API void gf_tune_report_free(struct gf_tune_report *r);
/* Items at an action that leaves something undone; -EINVAL for r NULL. */
GF_API int gf_tune_undone(const struct gf_tune_report *r);
/* Human text: one line per item (only_undone: only those left undone),
 * then a summary.  0, -EIO when writing failed, -EINVAL for r or f NULL. */
GF_API int gf_tune_print(const struct gf_tune_report *r, FILE *f, bool only_undone);
/* The same fitted to width columns (0: GF_PRINT_WIDTH_DEFAULT, 100), each
 * item's text wrapped under its start; gf_tune_print is width 0.  -EINVAL
 * also for a negative width. */
GF_API int gf_tune_print_width(const struct gf_tune_report *r, FILE *f, bool only_undone, int width);

#ifdef __cplusplus
}
#endif
#endif
