/* gf_tune_revert: every journalled change undone, newest first; the
 * journal removed only once all of it is. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strutil.h"
#include "tune/fault.h"
#include "tune/tune_internal.h"

struct rv {
	struct tune_state s;
	struct gf_tune_options o;
	struct gf_tune_report *rep;
	struct journal j;
};

static void set_action(struct rv *x, struct gf_tune_item *it, enum gf_tune_action a)
{
	x->rep->counts[it->action]--;
	x->rep->counts[it->action = a]++;
}

/* Is `cur` a value some tune wrote (or was about to write) to path? */
static bool written_by_tune(const struct rv *x, const char *path, const char *cur)
{
	for (int i = 0; i < x->j.n; i++)
		if (x->j.recs[i].kind == J_SET && !strcmp(x->j.recs[i].path, path) && value_same(cur, x->j.recs[i].val))
			return true;
	return false;
}

static int restore_value(struct rv *x, const struct jrec *first, struct gf_tune_item *it)
{
	char *after = NULL, *meaning = NULL;
	size_t len;
	int ret;

	if ((ret = tune_step("restore value")))
		return ret;
	if (gf_fs_live(&x->s.fs))
		ret = value_write(&x->s, first->path, first->old, NULL);
	else	/* a recording: the exact bytes it had */
		ret = value_write_raw(&x->s, first->path, first->raw, first->rawlen);
	if (!ret && !(ret = value_read(&x->s, first->path, &after, &len)) && !value_same(after, first->old)) {
		meaning = value_meaning(after);
		ret = gf_error(-EIO, "wrote '%s' but it reads '%s'", first->old, meaning ? meaning : after);
	}
	free(after);
	free(meaning);
	if (ret && gf_tune_fault_fired)
		return ret;	/* a crash, for the tests: the run stops */
	if (ret) {
		set_action(x, it, GF_TUNE_FAILED);
		report_note(it, "%s", gf_last_error());
	}
	return 0;
}

static int revert_value(struct rv *x, const struct jrec *first)
{
	struct gf_tune_item *it = report_add(x->rep, GF_TUNE_RESTORED, false, first->id, "", first->path);
	char *cur = NULL, *now;
	size_t len;
	int ret;

	if (!it || report_set(&it->value, first->old))
		return gf_error(-ENOMEM, "out of memory");
	if (!gf_fs_live(&x->s.fs))
		root_drop_tmp(&x->s, first->path);	/* a write a crash cut short */
	if ((ret = value_read(&x->s, first->path, &cur, &len))) {
		set_action(x, it, GF_TUNE_FAILED);
		report_note(it, "%s", gf_last_error());
		return 0;
	}
	if (!(now = value_meaning(cur))) {
		free(cur);
		return gf_error(-ENOMEM, "out of memory");
	}
	free(it->old);
	it->old = now;
	if (value_same(cur, first->old)) {
		set_action(x, it, GF_TUNE_UNCHANGED);
		/* Same meaning; a recording gets its exact bytes back too. */
		if (!gf_fs_live(&x->s.fs) && (len != first->rawlen || memcmp(cur, first->raw, len)))
			ret = restore_value(x, first, it);
	} else if (written_by_tune(x, first->path, cur) || x->o.force) {
		if (!written_by_tune(x, first->path, cur)) {
			set_action(x, it, GF_TUNE_FORCED);
			report_note(it, "changed by someone else since tune (now '%s'): restored anyway (--force)", it->old);
		}
		ret = restore_value(x, first, it);
	} else {
		set_action(x, it, GF_TUNE_CHANGED);
		report_note(it, "changed by someone else since tune (now '%s', tune wrote another value): left alone; "
			    "'gpufeed revert --force' restores '%s'", it->old, first->old);
	}
	free(cur);
	return ret;
}

/* Did some tune write (or was about to write) exactly these contents? */
static bool file_by_tune(const struct rv *x, const char *path, const char *cur, size_t len)
{
	for (int i = 0; i < x->j.n; i++)
		if (x->j.recs[i].kind == J_LINE && !strcmp(x->j.recs[i].path, path) && x->j.recs[i].rawlen == len &&
		    !memcmp(x->j.recs[i].raw, cur, len))
			return true;
	return false;
}

/* --force on a file someone else edited: only the lines tune added go. */
static char *without_our_lines(const struct rv *x, const char *path, const char *cur)
{
	char *text = strdup(cur);

	for (int i = 0; text && i < x->j.n; i++)
		if (x->j.recs[i].kind == J_LINE && !strcmp(x->j.recs[i].path, path)) {
			char *next = persist_drop_line(text, x->j.recs[i].val);

			free(text);
			text = next;
		}
	return text;
}

static int restore_file(struct rv *x, const struct jrec *first, const char *data, size_t len, bool keep)
{
	int ret = keep || first->existed ? root_replace(&x->s, first->path, data, len, REPLACE_LINK)
					 : persist_unlink(&x->s, first->path);

	return ret;
}

/* The lines tune added to path, as the report shows them: a', 'b. */
static char *lines_of(const struct rv *x, const char *path)
{
	char *out = NULL;
	size_t len;
	bool first = true;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (int i = 0; i < x->j.n; i++)
		if (x->j.recs[i].kind == J_LINE && !strcmp(x->j.recs[i].path, path)) {
			fprintf(f, "%s%s", first ? "" : "', '", x->j.recs[i].val);
			first = false;
		}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

static int revert_file(struct rv *x, const struct jrec *first)
{
	struct gf_tune_item *it = report_add(x->rep, GF_TUNE_RESTORED, true, "", "", first->path);
	char *cur = NULL, *rest = NULL, *lines;
	size_t len;
	bool exists;
	int ret;

	if (!it || !(lines = lines_of(x, first->path)))
		return gf_error(-ENOMEM, "out of memory");
	free(it->value);
	it->value = lines;
	root_drop_tmp(&x->s, first->path);
	if ((ret = persist_read(&x->s, first->path, &cur, &len, &exists))) {
		set_action(x, it, GF_TUNE_FAILED);
		report_note(it, "%s", gf_last_error());
		return 0;
	}
	if (exists == first->existed && (!exists || (len == first->rawlen && !memcmp(cur, first->raw, len)))) {
		set_action(x, it, GF_TUNE_UNCHANGED);
	} else if (exists && file_by_tune(x, first->path, cur, len)) {
		ret = restore_file(x, first, first->raw, first->rawlen, false);
		report_note(it, first->existed ? "its previous contents are back" : "removed (tune created it)");
	} else if (x->o.force && exists) {
		set_action(x, it, GF_TUNE_FORCED);
		if (!(rest = without_our_lines(x, first->path, cur)))
			ret = gf_error(-ENOMEM, "out of memory");
		else
			ret = restore_file(x, first, rest, strlen(rest), true);
		report_note(it, "edited by someone else since tune: only tune's lines removed (--force)");
	} else {
		set_action(x, it, GF_TUNE_CHANGED);
		report_note(it, "%s by someone else since tune: left alone; 'gpufeed revert --force' removes only "
			    "tune's lines", exists ? "edited" : "removed");
	}
	if (ret && !gf_tune_fault_fired) {
		set_action(x, it, GF_TUNE_FAILED);
		report_note(it, "%s", gf_last_error());
		ret = 0;
	}
	free(cur);
	free(rest);
	return ret;
}

static bool seen_before(const struct rv *x, int i)
{
	for (int j = 0; j < i; j++)
		if (x->j.recs[j].kind == x->j.recs[i].kind && !strcmp(x->j.recs[j].path, x->j.recs[i].path))
			return true;
	return false;
}

/* Newest first: the first record of each path, walked backwards. */
static int revert_all(struct rv *x)
{
	int ret = 0;

	for (int i = x->j.n - 1; i >= 0 && !ret; i--) {
		if ((x->j.recs[i].kind != J_SET && x->j.recs[i].kind != J_FILE) || seen_before(x, i))
			continue;
		ret = x->j.recs[i].kind == J_SET ? revert_value(x, &x->j.recs[i]) : revert_file(x, &x->j.recs[i]);
	}
	if (ret || gf_tune_undone(x->rep))
		return ret;
	for (int i = x->j.n - 1; i >= 0 && !ret; i--)
		if (x->j.recs[i].kind == J_DIR)
			ret = persist_rmdir(&x->s, x->j.recs[i].path);
	if (ret || (ret = journal_remove(&x->s)))
		return ret;
	x->rep->journal_removed = true;
	return 0;
}

int gf_tune_revert(const struct gf_tune_options *opts, struct gf_tune_report **out)
{
	struct rv x = { 0 };
	int ret;

	if (!out)
		return gf_error(-EINVAL, "gf_tune_revert: out is NULL");
	*out = NULL;
	if ((ret = tune_options(&x.o, opts, "gf_tune_revert")) || (ret = tune_fault_begin()))
		return ret;
	if (!(x.rep = report_new(true, false)))
		return gf_error(-ENOMEM, "out of memory");
	*out = x.rep;
	if ((ret = tune_state_open(&x.s, &x.o, false, true)))
		return ret == -ENOENT ? 0 : ret;	/* no state directory: nothing was tuned */
	ret = journal_load(&x.s, &x.j);
	if (!ret) {
		gf_strlcpy(x.rep->journal, x.s.journal, sizeof(x.rep->journal));
		ret = revert_all(&x);
	} else if (ret == -ENOENT) {
		ret = 0;
	}
	tune_state_close(&x.s);
	journal_free(&x.j);
	return ret;
}
