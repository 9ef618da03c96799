/* Human output of a check run: grouped by category, problems first within
 * each, passes and na only with GF_AUDIT_PRINT_ALL; colour only when asked
 * (the CLI asks on a terminal). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit/audit_internal.h"
#include "audit/catalog.h"
#include "core/wrap.h"

/* A result's details start under its id: "  fail       " is 13 columns. */
#define DETAIL_COL 13

static const char *status_color(enum gf_check_status s)
{
	switch (s) {
	case GF_CHECK_FAIL:
	case GF_CHECK_ERROR: return "\033[31m";
	case GF_CHECK_WARN: return "\033[33m";
	case GF_CHECK_NEEDS_ROOT: return "\033[35m";
	case GF_CHECK_PASS: return "\033[32m";
	default: return "\033[2m";
	}
}

static bool shown(const struct gf_check_result *r, unsigned flags)
{
	return (flags & GF_AUDIT_PRINT_ALL) || (r->status != GF_CHECK_PASS && r->status != GF_CHECK_NA);
}

/* "             why: TEXT", TEXT wrapped under itself. */
static void detail(FILE *f, const char *label, const char *text, int width)
{
	int col = DETAIL_COL + (label ? fprintf(f, "%*s%s", DETAIL_COL, "", label) - DETAIL_COL : 0);

	if (!label)
		fprintf(f, "%*s", DETAIL_COL, "");
	gf_wrap_print(f, text, col, col, width);
}

static void print_one(const struct gf_check_result *r, FILE *f, bool color, int width)
{
	char head[1200], fix_label[160];

	/* The title says what is expected ("swap should be off"); observed
	 * and expected values follow on their own line. */
	fprintf(f, "  %s%-10s%s ", color ? status_color(r->status) : "", gf_check_status_name(r->status),
		color ? "\033[0m" : "");
	snprintf(head, sizeof(head), "%s%s%s: %s", r->check->id, r->subject[0] ? " " : "", r->subject, r->check->title);
	gf_wrap_print(f, head, DETAIL_COL, DETAIL_COL + 2, width);
	if (r->observed[0] || r->expected[0]) {
		snprintf(head, sizeof(head), "observed %s%s%s", r->observed[0] ? r->observed : "-",
			 r->expected[0] ? ", expected " : "", r->expected);
		detail(f, NULL, head, width);
	}
	if (r->note[0])
		detail(f, NULL, r->note, width);
	if (r->status == GF_CHECK_PASS || r->status == GF_CHECK_NA)
		return;
	if (r->source[0])
		detail(f, "read ", r->source, width);
	detail(f, "why: ", r->check->why, width);
	if (r->fix[0]) {
		snprintf(fix_label, sizeof(fix_label), "fix%s%s%s: ",
			 r->fix_class == GF_FIX_SAFE ? " (safe, gpufeed tune)"
			 : r->fix_class == GF_FIX_NAMED ? " (gpufeed tune --only " : "",
			 r->fix_class == GF_FIX_NAMED ? r->check->id : "", r->fix_class == GF_FIX_NAMED ? ")" : "");
		detail(f, fix_label, r->fix, width);
	}
	if (r->persist[0])
		detail(f, "persist: ", r->persist, width);
}

int gf_audit_print(const struct gf_audit *a, FILE *f, unsigned flags)
{
	bool color = flags & GF_AUDIT_PRINT_COLOR;
	int width = gf_wrap_width(flags);
	const char *cat = NULL;
	char line[8192];
	static const enum gf_check_status order[] = { GF_CHECK_FAIL, GF_CHECK_ERROR,	  GF_CHECK_WARN,
						      GF_CHECK_NEEDS_ROOT, GF_CHECK_PASS, GF_CHECK_NA };

	if (!a || !f)
		return GF_NULL_ARG(!a ? "a" : "f");
	snprintf(line, sizeof(line), "gpufeed check: %s (%s), profile %s%s%s", a->hostname[0] ? a->hostname : "?",
		 a->source, gf_profile_name(a->profile), a->container ? ", inside a container: " : "",
		 a->container ? (a->container_kind[0] ? a->container_kind : "yes") : "");
	gf_wrap_print(f, line, 0, 2, width);
	if (!a->privileged)
		fputs("not running as root: checks that need privileges say needs-root\n", f);
	/* Categories in catalogue order; results of a category by status. */
	for (int i = 0; i < gf_check_def_count(); i++) {
		const char *c = gf_check_def_at(i)->info.category;
		bool any = false;

		if (cat && !strcmp(cat, c))
			continue;
		cat = c;
		for (int j = 0; j < a->nresults && !any; j++)
			any = !strcmp(a->results[j].check->category, c) && shown(&a->results[j], flags);
		if (!any)
			continue;
		fprintf(f, "\n%s\n", gf_check_category_title(c));
		for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++)
			for (int j = 0; j < a->nresults; j++) {
				const struct gf_check_result *r = &a->results[j];

				if (!strcmp(r->check->category, c) && r->status == order[o] && shown(r, flags))
					print_one(r, f, color, width);
			}
	}
	snprintf(line, sizeof(line), "%d results: %d fail, %d error, %d warn, %d needs-root, %d pass, %d na%s",
		 a->nresults, a->counts[GF_CHECK_FAIL], a->counts[GF_CHECK_ERROR], a->counts[GF_CHECK_WARN],
		 a->counts[GF_CHECK_NEEDS_ROOT], a->counts[GF_CHECK_PASS], a->counts[GF_CHECK_NA],
		 flags & GF_AUDIT_PRINT_ALL ? "" : " (--all lists passes and na)");
	fputc('\n', f);
	gf_wrap_print(f, line, 0, 2, width);
	return ferror(f) ? -EIO : 0;
}

/* One line of the summary, cut to SUMMARY_WIDTH columns (report's screen
 * is 100 wide; `gpufeed check` shows the whole result). */
#define SUMMARY_WIDTH 100
static void summary_line(FILE *f, const struct gf_check_result *r, bool color)
{
	char text[900];
	int n;

	n = snprintf(text, sizeof(text), "%s%s%s: %s%s%s", r->check->id, r->subject[0] ? " " : "", r->subject,
		     r->observed[0] ? r->observed : r->check->title, r->expected[0] ? ", expected " : "",
		     r->expected);
	/* "  " + status (5) + " " = 8 columns before the text. */
	if (n > SUMMARY_WIDTH - 8)
		memcpy(text + SUMMARY_WIDTH - 8 - 3, "...", 4);
	fprintf(f, "  %s%-5s%s %s\n", color ? status_color(r->status) : "", gf_check_status_name(r->status),
		color ? "\033[0m" : "", text);
}

int gf_audit_print_summary(const struct gf_audit *a, FILE *f, int max, unsigned flags)
{
	bool color = flags & GF_AUDIT_PRINT_COLOR;
	int shownn = 0;

	if (!a || !f)
		return GF_NULL_ARG(!a ? "a" : "f");
	if (max < 0)
		return gf_arg_error(__func__, "max %d is negative", max);
	fprintf(f, "Audit (gpufeed check, profile %s): %d fail, %d error, %d warn, %d needs-root, %d pass, %d na\n",
		gf_profile_name(a->profile), a->counts[GF_CHECK_FAIL], a->counts[GF_CHECK_ERROR],
		a->counts[GF_CHECK_WARN], a->counts[GF_CHECK_NEEDS_ROOT], a->counts[GF_CHECK_PASS],
		a->counts[GF_CHECK_NA]);
	for (int s = GF_CHECK_FAIL; s >= GF_CHECK_WARN && shownn < max; s--)
		for (int j = 0; j < a->nresults && shownn < max; j++) {
			const struct gf_check_result *r = &a->results[j];

			if ((int)r->status != s)
				continue;
			summary_line(f, r, color);
			shownn++;
		}
	if (gf_audit_count_at_least(a, GF_CHECK_WARN) > shownn)
		fprintf(f, "  ... %d more: gpufeed check\n", gf_audit_count_at_least(a, GF_CHECK_WARN) - shownn);
	return ferror(f) ? -EIO : 0;
}
