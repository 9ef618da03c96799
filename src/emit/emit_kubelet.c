/* gpufeed config kubelet: a KubeletConfiguration fragment (emit.h). */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "core/error.h"
#include "core/quote.h"
#include "emit/emit_internal.h"

#define MIB (1024ull * 1024ull)
#define EVICTION_MIB 100ull	/* the kubelet's default evictionHard memory.available */
#define SYSTEM_MIB 1024ull	/* systemReserved memory: sshd, journald, the runtime */

/* What the policy choice looks at. */
struct tm_facts {
	int cpu_nodes;			/* NUMA nodes with CPUs */
	int max_per_node;		/* most GPUs on one node */
	int short_node;			/* a GPU node without a whole core per GPU, -1 none */
	int short_cores;		/* its allocatable cores */
	bool gpu_node_unknown;		/* a GPU with no NUMA node */
};

static void facts(const struct gf_topo *t, const struct gf_cpuset *reserved, struct tm_facts *f)
{
	struct emit_cores c;

	memset(f, 0, sizeof(*f));
	f->short_node = -1;
	for (int i = 0; i < t->numa.nnodes; i++)
		f->cpu_nodes += !gf_cpuset_empty(&t->numa.node[i].cpus);
	if (!t->numa.nnodes)
		f->cpu_nodes = 1;
	if (emit_cores_build(t, &c))
		return;
	for (int g = 0; g < t->ngpus; g++) {
		int node = t->gpus[g].numa_node, on = emit_gpus_on_node(t, node), free_cores = 0;
		struct gf_cpuset both;

		if (node < 0) {
			f->gpu_node_unknown = true;
			continue;
		}
		if (on > f->max_per_node)
			f->max_per_node = on;
		for (int k = 0; k < c.n; k++) {
			gf_cpuset_and(&both, &c.core[k].cpus, reserved);
			free_cores += c.core[k].node == node && gf_cpuset_empty(&both);
		}
		if (free_cores < on && f->short_node < 0) {
			f->short_node = node;
			f->short_cores = free_cores;
		}
	}
	emit_cores_free(&c);
}

static void comment(FILE *f, const char *fmt, ...) GF_PRINTF(2, 3);
static void comment(FILE *f, const char *fmt, ...)
{
	va_list ap;

	fputs("# ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void livelock_note(FILE *f)
{
	comment(f, "single-numa-node and restricted refuse a pod whose GPUs are free but not on one");
	comment(f, "NUMA node (TopologyAffinityError); the scheduler does not see NUMA and sends it");
	comment(f, "back, again and again: pytorch/ci-infra#696 on p5.48xlarge (2 nodes x 4 H100,");
	comment(f, "single-numa-node, scope pod) refused every 4-GPU pod once each node ran one GPU.");
}

/* The policy the machine supports, with why in comments. */
static const char *choose_policy(FILE *f, const struct gf_topo *t, const struct tm_facts *tf, int max_pod)
{
	if (tf->gpu_node_unknown) {
		comment(f, "best-effort: a GPU has no known NUMA node (a VM? see --pci-locality), so its");
		comment(f, "device plugin reports no topology and stricter policies have nothing to align.");
		return "best-effort";
	}
	if (tf->cpu_nodes <= 1) {
		comment(f, "single-numa-node: one NUMA node holds every CPU%s, so the strictest", t->ngpus ? " and GPU" : "");
		comment(f, "policy refuses nothing.");
		return "single-numa-node";
	}
	if (tf->short_node >= 0) {
		comment(f, "best-effort: node %d keeps %d whole cores (after reservedSystemCPUs) for %d GPUs;",
			tf->short_node, tf->short_cores, emit_gpus_on_node(t, tf->short_node));
		comment(f, "a pod asking for its GPUs and a core each could never be aligned there.");
		return "best-effort";
	}
	if (max_pod == 1) {
		comment(f, "single-numa-node: every GPU's node has a core per GPU and pods ask for one GPU");
		comment(f, "(--max-gpus-per-pod 1), so a free GPU always comes with CPUs on its node.");
		return "single-numa-node";
	}
	comment(f, "best-effort: %d NUMA nodes, at most %d GPUs on one; pods of %s GPUs.", tf->cpu_nodes,
		tf->max_per_node, max_pod ? "several" : "any number of");
	livelock_note(f);
	comment(f, "best-effort aligns when it can and admits otherwise.  Choose single-numa-node");
	comment(f, "(--policy) when pods ask for one GPU, or jobs are whole nodes or whole machines.");
	return "best-effort";
}

static bool policy_known(const char *p)
{
	return !strcmp(p, "none") || !strcmp(p, "best-effort") || !strcmp(p, "restricted") ||
	       !strcmp(p, "single-numa-node");
}

/* Options of the Topology Manager that fit this machine. */
static void tm_options(FILE *f, const struct gf_topo *t, int cpu_nodes)
{
	bool uneven = false;
	int ref = -1;

	for (int i = 0; i < t->numa.nnodes && t->numa.node[i].distance; i++)
		for (int j = 0; j < t->numa.nnodes; j++) {
			int d = t->numa.node[i].distance[j];

			if (i == j || d < 0)
				continue;
			if (ref < 0)
				ref = d;
			uneven |= d != ref;
		}
	if (!uneven && cpu_nodes <= 8)
		return;
	fputs("topologyManagerPolicyOptions:\n", f);
	if (uneven) {
		comment(f, "NUMA distances differ between node pairs: prefer the closest nodes when a pod");
		comment(f, "must span several (beta in 1.28, on by default since 1.32).");
		fputs("  prefer-closest-numa-nodes: \"true\"\n", f);
	}
	if (cpu_nodes > 8) {
		comment(f, "more than 8 NUMA nodes: the kubelet refuses to start without this (KEP-4622).");
		fprintf(f, "  max-allowable-numa-nodes: \"%d\"\n", cpu_nodes);
	}
}

static int write_reserved(FILE *f, const struct gf_topo *t, const struct gf_cpuset *r, int cores)
{
	char list[4096];
	int node = -1, gpus;

	for (int i = 0; i < t->cpus.ncpu; i++)
		if (gf_cpuset_isset(r, (unsigned)t->cpus.cpu[i].id)) {
			node = t->cpus.cpu[i].node;
			break;
		}
	gpus = emit_gpus_on_node(t, node);
	gf_cpuset_format_list(r, list, sizeof(list));
	comment(f, "%d whole cores for the system (SMT siblings together), lowest ids on node %d,", cores, node);
	if (!t->ngpus)
		comment(f, "the machine has no GPU.");
	else if (gpus)
		comment(f, "which has %d GPU%s, the fewest of the GPUs' nodes (every node has GPU-local cores).",
			gpus, gpus == 1 ? "" : "s");
	else
		comment(f, "away from every GPU's local CPUs.");
	comment(f, "This set also replaces kubeReserved/systemReserved cpu.");
	fputs("reservedSystemCPUs: ", f);
	gf_yaml_quote(f, list);
	fputc('\n', f);
	return emit_done(f);
}

/* kube-reserved memory as GKE sizes it: 25% of the first 4 GiB, 20% of the
 * next 4, 10% of the next 8, 6% of the next 112, 2% above 128 GiB. */
static unsigned long long kube_reserved_mib(unsigned long long bytes)
{
	static const struct { unsigned long long upto_mib; unsigned pct; } steps[] = {
		{ 4096, 25 }, { 8192, 20 }, { 16384, 10 }, { 131072, 6 }, { ~0ull, 2 },
	};
	unsigned long long mib = bytes / MIB, done = 0, total = 0;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && done < mib; i++) {
		unsigned long long upto = steps[i].upto_mib, part = (mib < upto ? mib : upto) - done;

		total += part * steps[i].pct / 100;
		done += part;
	}
	return total < 255 ? 255 : total;
}

/* What the NUMA nodes' meminfo adds up to.  It equals MemTotal on a normal
 * machine; far below it (under 90%), the nodes do not account the
 * machine's memory (a VM whose memory is added as it is used), and
 * memory is sized from MemTotal, what the machine really has. */
static unsigned long long nodes_memory(const struct gf_topo *t, bool *short_of_total)
{
	unsigned long long sum = 0;

	for (int i = 0; i < t->numa.nnodes; i++)
		sum += t->numa.node[i].memory_bytes;
	*short_of_total = t->numa.nnodes && t->machine.memory_bytes && sum / 9 < t->machine.memory_bytes / 10;
	return sum;
}

/* reservedSystemCPUs for the options: at least one core, the static CPU
 * manager's condition. */
static int reserve(const struct gf_topo *t, const struct gf_emit_options *o, struct gf_cpuset *reserved)
{
	if (o->reserve_cores < 1)
		return gf_error(-EINVAL, "reserved cores: %d; the static CPU manager needs reservedSystemCPUs "
					 "(the kubelet refuses to start without a reserved CPU)", o->reserve_cores);
	return gf_emit_reserved_cpus(t, o->reserve_cores, reserved);
}

int gf_emit_allocatable(const struct gf_topo *t, const struct gf_emit_options *opts, struct gf_emit_allocatable *out)
{
	struct gf_emit_options o;
	struct gf_cpuset reserved;
	unsigned long long held;
	int ret;

	if (!t || !out)
		return GF_NULL_ARG(!t ? "t" : "out");
	memset(out, 0, sizeof(*out));
	if ((ret = emit_opts(opts, &o, __func__)) || (ret = reserve(t, &o, &reserved)))
		return ret;
	for (int i = 0; i < t->cpus.ncpu; i++)
		if (!gf_cpuset_isset(&reserved, (unsigned)t->cpus.cpu[i].id))
			gf_cpuset_set(&out->cpus, (unsigned)t->cpus.cpu[i].id);
	out->nodes_memory_bytes = nodes_memory(t, &out->nodes_short);
	held = (kube_reserved_mib(t->machine.memory_bytes) + SYSTEM_MIB + EVICTION_MIB) * MIB;
	out->memory_bytes = t->machine.memory_bytes > held ? t->machine.memory_bytes - held : 0;
	return 0;
}

static void write_memory(FILE *f, const struct gf_topo *t, const struct gf_emit_options *o, const struct gf_cpuset *r)
{
	unsigned long long kube = kube_reserved_mib(t->machine.memory_bytes);
	unsigned long long sum = kube + SYSTEM_MIB + EVICTION_MIB, nodes;
	bool nodes_short;
	int node = 0;

	for (int i = 0; i < t->cpus.ncpu; i++)
		if (gf_cpuset_isset(r, (unsigned)t->cpus.cpu[i].id)) {
			node = t->cpus.cpu[i].node < 0 ? 0 : t->cpus.cpu[i].node;
			break;
		}
	nodes = nodes_memory(t, &nodes_short);
	comment(f, "Memory held back from pods: kubeReserved as GKE sizes it for %llu GiB,",
		t->machine.memory_bytes / (1024 * MIB));
	comment(f, "systemReserved a floor for sshd, journald and the runtime; raise it for agents.");
	if (nodes_short) {
		comment(f, "Sized from MemTotal: the NUMA nodes' meminfo accounts only %llu MiB of it (a VM",
			nodes / MIB);
		comment(f, "whose memory is added as it is used?), so the Memory Manager cannot be used here.");
	}
	fprintf(f, "kubeReserved:\n  memory: \"%lluMi\"\nsystemReserved:\n  memory: \"%lluMi\"\n", kube, SYSTEM_MIB);
	if (!o->memory_manager) {
		comment(f, "memoryManagerPolicy Static is left out (--memory-manager writes it): its");
		comment(f, "reservedMemory must sum to kubeReserved + systemReserved + evictionHard exactly");
		comment(f, "(here %llu Mi on node %d with the default 100Mi eviction), the kubelet refuses to", sum, node);
		comment(f, "start otherwise, and it has refused pods under restricted (kubernetes#128669).");
		return;
	}
	comment(f, "Memory Manager: Guaranteed pods get memory on their NUMA nodes.  reservedMemory");
	comment(f, "sums to kubeReserved + systemReserved + evictionHard, on the reserved CPUs' node.");
	comment(f, "evictionHard written here replaces the kubelet's defaults: add your other signals.");
	fprintf(f, "memoryManagerPolicy: Static\nevictionHard:\n  memory.available: \"%lluMi\"\n", EVICTION_MIB);
	fprintf(f, "reservedMemory:\n  - numaNode: %d\n    limits:\n      memory: \"%lluMi\"\n", node, sum);
}

/* The Memory Manager takes each NUMA node's memory from its meminfo and
 * needs reservedMemory to fit there: where the nodes do not account the
 * machine's memory, no reservedMemory is right. */
static int check_memory_manager(const struct gf_topo *t, const struct gf_emit_options *o)
{
	unsigned long long nodes;
	bool nodes_short;

	if (!o->memory_manager)
		return 0;
	nodes = nodes_memory(t, &nodes_short);
	if (nodes_short)
		return gf_error(-ENODEV, "--memory-manager: the NUMA nodes' meminfo accounts %llu MiB of the "
					 "machine's %llu MiB (a VM whose memory is added as it is used?); the Memory "
					 "Manager sizes pods from those figures, and reservedMemory (%llu MiB) does not fit",
				nodes / MIB, t->machine.memory_bytes / MIB,
				kube_reserved_mib(t->machine.memory_bytes) + SYSTEM_MIB + EVICTION_MIB);
	return 0;
}

int gf_emit_kubelet(const struct gf_topo *t, const struct gf_emit_options *opts, FILE *f)
{
	struct gf_emit_options o;
	struct gf_cpuset reserved;
	struct tm_facts tf;
	const char *policy, *scope;
	int ret;

	if (!t || !f)
		return GF_NULL_ARG(!t ? "t" : "f");
	if ((ret = emit_opts(opts, &o, __func__)) || (ret = emit_need_cpu_detail(t)))
		return ret;
	scope = o.tm_scope ? o.tm_scope : "container";
	if (o.tm_policy && !policy_known(o.tm_policy))
		return gf_error(-EINVAL, "topology manager policy '%s': none, best-effort, restricted or single-numa-node",
				o.tm_policy);
	if (strcmp(scope, "container") && strcmp(scope, "pod"))
		return gf_error(-EINVAL, "topology manager scope '%s': container or pod", scope);
	if ((ret = reserve(t, &o, &reserved)) || (ret = check_memory_manager(t, &o)))
		return ret;
	facts(t, &reserved, &tf);

	emit_banner(f, "#", t, "KubeletConfiguration fragment");
	comment(f, "Merge into the kubelet's config file (or a --config-dir drop-in, 1.30+).  A new");
	comment(f, "cpuManagerPolicy needs the node drained and /var/lib/kubelet/cpu_manager_state");
	comment(f, "removed before the kubelet restarts.");
	fputs("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n", f);
	comment(f, "static: Guaranteed pods with whole CPUs get exclusive cores.");
	fputs("cpuManagerPolicy: static\n", f);
	if (t->cpus.threads_per_core > 1) {
		comment(f, "%d threads per core: whole cores only, so no two pods share a core's threads.",
			t->cpus.threads_per_core);
		fputs("cpuManagerPolicyOptions:\n  full-pcpus-only: \"true\"\n", f);
	} else {
		comment(f, "No SMT: every CPU is a whole core; full-pcpus-only would add nothing.");
	}
	if (o.tm_policy) {
		policy = o.tm_policy;
		comment(f, "%s: as asked (--policy).", policy);
		if (tf.cpu_nodes > 1 && (!strcmp(policy, "single-numa-node") || !strcmp(policy, "restricted")))
			livelock_note(f);
	} else {
		policy = choose_policy(f, t, &tf, o.max_gpus_per_pod);
	}
	fprintf(f, "topologyManagerPolicy: %s\n", policy);
	if (!strcmp(scope, "pod") && tf.cpu_nodes > 1 && !strcmp(policy, "single-numa-node"))
		comment(f, "scope pod: all of a pod's containers on one node: the p5.48xlarge case above.");
	else
		comment(f, "scope %s: %s.", scope,
			strcmp(scope, "pod") ? "each container aligned on its own (the kubelet's default)"
					     : "a pod's containers aligned together");
	fprintf(f, "topologyManagerScope: %s\n", scope);
	if (strcmp(policy, "none"))
		tm_options(f, t, tf.cpu_nodes);
	if ((ret = write_reserved(f, t, &reserved, o.reserve_cores)))
		return ret;
	if (t->machine.memory_bytes)
		write_memory(f, t, &o, &reserved);
	return emit_done(f);
}
