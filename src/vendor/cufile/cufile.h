/* cuFile (GPUDirect Storage), loaded at run time behind an ops table (the
 * NVML pattern, core/dl.h).  Absent is normal: the bounce path then moves
 * storage to GPU memory instead. */
#ifndef GF_VENDOR_CUFILE_H
#define GF_VENDOR_CUFILE_H

#include <stdbool.h>
#include <stddef.h>
#include "vendor/cufile/cufile_api.h"

#define GF_CUFILE_LIBRARY_DEFAULT "libcufile.so.0"

struct gf_cufile_ops {
	/* Required. */
	struct gf_cufile_error (*driver_open)(void);
	struct gf_cufile_error (*driver_close)(void);
	struct gf_cufile_error (*handle_register)(gf_cufile_handle *, struct gf_cufile_descr *);
	void (*handle_deregister)(gf_cufile_handle);
	struct gf_cufile_error (*buf_register)(const void *dev_ptr, size_t, int flags);
	struct gf_cufile_error (*buf_deregister)(const void *dev_ptr);
	/* >= 0 bytes; -1 with errno; < -1: -(CUfileOpError). */
	ssize_t (*read)(gf_cufile_handle, void *dev_ptr, size_t, off_t file_off, off_t dev_off);
	ssize_t (*write)(gf_cufile_handle, const void *dev_ptr, size_t, off_t file_off, off_t dev_off);
	/* Optional. */
	struct gf_cufile_error (*driver_get_properties)(struct gf_cufile_props *);
	struct gf_cufile_error (*get_version)(int *);
	/* Optional: the batch API (cuFile 1.6+).  All four or none: the
	 * loader clears them unless every one is there. */
	struct gf_cufile_error (*batch_setup)(gf_cufile_batch *, unsigned nr);
	struct gf_cufile_error (*batch_submit)(gf_cufile_batch, unsigned nr, struct gf_cufile_io_params *,
					       unsigned flags);
	struct gf_cufile_error (*batch_get_status)(gf_cufile_batch, unsigned min_nr, unsigned *nr,
						   struct gf_cufile_io_event *, struct timespec *timeout);
	void (*batch_destroy)(gf_cufile_batch);
};

/* Loads libcufile once (thread-safe); -ENOSYS with `why` when absent. */
int gf_cufile_load(const struct gf_cufile_ops **ops, char *why, size_t whysize);
const char *gf_cufile_library(void);
void gf_cufile_unload(void);
/* "CU_FILE_DRIVER_NOT_INITIALIZED (5001)", or the CUresult for a CUDA
 * driver error: "CU_FILE_CUDA_DRIVER_ERROR (CUresult 2)". */
const char *gf_cufile_strerror(struct gf_cufile_error e);
/* The errno of a cuFileRead/Write result < 0 (-1: errno; else -op error
 * mapped like gf_cufile_check), with gf_last_error "<what>: ...". */
int gf_cufile_io_error(ssize_t ret, int saved_errno, const char *what);
/* 0, or -EIO/-ENODEV/-EOPNOTSUPP/-EINVAL with "<what>: <strerror>". */
int gf_cufile_check(struct gf_cufile_error e, const char *what);
/* Whether the driver runs in compatibility mode (no nvidia-fs: cuFile does
 * POSIX I/O plus a copy itself): no properties call, or the driver's
 * version 0.0, counts as compatibility mode. */
bool gf_cufile_compat_mode(const struct gf_cufile_ops *ops);

#endif
