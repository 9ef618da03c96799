/* Device memory: cuMemAlloc in a GPU's primary context, one place for the
 * allocations bench h2d, bench p2p and xfer each made (make the context
 * current, allocate, name the bytes and the GPU when it fails), and the
 * public struct gf_devbuf that can be handed out as a DLPack tensor. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "mem/device.h"
#include "mem/mem.h"

int gf_mem_dev_alloc(const struct gf_cuda_dev *dev, size_t n, const char *what, gf_cu_deviceptr *out)
{
	char call[160];
	int rc;

	*out = 0;
	if ((rc = gf_cuda_dev_make_current(dev)))
		return rc;
	snprintf(call, sizeof(call), "cuMemAlloc %zu bytes on %s%s%s", n, dev->pci, what ? " for " : "",
		 what ? what : "");
	return gf_cuda_check(dev->ops, dev->ops->mem_alloc(out, n), call);
}

void gf_mem_dev_free(const struct gf_cuda_dev *dev, gf_cu_deviceptr p)
{
	/* A device closed first took its memory with its context. */
	if (p && dev->ops && dev->ctx && !gf_cuda_dev_make_current(dev))
		dev->ops->mem_free(p);
}

int gf_devbuf_alloc(unsigned gpu, size_t size, struct gf_devbuf **out)
{
	struct gf_devbuf_impl *di;
	gf_cu_deviceptr p = 0;
	int rc;

	if (!out)
		return GF_NULL_ARG("out");
	*out = NULL;
	if (!size)
		return gf_arg_error(__func__, "size must be > 0");
	if (!(di = calloc(1, sizeof(*di))))
		return gf_error(-ENOMEM, "device memory: out of memory");
	if ((rc = gf_cuda_dev_open_nvml(gpu, &di->dev)) ||
	    (rc = gf_mem_dev_alloc(&di->dev, size, NULL, &p))) {
		gf_cuda_dev_close(&di->dev);
		free(di);
		return rc;
	}
	atomic_init(&di->refs, 1);
	di->pub = (struct gf_devbuf){ .ptr = p, .size = size, .gpu = gpu, .cuda_ordinal = di->dev.ordinal };
	snprintf(di->pub.pci, sizeof(di->pub.pci), "%s", di->dev.pci);
	*out = &di->pub;
	return 0;
}

void gf_devbuf__hold(struct gf_devbuf *d)
{
	atomic_fetch_add(&gf_devbuf__impl(d)->refs, 1);
}

void gf_devbuf__release(struct gf_devbuf *d)
{
	struct gf_devbuf_impl *di = gf_devbuf__impl(d);

	if (atomic_fetch_sub(&di->refs, 1) != 1)
		return;
	gf_mem_dev_free(&di->dev, d->ptr);
	gf_cuda_dev_close(&di->dev);
	free(di);
}

void gf_devbuf_free(struct gf_devbuf *d)
{
	if (d)
		gf_devbuf__release(d);
}
