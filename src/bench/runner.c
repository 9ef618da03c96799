/* The shared bench runner (see runner.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/runner.h"
#include "core/error.h"
#include "core/strutil.h"

double gf_bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct gf_runner {
	const struct gf_bench_ops *ops;
	void *ctx;
	const struct gf_runner_opts *o;
	unsigned n, per_point;		/* samples per point, warm-up included */
	unsigned long done, total;	/* samples */
	double t0, last;
	unsigned cur;			/* the point in progress */
};

/* ETA from the samples done so far (and the fraction of the one in
 * progress): points differ in cost, but a sweep repeats its kinds of
 * point, so the average settles quickly.  detail: an in-point report. */
static void report(struct gf_runner *g, unsigned i, bool point_end, double frac, const char *detail)
{
	const struct gf_runner_opts *o = g->o;
	double now = gf_bench_now(), el = now - g->t0, eta = 0, done = (double)g->done + frac;
	char label[128] = "";

	if (!o->progress)
		return;
	if (!o->tty && !(point_end && !o->status_interval_s) &&
	    !(o->status_interval_s && now - g->last >= o->status_interval_s))
		return;
	if (done > 0)
		eta = el / done * ((double)g->total - done);
	if (g->ops->label)
		g->ops->label(g->ctx, i, label, sizeof(label));
	if (o->tty)
		fprintf(o->progress, "\r%s: [%u/%u] %s%s%s  elapsed %.0f s  ETA %.0f s   ", o->name, i + 1, g->n,
			label, detail ? "  " : "", detail ? detail : "", el, eta);
	else
		fprintf(o->progress, "%s: [%u/%u] %s%s%s: elapsed %.1f s, ETA %.1f s\n", o->name, i + 1, g->n,
			label, detail ? ": " : "", detail ? detail : "", el, eta);
	fflush(o->progress);
	g->last = now;
}

void gf_runner_report(struct gf_runner *run, double fraction, const char *detail)
{
	if (!run)
		return;
	fraction = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
	report(run, run->cur, false, fraction, detail);
}

static int run_point(struct gf_runner *g, unsigned i, struct gf_runner_point *r)
{
	const struct gf_bench_ops *ops = g->ops;
	const struct gf_runner_opts *o = g->o;
	unsigned keep = o->repeats ? o->repeats : 1;
	double t0 = gf_bench_now();
	int rc = 0;

	r->samples = calloc(keep, sizeof(*r->samples));
	if (!r->samples)
		return gf_error(-ENOMEM, "bench runner: out of memory");
	if (ops->prepare && (rc = ops->prepare(g->ctx, i))) {
		r->status = rc;
		gf_strlcpy(r->error, gf_last_error(), sizeof(r->error));
		g->done += g->per_point;
		return 0;
	}
	for (unsigned k = 0; k < o->warmup + keep; k++) {
		double v = 0;

		if (o->cancel && *o->cancel) {
			rc = -ECANCELED;
			break;
		}
		if ((rc = ops->sample(g->ctx, i, &v)))
			break;
		if (k >= o->warmup)
			r->samples[r->nsamples++] = v;
		g->done++;
		report(g, i, false, 0, NULL);
	}
	if (ops->cleanup)
		ops->cleanup(g->ctx, i);
	r->seconds = gf_bench_now() - t0;
	if (rc == -ECANCELED || (o->cancel && *o->cancel))
		return -ECANCELED;
	if (rc) {
		r->status = rc;
		gf_strlcpy(r->error, gf_last_error(), sizeof(r->error));
	}
	if (gf_stats_compute(r->samples, r->nsamples, &r->stats))
		return gf_error(-ENOMEM, "bench runner: out of memory");
	report(g, i, true, 0, NULL);
	return 0;
}

int gf_runner_run(const struct gf_bench_ops *ops, void *ctx, unsigned n, const struct gf_runner_opts *o,
		  struct gf_runner_point *res)
{
	struct gf_runner g;
	unsigned i;
	int rc = 0;

	if (!ops || !ops->sample || !o || (n && !res))
		return gf_error(-EINVAL, "bench runner: no target, options or results");
	memset(res, 0, n * sizeof(*res));
	g = (struct gf_runner){ .ops = ops, .ctx = ctx, .o = o, .n = n,
			       .per_point = o->warmup + (o->repeats ? o->repeats : 1), .t0 = gf_bench_now() };
	g.total = (unsigned long)g.per_point * n;
	g.last = g.t0;
	if (ops->attach)
		ops->attach(ctx, &g);
	for (i = 0; i < n && !rc; i++) {
		g.cur = i;
		if (o->cancel && *o->cancel)
			rc = -ECANCELED;
		else
			rc = run_point(&g, i, &res[i]);
		if (rc == -ECANCELED) {
			res[i].status = rc;
			gf_strlcpy(res[i].error, "interrupted", sizeof(res[i].error));
		}
	}
	for (; i < n; i++) {
		res[i].status = -ECANCELED;
		gf_strlcpy(res[i].error, "not run (interrupted)", sizeof(res[i].error));
	}
	if (ops->attach)
		ops->attach(ctx, NULL);
	if (o->progress && o->tty)
		fputc('\n', o->progress);
	return rc == -ECANCELED ? gf_error(-ECANCELED, "interrupted") : rc;
}

void gf_runner_points_free(struct gf_runner_point *res, unsigned n)
{
	if (!res)
		return;
	for (unsigned i = 0; i < n; i++) {
		free(res[i].samples);
		res[i].samples = NULL;
		res[i].nsamples = 0;
	}
}
