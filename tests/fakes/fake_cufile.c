/* A stand-in libcufile.so.0: compatibility mode (no nvidia-fs, version 0.0
 * in the properties), reads and writes through pread/pwrite, as the real
 * library's compatibility mode does.  A read into memory of the stand-in
 * libcuda (already loaded by the test from GPUFEED_CUDA_LIBRARY) goes
 * through a host buffer and its cuMemcpyHtoDAsync_v2, the copy compat mode
 * does; any other buffer is taken as host memory standing for the GPU's.
 * The batch API runs each request when it is submitted.
 *   FAKE_CUFILE_SCENARIO  no_driver (cuFileDriverOpen:
 *                         CU_FILE_DRIVER_NOT_INITIALIZED), nvfs (properties
 *                         say nvidia-fs 2.17 is loaded), no_batch
 *                         (cuFileBatchIOSetUp: CU_FILE_IO_NOT_SUPPORTED, as
 *                         compatibility mode may answer)
 *   FAKE_CUFILE_FAIL_READ N: the Nth read after cuFileDriverOpen (batch
 *                         entries count) fails with EIO
 *
 * fake-soname: libcufile.so.0 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

#include "vendor/cufile_api.h"

static int opened;
static int reads;

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
	reads = 0;
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

/* FAKE_CUFILE_FAIL_READ: whether this read is the one to fail. */
static int read_fails(void)
{
	const char *s = getenv("FAKE_CUFILE_FAIL_READ");

	reads++;
	return s && atoi(s) == reads;
}

typedef int (*htod_fn)(unsigned long long, const void *, size_t, void *);

/* The stand-in libcuda's copy, when the test has loaded it. */
static htod_fn cuda_htod(void)
{
	const char *lib = getenv("GPUFEED_CUDA_LIBRARY");
	void *h = lib ? dlopen(lib, RTLD_LAZY | RTLD_NOLOAD) : NULL;
	htod_fn f = h ? (htod_fn)(uintptr_t)dlsym(h, "cuMemcpyHtoDAsync_v2") : NULL;

	if (h)
		dlclose(h);	/* NOLOAD took a reference; the test still holds it */
	return f;
}

/* pread, and for an O_DIRECT descriptor and an unaligned request the
 * buffered read cuFile does itself for the unaligned parts. */
static ssize_t pread_any(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r = pread(fd, buf, n, off);
	char link[64];
	int bfd;

	if (r >= 0 || errno != EINVAL)
		return r;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	bfd = open(link, O_RDONLY);
	if (bfd < 0)
		return -1;
	r = pread(bfd, buf, n, off);
	close(bfd);
	return r;
}

static ssize_t do_read(gf_cufile_handle h, void *buf, size_t n, off_t off, off_t boff)
{
	int fd = (int)(long)h - 1;
	htod_fn htod = cuda_htod();
	unsigned char *tmp;
	ssize_t r;

	if (read_fails()) {
		errno = EIO;
		return -1;
	}
	if (!htod || !(tmp = malloc(n ? n : 1)))
		return pread_any(fd, (char *)buf + boff, n, off);
	r = pread_any(fd, tmp, n, off);
	/* Not the stand-in GPU's memory (INVALID_VALUE): host memory then. */
	if (r > 0 && htod((unsigned long long)(uintptr_t)buf + (unsigned long long)boff, tmp, (size_t)r, NULL))
		memcpy((char *)buf + boff, tmp, (size_t)r);
	free(tmp);
	return r;
}

ssize_t cuFileRead(gf_cufile_handle h, void *buf, size_t n, off_t off, off_t boff)
{
	if (!h)
		return -GF_CU_FILE_HANDLE_NOT_REGISTERED;
	return do_read(h, buf, n, off, boff);
}

/* ---- batch: each request runs at submit; GetStatus hands them back ---- */
struct batch {
	unsigned nr, done;
	struct gf_cufile_io_event ev[];
};

struct gf_cufile_error cuFileBatchIOSetUp(gf_cufile_batch *b, unsigned nr)
{
	struct batch *p;

	if (!opened)
		return status(GF_CU_FILE_DRIVER_NOT_INITIALIZED);
	if (!strcmp(scenario(), "no_batch"))
		return status(GF_CU_FILE_IO_NOT_SUPPORTED);
	if (!nr || nr > 128)
		return status(GF_CU_FILE_INVALID_VALUE);
	p = calloc(1, sizeof(*p) + nr * sizeof(p->ev[0]));
	if (!p)
		return status(GF_CU_FILE_INVALID_VALUE);
	p->nr = nr;
	*b = p;
	return status(GF_CU_FILE_SUCCESS);
}

struct gf_cufile_error cuFileBatchIOSubmit(gf_cufile_batch b, unsigned nr, struct gf_cufile_io_params *io,
					   unsigned flags)
{
	struct batch *p = b;

	if (!p || flags || p->done + nr > p->nr)
		return status(GF_CU_FILE_INVALID_VALUE);
	for (unsigned i = 0; i < nr; i++) {
		struct gf_cufile_io_event *e = &p->ev[p->done++];
		ssize_t r;

		if (io[i].mode != GF_CUFILE_BATCH || io[i].opcode != GF_CUFILE_READ || !io[i].fh)
			return status(GF_CU_FILE_INVALID_VALUE);
		r = do_read(io[i].fh, io[i].u.batch.dev_ptr_base, io[i].u.batch.size, io[i].u.batch.file_offset,
			    io[i].u.batch.dev_ptr_offset);
		e->cookie = io[i].cookie;
		e->status = r < 0 ? GF_CUFILE_FAILED : GF_CUFILE_COMPLETE;
		e->ret = r < 0 ? (size_t)-errno : (size_t)r;
	}
	return status(GF_CU_FILE_SUCCESS);
}

struct gf_cufile_error cuFileBatchIOGetStatus(gf_cufile_batch b, unsigned min_nr, unsigned *nr,
					      struct gf_cufile_io_event *ev, struct timespec *timeout)
{
	struct batch *p = b;
	unsigned n;

	(void)timeout;
	if (!p || !nr || min_nr > *nr)
		return status(GF_CU_FILE_INVALID_VALUE);
	n = p->done < *nr ? p->done : *nr;
	memcpy(ev, p->ev, n * sizeof(*ev));
	memmove(p->ev, p->ev + n, (p->done - n) * sizeof(*ev));
	p->done -= n;
	*nr = n;
	return status(GF_CU_FILE_SUCCESS);
}

struct gf_cufile_error cuFileBatchIOCancel(gf_cufile_batch b)
{
	return status(b ? GF_CU_FILE_SUCCESS : GF_CU_FILE_INVALID_VALUE);
}

void cuFileBatchIODestroy(gf_cufile_batch b)
{
	free(b);
}

ssize_t cuFileWrite(gf_cufile_handle h, const void *buf, size_t n, off_t off, off_t boff)
{
	if (!h)
		return -GF_CU_FILE_HANDLE_NOT_REGISTERED;
	return pwrite((int)(long)h - 1, (const char *)buf + boff, n, off);
}
