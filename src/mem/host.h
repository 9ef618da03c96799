/* The allocator's side of a struct gf_buf: what callers need not see.
 * gf_buf_alloc() allocates this and hands out &pub. */
#ifndef GF_MEM_HOST_H
#define GF_MEM_HOST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <gpufeed/buf.h>

#include "vendor/cuda/cuda_device.h"

struct gf_buf_impl {
	struct gf_buf pub;	/* first: a struct gf_buf * is a struct gf_buf_impl * */
	void *map;		/* the whole mapping (data lies inside it) */
	size_t map_size;
	/* Set and cleared by the engine that registered it (io_uring fixed
	 * buffer slot); -1 when not registered. */
	int uring_index;
	/* Pinned (cuMemHostRegister) through this device's driver, undone by
	 * the last release; own_dev when gf_buf_alloc opened it (GF_BUF_PINNED)
	 * and closes it after. */
	const struct gf_cuda_dev *pin_dev;
	struct gf_cuda_dev own_dev;
	bool pinned, owns_dev;
	/* The owner's reference and one per DLPack tensor handed out: the
	 * memory goes when the last is dropped. */
	atomic_uint refs;
};

static inline struct gf_buf_impl *gf_buf__impl(struct gf_buf *b)
{
	return (struct gf_buf_impl *)b;
}

/* A reference more (a tensor handed out), and one less: the last unpins,
 * unmaps and frees. */
void gf_buf__hold(struct gf_buf *b);
void gf_buf__release(struct gf_buf *b);

/* RLIMIT_MEMLOCK in bytes, for the allocator's messages; UINT64_MAX for
 * unlimited.  Either pointer may be NULL, not both (-EINVAL). */
int gf_memlock_limit(uint64_t *soft, uint64_t *hard);

#endif
