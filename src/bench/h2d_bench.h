/* Insides of `bench h2d` shared by its target (h2d_target.c), its timed
 * copies (h2d_copy.c) and its output (h2d_report.c). */
#ifndef GF_BENCH_H2D_BENCH_H
#define GF_BENCH_H2D_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gpufeed/buf.h>
#include <gpufeed/topo.h>

#include "bench/h2d_opts.h"
#include "bench/runner.h"
#include "vendor/cuda/cuda_device.h"
#include "vendor/cuda/cuda_kernels.h"

/* nvbandwidth's constants (memcpy.cpp WARMUP_COUNT, common.h
 * defaultLoopCount and defaultBufferSize, v0.8). */
#define GF_H2D_WARMUP_COPIES 4u
#define GF_H2D_LOOPS 16u
#define GF_H2D_SIZE (512ull << 20)
#define GF_H2D_SIZE_QUICK (64ull << 20)
/* How long gf_spin holds a stream while the copies are queued behind it. */
#define GF_H2D_SPIN_MS 10u

/* The measured direction; the BIDIR ones run the other direction at the
 * same time on a second stream (twice the bytes, so it lasts the whole
 * measured copy) and report the measured one, as nvbandwidth's
 * host_to_device_bidirectional_memcpy_ce and device_to_host_... do.  The
 * ALL ones (--all-at-once) measure one GPU while every other GPU of the
 * run copies the same way (and, bidirectional, both ways) with twice the
 * bytes from its own node's memory: nvbandwidth's host_to_all_memcpy_ce,
 * all_to_host_memcpy_ce and their bidirectional forms (allHostHelper,
 * allHostBidirHelper in testcase.cpp). */
enum gf_h2d_dir {
	GF_H2D_HTOD = 0,
	GF_H2D_DTOH,
	GF_H2D_BIDIR_HTOD,
	GF_H2D_BIDIR_DTOH,
	GF_H2D_PER_GPU_DIRS,		/* the ones above: one GPU alone */
	GF_H2D_ALL_HTOD = GF_H2D_PER_GPU_DIRS,
	GF_H2D_ALL_DTOH,
	GF_H2D_ALL_BIDIR_HTOD,
	GF_H2D_ALL_BIDIR_DTOH,
	GF_H2D_DIRS
};
enum gf_h2d_mem { GF_H2D_PINNED = 0, GF_H2D_PAGEABLE, GF_H2D_MEMS };

struct gf_h2d_gpu {
	unsigned index;			/* NVML index */
	struct gf_cuda_dev dev;
	bool open;
	struct gf_cuda_kernel spin;
	bool spin_loaded;
	unsigned long long spin_cycles;
	gf_cu_stream s[2];		/* measured, interfering */
	gf_cu_event start, end;
	gf_cu_event go;			/* s[0]'s spin ended: s[1] waits on it */
	/* Its copies while another GPU is measured (ALL directions): host
	 * memory on its own node, twice the point's size, one buffer pair per
	 * direction; kept from point to point while the size holds. */
	struct gf_buf *ih[2];
	gf_cu_deviceptr id[2];
	uint64_t isize;
	int inode;			/* its own NUMA node */
	int topo_gpu;			/* index into topo->gpus, -1 not modelled */
	double limit_gb_per_s;		/* the model's host<->GPU limit, 0 unknown */
	char limit_text[96];
};

/* A point: a direction on (GPU, host node, size, memory kind). */
struct gf_h2d_point {
	enum gf_h2d_dir dir;
	enum gf_h2d_mem mem;
	unsigned gpu;			/* index into gpus[] */
	int node;
	uint64_t size;
	bool verified;			/* the bytes of a copy were checked */
};

struct gf_h2d_flag {
	bool error;
	unsigned point;
	char message[200];
};

/* The buffers of one (GPU, node, size, memory kind): host a (size) and b
 * (2 x size), device a and b likewise. */
struct gf_h2d_bufs {
	unsigned gpu;
	int node;
	uint64_t size;
	enum gf_h2d_mem mem;
	struct gf_buf *ha, *hb;		/* pinned (gf_mem_pin) for the pinned kind */
	gf_cu_deviceptr da, db;
	bool live;
};

struct gf_bench_h2d {
	struct gf_bench_h2d_opts o;	/* resolved: repeats, loops */
	const struct gf_topo *topo;	/* the frame's */
	uint64_t sizes[GF_BENCH_H2D_SIZES_MAX];
	unsigned nsizes;
	struct gf_h2d_gpu *gpus;
	unsigned ngpus;
	struct gf_h2d_point *points;
	struct gf_runner_point *res;
	unsigned npoints;
	struct gf_h2d_flag *flags;
	unsigned nflags;
	struct gf_h2d_bufs bufs;
	int pinned_gpu;			/* the GPU whose CPUs the thread runs on, -1 */
	unsigned dirs;			/* 1u << enum gf_h2d_dir: the figures measured */
};

const char *gf_h2d_dir_name(enum gf_h2d_dir d);
bool gf_h2d_dir_htod(enum gf_h2d_dir d);	/* host memory is the source */
bool gf_h2d_dir_bidir(enum gf_h2d_dir d);	/* the other way at once */
bool gf_h2d_dir_all(enum gf_h2d_dir d);		/* the other GPUs at once */
const char *gf_h2d_mem_name(enum gf_h2d_mem m);

/* Buffers for point pt (kept while the next point shares them). */
int gf_h2d_bufs_for(struct gf_bench_h2d *h, const struct gf_h2d_point *pt);
void gf_h2d_bufs_free(struct gf_bench_h2d *h);
/* The interfering copies' buffers of every GPU but pt's (ALL points). */
int gf_h2d_ibufs_for(struct gf_bench_h2d *h, const struct gf_h2d_point *pt);
void gf_h2d_ibufs_free(struct gf_h2d_gpu *g);
/* One sample: GB/s of the measured direction over h->o.loops copies.  The
 * first sample of a point also checks the bytes one copy moved. */
int gf_h2d_sample(struct gf_bench_h2d *h, struct gf_h2d_point *pt, double *gbs);
/* Streams, events and the spin kernel of an opened GPU. */
int gf_h2d_gpu_setup(struct gf_h2d_gpu *g);
void gf_h2d_gpu_teardown(struct gf_h2d_gpu *g);

void gf_h2d_sanity(struct gf_bench_h2d *h);

#endif
