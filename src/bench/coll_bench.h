/* `gpufeed bench coll` (the target gf_bench_coll_def, frame.h): NCCL
 * collectives swept over sizes as nccl-tests sweeps them, with its element
 * counts, timing, algbw and busbw (coll/run.h), per-iteration p50/p99, the
 * slowest rank, a data check, and each row beside the narrowest link of
 * the ring in the machine model.  One process over the chosen GPUs, or one
 * rank per process under a launcher (coll/world.h).  docs/coll.md. */
#ifndef GF_BENCH_COLL_BENCH_H
#define GF_BENCH_COLL_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <gpufeed/nccl.h>
#include "bench/frame.h"
#include "bench/runner.h"
#include "coll/run.h"
#include "coll/world.h"

#define GF_BENCH_COLL_SCHEMA "gpufeed-bench-coll/1"
#define GF_BENCH_COLL_ITERS_MAX 100000u
#define GF_BENCH_COLL_POINTS_MAX 4096u
#define GF_BENCH_COLL_TIMEOUT_S 300.0

struct gf_bench_coll_opts {
	const char *op;			/* NULL: all_reduce */
	const char *gpus;		/* NVML indexes "0,1" or "0-3", "all"; NULL all */
	uint64_t min_bytes, max_bytes;	/* nccl-tests' -b, -e */
	unsigned step_factor;		/* -f; 0 unless given */
	uint64_t step_bytes;		/* -i; 0 unless given */
	unsigned iters, warmup_iters;	/* -n, -w */
	unsigned check;			/* -c: check iterations; 0 none */
	const char *dtype, *redop;	/* -d, -o: nccl-tests' names */
	unsigned root;			/* -r */
	bool in_place;
	double timeout_s;
};

/* The ring's narrowest link in the machine model: for NVLink GPUs the
 * model's NVLink bandwidth, else the PCIe path's limit. */
struct gf_coll_limit {
	double gb_per_s;		/* 0: unknown */
	char text[128];			/* "NV18 between 0000:..., 0000:..." */
};

struct gf_bench_coll {
	struct gf_bench_coll_opts o;	/* resolved */
	const struct gf_topo *topo;
	enum gf_coll_op op;
	gf_nccl_datatype dtype;
	gf_nccl_redop redop;
	struct gf_coll_world world;
	bool multi;			/* one rank of a launched job */
	int rank, nranks;
	int nccl_version;
	char nccl_library[256];
	char (*pcis)[16];		/* this process's GPUs */
	unsigned *indexes;		/* their NVML indexes (CUDA ordinals for a
					 * launched rank without --gpus) */
	char (*ring)[16];		/* every rank's GPU, rank order (rank 0) */
	int ngpus;
	char gpu_name[96];
	struct gf_coll_limit limit;
	uint64_t *sizes;
	unsigned nsizes;
	struct gf_coll_result *res;	/* [nsizes] */
	/* What NCCL chose for each size (rank 0), from its log of one untimed
	 * call after the timed ones: nchannels 0 where it said nothing. */
	struct gf_nccl_choice *choice;	/* [nsizes] */
	char choice_why[320];		/* why no row shows it; "" when they may */
	/* while running */
	struct gf_coll_comm *comm;
	struct gf_coll_run *run;
	int failed;			/* the first point's error: the rest skip */
};

/* The options alone: 0, or -EINVAL/-ERANGE naming the option. */
int gf_bench_coll_check(const struct gf_bench_coll_opts *o);
int gf_bench_coll_run(const struct gf_bench_coll_opts *o, const struct gf_bench_env *env,
		      struct gf_bench_coll **out);
/* Rows with wrong elements and busbw above the ring's limit. */
unsigned gf_bench_coll_findings(const struct gf_bench_coll *p);
int gf_bench_coll_print(const struct gf_bench_coll *p, FILE *f);
int gf_bench_coll_write_json(const struct gf_bench_coll *p, FILE *f);
void gf_bench_coll_free(struct gf_bench_coll *p);
/* busbw as a percentage of the limit; NAN when unknown. */
double gf_bench_coll_percent(const struct gf_bench_coll *p, const struct gf_coll_result *r);

#endif
