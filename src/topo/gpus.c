/* GPUs: NVIDIA display/3D controllers on PCI, joined with NVML facts (live
 * or recorded) and /proc/driver/nvidia.  The index everywhere is NVML's,
 * which is PCI bus order; without NVML we derive it the same way. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pciaddr.h"
#include "core/strutil.h"
#include "topo/topo_internal.h"

static const struct gf_nvml_gpu *facts_for(const struct gf_ctx *c, const char *bdf)
{
	if (!c->facts)
		return NULL;
	for (int i = 0; i < c->facts->ngpus; i++)
		if (!strcmp(c->facts->gpus[i].pci, bdf))
			return &c->facts->gpus[i];
	return NULL;
}

/* /proc/driver/nvidia/gpus/<bdf>/information: model, UUID, minor. */
static void read_proc_info(struct gf_ctx *c, struct gf_gpu *g)
{
	char path[128], buf[96], *text;
	long long minor;

	if (g->name[0] && g->uuid[0] && g->minor >= 0)
		return;		/* NVML told us everything this file holds */
	snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", g->bdf);
	if (gf_read_opt(c, path, &text, NULL))
		return;
	if (!gf_kv_find(text, "Device Minor", buf, sizeof(buf)) || !gf_kv_find(text, "Model", buf, sizeof(buf))) {
		gf_warn(c, "%s%s: not the driver's format (no 'Model:' or 'Device Minor:' line)", c->fs.root, path);
		free(text);
		return;
	}
	if (!g->name[0])
		gf_kv_find(text, "Model", g->name, sizeof(g->name));
	if (!g->uuid[0] && gf_kv_find(text, "GPU UUID", buf, sizeof(buf)) && gf_starts_with(buf, "GPU-"))
		gf_strlcpy(g->uuid, buf, sizeof(g->uuid));
	if (g->minor < 0 && gf_kv_find(text, "Device Minor", buf, sizeof(buf))) {
		if (gf_parse_ll(buf, &minor) == 0 && minor >= 0 && minor < 256) {
			g->minor = (int)minor;
			g->minor_source = GF_SRC_PROCFS;
		} else {
			gf_warn(c, "%s%s: Device Minor: not a number: '%s'", c->fs.root, path, buf);
		}
	}
	free(text);
}

/* Is this NVLink's far end an NVSwitch?  NVML says so, or the far device is
 * invisible here (VMs hide the switches; NCCL assumes NVSwitch too). */
static bool far_end_is_switch(const struct gf_ctx *c, const struct gf_nvml_link *l)
{
	const struct gf_topo *t = c->t;
	int p;

	if (!strcmp(l->remote_type, "switch"))
		return true;
	if (!strcmp(l->remote_type, "gpu") || !strcmp(l->remote_type, "ibmnpu"))
		return false;
	if (!l->remote_pci[0])
		return true;
	p = gf_pci_find(t, l->remote_pci);
	return p < 0 || t->pci[p].kind == GF_PCI_NVSWITCH;
}

static void fill_nvlink(struct gf_ctx *c, struct gf_gpu *g, const struct gf_nvml_gpu *f)
{
	if (f->links_unknown)
		return;		/* nvlinks_active stays unknown */
	g->nvlinks_active = 0;
	for (int i = 0; i < f->nlinks; i++) {
		const struct gf_nvml_link *l = &f->links[i];

		if (!l->active)
			continue;
		g->nvlinks_active++;
		if (l->version > g->nvlink_version)
			g->nvlink_version = l->version;
		if (far_end_is_switch(c, l))
			g->nvswitch_links++;
	}
}

static int fill_mig(struct gf_gpu *g, const struct gf_nvml_gpu *f)
{
	g->mig_current = f->mig_current;
	g->mig_pending = f->mig_pending;
	if (!f->nmig)
		return 0;
	g->mig = calloc((size_t)f->nmig, sizeof(*g->mig));
	if (!g->mig)
		return -ENOMEM;
	for (int i = 0; i < f->nmig; i++) {
		gf_strlcpy(g->mig[i].uuid, f->mig[i].uuid, sizeof(g->mig[i].uuid));
		g->mig[i].gpu_instance = f->mig[i].gpu_instance;
		g->mig[i].compute_instance = f->mig[i].compute_instance;
		g->mig[i].memory_bytes = f->mig[i].memory_bytes;
	}
	g->nmig = f->nmig;
	return 0;
}

/* NVSwitches are often invisible (VMs): count the distinct far ends of
 * switch links too, and keep the larger count. */
static void count_switches_behind_links(struct gf_ctx *c)
{
	char seen[64][16];
	int nseen = 0, anonymous = 0;

	if (!c->facts)
		return;
	for (int i = 0; i < c->facts->ngpus; i++) {
		const struct gf_nvml_gpu *f = &c->facts->gpus[i];

		for (int k = 0; k < f->nlinks; k++) {
			const struct gf_nvml_link *l = &f->links[k];
			int j;

			if (!l->active || !far_end_is_switch(c, l))
				continue;
			if (!l->remote_pci[0]) {
				anonymous = 1;
				continue;
			}
			for (j = 0; j < nseen && strcmp(seen[j], l->remote_pci); j++)
				;
			if (j == nseen && nseen < 64)
				gf_strlcpy(seen[nseen++], l->remote_pci, sizeof(seen[0]));
		}
	}
	if (nseen || anonymous)
		c->t->nvswitch = true;
	if (nseen > c->t->nvswitches)
		c->t->nvswitches = nseen;
}

static int cmp_facts_pci(const void *a, const void *b)
{
	struct gf_pciaddr x, y;

	gf_pciaddr_parse(((const struct gf_nvml_gpu *)a)->pci, &x);
	gf_pciaddr_parse(((const struct gf_nvml_gpu *)b)->pci, &y);
	return gf_pciaddr_cmp(&x, &y);
}

/* NVML numbers the GPUs the driver sees, 0 up, in PCI order; every one is
 * on the PCI bus here (a container sees all of the host's in sysfs).  An
 * index beyond them is no NVML index: then none of them is trusted, and
 * the GPUs are numbered in PCI order, as without NVML. */
static void check_indices(struct gf_ctx *c, const char *src)
{
	struct gf_nvml_facts *f = c->facts;
	int bound = f->ngpus, bad = 0;

	for (int i = 0, on_bus = 0; i < c->t->npci; i++)
		if (c->t->pci[i].kind == GF_PCI_GPU && ++on_bus > bound)
			bound = on_bus;
	for (int i = 0; i < f->ngpus; i++) {
		if (f->gpus[i].index < bound)
			continue;
		gf_warn(c, "%s: the GPU at %s has index %d, but there are %d GPUs: NVML's indices are ignored, GPUs are numbered in PCI order",
			src, f->gpus[i].pci, f->gpus[i].index, bound);
		bad++;
	}
	if (!bad)
		return;
	c->nvml_pci_order = true;
	if (f->ngpus > 1)
		qsort(f->gpus, (size_t)f->ngpus, sizeof(*f->gpus), cmp_facts_pci);
	for (int i = 0; i < f->ngpus; i++)
		f->gpus[i].index = i;
	f->npairs = 0;		/* they name GPUs by those indices */
}

/* What NVML says, checked against this machine: a value that cannot be
 * true here is reported and taken as unknown. */
static void check_facts(struct gf_ctx *c)
{
	const char *src = gf_fs_live(&c->fs) ? "NVML" : "nvml.json";
	char where[PATH_MAX];
	struct gf_nvml_facts *f = c->facts;

	if (!f)
		return;
	if (!gf_fs_live(&c->fs)) {
		gf_fs_real(&c->fs, "/nvml.json", where, sizeof(where));
		src = where;
	}
	for (int i = 0; i < f->nwarnings; i++)
		gf_warn(c, "%s", f->warnings[i]);
	check_indices(c, src);
	for (int i = 0; i < f->ngpus; i++) {
		struct gf_nvml_gpu *g = &f->gpus[i];
		struct gf_cpuset absent;
		char list[80];

		gf_cpuset_andnot(&absent, &g->cpu_affinity, &c->t->cpus.possible);
		if (g->cpu_affinity_known && !gf_cpuset_empty(&absent)) {
			gf_cpuset_format_short(&absent, list, sizeof(list));
			gf_warn(c, "%s: the GPU at %s: CPU affinity names CPUs %s, which this machine does not have: taken as unknown",
				src, g->pci, list);
			g->cpu_affinity_known = false;
		}
		for (int n = gf_cpuset_first(&g->memory_affinity); g->memory_affinity_known && n >= 0;
		     n = gf_cpuset_next(&g->memory_affinity, n)) {
			if (gf_numa_index(c->t, n) >= 0)
				continue;
			gf_warn(c, "%s: the GPU at %s: memory affinity names NUMA node %d, which this machine does not have: taken as unknown",
				src, g->pci, n);
			g->memory_affinity_known = false;
		}
		if (g->numa_node_id >= 0 && gf_numa_index(c->t, g->numa_node_id) < 0) {
			gf_warn(c, "%s: the GPU at %s: its memory is NUMA node %d, which this machine does not have: taken as unknown",
				src, g->pci, g->numa_node_id);
			g->numa_node_id = -1;
		}
	}
}

static int cmp_gpu(const void *a, const void *b)
{
	const struct gf_gpu *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

int gf_discover_gpus(struct gf_ctx *c)
{
	struct gf_topo *t = c->t;
	int order = 0;

	check_facts(c);
	for (int i = 0; i < t->npci; i++) {
		const struct gf_nvml_gpu *f;
		struct gf_locality loc;
		struct gf_gpu *g;

		if (t->pci[i].kind == GF_PCI_NVSWITCH) {
			t->nvswitches++;
			t->nvswitch = true;
		}
		if (t->pci[i].kind != GF_PCI_GPU)
			continue;
		f = facts_for(c, t->pci[i].bdf);
		if (c->facts && !f) {
			/* sysfs is not namespaced: a container sees every GPU of the
			 * host, NVML only those it was given. */
			gf_finding(t, GF_SEV_INFO, "topo.gpu-not-in-nvml", t->pci[i].bdf,
				   "NVIDIA GPU at %s is on the PCI bus but NVML does not list it (hidden from this container, excluded, or not bound to the nvidia driver)",
				   t->pci[i].bdf);
			continue;
		}
		g = gf_push(&t->gpus, &t->ngpus, sizeof(*g));
		if (!g)
			return gf_error(-ENOMEM, "out of memory");
		g->pci = i;
		gf_strlcpy(g->bdf, t->pci[i].bdf, sizeof(g->bdf));
		g->cuda_ordinal = order++;	/* PCI order: t->pci is sorted */
		g->minor = -1;
		g->gpu_numa_id = -1;
		g->nvlinks_active = -1;
		g->mig_current = g->mig_pending = -1;
		if (f && !c->nvml_pci_order) {
			g->index = f->index;
			g->index_source = GF_SRC_NVML;
		} else {
			g->index = g->cuda_ordinal;
			g->index_source = GF_SRC_PCI_ORDER;
		}
		if (f) {
			gf_strlcpy(g->name, f->name, sizeof(g->name));
			gf_strlcpy(g->uuid, f->uuid, sizeof(g->uuid));
			g->memory_bytes = f->memory_bytes;
			if (f->minor >= 0) {
				g->minor = f->minor;
				g->minor_source = GF_SRC_NVML;
			}
			g->gpu_numa_id = f->numa_node_id;
			fill_nvlink(c, g, f);
			if (fill_mig(g, f))
				return gf_error(-ENOMEM, "out of memory");
		}
		read_proc_info(c, g);
		gf_locality_of(c, i, f, &loc);
		g->numa_node = loc.node;
		g->numa_source = loc.node_source;
		g->cpus = loc.cpus;
		g->cpus_source = loc.cpus_source;
	}
	if (c->facts) {
		for (int i = 0; i < c->facts->ngpus; i++)
			if (gf_pci_find(t, c->facts->gpus[i].pci) < 0)
				gf_warn(c, "%s lists GPU %d at %s, which is not on the PCI bus here",
					gf_fs_live(&c->fs) ? "NVML" : "nvml.json", c->facts->gpus[i].index,
					c->facts->gpus[i].pci);
	}
	count_switches_behind_links(c);
	if (t->ngpus > 1)
		qsort(t->gpus, (size_t)t->ngpus, sizeof(*t->gpus), cmp_gpu);
	for (int i = 1; i < t->ngpus; i++)
		if (t->gpus[i].index == t->gpus[i - 1].index)
			return gf_error(-EBADMSG, "NVML facts give index %d to both %s and %s",
					t->gpus[i].index, t->gpus[i - 1].bdf, t->gpus[i].bdf);
	return 0;
}
