/* libcuda.so.1 through the one dlopen pattern (core/dl.h): the symbols
 * gpufeed uses, which of them it cannot do without, and the ops table they
 * fill.
 *
 * Why dlsym by versioned name and not cuGetProcAddress (NCCL's cudawrap.cc
 * prefers the latter): the names below are what cuda.h's #defines resolve
 * to, libcuda exports every one of them as a stable ABI, and plain dlsym
 * keeps one loader for every vendor library (and lets a stand-in library
 * be an ordinary .so).  cuGetProcAddress itself changed signature in CUDA
 * 12 (_v2) and would add a second lookup path to test; it buys per-thread
 * default-stream variants (_ptsz), which gpufeed never uses: every call
 * takes an explicit stream. */
#include <stdio.h>

#include <gpufeed/env.h>
#include "core/dl.h"
#include "core/strutil.h"
#include "vendor/cuda/cuda.h"

static struct gf_cuda_ops cuda_ops;

#define REQ(field, name) GF_DL_REQUIRED(struct gf_cuda_ops, field, name)
#define OPT(field, name) GF_DL_OPTIONAL(struct gf_cuda_ops, field, name)

static const struct gf_dl_sym cuda_syms[] = {
	/* Required: all there since CUDA 11.0 (R450); the _v2 names are the
	 * 64-bit size and pointer ABI (cuMemAlloc_v2) or the CUDA 11 context
	 * semantics (cuDevicePrimaryCtxRelease_v2, cu{Stream,Event}Destroy_v2). */
	REQ(init, "cuInit"),
	REQ(driver_version, "cuDriverGetVersion"),
	REQ(device_count, "cuDeviceGetCount"),
	REQ(device_get, "cuDeviceGet"),
	REQ(device_attribute, "cuDeviceGetAttribute"),
	REQ(device_pci_bus_id, "cuDeviceGetPCIBusId"),
	REQ(primary_ctx_retain, "cuDevicePrimaryCtxRetain"),
	REQ(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2"),
	REQ(ctx_set_current, "cuCtxSetCurrent"),
	REQ(ctx_synchronize, "cuCtxSynchronize"),
	REQ(mem_alloc, "cuMemAlloc_v2"),
	REQ(mem_free, "cuMemFree_v2"),
	REQ(mem_host_alloc, "cuMemHostAlloc"),
	REQ(mem_free_host, "cuMemFreeHost"),
	REQ(mem_host_register, "cuMemHostRegister_v2"),
	REQ(mem_host_unregister, "cuMemHostUnregister"),
	REQ(memcpy_htod_async, "cuMemcpyHtoDAsync_v2"),
	REQ(memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2"),
	REQ(memcpy_dtod_async, "cuMemcpyDtoDAsync_v2"),
	REQ(memcpy_peer_async, "cuMemcpyPeerAsync"),
	REQ(memset_d8_async, "cuMemsetD8Async"),
	REQ(stream_create, "cuStreamCreate"),
	REQ(stream_destroy, "cuStreamDestroy_v2"),
	REQ(stream_synchronize, "cuStreamSynchronize"),
	REQ(stream_wait_event, "cuStreamWaitEvent"),
	REQ(event_create, "cuEventCreate"),
	REQ(event_record, "cuEventRecord"),
	REQ(event_synchronize, "cuEventSynchronize"),
	/* CUDA 12.8 added _v2 (same signature); older drivers only have v1. */
	GF_DL_REQUIRED_RENAMED(struct gf_cuda_ops, event_elapsed_time, "cuEventElapsedTime_v2",
			       "cuEventElapsedTime"),
	REQ(event_destroy, "cuEventDestroy_v2"),
	REQ(device_can_access_peer, "cuDeviceCanAccessPeer"),
	REQ(ctx_enable_peer_access, "cuCtxEnablePeerAccess"),
	REQ(module_load_data, "cuModuleLoadData"),
	REQ(module_get_function, "cuModuleGetFunction"),
	REQ(module_unload, "cuModuleUnload"),
	REQ(launch_kernel, "cuLaunchKernel"),
	/* Optional: NULL when this driver lacks them. */
	OPT(error_name, "cuGetErrorName"),
	OPT(error_string, "cuGetErrorString"),
	OPT(device_name, "cuDeviceGetName"),
	OPT(device_uuid, "cuDeviceGetUuid_v2"),
	OPT(device_p2p_attribute, "cuDeviceGetP2PAttribute"),
	OPT(mem_get_info, "cuMemGetInfo_v2"),
	OPT(event_query, "cuEventQuery"),
	OPT(stream_query, "cuStreamQuery"),
};

static struct gf_dl_lib cuda_lib = GF_DL_LIB_INIT("CUDA", GF_CUDA_LIBRARY_DEFAULT, GF_ENV_CUDA_LIBRARY,
						  cuda_syms, &cuda_ops, "driver older than CUDA 11, R450?");

int gf_cuda_load(const struct gf_cuda_ops **ops, char *why, size_t whysize)
{
	int ret = gf_dl_load(&cuda_lib);

	*ops = ret ? NULL : &cuda_ops;
	gf_strlcpy(why, gf_dl_why(&cuda_lib), whysize);
	return ret;
}

const char *gf_cuda_library(void)
{
	return gf_dl_path(&cuda_lib);
}

void gf_cuda_unload(void)
{
	gf_dl_unload(&cuda_lib);
}

const char *gf_cuda_strerror(const struct gf_cuda_ops *ops, gf_cu_result r)
{
	static _Thread_local char buf[192];
	const char *name = NULL, *text = NULL;

	/* Both return CUDA_ERROR_INVALID_VALUE (and NULL) for a code they do
	 * not know, which a newer driver's code is to an older table. */
	if (ops && ops->error_name && ops->error_name(r, &name) != GF_CUDA_SUCCESS)
		name = NULL;
	if (ops && ops->error_string && ops->error_string(r, &text) != GF_CUDA_SUCCESS)
		text = NULL;
	if (name && text)
		snprintf(buf, sizeof(buf), "%s (%s)", name, text);
	else if (name)
		snprintf(buf, sizeof(buf), "%s", name);
	else
		snprintf(buf, sizeof(buf), "CUDA error %d", r);
	return buf;
}
