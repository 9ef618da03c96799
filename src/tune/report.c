/* What tune or revert did, item by item, and its text form. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strutil.h"
#include "core/wrap.h"
#include "tune/tune_internal.h"

const char *gf_tune_action_name(enum gf_tune_action a)
{
	static const char *const names[GF_TUNE_NACTIONS] = {
		"applied", "would-apply", "already", "advice", "manual", "failed",
		"restored", "unchanged", "changed", "forced",
	};

	return (unsigned)a < GF_TUNE_NACTIONS ? names[a] : "?";
}

bool gf_tune_action_undone(enum gf_tune_action a)
{
	return a == GF_TUNE_MANUAL || a == GF_TUNE_FAILED || a == GF_TUNE_CHANGED;
}

struct gf_tune_report *report_new(bool revert, bool dry_run)
{
	struct gf_tune_report *r = calloc(1, sizeof(*r));

	if (r) {
		r->revert = revert;
		r->dry_run = dry_run;
	}
	return r;
}

static void item_free(struct gf_tune_item *it)
{
	free(it->path);
	free(it->old);
	free(it->value);
	free(it->note);
}

struct gf_tune_item *report_add(struct gf_tune_report *r, enum gf_tune_action a, bool persist, const char *id,
				const char *subject, const char *path)
{
	struct gf_tune_item *items = realloc(r->items, sizeof(*items) * (size_t)(r->nitems + 1)), *it;

	if (!items)
		return NULL;
	r->items = items;
	it = &items[r->nitems];
	memset(it, 0, sizeof(*it));
	it->path = strdup(path ? path : "");
	it->old = strdup("");
	it->value = strdup("");
	it->note = strdup("");
	if (!it->path || !it->old || !it->value || !it->note) {
		item_free(it);
		return NULL;
	}
	r->nitems++;
	it->action = a;
	it->persist = persist;
	gf_strlcpy(it->id, id ? id : "", sizeof(it->id));
	gf_strlcpy(it->subject, subject ? subject : "", sizeof(it->subject));
	r->counts[a]++;
	return it;
}

int report_set(char **field, const char *text)
{
	char *copy = strdup(text ? text : "");

	if (!copy)
		return gf_error(-ENOMEM, "out of memory");
	free(*field);
	*field = copy;
	return 0;
}

void report_note(struct gf_tune_item *it, const char *fmt, ...)
{
	va_list ap;
	char *note;
	int n;

	if (!it)
		return;
	va_start(ap, fmt);
	n = vasprintf(&note, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;		/* no memory: the note stays as it was */
	free(it->note);
	it->note = note;
}

void gf_tune_report_free(struct gf_tune_report *r)
{
	for (int i = 0; r && i < r->nitems; i++)
		item_free(&r->items[i]);
	if (r)
		free(r->items);
	free(r);
}

int gf_tune_undone(const struct gf_tune_report *r)
{
	int n = 0;

	if (!r)
		return GF_NULL_ARG("r");
	for (int a = 0; a < GF_TUNE_NACTIONS; a++)
		if (gf_tune_action_undone((enum gf_tune_action)a))
			n += r->counts[a];
	return n;
}

/* "action      id [subject]             TEXT": TEXT starts at this column. */
#define TEXT_COL 37

static void print_item(const struct gf_tune_item *it, FILE *f, int width)
{
	char name[140], text[8192];
	int col;

	snprintf(name, sizeof(name), "%s%s%s%s", it->persist ? "persist" : it->id, it->subject[0] ? " [" : "",
		 it->subject, it->subject[0] ? "]" : "");
	col = fprintf(f, "%-11s %-24s ", gf_tune_action_name(it->action), name);
	if (col > TEXT_COL) {	/* a long name: its text on the next line, in its column */
		fprintf(f, "\n%*s", TEXT_COL, "");
		col = TEXT_COL;
	}
	if (it->persist)
		snprintf(text, sizeof(text), "%s: %s '%s'", it->path,
			 it->action == GF_TUNE_RESTORED || it->action == GF_TUNE_FORCED ||
					 it->action == GF_TUNE_UNCHANGED || it->action == GF_TUNE_CHANGED
				 ? "line"
				 : "+",
			 it->value);
	else if (it->old[0] || it->value[0])
		snprintf(text, sizeof(text), "%s: %s -> %s", it->path, it->old[0] ? it->old : "?",
			 it->value[0] ? it->value : "?");
	else
		snprintf(text, sizeof(text), "%s", it->path);
	if (it->note[0] && it->path[0]) {
		gf_wrap_print(f, text, col, TEXT_COL, width);
		fprintf(f, "%*s", TEXT_COL, "");
		gf_wrap_print(f, it->note, TEXT_COL, TEXT_COL, width);
		return;
	}
	if (it->note[0])
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s", it->note);
	gf_wrap_print(f, text, col, TEXT_COL, width);
}

static int print_report(const struct gf_tune_report *r, FILE *f, bool only_undone, int width);

int gf_tune_print(const struct gf_tune_report *r, FILE *f, bool only_undone)
{
	if (!r || !f)
		return GF_NULL_ARG(!r ? "r" : "f");
	return print_report(r, f, only_undone, 0);
}

int gf_tune_print_width(const struct gf_tune_report *r, FILE *f, bool only_undone, int width)
{
	if (!r || !f)
		return GF_NULL_ARG(!r ? "r" : "f");
	if (width < 0)
		return gf_arg_error(__func__, "width %d is negative", width);
	return print_report(r, f, only_undone, width);
}

static int print_report(const struct gf_tune_report *r, FILE *f, bool only_undone, int width)
{
	char line[8192];
	int undone;

	width = gf_wrap_width(GF_PRINT_WIDTH(width));
	undone = gf_tune_undone(r);
	for (int i = 0; i < r->nitems; i++)
		if (!only_undone || gf_tune_action_undone(r->items[i].action))
			print_item(&r->items[i], f, width);
	if (r->revert)
		snprintf(line, sizeof(line), "%d restored, %d already original, %d left alone%s",
			 r->counts[GF_TUNE_RESTORED] + r->counts[GF_TUNE_FORCED], r->counts[GF_TUNE_UNCHANGED], undone,
			 r->nitems ? "" : " (nothing to revert: no journal)");
	else if (r->dry_run)
		snprintf(line, sizeof(line), "%d would change, %d already set, %d advice only (dry run: nothing written)",
			 r->counts[GF_TUNE_WOULD_APPLY], r->counts[GF_TUNE_ALREADY],
			 r->counts[GF_TUNE_ADVICE] + r->counts[GF_TUNE_MANUAL]);
	else
		snprintf(line, sizeof(line), "%d applied, %d already set, %d advice only, %d not done",
			 r->counts[GF_TUNE_APPLIED], r->counts[GF_TUNE_ALREADY], r->counts[GF_TUNE_ADVICE], undone);
	gf_wrap_print(f, line, 0, 2, width);
	if (r->journal[0] && !r->dry_run) {
		snprintf(line, sizeof(line), "journal: %s%s", r->journal,
			 !r->revert	       ? " ('gpufeed revert' undoes this)"
			 : r->journal_removed ? " (removed)"
			 : undone	       ? " (kept: revert --force restores what was left alone)"
					       : " (kept: revert stopped before the end; run it again)");
		gf_wrap_print(f, line, 0, 2, width);
	}
	if (r->note[0]) {
		snprintf(line, sizeof(line), "note: %s", r->note);
		gf_wrap_print(f, line, 0, 2, width);
	}
	return ferror(f) ? -EIO : 0;
}
