/* Insides of `bench mem` shared by its target (mem_target.c), its
 * kernels and thread team (mem_team.c) and its output (mem_report.c). */
#ifndef GF_BENCH_MEM_BENCH_H
#define GF_BENCH_MEM_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gpufeed/buf.h>
#include <gpufeed/cpuset.h>
#include <gpufeed/topo.h>

#include "bench/mem_opts.h"
#include "bench/runner.h"

enum gf_mem_kind { GF_MEM_LATENCY = 0, GF_MEM_READ, GF_MEM_WRITE, GF_MEM_COPY, GF_MEM_KINDS };

#define GF_MEM_LINE 64u			/* chain stride: one cache line */
#define GF_MEM_PAGES_CHECKED 64u	/* pages per buffer asked move_pages about */

/* One (CPU node, memory node) pair. */
struct gf_mem_pair {
	int cpu_node, mem_node;		/* node ids */
	int row, col;			/* matrix indices */
	struct gf_cpuset cpus;		/* the CPU node's allowed CPUs */
	unsigned threads;		/* bandwidth threads */
	int lat_cpu;			/* the latency thread's CPU */
};

/* Where a memory node's buffers' pages were found (move_pages). */
struct gf_mem_placement {
	int node;
	unsigned checked, on_node;
	int other;			/* a node pages were found on instead, -1 */
	bool done;
};

/* A point of the sweep: a kind on a pair. */
struct gf_mem_point {
	enum gf_mem_kind kind;
	unsigned pair;
	/* Calibrated in prepare: loads (latency) or passes (bandwidth) per sample. */
	uint64_t work;
	void *pos;			/* latency: where the chain walk stopped */
};

struct gf_mem_flag {
	bool error;			/* past a physical limit (a finding); else a warning */
	unsigned point;
	char message[200];
};

struct gf_bench_mem {
	struct gf_bench_mem_opts o;	/* resolved: size, repeats set */
	double sample_s;		/* target length of one sample */
	const struct gf_topo *topo;	/* the frame's */
	int *rows, *cols;		/* CPU nodes (with CPUs), memory nodes */
	unsigned nrows, ncols;
	struct gf_mem_pair *pairs;
	unsigned npairs;
	struct gf_mem_point *points;
	struct gf_runner_point *res;
	unsigned npoints;
	struct gf_mem_placement *placement;	/* per column */
	struct gf_mem_flag *flags;
	unsigned nflags;
	/* Buffers of the memory node being measured. */
	int buf_node;
	struct gf_buf *a, *b;
	bool chain_ok;
	unsigned long long llc_bytes;	/* the largest last-level cache, 0 unknown */
};

/* The largest last-level (L3, else L2) cache of this machine's CPUs (one
 * CPU per L3 group of the model t), from sysfs; 0 when unknown. */
unsigned long long gf_mem_llc_bytes(const struct gf_topo *t);

const char *gf_mem_kind_name(enum gf_mem_kind k);
const char *gf_mem_kind_unit(enum gf_mem_kind k);

/* Runs kind on the pair's CPUs over the buffers: for latency, one thread
 * walks *pos for work loads and *value is ns per load; for bandwidth,
 * threads threads each move their slice work times and *value is GB/s
 * (bytes counted as docs/bench-mem.md says).  0 or -errno with a message. */
int gf_mem_team_run(struct gf_bench_mem *m, const struct gf_mem_pair *pr, struct gf_mem_point *pt,
		    double *value);

/* Whether non-temporal stores are built for this CPU. */
bool gf_mem_have_nt(void);

void gf_mem_sanity(struct gf_bench_mem *m);

#endif
