/* The environment of a bound process: which GPUs CUDA sees and in what
 * order, how many OpenMP threads, and NCCL told not to re-pin threads. */
#include <errno.h>
#include <stdio.h>

#include "bind/bind_internal.h"
#include "core/env_export.h"
#include "core/error.h"
#include "core/strutil.h"

int gf_bind_env_list(const struct gf_binding *b, unsigned flags, struct gf_bind_env env[GF_BIND_NENV])
{
	int n = 0;

	if (!(flags & GF_BIND_ENV_NO_VISIBLE_DEVICES)) {
		env[n].name = "CUDA_VISIBLE_DEVICES";
		gf_strlcpy(env[n++].value, b->visible_devices, sizeof(env[0].value));
		/* CUDA's default order is fastest first; NVML's is PCI order. */
		env[n].name = "CUDA_DEVICE_ORDER";
		gf_strlcpy(env[n++].value, "PCI_BUS_ID", sizeof(env[0].value));
	}
	if (!(flags & GF_BIND_ENV_NO_OMP) && b->cpu_mode != GF_BIND_CPU_NONE) {
		env[n].name = "OMP_NUM_THREADS";
		snprintf(env[n++].value, sizeof(env[0].value), "%d", b->threads > 0 ? b->threads : 1);
	}
	/* NCCL otherwise sets its threads' affinity to the GPU's local CPUs
	 * (all of the node), undoing an exclusive or l3 binding. */
	if (!(flags & GF_BIND_ENV_KEEP_NCCL_AFFINITY)) {
		env[n].name = "NCCL_IGNORE_CPU_AFFINITY";
		gf_strlcpy(env[n++].value, "1", sizeof(env[0].value));
	}
	return n;
}

GF_API int gf_bind_setenv(const struct gf_binding *b, unsigned flags)
{
	struct gf_bind_env env[GF_BIND_NENV];
	int n, ret;

	if ((ret = gf_bind_binding_check(NULL, b, __func__)))
		return ret;
	n = gf_bind_env_list(b, flags, env);
	for (int i = 0; i < n; i++)
		if ((ret = gf_env_export(env[i].name, env[i].value)))
			return ret;
	return 0;
}
