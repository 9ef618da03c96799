/* Compares our cuFile declarations (src/vendor/cufile/cufile_api.h, written from
 * cuda-python's cycufile.pxd, not from the header) with NVIDIA's cufile.h:
 * sizes, field offsets and constants.  Built where the header is
 * (run-gpu-tests.sh): a mismatch fails the build, so success prints one
 * line. */
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <cufile.h>	/* wants loff_t (_GNU_SOURCE), struct timespec, sockaddr */

#include "vendor/cufile/cufile_api.h"

#define SAME_SIZE(ours, theirs) _Static_assert(sizeof(ours) == sizeof(theirs), #ours " size")
#define SAME_OFF(ours, of, theirs, tf) \
	_Static_assert(offsetof(ours, of) == offsetof(theirs, tf), #ours "." #of " offset")
#define SAME_VAL(ours, theirs) _Static_assert((ours) == (theirs), #ours " value")

SAME_SIZE(struct gf_cufile_error, CUfileError_t);
SAME_OFF(struct gf_cufile_error, cu_err, CUfileError_t, cu_err);
SAME_SIZE(struct gf_cufile_descr, CUfileDescr_t);
SAME_OFF(struct gf_cufile_descr, handle, CUfileDescr_t, handle);
SAME_OFF(struct gf_cufile_descr, fs_ops, CUfileDescr_t, fs_ops);
SAME_SIZE(struct gf_cufile_props, CUfileDrvProps_t);
SAME_OFF(struct gf_cufile_props, fflags, CUfileDrvProps_t, fflags);
SAME_OFF(struct gf_cufile_props, max_batch_io_size, CUfileDrvProps_t, max_batch_io_size);
SAME_OFF(struct gf_cufile_props, nvfs.dcontrolflags, CUfileDrvProps_t, nvfs.dcontrolflags);
SAME_SIZE(struct gf_cufile_io_params, CUfileIOParams_t);
SAME_OFF(struct gf_cufile_io_params, u.batch.dev_ptr_base, CUfileIOParams_t, u.batch.devPtr_base);
SAME_OFF(struct gf_cufile_io_params, u.batch.file_offset, CUfileIOParams_t, u.batch.file_offset);
SAME_OFF(struct gf_cufile_io_params, u.batch.dev_ptr_offset, CUfileIOParams_t, u.batch.devPtr_offset);
SAME_OFF(struct gf_cufile_io_params, u.batch.size, CUfileIOParams_t, u.batch.size);
SAME_OFF(struct gf_cufile_io_params, fh, CUfileIOParams_t, fh);
SAME_OFF(struct gf_cufile_io_params, opcode, CUfileIOParams_t, opcode);
SAME_OFF(struct gf_cufile_io_params, cookie, CUfileIOParams_t, cookie);
SAME_SIZE(struct gf_cufile_io_event, CUfileIOEvents_t);
SAME_OFF(struct gf_cufile_io_event, status, CUfileIOEvents_t, status);
SAME_OFF(struct gf_cufile_io_event, ret, CUfileIOEvents_t, ret);
SAME_VAL(GF_CU_FILE_DRIVER_NOT_INITIALIZED, CU_FILE_DRIVER_NOT_INITIALIZED);
SAME_VAL(GF_CU_FILE_PLATFORM_NOT_SUPPORTED, CU_FILE_PLATFORM_NOT_SUPPORTED);
SAME_VAL(GF_CU_FILE_CUDA_DRIVER_ERROR, CU_FILE_CUDA_DRIVER_ERROR);
SAME_VAL(GF_CU_FILE_INVALID_VALUE, CU_FILE_INVALID_VALUE);
SAME_VAL(GF_CU_FILE_DEVICE_NOT_FOUND, CU_FILE_DEVICE_NOT_FOUND);
SAME_VAL(GF_CU_FILE_HANDLE_TYPE_OPAQUE_FD, CU_FILE_HANDLE_TYPE_OPAQUE_FD);
SAME_VAL(GF_CU_FILE_ALLOW_COMPAT_MODE, CU_FILE_ALLOW_COMPAT_MODE);
SAME_VAL(GF_CU_FILE_BATCH_IO_SUPPORTED, CU_FILE_BATCH_IO_SUPPORTED);
SAME_VAL(GF_CUFILE_READ, CUFILE_READ);
SAME_VAL(GF_CUFILE_BATCH, CUFILE_BATCH);
SAME_VAL(GF_CUFILE_COMPLETE, CUFILE_COMPLETE);
SAME_VAL(GF_CUFILE_FAILED, CUFILE_FAILED);

int main(void)
{
	printf("cufile_abi_check: cufile_api.h matches cufile.h\n");
	return 0;
}
