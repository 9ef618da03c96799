/* The NCCL log reader's state (gpufeed/nccl.h): what was fed, grouped by
 * process, and the findings of the last analysis. */
#ifndef GF_NCCL_LOG_H
#define GF_NCCL_LOG_H

#include <stdint.h>
#include <gpufeed/nccl.h>

#include "nccl/log_line.h"

#define NCCL_MAX_ENV 48
#define NCCL_MAX_ALGOS 24
#define NCCL_MAX_COMMS 64
/* Bounds on what one log can make the reader keep (a hostile or runaway
 * log costs linear time and bounded memory); past them, events are counted
 * as dropped. */
#define NCCL_MAX_PROCS 4096
#define NCCL_MAX_CONNS 16384
#define NCCL_MAX_MSGS 512

/* What one rank-to-peer connection went over, and on how many channels. */
struct nccl_conn {
	int rank, peer;
	char transport[64];		/* "P2P/CUMEM", "SHM/direct/direct", "NET/Socket/0" */
	uint64_t channels;		/* channel ids 0..63 seen */
	int more;			/* channels past 63 */
};

struct nccl_env_var {
	char name[64], value[64];
};

/* One process: NCCL's host:pid. */
struct nccl_proc {
	char host[64];
	long pid;
	char source[64];		/* the file it was first read from */
	int prefix_rank;		/* the launcher's, -1 */
	int rank, nranks;		/* from its largest communicator, -1 */
	int dev;			/* NCCL's [dev] (CUDA device), -1 */
	char busid[20];
	char version[64];
	char comms[NCCL_MAX_COMMS][24];	/* distinct communicators initialised */
	int ncomms, inits;		/* inits: "Init COMPLETE" lines */
	struct nccl_env_var env[NCCL_MAX_ENV];
	int nenv;
	char algos[NCCL_MAX_ALGOS][64];	/* "AllReduce RING/SIMPLE" */
	int nalgos;
	int ring_channels, coll_channels, nvls_channels;	/* -1 unknown */
	char trees[128];
	int gdr;			/* -1 unknown, 0 off, 1 on */
	char gdr_nic[64];
	char nvls[160];
	char affinity[128];
	bool affinity_gpu_empty;
	char net[64];
	bool no_ib;
	char net_ifs[192];		/* "Socket: [0]eth0:192.0.2.2<0>; IB: ..." */
};

/* A rank's GPU as its communicator init named it. */
struct nccl_rank {
	int rank, proc, dev;
	char busid[20];
};

/* A WARN line, a PyTorch error, or how far a rank got. */
struct nccl_msg {
	enum nccl_ev_kind kind;
	int proc, rank;
	int count;
	int repeats;
	char text[256];
};

struct gf_nccl_log {
	struct gf_nccl_log_options o;
	long lines;
	long dropped;			/* events past the bounds above */
	struct nccl_proc *procs;
	int nprocs, cprocs;
	int last_proc;			/* the process of the last NCCL line: most lines are its neighbours' */
	struct nccl_conn *conns;
	int nconns, cconns;
	struct nccl_rank *ranks;
	int nranks, cranks;
	struct nccl_msg *msgs;
	int nmsgs, cmsgs;
	/* the analysis */
	bool analysed, topo_compared;
	char topo_note[256];
	struct gf_nccl_finding *findings;
	int nfindings, cfindings;
};

/* The rank a process is known by: its communicator's, else the launcher's,
 * else its CUDA device; -1 when none is known. */
int nccl_proc_rank(const struct nccl_proc *p);
/* "P2P" < "NVLS" < "SHM" < "NET/IB" < "NET/..." < "NET/Socket": lower is better. */
int nccl_transport_rank(const char *transport);
void nccl_findings_clear(struct gf_nccl_log *l);

#endif
