/* bench io-gpu inside: the points (the disk's O_DIRECT read, the pinned
 * host-to-device copy, then each transfer path), their samples and CPU. */
#ifndef GF_BENCH_IO_GPU_BENCH_H
#define GF_BENCH_IO_GPU_BENCH_H

#include <gpufeed/topo.h>
#include <gpufeed/xfer.h>
#include "bench/io_gpu_opts.h"
#include "bench/runner.h"

enum gf_iog_kind { GF_IOG_DISK = 0, GF_IOG_H2D, GF_IOG_PATH };

struct gf_iog_point {
	enum gf_iog_kind kind;
	enum gf_xfer_path path;		/* GF_IOG_PATH */
	double cpu_s_per_gb[GF_BENCH_IO_GPU_REPEATS_MAX + 1];
	unsigned ncpu;
	/* The last sample's transfer (api, compat mode, O_DIRECT, node). */
	struct gf_xfer_stats st;
	char check[160];		/* the byte check: "" not run, "ok ..." or "FAIL ..." */
};

struct gf_bench_io_gpu {
	struct gf_bench_io_gpu_opts o;
	char file[4096];
	bool created;
	uint64_t bytes;			/* moved per sample: the whole file */
	char pci[16];
	int numa_node;
	const struct gf_topo *topo;	/* the frame's: the GPU's node, the
					 * machine summary in the JSON */
	struct gf_iog_point pts[2 + GF_XFER_PATHS];
	struct gf_runner_point res[2 + GF_XFER_PATHS];
	unsigned npoints;
	/* while running */
	struct gf_xfer *x;		/* the path point's, between prepare and cleanup */
	struct gf_xfer *base;		/* holds the GPU memory for the whole run */
	uint64_t dev;
	int fd;
};

const char *gf_iog_point_name(const struct gf_bench_io_gpu *b, unsigned i);
/* The median of point kind k, 0 when it did not run. */
double gf_iog_median(const struct gf_bench_io_gpu *b, enum gf_iog_kind k);

/* The reference figures (io_gpu_limits.c): one cold O_DIRECT pass over the
 * file, and one pinned host-to-device copy of the same bytes; GB/s. */
int gf_iog_disk_sample(struct gf_bench_io_gpu *b, double *gbs, double *cpu_s);
int gf_iog_h2d_sample(struct gf_bench_io_gpu *b, double *gbs, double *cpu_s);
/* Zeroes the GPU memory the paths read into. */
int gf_iog_clear(struct gf_bench_io_gpu *b);

#endif
