/* One collective measured the way nccl-tests measures it (its src/common.cu
 * and src/<coll>.cu, version 2.19): the same element counts for a size,
 * the same algbw and busbw, the same timing (the wall-clock average of
 * `iters` back-to-back launches between a start and the end of every
 * stream, averaged over the ranks), plus what nccl-tests does not keep by
 * default: each iteration's time from CUDA events (p50/p99), each rank's
 * time and the slowest rank.  A data check (--check) fills the inputs with
 * a rank- and index-dependent pattern and counts the elements that differ
 * from the result computed on the host, as nccl-tests' -c does. */
#ifndef GF_COLL_RUN_H
#define GF_COLL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/comm.h"

enum gf_coll_op {
	GF_COLL_ALL_REDUCE = 0,
	GF_COLL_ALL_GATHER,
	GF_COLL_REDUCE_SCATTER,
	GF_COLL_BROADCAST,
	GF_COLL_REDUCE,
	GF_COLL_ALLTOALL,		/* ncclSend/ncclRecv to every peer in a group */
	GF_COLL_SENDRECV,		/* ring pairs: rank r sends to r+1, receives from r-1 */
	GF_COLL_OPS
};

/* "all_reduce"...; nccl-tests' binary is "<name>_perf" (alltoall_perf,
 * sendrecv_perf). */
const char *gf_coll_op_name(enum gf_coll_op op);
/* 0, or -EINVAL listing the names. */
int gf_coll_op_parse(const char *name, enum gf_coll_op *op);
/* Whether the op takes a reduction / a root (nccl-tests prints "none" and
 * -1 for the others). */
bool gf_coll_op_reduces(enum gf_coll_op op);
bool gf_coll_op_rooted(enum gf_coll_op op);

/* Data types by nccl-tests' names (-d): int8, uint8, int32, uint32, int64,
 * uint64, half, float, double, bfloat16, f8e4m3, f8e5m2.  0 or -EINVAL. */
int gf_coll_dtype_parse(const char *name, gf_nccl_datatype *t);
const char *gf_coll_dtype_name(gf_nccl_datatype t);
size_t gf_coll_dtype_size(gf_nccl_datatype t);
/* Reductions by nccl-tests' names (-o): sum, prod, max, min, avg. */
int gf_coll_redop_parse(const char *name, gf_nccl_redop *op);
const char *gf_coll_redop_name(gf_nccl_redop op);

/* A size's element counts (nccl-tests' <Coll>GetCollByteCount with count =
 * bytes / element size): send and recv per rank, the count handed to NCCL
 * (param), and where the input sits inside the output for in-place runs. */
struct gf_coll_counts {
	size_t send, recv, param;
	size_t send_inplace_off, recv_inplace_off;	/* elements, times the rank */
};
void gf_coll_counts_of(enum gf_coll_op op, size_t bytes, size_t elt, int nranks, struct gf_coll_counts *c);
/* The size nccl-tests prints for a row: max(send, recv) bytes. */
uint64_t gf_coll_row_bytes(const struct gf_coll_counts *c, size_t elt);
/* nccl-tests' <Coll>GetBw: algbw = bytes / s (GB/s, 1e9) with bytes the
 * param count (all_gather, reduce_scatter, alltoall: times nranks), busbw
 * = algbw x 2(n-1)/n (all_reduce), (n-1)/n (all_gather, reduce_scatter,
 * alltoall) or 1 (broadcast, reduce, sendrecv). */
void gf_coll_bw(enum gf_coll_op op, size_t param_count, size_t elt, double sec, int nranks, double *algbw,
		double *busbw);
/* The factor busbw = algbw x factor. */
double gf_coll_bus_factor(enum gf_coll_op op, int nranks);

/* The sizes of a sweep as nccl-tests walks them: from min while <= max,
 * times factor when factor > 1, else plus step.  Up to max_n into out;
 * the number of sizes (which may exceed max_n), or 0 for a sweep that
 * never moves (factor <= 1 and step 0). */
unsigned gf_coll_sizes(uint64_t min, uint64_t max, unsigned factor, uint64_t step, uint64_t *out, unsigned max_n);

struct gf_coll_run_opts {
	enum gf_coll_op op;
	gf_nccl_datatype dtype;
	gf_nccl_redop redop;
	int root;
	bool in_place;
	unsigned iters, warmup_iters;
	unsigned check;			/* data-check iterations after timing; 0 none */
	uint64_t max_bytes;		/* the sweep's largest size (buffers) */
};

/* One size's figures. */
struct gf_coll_result {
	uint64_t bytes;			/* the row's size, nccl-tests' "size" */
	size_t count;			/* the count handed to NCCL */
	double time_s;			/* nccl-tests' time: wall clock / iters,
					 * averaged over the ranks */
	double algbw, busbw;		/* GB/s of time_s */
	double *iter_s;			/* [iters]: each iteration's time, the
					 * slowest GPU's (CUDA events) */
	unsigned iters;
	double p50_s, p99_s;
	double *rank_s;			/* [nranks] each rank's time (rank 0 of a
					 * multi-process job; NULL elsewhere) */
	int nranks;
	int slowest_rank;
	long long wrong;		/* elements the check found wrong, all ranks */
	unsigned checked;		/* check iterations run */
};

struct gf_coll_run;

/* Buffers (max_bytes each side, on every GPU of c) and events.  0 or
 * -errno (-ENOMEM naming the GPU). */
int gf_coll_run_open(struct gf_coll_comm *c, const struct gf_coll_run_opts *o, struct gf_coll_run **out);
/* Measures size bytes (nccl-tests' -b/-e value): warm-up, timed
 * iterations, the check.  In a multi-process job every rank calls it for
 * the same sizes; rank 0's *res holds everyone's figures.  0 or -errno
 * (-ETIMEDOUT naming the GPU and rank). */
int gf_coll_run_point(struct gf_coll_run *r, uint64_t size, struct gf_coll_result *res);
/* One launch of size bytes on every GPU of this process and the wait for
 * it, timed by nothing: a call of its own for whoever wants to watch what
 * NCCL does with that size (bench coll logs NCCL's choice around it) while
 * the timed passes stay as nccl-tests runs them.  Every rank of a job
 * calls it for the same sizes.  0 or -errno as gf_coll_run_point. */
int gf_coll_run_once(struct gf_coll_run *r, uint64_t size);
void gf_coll_result_free(struct gf_coll_result *res);
void gf_coll_run_close(struct gf_coll_run *r);

/* The input pattern of the check and the host's expectation of a value. */
double gf_coll_pattern(gf_nccl_redop redop, int rank, int nranks, size_t index, unsigned seed);

#endif
