/* gpufeed config labels: node labels (emit.h).  nvidia.com/... are named as
 * GPU Feature Discovery names them, so selectors written for GFD keep
 * working; gpufeed.io/... carry the topology GFD does not label. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "core/error.h"
#include "core/dnsname.h"
#include "core/quote.h"
#include "emit/emit_internal.h"

struct out {
	FILE *f;
	bool yaml;
};

/* One label; the value made valid (gf_emit_label_value). */
static void label(struct out *o, const char *key, const char *value)
{
	char v[64];

	gf_emit_label_value(value, v, sizeof(v));
	if (o->yaml) {
		fputs("    ", o->f);
		gf_yaml_quote(o->f, key);
		fputs(": ", o->f);
		gf_yaml_quote(o->f, v);
		fputc('\n', o->f);
	} else {
		fprintf(o->f, "%s=%s\n", key, v);
	}
}

static void label_int(struct out *o, const char *key, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	label(o, key, buf);
}

/* "550.54.15" -> its numbered parts (GFD: cuda.driver.major/minor/rev). */
static void driver_labels(struct out *o, const struct gf_topo *t)
{
	static const char *const part[] = { "major", "minor", "rev" };
	const char *p = t->machine.driver_version;
	char key[64], v[16];

	for (int i = 0; i < 3 && *p; i++) {
		size_t n = strcspn(p, ".");

		snprintf(v, sizeof(v), "%.*s", (int)(n < sizeof(v) ? n : sizeof(v) - 1), p);
		snprintf(key, sizeof(key), "nvidia.com/cuda.driver.%s", part[i]);
		label(o, key, v);
		p += n + (p[n] == '.');
	}
	if (t->machine.cuda_driver_version > 0) {
		label_int(o, "nvidia.com/cuda.runtime.major", t->machine.cuda_driver_version / 1000);
		label_int(o, "nvidia.com/cuda.runtime.minor", t->machine.cuda_driver_version % 1000 / 10);
	}
}

static void gpu_labels(struct out *o, const struct gf_topo *t)
{
	const struct gf_gpu *g = &t->gpus[0];
	int sm = emit_gpu_sm(g->name);
	char product[128];
	bool mig = false;

	label_int(o, "nvidia.com/gpu.count", t->ngpus);
	if (g->name[0]) {
		/* GFD writes the name with spaces as '-'. */
		snprintf(product, sizeof(product), "%s", g->name);
		for (char *p = product; *p; p++)
			if (*p == ' ')
				*p = '-';
		label(o, "nvidia.com/gpu.product", product);
	}
	if (g->memory_bytes)
		label_int(o, "nvidia.com/gpu.memory", (long long)(g->memory_bytes / (1024ull * 1024ull)));
	if (sm) {
		label(o, "nvidia.com/gpu.family", emit_gpu_family(sm));
		label_int(o, "nvidia.com/gpu.compute.major", sm / 10);
		label_int(o, "nvidia.com/gpu.compute.minor", sm % 10);
	}
	driver_labels(o, t);
	for (int i = 0; i < t->ngpus; i++)
		mig |= t->gpus[i].mig_current == 1;
	if (g->mig_current >= 0)
		label(o, "nvidia.com/mig.capable", "true");
	if (mig)
		label(o, "gpufeed.io/mig", "enabled");
}

/* GPUs on each node with CPUs: "4" when even, else "2_6" in node order. */
static void per_numa(const struct gf_topo *t, char *buf, size_t size)
{
	size_t len = 0;
	int first = -1;
	bool even = true;

	buf[0] = '\0';
	for (int i = 0; i < t->numa.nnodes; i++) {
		int n = emit_gpus_on_node(t, t->numa.node[i].id);

		if (gf_cpuset_empty(&t->numa.node[i].cpus))
			continue;
		if (first < 0)
			first = n;
		even &= n == first;
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%d", len ? "_" : "", n);
	}
	if (even && first >= 0)
		snprintf(buf, size, "%d", first);
}

static void topo_labels(struct out *o, const struct gf_topo *t)
{
	char v[64];
	int nodes = 0, best = 0, rdma = 0;

	for (int i = 0; i < t->numa.nnodes; i++)
		nodes += !gf_cpuset_empty(&t->numa.node[i].cpus);
	label_int(o, "gpufeed.io/numa-nodes", nodes ? nodes : 1);
	per_numa(t, v, sizeof(v));
	if (*v)
		label(o, "gpufeed.io/gpus-per-numa", v);
	label(o, "gpufeed.io/nvswitch", t->nvswitch ? "true" : "false");
	for (int a = 0; a < t->ngpus; a++)
		for (int b = 0; b < t->ngpus; b++)
			if (emit_nvlinks(t, a, b) > best)
				best = emit_nvlinks(t, a, b);
	if (best)
		snprintf(v, sizeof(v), "NV%d", best);
	else
		snprintf(v, sizeof(v), "none");
	label(o, "gpufeed.io/nvlink", v);
	for (int i = 0; i < t->nnics; i++)
		rdma += t->nics[i].rdma[0] != '\0';
	label_int(o, "gpufeed.io/rdma-nics", rdma);
	label_int(o, "gpufeed.io/smt", t->cpus.threads_per_core > 0 ? t->cpus.threads_per_core : 1);
	if (t->machine.hypervisor)
		label(o, "gpufeed.io/vm", "true");
}

/* The node's name, which names the NodeFeature and is a label value: a
 * DNS subdomain (RFC 1123, as the API server checks a node's name) of at
 * most 63 characters (a label value's limit).  --node must be one; from the
 * host name, the short name lower-cased as the kubelet lower-cases it,
 * other characters made '-'. */
static int node_name(const struct gf_emit_options *o, const struct gf_topo *t, char *buf, size_t size)
{
	if (o->node_name) {
		if (!gf_dns_subdomain(o->node_name) || strlen(o->node_name) > 63)
			return gf_error(-EINVAL, "node name '%s': not a DNS subdomain of at most 63 characters "
						 "(a-z, 0-9, '-' and '.', a letter or digit at each end)", o->node_name);
		snprintf(buf, size, "%s", o->node_name);
		return 0;
	}
	snprintf(buf, size, "%s", t->machine.hostname);
	buf[strcspn(buf, ".")] = '\0';
	for (char *p = buf; *p; p++)
		*p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '-';
	gf_emit_label_value(buf, buf, size);
	if (!*buf)
		return gf_error(-EINVAL, "no node name: the model has no host name; give one (--node)");
	return 0;
}

int gf_emit_labels(const struct gf_topo *t, const struct gf_emit_options *opts, FILE *f)
{
	struct gf_emit_options o;
	struct out out = { .f = f };
	char node[64], name[80];
	int ret;

	if (!t || !f)
		return GF_NULL_ARG(!t ? "t" : "f");
	if ((ret = emit_opts(opts, &o, __func__)) || (ret = emit_need_cpu_detail(t)))
		return ret;
	if (!t->ngpus)
		return gf_error(-ENODEV, "no NVIDIA GPU in the model: no GPU labels to write");
	out.yaml = o.label_format == GF_EMIT_LABELS_YAML;
	if (out.yaml) {
		if ((ret = node_name(&o, t, node, sizeof(node))))
			return ret;
		emit_banner(f, "#", t, "NodeFeature (node-feature-discovery)");
		snprintf(name, sizeof(name), "%s-gpufeed", node);
		fputs("apiVersion: nfd.k8s-sigs.io/v1alpha1\nkind: NodeFeature\nmetadata:\n  name: ", f);
		gf_yaml_quote(f, name);
		fputs("\n  namespace: node-feature-discovery\n  labels:\n"
		      "    nfd.node.kubernetes.io/node-name: ", f);
		gf_yaml_quote(f, node);
		fputs("\nspec:\n  labels:\n", f);
	}
	gpu_labels(&out, t);
	topo_labels(&out, t);
	return emit_done(f);
}
