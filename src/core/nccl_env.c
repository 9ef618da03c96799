/* NCCL variables that cost bandwidth (nccl_env.h). */
#include <stdlib.h>
#include <string.h>

#include "core/nccl_env.h"
#include "core/strutil.h"

bool gf_nccl_debug_var(const char *name)
{
	static const char *const names[] = {
		"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_P2P_DIRECT_DISABLE", "NCCL_SHM_DISABLE",
		"NCCL_BUFFSIZE", "NCCL_NTHREADS", "NCCL_MAX_NCHANNELS", "NCCL_MIN_NCHANNELS",
		"NCCL_MAX_CTAS", "NCCL_MIN_CTAS", "NCCL_CHECKS_DISABLE", "NCCL_CHECK_POINTERS",
		"NCCL_LAUNCH_MODE", "NCCL_IB_DISABLE", "NCCL_IB_AR_THRESHOLD", "NCCL_IB_QPS_PER_CONNECTION",
		"NCCL_IB_SPLIT_DATA_ON_QPS", "NCCL_IB_PCI_RELAXED_ORDERING", "NCCL_IB_ADAPTIVE_ROUTING",
		"NCCL_IB_ECE_ENABLE", "NCCL_MEM_SYNC_DOMAIN", "NCCL_CUMEM_ENABLE", "NCCL_CUMEM_HOST_ENABLE",
		"NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ", "NCCL_NET_GDR_C2C", "NCCL_NET_SHARED_BUFFERS",
		"NCCL_NET_SHARED_COMMS", "NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE",
	};

	if (!name)
		return false;
	if (gf_starts_with(name, "NCCL_GDRCOPY_"))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static bool on(const char *value)
{
	return value && value[0] && strcmp(value, "0");
}

const char *gf_nccl_costs_bandwidth(const char *name, const char *value)
{
	static const struct {
		const char *name;
		bool when_on;	/* only a non-zero value costs; else any value */
		const char *why;
	} vars[] = {
		{ "NCCL_P2P_DISABLE", true, "P2P off: GPU pairs go through host memory (SHM) or the network" },
		{ "NCCL_SHM_DISABLE", true, "SHM off: GPU pairs without P2P go through the network" },
		{ "NCCL_IB_DISABLE", true, "InfiniBand/RoCE off: the network is TCP sockets" },
		{ "NCCL_P2P_DIRECT_DISABLE", true, "direct P2P access within a process off" },
		{ "NCCL_P2P_LEVEL", false, "P2P limited to nearer GPU pairs than NCCL would use" },
		{ "NCCL_NET_GDR_LEVEL", false, "GPUDirect RDMA limited to nearer NIC-GPU pairs than NCCL would use" },
		{ "NCCL_PROTO", false, "protocols pinned: NCCL cannot pick LL/LL128 for small and mid sizes" },
		{ "NCCL_ALGO", false, "algorithms pinned: NCCL cannot pick the fastest per size" },
		{ "NCCL_MAX_NCHANNELS", false, "fewer channels: fewer SMs and links move the data" },
		{ "NCCL_MAX_CTAS", false, "fewer CTAs: fewer SMs move the data" },
		{ "NCCL_NTHREADS", false, "threads per CTA pinned" },
		{ "NCCL_BUFFSIZE", false, "buffer size pinned" },
	};

	if (!name)
		return NULL;
	if (!strcmp(name, "NCCL_NET_GDR_READ"))
		return value && !strcmp(value, "0") ? "GPUDirect RDMA reads off: sends are staged through host memory"
						    : NULL;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (!strcmp(name, vars[i].name))
			return !vars[i].when_on || on(value) ? vars[i].why : NULL;
	return NULL;
}
