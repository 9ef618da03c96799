/* The control plane of a multi-process collective run: a TCP star around
 * rank 0 (MASTER_ADDR:port), so ranks started by any launcher find each
 * other without MPI.  It carries NCCL's unique id from rank 0 to all,
 * checks that every rank loaded the same NCCL version, holds the ranks
 * together between measured points, gathers their figures, and turns a
 * dead or late rank into an error that names it instead of a hang.
 * Every call takes a deadline; a connection that closes is a dead rank. */
#ifndef GF_COLL_CTL_H
#define GF_COLL_CTL_H

#include <stddef.h>
#include "coll/world.h"

struct gf_coll_ctl;

/* Rank 0 listens on w->port (SO_REUSEADDR) and accepts the other ranks;
 * the others connect, retrying until timeout_s (rank 0 may start last).
 * Each rank introduces itself (rank, host name, pid).  -ETIMEDOUT with
 * "rank 0: ranks 2, 3 of 4 did not connect to 10.0.0.1:29500 within 60 s";
 * -EADDRINUSE naming the port; -EPROTO for a rank that does not fit (a
 * rank number given twice or out of range, another rank count).  A
 * stranger on the port (no hello with gpufeed's magic and version: a port
 * scan, a health check) is hung up on and rank 0 waits on for the ranks. */
int gf_coll_ctl_open(const struct gf_coll_world *w, double timeout_s, struct gf_coll_ctl **out);

/* Rank 0's len bytes to every rank (the unique id).  what names the step
 * in messages ("NCCL unique id"). */
int gf_coll_ctl_bcast(struct gf_coll_ctl *c, void *buf, size_t len, double timeout_s, const char *what);

/* Every rank's len bytes to rank 0, in rank order into all (nranks * len
 * bytes, rank 0 only; others pass NULL), and then rank 0's verdict back to
 * every rank, so a failure on one rank fails all of them with the same
 * message. */
int gf_coll_ctl_gather(struct gf_coll_ctl *c, const void *mine, void *all, size_t len, double timeout_s,
		       const char *what);

/* Every rank reaches what before any leaves.  A rank that dies or does not
 * arrive by timeout_s: -ETIMEDOUT / -ECONNRESET on every rank with
 * "rank 3 (pid 4242 on node7) did not reach 'all_reduce 1 GiB' within 30 s"
 * or "rank 3 (pid 4242 on node7) exited". */
int gf_coll_ctl_barrier(struct gf_coll_ctl *c, double timeout_s, const char *what);

/* Tells every rank to stop with the reason (after a local failure), best
 * effort; the others see it as an error naming this rank. */
void gf_coll_ctl_abort(struct gf_coll_ctl *c, const char *why);

/* "rank 3 (pid 4242 on node7)" for messages; "rank 3" before it
 * introduced itself. */
const char *gf_coll_ctl_who(const struct gf_coll_ctl *c, int rank);

void gf_coll_ctl_close(struct gf_coll_ctl *c);

#endif
