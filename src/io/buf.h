/* The allocator's side of a struct gf_buf: what callers need not see.
 * gf_buf_alloc() allocates this and hands out &pub. */
#ifndef GF_IO_BUF_H
#define GF_IO_BUF_H

#include <stddef.h>
#include <gpufeed/buf.h>

struct gf_buf_impl {
	struct gf_buf pub;	/* first: a struct gf_buf * is a struct gf_buf_impl * */
	void *map;		/* the whole mapping (data lies inside it) */
	size_t map_size;
	/* Set and cleared by the engine that registered it (io_uring fixed
	 * buffer slot); -1 when not registered. */
	int uring_index;
};

static inline struct gf_buf_impl *gf_buf__impl(struct gf_buf *b)
{
	return (struct gf_buf_impl *)b;
}

#endif
