/* The inside of a struct gf_xfer (include/gpufeed/xfer.h): the GPU, the
 * staging pool of the bounce path, and each path's run over one file. */
#ifndef GF_XFER_INTERNAL_H
#define GF_XFER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpufeed/buf.h>
#include <gpufeed/io.h>
#include <gpufeed/xfer.h>
#include "vendor/cuda/cuda_device.h"
#include "vendor/cufile/cufile.h"

/* One staging buffer: pinned host memory on the chosen node, the stream
 * its copy runs on, and the event that says the copy is done. */
struct gf_xfer_slot {
	struct gf_buf *buf;	/* pinned (gf_mem_pin) */
	gf_cu_stream stream;
	gf_cu_event done;
	bool copying;		/* a copy from buf is queued, done not yet waited */
	/* The chunk in it (bounce). */
	uint64_t chunk;
	unsigned pending;	/* reads in flight */
	int err;		/* first read error */
	size_t got;		/* bytes read into it */
};

struct gf_xfer {
	struct gf_xfer_opts o;
	struct gf_cuda_dev dev;
	const struct gf_cuda_ops *cu;
	int numa_node;
	/* bounce and naive */
	struct gf_xfer_slot slot[GF_XFER_DEPTH_MAX];
	unsigned nslots;
	struct gf_io *io;	/* bounce */
	/* gds */
	const struct gf_cufile_ops *cf;
	bool cf_open;
	bool compat;
};

/* One transfer's target, checked against the file. */
struct gf_xfer_job {
	int fd;			/* the file; O_DIRECT when the path wants it */
	const char *name;	/* for messages */
	uint64_t off;
	size_t len;
	uint64_t dev;
	uint64_t file_size;
	struct gf_xfer_stats *st;	/* filled as the path runs */
	struct gf_xfer_stats *st_out;	/* the caller's, may be NULL */
};

/* Staging pool (staging.c): n slots, each a stream and an event and, with
 * bufs, chunk bytes of pinned memory on x->numa_node; 0 or -errno with
 * everything made so far undone. */
int gf_xfer_slots_open(struct gf_xfer *x, unsigned n, bool bufs);
void gf_xfer_slots_close(struct gf_xfer *x);
/* Waits for the slot's copy (its event) when one is queued. */
int gf_xfer_slot_wait(struct gf_xfer *x, struct gf_xfer_slot *s);
/* The consumer's hook (o.on_chunk; none: 0) for n bytes at dev, offset
 * `off` of `what` (the file's name, or "copy to GPU"), queued on stream s:
 * a refusal becomes an error naming both.  Every path calls this one. */
int gf_xfer_hook(struct gf_xfer *x, const char *what, gf_cu_stream s, uint64_t dev, size_t n, uint64_t off);
/* Queues the copy of n bytes of the slot's buffer from byte `from` to dev,
 * records the event, calls the consumer's hook (gf_xfer_hook, `what`). */
int gf_xfer_slot_copy(struct gf_xfer *x, const char *what, struct gf_xfer_slot *s, size_t from, size_t n, uint64_t dev,
		      uint64_t file_off);
/* Waits for every slot's copy; the first error. */
int gf_xfer_slots_drain(struct gf_xfer *x);

int gf_xfer_bounce(struct gf_xfer *x, struct gf_xfer_job *j);
int gf_xfer_gds_open(struct gf_xfer *x);
void gf_xfer_gds_close(struct gf_xfer *x);
int gf_xfer_gds(struct gf_xfer *x, struct gf_xfer_job *j);
int gf_xfer_naive(struct gf_xfer *x, struct gf_xfer_job *j);

/* gf_cuda_check with "<call> (<file>)". */
int gf_xfer_cu(struct gf_xfer *x, gf_cu_result r, const char *call, const char *name);

#endif
