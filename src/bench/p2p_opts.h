/* `gpufeed bench p2p` (the target gf_bench_p2p_def, frame.h): the GPU x GPU bandwidth matrix (read and write,
 * unidirectional and bidirectional, copy engine and SM copies), each GPU's
 * local copy (the diagonal) and the latency matrix, timed as nvbandwidth
 * times its device_to_device_* testcases; each figure beside the path's
 * theoretical limit from the machine model.  Measures this machine; the
 * model (a recording's with --root) gives each pair's limit.
 * docs/bench-p2p.md. */
#ifndef GF_BENCH_P2P_OPTS_H
#define GF_BENCH_P2P_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/frame.h"


#define GF_BENCH_P2P_SCHEMA "gpufeed-bench-p2p/1"

/* Bounds gf_bench_p2p_check enforces. */
#define GF_BENCH_P2P_SIZE_MIN (4ull << 10)
#define GF_BENCH_P2P_SIZE_MAX (64ull << 30)
#define GF_BENCH_P2P_SIZES_MAX 16u
#define GF_BENCH_P2P_REPEATS_MAX 1000u
#define GF_BENCH_P2P_LOOPS_MAX 100000u

struct gf_bench_p2p_opts {
	const char *gpus;		/* NVML indexes "0,2" or "0-3"; NULL all */
	const char *sizes;		/* "64M,512M"; NULL: 512M (--quick 64M),
					 * nvbandwidth's default buffer */
	const char *tests;		/* "read,write,bidir-read,bidir-write,local,
					 * latency" or a part; NULL all */
	const char *copies;		/* "ce,sm" or one; NULL both */
	unsigned repeats;		/* samples kept per figure; 0: 5 (--quick 3) */
	unsigned loops;			/* copies timed per sample; 0: 16 (nvbandwidth's
					 * loopCount) */
	bool quick;
};

struct gf_bench_p2p;

/* The options alone: 0, or -EINVAL/-ERANGE naming the option (usage). */
int gf_bench_p2p_check(const struct gf_bench_p2p_opts *opts);
/* Measures.  0 (failed points are in the results; pairs without peer
 * access are reported, not measured), -ENOSYS when libcuda or NVML is
 * absent, -ENODEV when there is no GPU or a GPU of the options is not
 * here, -ECANCELED when *env->cancel was set, or -errno. */
int gf_bench_p2p_run(const struct gf_bench_p2p_opts *opts, const struct gf_bench_env *env,
		     struct gf_bench_p2p **out);
/* Findings: failed points (a byte-for-byte check that failed among them)
 * and figures above the path's theoretical limit.  0 when none. */
unsigned gf_bench_p2p_findings(const struct gf_bench_p2p *p);
int gf_bench_p2p_print(const struct gf_bench_p2p *p, FILE *f);
int gf_bench_p2p_write_json(const struct gf_bench_p2p *p, FILE *f);
void gf_bench_p2p_free(struct gf_bench_p2p *p);

#endif
