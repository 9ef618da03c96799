/* Node-level configuration written from the machine model: a kubelet
 * KubeletConfiguration snippet, a Slurm gres.conf, an NCCL topology XML
 * (NCCL_TOPO_FILE) and node labels in the GPU Feature Discovery style.
 *
 * Each writer takes a model from gf_topo_discover() (this machine or a
 * recording) and streams its text to f; docs/config.md says what each line
 * means and where each choice comes from.  The writers return 0, -EIO when
 * writing failed, or -EINVAL / -ENODEV with a message (gf_last_error()). */
#ifndef GPUFEED_EMIT_H
#define GPUFEED_EMIT_H

#include <stdbool.h>
#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/cpuset.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whole physical cores reserved for the system by default (kubelet's
 * reservedSystemCPUs), SMT siblings included. */
#define GF_EMIT_RESERVE_DEFAULT 2

enum gf_emit_label_format {
	GF_EMIT_LABELS_TEXT = 0,	/* key=value lines (kubectl label node N ...) */
	GF_EMIT_LABELS_YAML,		/* an NFD NodeFeature object with spec.labels */
};

/* Versioned (include/gpufeed/common.h): start from GF_EMIT_OPTS_INIT. */
struct gf_emit_options {
	size_t struct_size;
	/* Every fact comes from the model (t): the emitters read nothing else. */
	/* kubelet */
	const char *tm_policy;		/* NULL: chosen (docs/config.md) */
	const char *tm_scope;		/* NULL: container */
	int reserve_cores;		/* whole cores for reservedSystemCPUs, >= 1 */
	int max_gpus_per_pod;		/* largest GPU request expected, 0 unknown */
	bool memory_manager;		/* write memoryManagerPolicy Static */
	/* slurm */
	const char *autodetect;		/* "off" (default), "nvml", "nvidia" */
	const char *gpu_type;		/* Type= for every GPU; NULL from the name */
	/* nccl-topo */
	bool skeleton;			/* <cpu> and <pci> only: no <gpu>, no <nic> */
	/* labels */
	enum gf_emit_label_format label_format;
	const char *node_name;		/* NULL: the model's hostname */
	/* New fields go here, at the end. */
};

#define GF_EMIT_OPTS_INIT \
	{ .struct_size = sizeof(struct gf_emit_options), .tm_policy = NULL, .tm_scope = NULL, \
	  .reserve_cores = GF_EMIT_RESERVE_DEFAULT, .max_gpus_per_pod = 0, .memory_manager = false, \
	  .autodetect = NULL, .gpu_type = NULL, .skeleton = false, .label_format = GF_EMIT_LABELS_TEXT, \
	  .node_name = NULL }

/* A KubeletConfiguration fragment (kubelet.config.k8s.io/v1beta1): static
 * CPU manager, Topology Manager policy and scope with the reason in a
 * comment, reservedSystemCPUs away from the GPUs' cores. */
GF_API int gf_emit_kubelet(const struct gf_topo *t, const struct gf_emit_options *o, FILE *f);
/* gres.conf: one Name=gpu line per GPU with File=, Cores= (Slurm's abstract
 * core ids) and Links=; slurm.conf's NodeName hint as a comment. */
GF_API int gf_emit_slurm(const struct gf_topo *t, const struct gf_emit_options *o, FILE *f);
/* An NCCL topology file (<system version="1">) for NCCL_TOPO_FILE. */
GF_API int gf_emit_nccl_topo(const struct gf_topo *t, const struct gf_emit_options *o, FILE *f);
/* Node labels: nvidia.com/... as GPU Feature Discovery names them, and
 * gpufeed.io/... for the topology. */
GF_API int gf_emit_labels(const struct gf_topo *t, const struct gf_emit_options *o, FILE *f);

/* What the configuration gf_emit_kubelet writes with the same options
 * leaves to pods ("node allocatable"), so that a pod can be sized to fit
 * it (gpufeed plan --format k8s). */
struct gf_emit_allocatable {
	struct gf_cpuset cpus;			/* every CPU outside reservedSystemCPUs */
	unsigned long long memory_bytes;	/* MemTotal less kubeReserved, systemReserved and
						 * evictionHard memory; 0 unknown */
	unsigned long long nodes_memory_bytes;	/* what the NUMA nodes' meminfo sums to */
	bool nodes_short;			/* that sum is far below MemTotal (under 90%): memory
						 * is sized from MemTotal */
};
/* 0, -EINVAL (t or out NULL, options not from GF_EMIT_OPTS_INIT,
 * reserve_cores < 1: the static CPU manager needs a reserved CPU, a model
 * without CPU detail) or -ENODEV (the machine has no core left for pods
 * after reserve_cores). */
GF_API int gf_emit_allocatable(const struct gf_topo *t, const struct gf_emit_options *o,
			       struct gf_emit_allocatable *out);

#ifdef __cplusplus
}
#endif
#endif
