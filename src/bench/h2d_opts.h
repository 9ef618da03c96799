/* `gpufeed bench h2d` (the target gf_bench_h2d_def, frame.h): copy-engine bandwidth between host memory on each
 * NUMA node and each GPU, host to device, device to host and both at once,
 * timed as nvbandwidth times its *_memcpy_ce testcases; each figure beside
 * the path's theoretical limit from the machine model.  Measures this
 * machine; the model (a recording's with --root) gives each GPU's node and
 * limit.  docs/bench-h2d.md. */
#ifndef GF_BENCH_H2D_OPTS_H
#define GF_BENCH_H2D_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/frame.h"


#define GF_BENCH_H2D_SCHEMA "gpufeed-bench-h2d/1"

/* Bounds gf_bench_h2d_check enforces. */
#define GF_BENCH_H2D_SIZE_MIN (4ull << 10)
#define GF_BENCH_H2D_SIZE_MAX (64ull << 30)
#define GF_BENCH_H2D_SIZES_MAX 16u
#define GF_BENCH_H2D_REPEATS_MAX 1000u
#define GF_BENCH_H2D_LOOPS_MAX 100000u

struct gf_bench_h2d_opts {
	const char *gpus;		/* NVML indexes "0,2" or "0-3"; NULL all */
	const char *nodes;		/* host NUMA nodes "0,1", "all"; NULL: each
					 * GPU's own node (as nvbandwidth) */
	const char *sizes;		/* "64M,512M"; NULL: 512M (--quick 64M),
					 * nvbandwidth's default buffer */
	bool pageable;			/* pageable host memory too (pinned always) */
	unsigned repeats;		/* samples kept per figure; 0: 5 (--quick 3) */
	unsigned loops;			/* copies timed per sample; 0: 16 (nvbandwidth's
					 * loopCount) */
	bool quick;
	bool all_at_once;		/* also each GPU while all the others copy
					 * (pinned, each GPU's own node):
					 * nvbandwidth's host_to_all and all_to_host */
	const char *directions;		/* "host_to_device,bidirectional_host_to_all":
					 * only these figures (the JSON's direction
					 * names, as nvbandwidth's -t picks testcases;
					 * an *_all one turns all_at_once on); NULL:
					 * the four per GPU, and the four *_all ones
					 * with all_at_once */
};

struct gf_bench_h2d;

/* The options alone: 0, or -EINVAL/-ERANGE naming the option (usage). */
int gf_bench_h2d_check(const struct gf_bench_h2d_opts *opts);
/* Measures.  0 (failed points are in the results), -ENOSYS when libcuda
 * or NVML is absent, -ENODEV when there is no GPU, a GPU or node of the
 * options is not here, -ECANCELED when *env->cancel was set, or -errno. */
int gf_bench_h2d_run(const struct gf_bench_h2d_opts *opts, const struct gf_bench_env *env,
		     struct gf_bench_h2d **out);
/* Findings: failed points (a byte-for-byte check that failed among them)
 * and figures above the path's theoretical limit.  0 when none. */
unsigned gf_bench_h2d_findings(const struct gf_bench_h2d *h);
int gf_bench_h2d_print(const struct gf_bench_h2d *h, FILE *f);
int gf_bench_h2d_write_json(const struct gf_bench_h2d *h, FILE *f);
void gf_bench_h2d_free(struct gf_bench_h2d *h);

#endif
