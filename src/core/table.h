/* Aligned text tables for human output. */
#ifndef GF_CORE_TABLE_H
#define GF_CORE_TABLE_H

#include <stdio.h>
#include "core/error.h"

struct gf_table {
	int ncols;
	int ncells, cap;
	char **cells;		/* row-major; the first row is the header */
	unsigned right_align;	/* bit i: column i is right-aligned */
	int gap;		/* spaces between columns (default 2) */
};

void gf_table_init(struct gf_table *t, int ncols);
/* Appends one cell (rows wrap every ncols cells).  Out of memory → "?". */
void gf_table_add(struct gf_table *t, const char *fmt, ...) GF_PRINTF(2, 3);
void gf_table_print(const struct gf_table *t, FILE *f, const char *indent);
/* The same within width columns: as is when it fits; else the last
 * column's text wrapped under itself when that leaves it 24 columns; else
 * in blocks of columns that fit, each led by column 0, a blank line between. */
void gf_table_print_width(const struct gf_table *t, FILE *f, const char *indent, int width);
void gf_table_free(struct gf_table *t);

#endif
