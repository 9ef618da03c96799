/* CUDA devices the way gpufeed names GPUs: by PCI address (or NVML index),
 * never by CUDA ordinal, because CUDA numbers devices fastest first unless
 * CUDA_DEVICE_ORDER=PCI_BUS_ID, so ordinal 0 need not be NVML's GPU 0.
 * Also the CUresult -> errno mapping every CUDA caller uses. */
#ifndef GF_VENDOR_CUDA_DEVICE_H
#define GF_VENDOR_CUDA_DEVICE_H

#include "vendor/cuda/cuda.h"

/* The errno a CUresult stands for: -ENOMEM, -ENODEV, -EINVAL, -EOPNOTSUPP,
 * -EPERM, -EBUSY, -ENOSYS (driver/stub problems) or -EIO. */
int gf_cuda_errno(gf_cu_result r);
/* 0 for CUDA_SUCCESS; otherwise the errno above, with gf_last_error()
 * "<what>: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".  what names the
 * call: "cuMemAlloc" or "cuMemAlloc 1073741824 bytes on 0000:00:06.0". */
int gf_cuda_check(const struct gf_cuda_ops *ops, gf_cu_result r, const char *what);

/* Loads libcuda, runs cuInit and counts devices.  0 with *ops and *ndev
 * (> 0); -ENOSYS "CUDA not available: libcuda.so.1 not found" (or the
 * toolkit's stub library, or a driver too old); -ENODEV "CUDA not
 * available: no GPU (...)" for CUDA_ERROR_NO_DEVICE or a count of 0. */
int gf_cuda_init(const struct gf_cuda_ops **ops, int *ndev);

/* The CUDA ordinal whose PCI address is pci (any form gf_pciaddr_parse
 * takes); -ENODEV "no CUDA device at 0000:00:09.0" when none is. */
int gf_cuda_ordinal_of_pci(const struct gf_cuda_ops *ops, const char *pci, int *ordinal);

/* A device opened for work: its primary context retained (shared with any
 * CUDA runtime code in the process, like cudaSetDevice) and made current
 * in the calling thread. */
struct gf_cuda_dev {
	const struct gf_cuda_ops *ops;
	int ordinal;
	gf_cu_device dev;
	gf_cu_context ctx;
	char pci[16];			/* "0000:00:06.0" */
	char name[96];			/* "NVIDIA H200", "" when unknown */
	int cc_major, cc_minor;		/* compute capability */
	int async_engines;		/* copy engines usable at once */
	int sm_count;
};

/* Opens the GPU at a PCI address: 0, or -ENOSYS/-ENODEV as gf_cuda_init,
 * -ENODEV when no CUDA device has that address, or a CUDA error. */
int gf_cuda_dev_open_pci(const char *pci, struct gf_cuda_dev *d);
/* Opens NVML's GPU idx: NVML names its PCI address (NVML orders by PCI
 * bus), then as gf_cuda_dev_open_pci.  -ENOSYS when NVML is absent. */
int gf_cuda_dev_open_nvml(unsigned int idx, struct gf_cuda_dev *d);
/* Makes d's context current in the calling thread (each worker thread
 * calls it once before its first CUDA call). */
int gf_cuda_dev_make_current(const struct gf_cuda_dev *d);
/* Releases the primary context; d may be zeroed or already closed. */
void gf_cuda_dev_close(struct gf_cuda_dev *d);

#endif
