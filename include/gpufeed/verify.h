/* Verifying a running process against its GPUs: what the process really has
 * (the CPUs and memory nodes it may use, the CPU each thread last ran on,
 * its pages per NUMA node, its memory policy, the GPUs it has open and its
 * CUDA_VISIBLE_DEVICES) compared with the machine model (the GPUs' NUMA
 * nodes and local CPUs).  The answer after a launch that `gpufeed run`,
 * numactl, a container runtime or a scheduler claimed to bind.
 *
 * Everything is read through a root prefix: the process from
 * opts.proc_root (""/NULL: this machine's /proc), the model from
 * opts.machine->root.  A test tree or a recording that holds a fake
 * /proc/PID works like the live machine. */
#ifndef GPUFEED_VERIFY_H
#define GPUFEED_VERIFY_H

#include <stdbool.h>
#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/cpuset.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GF_VERIFY_SCHEMA "gpufeed-verify/1"

/* Versioned (include/gpufeed/common.h): start from GF_VERIFY_OPTS_INIT. */
struct gf_verify_options {
	size_t struct_size;
	/* Where /proc/PID is read: NULL or "" = this machine, else a
	 * directory holding proc/PID (a test tree, a recording). */
	const char *proc_root;
	/* The machine, as every feature takes it: the model's options (root,
	 * NVML, locality override; NULL: this machine, the defaults).  A
	 * pointer, not the struct, so gf_topo_options can grow without moving
	 * what follows. */
	const struct gf_topo_options *machine;
	/* The GPUs to compare with ("0,GPU-8f1c...,0000:3b:00.0,MIG-..."):
	 * NULL = the GPUs the process has open, else its
	 * CUDA_VISIBLE_DEVICES. */
	const char *gpus;
	/* Memory off the GPUs' nodes above this share (percent of the
	 * process's private pages) is a warning. */
	double max_off_node_pct;
	/* New fields go here, at the end. */
};

#define GF_VERIFY_OPTS_INIT \
	{ .struct_size = sizeof(struct gf_verify_options), .proc_root = NULL, .machine = NULL, \
	  .gpus = NULL, .max_off_node_pct = 10.0 }

/* How a GPU came to be compared with. */
enum gf_verify_gpu_source {
	GF_VERIFY_GPU_OPEN = 0,		/* /proc/PID/fd holds /dev/nvidiaN (or its MIG cap) */
	GF_VERIFY_GPU_VISIBLE,		/* named by CUDA_VISIBLE_DEVICES, none open */
	GF_VERIFY_GPU_ASKED,		/* named by options.gpus (--gpu) */
};
/* "open", "CUDA_VISIBLE_DEVICES", "asked"; "?" out of range. */
GF_API const char *gf_verify_gpu_source_name(enum gf_verify_gpu_source s);

struct gf_verify_gpu {
	int gpu;			/* position in topo->gpus */
	enum gf_verify_gpu_source source;
	bool open;			/* /dev/nvidiaN (or a MIG cap of it) is open */
	int visible;			/* in CUDA_VISIBLE_DEVICES: 1, 0, -1 unknown/unset */
	int mig_gi, mig_ci;		/* an open MIG instance, -1 none/unknown */
};

struct gf_verify_thread {
	int tid;
	int cpu;			/* the CPU it last ran on (stat field 39), -1 unknown */
	int node;			/* that CPU's NUMA node in the model, -1 unknown */
	bool local;			/* cpu is one of the GPUs' local CPUs */
	char comm[64];
};

/* Pages per NUMA node from numa_maps (resident pages only). */
struct gf_verify_node {
	int node;
	unsigned long long bytes;	/* every mapping (as numastat -p) */
	unsigned long long private_bytes;	/* mappings without file= (anon, heap, stack) */
	int threads;			/* threads whose last CPU is on this node */
	bool local;			/* a node of the GPUs */
};

struct gf_verify {
	int pid;
	char comm[64];
	char proc_source[4096];		/* "this machine" or the directory read */
	struct gf_topo *topo;		/* the model compared with (owned) */

	struct gf_cpuset cpus_allowed;	/* Cpus_allowed_list */
	struct gf_cpuset mems_allowed;	/* Mems_allowed_list */
	bool mems_allowed_known;

	struct gf_verify_thread *threads;
	int nthreads;
	int threads_vanished;		/* listed, gone before their stat was read */

	struct gf_verify_node *nodes;	/* ascending node id; nodes with pages or threads */
	int nnodes;
	bool numa_maps_known;		/* false: the kernel has no numa_maps (no NUMA) */
	unsigned long long bytes, private_bytes;
	char policy[64];		/* the memory policy over most private pages:
					 * "default", "bind:0", "prefer:1", "interleave:0-1"... */
	bool policy_mixed;		/* mappings disagree */

	char cuda_visible[1024];	/* CUDA_VISIBLE_DEVICES as in environ */
	bool cuda_visible_set;		/* the variable is in environ */
	bool environ_known;		/* environ could be read */

	struct gf_verify_gpu *gpus;
	int ngpus;
	struct gf_cpuset local_cpus;	/* the GPUs' local CPUs (union) */
	struct gf_cpuset local_nodes;	/* the GPUs' NUMA nodes (union) */
	bool local_known;		/* every GPU's node is known */
	bool single_node;		/* the model has one NUMA node: all is local */
	double off_node_pct;		/* private pages off the GPUs' nodes, % */

	struct gf_finding *findings;
	int nfindings;
};

/* pid > 0: that process; pid <= 0: the calling process (proc/self under a
 * root).  -ESRCH when there is no such process (message names the PID and
 * where it was looked for), -EACCES when its files cannot be read (message:
 * needs root or the same user), -EDOM for an options.gpus entry that names
 * no GPU of the model (or more than one), or discovery's error. */
GF_API int gf_verify_run(const struct gf_verify_options *opts, int pid, struct gf_verify **out);
/* NULL does nothing. */
GF_API void gf_verify_free(struct gf_verify *v);
/* Findings of severity `min` or above; -EINVAL for v NULL or min out of
 * range. */
GF_API int gf_verify_finding_count(const struct gf_verify *v, enum gf_severity min);
/* True when no GPU is known for the process (none open, no
 * CUDA_VISIBLE_DEVICES naming one, none asked): nothing to verify against.
 * False for v NULL. */
GF_API bool gf_verify_no_gpu(const struct gf_verify *v);

#define GF_VERIFY_PRINT_COLOR 0x1u
/* Text: the allowed sets against the GPU-local sets, threads and pages per
 * node, the findings. */
GF_API int gf_verify_print(const struct gf_verify *v, FILE *f, unsigned flags);
/* docs/json-verify.md ("schema": GF_VERIFY_SCHEMA). */
GF_API int gf_verify_write_json(const struct gf_verify *v, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
