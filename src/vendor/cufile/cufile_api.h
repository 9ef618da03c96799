/* Our own declarations of the cuFile (GPUDirect Storage) subset gpufeed
 * uses; libcufile.so.0 is dlopen'ed (src/vendor/cufile.c).  Values and
 * layouts follow NVIDIA's cufile.h (cuFile 1.x, CUDA 12/13) as published in
 * NVIDIA/cuda-python's cycufile.pxd and the cuda.bindings.cufile docs. */
#ifndef GF_VENDOR_CUFILE_API_H
#define GF_VENDOR_CUFILE_API_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

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

/* ---- batch API (cuFile 1.6+).  Layouts from NVIDIA/cuda-python's
 * cuda/bindings/cycufile.pxd (generated from cufile.h of CUDA 12.9.0 to
 * 13.0.1; found with the code search, its CUfileIOParams_t, _anon_pod2/3
 * and CUfileIOEvents_t) and the CUfileStatus_t values of cufile.h as
 * quoted in the GDS API reference: mode is an enum (int) and comes first;
 * the union holds one struct of pointer, off_t, off_t, size_t. */
typedef void *gf_cufile_batch;		/* CUfileBatchHandle_t */

/* CUfileOpcode_t */
#define GF_CUFILE_READ		0
#define GF_CUFILE_WRITE		1
/* CUfileBatchMode_t */
#define GF_CUFILE_BATCH		1
/* CUfileStatus_t */
#define GF_CUFILE_WAITING	0x01
#define GF_CUFILE_PENDING	0x02
#define GF_CUFILE_INVALID	0x04
#define GF_CUFILE_CANCELED	0x08
#define GF_CUFILE_COMPLETE	0x10
#define GF_CUFILE_TIMEOUT	0x20
#define GF_CUFILE_FAILED	0x40

/* CUfileIOParams_t */
struct gf_cufile_io_params {
	int mode;			/* GF_CUFILE_BATCH; first, always */
	union {
		struct {
			void *dev_ptr_base;	/* registered base */
			off_t file_offset;
			off_t dev_ptr_offset;
			size_t size;
		} batch;
	} u;
	gf_cufile_handle fh;
	int opcode;			/* GF_CUFILE_READ / WRITE */
	void *cookie;
};

/* CUfileIOEvents_t */
struct gf_cufile_io_event {
	void *cookie;
	int status;			/* GF_CUFILE_* status */
	size_t ret;			/* bytes, or a negative error as size_t */
};

#endif
