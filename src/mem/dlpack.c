/* DLPack tensors over gf_buf and gf_devbuf memory (gpufeed/dlpack.h): the
 * tensor holds a reference on its buffer, dropped by its deleter, so a
 * consumer can outlive the producer's gf_buf_free. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/dlpack.h>
#include "core/error.h"
#include "mem/device.h"
#include "mem/host.h"

/* The layout consumers read: dlpack.h 0.8's DLTensor is 48 bytes and
 * DLManagedTensor 64 on LP64, deleter last. */
_Static_assert(sizeof(struct gf_dl_tensor) == 48, "DLTensor's layout");
_Static_assert(offsetof(struct gf_dl_tensor, ndim) == 16 && offsetof(struct gf_dl_tensor, dtype) == 20 &&
		       offsetof(struct gf_dl_tensor, shape) == 24 && offsetof(struct gf_dl_tensor, byte_offset) == 40,
	       "DLTensor's fields");
_Static_assert(sizeof(struct gf_dl_managed_tensor) == 64 &&
		       offsetof(struct gf_dl_managed_tensor, deleter) == 56, "DLManagedTensor's layout");

/* A tensor and what it holds, freed by its deleter. */
struct held {
	struct gf_dl_managed_tensor t;	/* first: the deleter gets &t */
	int64_t shape[GF_DL_NDIM_MAX];
	struct gf_buf *buf;		/* one of the two */
	struct gf_devbuf *dev;
};

static void deleter(struct gf_dl_managed_tensor *self)
{
	struct held *h = (struct held *)self;

	if (!h)
		return;
	if (h->buf)
		gf_buf__release(h->buf);
	if (h->dev)
		gf_devbuf__release(h->dev);
	free(h);
}

/* Checks the view and fills a new tensor of data (size bytes) with it. */
static int make(void *data, size_t size, size_t offset, struct gf_dl_dtype dtype, int ndim, const int64_t *shape,
		struct gf_dl_device device, struct held **out, const char *func)
{
	size_t elem = dtype.bits / 8u, n = 1;
	struct held *h;

	*out = NULL;
	if (!shape)
		return gf_arg_error(func, "shape is NULL");
	if (ndim < 1 || ndim > GF_DL_NDIM_MAX)
		return gf_arg_error(func, "ndim %d: from 1 to %d", ndim, GF_DL_NDIM_MAX);
	if (!dtype.bits || dtype.bits % 8 || dtype.lanes != 1)
		return gf_error(-EINVAL, "DLPack: a dtype of %u bits x %u lanes: whole bytes, one lane", dtype.bits,
				dtype.lanes);
	if (offset % elem)
		return gf_error(-EINVAL, "DLPack: offset %zu is not a multiple of the element (%zu bytes)", offset,
				elem);
	for (int i = 0; i < ndim; i++) {
		if (shape[i] <= 0 || (uint64_t)shape[i] > SIZE_MAX / n)
			return gf_error(-EINVAL, "DLPack: extent %lld of dimension %d", (long long)shape[i], i);
		n *= (size_t)shape[i];
	}
	if (n > SIZE_MAX / elem || offset > size || n * elem > size - offset)
		return gf_error(-EINVAL, "DLPack: %zu elements of %zu bytes from offset %zu run past the buffer's %zu "
				"bytes", n, elem, offset, size);
	if (!(h = calloc(1, sizeof(*h))))
		return gf_error(-ENOMEM, "DLPack: out of memory");
	memcpy(h->shape, shape, (size_t)ndim * sizeof(*shape));
	h->t.dl_tensor = (struct gf_dl_tensor){ .data = data, .device = device, .ndim = ndim, .dtype = dtype,
						 .shape = h->shape, .strides = NULL, .byte_offset = offset };
	h->t.manager_ctx = h;
	h->t.deleter = deleter;
	*out = h;
	return 0;
}

int gf_buf_dlpack(struct gf_buf *b, size_t offset, struct gf_dl_dtype dtype, int ndim, const int64_t *shape,
		  struct gf_dl_managed_tensor **out)
{
	/* Pinned memory is CPU memory too: consumers take kDLCPU (PyTorch 2.11
	 * refuses kDLCUDAHost, "Unsupported device_type: 3") and find it
	 * page-locked themselves (torch's is_pinned asks the driver). */
	struct gf_dl_device dev = { GF_DL_CPU, 0 };
	struct held *h;
	int rc;

	if (!b || !out)
		return GF_NULL_ARG(!b ? "b" : "out");
	*out = NULL;
	if ((rc = make(b->data, b->size, offset, dtype, ndim, shape, dev, &h, __func__)))
		return rc;
	gf_buf__hold(b);
	h->buf = b;
	*out = &h->t;
	return 0;
}

int gf_devbuf_dlpack(struct gf_devbuf *d, size_t offset, struct gf_dl_dtype dtype, int ndim, const int64_t *shape,
		     struct gf_dl_managed_tensor **out)
{
	struct held *h;
	int rc;

	if (!d || !out)
		return GF_NULL_ARG(!d ? "d" : "out");
	*out = NULL;
	if ((rc = make((void *)(uintptr_t)d->ptr, d->size, offset, dtype, ndim, shape,
		       (struct gf_dl_device){ GF_DL_CUDA, d->cuda_ordinal }, &h, __func__)))
		return rc;
	gf_devbuf__hold(d);
	h->dev = d;
	*out = &h->t;
	return 0;
}
