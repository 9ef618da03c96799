/* The GPUDirect Storage path: cuFile reads straight into GPU memory.  With
 * nvidia-fs the NVMe DMA lands in GPU memory; without it (compatibility
 * mode, every VM here) cuFile reads into its own host buffers and copies,
 * which x->compat records for the results.
 *
 * The batch API (cuFileBatchIOSetUp/Submit/GetStatus/Destroy) keeps many
 * chunk reads in flight: the depth x reads entries split into waves on two
 * batch handles (BATCH_HANDLES), the next wave already reading while the
 * oldest is collected and handed to the consumer.  Where the library lacks the batch
 * API or refuses a batch (compatibility mode may), cuFileRead reads one
 * chunk at a time.  cuFile takes any offset and length: it handles the
 * unaligned head and tail itself. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "xfer/xfer_internal.h"

#define BATCH_MAX 128u
/* A batch handle takes one submission at a time and cannot be refilled
 * before every entry of it has come back, so with one handle the disk
 * idles while a wave's last reads finish, its hooks run and the next wave
 * is built.  A second handle reads the next wave meanwhile (as KvikIO and
 * gdsio do).  The handles share the depth x reads entries rather than each
 * taking that many: on the lent H100 (compatibility mode) two full waves,
 * twice the reads in flight, were 4-7% slower than one handle; half waves
 * on each 1.01-1.04x (bench/results/2026-11-24-h100-gds-handles-ab). */
#define BATCH_HANDLES 2u

/* One batch handle and the wave it holds. */
struct batch {
	gf_cufile_batch b;
	unsigned n;		/* entries of the wave in flight; 0: none */
	unsigned got;		/* of them come back */
	struct gf_cufile_io_params io[BATCH_MAX];
	struct gf_cufile_io_event ev[BATCH_MAX];
};

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
	j->st->chunks++;
	return gf_xfer_hook(x, j->name, x->slot[0].stream, j->dev + at, n, j->off + at);
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

/* The error of wave w, "<file>: wave of N chunks at offset O: <call>: ...". */
static int wave_error(struct gf_xfer_job *j, const struct batch *w, unsigned n, struct gf_cufile_error e,
		      const char *call)
{
	int rc = gf_cufile_check(e, call);

	return gf_error(rc, "%s: wave of %u chunks at offset %llu: %s", j->name, n,
			(unsigned long long)w->io[0].u.batch.file_offset, gf_last_error());
}

/* Submits on w the wave of up to nr chunks from *at; *at moves past it. */
static int submit(struct gf_xfer *x, struct gf_xfer_job *j, gf_cufile_handle fh, struct batch *w, unsigned nr,
		  uint64_t *at)
{
	struct gf_cufile_error e;
	unsigned n = 0;

	for (; n < nr && *at < j->len; n++, *at += x->o.chunk) {
		w->io[n] = (struct gf_cufile_io_params){ .mode = GF_CUFILE_BATCH, .fh = fh, .opcode = GF_CUFILE_READ,
							 .cookie = (void *)(uintptr_t)n };
		w->io[n].u.batch.dev_ptr_base = (void *)(uintptr_t)j->dev;
		w->io[n].u.batch.file_offset = (off_t)(j->off + *at);
		w->io[n].u.batch.dev_ptr_offset = (off_t)*at;
		w->io[n].u.batch.size = j->len - *at < x->o.chunk ? (size_t)(j->len - *at) : x->o.chunk;
	}
	w->got = 0;
	/* A refused submission leaves nothing in flight on w. */
	if ((e = x->cf->batch_submit(w->b, n, w->io, 0)).err != GF_CU_FILE_SUCCESS)
		return wave_error(j, w, n, e, "cuFileBatchIOSubmit");
	w->n = n;
	return 0;
}

/* Waits until every entry of w's wave has come back. */
static struct gf_cufile_error collect(struct gf_xfer *x, struct batch *w)
{
	struct gf_cufile_error e = { GF_CU_FILE_SUCCESS, 0 };

	while (w->got < w->n) {
		struct timespec t = { 1, 0 };
		unsigned k = w->n - w->got;

		if ((e = x->cf->batch_get_status(w->b, 1, &k, w->ev + w->got, &t)).err != GF_CU_FILE_SUCCESS)
			break;
		w->got += k < w->n - w->got ? k : w->n - w->got;
	}
	return e;
}

/* Collects w's whole wave, checks every entry, then runs the hooks of its
 * chunks in file order, whatever order the entries came back in.  w is
 * free again afterwards, whatever the outcome. */
static int finish(struct gf_xfer *x, struct gf_xfer_job *j, struct batch *w)
{
	struct gf_cufile_error e = collect(x, w);
	bool seen[BATCH_MAX] = { false };
	unsigned n = w->n;
	int rc = 0;

	/* Free for the next wave; after a failed GetStatus the handle can tell
	 * nothing more, so it is not waited for again either. */
	w->n = 0;
	if (e.err != GF_CU_FILE_SUCCESS)
		return wave_error(j, w, n, e, "cuFileBatchIOGetStatus");
	for (unsigned i = 0; i < n && !rc; i++) {
		uintptr_t c = (uintptr_t)w->ev[i].cookie;
		const struct gf_cufile_io_params *io;
		uint64_t at;
		ssize_t r = (ssize_t)w->ev[i].ret;

		/* The cookie indexes the wave: one we did not give, or one given
		 * back twice (so another entry's outcome is unknown), is the
		 * library's fault, not a reason to read out of bounds. */
		if (c >= n || seen[c]) {
			rc = gf_error(-EPROTO, "%s: wave of %u chunks at offset %llu: cuFileBatchIOGetStatus gave back "
				      "entry %llu %s", j->name, n, (unsigned long long)w->io[0].u.batch.file_offset,
				      (unsigned long long)c, c >= n ? "that was not submitted" : "twice");
			break;
		}
		seen[c] = true;
		io = &w->io[c];
		at = (uint64_t)io->u.batch.dev_ptr_offset;
		if (w->ev[i].status != GF_CUFILE_COMPLETE)
			rc = gf_error(r < 0 ? (int)r : -EIO, "%s: cuFile batch read of %zu bytes at offset %llu: status 0x%x%s%s",
				      j->name, io->u.batch.size, (unsigned long long)(j->off + at),
				      (unsigned)w->ev[i].status, r < 0 ? ", " : "", r < 0 ? strerror((int)-r) : "");
		else if ((size_t)r < io->u.batch.size)
			rc = short_read(j, at, (size_t)r, io->u.batch.size);
	}
	for (unsigned i = 0; i < n && !rc; i++)
		rc = hook(x, j, (uint64_t)w->io[i].u.batch.dev_ptr_offset, w->io[i].u.batch.size);
	return rc;
}

/* Waves of nr / nw entries go to the handles in turn, so the next handle
 * in turn holds the oldest wave: waiting for it first hands the consumer
 * every chunk once, in file order.  A handle is refilled as soon as its
 * wave is done with. */
static int by_batch(struct gf_xfer *x, struct gf_xfer_job *j, gf_cufile_handle fh, struct batch *w, unsigned nw,
		    unsigned nr)
{
	uint64_t at = 0;
	int rc = 0;

	j->st->api = "cuFileBatchIO";
	nr = nr / nw ? nr / nw : 1;
	for (unsigned i = 0; i < nw && at < j->len && !rc; i++)
		rc = submit(x, j, fh, &w[i], nr, &at);
	for (unsigned i = 0; !rc && w[i].n; i = (i + 1) % nw)
		if (!(rc = finish(x, j, &w[i])) && at < j->len)
			rc = submit(x, j, fh, &w[i], nr, &at);
	/* The other handle may still be reading into the GPU range, which the
	 * caller frees once we return: wait for it (the ops table has no
	 * cuFileBatchIOCancel; a wave's reads end on their own).  The first
	 * error stands: these waits leave gf_last_error alone. */
	for (unsigned i = 0; rc && i < nw; i++)
		if (w[i].n) {
			collect(x, &w[i]);
			w[i].n = 0;
		}
	return rc;
}

int gf_xfer_gds(struct gf_xfer *x, struct gf_xfer_job *j)
{
	struct gf_cufile_descr d = { .type = GF_CU_FILE_HANDLE_TYPE_OPAQUE_FD };
	gf_cufile_handle fh = NULL;
	struct batch *w;	/* ~11 KB each: off the caller's stack */
	unsigned nw = 0, nr = 0;
	bool reg;
	int rc;

	d.handle.fd = j->fd;
	if (!(w = calloc(BATCH_HANDLES, sizeof(*w))))
		return gf_error(-ENOMEM, "%s: %zu bytes for cuFile's batch state", j->name, BATCH_HANDLES * sizeof(*w));
	if ((rc = gf_cufile_check(x->cf->handle_register(&fh, &d), "cuFileHandleRegister"))) {
		free(w);
		return gf_error(rc, "%s: %s%s", j->name, gf_last_error(),
				x->compat ? " (compatibility mode: cuFile still needs the disk's udev properties; "
					    "cufile.log says which; on a VM without udevd see bench/cufile-vm-udev.sh)"
					  : "");
	}
	/* Registering the GPU range spares cuFile its own bounce buffers for
	 * it; a driver that refuses (BAR space) still reads, through them. */
	reg = x->cf->buf_register((void *)(uintptr_t)j->dev, j->len, 0).err == GF_CU_FILE_SUCCESS;
	/* As many handles as the library gives, up to BATCH_HANDLES: with one
	 * the waves run back to back, with none cuFileRead reads. */
	if (x->cf->batch_setup) {
		nr = batch_size(x);
		while (nw < BATCH_HANDLES && x->cf->batch_setup(&w[nw].b, nr).err == GF_CU_FILE_SUCCESS)
			w[nw++].n = 0;
	}
	rc = nw ? by_batch(x, j, fh, w, nw, nr) : by_read(x, j, fh);
	for (unsigned i = 0; i < nw; i++)
		x->cf->batch_destroy(w[i].b);
	free(w);
	if (reg)
		x->cf->buf_deregister((void *)(uintptr_t)j->dev);
	x->cf->handle_deregister(fh);
	return rc;
}
