/* The first host of a Slurm hostlist ("gpu[07-09,12],login1" -> "gpu07"):
 * only the first is needed (the rendezvous host), so no expansion of the
 * rest. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "core/error.h"
#include "launch/hostlist.h"

/* Appends the first number of a "[07-09,12]" group at *pp (just past '[')
 * and leaves *pp past the matching ']'. */
static int first_of_range(const char **pp, char *out, size_t *len, size_t size)
{
	const char *p = *pp, *close = strchr(p, ']');
	size_t n = 0;

	if (!close)
		return -EINVAL;
	while (isdigit((unsigned char)p[n]))
		n++;
	if (!n || (p[n] != '-' && p[n] != ',' && p[n] != ']'))
		return -EINVAL;
	if (*len + n >= size)
		return -ENAMETOOLONG;
	memcpy(out + *len, p, n);
	*len += n;
	*pp = close + 1;
	return 0;
}

int gf_launch_first_host(const char *hostlist, char *out, size_t size)
{
	const char *p = hostlist;
	size_t len = 0;
	int ret;

	if (!hostlist || !out)
		return GF_NULL_ARG(!hostlist ? "hostlist" : "out");
	if (!size)
		return gf_error(-ENAMETOOLONG, "hostlist '%s': no room for the first host", hostlist);
	while (*p && *p != ',') {
		if (*p == ']' || isspace((unsigned char)*p))
			return gf_error(-EINVAL, "hostlist '%s': unexpected '%c'", hostlist, *p);
		if (*p == '[') {
			p++;
			if ((ret = first_of_range(&p, out, &len, size)))
				return gf_error(ret, "hostlist '%s': %s", hostlist,
						ret == -EINVAL ? "a malformed [range]" : "the first host is too long");
			continue;
		}
		if (len + 1 >= size)
			return gf_error(-ENAMETOOLONG, "hostlist '%s': the first host is too long", hostlist);
		out[len++] = *p++;
	}
	out[len] = '\0';
	if (!len)
		return gf_error(-EINVAL, "hostlist '%s': no first host", hostlist);
	return 0;
}
