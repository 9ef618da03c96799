/* libcufile.so.0 through the one dlopen pattern (core/dl.h).  cufile.h
 * #defines cuFileDriverClose to cuFileDriverClose_v2 (reference-counted
 * close, cuFile 1.9+); the old name is the fallback.  cuFileDriverOpen has
 * one name.  cufileop_status_error() is an inline in cufile.h, not a
 * library symbol, so the error names are ours. */
#include <errno.h>
#include <stdio.h>

#include <gpufeed/env.h>
#include "core/dl.h"
#include "core/error.h"
#include "core/strutil.h"
#include "vendor/cufile/cufile.h"

static struct gf_cufile_ops cufile_ops;

static const struct gf_dl_sym cufile_syms[] = {
	GF_DL_REQUIRED(struct gf_cufile_ops, driver_open, "cuFileDriverOpen"),
	GF_DL_REQUIRED_RENAMED(struct gf_cufile_ops, driver_close, "cuFileDriverClose_v2", "cuFileDriverClose"),
	GF_DL_REQUIRED(struct gf_cufile_ops, handle_register, "cuFileHandleRegister"),
	GF_DL_REQUIRED(struct gf_cufile_ops, handle_deregister, "cuFileHandleDeregister"),
	GF_DL_REQUIRED(struct gf_cufile_ops, buf_register, "cuFileBufRegister"),
	GF_DL_REQUIRED(struct gf_cufile_ops, buf_deregister, "cuFileBufDeregister"),
	GF_DL_REQUIRED(struct gf_cufile_ops, read, "cuFileRead"),
	GF_DL_REQUIRED(struct gf_cufile_ops, write, "cuFileWrite"),
	GF_DL_OPTIONAL(struct gf_cufile_ops, driver_get_properties, "cuFileDriverGetProperties"),
	GF_DL_OPTIONAL(struct gf_cufile_ops, get_version, "cuFileGetVersion"),
	GF_DL_OPTIONAL(struct gf_cufile_ops, batch_setup, "cuFileBatchIOSetUp"),
	GF_DL_OPTIONAL(struct gf_cufile_ops, batch_submit, "cuFileBatchIOSubmit"),
	GF_DL_OPTIONAL(struct gf_cufile_ops, batch_get_status, "cuFileBatchIOGetStatus"),
	GF_DL_OPTIONAL(struct gf_cufile_ops, batch_destroy, "cuFileBatchIODestroy"),
};

static struct gf_dl_lib cufile_lib = GF_DL_LIB_INIT("cuFile", GF_CUFILE_LIBRARY_DEFAULT, GF_ENV_CUFILE_LIBRARY,
						    cufile_syms, &cufile_ops, "not a cuFile library?");

int gf_cufile_load(const struct gf_cufile_ops **ops, char *why, size_t whysize)
{
	int ret = gf_dl_load(&cufile_lib);

	/* Half a batch API is none: a caller tests batch_setup alone. */
	if (!ret && !(cufile_ops.batch_setup && cufile_ops.batch_submit && cufile_ops.batch_get_status &&
		      cufile_ops.batch_destroy))
		cufile_ops.batch_setup = NULL;
	*ops = ret ? NULL : &cufile_ops;
	gf_strlcpy(why, gf_dl_why(&cufile_lib), whysize);
	return ret;
}

const char *gf_cufile_library(void)
{
	return gf_dl_path(&cufile_lib);
}

void gf_cufile_unload(void)
{
	gf_dl_unload(&cufile_lib);
}

static const char *op_name(int err)
{
	switch (err) {
	case GF_CU_FILE_SUCCESS: return "CU_FILE_SUCCESS";
	case GF_CU_FILE_DRIVER_NOT_INITIALIZED: return "CU_FILE_DRIVER_NOT_INITIALIZED";
	case GF_CU_FILE_PLATFORM_NOT_SUPPORTED: return "CU_FILE_PLATFORM_NOT_SUPPORTED";
	case GF_CU_FILE_IO_NOT_SUPPORTED: return "CU_FILE_IO_NOT_SUPPORTED";
	case GF_CU_FILE_DEVICE_NOT_SUPPORTED: return "CU_FILE_DEVICE_NOT_SUPPORTED";
	case GF_CU_FILE_NVFS_DRIVER_ERROR: return "CU_FILE_NVFS_DRIVER_ERROR";
	case GF_CU_FILE_CUDA_DRIVER_ERROR: return "CU_FILE_CUDA_DRIVER_ERROR";
	case GF_CU_FILE_CUDA_POINTER_INVALID: return "CU_FILE_CUDA_POINTER_INVALID";
	case GF_CU_FILE_INVALID_VALUE: return "CU_FILE_INVALID_VALUE";
	case GF_CU_FILE_MEMORY_ALREADY_REGISTERED: return "CU_FILE_MEMORY_ALREADY_REGISTERED";
	case GF_CU_FILE_PERMISSION_DENIED: return "CU_FILE_PERMISSION_DENIED";
	case GF_CU_FILE_HANDLE_NOT_REGISTERED: return "CU_FILE_HANDLE_NOT_REGISTERED";
	case GF_CU_FILE_DEVICE_NOT_FOUND: return "CU_FILE_DEVICE_NOT_FOUND";
	default: return "CU_FILE error";
	}
}

const char *gf_cufile_strerror(struct gf_cufile_error e)
{
	static _Thread_local char buf[96];

	if (e.err == GF_CU_FILE_CUDA_DRIVER_ERROR)
		snprintf(buf, sizeof(buf), "%s (CUresult %d)", op_name(e.err), e.cu_err);
	else
		snprintf(buf, sizeof(buf), "%s (%d)", op_name(e.err), e.err);
	return buf;
}

static int op_errno(int err)
{
	switch (err) {
	case GF_CU_FILE_DRIVER_NOT_INITIALIZED:
	case GF_CU_FILE_PLATFORM_NOT_SUPPORTED:
	case GF_CU_FILE_DEVICE_NOT_SUPPORTED:
	case GF_CU_FILE_DEVICE_NOT_FOUND:
		return -ENODEV;
	case GF_CU_FILE_IO_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case GF_CU_FILE_INVALID_VALUE:
	case GF_CU_FILE_CUDA_POINTER_INVALID:
	case GF_CU_FILE_HANDLE_NOT_REGISTERED:
		return -EINVAL;
	case GF_CU_FILE_PERMISSION_DENIED:
		return -EACCES;
	case GF_CU_FILE_MEMORY_ALREADY_REGISTERED:
		return -EEXIST;
	default:
		return -EIO;
	}
}

int gf_cufile_check(struct gf_cufile_error e, const char *what)
{
	if (e.err == GF_CU_FILE_SUCCESS)
		return 0;
	return gf_error(op_errno(e.err), "%s: %s", what, gf_cufile_strerror(e));
}

int gf_cufile_io_error(ssize_t ret, int saved_errno, const char *what)
{
	struct gf_cufile_error e = { (int)-ret, 0 };

	if (ret == -1 || -ret < GF_CU_FILE_OP_BASE_ERR)
		return gf_error_errno(ret == -1 ? -saved_errno : (int)ret, what);
	return gf_cufile_check(e, what);
}

bool gf_cufile_compat_mode(const struct gf_cufile_ops *ops)
{
	struct gf_cufile_props p = { 0 };

	if (!ops->driver_get_properties || ops->driver_get_properties(&p).err != GF_CU_FILE_SUCCESS)
		return true;
	return p.nvfs.major_version == 0 && p.nvfs.minor_version == 0;
}
