/* Pinned host memory: a gf_buf registered with the CUDA driver, so copies
 * to and from it run at the link's rate on the copy engines (pageable
 * memory goes through a driver staging buffer).  One place for what bench
 * h2d, bench io-gpu and xfer's staging pool each did: register, remember
 * through which device, unregister before the memory goes. */
#include <errno.h>
#include <stdio.h>

#include "core/error.h"
#include "mem/host.h"
#include "mem/mem.h"

int gf_mem_pin(struct gf_buf *b, const struct gf_cuda_dev *dev, unsigned cu_flags, const char *what)
{
	struct gf_buf_impl *bi;
	char call[160];
	int rc;

	if (!b || !dev || !dev->ops)
		return gf_error(-EINVAL, "pinning: no %s", b ? "device" : "buffer");
	bi = gf_buf__impl(b);
	if (bi->pinned)
		return gf_error(-EBUSY, "pinning: the buffer of %zu bytes is pinned already", b->size);
	if ((rc = gf_cuda_dev_make_current(dev)))
		return rc;
	snprintf(call, sizeof(call), "cuMemHostRegister %zu bytes%s%s through %s", b->size, what ? " of " : "",
		 what ? what : "", dev->pci);
	if ((rc = gf_cuda_check(dev->ops, dev->ops->mem_host_register(b->data, b->size, cu_flags), call)))
		return rc;
	bi->pin_dev = dev;
	bi->pinned = b->pinned = true;
	return 0;
}

int gf_mem_pin_own(struct gf_buf *b, unsigned gpu)
{
	struct gf_buf_impl *bi = gf_buf__impl(b);
	int rc;

	if ((rc = gf_cuda_dev_open_nvml(gpu, &bi->own_dev)))
		return rc;
	bi->owns_dev = true;
	return gf_mem_pin(b, &bi->own_dev, GF_CU_MEMHOSTREGISTER_PORTABLE, NULL);
}

void gf_mem_unpin(struct gf_buf *b)
{
	struct gf_buf_impl *bi = gf_buf__impl(b);

	/* A device closed first took its registrations with its context. */
	if (bi->pinned && bi->pin_dev->ops && bi->pin_dev->ctx && !gf_cuda_dev_make_current(bi->pin_dev))
		bi->pin_dev->ops->mem_host_unregister(b->data);
	bi->pinned = b->pinned = false;
	if (bi->owns_dev)
		gf_cuda_dev_close(&bi->own_dev);
	bi->owns_dev = false;
}
