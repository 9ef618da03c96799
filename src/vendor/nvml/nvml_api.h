/* Our own declarations of the NVML subset gpufeed uses.  Debian ships no
 * nvml.h and we never link NVML: libnvidia-ml.so.1 is dlopen'ed at run time.
 * Layouts follow NVIDIA's nvml.h (NVML 12/13); tests/gpu/nvml_abi_check.c
 * compares every struct below with the real header on a GPU machine. */
#ifndef GF_VENDOR_NVML_API_H
#define GF_VENDOR_NVML_API_H

typedef int gf_nvml_return;			/* nvmlReturn_t */
typedef struct gf_nvml_device_st *gf_nvml_device;	/* nvmlDevice_t */

#define GF_NVML_SUCCESS			0
#define GF_NVML_ERROR_UNINITIALIZED	1
#define GF_NVML_ERROR_INVALID_ARGUMENT	2
#define GF_NVML_ERROR_NOT_SUPPORTED	3
#define GF_NVML_ERROR_NO_PERMISSION	4
#define GF_NVML_ERROR_NOT_FOUND		6
#define GF_NVML_ERROR_INSUFFICIENT_SIZE	7
#define GF_NVML_ERROR_DRIVER_NOT_LOADED	9
#define GF_NVML_ERROR_TIMEOUT		10
#define GF_NVML_ERROR_LIBRARY_NOT_FOUND	12
#define GF_NVML_ERROR_FUNCTION_NOT_FOUND 13
#define GF_NVML_ERROR_GPU_IS_LOST	15
#define GF_NVML_ERROR_NO_DATA		21
#define GF_NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define GF_NVML_ERROR_UNKNOWN		999

#define GF_NVML_PCI_BUS_ID_BUFFER_SIZE		32
#define GF_NVML_PCI_BUS_ID_BUFFER_V2_SIZE	16
#define GF_NVML_DEVICE_UUID_BUFFER_SIZE		96
#define GF_NVML_DEVICE_NAME_BUFFER_SIZE		96
#define GF_NVML_DRIVER_VERSION_BUFFER_SIZE	80
#define GF_NVML_NVLINK_MAX_LINKS		36
#define GF_NVML_FABRIC_UUID_LEN			16

/* nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3, nvmlDeviceGetNvLinkRemotePciInfo_v2) */
struct gf_nvml_pci_info {
	char bus_id_legacy[GF_NVML_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pci_device_id;
	unsigned int pci_subsystem_id;
	char bus_id[GF_NVML_PCI_BUS_ID_BUFFER_SIZE];
};

/* nvmlMemory_t (v1) */
struct gf_nvml_memory {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
};

/* nvmlGpuFabricInfo_v2_t / _v3_t (nvmlDeviceGetGpuFabricInfoV) */
struct gf_nvml_fabric_info_v2 {
	unsigned int version;
	unsigned char cluster_uuid[GF_NVML_FABRIC_UUID_LEN];
	gf_nvml_return status;
	unsigned int clique_id;
	unsigned char state;
	unsigned int health_mask;
};

struct gf_nvml_fabric_info_v3 {
	unsigned int version;
	unsigned char cluster_uuid[GF_NVML_FABRIC_UUID_LEN];
	gf_nvml_return status;
	unsigned int clique_id;
	unsigned char state;
	unsigned int health_mask;
	unsigned char health_summary;
};

/* NVML_STRUCT_VERSION(data, ver) = sizeof(struct) | ver << 24 */
#define GF_NVML_STRUCT_VERSION(type, ver) ((unsigned int)(sizeof(type) | ((ver) << 24U)))

/* nvmlIntNvLinkDeviceType_t */
#define GF_NVML_NVLINK_DEVICE_TYPE_GPU		0x00
#define GF_NVML_NVLINK_DEVICE_TYPE_IBMNPU	0x01
#define GF_NVML_NVLINK_DEVICE_TYPE_SWITCH	0x02
#define GF_NVML_NVLINK_DEVICE_TYPE_UNKNOWN	0xFF

/* nvmlGpuTopologyLevel_t */
#define GF_NVML_TOPOLOGY_INTERNAL	0
#define GF_NVML_TOPOLOGY_SINGLE		10
#define GF_NVML_TOPOLOGY_MULTIPLE	20
#define GF_NVML_TOPOLOGY_HOSTBRIDGE	30
#define GF_NVML_TOPOLOGY_NODE		40
#define GF_NVML_TOPOLOGY_SYSTEM		50

/* nvmlGpuP2PCapsIndex_t / nvmlGpuP2PStatus_t */
#define GF_NVML_P2P_CAPS_INDEX_READ	0
#define GF_NVML_P2P_CAPS_INDEX_NVLINK	2
#define GF_NVML_P2P_STATUS_OK		0

#define GF_NVML_AFFINITY_SCOPE_NODE	0

/* nvmlGpuFabricState_t */
#define GF_NVML_GPU_FABRIC_STATE_NOT_SUPPORTED	0
#define GF_NVML_GPU_FABRIC_STATE_NOT_STARTED	1
#define GF_NVML_GPU_FABRIC_STATE_IN_PROGRESS	2
#define GF_NVML_GPU_FABRIC_STATE_COMPLETED	3

/* ---- Sampling (src/monitor): activity, throughput, events ---- */

/* nvmlUtilization_t (nvmlDeviceGetUtilizationRates): percent of the
 * driver's last sample period. */
struct gf_nvml_utilization {
	unsigned int gpu;
	unsigned int memory;
};

/* nvmlPcieUtilCounter_t (nvmlDeviceGetPcieThroughput, KB/s) */
#define GF_NVML_PCIE_UTIL_TX_BYTES	0
#define GF_NVML_PCIE_UTIL_RX_BYTES	1

/* nvmlClockType_t, nvmlTemperatureSensors_t */
#define GF_NVML_CLOCK_GRAPHICS		0
#define GF_NVML_CLOCK_SM		1
#define GF_NVML_CLOCK_MEM		2
#define GF_NVML_TEMPERATURE_GPU		0

/* nvmlMemoryErrorType_t, nvmlEccCounterType_t (nvmlDeviceGetTotalEccErrors) */
#define GF_NVML_MEMORY_ERROR_TYPE_CORRECTED	0
#define GF_NVML_MEMORY_ERROR_TYPE_UNCORRECTED	1
#define GF_NVML_VOLATILE_ECC			0

/* nvmlValue_t */
union gf_nvml_value {
	double d_val;
	int si_val;
	unsigned int ui_val;
	unsigned long ul_val;
	unsigned long long ull_val;
	signed long long sll_val;
	unsigned short us_val;
};

/* nvmlValueType_t */
#define GF_NVML_VALUE_TYPE_DOUBLE		0
#define GF_NVML_VALUE_TYPE_UNSIGNED_INT		1
#define GF_NVML_VALUE_TYPE_UNSIGNED_LONG	2
#define GF_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG	3
#define GF_NVML_VALUE_TYPE_SIGNED_LONG_LONG	4
#define GF_NVML_VALUE_TYPE_SIGNED_INT		5
#define GF_NVML_VALUE_TYPE_UNSIGNED_SHORT	6

/* nvmlFieldValue_t (nvmlDeviceGetFieldValues) */
struct gf_nvml_field_value {
	unsigned int field_id;
	unsigned int scope_id;		/* a link id; UINT_MAX: summed over links */
	long long timestamp;		/* microseconds since 1970 */
	long long latency_usec;
	int value_type;			/* nvmlValueType_t */
	gf_nvml_return nvml_return;
	union gf_nvml_value value;
};

/* Field ids (NVML_FI_DEV_*): NVLink data counters (KiB, cumulative) and
 * PCIe byte counters (cumulative, may wrap). */
#define GF_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX	138
#define GF_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX	139
#define GF_NVML_FI_DEV_PCIE_COUNT_TX_BYTES		197
#define GF_NVML_FI_DEV_PCIE_COUNT_RX_BYTES		198

/* nvmlEventSet_t, nvmlEventData_t (nvmlEventSetWait_v2) */
typedef struct gf_nvml_event_set_st *gf_nvml_event_set;
struct gf_nvml_event_data {
	gf_nvml_device device;
	unsigned long long event_type;
	unsigned long long event_data;	/* the XID for an XID event; 999 unknown */
	unsigned int gpu_instance_id;
	unsigned int compute_instance_id;
};
#define GF_NVML_EVENT_TYPE_XID_CRITICAL_ERROR	0x0000000000000008ULL

/* nvmlProcessUtilizationSample_t (nvmlDeviceGetProcessUtilization) */
struct gf_nvml_process_util {
	unsigned int pid;
	unsigned long long time_stamp;	/* CPU microseconds */
	unsigned int sm_util;
	unsigned int mem_util;
	unsigned int enc_util;
	unsigned int dec_util;
};

/* nvmlProcessInfo_t = nvmlProcessInfo_v2_t (nvmlDeviceGetComputeRunningProcesses_v3) */
struct gf_nvml_process_info {
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id;
	unsigned int compute_instance_id;
};

/* GPM (Hopper and newer): nvmlGpmSample_t, nvmlGpmSupport_t,
 * nvmlGpmMetric_t, nvmlGpmMetricsGet_t.  NVML_GPM_METRIC_MAX grew from 98
 * (NVML 12.0) to 333 (NVML 13) under the same NVML_GPM_METRICS_GET_VERSION
 * 1: NVML reads numMetrics entries, so ours holds the larger count and a
 * call asks for a handful. */
typedef struct gf_nvml_gpm_sample_st *gf_nvml_gpm_sample;
struct gf_nvml_gpm_support {
	unsigned int version;		/* GF_NVML_GPM_SUPPORT_VERSION */
	unsigned int is_supported_device;
};
#define GF_NVML_GPM_SUPPORT_VERSION	1

struct gf_nvml_gpm_metric {
	unsigned int metric_id;
	gf_nvml_return nvml_return;
	double value;
	struct {
		char *short_name;
		char *long_name;
		char *unit;
	} metric_info;
};

#define GF_NVML_GPM_METRIC_MAX		333
struct gf_nvml_gpm_metrics_get {
	unsigned int version;		/* GF_NVML_GPM_METRICS_GET_VERSION */
	unsigned int num_metrics;
	gf_nvml_gpm_sample sample1;
	gf_nvml_gpm_sample sample2;
	struct gf_nvml_gpm_metric metrics[GF_NVML_GPM_METRIC_MAX];
};
#define GF_NVML_GPM_METRICS_GET_VERSION	1

/* nvmlGpmMetricId_t: percentages 0..100, throughputs in MiB/s */
#define GF_NVML_GPM_METRIC_SM_UTIL			2
#define GF_NVML_GPM_METRIC_SM_OCCUPANCY			3
#define GF_NVML_GPM_METRIC_ANY_TENSOR_UTIL		5
#define GF_NVML_GPM_METRIC_DRAM_BW_UTIL			10
#define GF_NVML_GPM_METRIC_PCIE_TX_PER_SEC		20
#define GF_NVML_GPM_METRIC_PCIE_RX_PER_SEC		21
#define GF_NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC	60
#define GF_NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC	61

/* nvmlClocksEventReasons bits (nvmlDeviceGetCurrentClocksEventReasons) */
#define GF_NVML_CLOCKS_EVENT_GPU_IDLE			0x001ULL
#define GF_NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS	0x002ULL
#define GF_NVML_CLOCKS_EVENT_SW_POWER_CAP		0x004ULL
#define GF_NVML_CLOCKS_EVENT_HW_SLOWDOWN		0x008ULL
#define GF_NVML_CLOCKS_EVENT_SYNC_BOOST			0x010ULL
#define GF_NVML_CLOCKS_EVENT_SW_THERMAL			0x020ULL
#define GF_NVML_CLOCKS_EVENT_HW_THERMAL			0x040ULL
#define GF_NVML_CLOCKS_EVENT_HW_POWER_BRAKE		0x080ULL
#define GF_NVML_CLOCKS_EVENT_DISPLAY_CLOCK		0x100ULL

#endif
