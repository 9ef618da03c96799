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

int gf_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return err;
}

int gf_error_errno(int err, const char *what)
{
	return gf_error(err, "%s: %s", what, strerror(err < 0 ? -err : err));
}
