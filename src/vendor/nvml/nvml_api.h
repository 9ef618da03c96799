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
#define GF_NVML_ERROR_LIBRARY_NOT_FOUND	12
#define GF_NVML_ERROR_FUNCTION_NOT_FOUND 13
#define GF_NVML_ERROR_GPU_IS_LOST	15
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

#endif
