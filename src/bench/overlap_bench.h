/* `gpufeed bench overlap` (the target gf_bench_overlap_def, frame.h):
 * DDP's overlap of the gradients' all-reduce with the backward pass,
 * measured on the GPUs.  An iteration is a compute phase of known length
 * split into buckets (one spin kernel per bucket, its share of the time
 * proportional to its bytes) and an all-reduce of each bucket's gradient
 * bytes: without overlap all compute then all all-reduces on one stream;
 * with overlap bucket i's all-reduce starts on a second stream when bucket
 * i's compute ends (event record + stream wait), as PyTorch DDP's reducer
 * does.  Also compute alone and the all-reduces alone, so the overlap
 * fraction is (t_serial - t_overlap) / min(t_compute, t_comm).
 * docs/bench-overlap.md. */
#ifndef GF_BENCH_OVERLAP_BENCH_H
#define GF_BENCH_OVERLAP_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/frame.h"
#include "coll/comm.h"
#include "vendor/cuda/cuda_kernels.h"

#define GF_BENCH_OVERLAP_SCHEMA "gpufeed-bench-overlap/1"

#define GF_OVERLAP_GRAD_MIN (4ull << 10)
#define GF_OVERLAP_GRAD_MAX (64ull << 30)
#define GF_OVERLAP_BUCKET_MIN (4ull << 10)
#define GF_OVERLAP_CONFIGS_MAX 16u	/* entries of --buckets */
#define GF_OVERLAP_NBUCKETS_MAX 65536u	/* buckets in one iteration */
#define GF_OVERLAP_ELEM 4u		/* float32 gradients, DDP's usual */
#define GF_OVERLAP_ALL 0		/* a bucket size meaning "one bucket" */
#define GF_OVERLAP_CALIBRATE_MS 5u	/* the spin timed to find its cycles per ms */
/* DDP's default bucket_cap_mb is 25 MiB; the sweep brackets it. */
#define GF_OVERLAP_BUCKETS_DEFAULT "1M,5M,10M,25M,50M,100M,all"

struct gf_bench_overlap_opts {
	const char *gpus;		/* NVML indexes "0,1" / "0-3"; NULL: all
					 * (single process; a rank of a launched
					 * job drives its LOCAL_RANK'th GPU) */
	const char *buckets;		/* "1M,25M,all"; NULL: the default sweep */
	uint64_t grad_bytes;		/* the model's gradients; 0: 1 GiB */
	unsigned compute_ms;		/* the whole compute phase; 0: 20 */
	unsigned compute_blocks;	/* spin blocks per bucket kernel; 0: 1 */
	unsigned repeats;		/* iterations timed per point; 0: 10 */
	unsigned warmup;		/* iterations dropped first; 0: 2 */
	double timeout_s;		/* every wait; 0: 60 s */
	bool quick;			/* 256 MiB, 3 sizes, 3 iterations */
};

/* The buckets of one iteration: bucket_bytes each (a multiple of the
 * element), the last one the remainder. */
struct gf_overlap_plan {
	uint64_t grad_bytes, bucket_bytes;
	unsigned nbuckets;
};

/* "1M,25M,all" into sizes[] (at most max; "all" is GF_OVERLAP_ALL): each
 * size from 4K to grad_bytes, a multiple of 4 bytes; -EINVAL/-ERANGE
 * naming --buckets. */
int gf_overlap_parse_buckets(const char *text, uint64_t grad_bytes, uint64_t *sizes, unsigned max, unsigned *n);
/* The plan of grad_bytes in buckets of bucket_bytes (GF_OVERLAP_ALL: one);
 * -ERANGE naming --buckets when that makes more than
 * GF_OVERLAP_NBUCKETS_MAX buckets, -EINVAL for a size that is not a
 * positive multiple of the element. */
int gf_overlap_plan(uint64_t grad_bytes, uint64_t bucket_bytes, struct gf_overlap_plan *p);
/* Bytes of bucket i (the last may be smaller). */
uint64_t gf_overlap_bucket_bytes(const struct gf_overlap_plan *p, unsigned i);
/* Spin cycles of bucket i: its share of compute_ms by its bytes, at
 * cycles_per_ms; at least 1. */
unsigned long long gf_overlap_bucket_cycles(const struct gf_overlap_plan *p, unsigned i, double cycles_per_ms,
					    double compute_ms);
/* (t_serial - t_overlap) / min(t_compute, t_comm): 1 when the shorter
 * phase is hidden entirely, 0 when nothing is; NAN when a time is not
 * positive.  Not clamped: noise may push it past 0 or 1, and that is
 * worth seeing. */
double gf_overlap_fraction(double t_serial, double t_overlap, double t_compute, double t_comm);

/* The four figures of a bucket size, in point order. */
enum gf_overlap_mode { GF_OVERLAP_COMPUTE, GF_OVERLAP_COMM, GF_OVERLAP_SERIAL, GF_OVERLAP_OVERLAPPED,
		       GF_OVERLAP_MODES };
const char *gf_overlap_mode_name(enum gf_overlap_mode m);

/* One GPU of this process while it runs: the comm's stream is the
 * training stream (compute, and the all-reduces when not overlapped), side
 * the communication stream of the overlapped iteration. */
struct gf_overlap_gpu {
	struct gf_coll_gpu *cg;		/* in comm */
	gf_cu_stream side;
	struct gf_cuda_kernel spin;
	bool spin_loaded;
	double cycles_per_ms;		/* measured, else from the clock rate */
	bool calibrated;
	gf_cu_deviceptr grad;		/* grad_bytes, reduced in place */
	gf_cu_event start, end, comm_done;
	gf_cu_event *bucket_done;	/* [GF_OVERLAP_NBUCKETS_MAX of the plans] */
	unsigned nbucket_done;
};

/* A figure: one mode of one bucket size. */
struct gf_overlap_point {
	unsigned config;		/* index into sizes[] / plans[] */
	enum gf_overlap_mode mode;
};

struct gf_bench_overlap {
	struct gf_bench_overlap_opts o;	/* defaults filled in */
	const struct gf_topo *topo;
	uint64_t sizes[GF_OVERLAP_CONFIGS_MAX];
	struct gf_overlap_plan plans[GF_OVERLAP_CONFIGS_MAX];
	unsigned nconfigs;
	struct gf_overlap_point *points;
	struct gf_runner_point *res;	/* [npoints], samples in ms */
	unsigned npoints;
	/* What ran: copied out before the GPUs are closed. */
	int nranks, rank, ngpus;
	char launcher[32];		/* "single process" or the world's */
	char nccl_version[32];
	char gpu_name[96];
	char (*pcis)[16];		/* [ngpus] this process's */
	double *cycles_per_ms;		/* [ngpus] */
	bool *calibrated;		/* [ngpus] */
	/* Only while running. */
	struct gf_coll_comm *comm;
	struct gf_overlap_gpu *gpus;	/* [ngpus] */
};

struct gf_bench_overlap;

/* The options alone: 0, or -EINVAL/-ERANGE naming the option (usage). */
/* overlap_run.c: opens the communicators (single process over --gpu's
 * GPUs, or this rank of a launched job) and each GPU's buffers, events and
 * calibrated spin; one timed iteration of a point (ms, the slowest GPU's
 * and rank's); closes what open made.  -errno with the message. */
int gf_overlap_open(struct gf_bench_overlap *b);
int gf_overlap_iteration(struct gf_bench_overlap *b, unsigned point, double *ms);
/* The iteration's work queued on every GPU of this process, not waited
 * for (gf_overlap_iteration's first step). */
int gf_overlap_queue(struct gf_bench_overlap *b, unsigned point);
void gf_overlap_close(struct gf_bench_overlap *b);

int gf_bench_overlap_check(const struct gf_bench_overlap_opts *opts);
/* Measures.  0 (failed points are in the results), -ENOSYS when CUDA or
 * NCCL is absent, -ENODEV without a GPU, -ETIMEDOUT when a rank did not
 * join, -ECANCELED, or -errno. */
int gf_bench_overlap_run(const struct gf_bench_overlap_opts *opts, const struct gf_bench_env *env,
			 struct gf_bench_overlap **out);
unsigned gf_bench_overlap_findings(const struct gf_bench_overlap *r);
int gf_bench_overlap_print(const struct gf_bench_overlap *r, FILE *f);
int gf_bench_overlap_write_json(const struct gf_bench_overlap *r, FILE *f);
void gf_bench_overlap_free(struct gf_bench_overlap *r);

#endif
