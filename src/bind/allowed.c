/* What this process may use, read live: the binding acts on this machine
 * even when the model is a recording.
 *
 * The CPU affinity alone is enough for the CPUs: the kernel keeps every
 * task's affinity inside its cgroup cpuset (cpuset.cpus.effective in v2,
 * cpuset.effective_cpus in v1; sched_setaffinity masks a request with it
 * and a change of the cpuset rewrites the tasks' masks), so reading the
 * cgroup files again could only agree with it.  Mems_allowed likewise is
 * the cpuset's memory nodes as the kernel applies them. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bind/bind_internal.h"
#include "core/error.h"

#ifndef MPOL_F_MEMS_ALLOWED
#define MPOL_F_MEMS_ALLOWED (1 << 2)
#endif

int gf_bind_live_cpus(struct gf_cpuset *cpus)
{
	size_t size = CPU_ALLOC_SIZE(GF_CPUSET_MAX);
	cpu_set_t *set = CPU_ALLOC(GF_CPUSET_MAX);

	if (!set)
		return gf_error(-ENOMEM, "out of memory");
	gf_cpuset_zero(cpus);
	if (sched_getaffinity(0, size, set)) {
		int err = -errno;

		CPU_FREE(set);
		return gf_error_errno(err, "sched_getaffinity");
	}
	for (unsigned c = 0; c < GF_CPUSET_MAX; c++)
		if (CPU_ISSET_S(c, size, set))
			gf_cpuset_set(cpus, c);
	CPU_FREE(set);
	return 0;
}

int gf_bind_live_mems(struct gf_cpuset *mems)
{
	unsigned long mask[GF_CPUSET_MAX / (8 * sizeof(unsigned long))] = { 0 };
	const unsigned bits = 8 * sizeof(unsigned long);

	gf_cpuset_zero(mems);
	/* maxnode counts one more than the bits the kernel reads. */
	if (syscall(SYS_get_mempolicy, NULL, mask, (unsigned long)GF_CPUSET_MAX + 1, NULL, MPOL_F_MEMS_ALLOWED)) {
		if (errno != ENOSYS)
			return gf_error_errno(-errno, "get_mempolicy(MPOL_F_MEMS_ALLOWED)");
		/* A kernel without NUMA has one memory node: 0. */
		gf_cpuset_set(mems, 0);
		return 0;
	}
	for (unsigned n = 0; n < GF_CPUSET_MAX; n++)
		if (mask[n / bits] >> (n % bits) & 1)
			gf_cpuset_set(mems, n);
	return 0;
}
