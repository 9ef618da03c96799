/* Insides of `bench p2p` shared by its target (p2p_target.c), its timed
 * copies (p2p_copy.c), its latency chase (p2p_chase.c) and its output
 * (p2p_report.c). */
#ifndef GF_BENCH_P2P_BENCH_H
#define GF_BENCH_P2P_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gpufeed/topo.h>

#include "bench/p2p_opts.h"
#include "bench/runner.h"
#include "vendor/cuda/cuda_device.h"
#include "vendor/cuda/cuda_kernels.h"

/* nvbandwidth's constants (memcpy.cpp WARMUP_COUNT; common.h
 * defaultLoopCount, defaultBufferSize, numThreadPerBlock, strideLen,
 * latencyMemAccessCnt; nvbandwidth.cpp's fixed 2 MiB latency buffer; v0.8). */
#define GF_P2P_WARMUP_COPIES 4u
#define GF_P2P_LOOPS 16u
#define GF_P2P_SIZE (512ull << 20)
#define GF_P2P_SIZE_QUICK (64ull << 20)
#define GF_P2P_SM_THREADS 512u
#define GF_P2P_CHASE_BYTES (2u << 20)
#define GF_P2P_CHASE_STRIDE 16u		/* words: one 128-byte line per hop */
#define GF_P2P_CHASE_HOPS 1000000ull
#define GF_P2P_CHASE_HOPS_QUICK 100000ull
/* How long gf_spin holds a stream while the copies are queued behind it. */
#define GF_P2P_SPIN_MS 10u

/* What a point measures.  Read: the destination GPU issues the copy and
 * pulls from its peer; write: the source GPU issues it and pushes.  The
 * bidirectional ones run the reverse copy (the same kind, issued the same
 * way) on a second stream at once and report the measured one, as
 * nvbandwidth's *_bidirectional_memcpy_* report read1/write1. */
enum gf_p2p_test { GF_P2P_READ = 0, GF_P2P_WRITE, GF_P2P_BIDIR_READ, GF_P2P_BIDIR_WRITE, GF_P2P_LOCAL,
		   GF_P2P_LATENCY, GF_P2P_TESTS };
/* Who moves the bytes: a copy engine (cuMemcpyPeerAsync/DtoDAsync) or the
 * SMs (the gf_copy kernel). */
enum gf_p2p_copy { GF_P2P_CE = 0, GF_P2P_SM, GF_P2P_COPIES };

struct gf_p2p_gpu {
	unsigned index;			/* NVML index */
	struct gf_cuda_dev dev;
	bool open;
	struct gf_cuda_kernel spin, copy, chase;
	bool spin_loaded, copy_loaded, chase_loaded;
	unsigned long long spin_cycles;
	gf_cu_stream s[2];		/* the measured copy's, the reverse copy's */
	gf_cu_event start[2], end[2];
	gf_cu_event go;			/* the spin ended: the other stream waits on it */
	int topo_mi;			/* the model's matrix index, -1 not modelled */
};

/* Peer access and the model's path between GPUs a and b (either order). */
struct gf_p2p_pair {
	bool peer;			/* each can reach the other's memory */
	double limit_gb_per_s;		/* one way; 0 unknown */
	char limit_text[96];
	char link[16];			/* "NV18", "SYS", "" unknown */
};

/* A point.  Bandwidth: bytes from GPU src to GPU dst (the same for LOCAL);
 * latency: GPU dst chases a chain in GPU src's memory. */
struct gf_p2p_point {
	enum gf_p2p_test test;
	enum gf_p2p_copy copy;
	unsigned src, dst;		/* indexes into gpus[] */
	uint64_t size;
	bool verified;			/* the bytes moved were checked */
};

struct gf_p2p_flag {
	bool error;
	unsigned point;
	char message[200];
};

/* The device buffers of one (src, dst, size): a on src -> b on dst is the
 * measured copy, c on dst -> d on src the reverse; host is the staging
 * buffer the byte check fills and reads. */
struct gf_p2p_bufs {
	unsigned src, dst;
	uint64_t size;
	gf_cu_deviceptr a, b, c, d;
	void *host;
	bool live;
};

/* The latency chain in GPU mem's memory, and the word on GPU run the
 * chase's end is stored into. */
struct gf_p2p_chain {
	unsigned mem, run;
	gf_cu_deviceptr base, out;
	bool live;
};

struct gf_bench_p2p {
	struct gf_bench_p2p_opts o;	/* resolved: repeats, loops */
	const struct gf_topo *topo;	/* the frame's */
	uint64_t sizes[GF_BENCH_P2P_SIZES_MAX];
	unsigned nsizes;
	bool tests[GF_P2P_TESTS];	/* which run */
	bool copies[GF_P2P_COPIES];
	unsigned long long hops;	/* latency: dependent loads per sample */
	struct gf_p2p_gpu *gpus;
	unsigned ngpus;
	struct gf_p2p_pair *pairs;	/* ngpus x ngpus */
	struct gf_p2p_point *points;
	struct gf_runner_point *res;
	unsigned npoints;
	struct gf_p2p_flag *flags;
	unsigned nflags;
	struct gf_p2p_bufs bufs;
	struct gf_p2p_chain chain;
};

const char *gf_p2p_test_name(enum gf_p2p_test t);
const char *gf_p2p_copy_name(enum gf_p2p_copy c);
/* nvbandwidth's testcase of a point ("device_to_device_memcpy_read_ce"),
 * NULL where it has none; *row and *col: its matrix cell (gpus[] indexes). */
const char *gf_p2p_nvbw_name(const struct gf_p2p_point *pt, unsigned *row, unsigned *col);
/* "read ce, GPU 0 -> GPU 1, 512 MiB": point i in progress and errors. */
void gf_p2p_label(const struct gf_bench_p2p *p, unsigned i, char *buf, size_t size);
/* Which GPU issues the measured copy of pt (the reverse: the other one). */
unsigned gf_p2p_issuer(const struct gf_p2p_point *pt);
static inline bool gf_p2p_bidir(enum gf_p2p_test t)
{
	return t == GF_P2P_BIDIR_READ || t == GF_P2P_BIDIR_WRITE;
}

/* Buffers for point pt (kept while the next point shares them). */
int gf_p2p_bufs_for(struct gf_bench_p2p *p, const struct gf_p2p_point *pt);
void gf_p2p_bufs_free(struct gf_bench_p2p *p);
/* One sample: GB/s of the measured copy over p->o.loops copies.  The
 * first sample of a point also checks the bytes every copy moved. */
int gf_p2p_sample(struct gf_bench_p2p *p, struct gf_p2p_point *pt, double *gbs);
/* The latency chain for pt; one sample: ns per dependent load. */
int gf_p2p_chain_for(struct gf_bench_p2p *p, const struct gf_p2p_point *pt);
void gf_p2p_chain_free(struct gf_bench_p2p *p);
int gf_p2p_chase(struct gf_bench_p2p *p, struct gf_p2p_point *pt, double *ns);
/* Streams, events and kernels of an opened GPU. */
int gf_p2p_gpu_setup(struct gf_p2p_gpu *g);
void gf_p2p_gpu_teardown(struct gf_p2p_gpu *g);

void gf_p2p_sanity(struct gf_bench_p2p *p);

#endif
