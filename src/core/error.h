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

/* A public function refusing an argument: -EINVAL with "<function>: <what>",
 * so the message names the call and the argument (the contract
 * tests/unit/test_api_contract.c holds every exported function to):
 *     return gf_arg_error(__func__, "gpu %d is not a GPU of the model", gpu);
 * GF_NULL_ARG("t") is the common case, "gf_topo_print: t is NULL". */
int gf_arg_error(const char *func, const char *fmt, ...) GF_PRINTF(2, 3);
#define GF_NULL_ARG(name) gf_arg_error(__func__, "%s is NULL", name)

#endif
