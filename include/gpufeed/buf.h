/* Host, pinned and device memory in one place: O_DIRECT, io_uring fixed
 * buffers and GPU copies (pinned with cuMemHostRegister) all take a struct
 * gf_buf; struct gf_devbuf is memory on a GPU.  Both can be handed out as
 * DLPack tensors (gpufeed/dlpack.h) that keep the memory alive.
 *
 * Memory is anonymous mmap (never file-backed: io_uring refuses to register
 * those, and vendor host allocators fail with O_DIRECT), placed on a NUMA
 * node with mbind() before the first touch, aligned, optionally locked.
 * Locking is probed against RLIMIT_MEMLOCK and skipped unless it is
 * required.  What was asked for and did not happen (placement, locking,
 * huge pages) is a warning on the diagnostics channel (gpufeed/log.h,
 * subsystem io) and false in placed, locked, huge. */
#ifndef GPUFEED_BUF_H
#define GPUFEED_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GF_BUF_LOCK		0x1u	/* mlock(); a warning when the limit forbids it */
#define GF_BUF_LOCK_REQUIRED	0x2u	/* fail with -ENOMEM/-EPERM instead */
#define GF_BUF_HUGE		0x4u	/* try 2 MiB pages (MAP_HUGETLB, then THP) */
#define GF_BUF_NODE_STRICT	0x8u	/* MPOL_BIND: fail rather than spill over */
#define GF_BUF_NO_THP		0x10u	/* buffers >= 2 MiB are 2 MiB-aligned and
					 * ask for transparent huge pages; not this one */
#define GF_BUF_PINNED		0x20u	/* page-locked for the GPUs: registered
					 * with the CUDA driver (portable, every
					 * context) through GPU opts.gpu's, and
					 * unregistered by gf_buf_free; -ENOSYS /
					 * -ENODEV without libcuda or that GPU */

/* Versioned (include/gpufeed/common.h): start from GF_BUF_OPTS_INIT. */
struct gf_buf_opts {
	size_t struct_size;	/* sizeof(struct gf_buf_opts), set by GF_BUF_OPTS_INIT */
	size_t size;		/* bytes, > 0; rounded up to whole pages */
	size_t align;		/* power of two; 0 = page size (covers every
				 * O_DIRECT alignment Linux asks for) */
	int numa_node;		/* -1: no placement (first touch) */
	unsigned flags;		/* GF_BUF_* */
	unsigned gpu;		/* GF_BUF_PINNED: the GPU (NVML index) whose
				 * driver registers it; 0 by default */
};
#define GF_BUF_OPTS_INIT { .struct_size = sizeof(struct gf_buf_opts), .numa_node = -1 }

/* What the allocator made; read-only for the caller.  Only buffers from
 * gf_buf_alloc() may be passed to the library (the allocator keeps its
 * bookkeeping beside this struct). */
struct gf_buf {
	void *data;		/* aligned to opts.align */
	size_t size;		/* usable bytes from data (>= asked) */
	size_t align;
	int numa_node;		/* the node asked for, -1 none */
	bool placed;		/* mbind() accepted the node */
	bool locked;		/* pages are mlock()ed */
	bool huge;		/* backed by huge pages */
	bool pinned;		/* registered with the CUDA driver */
};

/* A buffer as opts asks, freed with gf_buf_free.  0 with *out set, or
 * -EINVAL (opts or out NULL, options not from GF_BUF_OPTS_INIT, size 0,
 * align not a power of two, numa_node below -1, flag bits this release
 * does not know), -ENOMEM, -EPERM (GF_BUF_LOCK_REQUIRED,
 * GF_BUF_NODE_STRICT), -ENOSYS / -ENODEV (GF_BUF_PINNED without libcuda
 * or that GPU), each with a message naming the size. */
GF_API int gf_buf_alloc(const struct gf_buf_opts *opts, struct gf_buf **out);
/* Gives the buffer up: the memory goes (unpinned first) once the DLPack
 * tensors handed out from it are deleted too.  NULL does nothing. */
GF_API void gf_buf_free(struct gf_buf *b);

/* Memory on a GPU (cuMemAlloc in its primary context); read-only for the
 * caller, freed with gf_devbuf_free. */
struct gf_devbuf {
	uint64_t ptr;		/* the device address (CUdeviceptr) */
	size_t size;
	unsigned gpu;		/* NVML index */
	int cuda_ordinal;	/* in this process (CUDA_VISIBLE_DEVICES applies) */
	char pci[16];		/* "0000:00:06.0" */
};
/* size bytes on NVML's GPU gpu: 0, -ENOSYS (no libcuda or NVML), -ENODEV
 * (no such GPU), -ENOMEM, each with a message naming the bytes and GPU. */
GF_API int gf_devbuf_alloc(unsigned gpu, size_t size, struct gf_devbuf **out);
/* As gf_buf_free: the memory goes once its DLPack tensors are deleted. */
GF_API void gf_devbuf_free(struct gf_devbuf *d);

/* Where the first page of [addr, addr+len) actually lives (move_pages, the
 * placement truth a benchmark reports): the node, or -errno (-ENOENT when the
 * page is not faulted in yet). */
GF_API int gf_mem_node_of(const void *addr);

#ifdef __cplusplus
}
#endif
#endif
