/* Thread-local error message: errors travel as -errno, the words beside. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

static _Thread_local char last_error[1024];

GF_API const char *gf_last_error(void)
{
	return last_error;
}

/* Formats into a scratch buffer first: callers often wrap the previous
 * message (gf_error(rc, "%s: %s", name, gf_last_error())), and vsnprintf
 * into the buffer it is reading from is undefined (it garbled cuFile's
 * error into "NAME: NAME: NOT_REGISTERED" on a GPU machine). */
int gf_error(int err, const char *fmt, ...)
{
	char msg[sizeof(last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memcpy(last_error, msg, sizeof(last_error));
	return err;
}

int gf_error_errno(int err, const char *what)
{
	return gf_error(err, "%s: %s", what, strerror(err < 0 ? -err : err));
}

int gf_arg_error(const char *func, const char *fmt, ...)
{
	char what[sizeof(last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return gf_error(-EINVAL, "%s: %s", func, what);
}
