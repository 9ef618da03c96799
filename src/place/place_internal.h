/* Inside place: the free GPUs as slots with their pair tables, the set
 * search, and the pieces the writers share. */
#ifndef GF_PLACE_INTERNAL_H
#define GF_PLACE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <gpufeed/place.h>

/* A 64-bit mask of slots bounds the free GPUs a search handles. */
#define GF_PLAN_MAX_FREE 64

/* The free GPUs, numbered 0..nf-1 in ascending position ("slots"), and
 * what the score needs of each slot and each pair, looked up once. */
struct plan_model {
	const struct gf_topo *t;
	int nf;
	int gpu[GF_PLAN_MAX_FREE];	/* slot -> position in t->gpus */
	int node[GF_PLAN_MAX_FREE];	/* small id of its NUMA node (unknown: its own) */
	int nic[GF_PLAN_MAX_FREE];	/* nearest RDMA NIC (t->nics), -1 none */
	int nic_class[GF_PLAN_MAX_FREE];	/* its PCIe class rank, 0 none */
	int nic_id[GF_PLAN_MAX_FREE];	/* small id of that NIC, -1 none */
	int nnodes;
	/* nf*nf, row-major */
	unsigned char *gap;		/* 1: the pair has no NVLink */
	unsigned char *missing;		/* best NVLink count minus the pair's */
	unsigned char *pcie;		/* PCIe class rank of a pair without NVLink, else 0 */
	unsigned char *pix;		/* 1: the pair shares one PCIe switch (PIX) */
};

int plan_model_init(struct plan_model *m, const struct gf_topo *t, const int *free, int nfree);
void plan_model_free(struct plan_model *m);

/* PIX 1, PXB 2, PHB 3, NODE 4, SYS 5, unknown 6. */
int plan_class_rank(enum gf_link_type l);
/* The PCIe class beneath a link (its own type when it is not NVLink). */
enum gf_link_type plan_pcie_class(const struct gf_link *l);
/* The matrix entry of GPU position g, or of NIC position n; -1 none. */
int plan_matrix_gpu(const struct gf_topo *t, int g);
int plan_matrix_nic(const struct gf_topo *t, int n);
/* The link between two GPU positions (NULL when the matrix lacks one). */
const struct gf_link *plan_gpu_link(const struct gf_topo *t, int a, int b);

/* -1, 0, 1 as a is better, equal, worse than b (lower parts are better). */
int plan_score_cmp(const struct gf_plan_score *a, const struct gf_plan_score *b);

/* The best k-set among the slots in mask: its slots (ascending) in set[],
 * its score; false when mask holds fewer than k slots.  With p non-NULL,
 * sets equal on the score are told apart by the look-ahead, p's counters
 * are filled and *lookahead_decided says whether the look-ahead told two
 * sets apart (else the lowest indices did). */
bool plan_search(const struct plan_model *m, uint64_t mask, int k, int *set, struct gf_plan_score *score,
		 struct gf_plan *p, bool *lookahead_decided);
/* The look-ahead of a chosen set: the next 4- and 2-GPU sets of the
 * remainder, and the PIX pairs it breaks. */
void plan_lookahead(const struct plan_model *m, uint64_t free_mask, uint64_t chosen, struct gf_plan_next next[2],
		    int *broken);

/* The reasons (reason.c). */
int plan_explain(const struct plan_model *m, struct gf_plan *p, bool lookahead_decided);
/* "0,1,4" of GPU positions, as NVML indices. */
void plan_index_list(const struct gf_topo *t, const int *gpu, int n, char *buf, size_t size);

/* Writers (write_*.c). */
int plan_write_text(const struct gf_topo *t, const struct gf_plan *p, FILE *f);
int plan_write_json(const struct gf_topo *t, const struct gf_plan *p, FILE *f);
int plan_write_docker(const struct gf_topo *t, const struct gf_plan *p, const struct gf_plan_write_options *o,
		      FILE *f);
int plan_write_env(const struct gf_topo *t, const struct gf_plan *p, FILE *f);
int plan_write_k8s(const struct gf_topo *t, const struct gf_plan *p, const struct gf_plan_write_options *o,
		   bool dra, FILE *f);

/* Shared by the container writers (docs/plan.md says how each is chosen):
 * the set's fraction of the machine's memory, that share as a memory size
 * in GiB (7/8 of it), the CPUs of a Guaranteed pod inside what the kubelet
 * leaves to pods, the /dev/shm size for a job of memory_gib, and the
 * distinct RDMA NICs of the set ("mlx5_0,mlx5_1"; "" none). */
const struct gf_numa_node *plan_node(const struct gf_topo *t, int id);
double plan_memory_share(const struct gf_topo *t, const struct gf_plan *p);
unsigned long long plan_memory_gib(const struct gf_topo *t, const struct gf_plan *p);
unsigned plan_pod_cpus(const struct gf_topo *t, const struct gf_plan *p, const struct gf_cpuset *allocatable,
		       int smt);
unsigned long long plan_shm_gib(const struct gf_plan *p, unsigned long long memory_gib);
void plan_rail_list(const struct gf_topo *t, const struct gf_plan *p, char *buf, size_t size);

#endif
