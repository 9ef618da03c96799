/* NVML, loaded at run time behind an ops table.  An absent library is a
 * normal state: gf_nvml_load() says why and returns -ENOSYS. */
#ifndef GF_VENDOR_NVML_H
#define GF_VENDOR_NVML_H

#include <stddef.h>
#include "vendor/nvml/nvml_api.h"

/* Where to load it from; GPUFEED_NVML_LIBRARY (GF_ENV_NVML_LIBRARY) points
 * it elsewhere, e.g. at the stand-in tests/fakes/fake_nvml.c. */
#define GF_NVML_LIBRARY_DEFAULT "libnvidia-ml.so.1"

typedef gf_nvml_return gf_nvml_fn_dev_uint(gf_nvml_device, unsigned int *);

/* Filled by gf_nvml_load() (src/vendor/nvml.c lists the symbol of each). */
struct gf_nvml_ops {
	/* Required. */
	gf_nvml_return (*init)(void);
	gf_nvml_return (*shutdown)(void);
	const char *(*error_string)(gf_nvml_return);
	gf_nvml_return (*device_count)(unsigned int *);
	gf_nvml_return (*device_by_index)(unsigned int, gf_nvml_device *);
	gf_nvml_return (*pci_info)(gf_nvml_device, struct gf_nvml_pci_info *);
	/* Optional: NULL when this NVML lacks them (then "not supported"). */
	gf_nvml_return (*system_driver_version)(char *, unsigned int);
	gf_nvml_return (*system_nvml_version)(char *, unsigned int);
	gf_nvml_return (*system_cuda_version)(int *);
	gf_nvml_return (*name)(gf_nvml_device, char *, unsigned int);
	gf_nvml_return (*uuid)(gf_nvml_device, char *, unsigned int);
	gf_nvml_return (*memory_info)(gf_nvml_device, struct gf_nvml_memory *);
	gf_nvml_fn_dev_uint *minor_number;
	gf_nvml_return (*cpu_affinity)(gf_nvml_device, unsigned int, unsigned long *);
	gf_nvml_return (*memory_affinity)(gf_nvml_device, unsigned int, unsigned long *, unsigned int);
	gf_nvml_fn_dev_uint *numa_node_id;
	gf_nvml_fn_dev_uint *curr_pcie_gen;
	gf_nvml_fn_dev_uint *curr_pcie_width;
	gf_nvml_fn_dev_uint *max_pcie_gen;
	gf_nvml_fn_dev_uint *max_pcie_width;
	gf_nvml_return (*nvlink_state)(gf_nvml_device, unsigned int, int *);
	gf_nvml_return (*nvlink_version)(gf_nvml_device, unsigned int, unsigned int *);
	gf_nvml_return (*nvlink_remote_pci)(gf_nvml_device, unsigned int, struct gf_nvml_pci_info *);
	gf_nvml_return (*nvlink_remote_type)(gf_nvml_device, unsigned int, int *);
	gf_nvml_return (*mig_mode)(gf_nvml_device, unsigned int *, unsigned int *);
	gf_nvml_fn_dev_uint *max_mig_count;
	gf_nvml_return (*mig_by_index)(gf_nvml_device, unsigned int, gf_nvml_device *);
	gf_nvml_fn_dev_uint *gpu_instance_id;
	gf_nvml_fn_dev_uint *compute_instance_id;
	gf_nvml_return (*common_ancestor)(gf_nvml_device, gf_nvml_device, int *);
	gf_nvml_return (*p2p_status)(gf_nvml_device, gf_nvml_device, int, int *);
	gf_nvml_return (*persistence_mode)(gf_nvml_device, int *);
	gf_nvml_return (*compute_mode)(gf_nvml_device, int *);
	gf_nvml_return (*ecc_mode)(gf_nvml_device, int *, int *);
	gf_nvml_return (*remapped_rows)(gf_nvml_device, unsigned int *, unsigned int *,
					unsigned int *, unsigned int *);
	gf_nvml_return (*retired_pages_pending)(gf_nvml_device, int *);
	gf_nvml_return (*clocks_event_reasons)(gf_nvml_device, unsigned long long *);
	gf_nvml_fn_dev_uint *power_limit;
	gf_nvml_fn_dev_uint *power_default_limit;
	gf_nvml_fn_dev_uint *power_enforced_limit;
	gf_nvml_return (*power_limit_constraints)(gf_nvml_device, unsigned int *, unsigned int *);
	gf_nvml_return (*fabric_info_v)(gf_nvml_device, void *);
	/* Sampling (src/monitor), all optional.  Enum arguments are ints. */
	gf_nvml_return (*utilization)(gf_nvml_device, struct gf_nvml_utilization *);
	gf_nvml_return (*pcie_throughput)(gf_nvml_device, int, unsigned int *);
	gf_nvml_return (*field_values)(gf_nvml_device, int, struct gf_nvml_field_value *);
	gf_nvml_fn_dev_uint *power_usage;
	gf_nvml_return (*clock_info)(gf_nvml_device, int, unsigned int *);
	gf_nvml_return (*temperature)(gf_nvml_device, int, unsigned int *);
	gf_nvml_return (*total_ecc_errors)(gf_nvml_device, int, int, unsigned long long *);
	gf_nvml_return (*event_set_create)(gf_nvml_event_set *);
	gf_nvml_return (*register_events)(gf_nvml_device, unsigned long long, gf_nvml_event_set);
	gf_nvml_return (*supported_event_types)(gf_nvml_device, unsigned long long *);
	gf_nvml_return (*event_set_wait)(gf_nvml_event_set, struct gf_nvml_event_data *, unsigned int);
	gf_nvml_return (*event_set_free)(gf_nvml_event_set);
	gf_nvml_return (*process_utilization)(gf_nvml_device, struct gf_nvml_process_util *, unsigned int *,
					      unsigned long long);
	gf_nvml_return (*compute_processes)(gf_nvml_device, unsigned int *, struct gf_nvml_process_info *);
	gf_nvml_return (*gpm_query_support)(gf_nvml_device, struct gf_nvml_gpm_support *);
	gf_nvml_return (*gpm_sample_alloc)(gf_nvml_gpm_sample *);
	gf_nvml_return (*gpm_sample_free)(gf_nvml_gpm_sample);
	gf_nvml_return (*gpm_sample_get)(gf_nvml_device, gf_nvml_gpm_sample);
	gf_nvml_return (*gpm_metrics_get)(struct gf_nvml_gpm_metrics_get *);
};

/* Loads NVML once per process (thread-safe) and points *ops at the table.
 * -ENOSYS: library absent or lacking a required symbol; `why` then reads
 * e.g. "libnvidia-ml.so.1 not found" or "GPUFEED_NVML_LIBRARY=/x/libnv.so
 * lacks nvmlDeviceGetPciInfo_v3 (driver older than R450?)". */
int gf_nvml_load(const struct gf_nvml_ops **ops, char *why, size_t whysize);
/* The file loaded (the override or the soname); "" before the first load. */
const char *gf_nvml_library(void);
/* Forget the loaded library so the next load reads GPUFEED_NVML_LIBRARY
 * again.  Tests only: no other thread may be using NVML. */
void gf_nvml_unload(void);
/* nvmlErrorString, or "NVML error N" when even that is missing. */
const char *gf_nvml_strerror(const struct gf_nvml_ops *ops, gf_nvml_return r);

#endif
