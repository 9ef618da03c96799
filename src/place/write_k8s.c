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

static void write_resources(const struct gf_topo *t, const struct gf_plan *p, bool dra, FILE *f)
{
	unsigned cpus = gf_cpuset_count(&p->cpus);
	unsigned long long mem = plan_memory_gib(t, p);

	/* Guaranteed QoS: requests equal limits, whole CPUs (the static CPU
	 * manager then gives exclusive cores). */
	for (int i = 0; i < 2; i++) {
		fprintf(f, "        %s:\n          cpu: \"%u\"\n          memory: \"%lluGi\"\n", i ? "limits" : "requests",
			cpus ? cpus : 1, mem);
		if (!dra)
			fprintf(f, "          nvidia.com/gpu: \"%d\"\n", p->n);
	}
	if (dra)
		fprintf(f, "        claims:\n        - name: \"gpus\"\n");
}

static void write_pod(const struct gf_topo *t, const struct gf_plan *p, const struct gf_plan_write_options *o,
		      bool dra, FILE *f)
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
	write_resources(t, p, dra, f);
	fprintf(f, "    volumeMounts:\n    - name: \"dshm\"\n      mountPath: \"/dev/shm\"\n");
	fprintf(f, "  volumes:\n  - name: \"dshm\"\n    emptyDir:\n      medium: \"Memory\"\n      sizeLimit: \"%lluGi\"\n",
		plan_shm_gib(t, p));
}

int plan_write_k8s(const struct gf_topo *t, const struct gf_plan *p, const struct gf_plan_write_options *o,
		   bool dra, FILE *f)
{
	char list[1024];

	int ret;

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
	write_pod(t, p, o, dra, f);
	return ferror(f) ? gf_error(-EIO, "writing the plan failed") : 0;
}
