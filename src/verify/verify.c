/* gf_verify_run: read the process, then the model, then compare. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/opts.h"
#include "core/strutil.h"
#include "verify/verify_internal.h"

GF_API const char *gf_verify_gpu_source_name(enum gf_verify_gpu_source s)
{
	switch (s) {
	case GF_VERIFY_GPU_OPEN: return "open";
	case GF_VERIFY_GPU_VISIBLE: return "CUDA_VISIBLE_DEVICES";
	case GF_VERIFY_GPU_ASKED: return "asked";
	}
	return "?";
}

GF_API void gf_verify_free(struct gf_verify *v)
{
	if (!v)
		return;
	gf_topo_free(v->topo);
	free(v->threads);
	free(v->nodes);
	free(v->gpus);
	free(v->findings);
	free(v);
}

GF_API int gf_verify_finding_count(const struct gf_verify *v, enum gf_severity min)
{
	int n = 0;

	if (!v)
		return GF_NULL_ARG("v");
	if ((unsigned)min > GF_SEV_ERROR)
		return gf_arg_error(__func__, "min %d is not a gf_severity", (int)min);
	for (int i = 0; i < v->nfindings; i++)
		n += v->findings[i].severity >= min;
	return n;
}

GF_API bool gf_verify_no_gpu(const struct gf_verify *v)
{
	return v && !v->ngpus;
}

/* The process's own files, read before the model so that what discovery
 * does in this process (NVML opening /dev/nvidia*) is not seen by
 * verify --self. */
static int read_process(const struct gf_proc *p, struct gf_verify *v, int **minors, int *nminors)
{
	int ret;

	if ((ret = verify_read_status(p, v)) || (ret = verify_read_threads(p, v)) ||
	    (ret = verify_read_numa_maps(p, v)) || (ret = verify_read_fds(p, minors, nminors)))
		return ret;
	return verify_read_environ(p, v);
}

/* The first release's struct gf_verify_options ends with max_off_node_pct. */
#define VERIFY_OPTS_V1_SIZE (offsetof(struct gf_verify_options, max_off_node_pct) + sizeof(double))

static int run(const struct gf_verify_options *o, int pid, struct gf_verify *v)
{
	struct gf_fs fs;
	struct gf_proc p;
	int *minors = NULL, nminors = 0, ret;

	if ((ret = gf_fs_init(&fs, o->proc_root)))
		return ret;
	gf_proc_init(&p, &fs, pid);
	snprintf(v->proc_source, sizeof(v->proc_source), "%s", gf_fs_live(&fs) ? "this machine" : fs.root);
	v->pid = pid;
	if (!(ret = read_process(&p, v, &minors, &nminors)) && !(ret = gf_topo_discover(o->machine, &v->topo)) &&
	    !(ret = verify_pick_gpus(v, &fs, o->gpus, minors, nminors)))
		ret = verify_judge(v, o->max_off_node_pct);
	free(minors);
	gf_fs_fini(&fs);
	return ret;
}

GF_API int gf_verify_run(const struct gf_verify_options *opts, int pid, struct gf_verify **out)
{
	struct gf_verify_options o = GF_VERIFY_OPTS_INIT;
	struct gf_verify *v;
	int ret;

	if (!out)
		return GF_NULL_ARG("out");
	*out = NULL;
	if (opts) {
		if ((ret = gf_opts_check(opts->struct_size, VERIFY_OPTS_V1_SIZE, "gf_verify_run", "GF_VERIFY_OPTS_INIT")))
			return ret;
		gf_opts_copy(&o, sizeof(o), opts, opts->struct_size);
	}
	if (!(o.max_off_node_pct >= 0 && o.max_off_node_pct <= 100))
		return gf_arg_error(__func__, "max_off_node_pct %g: a percentage, 0 to 100", o.max_off_node_pct);
	if (!(v = calloc(1, sizeof(*v))))
		return gf_error(-ENOMEM, "out of memory");
	if ((ret = run(&o, pid, v))) {
		gf_verify_free(v);
		return ret;
	}
	*out = v;
	return 0;
}
