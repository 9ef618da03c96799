/* What `gpufeed bench io` runs, decided from what was asked: defaults,
 * conflicts between options, the sweep's lists and the "an existing file
 * is only read" rule.  In the library, so a binding gets the same answers
 * as the command line. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/frame.h"
#include "bench/io_bench.h"
#include "core/error.h"
#include "core/opts.h"
#include "core/strutil.h"

static int single_point(const struct gf_bench_io_request *rq, struct gf_bench_point *p)
{
	uint64_t bs = (rq->mode == GF_BENCH_SEQREAD || rq->mode == GF_BENCH_SEQWRITE) ? 1u << 20 : 4096;
	int rc;

	if ((unsigned)rq->mode > GF_BENCH_RANDWRITE)
		return gf_error(-EINVAL, "--mode: not a mode (seqread, randread, seqwrite, randwrite)");
	if (rq->bs && (rc = gf_parse_size(rq->bs, &bs)))
		return gf_error(rc, "--bs: %s", gf_last_error());
	if (bs < GF_BENCH_BS_MIN || bs > GF_BENCH_BS_MAX)
		return gf_error(-ERANGE, "--bs: '%s' is not a size from 512 to 1G", rq->bs);
	if (rq->warm && (rq->direct || gf_bench_mode_writes(rq->mode)))
		return gf_error(-EINVAL, "--warm applies to buffered reads (no --direct, a read mode)");
	if (rq->engine != GF_IO_URING && rq->engine != GF_IO_PSYNC)
		return gf_error(-EINVAL, "--engine: uring or psync");
	if (rq->sqpoll && rq->engine != GF_IO_URING)
		return gf_error(-EINVAL, "--sqpoll needs --engine uring");
	if (rq->qd > GF_BENCH_QD_MAX || rq->threads > GF_BENCH_THREADS_MAX)
		return gf_error(-ERANGE, "--qd is at most %u and --threads at most %u", GF_BENCH_QD_MAX,
				GF_BENCH_THREADS_MAX);
	memset(p, 0, sizeof(*p));
	p->mode = rq->mode;
	p->bs = (size_t)bs;
	p->engine = rq->engine;
	p->qd = rq->qd ? rq->qd : rq->engine == GF_IO_PSYNC ? 1 : 32;
	p->threads = rq->threads ? rq->threads : 1;
	p->cache = rq->direct ? GF_CACHE_DIRECT : rq->warm ? GF_CACHE_WARM : GF_CACHE_COLD;
	p->sqpoll = rq->sqpoll;
	p->duration_s = rq->duration_s > 0 ? rq->duration_s : 10;
	return 0;
}

static int sweep(const struct gf_bench_io_request *rq, struct gf_bench_sweep *s)
{
	static const char *const names[] = { "modes", "bs", "cache", "engines" };
	const char *values[] = { rq->modes, rq->bs, rq->cache, rq->engines };

	if (rq->qd || rq->threads || rq->direct || rq->warm || rq->sqpoll)
		return gf_error(-EINVAL, "--qd, --threads, --direct, --warm and --sqpoll go with --mode; "
				"a sweep takes --engines and --cache");
	gf_bench_sweep_default(s, rq->quick);
	for (unsigned i = 0; i < 4; i++)
		if (values[i] && gf_bench_sweep_set(s, names[i], values[i]))
			return gf_error(-EINVAL, "--%s: %s", names[i], gf_last_error());
	if (rq->duration_s > 0)
		s->duration_s = rq->duration_s;
	return 0;
}

int gf_bench_io_plan(const struct gf_bench_io_request *rq, struct gf_bench_plan *plan)
{
	struct gf_bench_sweep s;
	struct stat st;
	unsigned n, k = 0;
	int rc;

	if (!rq || !plan)
		return gf_error(-EINVAL, "bench io: gf_bench_io_plan: NULL argument");
	memset(plan, 0, sizeof(*plan));
	if ((rc = gf_opts_check(rq->struct_size, offsetof(struct gf_bench_io_request, force) + sizeof(rq->force),
				"gf_bench_io_plan", "GF_BENCH_IO_REQUEST_INIT")))
		return rc;
	if (GF_OPTS_HAS(rq, struct gf_bench_io_request, repeats) && rq->repeats > GF_BENCH_IO_REPEATS_MAX)
		return gf_error(-ERANGE, "--repeats: at most %u runs of a point", GF_BENCH_IO_REPEATS_MAX);
	if (!rq->path || !*rq->path)
		return gf_error(-EINVAL, "no PATH");
	if (!(rq->duration_s >= 0 && rq->duration_s <= GF_DURATION_MAX))
		return gf_error(-EINVAL, "--duration: not a duration of 0 to one year");
	if (rq->single) {
		plan->points = calloc(1, sizeof(*plan->points));
		if (!plan->points)
			return gf_error(-ENOMEM, "bench io: out of memory");
		rc = single_point(rq, plan->points);
		n = 1;
	} else {
		rc = sweep(rq, &s);
		n = rc ? 0 : gf_bench_sweep_points(&s, NULL, 0);
		if (!rc && !n)
			rc = gf_error(-EINVAL, "the sweep is empty");
		if (!rc && !(plan->points = calloc(n, sizeof(*plan->points))))
			rc = gf_error(-ENOMEM, "bench io: out of memory");
		if (!rc)
			gf_bench_sweep_points(&s, plan->points, n);
	}
	if (rc)
		goto fail;
	if (!rq->single && !rq->force && lstat(rq->path, &st) == 0) {
		/* An existing file may be someone's data: a sweep reads it only. */
		for (unsigned i = 0; i < n; i++)
			if (!gf_bench_mode_writes(plan->points[i].mode))
				plan->points[k++] = plan->points[i];
		if (!k) {
			rc = gf_error(-EINVAL, "%s exists and the sweep only writes: add --force", rq->path);
			goto fail;
		}
		if (k < n)
			plan->reads_only = true;
		n = k;
	}
	plan->n = n;
	plan->opts = (struct gf_bench_io_opts)GF_BENCH_IO_OPTS_INIT;
	plan->opts.path = rq->path;
	plan->opts.size = rq->size ? rq->size : rq->quick ? 256ull << 20 : 1ull << 30;
	plan->opts.force = rq->force;
	plan->opts.repeats = GF_OPTS_HAS(rq, struct gf_bench_io_request, repeats) ? rq->repeats : 0;
	plan->single = rq->single;
	for (unsigned i = 0; i < n; i++)
		plan->opts.writes |= gf_bench_mode_writes(plan->points[i].mode);
	return 0;
fail:
	gf_bench_plan_free(plan);
	return rc;
}

void gf_bench_plan_free(struct gf_bench_plan *plan)
{
	if (!plan)
		return;
	free(plan->points);
	plan->points = NULL;
	plan->n = 0;
}

/* ---- the target, as the frame sees it ---- */

/* What the options set: the request, and the placement beside it. */
struct io_args {
	struct gf_bench_io_request rq;
	int numa_node;			/* -1 the drive's node, -2 none, else the node */
};

static void io_init(void *opts)
{
	*(struct io_args *)opts = (struct io_args){ .rq = GF_BENCH_IO_REQUEST_INIT, .numa_node = -1 };
}

static int io_set_mode(void *opts, const char *value)
{
	struct gf_bench_io_request *rq = &((struct io_args *)opts)->rq;

	rq->single = true;
	if (gf_bench_mode_parse(value, &rq->mode))
		return gf_error(-EINVAL, "--mode: %s", gf_last_error());
	return 0;
}

static int io_set_engine(void *opts, const char *value)
{
	struct gf_bench_io_request *rq = &((struct io_args *)opts)->rq;

	if (!strcmp(value, "uring"))
		rq->engine = GF_IO_URING;
	else if (!strcmp(value, "psync"))
		rq->engine = GF_IO_PSYNC;
	else
		return gf_error(-EINVAL, "--engine: '%s' is not uring or psync", value);
	return 0;
}

static int io_set_node(void *opts, const char *value)
{
	struct io_args *a = opts;
	uint64_t n;

	if (!strcmp(value, "none") || !strcmp(value, "auto")) {
		a->numa_node = value[0] == 'n' ? -2 : -1;
		return 0;
	}
	if (gf_parse_count(value, 0, 1023, &n))
		return gf_error(-EINVAL, "--numa-node: '%s' is not a node number, 'none' or 'auto'", value);
	a->numa_node = (int)n;
	return 0;
}

/* The request with its PATH: what the plan checks. */
static struct gf_bench_io_request request_of(const struct io_args *a, const char *path)
{
	struct gf_bench_io_request rq = a->rq;

	rq.path = path;
	return rq;
}

static int io_check(const void *opts, const char *operand)
{
	struct gf_bench_io_request rq = request_of(opts, operand);
	struct gf_bench_plan plan;
	int rc = gf_bench_io_plan(&rq, &plan);

	gf_bench_plan_free(&plan);
	return rc;
}

static int io_run(const void *opts, const char *operand, const struct gf_bench_env *env, void **res)
{
	const struct io_args *a = opts;
	struct gf_bench_io_request rq = request_of(a, operand);
	struct gf_bench_plan plan;
	struct gf_bench_io_opts bo;
	int rc;

	if ((rc = gf_bench_io_plan(&rq, &plan)))
		return rc;
	bo = plan.opts;
	bo.numa_node = a->numa_node;
	bo.model = env->model;
	bo.cancel = env->cancel;
	bo.progress_stream = env->progress;
	bo.progress_tty = env->progress_tty;
	bo.status_interval_s = env->status_interval_s;
	rc = gf_bench_io_run_plan(&plan, &bo, (struct gf_bench_io_results **)res);
	gf_bench_plan_free(&plan);
	return rc;
}

static enum gf_bench_outcome io_outcome(const void *res)
{
	return gf_bench_io_results_failed(res) ? GF_BENCH_FAILED : GF_BENCH_CLEAN;
}

static unsigned io_findings(const void *res)
{
	const struct gf_bench_io_results *r = res;
	unsigned n = r->cancelled + r->remove_failed;

	for (unsigned i = 0; i < r->n; i++)
		n += r->figures[i].status != 0;
	return n;
}

static const char *io_problem(const void *res)
{
	return gf_bench_io_results_problem(res);
}

static int io_print(const void *res, FILE *f)
{
	return gf_bench_io_results_print(res, f);
}

static int io_write_json(const void *res, FILE *f)
{
	return gf_bench_io_results_write_json(res, f);
}

static void io_free(void *res)
{
	gf_bench_io_results_free(res);
}

#define RQ(field) rq.field
static const struct gf_bench_opt_def io_opts[] = {
	GF_BENCH_CUSTOM("mode", "M", "one point: seqread, randread, seqwrite, randwrite", GF_BENCH_OPT_TEXT,
			io_set_mode),
	GF_BENCH_TEXT("bs", "SIZE", "block size (4K .. 1G; default 1M sequential, 4K random);\n"
		      "in a sweep a list: --bs 4K,64K,1M", struct io_args, RQ(bs)),
	GF_BENCH_COUNT("qd", "N", "requests in flight per thread (default 32; psync: 1)", struct io_args, RQ(qd), 1,
		       GF_BENCH_QD_MAX),
	GF_BENCH_COUNT("threads", "N", "submitting threads, each with its own engine (default 1)", struct io_args,
		       RQ(threads), 1, GF_BENCH_THREADS_MAX),
	GF_BENCH_FLAG("direct", "O_DIRECT (page cache bypassed); else buffered", struct io_args, RQ(direct)),
	GF_BENCH_FLAG("warm", "buffered reads from a warm page cache (default: cold,\n"
		      "the file's cached pages dropped first)", struct io_args, RQ(warm)),
	GF_BENCH_CUSTOM("engine", "E", "uring (default) or psync (pread/pwrite threads)", GF_BENCH_OPT_TEXT,
			io_set_engine),
	GF_BENCH_FLAG("sqpoll", "io_uring submission by a kernel thread (burns a core)", struct io_args, RQ(sqpoll)),
	GF_BENCH_DURATION("duration", "D", "per point: 10s, 500ms, 1m, or plain seconds (default\n"
			  "10 for --mode, 1 in a sweep, 0.25 with --quick)", struct io_args, RQ(duration_s), 86400),
	GF_BENCH_COUNT("repeats", "N", "runs of each point (default 1); its GB/s is their\n"
		       "median, every run is in the JSON", struct io_args, RQ(repeats), 1, GF_BENCH_IO_REPEATS_MAX),
	GF_BENCH_FLAG("quick", "a short sweep (under a minute on 2 cores)", struct io_args, RQ(quick)),
	GF_BENCH_TEXT("modes", "LIST", "sweep: modes to run (default all four)", struct io_args, RQ(modes)),
	GF_BENCH_TEXT("engines", "LIST", "sweep: psync:N (N threads) and uring:N (depth N),\n"
		      "default psync:1,psync:4,uring:1,uring:8,uring:32", struct io_args, RQ(engines)),
	GF_BENCH_TEXT("cache", "LIST", "sweep: direct,cold,warm (default all)", struct io_args, RQ(cache)),
	GF_BENCH_SIZE("size", "SIZE", "size of a file we create (default 1G, --quick 256M)", struct io_args, RQ(size),
		      1, 0),
	GF_BENCH_FLAG("force", "allow writing over an existing file or block device\n"
		      "(never one that is mounted)", struct io_args, RQ(force)),
	GF_BENCH_CUSTOM("numa-node", "N", "place buffers and threads on node N; 'none'; 'auto'\n"
			"(default: the drive's node)", GF_BENCH_OPT_TEXT, io_set_node),
	GF_BENCH_OPTS_END,
};
#undef RQ

const struct gf_bench_def gf_bench_io_def = {
	.pub = {
		.name = "io",
		.summary = "storage through gpufeed's I/O engine: GB/s, IOPS, latency, CPU",
		.description =
			"Measures storage through gpufeed's I/O engine: GB/s, IOPS, p50/p99 latency\n"
			"and CPU seconds per GB.  PATH is a file or, for reads, a block device.  A file\n"
			"that does not exist is created (filled with data, --size), and removed at the\n"
			"end, also on Ctrl-C.  Writing to an existing file or device needs --force;\n"
			"without it a sweep runs its reads only.  Buffers and threads go to the NUMA\n"
			"node of the drive (from the machine model; --root: a recording's, the I/O\n"
			"still runs here) unless --numa-node says otherwise.\n"
			"\n"
			"Without --mode, a sweep: seq/rand reads and writes x block sizes x O_DIRECT,\n"
			"cold and warm page cache x pread threads and io_uring queue depths.  With\n"
			"--mode, one point, fio-style, for scripts (docs/bench-io.md):\n"
			"  gpufeed bench io FILE --mode randread --bs 4K --qd 32 --direct --json\n"
			"\n"
			"Storage to GPU memory is 'gpufeed bench io-gpu'.\n",
		.operand = "PATH",
		.schema = GF_BENCH_IO_SCHEMA,
		.exits = { "", NULL, "also a point the target cannot take, e.g. an O_DIRECT block size",
			   "a point failed, e.g. an I/O error (the others still run); Ctrl-C;\n"
			   "a write to an existing file without --force, or to a mounted block device;\n"
			   "the machine model cannot be read",
			   "--numa-node names a node this machine lacks" },
		.footer = "How it measures and its JSON: docs/bench-io.md.\n",
	},
	.opts = io_opts,
	.opts_size = sizeof(struct io_args),
	.init = io_init,
	.check = io_check,
	.run = io_run,
	.outcome = io_outcome,
	.findings = io_findings,
	.problem = io_problem,
	.print = io_print,
	.write_json = io_write_json,
	.free_res = io_free,
};
