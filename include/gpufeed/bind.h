/* Binding work to its GPUs: the CPUs and memory nodes local to a set of GPUs
 * (or MIG instances), the environment a CUDA/NCCL process needs, and the
 * calls that apply them to this process.
 *
 * Three steps, so each can be used alone:
 *   gf_bind_parse_targets()  "0,GPU-8f1c...,0000:3b:00.0,MIG-..." -> targets
 *   gf_bind_compute()        targets + model + what this process may use
 *                            -> struct gf_binding (pure: no system call
 *                            beyond reading this process's allowed sets when
 *                            the options leave them NULL)
 *   gf_bind_apply()          sched_setaffinity on every thread, set_mempolicy
 *   gf_bind_setenv()         CUDA_VISIBLE_DEVICES, OMP_NUM_THREADS, ...
 * and gf_bind_gpu() does all of it in one call, for a worker process that
 * re-asserts its binding after fork or spawn (a DataLoader worker_init_fn).
 *
 * The model may come from a recording (--root DIR); the allowed CPUs and
 * memory nodes are this process's own unless the options name others.  An
 * empty intersection is -EXDEV with a message naming both sets: never a
 * silent fallback to "all CPUs". */
#ifndef GPUFEED_BIND_H
#define GPUFEED_BIND_H

#include <stdbool.h>
#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/cpuset.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gf_bind_cpu_mode {
	GF_BIND_CPU_NODE = 0,	/* every CPU of the GPUs' NUMA nodes (default) */
	GF_BIND_CPU_SOCKET,	/* every CPU of the GPUs' packages */
	GF_BIND_CPU_EXCLUSIVE,	/* this GPU's share of its node's physical cores,
				 * SMT siblings kept together */
	GF_BIND_CPU_L3,		/* the L3 groups of the node nearest the GPU */
	GF_BIND_CPU_NONE,	/* leave the affinity as it is */
};

enum gf_bind_mem_policy {
	GF_BIND_MEM_BIND = 0,	/* MPOL_BIND to the GPUs' nodes (default) */
	GF_BIND_MEM_PREFERRED,	/* MPOL_PREFERRED(_MANY): fall back when full */
	GF_BIND_MEM_INTERLEAVE,	/* MPOL_INTERLEAVE over the GPUs' nodes */
	GF_BIND_MEM_NONE,	/* leave the memory policy as it is */
};

/* "node", "socket", "exclusive", "l3", "none" and "bind", "preferred",
 * "interleave", "none" (the --cpu and --mem words); "?" out of range. */
GF_API const char *gf_bind_cpu_mode_name(enum gf_bind_cpu_mode m);
GF_API const char *gf_bind_mem_policy_name(enum gf_bind_mem_policy p);
/* Those words back: 0 or -EINVAL. */
GF_API int gf_bind_cpu_mode_parse(const char *s, enum gf_bind_cpu_mode *out);
GF_API int gf_bind_mem_policy_parse(const char *s, enum gf_bind_mem_policy *out);

/* gf_bind_setenv() flags. */
#define GF_BIND_ENV_KEEP_NCCL_AFFINITY 0x1u	/* do not set NCCL_IGNORE_CPU_AFFINITY=1 */
#define GF_BIND_ENV_NO_VISIBLE_DEVICES 0x2u	/* leave CUDA_VISIBLE_DEVICES alone */
#define GF_BIND_ENV_NO_OMP 0x4u			/* leave OMP_NUM_THREADS alone */

/* Versioned (include/gpufeed/common.h): start from GF_BIND_OPTS_INIT. */
struct gf_bind_options {
	size_t struct_size;
	enum gf_bind_cpu_mode cpu;
	enum gf_bind_mem_policy mem;
	/* CPUs kept for the system: never chosen.  NULL: none. */
	const struct gf_cpuset *reserved;
	/* What the process may use.  NULL: this process's affinity (and
	 * cgroup cpuset) and Mems_allowed, read live even when the model is a
	 * recording, since the binding acts here. */
	const struct gf_cpuset *allowed_cpus;
	const struct gf_cpuset *allowed_mems;
	/* exclusive mode: the GPUs (positions in t->gpus) that share their
	 * nodes' cores.  NULL: every GPU of the model on that node. */
	const int *sharing;
	int nsharing;
	/* gf_bind_apply(): a memory policy refused by seccomp or a missing
	 * CAP_SYS_NICE (EPERM, ENOSYS) is a warning instead of -EPERM. */
	bool mem_optional;
	/* allowed_cpus / allowed_mems left NULL: take what the model's process
	 * could use (t->cpus.allowed, t->numa.mems_allowed: on a recording,
	 * the recording process's) instead of this process's.  A preview of
	 * the binding on the recorded machine; applied here it may not fit. */
	bool allowed_from_model;
	/* New fields go here, at the end. */
};

#define GF_BIND_OPTS_INIT \
	{ .struct_size = sizeof(struct gf_bind_options), .cpu = GF_BIND_CPU_NODE, .mem = GF_BIND_MEM_BIND, \
	  .reserved = NULL, .allowed_cpus = NULL, .allowed_mems = NULL, .sharing = NULL, .nsharing = 0, \
	  .mem_optional = false, .allowed_from_model = false }

/* One GPU or one MIG instance of it. */
struct gf_bind_target {
	int gpu;		/* position in t->gpus */
	int mig;		/* index in t->gpus[gpu].mig, -1: the whole GPU */
};

#define GF_BIND_MAX_TARGETS 64

struct gf_binding {
	struct gf_bind_target target[GF_BIND_MAX_TARGETS];
	int ntargets;
	enum gf_bind_cpu_mode cpu_mode;
	enum gf_bind_mem_policy mem_policy;
	struct gf_cpuset cpus;		/* chosen CPUs (empty with GF_BIND_CPU_NONE) */
	struct gf_cpuset mems;		/* chosen NUMA nodes (empty with GF_BIND_MEM_NONE
					 * or when the GPUs' node is unknown) */
	int threads;			/* OMP_NUM_THREADS: physical cores in cpus */
	char visible_devices[GF_BIND_MAX_TARGETS * 100];	/* CUDA_VISIBLE_DEVICES */
	char reason[512];		/* one line: why these CPUs and nodes */
};

/* "LIST": comma-separated NVML indices, GPU UUIDs (or unique prefixes), PCI
 * addresses, MIG UUIDs ("MIG-...") or "GPU:GI:CI" MIG triples.  Returns the
 * number of targets, or -ENOENT / -EINVAL / -E2BIG with a message naming the
 * entry. */
GF_API int gf_bind_parse_targets(const struct gf_topo *t, const char *list, struct gf_bind_target *out, int max);

/* Choose CPUs and nodes for the targets.  -EXDEV when the GPUs' CPUs and the
 * allowed CPUs do not meet (or the reserved CPUs take them all, or exclusive
 * mode finds fewer usable cores on a node than GPUs sharing it), -ENODEV when
 * a GPU's node is unknown on a machine with several nodes and a CPU mode or
 * memory policy needs it (never a guess of node 0; a single-node machine is
 * fine); the message says which.
 *
 * exclusive: the node's physical cores that are allowed and not reserved,
 * SMT siblings together, ordered by their first CPU, are split evenly among
 * the GPUs sharing the node (the lowest ranks take one more when it does
 * not divide); a GPU's rank is its place among them.  l3: the node's L3
 * groups that keep a usable CPU; GPU rank k takes group k mod n.  MIG
 * instances of one GPU share its CPUs. */
GF_API int gf_bind_compute(const struct gf_topo *t, const struct gf_bind_target *targets, int ntargets,
			   const struct gf_bind_options *opts, struct gf_binding *out);

/* gf_bind_apply() and gf_bind_gpu() applied the binding, but less than
 * asked; gf_last_error() says what (the memory policy refused and
 * opts->mem_optional, or MPOL_PREFERRED_MANY missing so only the first node
 * is preferred).  The words also go to the log channel as a warning. */
#define GF_BIND_WARNED 1

/* Apply to this process: the CPU affinity of every thread, then the memory
 * policy of the calling thread (inherited across fork and exec).  Returns 0,
 * GF_BIND_WARNED, or -errno: -EPERM / -ENOSYS when the memory policy is
 * refused (seccomp, no CAP_SYS_NICE, no NUMA in the kernel) and
 * !opts->mem_optional.  Test failure with `ret < 0`. */
GF_API int gf_bind_apply(const struct gf_binding *b, const struct gf_bind_options *opts);

/* Export the environment: CUDA_VISIBLE_DEVICES (UUIDs where known),
 * CUDA_DEVICE_ORDER=PCI_BUS_ID, OMP_NUM_THREADS, NCCL_IGNORE_CPU_AFFINITY=1. */
GF_API int gf_bind_setenv(const struct gf_binding *b, unsigned flags);

/* Discover the machine (NULL: this one; NVML is then loaded only when LIST
 * names a MIG instance, for a worker's start-up), compute and apply the
 * binding for the GPUs in LIST and export its environment (flags 0); the
 * call a worker makes after fork.  NULL opts: defaults.  0, GF_BIND_WARNED
 * or -errno (-ENODEV: no GPU). */
GF_API int gf_bind_gpu(const char *list, const struct gf_topo_options *machine, const struct gf_bind_options *opts);

/* Version of the JSON of gf_bind_write_json() (docs/json-run.md). */
#define GF_BIND_RUN_SCHEMA "gpufeed-run/1"

/* The binding in words (GPUs, CPUs, nodes, the environment under env_flags,
 * why) and as JSON; argv (NULL-terminated, may be NULL) is the command the
 * binding is for. */
GF_API int gf_bind_print(const struct gf_topo *t, const struct gf_binding *b, unsigned env_flags, FILE *f);
GF_API int gf_bind_write_json(const struct gf_topo *t, const struct gf_binding *b, unsigned env_flags,
			      char *const *argv, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
