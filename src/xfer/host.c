/* Host memory to and from GPU memory through the pinned staging pool, for
 * data that does not come from a file (a batch a CPU worker assembled, a
 * tensor going back to the host).  The caller's memory may be pageable: a
 * copy engine cannot read pageable memory directly, and the driver's own
 * staging for it runs one chunk at a time, synchronously (a third to a
 * sixth of the pinned rate, bench/results/2026-11-24-h100-h2d-vs-
 * nvbandwidth).  Here the CPU copies chunk k+1 into one pinned buffer while
 * the copy engine moves chunk k out of another: with depth >= 2 the two
 * overlap and the slower of them sets the pace. */
#include <errno.h>
#include <string.h>

#include "core/error.h"
#include "xfer/xfer_internal.h"

/* The slot of chunk k; its previous copy has finished when this returns. */
static int next_slot(struct gf_xfer *x, uint64_t k, struct gf_xfer_slot **s)
{
	*s = &x->slot[k % x->nslots];
	return gf_xfer_slot_wait(x, *s);
}

/* Every slot's copy waited for, also after a failure; the first error. */
static int finish(struct gf_xfer *x, int rc)
{
	int d = gf_xfer_slots_drain(x);

	return rc ? rc : d;
}

static int staged(struct gf_xfer *x, const char *what, const char *func)
{
	if (!x)
		return gf_arg_error(func, "x is NULL");
	if (!x->nslots || !x->slot[0].buf)
		return gf_error(-EINVAL, "%s: needs the staging pool of the bounce path (opened with path %s)", what,
				gf_xfer_path_name(x->o.path));
	return gf_cuda_dev_make_current(&x->dev);
}

int gf_xfer_copy_to_gpu(struct gf_xfer *x, const void *src, size_t len, uint64_t dev)
{
	const char *from = src;
	int rc;

	if (len && !src)
		return x ? GF_NULL_ARG("src") : GF_NULL_ARG("x");
	if ((rc = staged(x, "copy to GPU", __func__)))
		return rc;
	if (len && !dev)
		return gf_error(-EINVAL, "copy to GPU: no GPU memory (device pointer 0)");
	for (uint64_t k = 0, at = 0; !rc && at < len; k++, at += x->o.chunk) {
		size_t n = len - at < x->o.chunk ? len - at : x->o.chunk;
		struct gf_xfer_slot *s;

		if (!(rc = next_slot(x, k, &s))) {
			memcpy(s->buf->data, from + at, n);
			rc = gf_xfer_slot_copy(x, "copy to GPU", s, 0, n, dev + at, at);
		}
	}
	return finish(x, rc);
}

/* Queues the device-to-host copy of chunk k into its slot. */
static int fetch(struct gf_xfer *x, uint64_t k, uint64_t dev, size_t len)
{
	uint64_t at = k * x->o.chunk;
	size_t n = len - at < x->o.chunk ? (size_t)(len - at) : x->o.chunk;
	struct gf_xfer_slot *s;
	int rc;

	if ((rc = next_slot(x, k, &s)))
		return rc;
	if ((rc = gf_xfer_cu(x, x->cu->memcpy_dtoh_async(s->buf->data, dev + at, n, s->stream), "cuMemcpyDtoHAsync",
			     "GPU to staging")) ||
	    (rc = gf_xfer_cu(x, x->cu->event_record(s->done, s->stream), "cuEventRecord", "GPU to staging")))
		return rc;
	s->copying = true;
	s->got = n;
	return 0;
}

int gf_xfer_copy_from_gpu(struct gf_xfer *x, uint64_t dev, void *dst, size_t len)
{
	char *to = dst;
	uint64_t chunks;
	int rc;

	if (len && !dst)
		return x ? GF_NULL_ARG("dst") : GF_NULL_ARG("x");
	if ((rc = staged(x, "copy from GPU", __func__)))
		return rc;
	if (len && !dev)
		return gf_error(-EINVAL, "copy from GPU: no GPU memory (device pointer 0)");
	chunks = (len + x->o.chunk - 1) / x->o.chunk;
	/* Keep every slot's copy in flight; empty the oldest into dst, then
	 * reuse its slot for the next chunk not yet asked for. */
	for (uint64_t k = 0; !rc && k < chunks && k < x->nslots; k++)
		rc = fetch(x, k, dev, len);
	for (uint64_t k = 0; !rc && k < chunks; k++) {
		struct gf_xfer_slot *s = &x->slot[k % x->nslots];

		if (!(rc = gf_xfer_slot_wait(x, s))) {
			memcpy(to + k * x->o.chunk, s->buf->data, s->got);
			if (k + x->nslots < chunks)
				rc = fetch(x, k + x->nslots, dev, len);
		}
	}
	return finish(x, rc);
}
