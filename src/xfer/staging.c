/* The staging pool: host buffers from the I/O engine's allocator (placed on
 * a NUMA node before the first touch), pinned with cuMemHostRegister so the
 * copy engine reads them directly (a pageable source costs a second copy
 * through the driver's own staging), each with a stream and an event. */
#include <errno.h>
#include <stdio.h>

#include "core/error.h"
#include "mem/mem.h"
#include "xfer/xfer_internal.h"

int gf_xfer_cu(struct gf_xfer *x, gf_cu_result r, const char *call, const char *name)
{
	char what[512];

	if (r == GF_CUDA_SUCCESS)
		return 0;
	snprintf(what, sizeof(what), "%s (%s, GPU %s)", call, name, x->dev.pci);
	return gf_cuda_check(x->cu, r, what);
}

int gf_xfer_hook(struct gf_xfer *x, const char *what, gf_cu_stream s, uint64_t dev, size_t n, uint64_t off)
{
	int rc;

	if (!x->o.on_chunk || !(rc = x->o.on_chunk(x->o.user, s, dev, n, off)))
		return 0;
	return gf_error(rc < 0 ? rc : -ECANCELED, "%s: chunk at offset %llu: the consumer's hook returned %d", what,
			(unsigned long long)off, rc);
}

static int slot_open(struct gf_xfer *x, struct gf_xfer_slot *s, bool bufs)
{
	struct gf_buf_opts bo = GF_BUF_OPTS_INIT;
	int rc;

	if (bufs) {
		bo.size = x->o.chunk;
		bo.numa_node = x->numa_node;
		if ((rc = gf_buf_alloc(&bo, &s->buf)) || (rc = gf_mem_pin(s->buf, &x->dev, 0, "the staging pool")))
			return rc;
	}
	if ((rc = gf_xfer_cu(x, x->cu->stream_create(&s->stream, GF_CU_STREAM_NON_BLOCKING), "cuStreamCreate",
			     "staging")))
		return rc;
	return gf_xfer_cu(x, x->cu->event_create(&s->done, GF_CU_EVENT_DISABLE_TIMING), "cuEventCreate", "staging");
}

static void slot_close(struct gf_xfer *x, struct gf_xfer_slot *s)
{
	if (s->stream)
		x->cu->stream_synchronize(s->stream);
	if (s->done)
		x->cu->event_destroy(s->done);
	if (s->stream)
		x->cu->stream_destroy(s->stream);
	gf_buf_free(s->buf);	/* unpinned first */
	*s = (struct gf_xfer_slot){ 0 };
}

int gf_xfer_slots_open(struct gf_xfer *x, unsigned n, bool bufs)
{
	int rc = 0;

	for (x->nslots = 0; x->nslots < n && !rc; x->nslots++)
		rc = slot_open(x, &x->slot[x->nslots], bufs);
	if (rc)
		gf_xfer_slots_close(x);
	return rc;
}

void gf_xfer_slots_close(struct gf_xfer *x)
{
	for (unsigned i = 0; i < x->nslots; i++)
		slot_close(x, &x->slot[i]);
	x->nslots = 0;
}

int gf_xfer_slot_wait(struct gf_xfer *x, struct gf_xfer_slot *s)
{
	if (!s->copying)
		return 0;
	s->copying = false;
	return gf_xfer_cu(x, x->cu->event_synchronize(s->done), "cuEventSynchronize", "staging copy");
}

int gf_xfer_slot_copy(struct gf_xfer *x, const char *what, struct gf_xfer_slot *s, size_t from, size_t n, uint64_t dev,
		      uint64_t file_off)
{
	const char *base = s->buf->data;
	int rc;

	if ((rc = gf_xfer_cu(x, x->cu->memcpy_htod_async(dev, base + from, n, s->stream), "cuMemcpyHtoDAsync",
			     "staging to GPU")))
		return rc;
	if ((rc = gf_xfer_cu(x, x->cu->event_record(s->done, s->stream), "cuEventRecord", "staging copy")))
		return rc;
	s->copying = true;
	return gf_xfer_hook(x, what, s->stream, dev, n, file_off);
}

int gf_xfer_slots_drain(struct gf_xfer *x)
{
	int first = 0;

	for (unsigned i = 0; i < x->nslots; i++) {
		int rc = gf_xfer_slot_wait(x, &x->slot[i]);

		rc = rc ? rc : gf_xfer_cu(x, x->cu->stream_synchronize(x->slot[i].stream), "cuStreamSynchronize",
					  "staging");
		if (rc && !first)
			first = rc;
	}
	return first;
}
