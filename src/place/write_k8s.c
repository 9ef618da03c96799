/* The plan as Kubernetes objects.  A Pod spec cannot name GPUs: the device
 * plugin's nvidia.com/gpu: N lets the kubelet pick any N.  A DRA
 * ResourceClaim (resource.k8s.io/v1, GA since Kubernetes 1.34) can: one
 * request per GPU, each selecting its device by UUID (PCI address when the
 * model has no UUID) with a CEL expression.  Every string scalar goes
 * through gf_yaml_quote. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/emit.h>

#include "core/error.h"
#include "core/quote.h"
#include "place/place_internal.h"

/* The DeviceClass and attribute domain of NVIDIA's DRA driver. */
#define DRA_CLASS "gpu.nvidia.com"

static void q(FILE *f, const char *s)
{
	gf_yaml_quote(f, s);
}

/* The host bridge ("pci0000:15") every GPU of the set is under, "" when
 * they are under several: the value of resource.kubernetes.io/pcieRoot. */
static const char *shared_root(const struct gf_topo *t, const struct gf_plan *p)
{
	int hb = t->pci[t->gpus[p->gpu[0]].pci].host_bridge;

	for (int i = 1; i < p->n; i++)
		if (t->pci[t->gpus[p->gpu[i]].pci].host_bridge != hb)
			return "";
	return hb >= 0 && hb < t->nhost_bridges ? t->host_bridges[hb].name : "";
}

/* The CEL expression selecting one GPU, as a YAML scalar.  The UUID is a
 * CEL string literal first (gf_cel_quote): a quote in a recorded UUID
 * must not end the literal and turn the selector into one that matches
 * every device. */
static int write_selector(const struct gf_gpu *g, FILE *f)
{
	char *expr = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&expr, &len);
	int ret;

	if (!m)
		return gf_error(-ENOMEM, "out of memory");
	fprintf(m, "device.attributes[\"%s\"].%s == ", DRA_CLASS, *g->uuid ? "uuid" : "pcieBusID");
	ret = gf_cel_quote(m, *g->uuid ? g->uuid : g->bdf);
	if (fclose(m) || ret) {
		free(expr);
		return gf_error(-ENOMEM, "out of memory");
	}
	q(f, expr);
	free(expr);
	return 0;
}

static int write_claim(const struct gf_topo *t, const struct gf_plan *p, const char *name, FILE *f)
{
	const char *root = shared_root(t, p);
	char claim[300];
	int ret;

	snprintf(claim, sizeof(claim), "%s-gpus", name);
	fprintf(f, "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: ");
	q(f, claim);
	fprintf(f, "\nspec:\n  devices:\n    requests:\n");
	for (int i = 0; i < p->n; i++) {
		const struct gf_gpu *g = &t->gpus[p->gpu[i]];

		fprintf(f, "    - name: \"gpu%d\"\n      exactly:\n        deviceClassName: ", g->index);
		q(f, DRA_CLASS);
		fprintf(f, "\n        selectors:\n        - cel:\n            expression: ");
		if ((ret = write_selector(g, f)))
			return ret;
		fputc('\n', f);
	}
	/* The UUIDs pin the devices already; the constraint states the
	 * intent (one PCIe root) so an edited claim keeps it. */
	if (p->n > 1 && *root) {
		fprintf(f, "    constraints:\n    - requests: [");
		for (int i = 0; i < p->n; i++)
			fprintf(f, "%s\"gpu%d\"", i ? ", " : "", t->gpus[p->gpu[i]].index);
		fprintf(f, "]\n      matchAttribute: \"resource.kubernetes.io/pcieRoot\"\n");
	}
	return 0;
}

#define MIB (1024ull * 1024)

/* What the pod asks for (docs/plan.md): the set's share of what the
 * kubelet configuration `gpufeed config kubelet` writes (its defaults)
 * leaves to pods, so the pod fits a node configured that way. */
struct pod_size {
	unsigned cpus;
	unsigned long long memory_mib, shm_gib;
	struct gf_emit_allocatable alloc;
};

static int pod_size(const struct gf_topo *t, const struct gf_plan *p, struct pod_size *ps)
{
	int smt = t->cpus.threads_per_core > 0 ? t->cpus.threads_per_core : 1, ret;

	if ((ret = gf_emit_allocatable(t, NULL, &ps->alloc)))
		return ret;
	ps->cpus = plan_pod_cpus(t, p, &ps->alloc.cpus, smt);
	ps->memory_mib = (unsigned long long)(plan_memory_share(t, p) * (double)ps->alloc.memory_bytes) / MIB;
	if (!ps->memory_mib)	/* MemTotal unknown */
		ps->memory_mib = plan_memory_gib(t, p) * 1024;
	ps->shm_gib = plan_shm_gib(p, ps->memory_mib / 1024);
	return 0;
}

static void size_comment(const struct gf_topo *t, const struct pod_size *ps, FILE *f)
{
	fprintf(f, "# cpu and memory: this set's share of what 'gpufeed config kubelet' leaves to pods:\n"
		   "# the CPUs of the GPUs' NUMA nodes outside reservedSystemCPUs, in whole cores, and\n"
		   "# MemTotal less kubeReserved, systemReserved and evictionHard.\n");
	if (ps->alloc.nodes_short)
		fprintf(f, "# Memory sized from MemTotal (%llu GiB): the NUMA nodes' meminfo accounts only\n"
			   "# %llu MiB of it (a VM whose memory is added as it is used?).\n",
			t->machine.memory_bytes / (1024 * MIB), ps->alloc.nodes_memory_bytes / MIB);
}

/* Whole GiB from 4 GiB up (less than 1 GiB lost), MiB below. */
static void quantity(FILE *f, unsigned long long mib)
{
	if (mib >= 4096)
		fprintf(f, "\"%lluGi\"", mib / 1024);
	else
		fprintf(f, "\"%lluMi\"", mib);
}

static void write_resources(const struct gf_plan *p, const struct pod_size *ps, bool dra, FILE *f)
{
	/* Guaranteed QoS: requests equal limits, whole CPUs (the static CPU
	 * manager then gives exclusive cores). */
	for (int i = 0; i < 2; i++) {
		fprintf(f, "        %s:\n          cpu: \"%u\"\n          memory: ", i ? "limits" : "requests", ps->cpus);
		quantity(f, ps->memory_mib);
		fputc('\n', f);
		if (!dra)
			fprintf(f, "          nvidia.com/gpu: \"%d\"\n", p->n);
	}
	if (dra)
		fprintf(f, "        claims:\n        - name: \"gpus\"\n");
}

static void write_pod(const struct gf_topo *t, const struct gf_plan *p, const struct gf_plan_write_options *o,
		      const struct pod_size *ps, bool dra, FILE *f)
{
	const char *name = o->name ? o->name : "gpufeed-job";
	char rails[512], claim[256];

	snprintf(claim, sizeof(claim), "%s-gpus", name);
	fprintf(f, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: ");
	q(f, name);
	fprintf(f, "\nspec:\n  restartPolicy: Never\n");
	if (dra) {
		fprintf(f, "  resourceClaims:\n  - name: \"gpus\"\n    resourceClaimName: ");
		q(f, claim);
		fputc('\n', f);
	}
	fprintf(f, "  containers:\n  - name: \"main\"\n    image: ");
	q(f, o->image ? o->image : "IMAGE");
	fprintf(f, "\n    env:\n    - name: \"CUDA_DEVICE_ORDER\"\n      value: \"PCI_BUS_ID\"\n");
	plan_rail_list(t, p, rails, sizeof(rails));
	if (*rails) {
		char hca[520];

		snprintf(hca, sizeof(hca), "=%s", rails);
		fprintf(f, "    - name: \"NCCL_IB_HCA\"\n      value: ");
		q(f, hca);
		fputc('\n', f);
	}
	fprintf(f, "    resources:\n");
	write_resources(p, ps, dra, f);
	fprintf(f, "    volumeMounts:\n    - name: \"dshm\"\n      mountPath: \"/dev/shm\"\n");
	fprintf(f, "  volumes:\n  - name: \"dshm\"\n    emptyDir:\n      medium: \"Memory\"\n      sizeLimit: \"%lluGi\"\n",
		ps->shm_gib);
}

int plan_write_k8s(const struct gf_topo *t, const struct gf_plan *p, const struct gf_plan_write_options *o,
		   bool dra, FILE *f)
{
	struct pod_size ps;
	char list[1024];
	int ret;

	if ((ret = pod_size(t, p, &ps)))
		return ret;
	plan_index_list(t, p->gpu, p->n, list, sizeof(list));
	fprintf(f, "# gpufeed plan: GPUs %s of ", list);
	gf_comment_text(f, t->machine.hostname, false);
	fputc('\n', f);
	if (dra) {
		if ((ret = write_claim(t, p, o->name ? o->name : "gpufeed-job", f)))
			return ret;
		fprintf(f, "---\n");
	} else {
		fprintf(f, "# nvidia.com/gpu lets the kubelet pick any %d GPUs: --format k8s pins these with a\n"
			   "# DRA ResourceClaim instead.\n", p->n);
	}
	size_comment(t, &ps, f);
	write_pod(t, p, o, &ps, dra, f);
	return ferror(f) ? gf_error(-EIO, "writing the plan failed") : 0;
}
