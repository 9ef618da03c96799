/* The CUDA driver API, loaded at run time behind an ops table (the NVML
 * pattern, core/dl.h).  An absent libcuda.so.1 is a normal state:
 * gf_cuda_load() says why and returns -ENOSYS.  Devices, contexts and the
 * errno mapping of CUresult are in vendor/cuda_device.h. */
#ifndef GF_VENDOR_CUDA_H
#define GF_VENDOR_CUDA_H

#include <stddef.h>
#include "vendor/cuda/cuda_api.h"

/* Where to load it from; GPUFEED_CUDA_LIBRARY (GF_ENV_CUDA_LIBRARY) points
 * it elsewhere, e.g. at the stand-in tests/fakes/fake_cuda.c. */
#define GF_CUDA_LIBRARY_DEFAULT "libcuda.so.1"

/* Filled by gf_cuda_load() (src/vendor/cuda.c lists the symbol of each:
 * the versioned names cuda.h's #defines resolve to, e.g. mem_alloc is
 * cuMemAlloc_v2, the 64-bit-size ABI). */
struct gf_cuda_ops {
	/* Required. */
	gf_cu_result (*init)(unsigned int flags);
	gf_cu_result (*driver_version)(int *);
	gf_cu_result (*device_count)(int *);
	gf_cu_result (*device_get)(gf_cu_device *, int ordinal);
	gf_cu_result (*device_attribute)(int *, int attrib, gf_cu_device);
	gf_cu_result (*device_pci_bus_id)(char *, int len, gf_cu_device);
	gf_cu_result (*primary_ctx_retain)(gf_cu_context *, gf_cu_device);
	gf_cu_result (*primary_ctx_release)(gf_cu_device);
	gf_cu_result (*ctx_set_current)(gf_cu_context);
	gf_cu_result (*ctx_synchronize)(void);
	gf_cu_result (*mem_alloc)(gf_cu_deviceptr *, size_t);
	gf_cu_result (*mem_free)(gf_cu_deviceptr);
	gf_cu_result (*mem_host_alloc)(void **, size_t, unsigned int flags);
	gf_cu_result (*mem_free_host)(void *);
	gf_cu_result (*mem_host_register)(void *, size_t, unsigned int flags);
	gf_cu_result (*mem_host_unregister)(void *);
	gf_cu_result (*memcpy_htod_async)(gf_cu_deviceptr, const void *, size_t, gf_cu_stream);
	gf_cu_result (*memcpy_dtoh_async)(void *, gf_cu_deviceptr, size_t, gf_cu_stream);
	gf_cu_result (*memcpy_dtod_async)(gf_cu_deviceptr, gf_cu_deviceptr, size_t, gf_cu_stream);
	gf_cu_result (*memcpy_peer_async)(gf_cu_deviceptr, gf_cu_context, gf_cu_deviceptr,
					  gf_cu_context, size_t, gf_cu_stream);
	gf_cu_result (*memset_d8_async)(gf_cu_deviceptr, unsigned char, size_t, gf_cu_stream);
	gf_cu_result (*stream_create)(gf_cu_stream *, unsigned int flags);
	gf_cu_result (*stream_destroy)(gf_cu_stream);
	gf_cu_result (*stream_synchronize)(gf_cu_stream);
	gf_cu_result (*stream_wait_event)(gf_cu_stream, gf_cu_event, unsigned int flags);
	gf_cu_result (*event_create)(gf_cu_event *, unsigned int flags);
	gf_cu_result (*event_record)(gf_cu_event, gf_cu_stream);
	gf_cu_result (*event_synchronize)(gf_cu_event);
	gf_cu_result (*event_elapsed_time)(float *ms, gf_cu_event start, gf_cu_event end);
	gf_cu_result (*event_destroy)(gf_cu_event);
	gf_cu_result (*device_can_access_peer)(int *, gf_cu_device, gf_cu_device peer);
	gf_cu_result (*ctx_enable_peer_access)(gf_cu_context peer, unsigned int flags);
	gf_cu_result (*module_load_data)(gf_cu_module *, const void *image);
	gf_cu_result (*module_get_function)(gf_cu_function *, gf_cu_module, const char *);
	gf_cu_result (*module_unload)(gf_cu_module);
	gf_cu_result (*launch_kernel)(gf_cu_function, unsigned gx, unsigned gy, unsigned gz,
				      unsigned bx, unsigned by, unsigned bz, unsigned shared_bytes,
				      gf_cu_stream, void **params, void **extra);
	/* Optional: NULL when this driver lacks them. */
	gf_cu_result (*error_name)(gf_cu_result, const char **);
	gf_cu_result (*error_string)(gf_cu_result, const char **);
	gf_cu_result (*device_name)(char *, int len, gf_cu_device);
	gf_cu_result (*device_uuid)(struct gf_cu_uuid *, gf_cu_device);
	gf_cu_result (*device_p2p_attribute)(int *, int attrib, gf_cu_device src, gf_cu_device dst);
	gf_cu_result (*mem_get_info)(size_t *free_bytes, size_t *total_bytes);
	gf_cu_result (*event_query)(gf_cu_event);
	gf_cu_result (*stream_query)(gf_cu_stream);
};

/* Loads libcuda once per process (thread-safe) and points *ops at the
 * table.  -ENOSYS: library absent or lacking a required symbol; `why` then
 * reads e.g. "libcuda.so.1 not found".  Does not call cuInit (see
 * gf_cuda_init() in vendor/cuda_device.h). */
int gf_cuda_load(const struct gf_cuda_ops **ops, char *why, size_t whysize);
/* The file loaded (the override or the soname); "" before the first load. */
const char *gf_cuda_library(void);
/* Forget the loaded library so the next load reads GPUFEED_CUDA_LIBRARY
 * again.  Tests only: no other thread may be using CUDA. */
void gf_cuda_unload(void);
/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" from cuGetErrorName and
 * cuGetErrorString, or "CUDA error 2" when the driver names nothing. */
const char *gf_cuda_strerror(const struct gf_cuda_ops *ops, gf_cu_result r);

#endif
