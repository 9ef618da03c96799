/* `bench io` on the shared bench runner (docs/bench.md): the plan's points
 * are the runner's, a sample is one gf_bench_io_run of a point (its
 * duration is the sample: the run samples GB/s every interval inside
 * itself), so the runner brings repeats, progress with ETA and cancel. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/io_opts.h"
#include "bench/io_bench.h"
#include "bench/runner.h"
#include "core/error.h"
#include "core/strutil.h"

struct io_ctx {
	struct gf_bench_io *b;
	const struct gf_bench_point *pts;
	struct gf_bench_io_results *res;
	struct gf_runner *run;
	unsigned cur;
};

static int io_prepare(void *ctx, unsigned i)
{
	struct io_ctx *c = ctx;

	c->cur = i;
	return gf_bench_io_check(c->b, &c->pts[i]);
}

/* One run of point i; its GB/s is the sample. */
static int io_sample(void *ctx, unsigned i, double *v)
{
	struct io_ctx *c = ctx;
	struct gf_bench_io_results *res = c->res;
	struct gf_bench_result *r = &res->runs[(size_t)i * res->repeats + res->nruns[i]];
	int rc = gf_bench_io_run(c->b, &c->pts[i], r);

	if (rc)
		return rc;	/* cancelled, out of memory */
	res->nruns[i]++;
	if (r->status)
		return gf_error(r->status, "%s", r->error);
	*v = r->gb_per_s;
	return 0;
}

/* As the command line names a point: "seqread cold bs=1048576 uring:32". */
static void io_label(void *ctx, unsigned i, char *buf, size_t size)
{
	const struct gf_bench_point *p = &((struct io_ctx *)ctx)->pts[i];

	snprintf(buf, size, "%s %s bs=%zu %s:%u", gf_bench_mode_name(p->mode), gf_bench_cache_name(p->cache),
		 p->bs, gf_io_backend_name(p->engine), p->engine == GF_IO_PSYNC ? p->threads : p->qd);
}

static void io_attach(void *ctx, struct gf_runner *run)
{
	((struct io_ctx *)ctx)->run = run;
}

/* gf_bench_io_run's report about every 0.1 s, as the runner's in-point one. */
static void io_in_point(const struct gf_bench_progress *pr, void *ctx)
{
	struct io_ctx *c = ctx;
	char detail[128], run[32] = "";

	if (c->res->repeats > 1)
		snprintf(run, sizeof(run), "run %u of %u, ", c->res->nruns[c->cur] + 1, c->res->repeats);
	snprintf(detail, sizeof(detail), "%s%.1f of %.1f s, %.3f GB/s now", run, pr->elapsed_s,
		 pr->point->duration_s, pr->gb_per_s_now);
	gf_runner_report(c->run, pr->elapsed_s / pr->point->duration_s, detail);
}

static const struct gf_bench_ops io_ops = {
	.prepare = io_prepare,
	.sample = io_sample,
	.label = io_label,
	.attach = io_attach,
};

static int by_gb_per_s(const void *a, const void *b)
{
	double x = (*(const struct gf_bench_result *const *)a)->gb_per_s;
	double y = (*(const struct gf_bench_result *const *)b)->gb_per_s;

	return (x > y) - (x < y);
}

/* Point i's figure: the median run (the lower middle one of an even
 * count) with gb_per_s the median of the runs; for a point that failed or
 * was not reached, its last run (if any) with the runner's status. */
static void figure(struct gf_bench_io_results *res, unsigned i, const struct gf_bench_point *p)
{
	const struct gf_runner_point *rp = &res->points[i];
	struct gf_bench_result *fig = &res->figures[i], *runs = &res->runs[(size_t)i * res->repeats];
	const struct gf_bench_result *sorted[GF_BENCH_IO_REPEATS_MAX];
	unsigned k = res->nruns[i];

	if (rp->status || !k) {
		if (k)
			*fig = runs[k - 1];
		else
			fig->p = *p;
		if (rp->status) {
			fig->status = rp->status;
			gf_strlcpy(fig->error, rp->error, sizeof(fig->error));
		}
		return;
	}
	for (unsigned j = 0; j < k; j++)
		sorted[j] = &runs[j];
	qsort(sorted, k, sizeof(sorted[0]), by_gb_per_s);
	*fig = *sorted[(k - 1) / 2];
	fig->gb_per_s = rp->stats.median;
}

static struct gf_bench_io_results *results_new(const struct gf_bench_plan *plan, unsigned repeats)
{
	struct gf_bench_io_results *res = calloc(1, sizeof(*res));

	if (!res)
		return NULL;
	res->n = plan->n;
	res->repeats = repeats;
	res->single = plan->single;
	res->figures = calloc(plan->n, sizeof(*res->figures));
	res->runs = calloc((size_t)plan->n * repeats, sizeof(*res->runs));
	res->nruns = calloc(plan->n, sizeof(*res->nruns));
	res->points = calloc(plan->n, sizeof(*res->points));
	if (!res->figures || !res->runs || !res->nruns || !res->points) {
		gf_bench_io_results_free(res);
		return NULL;
	}
	return res;
}

/* The file we made goes before any output: nothing the output does (a
 * full disk, a closed pipe) can leave it behind. */
static void remove_file(struct gf_bench_io *b, struct gf_bench_io_results *res)
{
	bool created = gf_bench_io_file(b)->created;

	res->target = *gf_bench_io_file(b);
	if (gf_bench_io_remove(b)) {
		res->remove_failed = true;
		gf_strlcpy(res->problem, gf_last_error(), sizeof(res->problem));
	} else if (res->cancelled) {
		snprintf(res->problem, sizeof(res->problem), "interrupted%s%s", created ? "; removed " : "",
			 created ? res->target.path : "");
	}
}

/* Gives up before any output: the file we made goes, the message stays. */
static int fail(struct gf_bench_io *b, struct gf_bench_io_results *res, int rc)
{
	char msg[512];

	gf_strlcpy(msg, gf_last_error(), sizeof(msg));
	gf_bench_io_close(b);
	gf_bench_io_results_free(res);
	return gf_error(rc, "%s", msg);
}

static int check_all(struct gf_bench_io *b, const struct gf_bench_plan *plan)
{
	char msg[512];

	for (unsigned i = 0; i < plan->n; i++) {
		if (gf_bench_io_check(b, &plan->points[i])) {
			/* gf_error writes over gf_last_error()'s buffer: a copy. */
			gf_strlcpy(msg, gf_last_error(), sizeof(msg));
			return gf_error(-EDOM, "%s", msg);
		}
	}
	return 0;
}

int gf_bench_io_run_plan(const struct gf_bench_plan *plan, const struct gf_bench_io_opts *opts,
			 struct gf_bench_io_results **out)
{
	struct gf_runner_opts ro = { .name = "gpufeed bench io" };
	struct gf_bench_io_results *res;
	struct gf_bench_io *b = NULL;
	struct io_ctx c = { 0 };
	FILE *ps;
	int rc;

	if (!out)
		return gf_error(-EINVAL, "bench io: gf_bench_io_run_plan: NULL argument");
	*out = NULL;
	if (!plan || !opts || !plan->points || !plan->n)
		return gf_error(-EINVAL, "bench io: gf_bench_io_run_plan: no plan or options");
	if (!GF_OPTS_HAS(opts, struct gf_bench_io_opts, status_interval_s))
		return gf_error(-EINVAL, "gf_bench_io_run_plan: options not initialised with GF_BENCH_IO_OPTS_INIT");
	if (opts->repeats > GF_BENCH_IO_REPEATS_MAX)
		return gf_error(-ERANGE, "bench io: at most %u runs of a point", GF_BENCH_IO_REPEATS_MAX);
	ps = opts->progress_stream;
	if (plan->reads_only && ps)
		fprintf(ps, "gpufeed bench io: %s exists: reads only (--force to include writes)\n", opts->path);
	if (ps && opts->progress_tty)
		fprintf(ps, "gpufeed bench io: preparing %s\n", opts->path);
	if (!(res = results_new(plan, opts->repeats ? opts->repeats : 1)))
		return gf_error(-ENOMEM, "bench io: out of memory");
	if ((rc = gf_bench_io_open(opts, &b)) || (rc = check_all(b, plan)))
		return fail(b, res, rc);
	/* Not a terminal and no --status-interval: no lines (as fio). */
	if (ps && (opts->progress_tty || opts->status_interval_s > 0)) {
		ro.progress = ps;
		ro.tty = opts->progress_tty;
		ro.status_interval_s = opts->status_interval_s;
		b->in_point = io_in_point;
		b->in_point_ctx = &c;
	}
	ro.repeats = res->repeats;
	ro.cancel = opts->cancel;
	c = (struct io_ctx){ .b = b, .pts = plan->points, .res = res };
	rc = gf_runner_run(&io_ops, &c, plan->n, &ro, res->points);
	if (rc && rc != -ECANCELED)
		return fail(b, res, rc);
	res->cancelled = rc == -ECANCELED;
	for (unsigned i = 0; i < plan->n; i++)
		figure(res, i, &plan->points[i]);
	remove_file(b, res);
	gf_bench_io_close(b);
	if (!res->problem[0] && res->single && res->figures[0].status)
		gf_strlcpy(res->problem, res->figures[0].error, sizeof(res->problem));
	*out = res;
	return res->cancelled ? gf_error(-ECANCELED, "%s", res->problem) : 0;
}

bool gf_bench_io_results_failed(const struct gf_bench_io_results *res)
{
	if (!res)
		return false;
	if (res->cancelled || res->remove_failed)
		return true;
	for (unsigned i = 0; i < res->n; i++)
		if (res->figures[i].status)
			return true;
	return false;
}

const char *gf_bench_io_results_problem(const struct gf_bench_io_results *res)
{
	return res ? res->problem : "";
}

int gf_bench_io_results_write_json(const struct gf_bench_io_results *res, FILE *f)
{
	if (!res || !f)
		return gf_error(-EINVAL, "bench io: gf_bench_io_results_write_json: NULL argument");
	return gf_bench__write_json(&res->target, res->figures, res->runs, res->nruns, res->repeats, res->points,
				    res->n, res->single, f);
}

int gf_bench_io_results_print(const struct gf_bench_io_results *res, FILE *f)
{
	int rc;

	if (!res || !f)
		return gf_error(-EINVAL, "bench io: gf_bench_io_results_print: NULL argument");
	rc = gf_bench_io_print(&res->target, res->figures, res->n, f);
	if (!rc && res->repeats > 1)
		fprintf(f, "\nGB/s: the median of %u runs of each point; the other figures are the median run's.\n",
			res->repeats);
	return rc || ferror(f) ? -EIO : 0;
}

void gf_bench_io_results_free(struct gf_bench_io_results *res)
{
	if (!res)
		return;
	if (res->points)
		gf_runner_points_free(res->points, res->n);
	free(res->points);
	free(res->figures);
	free(res->runs);
	free(res->nruns);
	free(res);
}
