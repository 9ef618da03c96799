#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/env_export.h"
#include "core/error.h"

int gf_env_export(const char *name, const char *value)
{
	if (!name || !*name || strchr(name, '='))
		return gf_error(-EINVAL, "environment: '%s' is not a variable name", name ? name : "(null)");
	if (setenv(name, value ? value : "", 1))
		return gf_error_errno(-errno, name);
	return 0;
}

int gf_env_export_long(const char *name, long value)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%ld", value);
	return gf_env_export(name, buf);
}
