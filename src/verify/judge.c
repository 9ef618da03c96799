/* The comparison: the process's CPUs, threads, pages and memory policy
 * against the GPUs' local CPUs and NUMA nodes, as findings. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strutil.h"
#include "verify/verify_internal.h"

int verify_add_finding(struct gf_verify *v, enum gf_severity sev, const char *id, const char *subject,
		       const char *fmt, ...)
{
	struct gf_finding *f = realloc(v->findings, (size_t)(v->nfindings + 1) * sizeof(*f));
	va_list ap;

	if (!f)
		return gf_error(-ENOMEM, "out of memory");
	v->findings = f;
	f = &v->findings[v->nfindings++];
	memset(f, 0, sizeof(*f));
	f->severity = sev;
	gf_strlcpy(f->id, id, sizeof(f->id));
	gf_strlcpy(f->subject, subject, sizeof(f->subject));
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof(f->message), fmt, ap);
	va_end(ap);
	return 0;
}

int verify_cpu_node(const struct gf_topo *t, int cpu)
{
	for (int n = 0; cpu >= 0 && n < t->numa.nnodes; n++)
		if (gf_cpuset_isset(&t->numa.node[n].cpus, (unsigned)cpu))
			return t->numa.node[n].id;
	return -1;
}

struct gf_verify_node *verify_node(struct gf_verify *v, int node)
{
	struct gf_verify_node *n;
	int at = 0;

	while (at < v->nnodes && v->nodes[at].node < node)
		at++;
	if (at < v->nnodes && v->nodes[at].node == node)
		return &v->nodes[at];
	if (!(n = realloc(v->nodes, (size_t)(v->nnodes + 1) * sizeof(*n))))
		return NULL;
	v->nodes = n;
	memmove(&n[at + 1], &n[at], (size_t)(v->nnodes - at) * sizeof(*n));
	n[at] = (struct gf_verify_node){ .node = node };
	v->nnodes++;
	return &n[at];
}

/* "GPU3" or "GPU3,GPU5" for messages. */
static void gpu_names(const struct gf_verify *v, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < v->ngpus && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%sGPU%d", i ? "," : "",
					v->topo->gpus[v->gpus[i].gpu].index);
}

/* The GPUs' local CPUs and nodes; a finding when their nodes differ or one
 * is unknown. */
static int local_sets(struct gf_verify *v)
{
	const struct gf_topo *t = v->topo;
	int first = -1, ret = 0;
	bool split = false;

	v->local_known = true;
	for (int i = 0; i < v->ngpus; i++) {
		const struct gf_gpu *g = &t->gpus[v->gpus[i].gpu];

		gf_cpuset_or(&v->local_cpus, &v->local_cpus, &g->cpus);
		if (g->numa_node < 0) {
			v->local_known = false;
			ret = verify_add_finding(v, GF_SEV_WARN, "verify.gpu-node-unknown", "GPU",
						 "GPU%d's NUMA node is unknown (a VM that hides it?): memory cannot "
						 "be judged; name it with --pci-locality", g->index);
			continue;
		}
		gf_cpuset_set(&v->local_nodes, (unsigned)g->numa_node);
		if (first < 0)
			first = g->numa_node;
		else if (g->numa_node != first && !split && !ret) {
			split = true;
			ret = verify_add_finding(v, GF_SEV_WARN, "verify.gpus-split", "GPU",
						 "the GPUs are on different NUMA nodes (GPU%d on %d, GPU%d on %d): no "
						 "binding is local to all; both nodes count as local here",
						 t->gpus[v->gpus[0].gpu].index, first, g->index, g->numa_node);
		}
	}
	return ret;
}

/* Cpus_allowed_list against the GPUs' local CPUs, among the CPUs the
 * model has online. */
static int judge_cpus(struct gf_verify *v, const char *gpus)
{
	struct gf_cpuset allowed, off;
	char a[256], l[256], o[256];

	gf_cpuset_and(&allowed, &v->cpus_allowed, &v->topo->cpus.online);
	gf_cpuset_andnot(&off, &allowed, &v->local_cpus);
	if (gf_cpuset_empty(&off) || gf_cpuset_empty(&v->local_cpus))
		return 0;
	gf_cpuset_format_list(&v->cpus_allowed, a, sizeof(a));
	gf_cpuset_format_list(&v->local_cpus, l, sizeof(l));
	gf_cpuset_format_list(&off, o, sizeof(o));
	if (gf_cpuset_count(&off) == gf_cpuset_count(&allowed))
		return verify_add_finding(v, GF_SEV_ERROR, "verify.cpus-remote", "CPUs",
					  "allowed CPUs %s: none is local to %s (local: %s)", a, gpus, l);
	return verify_add_finding(v, GF_SEV_WARN, "verify.cpus-allowed", "CPUs",
				  "allowed CPUs %s: %u of them (%s) are not local to %s (local: %s)", a,
				  gf_cpuset_count(&off), o, gpus, l);
}

/* Each thread's last CPU: its node and whether it is local, counted per
 * node for the table. */
static int count_threads(struct gf_verify *v)
{
	for (int i = 0; i < v->nthreads; i++) {
		struct gf_verify_thread *th = &v->threads[i];
		struct gf_verify_node *n;

		th->node = verify_cpu_node(v->topo, th->cpu);
		th->local = th->cpu >= 0 && gf_cpuset_isset(&v->local_cpus, (unsigned)th->cpu);
		if (th->node < 0)
			continue;
		if (!(n = verify_node(v, th->node)))
			return gf_error(-ENOMEM, "out of memory");
		n->threads++;
	}
	return 0;
}

static int judge_threads(struct gf_verify *v, const char *gpus)
{
	char tids[128];
	size_t len = 0;
	int off = 0;

	tids[0] = '\0';
	for (int i = 0; i < v->nthreads; i++) {
		const struct gf_verify_thread *th = &v->threads[i];

		if (th->local || th->cpu < 0)
			continue;
		if (++off <= 8 && len < sizeof(tids))
			len += (size_t)snprintf(tids + len, sizeof(tids) - len, "%s%d", len ? "," : "", th->tid);
	}
	if (!off)
		return 0;
	return verify_add_finding(v, GF_SEV_WARN, "verify.threads-remote", "threads",
				  "%d of %d threads last ran on CPUs not local to %s (TIDs %s%s)", off, v->nthreads,
				  gpus, tids, off > 8 ? ",..." : "");
}

/* The nodes of a policy ("bind:0-1", "prefer=static:1"); false for
 * "default" and "local", which name none. */
static bool policy_nodes(const char *policy, struct gf_cpuset *nodes)
{
	const char *colon = strchr(policy, ':');

	gf_cpuset_zero(nodes);
	return colon && !gf_cpuset_parse_list(nodes, colon + 1) && !gf_cpuset_empty(nodes);
}

/* Which nodes are local, and the share of the private pages (every page
 * when none is private) off them. */
static void count_memory(struct gf_verify *v)
{
	unsigned long long total = 0, off = 0;

	for (int i = 0; i < v->nnodes; i++) {
		unsigned long long b = v->private_bytes ? v->nodes[i].private_bytes : v->nodes[i].bytes;

		v->nodes[i].local = gf_cpuset_isset(&v->local_nodes, (unsigned)v->nodes[i].node);
		total += b;
		if (!v->nodes[i].local)
			off += b;
	}
	v->off_node_pct = total ? 100.0 * (double)off / (double)total : 0;
}

static int judge_memory(struct gf_verify *v, double max_pct, const char *gpus)
{
	unsigned long long total = v->private_bytes ? v->private_bytes : v->bytes;
	struct gf_cpuset pn, extra;
	char nodes[64];
	const char *pol = v->policy;
	int ret;

	gf_cpuset_format_list(&v->local_nodes, nodes, sizeof(nodes));
	if (v->off_node_pct > max_pct &&
	    (ret = verify_add_finding(v, v->off_node_pct > 50 ? GF_SEV_ERROR : GF_SEV_WARN, "verify.pages-remote",
					  "memory", "%.1f%% of the %s pages (%.1f of %.1f MiB) are off node %s of %s "
					  "(more than %g%%)", v->off_node_pct, v->private_bytes ? "private" : "resident",
					  (double)total * v->off_node_pct / 100.0 / 1048576.0, (double)total / 1048576.0,
					  nodes, gpus, max_pct)))
		return ret;
	if (!pol[0])
		return 0;
	if (!policy_nodes(pol, &pn))
		return verify_add_finding(v, GF_SEV_INFO, "verify.mempolicy-default", "memory",
					  "memory policy '%s': pages go to the node of the CPU that first touches "
					  "them; bind or prefer node %s to keep them there", pol, nodes);
	gf_cpuset_andnot(&extra, &pn, &v->local_nodes);
	if (gf_cpuset_empty(&extra))
		return 0;
	return verify_add_finding(v, GF_SEV_WARN, "verify.mempolicy-remote", "memory",
				  "memory policy '%s' names nodes off node %s of %s", pol, nodes, gpus);
}

/* Mems_allowed (the cpuset's) must hold the GPUs' nodes; it need not
 * exclude the others: the memory policy does that. */
static int judge_mems_allowed(struct gf_verify *v, const char *gpus)
{
	struct gf_cpuset both;
	char a[64], nodes[64];

	gf_cpuset_and(&both, &v->mems_allowed, &v->local_nodes);
	if (!v->mems_allowed_known || !gf_cpuset_empty(&both))
		return 0;
	gf_cpuset_format_list(&v->mems_allowed, a, sizeof(a));
	gf_cpuset_format_list(&v->local_nodes, nodes, sizeof(nodes));
	return verify_add_finding(v, GF_SEV_ERROR, "verify.mems-remote", "memory",
				  "Mems_allowed_list %s holds no node of %s (node %s): every page is remote", a, gpus,
				  nodes);
}

int verify_judge(struct gf_verify *v, double max_off_node_pct)
{
	char gpus[256];
	int ret;

	v->single_node = v->topo->numa.nnodes <= 1;
	if ((ret = local_sets(v)) || (ret = count_threads(v)))
		return ret;
	count_memory(v);
	if (!v->ngpus)
		return verify_add_finding(v, GF_SEV_INFO, "verify.no-gpu", "GPU",
					  "no GPU known for process %d: none open, no CUDA_VISIBLE_DEVICES naming one; "
					  "name them with --gpu",
					  v->pid);
	gpu_names(v, gpus, sizeof(gpus));
	if (v->single_node)
		return verify_add_finding(v, GF_SEV_INFO, "verify.single-node", "machine",
					  "the machine has one NUMA node: every CPU and page is local to %s", gpus);
	if (!v->local_known)
		return 0;
	if ((ret = judge_cpus(v, gpus)) || (ret = judge_threads(v, gpus)) || (ret = judge_mems_allowed(v, gpus)))
		return ret;
	return judge_memory(v, max_off_node_pct, gpus);
}
