/* Checking a caller's versioned options struct (include/gpufeed/common.h). */
#ifndef GF_CORE_OPTS_H
#define GF_CORE_OPTS_H

#include <stddef.h>

/* 0 when a struct of struct_size bytes holds at least the first release's
 * fields (min_size); else -EINVAL with "<what>: options not initialised with
 * <init_macro>" in gf_last_error().  NULL opts are the caller's to handle. */
int gf_opts_check(size_t struct_size, size_t min_size, const char *what, const char *init_macro);

#endif
