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
