/* Our CPU sets as the kernel's cpu_set_t, for sched/pthread affinity calls
 * (the model and the I/O engine both bind threads). */
#ifndef GF_CORE_AFFINITY_H
#define GF_CORE_AFFINITY_H

#include <sched.h>
#include <gpufeed/cpuset.h>

static inline void gf_cpuset_to_sys(const struct gf_cpuset *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	for (int c = gf_cpuset_first(s); c >= 0 && c < CPU_SETSIZE; c = gf_cpuset_next(s, c))
		CPU_SET(c, set);
}

#endif
