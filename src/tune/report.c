/* What tune or revert did, item by item, and its text form. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strutil.h"
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

static void print_item(const struct gf_tune_item *it, FILE *f)
{
	char name[140];

	snprintf(name, sizeof(name), "%s%s%s%s", it->persist ? "persist" : it->id, it->subject[0] ? " [" : "",
		 it->subject, it->subject[0] ? "]" : "");
	fprintf(f, "%-11s %-24s ", gf_tune_action_name(it->action), name);
	if (it->persist)
		fprintf(f, "%s: %s '%s'", it->path, it->action == GF_TUNE_RESTORED || it->action == GF_TUNE_FORCED ||
			it->action == GF_TUNE_UNCHANGED || it->action == GF_TUNE_CHANGED ? "line" : "+", it->value);
	else if (it->old[0] || it->value[0])
		fprintf(f, "%s: %s -> %s", it->path, it->old[0] ? it->old : "?", it->value[0] ? it->value : "?");
	else
		fputs(it->path, f);
	if (it->note[0])
		fprintf(f, "%s%s", it->path[0] ? "\n            " : "", it->note);
	fputc('\n', f);
}

int gf_tune_print(const struct gf_tune_report *r, FILE *f, bool only_undone)
{
	int undone;

	if (!r || !f)
		return GF_NULL_ARG(!r ? "r" : "f");
	undone = gf_tune_undone(r);
	for (int i = 0; i < r->nitems; i++)
		if (!only_undone || gf_tune_action_undone(r->items[i].action))
			print_item(&r->items[i], f);
	if (r->revert)
		fprintf(f, "%d restored, %d already original, %d left alone%s\n",
			r->counts[GF_TUNE_RESTORED] + r->counts[GF_TUNE_FORCED], r->counts[GF_TUNE_UNCHANGED],
			undone, r->nitems ? "" : " (nothing to revert: no journal)");
	else if (r->dry_run)
		fprintf(f, "%d would change, %d already set, %d advice only (dry run: nothing written)\n",
			r->counts[GF_TUNE_WOULD_APPLY], r->counts[GF_TUNE_ALREADY],
			r->counts[GF_TUNE_ADVICE] + r->counts[GF_TUNE_MANUAL]);
	else
		fprintf(f, "%d applied, %d already set, %d advice only, %d not done\n", r->counts[GF_TUNE_APPLIED],
			r->counts[GF_TUNE_ALREADY], r->counts[GF_TUNE_ADVICE], undone);
	if (r->journal[0] && !r->dry_run)
		fprintf(f, "journal: %s%s\n", r->journal,
			!r->revert	      ? " ('gpufeed revert' undoes this)"
			: r->journal_removed ? " (removed)"
			: undone	      ? " (kept: revert --force restores what was left alone)"
					      : " (kept: revert stopped before the end; run it again)");
	if (r->note[0])
		fprintf(f, "note: %s\n", r->note);
	return ferror(f) ? -EIO : 0;
}
