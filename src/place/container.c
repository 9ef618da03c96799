/* What the container writers share: sizes and the NIC list. */
#include <stdio.h>
#include <string.h>

#include "place/place_internal.h"

#define GIB (1024ull * 1024 * 1024)

/* A NUMA node of the model by id, NULL when absent. */
const struct gf_numa_node *plan_node(const struct gf_topo *t, int id)
{
	for (int i = 0; i < t->numa.nnodes; i++)
		if (t->numa.node[i].id == id)
			return &t->numa.node[i];
	return NULL;
}

static int gpus_on_node(const struct gf_topo *t, int node)
{
	int n = 0;

	for (int g = 0; g < t->ngpus; g++)
		n += t->gpus[g].numa_node == node;
	return n;
}

/* The set's part of the machine's memory: each NUMA node's memory split
 * evenly among that node's GPUs (a GPU of unknown node, or on a node whose
 * memory is unknown: 1/ngpus).  A fraction, not the nodes' figures: where
 * the nodes' meminfo does not account the machine's memory (a VM whose
 * memory is added as it is used), the share still applies to MemTotal. */
double plan_memory_share(const struct gf_topo *t, const struct gf_plan *p)
{
	unsigned long long nodes = 0;
	double share = 0;

	for (int i = 0; i < t->numa.nnodes; i++)
		nodes += t->numa.node[i].memory_bytes;
	for (int i = 0; i < p->n; i++) {
		const struct gf_gpu *g = &t->gpus[p->gpu[i]];
		const struct gf_numa_node *n = plan_node(t, g->numa_node);

		if (n && n->memory_bytes && nodes)
			share += (double)n->memory_bytes / gpus_on_node(t, g->numa_node) / (double)nodes;
		else
			share += 1.0 / t->ngpus;
	}
	return share < 1 ? share : 1;
}

/* The set's share of the machine's memory (MemTotal; the nodes' sum when
 * MemTotal is unknown), 7/8 of it (the rest stays for the system and the
 * page cache), in whole GiB, at least 1. */
unsigned long long plan_memory_gib(const struct gf_topo *t, const struct gf_plan *p)
{
	unsigned long long total = t->machine.memory_bytes, gib;

	for (int i = 0; !total && i < t->numa.nnodes; i++)
		total += t->numa.node[i].memory_bytes;
	gib = (unsigned long long)(plan_memory_share(t, p) * (double)total) / 8 * 7 / GIB;
	return gib ? gib : 1;
}

/* CPUs for a Guaranteed pod of the set: each GPU's part of the CPUs its
 * NUMA node keeps for pods (`allocatable`: the node's CPUs outside the
 * kubelet's reservedSystemCPUs), split evenly among that node's GPUs, in
 * whole cores (`smt` threads each: the static CPU manager's full-pcpus-only
 * admits nothing else); a GPU of unknown node takes its part of all of
 * them.  At least one core, at most what there is. */
unsigned plan_pod_cpus(const struct gf_topo *t, const struct gf_plan *p, const struct gf_cpuset *allocatable,
		       int smt)
{
	unsigned total = 0, all = gf_cpuset_count(allocatable) / (unsigned)smt * (unsigned)smt;

	for (int i = 0; i < p->n; i++) {
		const struct gf_gpu *g = &t->gpus[p->gpu[i]];
		const struct gf_numa_node *n = plan_node(t, g->numa_node);
		struct gf_cpuset pool;
		int sharers = t->ngpus;

		pool = *allocatable;
		if (n && !gf_cpuset_empty(&n->cpus)) {
			gf_cpuset_and(&pool, &n->cpus, allocatable);
			sharers = gpus_on_node(t, g->numa_node);
		}
		total += gf_cpuset_count(&pool) / (unsigned)sharers / (unsigned)smt * (unsigned)smt;
	}
	if (total < (unsigned)smt)
		total = (unsigned)smt;
	return total < all ? total : all;
}

/* /dev/shm: 8 GiB per GPU (DataLoader workers and NCCL's shared-memory
 * transport live there; Docker's default 64 MiB is the classic "bus
 * error"), no more than half of `memory_gib`, the memory the job has.  A
 * tmpfs holds only what is written: the size is a ceiling, not a
 * reservation. */
unsigned long long plan_shm_gib(const struct gf_plan *p, unsigned long long memory_gib)
{
	unsigned long long want = 8ull * (unsigned long long)p->n, cap = memory_gib / 2;

	return want < cap ? want : cap ? cap : 1;
}

void plan_rail_list(const struct gf_topo *t, const struct gf_plan *p, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < p->n && len < size; i++) {
		bool seen = p->nic[i] < 0;

		for (int j = 0; j < i && !seen; j++)
			seen = p->nic[j] == p->nic[i];
		if (!seen)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", t->nics[p->nic[i]].name);
	}
}
