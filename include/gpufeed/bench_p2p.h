/* `gpufeed bench p2p`: the GPU x GPU bandwidth matrix (read and write,
 * unidirectional and bidirectional, copy engine and SM copies), each GPU's
 * local copy (the diagonal) and the latency matrix, timed as nvbandwidth
 * times its device_to_device_* testcases; each figure beside the path's
 * theoretical limit from the machine model.  Measures this machine (no
 * recording).  docs/bench-p2p.md. */
#ifndef GPUFEED_BENCH_P2P_H
#define GPUFEED_BENCH_P2P_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GF_BENCH_P2P_SCHEMA "gpufeed-bench-p2p/1"

/* Bounds gf_bench_p2p_check enforces. */
#define GF_BENCH_P2P_SIZE_MIN (4ull << 10)
#define GF_BENCH_P2P_SIZE_MAX (64ull << 30)
#define GF_BENCH_P2P_SIZES_MAX 16u
#define GF_BENCH_P2P_REPEATS_MAX 1000u
#define GF_BENCH_P2P_LOOPS_MAX 100000u

/* Versioned (include/gpufeed/common.h): start from GF_BENCH_P2P_OPTS_INIT. */
struct gf_bench_p2p_opts {
	size_t struct_size;
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
	volatile sig_atomic_t *cancel;	/* set from a signal handler to stop */
	FILE *progress;			/* progress lines with elapsed and ETA; NULL none */
	bool progress_tty;		/* rewrite one line in place */
};
#define GF_BENCH_P2P_OPTS_INIT { .struct_size = sizeof(struct gf_bench_p2p_opts) }

struct gf_bench_p2p;

/* The options alone: 0, or -EINVAL/-ERANGE naming the option (usage). */
GF_API int gf_bench_p2p_check(const struct gf_bench_p2p_opts *opts);
/* Measures.  0 (failed points are in the results; pairs without peer
 * access are reported, not measured), -ENOSYS when libcuda or NVML is
 * absent, -ENODEV when there is no GPU or a GPU of the options is not
 * here, -ECANCELED when *cancel was set, or -errno. */
GF_API int gf_bench_p2p_run(const struct gf_bench_p2p_opts *opts, struct gf_bench_p2p **out);
/* Findings: failed points (a byte-for-byte check that failed among them)
 * and figures above the path's theoretical limit.  0 when none. */
GF_API unsigned gf_bench_p2p_findings(const struct gf_bench_p2p *p);
GF_API int gf_bench_p2p_print(const struct gf_bench_p2p *p, FILE *f);
GF_API int gf_bench_p2p_write_json(const struct gf_bench_p2p *p, FILE *f);
GF_API void gf_bench_p2p_free(struct gf_bench_p2p *p);

#ifdef __cplusplus
}
#endif
#endif
