/* `bench h2d` as a runner target: the GPUs (NVML indexes, opened by PCI
 * address), the host nodes, the sizes, the sweep of points over them, each
 * GPU's host-link limit from the machine model, and the run. */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/cpuset.h>
#include "bench/gpu_bench.h"
#include "bench/h2d_bench.h"
#include "core/error.h"

static const char *const dir_names[GF_H2D_DIRS] = {
	"host_to_device", "device_to_host", "bidirectional_host_to_device", "bidirectional_device_to_host",
	"host_to_all", "all_to_host", "bidirectional_host_to_all", "bidirectional_all_to_host",
};
static const char *const mem_names[GF_H2D_MEMS] = { "pinned", "pageable" };

const char *gf_h2d_dir_name(enum gf_h2d_dir d)
{
	return (unsigned)d < GF_H2D_DIRS ? dir_names[d] : "?";
}

bool gf_h2d_dir_htod(enum gf_h2d_dir d)
{
	return d == GF_H2D_HTOD || d == GF_H2D_BIDIR_HTOD || d == GF_H2D_ALL_HTOD || d == GF_H2D_ALL_BIDIR_HTOD;
}

bool gf_h2d_dir_bidir(enum gf_h2d_dir d)
{
	return d == GF_H2D_BIDIR_HTOD || d == GF_H2D_BIDIR_DTOH || d == GF_H2D_ALL_BIDIR_HTOD ||
	       d == GF_H2D_ALL_BIDIR_DTOH;
}

bool gf_h2d_dir_all(enum gf_h2d_dir d)
{
	return d >= GF_H2D_ALL_HTOD && d < GF_H2D_DIRS;
}

const char *gf_h2d_mem_name(enum gf_h2d_mem m)
{
	return (unsigned)m < GF_H2D_MEMS ? mem_names[m] : "?";
}

/* "host_to_device,bidirectional_host_to_all" -> a mask of 1u << dir. */
static int parse_dirs(const char *list, unsigned *mask)
{
	const char *p = list;

	*mask = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int d;

		for (d = 0; d < GF_H2D_DIRS; d++)
			if (strlen(dir_names[d]) == len && !strncmp(p, dir_names[d], len))
				break;
		if (d == GF_H2D_DIRS)
			return gf_error(-EINVAL,
					"--direction: '%.*s' is not one of host_to_device, device_to_host, "
					"bidirectional_host_to_device, bidirectional_device_to_host, host_to_all, "
					"all_to_host, bidirectional_host_to_all, bidirectional_all_to_host",
					(int)len, p);
		*mask |= 1u << d;
		p += len;
		if (*p == ',' && *++p == '\0')
			break;
	}
	return *mask ? 0 : gf_error(-EINVAL, "--direction: '%s' names no direction", list);
}

int gf_bench_h2d_check(const struct gf_bench_h2d_opts *opts)
{
	uint64_t sizes[GF_BENCH_H2D_SIZES_MAX];
	struct gf_cpuset set;
	unsigned n;
	int rc;

	if (!opts)
		return gf_error(-EINVAL, "bench h2d: no options");
	const struct gf_bench_h2d_opts o = *opts;
	if (o.directions && (rc = parse_dirs(o.directions, &n)))
		return rc;
	if (o.directions && o.all_at_once && !(n >> GF_H2D_PER_GPU_DIRS))
		return gf_error(-EINVAL, "--all-at-once with --direction '%s', which names no *_all figure: "
				"name the all-GPU figures in --direction (host_to_all, all_to_host, "
				"bidirectional_host_to_all, bidirectional_all_to_host)", o.directions);
	if ((rc = gf_gpu_bench_check_gpus(o.gpus)))
		return rc;
	if (o.nodes && strcmp(o.nodes, "all") && (gf_cpuset_parse_list(&set, o.nodes) || gf_cpuset_empty(&set)))
		return gf_error(-EINVAL, "--numa-node: '%s' is not a list of node numbers (0,1 or 0-3) or 'all'",
				o.nodes);
	if (o.sizes && (rc = gf_gpu_bench_parse_sizes(o.sizes, sizes, GF_BENCH_H2D_SIZES_MAX, &n)))
		return rc;
	if (o.repeats > GF_BENCH_H2D_REPEATS_MAX)
		return gf_error(-ERANGE, "--repeats: at most %u", GF_BENCH_H2D_REPEATS_MAX);
	if (o.loops > GF_BENCH_H2D_LOOPS_MAX)
		return gf_error(-ERANGE, "--loops: at most %u", GF_BENCH_H2D_LOOPS_MAX);
	return 0;
}

/* The model's host<->GPU path of the GPU at pci: its limit, or 0. */
static void limit_of(struct gf_bench_h2d *h, struct gf_h2d_gpu *g)
{
	const struct gf_topo *t = h->topo;

	g->topo_gpu = gf_topo_find_gpu(t, g->dev.pci);
	if (g->topo_gpu < 0) {
		g->topo_gpu = -1;
		snprintf(g->limit_text, sizeof(g->limit_text), "not in the machine model");
		return;
	}
	for (int i = 0; i < t->npaths; i++) {
		const struct gf_path *p = &t->paths[i];

		if (p->kind == GF_PATH_HOST_GPU && t->matrix.dev[p->to].ref == g->topo_gpu) {
			g->limit_gb_per_s = p->gb_per_s;
			snprintf(g->limit_text, sizeof(g->limit_text), "%s",
				 p->gb_per_s > 0 ? p->limit_text : "link rate unknown");
		}
	}
}

/* GPU g's own node: the model's, or the first node when it does not know. */
static int own_node(const struct gf_bench_h2d *h, const struct gf_h2d_gpu *g)
{
	const struct gf_topo *t = h->topo;

	if (g->topo_gpu >= 0 && t->gpus[g->topo_gpu].numa_node >= 0)
		return t->gpus[g->topo_gpu].numa_node;
	return t->numa.nnodes ? t->numa.node[0].id : 0;
}

static int open_gpus(struct gf_bench_h2d *h)
{
	struct gf_cpuset want;
	int rc;

	if ((rc = gf_gpu_bench_wanted(h->o.gpus, &want)))
		return rc;
	h->gpus = calloc(gf_cpuset_count(&want), sizeof(*h->gpus));
	if (!h->gpus)
		return gf_error(-ENOMEM, "bench h2d: out of memory");
	for (int i = gf_cpuset_first(&want); i >= 0; i = gf_cpuset_next(&want, i)) {
		struct gf_h2d_gpu *g = &h->gpus[h->ngpus++];

		g->index = (unsigned)i;
		if ((rc = gf_gpu_bench_open(g->index, &g->dev)))
			return rc;
		g->open = true;
		if ((rc = gf_h2d_gpu_setup(g)))
			return gf_error(rc, "GPU %u (%s): %s", g->index, g->dev.pci, gf_last_error());
		limit_of(h, g);
		g->inode = own_node(h, g);
	}
	return 0;
}

/* The host nodes of GPU g: --numa-node's, all, or its own. */
static int nodes_of(struct gf_bench_h2d *h, const struct gf_h2d_gpu *g, int *nodes, unsigned *n)
{
	const struct gf_topo *t = h->topo;
	struct gf_cpuset want;

	*n = 0;
	gf_cpuset_zero(&want);
	if (h->o.nodes && strcmp(h->o.nodes, "all"))
		gf_cpuset_parse_list(&want, h->o.nodes);
	else if (h->o.nodes)
		for (int i = 0; i < t->numa.nnodes; i++)
			gf_cpuset_set(&want, (unsigned)t->numa.node[i].id);
	else
		gf_cpuset_set(&want, (unsigned)own_node(h, g));
	for (int id = gf_cpuset_first(&want); id >= 0 && *n < 64; id = gf_cpuset_next(&want, id)) {
		bool found = false;

		for (int i = 0; i < t->numa.nnodes; i++)
			found |= t->numa.node[i].id == id;
		if (!found && t->numa.nnodes)
			return gf_error(-ENODEV, "--numa-node: no NUMA node %d here", id);
		nodes[(*n)++] = id;
	}
	return 0;
}

/* pt, when --direction (or its default) asks for its figure. */
static void add_point(struct gf_bench_h2d *h, struct gf_h2d_point pt)
{
	if (h->dirs & (1u << pt.dir))
		h->points[h->npoints++] = pt;
}

static int make_points(struct gf_bench_h2d *h)
{
	unsigned nmem = h->o.pageable ? 2 : 1, max = 0;
	int nodes[64];
	unsigned nn;
	int rc;

	for (unsigned gi = 0; gi < h->ngpus; gi++) {
		if ((rc = nodes_of(h, &h->gpus[gi], nodes, &nn)))
			return rc;
		max += nn * h->nsizes * nmem * GF_H2D_PER_GPU_DIRS;
	}
	max += h->ngpus * h->nsizes * (GF_H2D_DIRS - GF_H2D_PER_GPU_DIRS);
	h->points = calloc(max, sizeof(*h->points));
	h->res = calloc(max, sizeof(*h->res));
	h->flags = calloc(max, sizeof(*h->flags));
	if (!h->points || !h->res || !h->flags)
		return gf_error(-ENOMEM, "bench h2d: out of memory");
	/* A buffer set's points together: it is made once. */
	for (unsigned gi = 0; gi < h->ngpus; gi++) {
		nodes_of(h, &h->gpus[gi], nodes, &nn);
		for (unsigned ni = 0; ni < nn; ni++)
			for (unsigned si = 0; si < h->nsizes; si++)
				for (unsigned m = 0; m < nmem; m++)
					for (int d = 0; d < GF_H2D_PER_GPU_DIRS; d++)
						add_point(h, (struct gf_h2d_point){
							.dir = (enum gf_h2d_dir)d, .mem = (enum gf_h2d_mem)m,
							.gpu = gi, .node = nodes[ni], .size = h->sizes[si] });
	}
	/* All GPUs at once: pinned memory on each GPU's own node, as
	 * nvbandwidth's HostBuffer(size, deviceId); after the per-GPU points
	 * so their buffers are made once. */
	for (unsigned si = 0; si < h->nsizes; si++)
		for (unsigned gi = 0; gi < h->ngpus; gi++)
			for (int d = GF_H2D_PER_GPU_DIRS; d < GF_H2D_DIRS; d++)
				add_point(h, (struct gf_h2d_point){
					.dir = (enum gf_h2d_dir)d, .mem = GF_H2D_PINNED, .gpu = gi,
					.node = h->gpus[gi].inode, .size = h->sizes[si] });
	return 0;
}

/* Queue copies from the GPU's own CPUs, as nvbandwidth does
 * (setOptimalCpuAffinity before each testcase): the thread that stages a
 * pageable copy then runs next to the GPU wherever the memory is.  Best
 * effort: no CPUs known or allowed leaves the affinity as it was. */
static void near_gpu(struct gf_bench_h2d *h, unsigned gpu)
{
	const struct gf_h2d_gpu *g = &h->gpus[gpu];
	struct gf_cpuset cpus;
	cpu_set_t set;

	if (h->pinned_gpu == (int)gpu || g->topo_gpu < 0)
		return;
	h->pinned_gpu = (int)gpu;
	gf_cpuset_and(&cpus, &h->topo->gpus[g->topo_gpu].cpus, &h->topo->cpus.allowed);
	CPU_ZERO(&set);
	for (int c = gf_cpuset_first(&cpus); c >= 0 && c < CPU_SETSIZE; c = gf_cpuset_next(&cpus, c))
		CPU_SET(c, &set);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}

static int op_prepare(void *ctx, unsigned i)
{
	struct gf_bench_h2d *h = ctx;

	int rc;

	near_gpu(h, h->points[i].gpu);
	if ((rc = gf_h2d_bufs_for(h, &h->points[i])))
		return rc;
	return gf_h2d_dir_all(h->points[i].dir) ? gf_h2d_ibufs_for(h, &h->points[i]) : 0;
}

static int op_sample(void *ctx, unsigned i, double *value)
{
	struct gf_bench_h2d *h = ctx;

	return gf_h2d_sample(h, &h->points[i], value);
}

static void op_label(void *ctx, unsigned i, char *buf, size_t size)
{
	struct gf_bench_h2d *h = ctx;
	const struct gf_h2d_point *pt = &h->points[i];

	snprintf(buf, size, "GPU %u, %s, %s, node %d, %llu MiB", h->gpus[pt->gpu].index, gf_h2d_dir_name(pt->dir),
		 gf_h2d_mem_name(pt->mem), pt->node, (unsigned long long)(pt->size >> 20));
}

static const struct gf_bench_ops h2d_ops = {
	.prepare = op_prepare, .sample = op_sample, .label = op_label,
};

static void release(struct gf_bench_h2d *h)
{
	gf_h2d_bufs_free(h);
	for (unsigned i = 0; i < h->ngpus; i++) {
		gf_h2d_ibufs_free(&h->gpus[i]);
		gf_h2d_gpu_teardown(&h->gpus[i]);
	}
}

int gf_bench_h2d_run(const struct gf_bench_h2d_opts *opts, const struct gf_bench_env *env,
		     struct gf_bench_h2d **out)
{
	struct gf_runner_opts ro = { .name = "gpufeed bench h2d", .warmup = 1 };
	struct gf_bench_h2d *h;
	cpu_set_t affinity;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !env || !env->model)
		return gf_error(-EINVAL, "bench h2d: no %s", !out ? "place for the results" : "machine model");
	if ((rc = gf_bench_h2d_check(opts)))
		return rc;
	h = calloc(1, sizeof(*h));
	if (!h)
		return gf_error(-ENOMEM, "bench h2d: out of memory");
	h->o = *opts;
	h->dirs = (1u << GF_H2D_PER_GPU_DIRS) - 1;
	if (h->o.all_at_once)
		h->dirs = (1u << GF_H2D_DIRS) - 1;
	if (h->o.directions)
		parse_dirs(h->o.directions, &h->dirs);
	/* An *_all figure asked for by name needs the all-GPU points. */
	h->o.all_at_once = h->dirs >> GF_H2D_PER_GPU_DIRS;
	h->o.repeats = h->o.repeats ? h->o.repeats : h->o.quick ? 3 : 5;
	h->o.loops = h->o.loops ? h->o.loops : GF_H2D_LOOPS;
	if (h->o.sizes)
		gf_gpu_bench_parse_sizes(h->o.sizes, h->sizes, GF_BENCH_H2D_SIZES_MAX, &h->nsizes);
	else
		h->sizes[h->nsizes++] = h->o.quick ? GF_H2D_SIZE_QUICK : GF_H2D_SIZE;
	h->topo = env->model;
	if ((rc = open_gpus(h)) || (rc = make_points(h)))
		goto fail;
	ro.repeats = h->o.repeats;
	gf_bench_env_runner(env, &ro);
	h->pinned_gpu = -1;
	if (sched_getaffinity(0, sizeof(affinity), &affinity))
		CPU_ZERO(&affinity);
	rc = gf_runner_run(&h2d_ops, h, h->npoints, &ro, h->res);
	if (CPU_COUNT(&affinity))
		sched_setaffinity(0, sizeof(affinity), &affinity);	/* the caller's, back */
	release(h);
	if (rc)
		goto fail;
	gf_h2d_sanity(h);
	*out = h;
	return 0;
fail:
	gf_bench_h2d_free(h);
	return rc;
}

void gf_bench_h2d_free(struct gf_bench_h2d *h)
{
	if (!h)
		return;
	if (h->gpus)
		release(h);
	gf_runner_points_free(h->res, h->npoints);
	free(h->gpus);
	free(h->res);
	free(h->points);
	free(h->flags);
	free(h);
}

/* ---- the target, as the frame sees it ---- */

GF_BENCH_RESULTS_DEFINE(gf_bench_h2d, struct gf_bench_h2d)

static int h2d_check(const void *opts, const char *operand)
{
	(void)operand;
	return gf_bench_h2d_check(opts);
}

static int h2d_run(const void *opts, const char *operand, const struct gf_bench_env *env, void **res)
{
	(void)operand;
	return gf_bench_h2d_run(opts, env, (struct gf_bench_h2d **)res);
}

static const struct gf_bench_opt_def h2d_opts[] = {
	GF_BENCH_FLAG("quick", "64 MiB buffers, 3 samples per figure", struct gf_bench_h2d_opts, quick),
	GF_BENCH_TEXT("gpu", "LIST", "the GPUs measured, by NVML index: 0,1 or 0-3\n(default: all)",
		      struct gf_bench_h2d_opts, gpus),
	GF_BENCH_TEXT("numa-node", "LIST", "host memory on these NUMA nodes: 0,1, 0-3 or all\n"
		      "(default: each GPU's own node, as nvbandwidth)", struct gf_bench_h2d_opts, nodes),
	GF_BENCH_TEXT("size", "SIZE", "bytes of each copy (default 512M, nvbandwidth's;\n--quick 64M)",
		      struct gf_bench_h2d_opts, sizes),
	GF_BENCH_TEXT("sizes", "LIST", "a size sweep: 4M,64M,512M", struct gf_bench_h2d_opts, sizes),
	GF_BENCH_FLAG("pageable", "pageable host memory (malloc-like, bound to the\nnode) beside pinned",
		      struct gf_bench_h2d_opts, pageable),
	GF_BENCH_FLAG("all-at-once", "also each GPU while every other GPU copies the\n"
		      "same way (nvbandwidth's host_to_all, all_to_host)", struct gf_bench_h2d_opts, all_at_once),
	GF_BENCH_TEXT("direction", "LIST", "only these figures, as nvbandwidth's -t: host_to_device,\n"
		      "device_to_host, bidirectional_host_to_device,\n"
		      "bidirectional_device_to_host, host_to_all, all_to_host,\n"
		      "bidirectional_host_to_all, bidirectional_all_to_host\n"
		      "(default: the first four; all eight with --all-at-once)", struct gf_bench_h2d_opts, directions),
	GF_BENCH_COUNT("repeats", "N", "samples per figure after a warm-up (default 5,\n--quick 3)",
		       struct gf_bench_h2d_opts, repeats, 1, GF_BENCH_H2D_REPEATS_MAX),
	GF_BENCH_COUNT("loops", "N", "copies timed per sample (default 16, nvbandwidth's)", struct gf_bench_h2d_opts,
		       loops, 1, GF_BENCH_H2D_LOOPS_MAX),
	GF_BENCH_OPTS_END,
};

const struct gf_bench_def gf_bench_h2d_def = {
	.pub = {
		.name = "h2d",
		.summary = "host <-> GPU copy bandwidth per NUMA node, like nvbandwidth's CE tests",
		.description =
			"Measures copy-engine bandwidth between host memory and each GPU: host to\n"
			"device, device to host, and each of those while the other direction runs\n"
			"at once (bidirectional, reported per direction as nvbandwidth does).  Host\n"
			"memory is bound to a NUMA node and, pinned, registered with the driver\n"
			"(cuMemHostRegister); --pageable adds plain pageable memory.  A sample is\n"
			"--loops cuMemcpyAsync calls queued behind a spin kernel and timed with CUDA\n"
			"events, as nvbandwidth's *_memcpy_ce testcases; GB/s is 1e9 bytes/s, bytes\n"
			"counted once.  Each figure is shown beside its path's theoretical\n"
			"bandwidth from the machine model and as a percentage of it; the bytes of\n"
			"one copy of every point are checked.  With --all-at-once (or an *_all\n"
			"--direction) the sum over the GPUs of each all-at-once figure is shown\n"
			"too: GPUs that share a host link split it, and the sum is what the link\n"
			"carried.\n",
		.schema = GF_BENCH_H2D_SCHEMA,
		.exits = { "", "a figure above its path's limit (a measurement error), a\n"
			   "failed measurement or a byte check that failed",
			   "", "the machine model cannot be read; writing the output failed; Ctrl-C",
			   "no CUDA driver (libcuda.so.1) or NVML, no GPU, or --gpu or\n"
			   "--numa-node names one this machine lacks" },
		.footer = "How it measures and its JSON: docs/bench-h2d.md, docs/json-bench-h2d.md.\n",
	},
	.opts = h2d_opts,
	.opts_size = sizeof(struct gf_bench_h2d_opts),
	.check = h2d_check,
	.run = h2d_run,
	GF_BENCH_RESULTS(gf_bench_h2d),
};
