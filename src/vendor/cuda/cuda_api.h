/* Our own declarations of the CUDA driver API subset gpufeed uses.  We never
 * link libcuda and the build needs no CUDA toolkit: libcuda.so.1 is
 * dlopen'ed at run time (src/vendor/cuda.c).  Types, values and layouts
 * follow NVIDIA's cuda.h (CUDA 13.0, checked against it); on a machine with
 * the toolkit tests/gpu/cuda_abi_check.c compares every one of them. */
#ifndef GF_VENDOR_CUDA_API_H
#define GF_VENDOR_CUDA_API_H

#include <stddef.h>

typedef int gf_cu_result;				/* CUresult */
typedef int gf_cu_device;				/* CUdevice (an ordinal) */
typedef unsigned long long gf_cu_deviceptr;		/* CUdeviceptr (_v2: 64-bit) */
typedef struct gf_cu_ctx_st *gf_cu_context;		/* CUcontext */
typedef struct gf_cu_stream_st *gf_cu_stream;		/* CUstream */
typedef struct gf_cu_event_st *gf_cu_event;		/* CUevent */
typedef struct gf_cu_module_st *gf_cu_module;		/* CUmodule */
typedef struct gf_cu_function_st *gf_cu_function;	/* CUfunction */

/* CUuuid */
struct gf_cu_uuid {
	char bytes[16];
};

/* CUresult: the values gpufeed names or maps to an errno. */
#define GF_CUDA_SUCCESS				0
#define GF_CUDA_ERROR_INVALID_VALUE		1
#define GF_CUDA_ERROR_OUT_OF_MEMORY		2
#define GF_CUDA_ERROR_NOT_INITIALIZED		3
#define GF_CUDA_ERROR_DEINITIALIZED		4
#define GF_CUDA_ERROR_STUB_LIBRARY		34
#define GF_CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER 36
#define GF_CUDA_ERROR_DEVICE_UNAVAILABLE	46
#define GF_CUDA_ERROR_NO_DEVICE			100
#define GF_CUDA_ERROR_INVALID_DEVICE		101
#define GF_CUDA_ERROR_INVALID_IMAGE		200
#define GF_CUDA_ERROR_INVALID_CONTEXT		201
#define GF_CUDA_ERROR_NO_BINARY_FOR_GPU		209
#define GF_CUDA_ERROR_PEER_ACCESS_UNSUPPORTED	217
#define GF_CUDA_ERROR_INVALID_PTX		218
#define GF_CUDA_ERROR_UNSUPPORTED_PTX_VERSION	222
#define GF_CUDA_ERROR_INVALID_HANDLE		400
#define GF_CUDA_ERROR_NOT_FOUND			500
#define GF_CUDA_ERROR_NOT_READY			600
#define GF_CUDA_ERROR_ILLEGAL_ADDRESS		700
#define GF_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED 704
#define GF_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED 712
#define GF_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED 713
#define GF_CUDA_ERROR_LAUNCH_FAILED		719
#define GF_CUDA_ERROR_NOT_PERMITTED		800
#define GF_CUDA_ERROR_NOT_SUPPORTED		801
#define GF_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH	803
#define GF_CUDA_ERROR_UNKNOWN			999

/* CUdevice_attribute: the ones gpufeed reads. */
#define GF_CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK	1
#define GF_CU_DEVICE_ATTRIBUTE_WARP_SIZE		10
#define GF_CU_DEVICE_ATTRIBUTE_CLOCK_RATE		13
#define GF_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT	16
#define GF_CU_DEVICE_ATTRIBUTE_INTEGRATED		18
#define GF_CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY	19
#define GF_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID		33
#define GF_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID		34
#define GF_CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE	36
#define GF_CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH	37
#define GF_CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE		38
#define GF_CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT	40
#define GF_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING	41
#define GF_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID		50
#define GF_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR	75
#define GF_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR	76
#define GF_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS	88
#define GF_CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM 91
#define GF_CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED	99
#define GF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED 116
#define GF_CU_DEVICE_ATTRIBUTE_NUMA_ID			131
#define GF_CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID		134

/* CUdevice_P2PAttribute */
#define GF_CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK	1
#define GF_CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED	2
#define GF_CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED 3

/* cuMemHostAlloc / cuMemHostRegister flags */
#define GF_CU_MEMHOSTALLOC_PORTABLE		0x01
#define GF_CU_MEMHOSTALLOC_DEVICEMAP		0x02
#define GF_CU_MEMHOSTALLOC_WRITECOMBINED	0x04
#define GF_CU_MEMHOSTREGISTER_PORTABLE		0x01
#define GF_CU_MEMHOSTREGISTER_DEVICEMAP		0x02
#define GF_CU_MEMHOSTREGISTER_READ_ONLY		0x08

/* CUevent_flags / CUstream_flags */
#define GF_CU_EVENT_DEFAULT		0x0
#define GF_CU_EVENT_BLOCKING_SYNC	0x1
#define GF_CU_EVENT_DISABLE_TIMING	0x2
#define GF_CU_STREAM_DEFAULT		0x0
#define GF_CU_STREAM_NON_BLOCKING	0x1

/* cuDeviceGetPCIBusId writes "0000:00:06.0"; 16 bytes hold any domain. */
#define GF_CU_PCI_BUS_ID_SIZE		16

#endif
