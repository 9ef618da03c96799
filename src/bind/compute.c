/* gf_bind_compute: targets + model + what this process may use -> the
 * CPUs, memory nodes and CUDA_VISIBLE_DEVICES of a binding. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bind/select.h"
#include "core/error.h"
#include "core/opts.h"
#include "core/strutil.h"

int gf_bind_opts_load(const struct gf_bind_options *opts, const char *what, struct gf_bind_options *out)
{
	int ret;

	*out = (struct gf_bind_options)GF_BIND_OPTS_INIT;
	if (!opts)
		return 0;
	if ((ret = gf_opts_check(opts->struct_size, sizeof(*out), what, "GF_BIND_OPTS_INIT")))
		return ret;
	gf_opts_copy(out, sizeof(*out), opts, opts->struct_size);
	if ((unsigned)out->cpu > GF_BIND_CPU_NONE)
		return gf_arg_error(what, "cpu %d is not a gf_bind_cpu_mode", (int)out->cpu);
	if ((unsigned)out->mem > GF_BIND_MEM_NONE)
		return gf_arg_error(what, "mem %d is not a gf_bind_mem_policy", (int)out->mem);
	if (out->nsharing < 0 || (out->nsharing && !out->sharing))
		return gf_arg_error(what, "nsharing %d without a sharing list", out->nsharing);
	return 0;
}

/* targets[i] of n names a GPU (and MIG instance) of t. */
static int check_target(const struct gf_topo *t, const struct gf_bind_target *tg, int i, const char *func)
{
	if (tg->gpu < 0 || tg->gpu >= t->ngpus)
		return gf_arg_error(func, "targets[%d].gpu %d is not a position in the model's %d GPUs", i, tg->gpu,
				    t->ngpus);
	if (tg->mig < -1 || tg->mig >= t->gpus[tg->gpu].nmig)
		return gf_arg_error(func, "targets[%d].mig %d: GPU %d has no such MIG instance", i, tg->mig,
				    t->gpus[tg->gpu].index);
	return 0;
}

int gf_bind_binding_check(const struct gf_topo *t, const struct gf_binding *b, const char *func)
{
	int ret;

	if (!b)
		return gf_arg_error(func, "b is NULL");
	if (b->ntargets < 0 || b->ntargets > GF_BIND_MAX_TARGETS)
		return gf_arg_error(func, "b->ntargets %d is not within 0..%d (not from gf_bind_compute?)", b->ntargets,
				    GF_BIND_MAX_TARGETS);
	if ((unsigned)b->cpu_mode > GF_BIND_CPU_NONE)
		return gf_arg_error(func, "b->cpu_mode %d is not a gf_bind_cpu_mode", (int)b->cpu_mode);
	if ((unsigned)b->mem_policy > GF_BIND_MEM_NONE)
		return gf_arg_error(func, "b->mem_policy %d is not a gf_bind_mem_policy", (int)b->mem_policy);
	if (!memchr(b->visible_devices, '\0', sizeof(b->visible_devices)) || !memchr(b->reason, '\0', sizeof(b->reason)))
		return gf_arg_error(func, "b: text without its end (not from gf_bind_compute?)");
	for (int i = 0; t && i < b->ntargets; i++)
		if ((ret = check_target(t, &b->target[i], i, func)))
			return ret;
	return 0;
}

int gf_bind_gpu_node(const struct gf_topo *t, int gpu)
{
	if (t->gpus[gpu].numa_node >= 0)
		return t->gpus[gpu].numa_node;
	if (t->numa.nnodes <= 1)
		return t->numa.nnodes ? t->numa.node[0].id : 0;
	return -1;
}

static int check_targets(const struct gf_topo *t, const struct gf_bind_target *tg, int n,
			 const struct gf_bind_options *o, const char *func)
{
	int ret;

	if (n <= 0 || n > GF_BIND_MAX_TARGETS)
		return gf_arg_error(func, "ntargets %d: between 1 and %d please", n, GF_BIND_MAX_TARGETS);
	for (int i = 0; i < o->nsharing; i++)
		if (o->sharing[i] < 0 || o->sharing[i] >= t->ngpus)
			return gf_arg_error(func, "sharing[%d] %d is not a position in the model's %d GPUs", i,
					    o->sharing[i], t->ngpus);
	for (int i = 0; i < n; i++) {
		if ((ret = check_target(t, &tg[i], i, func)))
			return ret;
		if (tg[i].mig >= 0 && !t->gpus[tg[i].gpu].mig[tg[i].mig].uuid[0])
			return gf_error(-EINVAL, "target %d: MIG instance %d of GPU %d has no UUID to name it by", i,
					tg[i].mig, t->gpus[tg[i].gpu].index);
	}
	return 0;
}

/* CUDA_VISIBLE_DEVICES: UUIDs when every target has one (they survive a
 * CUDA_VISIBLE_DEVICES already set by a scheduler), else PCI-order
 * indices for all (CUDA_DEVICE_ORDER=PCI_BUS_ID makes them NVML's). */
static void visible(const struct gf_topo *t, const struct gf_binding *b, char *buf, size_t size)
{
	bool uuids = true;
	size_t len = 0;

	for (int i = 0; i < b->ntargets; i++)
		uuids &= b->target[i].mig >= 0 || t->gpus[b->target[i].gpu].uuid[0];
	buf[0] = '\0';
	for (int i = 0; i < b->ntargets && len < size; i++) {
		const struct gf_gpu *g = &t->gpus[b->target[i].gpu];
		const char *sep = i ? "," : "";

		if (b->target[i].mig >= 0)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, g->mig[b->target[i].mig].uuid);
		else if (uuids)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, g->uuid);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%d", sep,
						g->cuda_ordinal >= 0 ? g->cuda_ordinal : g->index);
	}
}

static void cat(char *buf, size_t size, const char *fmt_, const char *arg)
{
	size_t len = strlen(buf);

	if (len < size)
		snprintf(buf + len, size - len, fmt_, arg);
}

static void trim_reason(char *r)
{
	size_t len = strlen(r);

	while (len && (r[len - 1] == ' ' || r[len - 1] == ';'))
		r[--len] = '\0';
}

/* The nodes of the targets; -ENODEV when one is unknown. */
static int target_nodes(const struct gf_topo *t, const struct gf_binding *b, int *node)
{
	for (int i = 0; i < b->ntargets; i++) {
		const struct gf_gpu *g = &t->gpus[b->target[i].gpu];

		node[i] = gf_bind_gpu_node(t, b->target[i].gpu);
		if (node[i] < 0)
			return gf_error(-ENODEV,
					"GPU %d (%s): NUMA node unknown (its numa_node is -1) on a machine with %d nodes: "
					"not guessing node 0; name it with --pci-locality %s=NODE (GPUFEED_PCI_LOCALITY)",
					g->index, g->bdf, t->numa.nnodes, g->bdf);
	}
	return 0;
}

/* Whose limits the allowed sets are, in the messages. */
static const char *whose(const struct gf_bind_options *o, bool cpus)
{
	if (cpus ? o->allowed_cpus != NULL : o->allowed_mems != NULL)
		return "this process may use";
	return o->allowed_from_model ? "the recorded process could use" : "this process may use";
}

/* What the model's own process could use: a recording's, as recorded. */
static void model_cpus(const struct gf_topo *t, struct gf_cpuset *cpus)
{
	*cpus = gf_cpuset_empty(&t->cpus.allowed) ? t->cpus.online : t->cpus.allowed;
}

static void model_mems(const struct gf_topo *t, struct gf_cpuset *mems)
{
	gf_cpuset_zero(mems);
	if (t->numa.mems_allowed_known && !gf_cpuset_empty(&t->numa.mems_allowed)) {
		*mems = t->numa.mems_allowed;
		return;
	}
	for (int i = 0; i < t->numa.nnodes; i++)
		gf_cpuset_set(mems, (unsigned)t->numa.node[i].id);
	if (!t->numa.nnodes)
		gf_cpuset_set(mems, 0);	/* no NUMA in the kernel: one node, 0 */
}

static int choose_cpus(const struct gf_topo *t, const struct gf_bind_options *o, const struct gf_cpuset *allowed,
		       const int *node, struct gf_binding *b)
{
	struct gf_bind_sel s = { t, o, *allowed };
	struct gf_cpuset local;
	char a[256], l[256], r[256] = "", why[200], head[80];
	int ret;

	if (o->reserved)
		gf_cpuset_andnot(&s.usable, &s.usable, o->reserved);
	gf_cpuset_zero(&b->cpus);
	for (int i = 0; i < b->ntargets; i++) {
		bool seen = false;

		for (int j = 0; j < i; j++)
			seen |= b->target[j].gpu == b->target[i].gpu;
		if (seen)
			continue;	/* MIG instances of one GPU: one share */
		if ((ret = gf_bind_select(&s, b->target[i].gpu, node[i], &b->cpus, why, sizeof(why))))
			return ret;
		snprintf(head, sizeof(head), "GPU %d (node %d, %s): ", t->gpus[b->target[i].gpu].index, node[i],
			 gf_source_name(t->gpus[b->target[i].gpu].numa_source));
		cat(b->reason, sizeof(b->reason), "%s", head);
		cat(b->reason, sizeof(b->reason), "%s; ", why);
	}
	local = b->cpus;
	gf_cpuset_and(&b->cpus, &b->cpus, &s.usable);
	if (!gf_cpuset_empty(&b->cpus))
		return 0;
	gf_cpuset_format_list(&local, l, sizeof(l));
	gf_cpuset_format_list(allowed, a, sizeof(a));
	if (o->reserved)
		gf_cpuset_format_list(o->reserved, r, sizeof(r));
	return gf_error(-EXDEV, "the GPUs' CPUs (%s, %s mode) and the CPUs %s (%s%s%s) do not meet", l,
			gf_bind_cpu_mode_name(o->cpu), whose(o, true), a, o->reserved ? " minus reserved " : "", r);
}

static int choose_mems(const struct gf_bind_options *o, const struct gf_cpuset *allowed, const int *node,
		       struct gf_binding *b)
{
	struct gf_cpuset want;
	char w[128], a[128];

	gf_cpuset_zero(&want);
	for (int i = 0; i < b->ntargets; i++)
		gf_cpuset_set(&want, (unsigned)node[i]);
	gf_cpuset_and(&b->mems, &want, allowed);
	gf_cpuset_format_list(&b->mems, w, sizeof(w));
	if (!gf_cpuset_empty(&b->mems)) {
		cat(b->reason, sizeof(b->reason), "memory %s ", gf_bind_mem_policy_name(o->mem));
		cat(b->reason, sizeof(b->reason), "node %s", w);
		return 0;
	}
	gf_cpuset_format_list(&want, w, sizeof(w));
	gf_cpuset_format_list(allowed, a, sizeof(a));
	return gf_error(-EXDEV, "the GPUs' memory node%s %s and the nodes %s (Mems_allowed %s) do not meet",
			gf_cpuset_count(&want) == 1 ? "" : "s", w, whose(o, false), a);
}

GF_API int gf_bind_compute(const struct gf_topo *t, const struct gf_bind_target *targets, int ntargets,
			   const struct gf_bind_options *opts, struct gf_binding *out)
{
	struct gf_bind_options o;
	struct gf_cpuset cpus, mems;
	int node[GF_BIND_MAX_TARGETS], ret;

	if (!t || !targets || !out)
		return GF_NULL_ARG(!t ? "t" : !targets ? "targets" : "out");
	if ((ret = gf_bind_opts_load(opts, __func__, &o)) || (ret = check_targets(t, targets, ntargets, &o, __func__)))
		return ret;
	memset(out, 0, sizeof(*out));
	memcpy(out->target, targets, (size_t)ntargets * sizeof(*targets));
	out->ntargets = ntargets;
	out->cpu_mode = o.cpu;
	out->mem_policy = o.mem;
	visible(t, out, out->visible_devices, sizeof(out->visible_devices));
	if (o.cpu == GF_BIND_CPU_NONE && o.mem == GF_BIND_MEM_NONE) {
		gf_strlcpy(out->reason, "CPU affinity and memory policy left as they are", sizeof(out->reason));
		return 0;
	}
	if ((ret = target_nodes(t, out, node)))
		return ret;
	if (o.cpu != GF_BIND_CPU_NONE) {
		if (o.allowed_cpus)
			cpus = *o.allowed_cpus;
		else if (o.allowed_from_model)
			model_cpus(t, &cpus);
		else if ((ret = gf_bind_live_cpus(&cpus)))
			return ret;
		if ((ret = choose_cpus(t, &o, &cpus, node, out)))
			return ret;
		out->threads = gf_bind_count_cores(t, &out->cpus);
	}
	if (o.mem != GF_BIND_MEM_NONE) {
		if (o.allowed_mems)
			mems = *o.allowed_mems;
		else if (o.allowed_from_model)
			model_mems(t, &mems);
		else if ((ret = gf_bind_live_mems(&mems)))
			return ret;
		if ((ret = choose_mems(&o, &mems, node, out)))
			return ret;
	}
	if (out->threads < 1)
		out->threads = 1;
	trim_reason(out->reason);
	if (o.allowed_from_model && (!o.allowed_cpus || !o.allowed_mems))
		cat(out->reason, sizeof(out->reason), "%s", "; allowed CPUs and nodes as recorded, not this process's");
	return 0;
}
