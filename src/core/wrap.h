/* Text that fits a width: a line's details wrapped under it, as
 * `gpufeed check` prints its why:, fix: and persist: lines. */
#ifndef GF_CORE_WRAP_H
#define GF_CORE_WRAP_H

#include <stdio.h>

/* The width a writer's flags ask for (GF_PRINT_WIDTH), the default for
 * none, GF_PRINT_WIDTH_MIN at least. */
int gf_wrap_width(unsigned flags);
/* Columns text takes on a terminal: UTF-8 continuation bytes take none. */
int gf_wrap_columns(const char *text);
/* Prints text, the cursor being at column col, so that no line passes
 * width: breaks at spaces, continuation lines start with indent spaces; a
 * word longer than a whole line is broken after a '/', ',', ';' or '=' that
 * fits, else at the width (a URL stays readable).  Ends the line. */
void gf_wrap_print(FILE *f, const char *text, int col, int indent, int width);

#endif
