/* gf_tune_run: the audit's safe fixes, each journalled before it is made. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/opts.h"
#include "core/strutil.h"
#include "tune/fault.h"
#include "tune/tune_internal.h"

struct run {
	struct tune_state s;
	struct gf_tune_options o;
	struct gf_tune_report *rep;
	/* The journal as it was (earlier tunes), then the records of this
	 * run, whose strings are the audit's and the report's (both outlive
	 * the journal). */
	struct journal j;
};

static bool journal_has(const struct run *x, enum jrec_kind kind, const char *path)
{
	for (int i = 0; i < x->j.n; i++)
		if (x->j.recs[i].kind == kind && !strcmp(x->j.recs[i].path, path))
			return true;
	return false;
}

static int add_rec(struct run *x, const struct jrec *r)
{
	struct jrec kept = *r;
	int ret;

	if ((ret = journal_add(&x->s, r)))
		return ret;
	/* Remembered so that a second entry for the path is known; its
	 * bytes are not needed again. */
	kept.raw = NULL;
	kept.rawlen = 0;
	return journal_remember(&x->j, &kept);
}

static void set_action(struct run *x, struct gf_tune_item *it, enum gf_tune_action a)
{
	x->rep->counts[it->action]--;
	x->rep->counts[it->action = a]++;
}

/* Adds the result's line to its persistent file (tune --persist). */
static int persist_one(struct run *x, const struct gf_check_result *r)
{
	struct gf_tune_item *it;
	struct jrec rec;
	char *cur = NULL, *next = NULL;
	size_t len;
	bool exists;
	int ret;

	if (!r->persist_file[0] || !r->persist_line || !r->persist_line[0])
		return 0;
	it = report_add(x->rep, GF_TUNE_APPLIED, true, r->check->id, r->subject, r->persist_file);
	if (!it || report_set(&it->value, r->persist_line))
		return gf_error(-ENOMEM, "out of memory");
	if (!persist_path_ok(r->persist_file)) {
		set_action(x, it, GF_TUNE_FAILED);
		report_note(it, "not a gpufeed file under /etc: not written");
		return 0;
	}
	if ((ret = persist_read(&x->s, r->persist_file, &cur, &len, &exists)))
		return ret;
	if (!(next = persist_add_line(cur, exists, r->persist_line))) {
		free(cur);
		return gf_error(-ENOMEM, "out of memory");
	}
	if (exists && !strcmp(next, cur)) {
		set_action(x, it, GF_TUNE_ALREADY);
	} else if (x->o.dry_run) {
		set_action(x, it, GF_TUNE_WOULD_APPLY);
	} else {
		ret = 0;
		/* The file as it was before any tune: kept from the first one. */
		if (!journal_has(x, J_FILE, r->persist_file)) {
			rec = (struct jrec){ .kind = J_FILE, .id = "", .path = r->persist_file, .old = "", .val = "",
					     .existed = exists, .raw = cur, .rawlen = len };
			ret = add_rec(x, &rec);
		}
		if (!ret) {
			rec = (struct jrec){ .kind = J_LINE, .id = "", .path = r->persist_file, .old = "",
					     .val = r->persist_line, .raw = next, .rawlen = strlen(next) };
			ret = add_rec(x, &rec);
		}
		if (!ret)
			ret = root_replace(&x->s, r->persist_file, next, strlen(next), REPLACE_JOURNAL_DIRS | REPLACE_LINK);
		if (!ret) {
			rec = (struct jrec){ .kind = J_WROTE, .id = "", .path = r->persist_file, .old = "", .val = "" };
			ret = add_rec(x, &rec);
		}
	}
	free(cur);
	free(next);
	return ret;
}

/* Journal, write, read back, journal done.  A write the kernel refuses is
 * an item that failed; a journal that cannot be written stops the run. */
static int apply_one(struct run *x, const struct gf_check_result *r)
{
	struct gf_tune_item *it = report_add(x->rep, GF_TUNE_APPLIED, false, r->check->id, r->subject, r->path);
	struct jrec rec;
	char *cur = NULL, *after = NULL, *meaning = NULL;
	size_t len;
	int ret;

	if (!it || report_set(&it->value, r->value))
		return gf_error(-ENOMEM, "out of memory");
	if (!value_path_ok(r->path)) {
		set_action(x, it, GF_TUNE_FAILED);
		report_note(it, "not a sysfs or procfs path: not written");
		return 0;
	}
	if ((ret = value_read(&x->s, r->path, &cur, &len))) {
		set_action(x, it, GF_TUNE_FAILED);
		report_note(it, "%s", gf_last_error());
		return 0;
	}
	if (!(meaning = value_meaning(cur))) {
		ret = gf_error(-ENOMEM, "out of memory");
		goto out;
	}
	free(it->old);
	it->old = meaning;
	if (value_same(cur, r->value)) {
		set_action(x, it, GF_TUNE_ALREADY);
	} else if (x->o.dry_run) {
		set_action(x, it, GF_TUNE_WOULD_APPLY);
	} else {
		/* A second tune keeps the first original: revert reads the first
		 * entry's old value, the later ones only say what was written. */
		rec = (struct jrec){ .kind = J_SET, .id = r->check->id, .path = r->path, .old = it->old,
				     .val = r->value, .raw = cur, .rawlen = len };
		if ((ret = add_rec(x, &rec)))
			goto out;
		if ((ret = tune_step("write value")))
			goto out;
		if ((ret = value_write(&x->s, r->path, r->value, cur)) || (ret = value_read(&x->s, r->path, &after, &len))) {
			if (gf_tune_fault_fired)
				goto out;	/* a crash, for the tests: the run stops */
			ret = 0;
			set_action(x, it, GF_TUNE_FAILED);
			report_note(it, "%s", gf_last_error());
			goto out;
		}
		if (!value_same(after, r->value)) {
			meaning = value_meaning(after);
			set_action(x, it, GF_TUNE_FAILED);
			report_note(it, "wrote '%s' but it reads '%s': the kernel did not take it", r->value,
				    meaning ? meaning : after);
			free(meaning);
			goto out;
		}
		rec = (struct jrec){ .kind = J_DONE, .id = "", .path = r->path, .old = "", .val = r->value };
		if ((ret = add_rec(x, &rec)))
			goto out;
	}
	if (x->o.persist)
		ret = persist_one(x, r);
out:
	free(cur);
	free(after);
	return ret;
}

static void advise(struct run *x, const struct gf_check_result *r)
{
	/* Named with --only: asked for, and it cannot be done here. */
	enum gf_tune_action a = x->o.only ? GF_TUNE_MANUAL : GF_TUNE_ADVICE;
	struct gf_tune_item *it = report_add(x->rep, a, false, r->check->id, r->subject, "");

	if (r->status == GF_CHECK_NEEDS_ROOT || r->status == GF_CHECK_ERROR)
		report_note(it, "not checked (%s): %s", gf_check_status_name(r->status), r->note);
	else if (r->fix_class == GF_FIX_NAMED)
		report_note(it, "advice: %s (gpufeed tune --only %s applies it)%s%s", r->fix, r->check->id,
			    r->persist[0] ? "; persist: " : "", r->persist);
	else if (r->fix[0])
		report_note(it, "%s%s%s%s", a == GF_TUNE_MANUAL ? "no safe fix, not applied automatically; do it by hand: "
								 : "advice: ",
			    r->fix, r->persist[0] ? "; persist: " : "", r->persist);
	else
		report_note(it, "%s: no fix known (%s)", gf_check_status_name(r->status), r->observed);
}

static int apply_all(struct run *x, const struct gf_audit *a)
{
	int ret = 0;

	for (int i = 0; i < a->nresults && !ret; i++) {
		const struct gf_check_result *r = &a->results[i];

		if (x->o.except && select_listed(x->o.except, r->check))
			continue;
		if (r->status == GF_CHECK_NA)
			continue;
		if (r->status == GF_CHECK_PASS) {
			/* Named with --only and already right: say so. */
			if (x->o.only) {
				struct gf_tune_item *it = report_add(x->rep, GF_TUNE_ALREADY, false, r->check->id,
								     r->subject, r->path);

				report_note(it, "passes: %s", r->observed);
			}
			continue;
		}
		/* A safe fix by default; a named one only when its check id
		 * (not its category) is in --only: the person asked for it. */
		if (r->fix_class == GF_FIX_SAFE ||
		    (r->fix_class == GF_FIX_NAMED && x->o.only && select_names_id(x->o.only, r->check)))
			ret = apply_one(x, r);
		else
			advise(x, r);
	}
	return ret;
}

static int check_options(struct gf_tune_options *o, const struct gf_tune_options *opts, const char *what)
{
	int ret;

	if (opts) {
		if ((ret = gf_opts_check(opts->struct_size, sizeof(*o), what, "GF_TUNE_OPTS_INIT")))
			return ret;
		gf_opts_copy(o, sizeof(*o), opts, opts->struct_size);
	}
	if (o->profile != GF_PROFILE_TRAINING && o->profile != GF_PROFILE_INFERENCE)
		return gf_arg_error(what, "profile %d is not a gf_profile", (int)o->profile);
	if (o->only && (ret = select_check(o->only, "--only")))
		return ret;
	if (o->except && (ret = select_check(o->except, "--except")))
		return ret;
	if (o->state_dir && !*o->state_dir)
		return gf_error(-EINVAL, "%s: an empty state directory", what);
	return 0;
}

int tune_options(struct gf_tune_options *o, const struct gf_tune_options *opts, const char *what)
{
	struct gf_tune_options d = GF_TUNE_OPTS_INIT;

	*o = d;
	return check_options(o, opts, what);
}

int gf_tune_run(const struct gf_tune_options *opts, struct gf_tune_report **out)
{
	struct gf_audit_options ao = GF_AUDIT_OPTS_INIT;
	struct run x = { 0 };
	struct gf_audit *a = NULL;
	int ret;

	if (!out)
		return gf_error(-EINVAL, "gf_tune_run: out is NULL");
	*out = NULL;
	if ((ret = tune_options(&x.o, opts, "gf_tune_run")) || (ret = tune_fault_begin()))
		return ret;
	ao.machine = x.o.machine;
	ao.profile = x.o.profile;
	ao.only = x.o.only;
	if ((ret = gf_audit_run(&ao, &a)))
		return ret;
	if (!(x.rep = report_new(false, x.o.dry_run))) {
		gf_audit_free(a);
		return gf_error(-ENOMEM, "out of memory");
	}
	if ((ret = tune_state_open(&x.s, &x.o, true, !x.o.dry_run)))
		goto out;
	if (!x.o.dry_run) {
		ret = journal_load(&x.s, &x.j);
		if (ret && ret != -ENOENT)
			goto close;
		tune_state_durability(&x.s, x.rep->note, sizeof(x.rep->note));
	}
	ret = apply_all(&x, a);
	if (x.s.jfd >= 0 || x.j.n)
		gf_strlcpy(x.rep->journal, x.s.journal, sizeof(x.rep->journal));
close:
	tune_state_close(&x.s);
out:
	journal_free(&x.j);
	gf_audit_free(a);
	*out = x.rep;
	return ret;
}
