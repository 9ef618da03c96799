/* Our own declarations of the cuFile (GPUDirect Storage) subset gpufeed
 * uses; libcufile.so.0 is dlopen'ed (src/vendor/cufile.c).  Values and
 * layouts follow NVIDIA's cufile.h (cuFile 1.x, CUDA 12/13) as published in
 * NVIDIA/cuda-python's cycufile.pxd and the cuda.bindings.cufile docs. */
#ifndef GF_VENDOR_CUFILE_API_H
#define GF_VENDOR_CUFILE_API_H

#include <stddef.h>
#include <sys/types.h>

/* CUfileError_t: a cuFile code and, for CU_FILE_CUDA_DRIVER_ERROR, the CUresult. */
struct gf_cufile_error {
	int err;	/* CUfileOpError */
	int cu_err;	/* CUresult */
};

typedef void *gf_cufile_handle;		/* CUfileHandle_t */

/* CUfileOpError (CUFILEOP_BASE_ERR = 5000) */
#define GF_CU_FILE_SUCCESS			0
#define GF_CU_FILE_DRIVER_NOT_INITIALIZED	5001
#define GF_CU_FILE_PLATFORM_NOT_SUPPORTED	5007
#define GF_CU_FILE_IO_NOT_SUPPORTED		5008
#define GF_CU_FILE_DEVICE_NOT_SUPPORTED		5009
#define GF_CU_FILE_NVFS_DRIVER_ERROR		5010
#define GF_CU_FILE_CUDA_DRIVER_ERROR		5011
#define GF_CU_FILE_CUDA_POINTER_INVALID		5012
#define GF_CU_FILE_INVALID_VALUE		5022
#define GF_CU_FILE_MEMORY_ALREADY_REGISTERED	5023
#define GF_CU_FILE_PERMISSION_DENIED		5025
#define GF_CU_FILE_HANDLE_NOT_REGISTERED	5027
#define GF_CU_FILE_DEVICE_NOT_FOUND		5029
#define GF_CU_FILE_OP_BASE_ERR			5000

/* CUfileFileHandleType */
#define GF_CU_FILE_HANDLE_TYPE_OPAQUE_FD	1

/* CUfileDescr_t */
struct gf_cufile_descr {
	int type;			/* GF_CU_FILE_HANDLE_TYPE_OPAQUE_FD */
	union {
		int fd;
		void *handle;
	} handle;
	const void *fs_ops;		/* CUfileFSOps_t *, NULL for a kernel file system */
};

/* CUfileDrvProps_t */
struct gf_cufile_props {
	struct {
		unsigned int major_version;
		unsigned int minor_version;
		size_t poll_thresh_size;
		size_t max_direct_io_size;
		unsigned int dstatusflags;	/* bits: CUfileDriverStatusFlags_t */
		unsigned int dcontrolflags;	/* bits: CUfileDriverControlFlags_t */
	} nvfs;
	unsigned int fflags;			/* bits: CUfileFeatureFlags_t */
	unsigned int max_device_cache_size;
	unsigned int per_buffer_cache_size;
	unsigned int max_device_pinned_mem_size;
	unsigned int max_batch_io_size;
	unsigned int max_batch_io_timeout_msecs;
};

/* CUfileDriverControlFlags_t: bit numbers in nvfs.dcontrolflags */
#define GF_CU_FILE_USE_POLL_MODE	0
#define GF_CU_FILE_ALLOW_COMPAT_MODE	1
/* CUfileDriverStatusFlags_t: bit numbers in nvfs.dstatusflags */
#define GF_CU_FILE_NVME_SUPPORTED	4
/* CUfileFeatureFlags_t: bit numbers in fflags */
#define GF_CU_FILE_BATCH_IO_SUPPORTED	1
#define GF_CU_FILE_STREAMS_SUPPORTED	2

#endif
