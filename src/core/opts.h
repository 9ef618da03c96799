/* Checking a caller's versioned options struct (include/gpufeed/common.h). */
#ifndef GF_CORE_OPTS_H
#define GF_CORE_OPTS_H

#include <stddef.h>

/* 0 when a struct of struct_size bytes holds at least the first release's
 * fields (min_size); else -EINVAL with "<what>: options not initialised with
 * <init_macro>" in gf_last_error().  NULL opts are the caller's to handle. */
int gf_opts_check(size_t struct_size, size_t min_size, const char *what, const char *init_macro);

/* Copies a caller's struct of struct_size bytes over dst (sizeof dst_size,
 * already holding the defaults): the fields an older caller's struct lacks
 * keep their defaults, the bytes a newer caller's has past dst are not
 * read.  Call after gf_opts_check. */
void gf_opts_copy(void *dst, size_t dst_size, const void *src, size_t struct_size);

#endif
