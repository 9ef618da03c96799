/* dlopen libnvidia-ml.so.1 and fill the ops table. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/env.h>
#include "core/error.h"
#include "core/strutil.h"
#include "vendor/nvml.h"

/* dlsym into a function pointer without the object/function cast warning. */
#define SYM(field, name) do {						\
	void *p_ = dlsym(ops->handle, name);				\
	memcpy(&ops->field, &p_, sizeof(p_));				\
} while (0)
#define SYM2(field, name, fallback) do {				\
	SYM(field, name);						\
	if (!ops->field)						\
		SYM(field, fallback);					\
} while (0)

int gf_nvml_load(struct gf_nvml_ops *ops, char *why, size_t whysize)
{
	const char *lib = gf_env_str(GF_ENV_NVML_LIBRARY);

	memset(ops, 0, sizeof(*ops));
	ops->version = GF_NVML_OPS_VERSION;
	if (!lib)
		lib = GF_NVML_LIBRARY_DEFAULT;
	gf_strlcpy(ops->library, lib, sizeof(ops->library));
	ops->handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!ops->handle) {
		snprintf(why, whysize, "%s not found", lib);
		return gf_error(-ENOSYS, "NVML not available: %s not found", lib);
	}
	SYM(init, "nvmlInit_v2");
	SYM(shutdown, "nvmlShutdown");
	SYM(error_string, "nvmlErrorString");
	SYM(device_count, "nvmlDeviceGetCount_v2");
	SYM(device_by_index, "nvmlDeviceGetHandleByIndex_v2");
	SYM(pci_info, "nvmlDeviceGetPciInfo_v3");
	if (!ops->init || !ops->shutdown || !ops->device_count || !ops->device_by_index ||
	    !ops->pci_info) {
		snprintf(why, whysize, "%s lacks nvmlInit_v2/nvmlDeviceGetPciInfo_v3 (driver older than R450?)",
			 lib);
		gf_nvml_unload(ops);
		return gf_error(-ENOSYS, "NVML not available: %s", why);
	}
	SYM(system_driver_version, "nvmlSystemGetDriverVersion");
	SYM(system_nvml_version, "nvmlSystemGetNVMLVersion");
	SYM(system_cuda_version, "nvmlSystemGetCudaDriverVersion_v2");
	SYM(name, "nvmlDeviceGetName");
	SYM(uuid, "nvmlDeviceGetUUID");
	SYM(memory_info, "nvmlDeviceGetMemoryInfo");
	SYM(minor_number, "nvmlDeviceGetMinorNumber");
	SYM(cpu_affinity, "nvmlDeviceGetCpuAffinity");
	SYM(memory_affinity, "nvmlDeviceGetMemoryAffinity");
	SYM(numa_node_id, "nvmlDeviceGetNumaNodeId");
	SYM(curr_pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration");
	SYM(curr_pcie_width, "nvmlDeviceGetCurrPcieLinkWidth");
	SYM(max_pcie_gen, "nvmlDeviceGetMaxPcieLinkGeneration");
	SYM(max_pcie_width, "nvmlDeviceGetMaxPcieLinkWidth");
	SYM(nvlink_state, "nvmlDeviceGetNvLinkState");
	SYM(nvlink_version, "nvmlDeviceGetNvLinkVersion");
	SYM(nvlink_remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
	SYM(nvlink_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
	SYM(mig_mode, "nvmlDeviceGetMigMode");
	SYM(max_mig_count, "nvmlDeviceGetMaxMigDeviceCount");
	SYM(mig_by_index, "nvmlDeviceGetMigDeviceHandleByIndex");
	SYM(gpu_instance_id, "nvmlDeviceGetGpuInstanceId");
	SYM(compute_instance_id, "nvmlDeviceGetComputeInstanceId");
	SYM(common_ancestor, "nvmlDeviceGetTopologyCommonAncestor");
	SYM(p2p_status, "nvmlDeviceGetP2PStatus");
	SYM(persistence_mode, "nvmlDeviceGetPersistenceMode");
	SYM(compute_mode, "nvmlDeviceGetComputeMode");
	SYM(ecc_mode, "nvmlDeviceGetEccMode");
	SYM(remapped_rows, "nvmlDeviceGetRemappedRows");
	SYM(retired_pages_pending, "nvmlDeviceGetRetiredPagesPendingStatus");
	/* Renamed in R535; older drivers only have the "throttle" name. */
	SYM2(clocks_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons",
	     "nvmlDeviceGetCurrentClocksThrottleReasons");
	SYM(power_limit, "nvmlDeviceGetPowerManagementLimit");
	SYM(power_default_limit, "nvmlDeviceGetPowerManagementDefaultLimit");
	SYM(power_enforced_limit, "nvmlDeviceGetEnforcedPowerLimit");
	SYM(power_limit_constraints, "nvmlDeviceGetPowerManagementLimitConstraints");
	SYM(fabric_info_v, "nvmlDeviceGetGpuFabricInfoV");
	return 0;
}

void gf_nvml_unload(struct gf_nvml_ops *ops)
{
	if (ops->handle)
		dlclose(ops->handle);
	ops->handle = NULL;
}

const char *gf_nvml_strerror(const struct gf_nvml_ops *ops, gf_nvml_return r)
{
	static _Thread_local char buf[32];
	const char *s = ops->error_string ? ops->error_string(r) : NULL;

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "NVML error %d", r);
	return buf;
}
