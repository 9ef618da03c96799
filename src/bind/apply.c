/* gf_bind_apply: the CPU affinity of every thread of this process, then the
 * memory policy (raw system calls: no libnuma to install). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bind/bind_internal.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/strutil.h"

/* <linux/mempolicy.h> values; PREFERRED_MANY is Linux 5.15. */
enum { MPOL_PREFERRED_ = 1, MPOL_BIND_ = 2, MPOL_INTERLEAVE_ = 3, MPOL_PREFERRED_MANY_ = 5 };

#define MASK_LONGS (GF_CPUSET_MAX / (8 * sizeof(unsigned long)))

static int set_thread(pid_t tid, cpu_set_t *set, size_t size)
{
	if (!syscall(SYS_sched_setaffinity, tid, size, set) || errno == ESRCH)	/* ESRCH: it has exited */
		return 0;
	return -errno;
}

/* Every thread in /proc/self/task.  Twice: a thread started during the
 * first pass by a thread not yet moved inherits the old mask. */
static int set_all_threads(const struct gf_cpuset *cpus)
{
	size_t size = CPU_ALLOC_SIZE(GF_CPUSET_MAX);
	cpu_set_t *set = CPU_ALLOC(GF_CPUSET_MAX);
	struct gf_fs fs;
	char list[256];
	int ret = 0;

	if (!set)
		return gf_error(-ENOMEM, "out of memory");
	CPU_ZERO_S(size, set);
	for (int c = gf_cpuset_first(cpus); c >= 0; c = gf_cpuset_next(cpus, c))
		CPU_SET_S((unsigned)c, size, set);
	if ((ret = set_thread(0, set, size)) == 0 && (ret = gf_fs_init(&fs, NULL)) == 0) {
		for (int pass = 0; pass < 2 && !ret; pass++) {
			char **tids = NULL;
			int n = 0;

			if ((ret = gf_fs_list(&fs, "/proc/self/task", &tids, &n)))
				break;
			for (int i = 0; i < n && !ret; i++)
				ret = set_thread((pid_t)atoi(tids[i]), set, size);
			gf_strv_free(tids, n);
		}
		gf_fs_fini(&fs);
	}
	CPU_FREE(set);
	if (ret == -EINVAL) {
		gf_cpuset_format_list(cpus, list, sizeof(list));
		return gf_error(ret, "sched_setaffinity(%s): none of these CPUs is online and allowed here", list);
	}
	return ret ? gf_error_errno(ret, "sched_setaffinity") : 0;
}

static long set_mempolicy_(int mode, const struct gf_cpuset *nodes)
{
	unsigned long mask[MASK_LONGS] = { 0 };
	const unsigned bits = 8 * sizeof(unsigned long);

	for (int n = gf_cpuset_first(nodes); n >= 0; n = gf_cpuset_next(nodes, n))
		mask[(unsigned)n / bits] |= 1UL << ((unsigned)n % bits);
	/* maxnode is one more than the bits the kernel reads. */
	return syscall(SYS_set_mempolicy, mode, mask, (unsigned long)GF_CPUSET_MAX + 1);
}

static const char *mode_name(int mode)
{
	switch (mode) {
	case MPOL_BIND_: return "MPOL_BIND";
	case MPOL_PREFERRED_: return "MPOL_PREFERRED";
	case MPOL_PREFERRED_MANY_: return "MPOL_PREFERRED_MANY";
	default: return "MPOL_INTERLEAVE";
	}
}

static int refused(int err, int mode, const char *list)
{
	if (err == -EPERM)
		return gf_error(err, "set_mempolicy(%s, nodes %s): not permitted: a seccomp filter or a missing "
				"CAP_SYS_NICE refuses it (Docker's default profile allows it only with --cap-add "
				"SYS_NICE); --mem-optional goes on without a memory policy, --mem none asks for none",
				mode_name(mode), list);
	if (err == -ENOSYS)
		return gf_error(err, "set_mempolicy(%s, nodes %s): not available: a kernel without NUMA support, "
				"or a seccomp filter answering ENOSYS; --mem-optional goes on without a memory policy, "
				"--mem none asks for none", mode_name(mode), list);
	return gf_error(err, "set_mempolicy(%s, nodes %s): %s", mode_name(mode), list, strerror(-err));
}

/* 0, GF_BIND_WARNED after a downgrade (the message says which), or -errno. */
static int set_memory(const struct gf_binding *b, const struct gf_bind_options *o)
{
	bool many = gf_cpuset_count(&b->mems) > 1;
	int mode = b->mem_policy == GF_BIND_MEM_BIND ? MPOL_BIND_ :
		   b->mem_policy == GF_BIND_MEM_INTERLEAVE ? MPOL_INTERLEAVE_ :
		   many ? MPOL_PREFERRED_MANY_ : MPOL_PREFERRED_, err;
	char list[128];

	gf_cpuset_format_list(&b->mems, list, sizeof(list));
	if (!set_mempolicy_(mode, &b->mems))
		return 0;
	err = -errno;
	if (err == -EINVAL && mode == MPOL_PREFERRED_MANY_) {
		/* Before Linux 5.15: one preferred node, the first. */
		struct gf_cpuset first;

		gf_cpuset_zero(&first);
		gf_cpuset_set(&first, (unsigned)gf_cpuset_first(&b->mems));
		if (!set_mempolicy_(MPOL_PREFERRED_, &first)) {
			gf_error(-EINVAL, "this kernel has no MPOL_PREFERRED_MANY (Linux 5.15): memory prefers node %d only, "
				 "not nodes %s", gf_cpuset_first(&b->mems), list);
			GF_WARN(GF_LOG_CORE, "%s", gf_last_error());
			return GF_BIND_WARNED;
		}
		err = -errno;
		mode = MPOL_PREFERRED_;
	}
	refused(err, mode, list);
	if ((err == -EPERM || err == -ENOSYS) && o->mem_optional) {
		GF_WARN(GF_LOG_CORE, "%s", gf_last_error());
		return GF_BIND_WARNED;
	}
	return err;
}

GF_API int gf_bind_apply(const struct gf_binding *b, const struct gf_bind_options *opts)
{
	struct gf_bind_options o;
	int ret;

	if ((ret = gf_bind_binding_check(NULL, b, __func__)) || (ret = gf_bind_opts_load(opts, __func__, &o)))
		return ret;
	if (b->cpu_mode != GF_BIND_CPU_NONE) {
		if (gf_cpuset_empty(&b->cpus))
			return gf_error(-EINVAL, "gf_bind_apply: a binding with no CPUs (not from gf_bind_compute?)");
		if ((ret = set_all_threads(&b->cpus)))
			return ret;
	}
	if (b->mem_policy == GF_BIND_MEM_NONE)
		return 0;
	if (gf_cpuset_empty(&b->mems))
		return gf_error(-EINVAL, "gf_bind_apply: a binding with no memory nodes (not from gf_bind_compute?)");
	return set_memory(b, &o);
}
