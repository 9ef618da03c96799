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
void gf_table_free(struct gf_table *t);

#endif
