/* One buffer for every path: O_DIRECT, io_uring fixed buffers and, later,
 * GPU pinning (cuMemHostRegister) all take a struct gf_buf.
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

/* Versioned (include/gpufeed/common.h): start from GF_BUF_OPTS_INIT. */
struct gf_buf_opts {
	size_t struct_size;	/* sizeof(struct gf_buf_opts), set by GF_BUF_OPTS_INIT */
	size_t size;		/* bytes, > 0; rounded up to whole pages */
	size_t align;		/* power of two; 0 = page size (covers every
				 * O_DIRECT alignment Linux asks for) */
	int numa_node;		/* -1: no placement (first touch) */
	unsigned flags;		/* GF_BUF_* */
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
};

GF_API int gf_buf_alloc(const struct gf_buf_opts *opts, struct gf_buf **out);
GF_API void gf_buf_free(struct gf_buf *b);

/* Where the first page of [addr, addr+len) actually lives (move_pages, the
 * placement truth a benchmark reports): the node, or -errno (-ENOENT when the
 * page is not faulted in yet). */
GF_API int gf_mem_node_of(const void *addr);

/* RLIMIT_MEMLOCK in bytes; UINT64_MAX for unlimited. */
GF_API int gf_memlock_limit(uint64_t *soft, uint64_t *hard);

#ifdef __cplusplus
}
#endif
#endif
