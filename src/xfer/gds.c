/* The GPUDirect Storage path: cuFile reads straight into GPU memory.  With
 * nvidia-fs the NVMe DMA lands in GPU memory; without it (compatibility
 * mode, every VM here) cuFile reads into its own host buffers and copies,
 * which x->compat records for the results.
 *
 * The batch API (cuFileBatchIOSetUp/Submit/GetStatus/Destroy) keeps many
 * chunk reads in flight in waves of up to `nr` entries; where the library
 * lacks it or refuses a batch (compatibility mode may), cuFileRead reads
 * one chunk at a time.  cuFile takes any offset and length: it handles the
 * unaligned head and tail itself. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "xfer/xfer_internal.h"

#define BATCH_MAX 128u

int gf_xfer_gds_open(struct gf_xfer *x)
{
	char why[400];
	int rc = gf_cufile_load(&x->cf, why, sizeof(why));

	if (rc)
		return rc;
	if ((rc = gf_cufile_check(x->cf->driver_open(), "cuFileDriverOpen")))
		return rc;
	x->cf_open = true;
	x->compat = gf_cufile_compat_mode(x->cf);
	return 0;
}

void gf_xfer_gds_close(struct gf_xfer *x)
{
	if (x->cf_open)
		x->cf->driver_close();
	x->cf_open = false;
}

/* Entries per wave: what the driver allows, at most depth x reads. */
static unsigned batch_size(struct gf_xfer *x)
{
	struct gf_cufile_props p = { 0 };
	unsigned n = x->o.depth * x->o.reads;

	if (x->cf->driver_get_properties && x->cf->driver_get_properties(&p).err == GF_CU_FILE_SUCCESS &&
	    p.max_batch_io_size && p.max_batch_io_size < n)
		n = p.max_batch_io_size;
	return n < BATCH_MAX ? n : BATCH_MAX;
}

static int hook(struct gf_xfer *x, struct gf_xfer_job *j, uint64_t at, size_t n)
{
	int rc;

	j->st->chunks++;
	if (!x->o.on_chunk || !(rc = x->o.on_chunk(x->o.user, x->slot[0].stream, j->dev + at, n, j->off + at)))
		return 0;
	return gf_error(rc < 0 ? rc : -ECANCELED, "chunk at file offset %llu: the consumer's hook returned %d",
			(unsigned long long)(j->off + at), rc);
}

static int short_read(struct gf_xfer_job *j, uint64_t at, size_t got, size_t n)
{
	return gf_error(-EIO, "%s: short read: %zu of %zu bytes at offset %llu (file of %llu bytes)", j->name, got, n,
			(unsigned long long)(j->off + at), (unsigned long long)j->file_size);
}

static int by_read(struct gf_xfer *x, struct gf_xfer_job *j, gf_cufile_handle fh)
{
	char what[512];
	int rc = 0;

	j->st->api = "cuFileRead";
	for (uint64_t at = 0; at < j->len && !rc; at += x->o.chunk) {
		size_t n = j->len - at < x->o.chunk ? (size_t)(j->len - at) : x->o.chunk;
		ssize_t r = x->cf->read(fh, (void *)(uintptr_t)j->dev, n, (off_t)(j->off + at), (off_t)at);

		if (r < 0) {
			snprintf(what, sizeof(what), "%s: cuFileRead of %zu bytes at offset %llu", j->name, n,
				 (unsigned long long)(j->off + at));
			return gf_cufile_io_error(r, errno, what);
		}
		rc = (size_t)r < n ? short_read(j, at, (size_t)r, n) : hook(x, j, at, n);
	}
	return rc;
}

/* One wave of up to nr chunks from `at`; *next gets where it ended. */
static int wave(struct gf_xfer *x, struct gf_xfer_job *j, gf_cufile_handle fh, gf_cufile_batch b, unsigned nr,
		uint64_t at, uint64_t *next)
{
	struct gf_cufile_io_params io[BATCH_MAX];
	struct gf_cufile_io_event ev[BATCH_MAX];
	size_t sizes[BATCH_MAX];
	unsigned n = 0, got = 0;
	int rc;

	for (; n < nr && at < j->len; n++, at += x->o.chunk) {
		sizes[n] = j->len - at < x->o.chunk ? (size_t)(j->len - at) : x->o.chunk;
		io[n] = (struct gf_cufile_io_params){ .mode = GF_CUFILE_BATCH, .fh = fh, .opcode = GF_CUFILE_READ,
						      .cookie = (void *)(uintptr_t)n };
		io[n].u.batch.dev_ptr_base = (void *)(uintptr_t)j->dev;
		io[n].u.batch.file_offset = (off_t)(j->off + at);
		io[n].u.batch.dev_ptr_offset = (off_t)at;
		io[n].u.batch.size = sizes[n];
	}
	*next = at;
	if ((rc = gf_cufile_check(x->cf->batch_submit(b, n, io, 0), "cuFileBatchIOSubmit")))
		return gf_error(rc, "%s: %s", j->name, gf_last_error());
	/* Every entry must come back before the next wave may reuse the batch. */
	while (got < n) {
		struct timespec t = { 1, 0 };
		unsigned k = n - got;

		if ((rc = gf_cufile_check(x->cf->batch_get_status(b, 1, &k, ev + got, &t), "cuFileBatchIOGetStatus")))
			return gf_error(rc, "%s: %s", j->name, gf_last_error());
		got += k;
	}
	rc = 0;
	for (unsigned i = 0; i < n && !rc; i++) {
		unsigned e = (unsigned)(uintptr_t)ev[i].cookie;
		uint64_t eat = (uint64_t)io[e].u.batch.dev_ptr_offset;
		ssize_t r = (ssize_t)ev[i].ret;

		if (ev[i].status != GF_CUFILE_COMPLETE)
			rc = gf_error(r < 0 ? (int)r : -EIO, "%s: cuFile batch read of %zu bytes at offset %llu: status 0x%x%s%s",
				      j->name, sizes[e], (unsigned long long)(j->off + eat), (unsigned)ev[i].status,
				      r < 0 ? ", " : "", r < 0 ? strerror((int)-r) : "");
		else if ((size_t)r < sizes[e])
			rc = short_read(j, eat, (size_t)r, sizes[e]);
	}
	/* The consumer sees chunks in file order, whatever order they came in. */
	for (unsigned i = 0; i < n && !rc; i++)
		rc = hook(x, j, (uint64_t)io[i].u.batch.dev_ptr_offset, sizes[i]);
	return rc;
}

static int by_batch(struct gf_xfer *x, struct gf_xfer_job *j, gf_cufile_handle fh, gf_cufile_batch b)
{
	unsigned nr = batch_size(x);
	uint64_t at = 0;
	int rc = 0;

	j->st->api = "cuFileBatchIO";
	while (at < j->len && !rc)
		rc = wave(x, j, fh, b, nr, at, &at);
	return rc;
}

int gf_xfer_gds(struct gf_xfer *x, struct gf_xfer_job *j)
{
	struct gf_cufile_descr d = { .type = GF_CU_FILE_HANDLE_TYPE_OPAQUE_FD };
	gf_cufile_handle fh = NULL;
	gf_cufile_batch b = NULL;
	bool reg;
	int rc;

	d.handle.fd = j->fd;
	if ((rc = gf_cufile_check(x->cf->handle_register(&fh, &d), "cuFileHandleRegister")))
		return gf_error(rc, "%s: %s%s", j->name, gf_last_error(),
				x->compat ? " (compatibility mode: cuFile still needs the disk's udev properties; "
					    "cufile.log says which; on a VM without udevd see bench/cufile-vm-udev.sh)"
					  : "");
	/* Registering the GPU range spares cuFile its own bounce buffers for
	 * it; a driver that refuses (BAR space) still reads, through them. */
	reg = x->cf->buf_register((void *)(uintptr_t)j->dev, j->len, 0).err == GF_CU_FILE_SUCCESS;
	if (x->cf->batch_setup && x->cf->batch_setup(&b, batch_size(x)).err != GF_CU_FILE_SUCCESS)
		b = NULL;
	rc = b ? by_batch(x, j, fh, b) : by_read(x, j, fh);
	if (b)
		x->cf->batch_destroy(b);
	if (reg)
		x->cf->buf_deregister((void *)(uintptr_t)j->dev);
	x->cf->handle_deregister(fh);
	return rc;
}
