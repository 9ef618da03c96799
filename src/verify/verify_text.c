/* gpufeed verify's text: the process and its GPUs, the allowed sets against
 * the GPU-local sets, threads and pages per node, the findings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/table.h"
#include "topo/render.h"
#include "verify/verify_internal.h"

static void print_gpus(const struct gf_verify *v, FILE *f)
{
	char cpus[256];

	for (int i = 0; i < v->ngpus; i++) {
		const struct gf_verify_gpu *e = &v->gpus[i];
		const struct gf_gpu *g = &v->topo->gpus[e->gpu];

		gf_cpuset_format_list(&g->cpus, cpus, sizeof(cpus));
		fprintf(f, "GPU%d:    %s (%s", g->index, g->uuid[0] ? g->uuid : g->bdf, gf_verify_gpu_source_name(e->source));
		if (e->open && e->source != GF_VERIFY_GPU_OPEN)
			fprintf(f, ", open");
		if (e->mig_gi >= 0)
			fprintf(f, ", MIG gi %d ci %d", e->mig_gi, e->mig_ci);
		fprintf(f, "): NUMA node %d, local CPUs %s\n", g->numa_node, cpus[0] ? cpus : "unknown");
	}
	if (!v->ngpus)
		fprintf(f, "GPUs:    none known (none open, no CUDA_VISIBLE_DEVICES naming one; --gpu names them)\n");
	if (!v->environ_known)
		fprintf(f, "CUDA_VISIBLE_DEVICES: unknown (no environ)\n");
	else
		fprintf(f, "CUDA_VISIBLE_DEVICES: %s\n", v->cuda_visible_set ? v->cuda_visible : "unset");
}

static void print_sets(const struct gf_verify *v, FILE *f)
{
	struct gf_cpuset off, allowed;
	struct gf_table tb;
	char a[256], l[256], o[256];

	gf_table_init(&tb, 4);
	gf_table_add(&tb, "%s", "");
	gf_table_add(&tb, "process");
	gf_table_add(&tb, "GPU-local");
	gf_table_add(&tb, "not local");
	gf_cpuset_and(&allowed, &v->cpus_allowed, &v->topo->cpus.online);
	gf_cpuset_andnot(&off, &allowed, &v->local_cpus);
	gf_cpuset_format_list(&v->cpus_allowed, a, sizeof(a));
	gf_cpuset_format_list(&v->local_cpus, l, sizeof(l));
	gf_cpuset_format_list(&off, o, sizeof(o));
	gf_table_add(&tb, "CPUs allowed");
	gf_table_add(&tb, "%s", a);
	gf_table_add(&tb, "%s", v->ngpus ? l : "-");
	gf_table_add(&tb, "%s", v->ngpus && o[0] ? o : "-");
	gf_cpuset_andnot(&off, &v->mems_allowed, &v->local_nodes);
	gf_cpuset_format_list(&v->mems_allowed, a, sizeof(a));
	gf_cpuset_format_list(&v->local_nodes, l, sizeof(l));
	gf_cpuset_format_list(&off, o, sizeof(o));
	gf_table_add(&tb, "memory nodes");
	gf_table_add(&tb, "%s", v->mems_allowed_known ? a : "unknown");
	gf_table_add(&tb, "%s", v->ngpus && l[0] ? l : "-");
	gf_table_add(&tb, "%s", v->ngpus && o[0] && v->mems_allowed_known ? o : "-");
	gf_table_add(&tb, "memory policy");
	gf_table_add(&tb, "%s%s", v->policy[0] ? v->policy : "unknown", v->policy_mixed ? " (mixed)" : "");
	gf_table_add(&tb, "%s", "");
	gf_table_add(&tb, "%s", "");
	gf_table_print(&tb, f, "  ");
	gf_table_free(&tb);
}

/* "3(2) 5(1)": the CPUs of a node its threads last ran on, with counts. */
static void node_cpus(const struct gf_verify *v, int node, char *buf, size_t size)
{
	struct gf_cpuset seen;
	size_t len = 0;

	gf_cpuset_zero(&seen);
	buf[0] = '\0';
	for (int i = 0; i < v->nthreads; i++) {
		int cpu = v->threads[i].cpu, n = 0;

		if (v->threads[i].node != node || cpu < 0 || gf_cpuset_isset(&seen, (unsigned)cpu))
			continue;
		gf_cpuset_set(&seen, (unsigned)cpu);
		for (int j = i; j < v->nthreads; j++)
			n += v->threads[j].cpu == cpu;
		if (len + 24 >= size) {
			snprintf(buf + len, size - len, " ...");
			return;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%d(%d)", len ? " " : "", cpu, n);
	}
}

static double pct(unsigned long long part, unsigned long long whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void print_nodes(const struct gf_verify *v, FILE *f)
{
	struct gf_table tb;
	char cpus[80];

	gf_table_init(&tb, 8);
	tb.right_align = 0xe4u;	/* threads and the figures */
	gf_table_add(&tb, "node");
	gf_table_add(&tb, "local");
	gf_table_add(&tb, "threads");
	gf_table_add(&tb, "on CPU(threads)");
	gf_table_add(&tb, "%s", "");
	gf_table_add(&tb, "MiB");
	gf_table_add(&tb, "%%");
	gf_table_add(&tb, "private MiB (%%)");
	for (int i = 0; i < v->nnodes; i++) {
		const struct gf_verify_node *n = &v->nodes[i];

		node_cpus(v, n->node, cpus, sizeof(cpus));
		gf_table_add(&tb, "%d", n->node);
		gf_table_add(&tb, "%s", !v->ngpus ? "-" : n->local ? "yes" : "no");
		gf_table_add(&tb, "%d", n->threads);
		gf_table_add(&tb, "%s", cpus[0] ? cpus : "-");
		gf_table_add(&tb, "%s", "");
		gf_table_add(&tb, "%.1f", (double)n->bytes / 1048576.0);
		gf_table_add(&tb, "%.1f", pct(n->bytes, v->bytes));
		gf_table_add(&tb, "%.1f (%.1f)", (double)n->private_bytes / 1048576.0,
			     pct(n->private_bytes, v->private_bytes));
	}
	gf_table_print(&tb, f, "  ");
	gf_table_free(&tb);
	if (!v->numa_maps_known)
		fprintf(f, "  (no numa_maps: the kernel has no NUMA support; pages per node unknown)\n");
	if (v->threads_vanished)
		fprintf(f, "  (%d thread(s) exited while being read)\n", v->threads_vanished);
}

static void print_findings(const struct gf_verify *v, FILE *f, bool color)
{
	const char *on[] = { "\033[36m", "\033[33m", "\033[31m" }, *off = "\033[0m";
	int serious = gf_verify_finding_count(v, GF_SEV_WARN);

	if (v->nfindings)
		fprintf(f, "\nFindings:\n");
	for (int i = 0; i < v->nfindings; i++) {
		const struct gf_finding *x = &v->findings[i];
		char msg[sizeof(x->message)];

		memcpy(msg, x->message, sizeof(msg));
		gf_sanitize_text(msg);	/* it may quote CUDA_VISIBLE_DEVICES */
		fprintf(f, "  %s%-7s%s %s: %s\n", color ? on[x->severity] : "", gf_severity_name(x->severity),
			color ? off : "", x->id, msg);
	}
	if (!v->ngpus)
		fprintf(f, "\nResult: nothing to verify against: no GPU known\n");
	else
		fprintf(f, "\nResult: %s\n", serious ? "mismatch: threads or memory away from the GPUs" :
				     v->single_node ? "all local (one NUMA node)" : "all local to the GPUs");
}

GF_API int gf_verify_print(const struct gf_verify *v, FILE *out, unsigned flags)
{
	struct gf_text x;
	FILE *f;
	int ret;

	if (!v || !out)
		return GF_NULL_ARG(!v ? "v" : "f");
	if (!(f = gf_text_open(&x)))
		return gf_error(-ENOMEM, "out of memory");
	fprintf(f, "Process: %d (%s), %d thread%s, on %s; model: %s\n", v->pid, v->comm, v->nthreads,
		v->nthreads == 1 ? "" : "s", v->proc_source, v->topo->machine.source);
	print_gpus(v, f);
	fputc('\n', f);
	print_sets(v, f);
	fputc('\n', f);
	print_nodes(v, f);
	if ((ret = gf_text_close(&x, out)))
		return ret;
	/* Findings carry colour: sanitized one by one, after the rest. */
	print_findings(v, out, flags & GF_VERIFY_PRINT_COLOR);
	return 0;
}
