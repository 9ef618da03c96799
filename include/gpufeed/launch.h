/* Launching one process per GPU and supervising them (torchrun's job, in C):
 *
 *   gf_launch_world_resolve()  nnodes, node rank, master address and port:
 *                              given values, else the torchrun (PET_*),
 *                              Slurm step or MASTER_* environment, else one
 *                              node at 127.0.0.1:29500
 *   gf_launch_world_setenv()   RANK, LOCAL_RANK, WORLD_SIZE, ... for a rank
 *   gf_launch_run()            fork N children, each through a setup callback
 *                              (binding, environment) into execvp; their
 *                              output prefixed with the rank; signals
 *                              forwarded; the first failure stops the rest
 *
 * The supervisor knows nothing of GPUs: the caller's setup callback applies a
 * binding (include/gpufeed/bind.h) in the child before exec.  The plan calls
 * at the end of this header do that for one rank per GPU, as `gpufeed
 * launch` does.
 *
 * Process groups: each child is made the leader of its own process group, and
 * every signal the supervisor sends goes to that group, so a rank's own
 * children (DataLoader workers, a shell's pipeline) are stopped with it.  A
 * rank ends with its group: when the child exits, what it left running in
 * its group gets SIGTERM, and SIGKILL after the grace period.
 * Hence a terminal's Ctrl-C reaches only the supervisor, which forwards it
 * once to each rank (with one shared group, a rank would get it twice: from
 * the terminal and forwarded).  Children read standard input from /dev/null:
 * outside the foreground group a read of the terminal would stop them. */
#ifndef GPUFEED_LAUNCH_H
#define GPUFEED_LAUNCH_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <gpufeed/bind.h>
#include <gpufeed/common.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes of a child that never ran CMD (as env(1) and timeout(1)). */
#define GF_LAUNCH_EXIT_SETUP 125	/* the setup callback failed (binding refused) */
#define GF_LAUNCH_EXIT_NOEXEC 126	/* CMD found but not executable */
#define GF_LAUNCH_EXIT_NOTFOUND 127	/* CMD not found */

/* A line longer than this is written in pieces of this size, each a line of
 * its own with the prefix (no rank's bytes land inside another's line). */
#define GF_LAUNCH_LINE_MAX 65536

/* Called in each child after fork, with its stdout and stderr already the
 * pipes to the supervisor, before execvp.  Returns 0, or -errno with
 * gf_last_error() set: the child prints it and exits GF_LAUNCH_EXIT_SETUP. */
typedef int gf_launch_setup_fn(int local_rank, void *arg);

/* Versioned (include/gpufeed/common.h): start from GF_LAUNCH_OPTS_INIT. */
struct gf_launch_options {
	size_t struct_size;
	int nproc;			/* children, 1..GF_LAUNCH_MAX_PROCS */
	char *const *argv;		/* CMD, NULL-terminated; argv[0] searched in PATH */
	gf_launch_setup_fn *setup;	/* NULL: none */
	void *setup_arg;
	int rank_base;			/* the prefix of child i is "[rank_base+i] " */
	double grace_s;			/* SIGTERM to SIGKILL when stopping (default 5) */
	int out_fd, err_fd;		/* where the children's lines go (1, 2) */
	bool prefix;			/* prefix lines with the rank (default true) */
	bool quiet;			/* no notices, only the first failure */
	/* After a failure (not one from a signal forwarded to the children),
	 * stop every child and start them all again, up to this many times
	 * (torchrun's --max-restarts).  Each child gets
	 * TORCHELASTIC_RESTART_COUNT (0 first) and TORCHELASTIC_MAX_RESTARTS
	 * before its setup callback runs. */
	int max_restarts;
	/* New fields go here, at the end. */
};

#define GF_LAUNCH_MAX_PROCS 1024
#define GF_LAUNCH_MAX_RESTARTS 1000000

#define GF_LAUNCH_OPTS_INIT \
	{ .struct_size = sizeof(struct gf_launch_options), .nproc = 0, .argv = NULL, .setup = NULL, \
	  .setup_arg = NULL, .rank_base = 0, .grace_s = 5.0, .out_fd = 1, .err_fd = 2, .prefix = true, \
	  .quiet = false, .max_restarts = 0 }

/* What the last start of the children did (after restarts, the last). */
struct gf_launch_result {
	int exit_code;		/* 0 when every child exited 0; else the first
				 * failure's exit code, or 128+N for signal N */
	int failed_rank;	/* local rank of the first failure, -1: none */
	pid_t failed_pid;
	int failed_signal;	/* the signal that killed it, 0: it exited */
	int forwarded_signal;	/* the first signal forwarded to the children, 0: none */
	bool killed;		/* some child, or what it left in its group, needed
				 * SIGKILL after the grace period */
	int output_error;	/* -errno of the first failed write of the children's
				 * output (ENOSPC, EPIPE): later lines were lost; 0: none */
	int restarts;		/* how many times every child was started again */
};

/* Runs the children, and what they leave in their process groups, to the
 * end.  Returns 0 with *res filled (whatever the children did), or -errno
 * when the supervisor itself failed (a pipe or fork refused: the children
 * started are stopped first).  Installs handlers for SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT, SIGCHLD and ignores SIGPIPE while it runs, restoring the
 * previous ones before it returns; the children start with default
 * dispositions and an empty signal mask.  Each child also gets SIGTERM
 * should the supervisor die (PR_SET_PDEATHSIG), and a watchdog process,
 * forked first and reaped before the return, stops the children's groups
 * then: nothing started outlives a supervisor that was killed.  The kernel
 * ties PR_SET_PDEATHSIG to the calling thread: call it from a thread that
 * lives until it returns. */
GF_API int gf_launch_run(const struct gf_launch_options *opts, struct gf_launch_result *res);

/* Where a multi-node job's coordinates come from. */
struct gf_launch_world {
	int nnodes;			/* -1: from the environment, else 1 */
	int node_rank;			/* -1: from the environment, else 0 */
	int nproc;			/* processes on this node (set by the caller) */
	int master_port;		/* -1: from the environment, else 29500 */
	char master_addr[256];		/* "": from the environment, else 127.0.0.1 */
	/* Where each came from: "--nnodes", "SLURM_STEP_NUM_NODES", "default". */
	const char *nnodes_from, *node_rank_from, *master_addr_from, *master_port_from;
	char run_id[128];		/* TORCHELASTIC_RUN_ID; "": "none", torchrun's default */
};

#define GF_LAUNCH_WORLD_INIT \
	{ .nnodes = -1, .node_rank = -1, .nproc = 0, .master_port = -1, .master_addr = "", \
	  .nnodes_from = NULL, .node_rank_from = NULL, .master_addr_from = NULL, .master_port_from = NULL, \
	  .run_id = "" }

/* Fills what the caller left unset, in this order: torchrun's own defaults
 * (PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR, PET_MASTER_PORT: what a
 * Kubeflow PyTorchJob sets), a Slurm step (SLURM_STEP_NUM_NODES,
 * SLURM_NODEID, the first host of SLURM_STEP_NODELIST; only inside srun, so a
 * batch script's own shell is not taken for a node of a many-node job),
 * MASTER_ADDR and MASTER_PORT, then one node at 127.0.0.1:29500; the run id
 * "none" (torchrun's default --rdzv-id).  A *_from the caller set is kept.  -EINVAL naming the variable for a malformed value,
 * a node rank outside [0, nnodes), or more than one node at 127.0.0.1. */
GF_API int gf_launch_world_resolve(struct gf_launch_world *w);

/* One variable of a rank's environment. */
struct gf_launch_env {
	const char *name;
	char value[256];
};
#define GF_LAUNCH_NENV 14

/* The variables gf_launch_world_setenv() exports for local_rank, in order:
 * their number, or -EINVAL for a local rank outside [0, nproc). */
GF_API int gf_launch_world_env(const struct gf_launch_world *w, int local_rank, struct gf_launch_env *out);

/* What torchrun gives a worker of a static job: RANK (node_rank * nproc +
 * local_rank), LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK and
 * GROUP_WORLD_SIZE (the node's), ROLE_RANK, ROLE_WORLD_SIZE, ROLE_NAME,
 * MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID and
 * TORCHELASTIC_USE_AGENT_STORE=False (no agent hosts a store: rank 0's
 * init_process_group does).  TORCHELASTIC_RESTART_COUNT and
 * TORCHELASTIC_MAX_RESTARTS are the supervisor's (gf_launch_options).  0 or
 * -errno (setenv). */
GF_API int gf_launch_world_setenv(const struct gf_launch_world *w, int local_rank);

/* ---- A bound launch: GPUs, bindings and the world as one plan ----
 *
 * What `gpufeed launch` does, as library calls:
 *
 *   gf_launch_plan_new()   the GPUs local ranks take, every rank's binding
 *                          (include/gpufeed/bind.h) and the world, all
 *                          checked before anything starts
 *   gf_launch_plan_print() the plan in words; gf_launch_plan_write_json()
 *                          as JSON (docs/json-launch.md)
 *   gf_launch_plan_run()   gf_launch_run() with each child given its rank's
 *                          environment and binding before exec
 *   gf_launch_job()        all of it in one call, from the model of this
 *                          machine (or a recording)
 *
 *     char *cmd[] = { "python3", "train.py", NULL };
 *     struct gf_launch_job_options o = GF_LAUNCH_JOB_OPTS_INIT;
 *     struct gf_launch_result r;
 *     o.argv = cmd;
 *     if (gf_launch_job(&o, &r) == 0) exit(r.exit_code); */

/* Versioned (include/gpufeed/common.h): start from GF_LAUNCH_JOB_OPTS_INIT. */
struct gf_launch_job_options {
	size_t struct_size;
	char *const *argv;		/* CMD, NULL-terminated; argv[0] searched in PATH */
	const char *gpus;		/* local rank i takes the i-th: a gf_bind_parse_targets()
					 * LIST; NULL: every whole GPU of the model, in order */
	int nproc;			/* ranks on this node; 0: one per GPU */
	bool no_bind;			/* no model, no binding, no GPU variables: the
					 * world's variables only (nproc required) */
	const struct gf_bind_options *bind;	/* NULL: GF_BIND_OPTS_INIT with cpu
						 * GF_BIND_CPU_EXCLUSIVE; sharing is the plan's */
	unsigned env_flags;		/* gf_bind_setenv() flags */
	const struct gf_launch_world *world;	/* the coordinates given; NULL: all from
						 * the environment (GF_LAUNCH_WORLD_INIT) */
	/* The supervisor's, as in struct gf_launch_options. */
	double grace_s;
	int out_fd, err_fd;
	bool prefix, quiet;
	/* gf_launch_job(): the machine's model options (NULL: this machine,
	 * the defaults), as every feature takes it. */
	const struct gf_topo_options *machine;
	/* torchrun's --standalone: one node, on 127.0.0.1 at a free port, the
	 * environment not read, a random run id (unless the world names one);
	 * a world that says otherwise is -EINVAL. */
	bool standalone;
	int max_restarts;		/* as in struct gf_launch_options */
	/* Every rank sees all the job's GPUs, in rank order, in
	 * CUDA_VISIBLE_DEVICES: device LOCAL_RANK is the rank's own, as
	 * torch.cuda.set_device(LOCAL_RANK) expects; its CPUs and memory stay
	 * its own GPU's.  Default: each rank sees its own GPU alone, as device
	 * 0.  -EINVAL with MIG instances (a CUDA process enumerates one) or a
	 * GPU named twice. */
	bool all_gpus_visible;
	/* New fields go here, at the end. */
};

#define GF_LAUNCH_JOB_OPTS_INIT \
	{ .struct_size = sizeof(struct gf_launch_job_options), .argv = NULL, .gpus = NULL, .nproc = 0, \
	  .no_bind = false, .bind = NULL, .env_flags = 0, .world = NULL, .grace_s = 5.0, .out_fd = 1, \
	  .err_fd = 2, .prefix = true, .quiet = false, .machine = NULL, .standalone = false, \
	  .max_restarts = 0, .all_gpus_visible = false }

struct gf_launch_plan;

/* The plan for the model t (NULL with no_bind; it must outlive the plan).
 * 0, or -errno with the message naming what is wrong: -ENODEV no GPU in the
 * model (or a GPU's NUMA node unknown where it matters), -ENOENT / -EINVAL
 * / -E2BIG a GPU list gf_bind_parse_targets() refuses, -EINVAL nproc and
 * the GPUs disagreeing or a malformed world ("PET_NNODES: ...", as
 * gf_launch_world_resolve), -EXDEV a rank's CPUs or nodes and the allowed
 * ones not meeting ("rank 3: ..."). */
GF_API int gf_launch_plan_new(const struct gf_topo *t, const struct gf_launch_job_options *o,
			      struct gf_launch_plan **out);
GF_API void gf_launch_plan_free(struct gf_launch_plan *p);
/* The resolved world: nodes, node rank, ranks here, master, and whence. */
GF_API const struct gf_launch_world *gf_launch_plan_world(const struct gf_launch_plan *p);

/* Version of gf_launch_plan_write_json()'s document (docs/json-launch.md). */
#define GF_LAUNCH_SCHEMA "gpufeed-launch/1"

/* The plan in words (`gpufeed launch --dry-run`: the world, the command,
 * per rank its environment and binding) and as JSON (--json: the world with
 * where each value came from, the command, per rank its environment and its
 * binding as a whole gpufeed-run/1 document, null without one). */
GF_API int gf_launch_plan_print(const struct gf_launch_plan *p, FILE *f);
GF_API int gf_launch_plan_write_json(const struct gf_launch_plan *p, FILE *f);

/* Runs the plan: gf_launch_run() with each child given, between fork and
 * exec, its rank's variables (gf_launch_world_setenv), then its binding
 * (gf_bind_apply: a memory policy refused with bind->mem_optional is a
 * warning on the rank's stderr unless quiet) and the binding's environment
 * (gf_bind_setenv).  Returns as gf_launch_run. */
GF_API int gf_launch_plan_run(const struct gf_launch_plan *p, struct gf_launch_result *res);

/* Discovers the model (o->root; NVML if present), plans and runs: 0 with
 * *res filled, or -errno from any step with its message. */
GF_API int gf_launch_job(const struct gf_launch_job_options *o, struct gf_launch_result *res);

#ifdef __cplusplus
}
#endif
#endif
