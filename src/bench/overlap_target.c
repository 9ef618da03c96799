/* `bench overlap` as a runner target: the options, the points (each bucket
 * size's four modes), and the run around the communicators. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gpu_bench.h"
#include "bench/overlap_bench.h"
#include "core/error.h"

#define GRAD_DEFAULT (1ull << 30)
#define GRAD_QUICK (256ull << 20)
#define BUCKETS_QUICK "5M,25M,all"
#define COMPUTE_MS_DEFAULT 20u
#define COMPUTE_MS_MAX 60000u
#define REPEATS_MAX 10000u
#define BLOCKS_MAX 65535u
#define TIMEOUT_DEFAULT_S 60.0

int gf_bench_overlap_check(const struct gf_bench_overlap_opts *opts)
{
	uint64_t sizes[GF_OVERLAP_CONFIGS_MAX];
	struct gf_overlap_plan p;
	uint64_t grad;
	unsigned n;
	int rc;

	if (!opts)
		return gf_error(-EINVAL, "bench overlap: no options");
	grad = opts->grad_bytes ? opts->grad_bytes : opts->quick ? GRAD_QUICK : GRAD_DEFAULT;
	if (grad < GF_OVERLAP_GRAD_MIN || grad > GF_OVERLAP_GRAD_MAX || grad % GF_OVERLAP_ELEM)
		return gf_error(-ERANGE, "--grad-bytes: %llu is not a multiple of %u bytes from 4K to 64G",
				(unsigned long long)grad, GF_OVERLAP_ELEM);
	if ((rc = gf_gpu_bench_check_gpus(opts->gpus)))
		return rc;
	if ((rc = gf_overlap_parse_buckets(opts->buckets ? opts->buckets
					   : opts->quick ? BUCKETS_QUICK : GF_OVERLAP_BUCKETS_DEFAULT,
					   grad, sizes, GF_OVERLAP_CONFIGS_MAX, &n)))
		return rc;
	for (unsigned i = 0; i < n; i++)
		if ((rc = gf_overlap_plan(grad, sizes[i], &p)))
			return rc;
	if (opts->compute_ms > COMPUTE_MS_MAX || opts->repeats > REPEATS_MAX || opts->compute_blocks > BLOCKS_MAX)
		return gf_error(-ERANGE, "bench overlap: --compute-ms, --repeats or --compute-blocks out of range");
	return 0;
}

static int op_sample(void *ctx, unsigned i, double *value)
{
	return gf_overlap_iteration(ctx, i, value);
}

static void op_label(void *ctx, unsigned i, char *buf, size_t size)
{
	struct gf_bench_overlap *b = ctx;
	const struct gf_overlap_point *pt = &b->points[i];
	const struct gf_overlap_plan *p = &b->plans[pt->config];

	snprintf(buf, size, "%s, %u bucket%s of %llu MiB", gf_overlap_mode_name(pt->mode), p->nbuckets,
		 p->nbuckets == 1 ? "" : "s", (unsigned long long)(p->bucket_bytes >> 20));
}

static const struct gf_bench_ops overlap_ops = { .sample = op_sample, .label = op_label };

int gf_bench_overlap_run(const struct gf_bench_overlap_opts *opts, const struct gf_bench_env *env,
			 struct gf_bench_overlap **out)
{
	struct gf_runner_opts ro = { .name = "gpufeed bench overlap" };
	struct gf_bench_overlap *b;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !env || !env->model)
		return gf_error(-EINVAL, "bench overlap: no %s", !out ? "place for the results" : "machine model");
	if ((rc = gf_bench_overlap_check(opts)))
		return rc;
	b = calloc(1, sizeof(*b));
	if (!b)
		return gf_error(-ENOMEM, "bench overlap: out of memory");
	b->o = *opts;
	b->topo = env->model;
	if (!b->o.grad_bytes)
		b->o.grad_bytes = b->o.quick ? GRAD_QUICK : GRAD_DEFAULT;
	if (!b->o.buckets)
		b->o.buckets = b->o.quick ? BUCKETS_QUICK : GF_OVERLAP_BUCKETS_DEFAULT;
	b->o.compute_ms = b->o.compute_ms ? b->o.compute_ms : COMPUTE_MS_DEFAULT;
	b->o.compute_blocks = b->o.compute_blocks ? b->o.compute_blocks : 1;
	b->o.repeats = b->o.repeats ? b->o.repeats : b->o.quick ? 3 : 10;
	b->o.warmup = b->o.warmup ? b->o.warmup : 2;
	b->o.timeout_s = b->o.timeout_s > 0 ? b->o.timeout_s : TIMEOUT_DEFAULT_S;
	gf_overlap_parse_buckets(b->o.buckets, b->o.grad_bytes, b->sizes, GF_OVERLAP_CONFIGS_MAX, &b->nconfigs);
	for (unsigned c = 0; c < b->nconfigs; c++)
		gf_overlap_plan(b->o.grad_bytes, b->sizes[c], &b->plans[c]);
	b->npoints = b->nconfigs * GF_OVERLAP_MODES;
	b->points = calloc(b->npoints, sizeof(*b->points));
	b->res = calloc(b->npoints, sizeof(*b->res));
	if (!b->points || !b->res) {
		rc = gf_error(-ENOMEM, "bench overlap: out of memory");
		goto fail;
	}
	for (unsigned i = 0; i < b->npoints; i++)
		b->points[i] = (struct gf_overlap_point){ .config = i / GF_OVERLAP_MODES,
							   .mode = (enum gf_overlap_mode)(i % GF_OVERLAP_MODES) };
	if ((rc = gf_overlap_open(b)))
		goto fail;
	ro.repeats = b->o.repeats;
	ro.warmup = b->o.warmup;
	gf_bench_env_runner(env, &ro);
	/* Only rank 0 reports progress: every rank runs the same points. */
	if (b->rank != 0)
		ro.progress = NULL;
	rc = gf_runner_run(&overlap_ops, b, b->npoints, &ro, b->res);
	gf_overlap_close(b);
	if (rc)
		goto fail;
	*out = b;
	return 0;
fail:
	gf_bench_overlap_free(b);
	return rc;
}

void gf_bench_overlap_free(struct gf_bench_overlap *b)
{
	if (!b)
		return;
	gf_overlap_close(b);
	if (b->res)
		gf_runner_points_free(b->res, b->npoints);
	free(b->res);
	free(b->points);
	free(b->pcis);
	free(b->cycles_per_ms);
	free(b->calibrated);
	free(b);
}

/* ---- the target, as the frame sees it ---- */

GF_BENCH_RESULTS_DEFINE(gf_bench_overlap, struct gf_bench_overlap)

static int overlap_check(const void *opts, const char *operand)
{
	(void)operand;
	return gf_bench_overlap_check(opts);
}

static int overlap_run(const void *opts, const char *operand, const struct gf_bench_env *env, void **res)
{
	(void)operand;
	return gf_bench_overlap_run(opts, env, (struct gf_bench_overlap **)res);
}

static const struct gf_bench_opt_def overlap_opts[] = {
	GF_BENCH_FLAG("quick", "256 MiB of gradients, buckets 5M,25M,all, 3 iterations",
		      struct gf_bench_overlap_opts, quick),
	GF_BENCH_TEXT("gpu", "LIST", "the GPUs of a single-process run, by NVML index:\n0,1 or 0-3 (default: all; "
		      "a launched rank takes\nits LOCAL_RANK'th GPU)", struct gf_bench_overlap_opts, gpus),
	GF_BENCH_SIZE("grad-bytes", "SIZE", "the model's gradient bytes, all-reduced as float32\n(default 1G; "
		      "--quick 256M)", struct gf_bench_overlap_opts, grad_bytes, GF_OVERLAP_GRAD_MIN, GF_OVERLAP_GRAD_MAX),
	GF_BENCH_TEXT("buckets", "LIST", "bucket sizes swept, 'all' = one bucket (default\n"
		      "1M,5M,10M,25M,50M,100M,all; DDP's bucket_cap_mb\ndefault is 25)", struct gf_bench_overlap_opts,
		      buckets),
	GF_BENCH_COUNT("compute-ms", "MS", "the compute phase of an iteration (default 20)",
		       struct gf_bench_overlap_opts, compute_ms, 1, COMPUTE_MS_MAX),
	GF_BENCH_COUNT("compute-blocks", "N", "spin-kernel blocks per bucket (default 1: one SM\nbusy, the others "
		       "left to NCCL)", struct gf_bench_overlap_opts, compute_blocks, 1, BLOCKS_MAX),
	GF_BENCH_COUNT("repeats", "N", "timed iterations per figure (default 10, --quick 3)",
		       struct gf_bench_overlap_opts, repeats, 1, REPEATS_MAX),
	GF_BENCH_COUNT("warmup", "N", "iterations dropped before each figure (default 2)",
		       struct gf_bench_overlap_opts, warmup, 1, 1000),
	GF_BENCH_DURATION("timeout", "DURATION", "longest wait for NCCL or a rank (default 60s)",
			  struct gf_bench_overlap_opts, timeout_s, 3600),
	GF_BENCH_OPTS_END,
};

const struct gf_bench_def gf_bench_overlap_def = {
	.pub = {
		.name = "overlap",
		.summary = "DDP's overlap of the gradients' all-reduce with the backward pass",
		.description =
			"Measures what PyTorch DDP gains by starting each gradient bucket's\n"
			"all-reduce while the backward pass still computes.  An iteration is a\n"
			"compute phase of --compute-ms (a spin kernel per bucket, its share by\n"
			"bytes) and an all-reduce (NCCL, float32, sum) of each bucket of\n"
			"--grad-bytes.  Four figures per bucket size, each the slowest GPU's and\n"
			"rank's time between CUDA events: compute alone, the all-reduces alone,\n"
			"serial (all compute, then all all-reduces, one stream) and overlapped\n"
			"(bucket i's all-reduce on a second stream once bucket i's compute\n"
			"ends, as DDP's reducer does); the overlap fraction is\n"
			"(serial - overlapped) / min(compute, all-reduces): 1 when the shorter\n"
			"phase is hidden entirely.  Runs in one process over every GPU (--gpu)\n"
			"or as one rank per GPU under gpufeed launch, torchrun, srun or mpirun.\n",
		.schema = GF_BENCH_OVERLAP_SCHEMA,
		.exits = { "", "a figure that failed",
			   "", "the machine model cannot be read; a rank failed or did not\n"
			   "join in time; writing the output failed; Ctrl-C",
			   "no CUDA driver (libcuda.so.1), NCCL (libnccl.so.2) or GPU" },
		.footer = "How it measures and its JSON: docs/bench-overlap.md.\n",
	},
	.opts = overlap_opts,
	.opts_size = sizeof(struct gf_bench_overlap_opts),
	.check = overlap_check,
	.run = overlap_run,
	GF_BENCH_RESULTS(gf_bench_overlap),
};
