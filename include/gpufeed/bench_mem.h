/* `gpufeed bench mem`: idle latency and read, write and copy bandwidth
 * between every pair of NUMA nodes (a thread on node i's CPUs, memory bound
 * to node j), like Intel MLC's --latency_matrix and --bandwidth_matrix.
 * Measures this machine (no recording).  docs/bench-mem.md. */
#ifndef GPUFEED_BENCH_MEM_H
#define GPUFEED_BENCH_MEM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GF_BENCH_MEM_SCHEMA "gpufeed-bench-mem/1"

/* Bounds gf_bench_mem_check enforces. */
#define GF_BENCH_MEM_SIZE_MIN (1ull << 20)
#define GF_BENCH_MEM_SIZE_MAX (1ull << 40)
#define GF_BENCH_MEM_THREADS_MAX 1024u
#define GF_BENCH_MEM_REPEATS_MAX 1000u

/* Versioned (include/gpufeed/common.h): start from GF_BENCH_MEM_OPTS_INIT. */
struct gf_bench_mem_opts {
	size_t struct_size;
	const char *nodes;		/* "0,2" or "0-1": the nodes measured; NULL all */
	uint64_t size;			/* bytes of each buffer; 0: 256 MiB (--quick 64 MiB)
					 * or 4x the last-level cache if more */
	unsigned threads;		/* bandwidth threads per CPU node; 0: its CPUs */
	unsigned repeats;		/* samples kept per figure; 0: 5 (--quick 3) */
	bool quick;			/* smaller buffers, fewer and shorter samples */
	bool nt;			/* non-temporal stores in write and copy */
	volatile sig_atomic_t *cancel;	/* set from a signal handler to stop */
	FILE *progress;			/* progress lines with elapsed and ETA; NULL none */
	bool progress_tty;		/* rewrite one line in place */
};
#define GF_BENCH_MEM_OPTS_INIT { .struct_size = sizeof(struct gf_bench_mem_opts) }

struct gf_bench_mem;

/* The options alone, before anything runs: 0, or -EINVAL/-ERANGE with a
 * message naming the option (a usage error). */
GF_API int gf_bench_mem_check(const struct gf_bench_mem_opts *opts);
/* Measures.  0 (points that failed are in the results), -ENODEV when a
 * node of opts->nodes is not on this machine or the machine model is not
 * available, -ENOSYS where non-temporal stores are not built for this CPU,
 * -ECANCELED when *cancel was set, or -errno. */
GF_API int gf_bench_mem_run(const struct gf_bench_mem_opts *opts, struct gf_bench_mem **out);
/* Findings: pages that did not land on the memory node asked for, points
 * that failed, figures past a physical limit.  0 when none. */
GF_API unsigned gf_bench_mem_findings(const struct gf_bench_mem *m);
GF_API int gf_bench_mem_print(const struct gf_bench_mem *m, FILE *f);
GF_API int gf_bench_mem_write_json(const struct gf_bench_mem *m, FILE *f);
GF_API void gf_bench_mem_free(struct gf_bench_mem *m);

#ifdef __cplusplus
}
#endif
#endif
