/* The library's side of a struct gf_devbuf. */
#ifndef GF_MEM_DEVICE_H
#define GF_MEM_DEVICE_H

#include <stdatomic.h>
#include <gpufeed/buf.h>

#include "vendor/cuda/cuda_device.h"

struct gf_devbuf_impl {
	struct gf_devbuf pub;	/* first */
	struct gf_cuda_dev dev;	/* its GPU, open while the memory lives */
	atomic_uint refs;	/* the owner's and one per DLPack tensor */
};

static inline struct gf_devbuf_impl *gf_devbuf__impl(struct gf_devbuf *d)
{
	return (struct gf_devbuf_impl *)d;
}

void gf_devbuf__hold(struct gf_devbuf *d);
void gf_devbuf__release(struct gf_devbuf *d);

#endif
