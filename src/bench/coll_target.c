/* `bench coll` as a runner target: the GPUs (NVML indexes, handed to the
 * communicators by PCI address), single process or one rank of a launched
 * job, the sizes of the sweep, the ring's limit in the machine model, and
 * one runner point per size. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/cpuset.h>
#include "bench/coll_bench.h"
#include "bench/gpu_bench.h"
#include "core/error.h"

/* "all" is every GPU, as no --gpus is. */
static const char *gpu_list(const char *gpus)
{
	return gpus && !strcmp(gpus, "all") ? NULL : gpus;
}

/* The sweep nccl-tests' -b/-e/-f/-i would walk. */
static unsigned sweep(const struct gf_bench_coll_opts *o, uint64_t *out, unsigned max)
{
	unsigned factor = o->step_factor, n;

	if (!factor && !o->step_bytes)
		factor = 2;
	n = gf_coll_sizes(o->min_bytes, o->max_bytes, factor, factor ? 0 : o->step_bytes, out, max);
	return n;
}

int gf_bench_coll_check(const struct gf_bench_coll_opts *o)
{
	enum gf_coll_op op;
	gf_nccl_datatype t;
	gf_nccl_redop r;
	unsigned n;
	int rc;

	if (!o)
		return gf_error(-EINVAL, "bench coll: no options");
	if ((o->op && (rc = gf_coll_op_parse(o->op, &op))) || (o->dtype && (rc = gf_coll_dtype_parse(o->dtype, &t))) ||
	    (o->redop && (rc = gf_coll_redop_parse(o->redop, &r))) || (rc = gf_gpu_bench_check_gpus(gpu_list(o->gpus))))
		return rc;
	if (o->min_bytes > o->max_bytes)
		return gf_error(-EINVAL, "--min-bytes %llu is above --max-bytes %llu", (unsigned long long)o->min_bytes,
				(unsigned long long)o->max_bytes);
	if (o->step_factor && o->step_bytes)
		return gf_error(-EINVAL, "--step-factor and --step-bytes: give one (nccl-tests' -f or -i)");
	if (o->step_factor == 1)
		return gf_error(-EINVAL, "--step-factor 1 never moves the size: give 2 or more, or --step-bytes");
	n = sweep(o, NULL, 0);
	if (n > GF_BENCH_COLL_POINTS_MAX)
		return gf_error(-ERANGE, "--min-bytes to --max-bytes: %u sizes, at most %u", n, GF_BENCH_COLL_POINTS_MAX);
	return 0;
}

/* The GPUs of --gpus (every GPU without it): their PCI addresses. */
static int gpus_of(struct gf_bench_coll *p, char (**pcis)[16], unsigned **idx, int *n)
{
	struct gf_cpuset want;
	int rc;

	*n = 0;
	if ((rc = gf_gpu_bench_wanted(gpu_list(p->o.gpus), &want)))
		return rc;
	*pcis = calloc(gf_cpuset_count(&want), sizeof(**pcis));
	*idx = calloc(gf_cpuset_count(&want), sizeof(**idx));
	if (!*pcis || !*idx)
		return gf_error(-ENOMEM, "bench coll: out of memory");
	for (int i = gf_cpuset_first(&want); i >= 0; i = gf_cpuset_next(&want, i)) {
		struct gf_cuda_dev d;

		if ((rc = gf_gpu_bench_open((unsigned)i, &d)))
			return rc;
		snprintf((*pcis)[*n], sizeof((*pcis)[*n]), "%s", d.pci);
		(*idx)[(*n)++] = (unsigned)i;
		gf_cuda_dev_close(&d);
	}
	return 0;
}

/* The ring's narrowest link: consecutive ranks' GPUs, the last to the
 * first, each pair's path in the model. */
static void ring_limit(struct gf_bench_coll *p, char (*pcis)[16], int n)
{
	struct gf_coll_limit *l = &p->limit;

	snprintf(l->text, sizeof(l->text), "%s", n < 2 ? "one rank: no link between GPUs" : "not in the machine model");
	l->gb_per_s = 0;
	for (int i = 0; i < n && n > 1; i++) {
		const struct gf_path *q = gf_gpu_bench_path(p->topo, pcis[i], pcis[(i + 1) % n]);
		char link[16] = "";

		if (!q || q->gb_per_s <= 0) {
			snprintf(l->text, sizeof(l->text), "%s-%s: %s", pcis[i], pcis[(i + 1) % n],
				 q ? "link rate unknown" : "not in the machine model");
			l->gb_per_s = 0;
			return;
		}
		if (l->gb_per_s > 0 && q->gb_per_s >= l->gb_per_s)
			continue;
		l->gb_per_s = q->gb_per_s;
		gf_link_format(&q->link, link, sizeof(link));
		snprintf(l->text, sizeof(l->text), "%s %s-%s: %s", link, pcis[i], pcis[(i + 1) % n], q->limit_text);
	}
}

/* One rank's GPU without --gpus: the LOCAL_RANK'th GPU CUDA shows, or
 * the only one where the launcher gave each rank its own
 * (CUDA_VISIBLE_DEVICES, as gpufeed launch and torchrun users do). */
static int launched_gpu(struct gf_bench_coll *p)
{
	int ord, rc;

	if ((rc = gf_gpu_bench_launched(p->world.rank, p->world.local_rank, p->pcis[0], &ord)))
		return rc;
	p->indexes[0] = (unsigned)ord;
	return 0;
}

/* This process's GPUs: every one chosen (single process), or one rank's:
 * the LOCAL_RANK'th of --gpus, or launched_gpu's. */
static int choose_gpus(struct gf_bench_coll *p)
{
	char (*all)[16] = NULL;
	unsigned *idx = NULL;
	int n, rc;

	if (p->multi && !gpu_list(p->o.gpus)) {
		p->pcis = calloc(1, sizeof(*p->pcis));
		p->indexes = calloc(1, sizeof(*p->indexes));
		p->ngpus = 1;
		if (!p->pcis || !p->indexes)
			return gf_error(-ENOMEM, "bench coll: out of memory");
		return launched_gpu(p);
	}
	if ((rc = gpus_of(p, &all, &idx, &n)))
		goto out;
	if (!p->multi) {
		p->pcis = all;
		p->indexes = idx;
		p->ngpus = n;
		return 0;
	}
	if (p->world.local_rank >= n) {
		rc = gf_error(-ENODEV, "rank %d: local rank %d has no GPU (%d chosen on this host)", p->world.rank,
			      p->world.local_rank, n);
		goto out;
	}
	if (!(p->pcis = calloc(1, sizeof(*p->pcis))) || !(p->indexes = calloc(1, sizeof(*p->indexes)))) {
		rc = gf_error(-ENOMEM, "bench coll: out of memory");
		goto out;
	}
	memcpy(p->pcis[0], all[p->world.local_rank], sizeof(p->pcis[0]));
	p->indexes[0] = idx[p->world.local_rank];
	p->ngpus = 1;
out:
	free(all);
	free(idx);
	return rc;
}

/* Every rank's GPU, in rank order (rank 0 gathers them in a job), and the
 * ring's limit from them when every rank is on this host. */
static int ring_of(struct gf_bench_coll *p)
{
	if (!(p->ring = calloc((size_t)p->nranks, sizeof(*p->ring))))
		return gf_error(-ENOMEM, "bench coll: out of memory");
	if (!p->multi) {
		memcpy(p->ring, p->pcis, (size_t)p->nranks * sizeof(*p->ring));
	} else {
		int rc = gf_coll_ctl_gather(p->comm->ctl, p->pcis[0], p->rank == 0 ? p->ring : NULL,
					    sizeof(p->pcis[0]), p->o.timeout_s, "GPU addresses");

		if (rc)
			return rc;
		if (p->world.local_nranks != p->world.nranks) {
			snprintf(p->limit.text, sizeof(p->limit.text),
				 "ranks on several hosts: the network is not modelled");
			return 0;
		}
	}
	if (p->rank == 0)
		ring_limit(p, p->ring, p->nranks);
	return 0;
}

/* What NCCL chose for size i: its choice line caught around one more call
 * of that size, after the timed passes, so that the log costs them
 * nothing.  Every rank makes the call (it is a collective); rank 0's
 * process is the one NCCL logs it in.  The first capture that cannot
 * start says why for every row, and no other is tried. */
static int choice_of(struct gf_bench_coll *p, unsigned i)
{
	struct gf_nccl_choice got[8];
	struct gf_nccl_tuning *t = NULL;
	unsigned long long bytes = (unsigned long long)p->res[i].count * gf_coll_dtype_size(p->dtype);
	int rc, n;

	if (p->op == GF_COLL_ALLTOALL || p->op == GF_COLL_SENDRECV)
		return 0;	/* ncclSend/ncclRecv: NCCL logs no choice */
	if (p->rank == 0 && !p->choice_why[0] && gf_nccl_tuning_begin(NULL, &t))
		snprintf(p->choice_why, sizeof(p->choice_why), "%s", gf_last_error());
	rc = gf_coll_run_once(p->run, p->sizes[i]);
	n = gf_nccl_tuning_end(t, got, (int)(sizeof(got) / sizeof(got[0])));
	if (rc)
		return rc;
	if (n < 0)
		snprintf(p->choice_why, sizeof(p->choice_why), "%s", gf_last_error());
	for (int k = 0; k < n && k < (int)(sizeof(got) / sizeof(got[0])); k++)
		if (got[k].bytes == bytes)
			p->choice[i] = got[k];
	return 0;
}

static int op_sample(void *ctx, unsigned i, double *value)
{
	struct gf_bench_coll *p = ctx;
	int rc;

	if (p->failed)		/* the communicators went with the first failure */
		return gf_error(p->failed, "not run: an earlier size failed");
	rc = gf_coll_run_point(p->run, p->sizes[i], &p->res[i]);
	if (!rc)
		rc = choice_of(p, i);
	if (rc) {
		p->failed = rc;
		return rc;
	}
	*value = p->res[i].busbw;
	return 0;
}

static void op_label(void *ctx, unsigned i, char *buf, size_t size)
{
	struct gf_bench_coll *p = ctx;

	snprintf(buf, size, "%s %llu bytes", gf_coll_op_name(p->op), (unsigned long long)p->sizes[i]);
}

static const struct gf_bench_ops coll_ops = { .sample = op_sample, .label = op_label };

static int measure(struct gf_bench_coll *p, const struct gf_bench_env *env)
{
	struct gf_runner_opts ro = { .name = "gpufeed bench coll", .repeats = 1 };
	struct gf_coll_comm_opts co = { .npcis = p->ngpus, .world = p->multi ? &p->world : NULL,
					.timeout_s = p->o.timeout_s };
	struct gf_coll_run_opts rop = { .op = p->op, .dtype = p->dtype, .redop = p->redop, .root = (int)p->o.root,
					.in_place = p->o.in_place, .iters = p->o.iters,
					.warmup_iters = p->o.warmup_iters, .check = p->o.check };
	struct gf_runner_point *pts;
	const char **pcis = calloc((size_t)p->ngpus, sizeof(*pcis));
	int rc;

	if (!pcis || !(pts = calloc(p->nsizes, sizeof(*pts)))) {
		free(pcis);
		return gf_error(-ENOMEM, "bench coll: out of memory");
	}
	for (int i = 0; i < p->ngpus; i++)
		pcis[i] = p->pcis[i];
	co.pcis = pcis;
	rop.max_bytes = p->sizes[p->nsizes - 1];
	if ((rc = gf_coll_comm_open(&co, &p->comm)))
		goto out;
	p->nranks = p->comm->nranks;
	p->rank = p->comm->gpu[0].rank;
	p->nccl_version = p->comm->nccl_version;
	snprintf(p->nccl_library, sizeof(p->nccl_library), "%s", gf_nccl_library());
	snprintf(p->gpu_name, sizeof(p->gpu_name), "%s", p->comm->gpu[0].dev.name);
	if (gf_coll_op_rooted(p->op) && (int)p->o.root >= p->nranks) {
		rc = gf_error(-EDOM, "--root-rank %u: the job has ranks 0 to %d", p->o.root, p->nranks - 1);
		goto out;
	}
	if ((rc = ring_of(p)) || (rc = gf_coll_run_open(p->comm, &rop, &p->run)))
		goto out;
	gf_bench_env_runner(env, &ro);
	if (p->rank != 0)
		ro.progress = NULL;	/* rank 0 speaks for the job */
	rc = gf_runner_run(&coll_ops, p, p->nsizes, &ro, pts);
	for (unsigned i = 0; !rc && i < p->nsizes; i++)
		if (pts[i].status) {
			rc = gf_error(pts[i].status, "%s", pts[i].error);
			break;
		}
out:
	{
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", gf_last_error());
		/* the other ranks hear of it rather than wait for this one */
		if (rc && p->comm && p->comm->ctl)
			gf_coll_ctl_abort(p->comm->ctl, msg);
		gf_coll_run_close(p->run);
		p->run = NULL;
		gf_coll_comm_close(p->comm);
		p->comm = NULL;
		if (rc)
			gf_error(rc, "%s", msg);
	}
	gf_runner_points_free(pts, p->nsizes);
	free(pts);
	free(pcis);
	return rc;
}

int gf_bench_coll_run(const struct gf_bench_coll_opts *opts, const struct gf_bench_env *env,
		      struct gf_bench_coll **out)
{
	struct gf_bench_coll *p;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !env || !env->model)
		return gf_error(-EINVAL, "bench coll: no %s", !out ? "place for the results" : "machine model");
	if ((rc = gf_bench_coll_check(opts)))
		return rc;
	if (!(p = calloc(1, sizeof(*p))))
		return gf_error(-ENOMEM, "bench coll: out of memory");
	p->o = *opts;
	p->topo = env->model;
	gf_coll_op_parse(opts->op ? opts->op : "all_reduce", &p->op);
	gf_coll_dtype_parse(opts->dtype ? opts->dtype : "float", &p->dtype);
	gf_coll_redop_parse(opts->redop ? opts->redop : "sum", &p->redop);
	p->nsizes = sweep(opts, NULL, 0);
	if (!(p->sizes = calloc(p->nsizes, sizeof(*p->sizes))) || !(p->res = calloc(p->nsizes, sizeof(*p->res))) ||
	    !(p->choice = calloc(p->nsizes, sizeof(*p->choice)))) {
		rc = gf_error(-ENOMEM, "bench coll: out of memory");
		goto fail;
	}
	sweep(opts, p->sizes, p->nsizes);
	if (p->op == GF_COLL_ALLTOALL || p->op == GF_COLL_SENDRECV)
		snprintf(p->choice_why, sizeof(p->choice_why),
			 "NCCL logs no algorithm for point-to-point operations (ncclSend/ncclRecv)");
	rc = gf_coll_world_from_env(&p->world);
	if (rc && rc != -ENOENT)
		goto fail;
	p->multi = !rc;
	if ((rc = choose_gpus(p)) || (rc = measure(p, env)))
		goto fail;
	*out = p;
	return 0;
fail:
	gf_bench_coll_free(p);
	return rc;
}

void gf_bench_coll_free(struct gf_bench_coll *p)
{
	if (!p)
		return;
	for (unsigned i = 0; p->res && i < p->nsizes; i++)
		gf_coll_result_free(&p->res[i]);
	free(p->res);
	free(p->choice);
	free(p->sizes);
	free(p->pcis);
	free(p->ring);
	free(p->indexes);
	free(p);
}

/* ---- the target, as the frame sees it ---- */

GF_BENCH_RESULTS_DEFINE(gf_bench_coll, struct gf_bench_coll)

static void coll_init(void *opts)
{
	struct gf_bench_coll_opts *o = opts;

	/* nccl-tests' defaults: -b 32M -e 32M -n 20 -w 1 (here 1M..1G by 2s) */
	o->min_bytes = 1ull << 20;
	o->max_bytes = 1ull << 30;
	o->iters = 20;
	o->warmup_iters = 5;
	o->timeout_s = GF_BENCH_COLL_TIMEOUT_S;
}

static int coll_check(const void *opts, const char *operand)
{
	(void)operand;
	return gf_bench_coll_check(opts);
}

static int coll_run(const void *opts, const char *operand, const struct gf_bench_env *env, void **res)
{
	(void)operand;
	return gf_bench_coll_run(opts, env, (struct gf_bench_coll **)res);
}

static const struct gf_bench_opt_def coll_opts[] = {
	GF_BENCH_TEXT("op", "OP", "all_reduce, all_gather, reduce_scatter, broadcast,\n"
		      "reduce, alltoall or sendrecv (default all_reduce)", struct gf_bench_coll_opts, op),
	GF_BENCH_TEXT("gpus", "LIST", "the GPUs, by NVML index: 0,1 or 0-3, or all\n(default: all); one rank each "
		      "in this order", struct gf_bench_coll_opts, gpus),
	GF_BENCH_SIZE("min-bytes", "SIZE", "the sweep's first size (nccl-tests -b; default 1M)",
		      struct gf_bench_coll_opts, min_bytes, 0, 0),
	GF_BENCH_SIZE("max-bytes", "SIZE", "the sweep's last size (nccl-tests -e; default 1G)",
		      struct gf_bench_coll_opts, max_bytes, 0, 0),
	GF_BENCH_COUNT("step-factor", "N", "multiply the size by N each step (nccl-tests -f;\ndefault 2)",
		       struct gf_bench_coll_opts, step_factor, 1, 1024),
	GF_BENCH_SIZE("step-bytes", "SIZE", "add SIZE each step instead (nccl-tests -i)", struct gf_bench_coll_opts,
		      step_bytes, 1, 0),
	GF_BENCH_COUNT("iters", "N", "timed iterations per size (nccl-tests -n; default 20)",
		       struct gf_bench_coll_opts, iters, 1, GF_BENCH_COLL_ITERS_MAX),
	GF_BENCH_COUNT("warmup-iters", "N", "untimed iterations first (nccl-tests -w; default 5)",
		       struct gf_bench_coll_opts, warmup_iters, 0, GF_BENCH_COLL_ITERS_MAX),
	GF_BENCH_COUNT("check", "N", "after timing, N iterations on known inputs and\nthe wrong elements counted "
		       "(nccl-tests -c; default 0)", struct gf_bench_coll_opts, check, 0, 1000),
	GF_BENCH_TEXT("dtype", "TYPE", "float (default), half, bfloat16, double, int8,\nuint8, int32, uint32, int64, "
		      "uint64, f8e4m3, f8e5m2", struct gf_bench_coll_opts, dtype),
	GF_BENCH_TEXT("redop", "OP", "sum (default), prod, max, min or avg",
		      struct gf_bench_coll_opts, redop),
	GF_BENCH_COUNT("root-rank", "RANK", "the root of broadcast and reduce (default 0)", struct gf_bench_coll_opts, root,
		       0, 1u << 20),
	GF_BENCH_FLAG("in-place", "the output buffer is also the input (nccl-tests'\nin-place column)",
		      struct gf_bench_coll_opts, in_place),
	GF_BENCH_DURATION("timeout", "D", "give up on any wait after D, naming the GPU and\nrank (default 5m)",
			  struct gf_bench_coll_opts, timeout_s, 86400),
	GF_BENCH_OPTS_END,
};

const struct gf_bench_def gf_bench_coll_def = {
	.pub = {
		.name = "coll",
		.summary = "NCCL collectives' algbw and busbw, like nccl-tests",
		.description =
			"Measures one NCCL collective over a sweep of sizes as nccl-tests does\n"
			"(its element counts, its timing: the wall-clock average of --iters\n"
			"back-to-back launches until every stream is done, averaged over the\n"
			"ranks; its algbw and busbw formulas), with each iteration's time from\n"
			"CUDA events (p50, p99), the slowest rank, an optional data check, and\n"
			"busbw as a percentage of the ring's narrowest link in the machine\n"
			"model (NVLink, else the PCIe path), and the algorithm, protocol and\n"
			"channels NCCL chose (its TUNING log of one more, untimed call per size;\n"
			"NCCL 2.24 and later, collectives only).  One process drives every chosen\n"
			"GPU, one rank each; under a launcher (gpufeed launch, torchrun, srun,\n"
			"mpirun: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT...) each process is\n"
			"one rank on its LOCAL_RANK'th GPU, the NCCL unique id exchanged over\n"
			"TCP, and only rank 0 prints.  NCCL is loaded at run time\n"
			"(GPUFEED_NCCL_LIBRARY, NCCL_LIBRARY, the linker's path, PyTorch's).\n",
		.schema = GF_BENCH_COLL_SCHEMA,
		.exits = { "", "wrong elements in the data check, or a busbw above\nthe ring's limit (a measurement "
			   "error)",
			   "", "a rank failed, timed out or has another NCCL version;\nthe machine model cannot be "
			   "read; writing the output\nfailed; Ctrl-C",
			   "no NCCL (libnccl.so.2), no CUDA driver, no NVML, no\nGPU, or --gpus names one this "
			   "machine lacks" },
		.footer = "How it measures, its formulas and JSON: docs/coll.md.\n",
	},
	.opts = coll_opts,
	.opts_size = sizeof(struct gf_bench_coll_opts),
	.init = coll_init,
	.check = coll_check,
	.run = coll_run,
	GF_BENCH_RESULTS(gf_bench_coll),
};
