/* A stand-in libcufile.so.0: compatibility mode (no nvidia-fs, version 0.0
 * in the properties), reads and writes through pread/pwrite, as the real
 * library's compatibility mode does.  A read into memory of the stand-in
 * libcuda (already loaded by the test from GPUFEED_CUDA_LIBRARY) goes
 * through a host buffer and its cuMemcpyHtoDAsync_v2, the copy compat mode
 * does; any other buffer is taken as host memory standing for the GPU's.
 * The batch API queues a wave at submit and runs its reads as
 * cuFileBatchIOGetStatus collects them, two entries a call, so a wave not
 * yet collected has not written yet; a handle takes one wave at a time.
 *   FAKE_CUFILE_SCENARIO  no_driver (cuFileDriverOpen:
 *                         CU_FILE_DRIVER_NOT_INITIALIZED), nvfs (properties
 *                         say nvidia-fs 2.17 is loaded), no_batch
 *                         (cuFileBatchIOSetUp: CU_FILE_IO_NOT_SUPPORTED, as
 *                         compatibility mode may answer), one_batch (the
 *                         same for a handle set up while another is live),
 *                         bad_cookie / twice_cookie (GetStatus gives the
 *                         second wave's first entry back with a cookie not
 *                         submitted / its wave's first entry's cookie again)
 *   FAKE_CUFILE_FAIL_READ N: the Nth read after cuFileDriverOpen (batch
 *                         entries count) fails with EIO
 *   FAKE_CUFILE_FAIL_SUBMIT N: the Nth cuFileBatchIOSubmit after
 *                         cuFileDriverOpen fails (CU_FILE_NVFS_DRIVER_ERROR)
 *   FAKE_CUFILE_LOG FILE  the cuFileDriverClose that drops the last reference
 *                         appends what the batch API saw since the first
 *                         open, one line:
 *                         "batch: handles H refused R waves W in_flight M
 *                         destroyed_pending P busy_submits B" (most handles
 *                         live at once, setups refused, waves submitted,
 *                         most waves submitted and not yet collected at
 *                         once, entries dropped by a Destroy, submits to a
 *                         handle that still held a wave)
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

#include "vendor/cufile/cufile_api.h"

static int opened;
static int reads, submits;
/* The batch API since the first open (FAKE_CUFILE_LOG). */
static struct {
	int live, live_max, refused, waves, in_flight, in_flight_max, pending_destroyed, busy;
} bs;

/* FAKE_CUFILE_<name> N: whether this is the Nth time, counting in *count. */
static int nth(const char *name, int *count)
{
	const char *s = getenv(name);

	(*count)++;
	return s && atoi(s) == *count;
}

static void batch_log(void)
{
	const char *path = getenv("FAKE_CUFILE_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;

	if (!f)
		return;
	fprintf(f, "batch: handles %d refused %d waves %d in_flight %d destroyed_pending %d busy_submits %d\n",
		bs.live_max, bs.refused, bs.waves, bs.in_flight_max, bs.pending_destroyed, bs.busy);
	fclose(f);
}

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
	if (!opened++)
		memset(&bs, 0, sizeof(bs));
	reads = submits = 0;
	return status(GF_CU_FILE_SUCCESS);
}

struct gf_cufile_error cuFileDriverClose_v2(void)
{
	if (opened <= 0)
		return status(GF_CU_FILE_DRIVER_NOT_INITIALIZED);
	if (!--opened)
		batch_log();
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

	if (nth("FAKE_CUFILE_FAIL_READ", &reads)) {
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

/* ---- batch: Submit queues a wave, GetStatus runs and hands back its
 * entries; what the tests read through FAKE_CUFILE_LOG ---- */
struct batch {
	unsigned nr;
	unsigned queued, next;	/* the wave's entries, the next to run */
	int wave;		/* which wave since the first open (1, 2, ...) */
	struct gf_cufile_io_params io[128];
};

struct gf_cufile_error cuFileBatchIOSetUp(gf_cufile_batch *b, unsigned nr)
{
	struct batch *p;

	if (!opened)
		return status(GF_CU_FILE_DRIVER_NOT_INITIALIZED);
	if (!strcmp(scenario(), "no_batch") || (!strcmp(scenario(), "one_batch") && bs.live)) {
		bs.refused++;
		return status(GF_CU_FILE_IO_NOT_SUPPORTED);
	}
	if (!nr || nr > 128)
		return status(GF_CU_FILE_INVALID_VALUE);
	p = calloc(1, sizeof(*p));
	if (!p)
		return status(GF_CU_FILE_INVALID_VALUE);
	p->nr = nr;
	*b = p;
	if (++bs.live > bs.live_max)
		bs.live_max = bs.live;
	return status(GF_CU_FILE_SUCCESS);
}

struct gf_cufile_error cuFileBatchIOSubmit(gf_cufile_batch b, unsigned nr, struct gf_cufile_io_params *io,
					   unsigned flags)
{
	struct batch *p = b;

	if (!p || flags || !nr || nr > p->nr)
		return status(GF_CU_FILE_INVALID_VALUE);
	if (p->queued) {
		bs.busy++;
		return status(GF_CU_FILE_INVALID_VALUE);
	}
	if (nth("FAKE_CUFILE_FAIL_SUBMIT", &submits))
		return status(GF_CU_FILE_NVFS_DRIVER_ERROR);
	for (unsigned i = 0; i < nr; i++)
		if (io[i].mode != GF_CUFILE_BATCH || io[i].opcode != GF_CUFILE_READ || !io[i].fh)
			return status(GF_CU_FILE_INVALID_VALUE);
	memcpy(p->io, io, nr * sizeof(*io));
	p->queued = nr;
	p->next = 0;
	p->wave = ++bs.waves;
	if (++bs.in_flight > bs.in_flight_max)
		bs.in_flight_max = bs.in_flight;
	return status(GF_CU_FILE_SUCCESS);
}

struct gf_cufile_error cuFileBatchIOGetStatus(gf_cufile_batch b, unsigned min_nr, unsigned *nr,
					      struct gf_cufile_io_event *ev, struct timespec *timeout)
{
	struct batch *p = b;
	unsigned n, most = min_nr > 2 ? min_nr : 2;	/* a wave comes back over several calls */

	(void)timeout;
	if (!p || !nr || min_nr > *nr)
		return status(GF_CU_FILE_INVALID_VALUE);
	n = p->queued - p->next;
	n = n < *nr ? n : *nr;
	n = n < most ? n : most;
	for (unsigned i = 0; i < n; i++) {
		struct gf_cufile_io_params *q = &p->io[p->next++];
		ssize_t r = do_read(q->fh, q->u.batch.dev_ptr_base, q->u.batch.size, q->u.batch.file_offset,
				    q->u.batch.dev_ptr_offset);

		ev[i].cookie = q->cookie;
		if (p->wave == 2 && p->next == 1 && !strcmp(scenario(), "bad_cookie"))
			ev[i].cookie = (void *)(uintptr_t)1000;
		if (p->wave == 2 && p->next == 2 && !strcmp(scenario(), "twice_cookie"))
			ev[i].cookie = p->io[0].cookie;
		ev[i].status = r < 0 ? GF_CUFILE_FAILED : GF_CUFILE_COMPLETE;
		ev[i].ret = r < 0 ? (size_t)-errno : (size_t)r;
	}
	*nr = n;
	if (p->queued && p->next == p->queued) {
		p->queued = 0;
		bs.in_flight--;
	}
	return status(GF_CU_FILE_SUCCESS);
}

struct gf_cufile_error cuFileBatchIOCancel(gf_cufile_batch b)
{
	return status(b ? GF_CU_FILE_SUCCESS : GF_CU_FILE_INVALID_VALUE);
}

/* A wave still queued is dropped, never written: counted, for the tests. */
void cuFileBatchIODestroy(gf_cufile_batch b)
{
	struct batch *p = b;

	if (!p)
		return;
	if (p->queued) {
		bs.pending_destroyed += (int)(p->queued - p->next);
		bs.in_flight--;
	}
	bs.live--;
	free(p);
}

ssize_t cuFileWrite(gf_cufile_handle h, const void *buf, size_t n, off_t off, off_t boff)
{
	if (!h)
		return -GF_CU_FILE_HANDLE_NOT_REGISTERED;
	return pwrite((int)(long)h - 1, (const char *)buf + boff, n, off);
}
