/* What `gpufeed bench io` runs, decided from what was asked: defaults,
 * conflicts between options, the sweep's lists and the "an existing file
 * is only read" rule.  In the library, so a binding gets the same answers
 * as the command line. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpufeed/bench.h>
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
