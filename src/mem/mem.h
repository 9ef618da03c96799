/* Host, pinned and device memory for the other subsystems (bench, xfer,
 * the loader to come): a gf_buf pinned through a device the caller holds
 * open, and device memory on it, each call's error naming the bytes and the
 * GPU.  The public side is gpufeed/buf.h (GF_BUF_PINNED, gf_devbuf, DLPack). */
#ifndef GF_MEM_MEM_H
#define GF_MEM_MEM_H

#include <stddef.h>
#include <gpufeed/buf.h>

#include "vendor/cuda/cuda_device.h"

/* Registers b with dev's driver (cuMemHostRegister, flags as CUDA's:
 * GF_CU_MEMHOSTREGISTER_PORTABLE for every context); gf_buf_free unpins it
 * with dev current (or leaves it to a device closed first, whose context
 * took it).  The error names the bytes, what for (what, when given) and
 * the GPU; -EBUSY when b is pinned already. */
int gf_mem_pin(struct gf_buf *b, const struct gf_cuda_dev *dev, unsigned cu_flags, const char *what);
/* GF_BUF_PINNED: opens NVML's GPU gpu for the buffer (closed when it goes)
 * and pins b through it, portable. */
int gf_mem_pin_own(struct gf_buf *b, unsigned gpu);
/* Undoes the pin, if any (the last release of b calls it). */
void gf_mem_unpin(struct gf_buf *b);

/* n bytes of device memory on dev (made current): 0, or the CUDA error as
 * an errno, "cuMemAlloc <n> bytes on <pci>: ..." (what, when given, says
 * what for).  gf_mem_dev_free: 0 is nothing; dev made current first. */
int gf_mem_dev_alloc(const struct gf_cuda_dev *dev, size_t n, const char *what, gf_cu_deviceptr *out);
void gf_mem_dev_free(const struct gf_cuda_dev *dev, gf_cu_deviceptr p);

#endif
