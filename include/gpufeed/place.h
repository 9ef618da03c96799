/* Placement: the best N-GPU set among the free GPUs of a machine model, why
 * it is the best, and the artefacts that carry it into a container or a
 * cluster (docker run flags, shell exports, a Kubernetes Pod with a DRA
 * ResourceClaim).  docs/plan.md describes the scoring.
 *
 * The score of a set is compared lexicographically, lower is better, part
 * by part in this order (enum gf_plan_part):
 *   fabric   pairs without NVLink, then NVLinks missing from the best
 *            pair count (an NVSwitch box is one fabric: every pair full)
 *   pcie     worst PCIe class, then the sum of classes, over the pairs
 *            that talk over PCIe (PIX 1 < PXB 2 < PHB 3 < NODE 4 < SYS 5)
 *   numa     NUMA nodes spanned
 *   rails    GPUs sharing their nearest RDMA NIC, then the sum of the
 *            GPU-to-NIC classes
 * and among sets equal on all of these, the fragmentation look-ahead: the
 * score of the best 4-GPU and then 2-GPU set left in the free remainder,
 * then the PCIe-switch pairs broken.  Ties left: the lowest indices. */
#ifndef GPUFEED_PLACE_H
#define GPUFEED_PLACE_H

#include <stdbool.h>
#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/cpuset.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GF_PLAN_SCHEMA "gpufeed-plan/1"

/* The parts of a set's score, in the order they are compared. */
enum gf_plan_part {
	GF_PLAN_FABRIC_GAPS = 0,	/* GPU pairs without NVLink */
	GF_PLAN_FABRIC_MISSING,		/* sum over NVLink pairs of (best count - count) */
	GF_PLAN_PCIE_WORST,		/* worst class of a PCIe pair, 0 none */
	GF_PLAN_PCIE_SUM,		/* sum of the PCIe pairs' classes */
	GF_PLAN_NUMA_NODES,		/* NUMA nodes spanned (unknown counts as one) */
	GF_PLAN_RAIL_SHARED,		/* GPUs whose nearest NIC another GPU has too */
	GF_PLAN_RAIL_DISTANCE,		/* sum of the GPU-to-nearest-NIC classes */
	GF_PLAN_NPARTS,
};
/* The part's key in the JSON's score: "fabric_gaps", ...; "?" out of range. */
GF_API const char *gf_plan_part_name(enum gf_plan_part p);

struct gf_plan_score {
	int part[GF_PLAN_NPARTS];
};

/* Versioned (include/gpufeed/common.h): start from GF_PLAN_OPTS_INIT. */
struct gf_plan_options {
	size_t struct_size;
	int ngpus;			/* N, >= 1 */
	/* The free GPUs (positions in t->gpus); NULL: every GPU of the model. */
	const int *free;
	int nfree;
	/* New fields go here, at the end. */
};

#define GF_PLAN_OPTS_INIT { .struct_size = sizeof(struct gf_plan_options), .ngpus = 1, .free = NULL, .nfree = 0 }

/* The look-ahead: the best set of `size` GPUs the remainder could still give. */
struct gf_plan_next {
	int size;			/* 4 or 2 */
	int n;				/* 0: the remainder has fewer than size GPUs */
	int gpu[4];			/* positions in t->gpus */
	struct gf_plan_score score;
};

struct gf_plan {
	int n;
	int *gpu;			/* positions in t->gpus, ascending */
	int *nic;			/* each GPU's nearest RDMA NIC (t->nics), -1 none */
	struct gf_plan_score score;
	struct gf_plan_next next[2];	/* the next 4-GPU and 2-GPU job */
	int broken_pairs;		/* PCIe-switch (PIX) pairs split between set and remainder */
	int *rest;			/* the free GPUs left, ascending */
	int nrest;
	struct gf_cpuset cpus;		/* the GPUs' local CPUs that are allowed */
	struct gf_cpuset mems;		/* their NUMA nodes */
	bool mems_subset;		/* mems is a proper subset of the machine's nodes */
	int tied;			/* other sets equal on every part before look-ahead */
	unsigned long long sets_scored;	/* complete sets the search scored */
	double select_ms;		/* time the selection took */
	char **reason;			/* why, one line each */
	int nreason;
};

/* Chooses the set, freed with gf_plan_free (NULL does nothing).  -EINVAL
 * bad options (opts NULL or not from GF_PLAN_OPTS_INIT, ngpus < 1, a free
 * list naming no GPU of t), -ERANGE N larger than the free GPUs (the
 * message names both), -ENODEV a model without GPUs. */
GF_API int gf_plan_compute(const struct gf_topo *t, const struct gf_plan_options *opts, struct gf_plan **out);
GF_API void gf_plan_free(struct gf_plan *p);

enum gf_plan_format {
	GF_PLAN_TEXT = 0,	/* the set, its score and the reasons */
	GF_PLAN_JSON,		/* docs/json-plan.md */
	GF_PLAN_DOCKER,		/* one pasteable docker run line */
	GF_PLAN_ENV,		/* shell exports */
	GF_PLAN_K8S,		/* ResourceClaim + Pod (multi-document YAML) */
	GF_PLAN_K8S_PLUGIN,	/* Pod with nvidia.com/gpu: N, no claim */
};
/* "text", "json", "docker", "env", "k8s", "k8s-plugin": 0 or -EINVAL. */
GF_API int gf_plan_format_parse(const char *s, enum gf_plan_format *out);

/* Versioned: start from GF_PLAN_WRITE_OPTS_INIT. */
struct gf_plan_write_options {
	size_t struct_size;
	const char *image;		/* container image; NULL: "IMAGE" */
	const char *name;		/* pod and claim name; NULL: "gpufeed-job" */
	/* New fields go here, at the end. */
};
#define GF_PLAN_WRITE_OPTS_INIT { .struct_size = sizeof(struct gf_plan_write_options), .image = NULL, .name = NULL }

/* The plan p of model t in format fmt (o NULL: the defaults): 0, -EIO when
 * writing failed, -EINVAL for t, p or f NULL, fmt out of range, options
 * not from GF_PLAN_WRITE_OPTS_INIT or a name Kubernetes refuses. */
GF_API int gf_plan_write(const struct gf_topo *t, const struct gf_plan *p, enum gf_plan_format fmt,
			 const struct gf_plan_write_options *o, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
