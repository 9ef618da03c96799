/* Compares our NVML declarations (src/vendor/nvml/nvml_api.h) with NVIDIA's
 * nvml.h: sizes, member offsets and constants.  Built and run on a GPU
 * machine by run-gpu-tests.sh (Debian has no nvml.h): a mismatch fails the
 * build (static assertions), so success prints one line. */
#include <stddef.h>
#include <stdio.h>
#include <nvml.h>

#include "vendor/nvml/nvml_api.h"

#define SAME_SIZE(ours, theirs) _Static_assert(sizeof(ours) == sizeof(theirs), #ours " size")
#define SAME_OFF(ours, om, theirs, tm) \
	_Static_assert(offsetof(ours, om) == offsetof(theirs, tm), #ours "." #om " offset")
#define SAME_VAL(ours, theirs) _Static_assert((ours) == (theirs), #ours " value")

SAME_SIZE(struct gf_nvml_pci_info, nvmlPciInfo_t);
SAME_OFF(struct gf_nvml_pci_info, bus_id_legacy, nvmlPciInfo_t, busIdLegacy);
SAME_OFF(struct gf_nvml_pci_info, domain, nvmlPciInfo_t, domain);
SAME_OFF(struct gf_nvml_pci_info, bus, nvmlPciInfo_t, bus);
SAME_OFF(struct gf_nvml_pci_info, device, nvmlPciInfo_t, device);
SAME_OFF(struct gf_nvml_pci_info, pci_device_id, nvmlPciInfo_t, pciDeviceId);
SAME_OFF(struct gf_nvml_pci_info, pci_subsystem_id, nvmlPciInfo_t, pciSubSystemId);
SAME_OFF(struct gf_nvml_pci_info, bus_id, nvmlPciInfo_t, busId);

SAME_SIZE(struct gf_nvml_memory, nvmlMemory_t);
SAME_OFF(struct gf_nvml_memory, total, nvmlMemory_t, total);
SAME_OFF(struct gf_nvml_memory, free, nvmlMemory_t, free);
SAME_OFF(struct gf_nvml_memory, used, nvmlMemory_t, used);

SAME_SIZE(struct gf_nvml_fabric_info_v2, nvmlGpuFabricInfo_v2_t);
SAME_OFF(struct gf_nvml_fabric_info_v2, cluster_uuid, nvmlGpuFabricInfo_v2_t, clusterUuid);
SAME_OFF(struct gf_nvml_fabric_info_v2, status, nvmlGpuFabricInfo_v2_t, status);
SAME_OFF(struct gf_nvml_fabric_info_v2, clique_id, nvmlGpuFabricInfo_v2_t, cliqueId);
SAME_OFF(struct gf_nvml_fabric_info_v2, state, nvmlGpuFabricInfo_v2_t, state);
SAME_OFF(struct gf_nvml_fabric_info_v2, health_mask, nvmlGpuFabricInfo_v2_t, healthMask);
SAME_SIZE(struct gf_nvml_fabric_info_v3, nvmlGpuFabricInfo_v3_t);
SAME_OFF(struct gf_nvml_fabric_info_v3, health_summary, nvmlGpuFabricInfo_v3_t, healthSummary);
SAME_VAL(GF_NVML_STRUCT_VERSION(struct gf_nvml_fabric_info_v3, 3), nvmlGpuFabricInfo_v3);
SAME_VAL(GF_NVML_STRUCT_VERSION(struct gf_nvml_fabric_info_v2, 2), nvmlGpuFabricInfo_v2);

/* Sampling (src/monitor). */
SAME_SIZE(struct gf_nvml_utilization, nvmlUtilization_t);
SAME_OFF(struct gf_nvml_utilization, memory, nvmlUtilization_t, memory);
SAME_SIZE(union gf_nvml_value, nvmlValue_t);
SAME_SIZE(struct gf_nvml_field_value, nvmlFieldValue_t);
SAME_OFF(struct gf_nvml_field_value, field_id, nvmlFieldValue_t, fieldId);
SAME_OFF(struct gf_nvml_field_value, scope_id, nvmlFieldValue_t, scopeId);
SAME_OFF(struct gf_nvml_field_value, timestamp, nvmlFieldValue_t, timestamp);
SAME_OFF(struct gf_nvml_field_value, latency_usec, nvmlFieldValue_t, latencyUsec);
SAME_OFF(struct gf_nvml_field_value, value_type, nvmlFieldValue_t, valueType);
SAME_OFF(struct gf_nvml_field_value, nvml_return, nvmlFieldValue_t, nvmlReturn);
SAME_OFF(struct gf_nvml_field_value, value, nvmlFieldValue_t, value);
SAME_SIZE(struct gf_nvml_event_data, nvmlEventData_t);
SAME_OFF(struct gf_nvml_event_data, device, nvmlEventData_t, device);
SAME_OFF(struct gf_nvml_event_data, event_type, nvmlEventData_t, eventType);
SAME_OFF(struct gf_nvml_event_data, event_data, nvmlEventData_t, eventData);
SAME_OFF(struct gf_nvml_event_data, gpu_instance_id, nvmlEventData_t, gpuInstanceId);
SAME_OFF(struct gf_nvml_event_data, compute_instance_id, nvmlEventData_t, computeInstanceId);
SAME_SIZE(struct gf_nvml_process_util, nvmlProcessUtilizationSample_t);
SAME_OFF(struct gf_nvml_process_util, time_stamp, nvmlProcessUtilizationSample_t, timeStamp);
SAME_OFF(struct gf_nvml_process_util, sm_util, nvmlProcessUtilizationSample_t, smUtil);
SAME_OFF(struct gf_nvml_process_util, dec_util, nvmlProcessUtilizationSample_t, decUtil);
SAME_SIZE(struct gf_nvml_process_info, nvmlProcessInfo_t);
SAME_OFF(struct gf_nvml_process_info, used_gpu_memory, nvmlProcessInfo_t, usedGpuMemory);
SAME_OFF(struct gf_nvml_process_info, gpu_instance_id, nvmlProcessInfo_t, gpuInstanceId);
SAME_OFF(struct gf_nvml_process_info, compute_instance_id, nvmlProcessInfo_t, computeInstanceId);
SAME_SIZE(struct gf_nvml_gpm_support, nvmlGpmSupport_t);
SAME_OFF(struct gf_nvml_gpm_support, is_supported_device, nvmlGpmSupport_t, isSupportedDevice);
SAME_SIZE(struct gf_nvml_gpm_metric, nvmlGpmMetric_t);
SAME_OFF(struct gf_nvml_gpm_metric, nvml_return, nvmlGpmMetric_t, nvmlReturn);
SAME_OFF(struct gf_nvml_gpm_metric, value, nvmlGpmMetric_t, value);
SAME_OFF(struct gf_nvml_gpm_metric, metric_info, nvmlGpmMetric_t, metricInfo);
/* nvmlGpmMetricsGet_t's size follows NVML_GPM_METRIC_MAX (98 in NVML 12.0,
 * 333 in 13) under one version: ours must hold at least the header's. */
SAME_OFF(struct gf_nvml_gpm_metrics_get, num_metrics, nvmlGpmMetricsGet_t, numMetrics);
SAME_OFF(struct gf_nvml_gpm_metrics_get, sample1, nvmlGpmMetricsGet_t, sample1);
SAME_OFF(struct gf_nvml_gpm_metrics_get, sample2, nvmlGpmMetricsGet_t, sample2);
SAME_OFF(struct gf_nvml_gpm_metrics_get, metrics, nvmlGpmMetricsGet_t, metrics);
_Static_assert(GF_NVML_GPM_METRIC_MAX >= NVML_GPM_METRIC_MAX, "GF_NVML_GPM_METRIC_MAX too small");
SAME_VAL(GF_NVML_GPM_METRICS_GET_VERSION, NVML_GPM_METRICS_GET_VERSION);
SAME_VAL(GF_NVML_GPM_SUPPORT_VERSION, NVML_GPM_SUPPORT_VERSION);
SAME_VAL(GF_NVML_GPM_METRIC_SM_UTIL, NVML_GPM_METRIC_SM_UTIL);
SAME_VAL(GF_NVML_GPM_METRIC_SM_OCCUPANCY, NVML_GPM_METRIC_SM_OCCUPANCY);
SAME_VAL(GF_NVML_GPM_METRIC_ANY_TENSOR_UTIL, NVML_GPM_METRIC_ANY_TENSOR_UTIL);
SAME_VAL(GF_NVML_GPM_METRIC_DRAM_BW_UTIL, NVML_GPM_METRIC_DRAM_BW_UTIL);
SAME_VAL(GF_NVML_GPM_METRIC_PCIE_TX_PER_SEC, NVML_GPM_METRIC_PCIE_TX_PER_SEC);
SAME_VAL(GF_NVML_GPM_METRIC_PCIE_RX_PER_SEC, NVML_GPM_METRIC_PCIE_RX_PER_SEC);
SAME_VAL(GF_NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC);
SAME_VAL(GF_NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC);
SAME_VAL(GF_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX);
SAME_VAL(GF_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX);
SAME_VAL(GF_NVML_FI_DEV_PCIE_COUNT_TX_BYTES, NVML_FI_DEV_PCIE_COUNT_TX_BYTES);
SAME_VAL(GF_NVML_FI_DEV_PCIE_COUNT_RX_BYTES, NVML_FI_DEV_PCIE_COUNT_RX_BYTES);
SAME_VAL(GF_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
SAME_VAL(GF_NVML_VALUE_TYPE_SIGNED_LONG_LONG, NVML_VALUE_TYPE_SIGNED_LONG_LONG);
SAME_VAL(GF_NVML_VALUE_TYPE_UNSIGNED_INT, NVML_VALUE_TYPE_UNSIGNED_INT);
SAME_VAL(GF_NVML_VALUE_TYPE_UNSIGNED_LONG, NVML_VALUE_TYPE_UNSIGNED_LONG);
SAME_VAL(GF_NVML_EVENT_TYPE_XID_CRITICAL_ERROR, nvmlEventTypeXidCriticalError);
SAME_VAL(GF_NVML_PCIE_UTIL_TX_BYTES, NVML_PCIE_UTIL_TX_BYTES);
SAME_VAL(GF_NVML_PCIE_UTIL_RX_BYTES, NVML_PCIE_UTIL_RX_BYTES);
SAME_VAL(GF_NVML_CLOCK_SM, NVML_CLOCK_SM);
SAME_VAL(GF_NVML_CLOCK_MEM, NVML_CLOCK_MEM);
SAME_VAL(GF_NVML_TEMPERATURE_GPU, NVML_TEMPERATURE_GPU);
SAME_VAL(GF_NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_MEMORY_ERROR_TYPE_CORRECTED);
SAME_VAL(GF_NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
SAME_VAL(GF_NVML_VOLATILE_ECC, NVML_VOLATILE_ECC);
SAME_VAL(GF_NVML_ERROR_TIMEOUT, NVML_ERROR_TIMEOUT);
SAME_VAL(GF_NVML_ERROR_NO_DATA, NVML_ERROR_NO_DATA);
SAME_VAL(GF_NVML_ERROR_INSUFFICIENT_SIZE, NVML_ERROR_INSUFFICIENT_SIZE);
SAME_VAL(GF_NVML_CLOCKS_EVENT_GPU_IDLE, nvmlClocksEventReasonGpuIdle);
SAME_VAL(GF_NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS, nvmlClocksEventReasonApplicationsClocksSetting);
SAME_VAL(GF_NVML_CLOCKS_EVENT_SW_POWER_CAP, nvmlClocksEventReasonSwPowerCap);
SAME_VAL(GF_NVML_CLOCKS_EVENT_SYNC_BOOST, nvmlClocksEventReasonSyncBoost);
SAME_VAL(GF_NVML_CLOCKS_EVENT_HW_SLOWDOWN, nvmlClocksThrottleReasonHwSlowdown);
SAME_VAL(GF_NVML_CLOCKS_EVENT_SW_THERMAL, nvmlClocksEventReasonSwThermalSlowdown);
SAME_VAL(GF_NVML_CLOCKS_EVENT_HW_THERMAL, nvmlClocksThrottleReasonHwThermalSlowdown);
SAME_VAL(GF_NVML_CLOCKS_EVENT_HW_POWER_BRAKE, nvmlClocksThrottleReasonHwPowerBrakeSlowdown);
SAME_VAL(GF_NVML_CLOCKS_EVENT_DISPLAY_CLOCK, nvmlClocksEventReasonDisplayClockSetting);

SAME_SIZE(gf_nvml_return, nvmlReturn_t);
SAME_SIZE(int, nvmlEnableState_t);
SAME_SIZE(int, nvmlIntNvLinkDeviceType_t);
SAME_SIZE(int, nvmlGpuTopologyLevel_t);
SAME_SIZE(int, nvmlComputeMode_t);
SAME_SIZE(int, nvmlGpuP2PStatus_t);

SAME_VAL(GF_NVML_SUCCESS, NVML_SUCCESS);
SAME_VAL(GF_NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED);
SAME_VAL(GF_NVML_ERROR_DRIVER_NOT_LOADED, NVML_ERROR_DRIVER_NOT_LOADED);
SAME_VAL(GF_NVML_ERROR_NOT_FOUND, NVML_ERROR_NOT_FOUND);
SAME_VAL(GF_NVML_ERROR_GPU_IS_LOST, NVML_ERROR_GPU_IS_LOST);
SAME_VAL(GF_NVML_ERROR_ARGUMENT_VERSION_MISMATCH, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
/* We ask for links 0..ours-1 and skip those the driver refuses: ours may be
 * larger than the header's (CUDA 13.0 headers say 18, NVML 13.3 says 36). */
_Static_assert(GF_NVML_NVLINK_MAX_LINKS >= NVML_NVLINK_MAX_LINKS, "GF_NVML_NVLINK_MAX_LINKS too small");
SAME_VAL(GF_NVML_PCI_BUS_ID_BUFFER_SIZE, NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE);
SAME_VAL(GF_NVML_NVLINK_DEVICE_TYPE_SWITCH, NVML_NVLINK_DEVICE_TYPE_SWITCH);
SAME_VAL(GF_NVML_TOPOLOGY_SINGLE, NVML_TOPOLOGY_SINGLE);
SAME_VAL(GF_NVML_TOPOLOGY_MULTIPLE, NVML_TOPOLOGY_MULTIPLE);
SAME_VAL(GF_NVML_TOPOLOGY_HOSTBRIDGE, NVML_TOPOLOGY_HOSTBRIDGE);
SAME_VAL(GF_NVML_TOPOLOGY_NODE, NVML_TOPOLOGY_NODE);
SAME_VAL(GF_NVML_TOPOLOGY_SYSTEM, NVML_TOPOLOGY_SYSTEM);
SAME_VAL(GF_NVML_P2P_CAPS_INDEX_NVLINK, NVML_P2P_CAPS_INDEX_NVLINK);
SAME_VAL(GF_NVML_AFFINITY_SCOPE_NODE, NVML_AFFINITY_SCOPE_NODE);
SAME_VAL(GF_NVML_GPU_FABRIC_STATE_COMPLETED, NVML_GPU_FABRIC_STATE_COMPLETED);

int main(void)
{
	printf("nvml_abi_check: our declarations match nvml.h (NVML API %d, NVML_NVLINK_MAX_LINKS %d, ours %d)\n",
	       NVML_API_VERSION, NVML_NVLINK_MAX_LINKS, GF_NVML_NVLINK_MAX_LINKS);
	return 0;
}
