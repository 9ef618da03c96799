/* libnvidia-ml.so.1 through the one dlopen pattern (core/dl.h): the
 * symbols gpufeed uses, which of them it cannot do without, and the ops
 * table they fill. */
#include <errno.h>
#include <stdio.h>

#include <gpufeed/env.h>
#include "core/dl.h"
#include "core/strutil.h"
#include "vendor/nvml/nvml.h"

static struct gf_nvml_ops nvml_ops;

static const struct gf_dl_sym nvml_syms[] = {
	/* Required: the _v2/_v3 names exist since R450. */
	GF_DL_REQUIRED(struct gf_nvml_ops, init, "nvmlInit_v2"),
	GF_DL_REQUIRED(struct gf_nvml_ops, shutdown, "nvmlShutdown"),
	GF_DL_REQUIRED(struct gf_nvml_ops, device_count, "nvmlDeviceGetCount_v2"),
	GF_DL_REQUIRED(struct gf_nvml_ops, device_by_index, "nvmlDeviceGetHandleByIndex_v2"),
	GF_DL_REQUIRED(struct gf_nvml_ops, pci_info, "nvmlDeviceGetPciInfo_v3"),
	/* Optional: NULL when this NVML lacks them (then "not supported"). */
	GF_DL_OPTIONAL(struct gf_nvml_ops, error_string, "nvmlErrorString"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, system_driver_version, "nvmlSystemGetDriverVersion"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, system_nvml_version, "nvmlSystemGetNVMLVersion"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, system_cuda_version, "nvmlSystemGetCudaDriverVersion_v2"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, name, "nvmlDeviceGetName"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, uuid, "nvmlDeviceGetUUID"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, memory_info, "nvmlDeviceGetMemoryInfo"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, minor_number, "nvmlDeviceGetMinorNumber"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, cpu_affinity, "nvmlDeviceGetCpuAffinity"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, memory_affinity, "nvmlDeviceGetMemoryAffinity"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, numa_node_id, "nvmlDeviceGetNumaNodeId"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, curr_pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, curr_pcie_width, "nvmlDeviceGetCurrPcieLinkWidth"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, max_pcie_gen, "nvmlDeviceGetMaxPcieLinkGeneration"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, max_pcie_width, "nvmlDeviceGetMaxPcieLinkWidth"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, nvlink_state, "nvmlDeviceGetNvLinkState"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, nvlink_version, "nvmlDeviceGetNvLinkVersion"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, nvlink_remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, nvlink_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, mig_mode, "nvmlDeviceGetMigMode"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, max_mig_count, "nvmlDeviceGetMaxMigDeviceCount"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, mig_by_index, "nvmlDeviceGetMigDeviceHandleByIndex"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, gpu_instance_id, "nvmlDeviceGetGpuInstanceId"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, compute_instance_id, "nvmlDeviceGetComputeInstanceId"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, common_ancestor, "nvmlDeviceGetTopologyCommonAncestor"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, p2p_status, "nvmlDeviceGetP2PStatus"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, persistence_mode, "nvmlDeviceGetPersistenceMode"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, compute_mode, "nvmlDeviceGetComputeMode"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, ecc_mode, "nvmlDeviceGetEccMode"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, remapped_rows, "nvmlDeviceGetRemappedRows"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, retired_pages_pending, "nvmlDeviceGetRetiredPagesPendingStatus"),
	/* Renamed in R535; older drivers only have the "throttle" name. */
	GF_DL_RENAMED(struct gf_nvml_ops, clocks_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons",
		      "nvmlDeviceGetCurrentClocksThrottleReasons"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, power_limit, "nvmlDeviceGetPowerManagementLimit"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, power_default_limit, "nvmlDeviceGetPowerManagementDefaultLimit"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, power_enforced_limit, "nvmlDeviceGetEnforcedPowerLimit"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, power_limit_constraints, "nvmlDeviceGetPowerManagementLimitConstraints"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, fabric_info_v, "nvmlDeviceGetGpuFabricInfoV"),
	/* Sampling (src/monitor).  GPM needs R520+ and a Hopper or newer GPU. */
	GF_DL_OPTIONAL(struct gf_nvml_ops, utilization, "nvmlDeviceGetUtilizationRates"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, pcie_throughput, "nvmlDeviceGetPcieThroughput"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, field_values, "nvmlDeviceGetFieldValues"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, power_usage, "nvmlDeviceGetPowerUsage"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, clock_info, "nvmlDeviceGetClockInfo"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, temperature, "nvmlDeviceGetTemperature"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, total_ecc_errors, "nvmlDeviceGetTotalEccErrors"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, event_set_create, "nvmlEventSetCreate"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, register_events, "nvmlDeviceRegisterEvents"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, supported_event_types, "nvmlDeviceGetSupportedEventTypes"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, event_set_wait, "nvmlEventSetWait_v2"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, event_set_free, "nvmlEventSetFree"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, process_utilization, "nvmlDeviceGetProcessUtilization"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, gpm_query_support, "nvmlGpmQueryDeviceSupport"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, gpm_sample_alloc, "nvmlGpmSampleAlloc"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, gpm_sample_free, "nvmlGpmSampleFree"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, gpm_sample_get, "nvmlGpmSampleGet"),
	GF_DL_OPTIONAL(struct gf_nvml_ops, gpm_metrics_get, "nvmlGpmMetricsGet"),
};

static struct gf_dl_lib nvml_lib = GF_DL_LIB_INIT("NVML", GF_NVML_LIBRARY_DEFAULT, GF_ENV_NVML_LIBRARY,
						  nvml_syms, &nvml_ops, "driver older than R450?");

int gf_nvml_load(const struct gf_nvml_ops **ops, char *why, size_t whysize)
{
	int ret = gf_dl_load(&nvml_lib);

	*ops = ret ? NULL : &nvml_ops;
	gf_strlcpy(why, gf_dl_why(&nvml_lib), whysize);
	return ret;
}

const char *gf_nvml_library(void)
{
	return gf_dl_path(&nvml_lib);
}

void gf_nvml_unload(void)
{
	gf_dl_unload(&nvml_lib);
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
