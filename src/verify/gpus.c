/* Which GPUs the process is compared with: the ones asked for (--gpu),
 * else the ones it has open (/dev/nvidiaN, or a MIG capability of one),
 * else the ones its CUDA_VISIBLE_DEVICES names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strutil.h"
#include "verify/verify_internal.h"

/* One GPU or MIG instance named the way CUDA_VISIBLE_DEVICES and --gpu name
 * them: NVML index, UUID (or prefix), PCI address, or a MIG UUID.  The GPU's
 * position (and *mig the instance, -1 for a whole GPU), or -ENOENT/-EINVAL. */
static int find_target(const struct gf_topo *t, const char *spec, int *mig)
{
	*mig = -1;
	if (gf_starts_with(spec, "MIG-")) {
		for (int g = 0; g < t->ngpus; g++)
			for (int m = 0; m < t->gpus[g].nmig; m++)
				if (!strcmp(t->gpus[g].mig[m].uuid, spec)) {
					*mig = m;
					return g;
				}
		return -ENOENT;
	}
	return gf_topo_find_gpu(t, spec);
}

static struct gf_verify_gpu *add_gpu(struct gf_verify *v, int gpu, enum gf_verify_gpu_source src)
{
	struct gf_verify_gpu *g;

	for (int i = 0; i < v->ngpus; i++)
		if (v->gpus[i].gpu == gpu)
			return &v->gpus[i];
	if (!(g = realloc(v->gpus, (size_t)(v->ngpus + 1) * sizeof(*g))))
		return NULL;
	v->gpus = g;
	g = &v->gpus[v->ngpus++];
	*g = (struct gf_verify_gpu){ .gpu = gpu, .source = src, .visible = -1, .mig_gi = -1, .mig_ci = -1 };
	return g;
}

/* Each entry of a comma-separated list: fn(v, gpu, mig, entry) for the
 * ones found, miss(v, entry) for the others (NULL: stop with -ENOENT). */
typedef int list_fn(struct gf_verify *v, int gpu, int mig, const char *entry);

static int each_entry(struct gf_verify *v, const char *list, list_fn *fn, list_fn *miss)
{
	char *copy = strdup(list), *save = NULL;
	int ret = copy ? 0 : gf_error(-ENOMEM, "out of memory");

	for (char *e = copy ? strtok_r(copy, ",", &save) : NULL; e && !ret; e = strtok_r(NULL, ",", &save)) {
		int mig, g = find_target(v->topo, gf_strip(e), &mig);

		if (g >= 0)
			ret = fn(v, g, mig, e);
		else if (miss)
			ret = miss(v, -1, -1, e);
		else
			ret = gf_error(-EDOM, "--gpu: '%s' %s GPU of the model (%s)", e,
				       g == -EINVAL ? "names more than one" : "names no", v->topo->machine.source);
	}
	free(copy);
	return ret;
}

static int asked(struct gf_verify *v, int gpu, int mig, const char *entry)
{
	(void)mig;
	(void)entry;
	return add_gpu(v, gpu, GF_VERIFY_GPU_ASKED) ? 0 : gf_error(-ENOMEM, "out of memory");
}

static int visible(struct gf_verify *v, int gpu, int mig, const char *entry)
{
	struct gf_verify_gpu *g;

	(void)mig;
	(void)entry;
	for (int i = 0; i < v->ngpus; i++)
		if (v->gpus[i].gpu == gpu)
			v->gpus[i].visible = 1;
	/* Named but not open: compared with only when nothing is open. */
	if (v->ngpus && v->gpus[0].source != GF_VERIFY_GPU_VISIBLE)
		return 0;
	if (!(g = add_gpu(v, gpu, GF_VERIFY_GPU_VISIBLE)))
		return gf_error(-ENOMEM, "out of memory");
	g->visible = 1;
	return 0;
}

static int unresolved(struct gf_verify *v, int gpu, int mig, const char *entry)
{
	(void)gpu;
	(void)mig;
	verify_add_finding(v, GF_SEV_INFO, "verify.visible-unknown", "CUDA_VISIBLE_DEVICES",
			   "CUDA_VISIBLE_DEVICES entry '%s' names no GPU of the model (a GPU of another machine, "
			   "or a CUDA ordinal under CUDA_DEVICE_ORDER=FASTEST_FIRST)", entry);
	return 0;
}

/* A MIG capability minor -> the GPU minor and instance, from the driver's
 * table ("gpu0/gi1/ci0/access 13"); -1 when the table does not have it. */
static int cap_gpu_minor(const struct gf_fs *fs, int cap, int *gi, int *ci)
{
	char *text, *save = NULL;
	int found = -1;

	if (gf_fs_read(fs, "/proc/driver/nvidia-caps/mig-minors", &text, NULL))
		return -1;
	for (char *l = strtok_r(text, "\n", &save); l && found < 0; l = strtok_r(NULL, "\n", &save)) {
		int gpu, g = -1, c = -1, m;

		if ((sscanf(l, "gpu%d/gi%d/ci%d/access %d", &gpu, &g, &c, &m) == 4 ||
		     (c = -1, sscanf(l, "gpu%d/gi%d/access %d", &gpu, &g, &m) == 3)) &&
		    m == cap) {
			found = gpu;
			*gi = g;
			*ci = c;
		}
	}
	free(text);
	return found;
}

static int by_minor(const struct gf_topo *t, int minor)
{
	for (int g = 0; g < t->ngpus; g++)
		if (t->gpus[g].minor == minor)
			return g;
	return -1;
}

static int add_open(struct gf_verify *v, const struct gf_fs *fs, int minor, bool only_mark)
{
	int gi = -1, ci = -1, g;
	struct gf_verify_gpu *e = NULL;

	if (minor >= GF_PROC_CAP_BASE && (minor = cap_gpu_minor(fs, minor - GF_PROC_CAP_BASE, &gi, &ci)) < 0)
		return 0;	/* a capability the table does not map (config, monitor) */
	if ((g = by_minor(v->topo, minor)) < 0)
		return verify_add_finding(v, GF_SEV_INFO, "verify.open-unknown", "fd",
					  "/dev/nvidia%d is open but the model has no GPU with minor %d", minor, minor);
	for (int i = 0; i < v->ngpus && !e; i++)
		if (v->gpus[i].gpu == g)
			e = &v->gpus[i];
	if (!e && only_mark)
		return 0;
	if (!e && !(e = add_gpu(v, g, GF_VERIFY_GPU_OPEN)))
		return gf_error(-ENOMEM, "out of memory");
	e->open = true;
	if (gi >= 0)
		e->mig_gi = gi, e->mig_ci = ci;
	return 0;
}

/* Open GPUs that CUDA_VISIBLE_DEVICES leaves out: CUDA cannot compute on
 * them in this process, so NVML (NCCL's topology queries, a monitoring
 * thread) opened them.  They are said (info) and left out of the
 * comparison when an open GPU is visible (unless --gpu asked for them); when none is, they are all there
 * is to compare with, and the mismatch is a warning. */
static int drop_invisible(struct gf_verify *v)
{
	int kept = 0, ret = 0, any_visible = 0;

	for (int i = 0; i < v->ngpus; i++)
		any_visible |= v->gpus[i].open && v->gpus[i].visible == 1;
	for (int i = 0; i < v->ngpus && !ret; i++) {
		const struct gf_verify_gpu *g = &v->gpus[i];

		if (g->open && g->visible == 0)
			ret = verify_add_finding(v, any_visible ? GF_SEV_INFO : GF_SEV_WARN, "verify.gpu-not-visible",
						 "GPU", "GPU%d (/dev/nvidia%d) is open but not in CUDA_VISIBLE_DEVICES=%s%s",
						 v->topo->gpus[g->gpu].index, v->topo->gpus[g->gpu].minor, v->cuda_visible,
						 any_visible && g->source == GF_VERIFY_GPU_OPEN ? " (NVML's, not compared)" : "");
		if (!(g->open && g->visible == 0 && any_visible && g->source == GF_VERIFY_GPU_OPEN))
			v->gpus[kept++] = *g;
	}
	v->ngpus = kept;
	return ret;
}

int verify_pick_gpus(struct gf_verify *v, const struct gf_fs *fs, const char *list, const int *minors, int nminors)
{
	int ret = 0;

	if (list && (ret = each_entry(v, list, asked, NULL)))
		return ret;
	for (int i = 0; i < nminors && !ret; i++)
		ret = add_open(v, fs, minors[i], list != NULL);
	if (ret || !v->cuda_visible_set)
		return ret;
	for (int i = 0; i < v->ngpus; i++)
		v->gpus[i].visible = 0;
	if ((ret = each_entry(v, v->cuda_visible, visible, unresolved)))
		return ret;
	return drop_invisible(v);
}
