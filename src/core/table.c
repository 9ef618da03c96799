#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/table.h"

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

void gf_table_print(const struct gf_table *t, FILE *f, const char *indent)
{
	int *wid = calloc((size_t)t->ncols, sizeof(int));

	if (!wid)
		return;
	for (int i = 0; i < t->ncells; i++) {
		int w = width(t->cells[i]);

		if (w > wid[i % t->ncols])
			wid[i % t->ncols] = w;
	}
	for (int i = 0; i < t->ncells; i++) {
		int c = i % t->ncols, pad = wid[c] - width(t->cells[i]);
		bool last = c == t->ncols - 1 || i == t->ncells - 1;

		if (c == 0)
			fputs(indent ? indent : "", f);
		if (t->right_align >> c & 1)
			fprintf(f, "%*s", pad, "");
		fputs(t->cells[i] ? t->cells[i] : "", f);
		if (last) {
			fputc('\n', f);
			continue;
		}
		if (!(t->right_align >> c & 1))
			fprintf(f, "%*s", pad, "");
		fprintf(f, "%*s", t->gap, "");
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
