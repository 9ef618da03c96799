/* NCCL communicators for a measurement: this process's GPUs, each with its
 * CUDA context, its communicator and its stream.  One process may drive
 * every GPU of the machine (ncclCommInitAll's shape: one rank per GPU, in
 * the order given), or be one rank of a multi-process job (one GPU, the
 * unique id carried by coll/ctl.h).  Every wait has a deadline: init runs
 * in a thread of its own and is waited for, collectives are waited for by
 * polling their streams and ncclCommGetAsyncError, and a wait past its
 * deadline aborts the communicators and names what did not finish.  The
 * communicators are blocking ones, as nccl-tests makes them: a
 * non-blocking one (ncclConfig blocking = 0) hands every ncclGroupEnd to a
 * new thread, a cost per launch the small sizes' figures would show. */
#ifndef GF_COLL_COMM_H
#define GF_COLL_COMM_H

#include <stdbool.h>
#include "coll/ctl.h"
#include "vendor/cuda/cuda_device.h"
#include "vendor/nccl/nccl.h"

struct gf_coll_gpu {
	struct gf_cuda_dev dev;		/* opened by PCI address, context current
					 * in the opening thread */
	gf_nccl_comm comm;
	gf_cu_stream stream;
	int rank;			/* global rank of this GPU */
};

struct gf_coll_comm {
	const struct gf_nccl_ops *nccl;
	int nranks;			/* global */
	int ngpus;			/* this process's */
	struct gf_coll_gpu *gpu;	/* [ngpus] */
	struct gf_coll_ctl *ctl;	/* multi-process only, else NULL */
	int nccl_version;		/* ncclGetVersion's number */
	double timeout_s;
};

struct gf_coll_comm_opts {
	/* Single process: the GPUs' PCI addresses (gf_topo's order), one rank
	 * each.  Multi-process: world (from gf_coll_world_from_env) and the
	 * one GPU this rank drives, pcis[0] (the launcher's LOCAL_RANK'th
	 * visible GPU when the caller picks none). */
	const char *const *pcis;
	int npcis;
	const struct gf_coll_world *world;	/* NULL: single process */
	double timeout_s;			/* every wait; > 0 */
};

/* Loads NCCL and CUDA, opens the GPUs, exchanges the unique id (and in a
 * multi-process job every rank's NCCL version: a mismatch is -EPROTO
 * "rank 1 (pid ... on ...) has NCCL 2.28.3, rank 0 has 2.28.9"), and
 * creates the communicators.  -ENOSYS / -ENODEV when NCCL, CUDA or a GPU is
 * not there (exit 4); -ETIMEDOUT naming the rank that did not join. */
int gf_coll_comm_open(const struct gf_coll_comm_opts *o, struct gf_coll_comm **out);

/* Waits for every stream of this process, polling ncclCommGetAsyncError;
 * past timeout_s aborts the communicators and returns -ETIMEDOUT with
 * "'all_reduce 1 GiB' did not finish within 30 s on GPU 0000:18:00.0
 * (rank 2)" (what names the step). */
int gf_coll_comm_wait(struct gf_coll_comm *c, const char *what);

/* After an NCCL call r that enqueues work (a ncclGroupEnd, a collective
 * outside a group): a non-blocking communicator may still be taking it
 * (ncclInProgress), and NCCL forbids the next call until it has; waits for
 * that with the deadline.  0; the call's or an asynchronous error (the
 * communicators aborted); -ETIMEDOUT naming the GPU and rank. */
int gf_coll_comm_ready(struct gf_coll_comm *c, gf_nccl_result r, const char *what);

/* ncclCommAbort on every communicator (after a timeout or a peer's
 * failure), so close does not wait on a dead peer. */
void gf_coll_comm_abort(struct gf_coll_comm *c);

/* Destroys communicators and streams, releases contexts, closes ctl. */
void gf_coll_comm_close(struct gf_coll_comm *c);

#endif
