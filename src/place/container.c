/* What the container writers share: sizes and the NIC list. */
#include <stdio.h>
#include <string.h>

#include "place/place_internal.h"

#define GIB (1024ull * 1024 * 1024)

/* The set's share of its nodes' memory: each node's memory split evenly
 * among that node's GPUs, 7/8 of it (the rest stays for the system and the
 * page cache), in whole GiB, at least 1. */
unsigned long long plan_memory_gib(const struct gf_topo *t, const struct gf_plan *p)
{
	unsigned long long sum = 0;

	for (int i = 0; i < t->numa.nnodes; i++) {
		const struct gf_numa_node *n = &t->numa.node[i];
		int mine = 0, all = 0;

		for (int g = 0; g < t->ngpus; g++)
			all += t->gpus[g].numa_node == n->id;
		for (int g = 0; g < p->n; g++)
			mine += t->gpus[p->gpu[g]].numa_node == n->id;
		if (mine && all)
			sum += n->memory_bytes / (unsigned long long)all * (unsigned long long)mine;
	}
	if (!sum)	/* GPUs of unknown node: the machine's share per GPU */
		sum = t->machine.memory_bytes / (unsigned long long)t->ngpus * (unsigned long long)p->n;
	sum = sum / 8 * 7 / GIB;
	return sum ? sum : 1;
}

/* /dev/shm: 8 GiB per GPU (DataLoader workers and NCCL's shared-memory
 * transport live there; Docker's default 64 MiB is the classic "bus
 * error"), no more than half the set's memory share.  A tmpfs holds only
 * what is written: the size is a ceiling, not a reservation. */
unsigned long long plan_shm_gib(const struct gf_topo *t, const struct gf_plan *p)
{
	unsigned long long want = 8ull * (unsigned long long)p->n, cap = plan_memory_gib(t, p) / 2;

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
