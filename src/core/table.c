#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/table.h"
#include "core/wrap.h"

void gf_table_init(struct gf_table *t, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->gap = 2;
}

void gf_table_add(struct gf_table *t, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (t->ncells == t->cap) {
		int ncap = t->cap ? t->cap * 2 : 64;
		char **nc = realloc(t->cells, (size_t)ncap * sizeof(*nc));

		if (!nc)
			return;
		t->cells = nc;
		t->cap = ncap;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	t->cells[t->ncells++] = s ? s : strdup("?");
}

/* Display width: count UTF-8 lead bytes only. */
static int width(const char *s)
{
	int w = 0;

	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* The columns sel[0..nsel) of every row (a block of a table too wide for
 * its width: column 0 and some others); with wrap_at > 0 the last one's
 * text is wrapped under itself at that width. */
static void print_block(const struct gf_table *t, FILE *f, const char *indent, const int *wid, const int *sel,
			int nsel, int wrap_at)
{
	int ind = width(indent);

	for (int r = 0; r * t->ncols < t->ncells; r++) {
		int col = ind, end = nsel;

		/* empty cells at the end of a row leave no spaces behind */
		while (end > 1) {
			int i = r * t->ncols + sel[end - 1];

			if (i < t->ncells && t->cells[i] && *t->cells[i])
				break;
			end--;
		}
		fputs(indent ? indent : "", f);
		for (int k = 0; k < end; k++) {
			int c = sel[k], i = r * t->ncols + c, pad;
			const char *cell = i < t->ncells && t->cells[i] ? t->cells[i] : "";
			bool last = k == end - 1 || i >= t->ncells - 1;

			pad = wid[c] - width(cell);
			if (last && wrap_at) {
				gf_wrap_print(f, cell, col, col, wrap_at);
				break;
			}
			if (t->right_align >> c & 1)
				fprintf(f, "%*s", pad, "");
			fputs(cell, f);
			if (last) {
				fputc('\n', f);
				break;
			}
			if (!(t->right_align >> c & 1))
				fprintf(f, "%*s", pad, "");
			fprintf(f, "%*s", t->gap, "");
			col += wid[c] + t->gap;
		}
	}
}

/* Each column's width, and in sel the columns in order; NULL without memory. */
static int *column_widths(const struct gf_table *t, int **sel)
{
	int *wid = calloc((size_t)t->ncols * 2, sizeof(int));

	for (int i = 0; wid && i < t->ncells; i++) {
		int w = width(t->cells[i]);

		if (w > wid[i % t->ncols])
			wid[i % t->ncols] = w;
	}
	if (wid) {
		*sel = wid + t->ncols;
		for (int c = 0; c < t->ncols; c++)
			(*sel)[c] = c;
	}
	return wid;
}

void gf_table_print(const struct gf_table *t, FILE *f, const char *indent)
{
	int *sel, *wid = column_widths(t, &sel);

	if (!wid)
		return;
	print_block(t, f, indent, wid, sel, t->ncols, 0);
	free(wid);
}

/* The narrowest the last column is squeezed to before the table is split. */
#define WRAP_MIN 24

void gf_table_print_width(const struct gf_table *t, FILE *f, const char *indent, int maxw)
{
	int *sel, *wid = column_widths(t, &sel), total = width(indent);

	if (!wid)
		return;
	for (int c = 0; c < t->ncols; c++)
		total += wid[c] + (c ? t->gap : 0);
	if (total <= maxw || t->ncols < 2) {
		print_block(t, f, indent, wid, sel, t->ncols, 0);
	} else if (total - wid[t->ncols - 1] + WRAP_MIN <= maxw) {
		/* only the last column is too wide: its text wraps under itself */
		print_block(t, f, indent, wid, sel, t->ncols, maxw);
	} else {
		/* blocks of columns, each after column 0 (as R prints a wide
		 * matrix), a blank line between them */
		int c = 1;

		while (c < t->ncols) {
			int n = 1, used = width(indent) + wid[0];

			while (c < t->ncols && (n == 1 || used + t->gap + wid[c] <= maxw)) {
				used += t->gap + wid[c];
				sel[n++] = c++;
			}
			if (sel[1] > 1)
				fputc('\n', f);
			print_block(t, f, indent, wid, sel, n, 0);
		}
	}
	free(wid);
}

void gf_table_free(struct gf_table *t)
{
	for (int i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
