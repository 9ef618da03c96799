#include <errno.h>
#include <string.h>

#include "core/error.h"
#include "core/opts.h"

int gf_opts_check(size_t struct_size, size_t min_size, const char *what, const char *init_macro)
{
	if (struct_size == 0)
		return gf_error(-EINVAL, "%s: options not initialised with %s", what, init_macro);
	if (struct_size < min_size)
		return gf_error(-EINVAL, "%s: options struct of %zu bytes is smaller than any release's (%zu); "
				"initialise it with %s", what, struct_size, min_size, init_macro);
	return 0;
}

void gf_opts_copy(void *dst, size_t dst_size, const void *src, size_t struct_size)
{
	memcpy(dst, src, struct_size < dst_size ? struct_size : dst_size);
	*(size_t *)dst = dst_size;	/* struct_size comes first: now ours */
}
