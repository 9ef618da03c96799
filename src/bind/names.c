/* Names of the CPU modes and memory policies, both ways. */
#include <errno.h>
#include <string.h>

#include "bind/bind_internal.h"
#include "core/error.h"

static const char *const cpu_names[] = {
	[GF_BIND_CPU_NODE] = "node", [GF_BIND_CPU_SOCKET] = "socket", [GF_BIND_CPU_EXCLUSIVE] = "exclusive",
	[GF_BIND_CPU_L3] = "l3", [GF_BIND_CPU_NONE] = "none",
};
static const char *const mem_names[] = {
	[GF_BIND_MEM_BIND] = "bind", [GF_BIND_MEM_PREFERRED] = "preferred",
	[GF_BIND_MEM_INTERLEAVE] = "interleave", [GF_BIND_MEM_NONE] = "none",
};
#define N(a) ((int)(sizeof(a) / sizeof(a[0])))

GF_API const char *gf_bind_cpu_mode_name(enum gf_bind_cpu_mode m)
{
	return (int)m >= 0 && (int)m < N(cpu_names) ? cpu_names[m] : "?";
}

GF_API const char *gf_bind_mem_policy_name(enum gf_bind_mem_policy p)
{
	return (int)p >= 0 && (int)p < N(mem_names) ? mem_names[p] : "?";
}

static int lookup(const char *const *names, int n, const char *s, const char *what, const char *choices)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return gf_error(-EINVAL, "%s '%s': not %s", what, s, choices);
}

GF_API int gf_bind_cpu_mode_parse(const char *s, enum gf_bind_cpu_mode *out)
{
	int i;

	if (!s || !out)
		return GF_NULL_ARG(!s ? "s" : "out");
	i = lookup(cpu_names, N(cpu_names), s, "CPU mode", "node, socket, exclusive, l3 or none");
	if (i < 0)
		return i;
	*out = (enum gf_bind_cpu_mode)i;
	return 0;
}

GF_API int gf_bind_mem_policy_parse(const char *s, enum gf_bind_mem_policy *out)
{
	int i;

	if (!s || !out)
		return GF_NULL_ARG(!s ? "s" : "out");
	i = lookup(mem_names, N(mem_names), s, "memory policy", "bind, preferred, interleave or none");
	if (i < 0)
		return i;
	*out = (enum gf_bind_mem_policy)i;
	return 0;
}
