/* Internal side of gf_last_error(): set the thread's message and return. */
#ifndef GF_CORE_ERROR_H
#define GF_CORE_ERROR_H

#include <gpufeed/error.h>

#define GF_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Sets the message and returns err (a negative errno), so callers write
 * `return gf_error(-EINVAL, "%s: not an integer: '%s'", path, text);`. */
int gf_error(int err, const char *fmt, ...) GF_PRINTF(2, 3);
/* "<what>: <strerror(-err)>". */
int gf_error_errno(int err, const char *what);

#endif
