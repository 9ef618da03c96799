/* `gpufeed bench mem` (the target gf_bench_mem_def, frame.h): idle latency
 * and read, write and copy bandwidth between every pair of NUMA nodes (a
 * thread on node i's CPUs, memory bound to node j), like Intel MLC's
 * --latency_matrix and --bandwidth_matrix.  Measures this machine; the
 * model names its nodes.  docs/bench-mem.md. */
#ifndef GF_BENCH_MEM_OPTS_H
#define GF_BENCH_MEM_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/frame.h"

#define GF_BENCH_MEM_SCHEMA "gpufeed-bench-mem/1"

/* Bounds gf_bench_mem_check enforces. */
#define GF_BENCH_MEM_SIZE_MIN (1ull << 20)
#define GF_BENCH_MEM_SIZE_MAX (1ull << 40)
#define GF_BENCH_MEM_THREADS_MAX 1024u
#define GF_BENCH_MEM_REPEATS_MAX 1000u

struct gf_bench_mem_opts {
	const char *nodes;		/* "0,2" or "0-1": the nodes measured; NULL all */
	uint64_t size;			/* bytes of each buffer; 0: 256 MiB (--quick 64 MiB)
					 * or 4x the last-level cache if more */
	unsigned threads;		/* bandwidth threads per CPU node; 0: its CPUs */
	unsigned repeats;		/* samples kept per figure; 0: 5 (--quick 3) */
	bool quick;			/* smaller buffers, fewer and shorter samples */
	bool nt;			/* non-temporal stores in write and copy */
};

struct gf_bench_mem;

/* The options alone, before anything runs: 0, or -EINVAL/-ERANGE with a
 * message naming the option (a usage error). */
int gf_bench_mem_check(const struct gf_bench_mem_opts *opts);
/* Measures on the nodes of env->model.  0 (points that failed are in the
 * results), -ENODEV when a node of opts->nodes is not on this machine,
 * -ENOMEM when two buffers of --size are more memory than is available,
 * -ENOSYS where non-temporal stores are not built for this CPU, -ECANCELED
 * when *env->cancel was set, or -errno. */
int gf_bench_mem_run(const struct gf_bench_mem_opts *opts, const struct gf_bench_env *env,
		     struct gf_bench_mem **out);
/* Findings: pages that did not land on the memory node asked for, points
 * that failed, figures past a physical limit.  0 when none. */
unsigned gf_bench_mem_findings(const struct gf_bench_mem *m);
int gf_bench_mem_print(const struct gf_bench_mem *m, FILE *f);
int gf_bench_mem_write_json(const struct gf_bench_mem *m, FILE *f);
void gf_bench_mem_free(struct gf_bench_mem *m);

#endif
