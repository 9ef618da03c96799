/* A stand-in libcufile.so.0: compatibility mode (no nvidia-fs, version 0.0
 * in the properties), reads and writes through pread/pwrite into the
 * buffer the caller passes (a host buffer standing for GPU memory: the
 * stand-in cannot see fake_cuda's allocations).
 *   FAKE_CUFILE_SCENARIO  no_driver (cuFileDriverOpen:
 *                         CU_FILE_DRIVER_NOT_INITIALIZED), nvfs (properties
 *                         say nvidia-fs 2.17 is loaded)
 *
 * fake-soname: libcufile.so.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vendor/cufile_api.h"

static int opened;

static const char *scenario(void)
{
	const char *s = getenv("FAKE_CUFILE_SCENARIO");

	return s ? s : "";
}

static struct gf_cufile_error status(int err)
{
	return (struct gf_cufile_error){ err, 0 };
}

struct gf_cufile_error cuFileDriverOpen(void)
{
	if (!strcmp(scenario(), "no_driver"))
		return status(GF_CU_FILE_DRIVER_NOT_INITIALIZED);
	opened++;
	return status(GF_CU_FILE_SUCCESS);
}

struct gf_cufile_error cuFileDriverClose_v2(void)
{
	if (opened <= 0)
		return status(GF_CU_FILE_DRIVER_NOT_INITIALIZED);
	opened--;
	return status(GF_CU_FILE_SUCCESS);
}

struct gf_cufile_error cuFileDriverGetProperties(struct gf_cufile_props *p)
{
	memset(p, 0, sizeof(*p));
	if (!strcmp(scenario(), "nvfs")) {
		p->nvfs.major_version = 2;
		p->nvfs.minor_version = 17;
		p->nvfs.dstatusflags = 1u << GF_CU_FILE_NVME_SUPPORTED;
	}
	p->nvfs.dcontrolflags = 1u << GF_CU_FILE_ALLOW_COMPAT_MODE;
	p->fflags = 1u << GF_CU_FILE_BATCH_IO_SUPPORTED;
	p->max_batch_io_size = 128;
	return status(GF_CU_FILE_SUCCESS);
}

struct gf_cufile_error cuFileHandleRegister(gf_cufile_handle *h, struct gf_cufile_descr *d)
{
	if (!opened)
		return status(GF_CU_FILE_DRIVER_NOT_INITIALIZED);
	if (d->type != GF_CU_FILE_HANDLE_TYPE_OPAQUE_FD || d->handle.fd < 0)
		return status(GF_CU_FILE_INVALID_VALUE);
	*h = (gf_cufile_handle)(long)(d->handle.fd + 1);
	return status(GF_CU_FILE_SUCCESS);
}

void cuFileHandleDeregister(gf_cufile_handle h)
{
	(void)h;
}

struct gf_cufile_error cuFileBufRegister(const void *p, size_t len, int flags)
{
	return status(p && len && !flags ? GF_CU_FILE_SUCCESS : GF_CU_FILE_INVALID_VALUE);
}

struct gf_cufile_error cuFileBufDeregister(const void *p)
{
	return status(p ? GF_CU_FILE_SUCCESS : GF_CU_FILE_INVALID_VALUE);
}

ssize_t cuFileRead(gf_cufile_handle h, void *buf, size_t n, off_t off, off_t boff)
{
	if (!h)
		return -GF_CU_FILE_HANDLE_NOT_REGISTERED;
	return pread((int)(long)h - 1, (char *)buf + boff, n, off);
}

ssize_t cuFileWrite(gf_cufile_handle h, const void *buf, size_t n, off_t off, off_t boff)
{
	if (!h)
		return -GF_CU_FILE_HANDLE_NOT_REGISTERED;
	return pwrite((int)(long)h - 1, (const char *)buf + boff, n, off);
}
