/* The CPUs of one GPU under each mode: its node, its sockets, its share of
 * its node's physical cores (exclusive), or one L3 group of its node. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/select.h"
#include "core/error.h"

void gf_bind_node_cpus(const struct gf_topo *t, int node, struct gf_cpuset *out)
{
	gf_cpuset_zero(out);
	for (int i = 0; i < t->numa.nnodes; i++)
		if (t->numa.node[i].id == node)
			*out = t->numa.node[i].cpus;
	if (gf_cpuset_empty(out) && t->numa.nnodes <= 1)
		*out = t->cpus.online;
}

static size_t fmt(char *buf, size_t size, const struct gf_cpuset *s)
{
	return gf_cpuset_format_list(s, buf, size);
}

/* Two CPUs of one physical core: same package, die and core id. */
static bool same_core(const struct gf_cpu *a, const struct gf_cpu *b)
{
	return a->core >= 0 && a->package == b->package && a->die == b->die && a->core == b->core;
}

struct core_list {
	struct gf_cpuset *cpus;		/* one set per core, ordered by first CPU */
	int n;
};

/* The physical cores with a CPU in `set`, SMT siblings together; each
 * core's set holds only its CPUs that are in `set`. */
static int cores_of(const struct gf_topo *t, const struct gf_cpuset *set, struct core_list *cl)
{
	int *first = calloc((size_t)t->cpus.ncpu + 1, sizeof(int));

	cl->n = 0;
	cl->cpus = calloc((size_t)t->cpus.ncpu + 1, sizeof(*cl->cpus));
	if (!first || !cl->cpus) {
		free(first);
		free(cl->cpus);
		return gf_error(-ENOMEM, "out of memory");
	}
	for (int i = 0; i < t->cpus.ncpu; i++) {
		const struct gf_cpu *c = &t->cpus.cpu[i];
		int k = 0;

		if (!gf_cpuset_isset(set, (unsigned)c->id))
			continue;
		while (k < cl->n && !same_core(&t->cpus.cpu[first[k]], c))
			k++;
		if (k == cl->n) {
			first[cl->n++] = i;
			gf_cpuset_zero(&cl->cpus[k]);
		}
		gf_cpuset_set(&cl->cpus[k], (unsigned)c->id);
	}
	free(first);
	return 0;
}

int gf_bind_count_cores(const struct gf_topo *t, const struct gf_cpuset *set)
{
	struct core_list cl;
	struct gf_cpuset rest = *set;
	int n;

	if (cores_of(t, set, &cl))
		return (int)gf_cpuset_count(set);
	n = cl.n;
	/* CPUs the model does not know (a recording of another machine) count
	 * one each. */
	for (int k = 0; k < cl.n; k++)
		gf_cpuset_andnot(&rest, &rest, &cl.cpus[k]);
	free(cl.cpus);
	return n + (int)gf_cpuset_count(&rest);
}

/* The GPUs that share node `node` (opts->sharing or all of the model's),
 * ascending, and the rank of `gpu` among them. */
static int sharers(const struct gf_bind_sel *s, int gpu, int node, int *count)
{
	const struct gf_topo *t = s->t;
	int rank = -1;

	*count = 0;
	for (int g = 0; g < t->ngpus; g++) {
		bool listed = !s->o->sharing;

		for (int i = 0; s->o->sharing && i < s->o->nsharing; i++)
			listed |= s->o->sharing[i] == g;
		if (!listed || gf_bind_gpu_node(t, g) != node)
			continue;
		if (g == gpu)
			rank = *count;
		(*count)++;
	}
	if (rank < 0)
		return gf_error(-EINVAL, "GPU %d is not among the GPUs said to share node %d", t->gpus[gpu].index,
				node);
	return rank;
}

static int exclusive(const struct gf_bind_sel *s, int gpu, int node, const struct gf_cpuset *pool,
		     struct gf_cpuset *out, char *why, size_t size)
{
	struct core_list cl;
	int k, rank = sharers(s, gpu, node, &k), base, rem, start, len, ret;
	char list[256];

	if (rank < 0)
		return rank;
	if ((ret = cores_of(s->t, pool, &cl)))
		return ret;
	if (cl.n < k) {
		fmt(list, sizeof(list), pool);
		free(cl.cpus);
		return gf_error(-EXDEV, "exclusive: node %d has %d usable physical core%s (CPUs %s) for %d GPUs",
				node, cl.n, cl.n == 1 ? "" : "s", list, k);
	}
	/* Even shares; the lowest ranks take one core more when it does not
	 * divide. */
	base = cl.n / k, rem = cl.n % k;
	start = rank * base + (rank < rem ? rank : rem);
	len = base + (rank < rem ? 1 : 0);
	for (int c = start; c < start + len; c++)
		gf_cpuset_or(out, out, &cl.cpus[c]);
	free(cl.cpus);
	snprintf(why, size, "exclusive: node %d's %d usable cores split among its %d GPU%s, rank %d has core%s %d%s",
		 node, cl.n, k, k == 1 ? "" : "s", rank, len == 1 ? "" : "s", start, len == 1 ? "" : "-");
	if (len > 1) {
		size_t used = strlen(why);

		snprintf(why + used, size - used, "%d", start + len - 1);
	}
	return 0;
}

static int l3(const struct gf_bind_sel *s, int gpu, int node, const struct gf_cpuset *pool, struct gf_cpuset *out,
	      char *why, size_t size)
{
	const struct gf_topo *t = s->t;
	int k, rank = sharers(s, gpu, node, &k), n = 0, pick;
	struct gf_cpuset *groups;

	if (rank < 0)
		return rank;
	if (!t->cpus.nl3)
		return gf_error(-ENODEV, "l3: the model has no L3 cache groups (no cache/index3 in sysfs)");
	if (!(groups = calloc((size_t)t->cpus.nl3, sizeof(*groups))))
		return gf_error(-ENOMEM, "out of memory");
	for (int j = 0; j < t->cpus.nl3; j++) {
		gf_cpuset_and(&groups[n], &t->cpus.l3[j], pool);
		if (!gf_cpuset_empty(&groups[n]))
			n++;
	}
	if (!n) {
		free(groups);
		return gf_error(-EXDEV, "l3: no L3 group of node %d has a usable CPU", node);
	}
	/* torchrun's core-complex binding: GPU k of a node takes L3 group k
	 * mod n, so GPUs that share a node spread over its cache domains. */
	pick = rank % n;
	gf_cpuset_or(out, out, &groups[pick]);
	free(groups);
	snprintf(why, size, "l3: node %d has %d usable L3 group%s and %d GPU%s, rank %d takes group %d (rank mod %d)",
		 node, n, n == 1 ? "" : "s", k, k == 1 ? "" : "s", rank, pick, n);
	return 0;
}

static void socket_cpus(const struct gf_topo *t, const struct gf_cpuset *nodecpus, struct gf_cpuset *out)
{
	*out = *nodecpus;
	for (int i = 0; i < t->cpus.ncpu; i++) {
		const struct gf_cpu *c = &t->cpus.cpu[i];

		if (!gf_cpuset_isset(nodecpus, (unsigned)c->id) || c->package < 0)
			continue;
		for (int j = 0; j < t->cpus.ncpu; j++)
			if (t->cpus.cpu[j].package == c->package)
				gf_cpuset_set(out, (unsigned)t->cpus.cpu[j].id);
	}
}

int gf_bind_select(const struct gf_bind_sel *s, int gpu, int node, struct gf_cpuset *out, char *why, size_t size)
{
	struct gf_cpuset nodecpus, pool;

	gf_bind_node_cpus(s->t, node, &nodecpus);
	gf_cpuset_and(&pool, &nodecpus, &s->usable);
	if (gf_cpuset_empty(&pool) && (s->o->cpu == GF_BIND_CPU_EXCLUSIVE || s->o->cpu == GF_BIND_CPU_L3)) {
		char n[256], u[256];

		gf_cpuset_format_list(&nodecpus, n, sizeof(n));
		gf_cpuset_format_list(&s->usable, u, sizeof(u));
		return gf_error(-EXDEV, "%s: GPU %d's node %d has CPUs %s, none of them among the CPUs this process may use "
				"(%s%s)", gf_bind_cpu_mode_name(s->o->cpu), s->t->gpus[gpu].index, node,
				n, u[0] ? u : "none", s->o->reserved ? " once the reserved CPUs are taken out" : "");
	}
	switch (s->o->cpu) {
	case GF_BIND_CPU_NODE:
		gf_cpuset_or(out, out, &nodecpus);
		snprintf(why, size, "node: every CPU of node %d", node);
		return 0;
	case GF_BIND_CPU_SOCKET: {
		struct gf_cpuset sock;

		socket_cpus(s->t, &nodecpus, &sock);
		gf_cpuset_or(out, out, &sock);
		snprintf(why, size, "socket: every CPU of the package%s of node %d",
			 gf_cpuset_equal(&sock, &nodecpus) ? " (the node is the whole package)" : "s", node);
		return 0;
	}
	case GF_BIND_CPU_EXCLUSIVE:
		return exclusive(s, gpu, node, &pool, out, why, size);
	case GF_BIND_CPU_L3:
		return l3(s, gpu, node, &pool, out, why, size);
	default:
		return 0;
	}
}
