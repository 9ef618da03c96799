/* `bench p2p` as a runner target: the GPUs (NVML indexes, opened by PCI
 * address), peer access between each pair, the model's path and limit of
 * each pair, the sweep of points, and the run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/cpuset.h>
#include "bench/gpu_bench.h"
#include "bench/p2p_bench.h"
#include "core/error.h"

static const char *const test_names[GF_P2P_TESTS] = { "read", "write", "bidir-read", "bidir-write", "local",
						       "latency" };
static const char *const copy_names[GF_P2P_COPIES] = { "ce", "sm" };

const char *gf_p2p_test_name(enum gf_p2p_test t)
{
	return (unsigned)t < GF_P2P_TESTS ? test_names[t] : "?";
}

const char *gf_p2p_copy_name(enum gf_p2p_copy c)
{
	return (unsigned)c < GF_P2P_COPIES ? copy_names[c] : "?";
}

/* nvbandwidth's matrices (testcases_ce.cpp, testcases_sm.cpp, v0.8): its
 * row is the GPU whose context issues the copy for read and
 * unidirectional write, the destination for the bidirectional ones (its
 * read1/write1 matrix), and the GPU running the chase for latency. */
const char *gf_p2p_nvbw_name(const struct gf_p2p_point *pt, unsigned *row, unsigned *col)
{
	static const char *const ce[] = { "device_to_device_memcpy_read_ce", "device_to_device_memcpy_write_ce",
					  "device_to_device_bidirectional_memcpy_read_ce",
					  "device_to_device_bidirectional_memcpy_write_ce", "device_local_copy" };
	static const char *const sm[] = { "device_to_device_memcpy_read_sm", "device_to_device_memcpy_write_sm",
					  "device_to_device_bidirectional_memcpy_read_sm",
					  "device_to_device_bidirectional_memcpy_write_sm", NULL };

	*row = pt->test == GF_P2P_WRITE ? pt->src : pt->dst;
	*col = pt->test == GF_P2P_WRITE ? pt->dst : pt->src;
	if (pt->test == GF_P2P_LOCAL)
		*row = 0;
	if (pt->test == GF_P2P_LATENCY)
		return pt->src != pt->dst ? "device_to_device_latency_sm" : NULL;
	return pt->copy == GF_P2P_CE ? ce[pt->test] : sm[pt->test];
}

/* "read,latency" into want[] over names[0..n); NULL or "all": every one. */
static int parse_names(const char *opt, const char *text, const char *const *names, unsigned n, bool *want)
{
	char buf[128], *save = NULL, *tok;
	bool any = false;

	for (unsigned i = 0; i < n; i++)
		want[i] = !text || !strcmp(text, "all");
	if (!text || !strcmp(text, "all"))
		return 0;
	if (strlen(text) >= sizeof(buf))
		return gf_error(-EINVAL, "--%s: '%s' is too long", opt, text);
	strcpy(buf, text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned i = 0;

		while (i < n && strcmp(tok, names[i]))
			i++;
		if (i == n) {
			char list[128] = "";

			for (unsigned k = 0; k < n; k++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "", names[k]);
			return gf_error(-EINVAL, "--%s: '%s' is not one of %s", opt, tok, list);
		}
		want[i] = any = true;
	}
	if (!any)
		return gf_error(-EINVAL, "--%s: '%s' names nothing", opt, text);
	return 0;
}

int gf_bench_p2p_check(const struct gf_bench_p2p_opts *o)
{
	uint64_t sizes[GF_BENCH_P2P_SIZES_MAX];
	bool tests[GF_P2P_TESTS], copies[GF_P2P_COPIES];
	unsigned n;
	int rc;

	if (!o)
		return gf_error(-EINVAL, "bench p2p: no options");
	if ((rc = gf_gpu_bench_check_gpus(o->gpus)))
		return rc;
	if (o->sizes && (rc = gf_gpu_bench_parse_sizes(o->sizes, sizes, GF_BENCH_P2P_SIZES_MAX, &n)))
		return rc;
	if ((rc = parse_names("test", o->tests, test_names, GF_P2P_TESTS, tests)) ||
	    (rc = parse_names("copy", o->copies, copy_names, GF_P2P_COPIES, copies)))
		return rc;
	if (o->repeats > GF_BENCH_P2P_REPEATS_MAX)
		return gf_error(-ERANGE, "--repeats: at most %u", GF_BENCH_P2P_REPEATS_MAX);
	if (o->loops > GF_BENCH_P2P_LOOPS_MAX)
		return gf_error(-ERANGE, "--loops: at most %u", GF_BENCH_P2P_LOOPS_MAX);
	return 0;
}

/* The model's matrix index of GPU g, -1 when the model does not have it. */
static int matrix_index(const struct gf_topo *t, const struct gf_p2p_gpu *g)
{
	int tg = gf_topo_find_gpu(t, g->dev.pci);

	for (int i = 0; tg >= 0 && i < t->matrix.n; i++)
		if (t->matrix.dev[i].kind == GF_DEV_GPU && t->matrix.dev[i].ref == tg)
			return i;
	return -1;
}

/* The model's GPU-GPU path between a and b (it keeps one per pair). */
static void limit_of(struct gf_bench_p2p *p, unsigned a, unsigned b, struct gf_p2p_pair *pr)
{
	const struct gf_topo *t = p->topo;
	int ma = p->gpus[a].topo_mi, mb = p->gpus[b].topo_mi;

	snprintf(pr->limit_text, sizeof(pr->limit_text), "%s",
		 a == b ? "local memory: not in the machine model" : "not in the machine model");
	if (a == b || ma < 0 || mb < 0)
		return;
	for (int i = 0; i < t->npaths; i++) {
		const struct gf_path *q = &t->paths[i];

		if (q->kind != GF_PATH_GPU_GPU || !((q->from == ma && q->to == mb) || (q->from == mb && q->to == ma)))
			continue;
		pr->limit_gb_per_s = q->gb_per_s;
		gf_link_format(&q->link, pr->link, sizeof(pr->link));
		snprintf(pr->limit_text, sizeof(pr->limit_text), "%s", q->gb_per_s > 0 ? q->limit_text : "link rate unknown");
	}
}

/* Peer access each way (nvbandwidth's DeviceBuffer::enablePeerAcess:
 * asked once, enabled both ways); a pair without it is reported, not
 * measured, as nvbandwidth leaves its cell N/A. */
static int peer_of(struct gf_bench_p2p *p, unsigned a, unsigned b, bool *ok)
{
	struct gf_p2p_gpu *ga = &p->gpus[a], *gb = &p->gpus[b];
	const struct gf_cuda_ops *o = ga->dev.ops;
	int can_ab = 0, can_ba = 0, rc;
	gf_cu_result r;

	*ok = false;
	if ((rc = gf_cuda_check(o, o->device_can_access_peer(&can_ab, ga->dev.dev, gb->dev.dev), "cuDeviceCanAccessPeer")) ||
	    (rc = gf_cuda_check(o, o->device_can_access_peer(&can_ba, gb->dev.dev, ga->dev.dev), "cuDeviceCanAccessPeer")))
		return rc;
	if (!can_ab || !can_ba)
		return 0;
	if ((rc = gf_cuda_dev_make_current(&ga->dev)))
		return rc;
	r = o->ctx_enable_peer_access(gb->dev.ctx, 0);
	if (r != GF_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED && (rc = gf_cuda_check(o, r, "cuCtxEnablePeerAccess")))
		return rc;
	if ((rc = gf_cuda_dev_make_current(&gb->dev)))
		return rc;
	r = o->ctx_enable_peer_access(ga->dev.ctx, 0);
	if (r != GF_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED && (rc = gf_cuda_check(o, r, "cuCtxEnablePeerAccess")))
		return rc;
	*ok = true;
	return 0;
}

static int open_gpus(struct gf_bench_p2p *p)
{
	struct gf_cpuset want;
	int rc;

	if ((rc = gf_gpu_bench_wanted(p->o.gpus, &want)))
		return rc;
	p->gpus = calloc(gf_cpuset_count(&want), sizeof(*p->gpus));
	if (!p->gpus)
		return gf_error(-ENOMEM, "bench p2p: out of memory");
	for (int i = gf_cpuset_first(&want); i >= 0; i = gf_cpuset_next(&want, i)) {
		struct gf_p2p_gpu *g = &p->gpus[p->ngpus++];

		g->index = (unsigned)i;
		if ((rc = gf_gpu_bench_open(g->index, &g->dev)))
			return rc;
		g->open = true;
		if ((rc = gf_p2p_gpu_setup(g)))
			return gf_error(rc, "GPU %u (%s): %s", g->index, g->dev.pci, gf_last_error());
		g->topo_mi = matrix_index(p->topo, g);
	}
	p->pairs = calloc((size_t)p->ngpus * p->ngpus, sizeof(*p->pairs));
	if (!p->pairs)
		return gf_error(-ENOMEM, "bench p2p: out of memory");
	for (unsigned a = 0; a < p->ngpus; a++)
		for (unsigned b = 0; b < p->ngpus; b++) {
			struct gf_p2p_pair *pr = &p->pairs[a * p->ngpus + b];

			limit_of(p, a, b, pr);
			if (a == b) {
				pr->peer = true;
			} else if (b > a) {
				if ((rc = peer_of(p, a, b, &pr->peer)))
					return gf_error(rc, "GPU %u and GPU %u: %s", p->gpus[a].index, p->gpus[b].index,
							gf_last_error());
			} else {
				pr->peer = p->pairs[b * p->ngpus + a].peer;
			}
		}
	return 0;
}

static void add(struct gf_bench_p2p *p, enum gf_p2p_test t, enum gf_p2p_copy c, unsigned src, unsigned dst,
		uint64_t size)
{
	p->points[p->npoints++] = (struct gf_p2p_point){ .test = t, .copy = c, .src = src, .dst = dst, .size = size };
}

/* A buffer set's points together (one (src, dst, size): every test and
 * copy kind), then the latency points, one chain each. */
static int make_points(struct gf_bench_p2p *p)
{
	unsigned n = p->ngpus, max = n * n * (p->nsizes * GF_P2P_TESTS * GF_P2P_COPIES + 1);

	p->points = calloc(max, sizeof(*p->points));
	p->res = calloc(max, sizeof(*p->res));
	p->flags = calloc(max, sizeof(*p->flags));
	if (!p->points || !p->res || !p->flags)
		return gf_error(-ENOMEM, "bench p2p: out of memory");
	for (unsigned s = 0; s < n; s++)
		for (unsigned d = 0; d < n; d++)
			for (unsigned si = 0; si < p->nsizes && p->pairs[s * n + d].peer; si++)
				for (int c = 0; c < GF_P2P_COPIES; c++)
					for (int t = 0; t < GF_P2P_LATENCY && p->copies[c]; t++)
						if (p->tests[t] && (t == GF_P2P_LOCAL) == (s == d))
							add(p, (enum gf_p2p_test)t, (enum gf_p2p_copy)c, s, d, p->sizes[si]);
	for (unsigned m = 0; m < n && p->tests[GF_P2P_LATENCY]; m++)
		for (unsigned r = 0; r < n; r++)
			if (p->pairs[m * n + r].peer)
				add(p, GF_P2P_LATENCY, GF_P2P_SM, m, r, GF_P2P_CHASE_BYTES);
	return 0;
}

static int op_prepare(void *ctx, unsigned i)
{
	struct gf_bench_p2p *p = ctx;
	const struct gf_p2p_point *pt = &p->points[i];

	return pt->test == GF_P2P_LATENCY ? gf_p2p_chain_for(p, pt) : gf_p2p_bufs_for(p, pt);
}

static int op_sample(void *ctx, unsigned i, double *value)
{
	struct gf_bench_p2p *p = ctx;
	struct gf_p2p_point *pt = &p->points[i];

	return pt->test == GF_P2P_LATENCY ? gf_p2p_chase(p, pt, value) : gf_p2p_sample(p, pt, value);
}

void gf_p2p_label(const struct gf_bench_p2p *p, unsigned i, char *buf, size_t size)
{
	const struct gf_p2p_point *pt = &p->points[i];

	if (pt->test == GF_P2P_LATENCY)
		snprintf(buf, size, "latency, GPU %u reading GPU %u", p->gpus[pt->dst].index, p->gpus[pt->src].index);
	else
		snprintf(buf, size, "%s %s, GPU %u -> GPU %u, %llu MiB", gf_p2p_test_name(pt->test),
			 gf_p2p_copy_name(pt->copy), p->gpus[pt->src].index, p->gpus[pt->dst].index,
			 (unsigned long long)(pt->size >> 20));
}

static void op_label(void *ctx, unsigned i, char *buf, size_t size)
{
	gf_p2p_label(ctx, i, buf, size);
}

static const struct gf_bench_ops p2p_ops = {
	.prepare = op_prepare, .sample = op_sample, .label = op_label,
};

static void release(struct gf_bench_p2p *p)
{
	gf_p2p_bufs_free(p);
	gf_p2p_chain_free(p);
	for (unsigned i = 0; i < p->ngpus; i++)
		gf_p2p_gpu_teardown(&p->gpus[i]);
}

int gf_bench_p2p_run(const struct gf_bench_p2p_opts *opts, const struct gf_bench_env *env,
		     struct gf_bench_p2p **out)
{
	struct gf_runner_opts ro = { .name = "gpufeed bench p2p", .warmup = 1 };
	struct gf_bench_p2p *p;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !env || !env->model)
		return gf_error(-EINVAL, "bench p2p: no %s", !out ? "place for the results" : "machine model");
	if ((rc = gf_bench_p2p_check(opts)))
		return rc;
	p = calloc(1, sizeof(*p));
	if (!p)
		return gf_error(-ENOMEM, "bench p2p: out of memory");
	p->o = *opts;
	p->o.repeats = opts->repeats ? opts->repeats : opts->quick ? 3 : 5;
	p->o.loops = opts->loops ? opts->loops : GF_P2P_LOOPS;
	p->hops = opts->quick ? GF_P2P_CHASE_HOPS_QUICK : GF_P2P_CHASE_HOPS;
	parse_names("test", opts->tests, test_names, GF_P2P_TESTS, p->tests);
	parse_names("copy", opts->copies, copy_names, GF_P2P_COPIES, p->copies);
	if (opts->sizes)
		gf_gpu_bench_parse_sizes(opts->sizes, p->sizes, GF_BENCH_P2P_SIZES_MAX, &p->nsizes);
	else
		p->sizes[p->nsizes++] = opts->quick ? GF_P2P_SIZE_QUICK : GF_P2P_SIZE;
	p->topo = env->model;
	if ((rc = open_gpus(p)) || (rc = make_points(p)))
		goto fail;
	ro.repeats = p->o.repeats;
	gf_bench_env_runner(env, &ro);
	rc = gf_runner_run(&p2p_ops, p, p->npoints, &ro, p->res);
	release(p);
	if (rc)
		goto fail;
	gf_p2p_sanity(p);
	*out = p;
	return 0;
fail:
	gf_bench_p2p_free(p);
	return rc;
}

void gf_bench_p2p_free(struct gf_bench_p2p *p)
{
	if (!p)
		return;
	if (p->gpus)
		release(p);
	gf_runner_points_free(p->res, p->npoints);
	free(p->gpus);
	free(p->pairs);
	free(p->res);
	free(p->points);
	free(p->flags);
	free(p);
}

/* ---- the target, as the frame sees it ---- */

GF_BENCH_RESULTS_DEFINE(gf_bench_p2p, struct gf_bench_p2p)

static int p2p_check(const void *opts, const char *operand)
{
	(void)operand;
	return gf_bench_p2p_check(opts);
}

static int p2p_run(const void *opts, const char *operand, const struct gf_bench_env *env, void **res)
{
	(void)operand;
	return gf_bench_p2p_run(opts, env, (struct gf_bench_p2p **)res);
}

static const struct gf_bench_opt_def p2p_opts[] = {
	GF_BENCH_FLAG("quick", "64 MiB buffers, 3 samples per figure, 100k loads\nper latency sample",
		      struct gf_bench_p2p_opts, quick),
	GF_BENCH_TEXT("gpu", "LIST", "the GPUs measured, by NVML index: 0,1 or 0-3\n(default: all)",
		      struct gf_bench_p2p_opts, gpus),
	GF_BENCH_TEXT("test", "LIST", "read, write, bidir-read, bidir-write, local,\nlatency or all (default: all)",
		      struct gf_bench_p2p_opts, tests),
	GF_BENCH_TEXT("copy", "LIST", "ce (copy engine), sm (copy kernel) or both\n(default: ce,sm)",
		      struct gf_bench_p2p_opts, copies),
	GF_BENCH_TEXT("size", "SIZE", "bytes of each copy (default 512M, nvbandwidth's;\n--quick 64M)",
		      struct gf_bench_p2p_opts, sizes),
	GF_BENCH_TEXT("sizes", "LIST", "a size sweep: 4M,64M,512M", struct gf_bench_p2p_opts, sizes),
	GF_BENCH_COUNT("repeats", "N", "samples per figure after a warm-up (default 5,\n--quick 3)",
		       struct gf_bench_p2p_opts, repeats, 1, GF_BENCH_P2P_REPEATS_MAX),
	GF_BENCH_COUNT("loops", "N", "copies timed per sample (default 16, nvbandwidth's)", struct gf_bench_p2p_opts,
		       loops, 1, GF_BENCH_P2P_LOOPS_MAX),
	GF_BENCH_OPTS_END,
};

const struct gf_bench_def gf_bench_p2p_def = {
	.pub = {
		.name = "p2p",
		.summary = "GPU x GPU copy bandwidth and latency, like nvbandwidth's d2d tests",
		.description =
			"Measures copies between every pair of GPUs with peer access: read (the\n"
			"destination GPU pulls), write (the source GPU pushes), each alone and\n"
			"while the reverse copy runs at once (bidirectional), by copy engine\n"
			"(cuMemcpyPeerAsync) and by SM copy kernel; each GPU's local copy (the\n"
			"diagonal, nvbandwidth's device_local_copy); and the latency of one\n"
			"thread's dependent loads from a peer's memory.  A sample is --loops copies\n"
			"queued behind a spin kernel and timed with CUDA events, as nvbandwidth's\n"
			"device_to_device_* testcases; GB/s is 1e9 bytes/s, bytes counted once.\n"
			"Each figure is shown beside its path's theoretical bandwidth from the\n"
			"machine model (NVLink or PCIe) and as a percentage of it; the bytes of\n"
			"one sample of every point are checked.  A pair without peer access is\n"
			"reported as n/a, not measured.  On one GPU only the diagonal runs.\n",
		.schema = GF_BENCH_P2P_SCHEMA,
		.exits = { "", "a figure above its path's limit (a measurement error), a\n"
			   "failed measurement or a byte check that failed",
			   "", "the machine model cannot be read; writing the output failed; Ctrl-C",
			   "no CUDA driver (libcuda.so.1) or NVML, no GPU, or --gpu\n"
			   "names one this machine lacks" },
		.footer = "How it measures and its JSON: docs/bench-p2p.md, docs/json-bench-p2p.md.\n",
	},
	.opts = p2p_opts,
	.opts_size = sizeof(struct gf_bench_p2p_opts),
	.check = p2p_check,
	.run = p2p_run,
	GF_BENCH_RESULTS(gf_bench_p2p),
};
