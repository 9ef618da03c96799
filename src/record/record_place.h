/* Putting a finished recording at its target without losing what is there:
 * checked at the start, and again, atomically, by the final rename. */
#ifndef GF_RECORD_RECORD_PLACE_H
#define GF_RECORD_RECORD_PLACE_H

#include <stdbool.h>

struct gf_place {
	const char *target;	/* DIR, or FILE.tar.gz when archive */
	bool archive;		/* the target is one .tar.gz file */
	bool force;		/* may replace a recording */
	bool existed;		/* set by gf_place_check */
	bool keep_tmp;		/* set by gf_place_move: tmp holds someone's data */
};

/* At the start: the target may be absent, an empty directory (not for an
 * archive) or, with force, a recording; else -EEXIST/-ENOTDIR/-EXDEV (a
 * mount point inside) with a message. */
int gf_place_check(struct gf_place *p);

/* At the end: renames tmp (a directory, or the archive file) to the target.
 * A target that did not exist at the start must still not exist
 * (RENAME_NOREPLACE); one that did is swapped out (RENAME_EXCHANGE), checked
 * again, removed when it may be replaced and swapped back when not.  0, or
 * -errno with tmp still ours to remove unless p->keep_tmp. */
int gf_place_move(struct gf_place *p, const char *tmp);

#endif
