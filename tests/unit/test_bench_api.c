/* The bench library's public functions against bad arguments: NULLs,
 * invalid modes and cache states, NaN and infinite durations, a result
 * whose sample count is out of range.  Run under ASan too. */
#include "helpers.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include "bench/io_bench.h"
#include <gpufeed/error.h>

static char *dir;
static char path[4096];
static struct gf_bench_io *bench;

static int setup(void **state)
{
	struct gf_bench_io_opts o = GF_BENCH_IO_OPTS_INIT;

	(void)state;
	dir = t_mkdtemp();
	snprintf(path, sizeof(path), "%s/f.bin", dir);
	o.path = path;
	o.size = 1u << 20;
	o.numa_node = -2;
	o.writes = true;
	return gf_bench_io_open(&o, &bench) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	gf_bench_io_close(bench);
	t_rmtree(dir);
	free(dir);
	return 0;
}

static struct gf_bench_point good_point(void)
{
	struct gf_bench_point p = { .mode = GF_BENCH_SEQREAD, .bs = 4096, .qd = 1, .threads = 1,
				    .cache = GF_CACHE_DIRECT, .engine = GF_IO_PSYNC, .duration_s = 0.05 };
	return p;
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "gf_bench_io_run hung\n";
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(1);
}

/* A point the run must refuse at once, with -EINVAL in status. */
static void refused(const struct gf_bench_point *p, const char *what)
{
	struct gf_bench_result *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	signal(SIGALRM, on_alarm);
	alarm(20);	/* a NaN duration hung here */
	assert_int_equal(gf_bench_io_run(bench, p, r), 0);
	alarm(0);
	if (r->status != -EINVAL)
		fail_msg("%s: status %d, wanted -EINVAL", what, r->status);
	assert_true(r->error[0]);
	assert_int_equal(gf_bench_io_check(bench, p), -EINVAL);
	free(r);
}

static void bad_points(void **state)
{
	struct gf_bench_point p;
	struct gf_bench_result r;

	(void)state;
	p = good_point();
	assert_int_equal(gf_bench_io_check(bench, &p), 0);
	assert_int_equal(gf_bench_io_run(bench, &p, &r), 0);
	assert_int_equal(r.status, 0);
	assert_true(r.bytes > 0);

	p.duration_s = NAN;
	refused(&p, "NaN duration");
	p.duration_s = INFINITY;
	refused(&p, "infinite duration");
	p.duration_s = -1;
	refused(&p, "negative duration");
	p.duration_s = 1e300;
	refused(&p, "a duration of 1e300 s");
	p = good_point();
	p.mode = (enum gf_bench_mode)7;
	refused(&p, "mode 7");
	p = good_point();
	p.mode = (enum gf_bench_mode)-1;
	refused(&p, "mode -1");
	p = good_point();
	p.cache = (enum gf_bench_cache)9;
	refused(&p, "cache 9");
	p = good_point();
	p.engine = (enum gf_io_backend)42;
	refused(&p, "engine 42");
	p = good_point();
	p.bs = 0;
	refused(&p, "bs 0");
	p = good_point();
	p.bs = (size_t)1 << 40;
	refused(&p, "bs 1 TiB");
	p = good_point();
	p.qd = 100000;
	refused(&p, "qd 100000");
	p = good_point();
	p.threads = 0;
	refused(&p, "0 threads");
	p = good_point();
	p.cache = GF_CACHE_WARM;
	p.mode = GF_BENCH_SEQWRITE;
	refused(&p, "a warm write");
}

/* nsamples is the caller's to fill in a result it builds (a binding, a
 * replay): more than the array holds must not be read past its end, in
 * the point's samples nor in its run's (schema /3 writes both). */
static void json_samples_bounded(void **state)
{
	struct gf_bench_result *r = calloc(1, sizeof(*r));
	json_t *root, *pt;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(r);
	r->p = good_point();
	r->nsamples = 100000;
	for (unsigned i = 0; i < GF_LAT_SAMPLES_MAX; i++)
		r->samples[i] = 1.5;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(gf_bench_io_write_json(gf_bench_io_file(bench), r, 1, false, f), 0);
	fclose(f);
	root = json_loads(text, 0, NULL);
	assert_non_null(root);
	pt = json_array_get(json_object_get(root, "points"), 0);
	assert_int_equal(json_array_size(json_object_get(pt, "samples_gb_per_s")), GF_LAT_SAMPLES_MAX);
	assert_int_equal(json_array_size(json_object_get(pt, "runs")), 1);
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(pt, "runs"), 0),
							 "samples_gb_per_s")), GF_LAT_SAMPLES_MAX);
	json_decref(root);
	free(text);
	free(r);
}

static void null_arguments(void **state)
{
	struct gf_bench_point p = good_point();
	struct gf_bench_result r;
	struct gf_bench_io *b = (struct gf_bench_io *)1;
	struct gf_bench_io_opts o = GF_BENCH_IO_OPTS_INIT;
	struct gf_bench_sweep s;
	struct gf_bench_plan plan;
	enum gf_bench_mode m;
	FILE *devnull = fopen("/dev/null", "w");

	(void)state;
	assert_int_equal(gf_bench_io_open(NULL, &b), -EINVAL);
	assert_null(b);
	assert_int_equal(gf_bench_io_open(&o, NULL), -EINVAL);
	assert_int_equal(gf_bench_io_open(&o, &b), -EINVAL);	/* no path */
	o.struct_size = 0;
	o.path = path;
	assert_int_equal(gf_bench_io_open(&o, &b), -EINVAL);	/* not initialised */
	assert_non_null(strstr(gf_last_error(), "GF_BENCH_IO_OPTS_INIT"));
	assert_null(gf_bench_io_file(NULL));
	assert_int_equal(gf_bench_io_run(NULL, &p, &r), -EINVAL);
	assert_int_equal(gf_bench_io_run(bench, NULL, &r), -EINVAL);
	assert_int_equal(gf_bench_io_run(bench, &p, NULL), -EINVAL);
	assert_int_equal(gf_bench_io_check(NULL, &p), -EINVAL);
	assert_int_equal(gf_bench_io_check(bench, NULL), -EINVAL);
	gf_bench_io_close(NULL);
	assert_int_equal(gf_bench_io_write_json(NULL, &r, 1, false, devnull), -EINVAL);
	assert_int_equal(gf_bench_io_write_json(gf_bench_io_file(bench), NULL, 1, false, devnull), -EINVAL);
	assert_int_equal(gf_bench_io_write_json(gf_bench_io_file(bench), &r, 1, false, NULL), -EINVAL);
	assert_int_equal(gf_bench_io_print(NULL, &r, 1, devnull), -EINVAL);
	assert_int_equal(gf_bench_io_print(gf_bench_io_file(bench), NULL, 1, devnull), -EINVAL);
	assert_int_equal(gf_bench_io_print(gf_bench_io_file(bench), &r, 1, NULL), -EINVAL);
	assert_int_equal(gf_bench_mode_parse(NULL, &m), -EINVAL);
	assert_int_equal(gf_bench_mode_parse("seqread", NULL), -EINVAL);
	gf_bench_sweep_default(NULL, false);
	assert_int_equal(gf_bench_sweep_points(NULL, NULL, 0), 0);
	assert_int_equal(gf_bench_sweep_set(NULL, "bs", "4K"), -EINVAL);
	gf_bench_sweep_default(&s, false);
	assert_int_equal(gf_bench_sweep_set(&s, NULL, "4K"), -EINVAL);
	assert_int_equal(gf_bench_sweep_set(&s, "bs", NULL), -EINVAL);
	assert_int_equal(gf_bench_io_plan(NULL, &plan), -EINVAL);
	gf_bench_plan_free(NULL);
	assert_string_equal(gf_bench_mode_name((enum gf_bench_mode)99), "?");
	assert_string_equal(gf_bench_cache_name((enum gf_bench_cache)99), "?");
	fclose(devnull);
}

static void sweep_lists(void **state)
{
	struct gf_bench_sweep s, before;

	(void)state;
	gf_bench_sweep_default(&s, true);
	assert_int_equal(gf_bench_sweep_set(&s, "engines", "psync:4,uring:64"), 0);
	assert_int_equal(s.nengines, 2);
	assert_int_equal(s.engines[1].n, 64);
	before = s;
	/* All or nothing: a bad item leaves the sweep as it was. */
	assert_int_equal(gf_bench_sweep_set(&s, "engines", "psync:1,uring:-1"), -EINVAL);
	assert_int_equal(gf_bench_sweep_set(&s, "engines", "psync:257"), -EINVAL);
	assert_int_equal(gf_bench_sweep_set(&s, "engines", "uring:4294967297"), -EINVAL);
	assert_int_equal(gf_bench_sweep_set(&s, "engines", "urin:4"), -EINVAL);
	assert_int_equal(gf_bench_sweep_set(&s, "engines", "uring:8,"), -EINVAL);
	assert_int_equal(gf_bench_sweep_set(&s, "bs", "4K,-1"), -EINVAL);
	assert_int_equal(gf_bench_sweep_set(&s, "bs", "256"), -ERANGE);
	assert_int_equal(gf_bench_sweep_set(&s, "bs", "2G"), -ERANGE);
	assert_int_equal(gf_bench_sweep_set(&s, "cache", "tepid"), -EINVAL);
	assert_int_equal(gf_bench_sweep_set(&s, "modes", "seqread,seqread,seqread,seqread,seqread"), -E2BIG);
	assert_int_equal(gf_bench_sweep_set(&s, "colour", "red"), -EINVAL);
	assert_int_equal(gf_bench_sweep_set(&s, "bs", ""), -EINVAL);
	assert_memory_equal(&s, &before, sizeof(s));
	assert_int_equal(gf_bench_sweep_set(&s, "bs", "4K,64K,1M"), 0);
	assert_int_equal(s.nbs, 3);
	assert_int_equal(s.bs[2], 1u << 20);
}

static void plans(void **state)
{
	struct gf_bench_io_request rq = GF_BENCH_IO_REQUEST_INIT;
	struct gf_bench_plan plan;

	(void)state;
	rq.path = path;		/* exists: a sweep reads only */
	rq.quick = true;
	assert_int_equal(gf_bench_io_plan(&rq, &plan), 0);
	assert_true(plan.reads_only);
	assert_int_equal(plan.n, 24);
	for (unsigned i = 0; i < plan.n; i++)
		assert_false(gf_bench_mode_writes(plan.points[i].mode));
	assert_false(plan.opts.writes);
	gf_bench_plan_free(&plan);
	rq.force = true;
	assert_int_equal(gf_bench_io_plan(&rq, &plan), 0);
	assert_int_equal(plan.n, 40);
	assert_true(plan.opts.writes);
	gf_bench_plan_free(&plan);
	rq.modes = "seqwrite";
	rq.force = false;
	assert_int_equal(gf_bench_io_plan(&rq, &plan), -EINVAL);	/* only writes */
	assert_null(plan.points);
	rq.modes = NULL;
	rq.qd = 4;		/* goes with a single point */
	assert_int_equal(gf_bench_io_plan(&rq, &plan), -EINVAL);
	rq = (struct gf_bench_io_request)GF_BENCH_IO_REQUEST_INIT;
	rq.path = path;
	rq.single = true;
	rq.mode = GF_BENCH_SEQWRITE;
	rq.warm = true;
	assert_int_equal(gf_bench_io_plan(&rq, &plan), -EINVAL);
	rq.warm = false;
	rq.duration_s = NAN;
	assert_int_equal(gf_bench_io_plan(&rq, &plan), -EINVAL);
	rq.duration_s = 0;
	rq.bs = " -1";
	assert_int_equal(gf_bench_io_plan(&rq, &plan), -EINVAL);
	rq.bs = "4K";
	assert_int_equal(gf_bench_io_plan(&rq, &plan), 0);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.points[0].bs, 4096);
	assert_int_equal(plan.points[0].qd, 32);
	assert_true(plan.points[0].duration_s == 10);
	gf_bench_plan_free(&plan);
	rq.struct_size = 0;
	assert_int_equal(gf_bench_io_plan(&rq, &plan), -EINVAL);
}

/* A plan of n seqread points (bs 4K, 8K, ...) of duration_s on a new file. */
static void make_plan(struct gf_bench_plan *plan, const char *file, const char *bs, double duration_s,
		      unsigned repeats)
{
	struct gf_bench_io_request rq = GF_BENCH_IO_REQUEST_INIT;

	rq.path = file;
	rq.modes = "seqread";
	rq.engines = "psync:1";
	rq.cache = "direct";
	rq.bs = bs;
	rq.duration_s = duration_s;
	rq.size = 1u << 20;
	rq.repeats = repeats;
	assert_int_equal(gf_bench_io_plan(&rq, plan), 0);
}

static json_t *results_json(const struct gf_bench_io_results *res)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_t *root;

	assert_non_null(f);
	assert_int_equal(gf_bench_io_results_write_json(res, f), 0);
	fclose(f);
	root = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(root);
	return root;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* --repeats 3: three runs of each point, the figure the median of their
 * GB/s, each run and the summary in the JSON. */
static void plan_repeats(void **state)
{
	char file[4200];
	struct gf_bench_plan plan;
	struct gf_bench_io_results *res = NULL;
	json_t *root, *pts;
	size_t i;
	json_t *pt;

	(void)state;
	snprintf(file, sizeof(file), "%s/rep.bin", dir);
	make_plan(&plan, file, "4K,64K", 0.1, 3);
	assert_int_equal(plan.opts.repeats, 3);
	plan.opts.numa_node = -2;
	assert_int_equal(gf_bench_io_run_plan(&plan, &plan.opts, &res), 0);
	assert_false(gf_bench_io_results_failed(res));
	assert_string_equal(gf_bench_io_results_problem(res), "");
	assert_int_equal(access(file, F_OK), -1);	/* the created file is gone */
	root = results_json(res);
	assert_string_equal(json_string_value(json_object_get(root, "schema")), "gpufeed-bench-io/3");
	pts = json_object_get(root, "points");
	assert_int_equal(json_array_size(pts), 2);
	json_array_foreach(pts, i, pt) {
		json_t *runs = json_object_get(pt, "runs"), *sum = json_object_get(pt, "summary");
		double v[3];

		assert_int_equal(json_integer_value(json_object_get(pt, "repeats")), 3);
		assert_int_equal(json_array_size(runs), 3);
		assert_int_equal(json_integer_value(json_object_get(sum, "n")), 3);
		for (unsigned k = 0; k < 3; k++) {
			json_t *run = json_array_get(runs, k);
			v[k] = json_real_value(json_object_get(run, "gb_per_s"));
			assert_true(v[k] > 0);
			assert_true(json_array_size(json_object_get(run, "samples_gb_per_s")) > 0);
			/* The summary's samples are the runs' GB/s, in order. */
			assert_true(json_number_value(json_array_get(json_object_get(sum, "samples"), k)) == v[k]);
		}
		qsort(v, 3, sizeof(v[0]), by_value);
		assert_true(json_number_value(json_object_get(sum, "median")) == v[1]);
		assert_true(json_number_value(json_object_get(pt, "gb_per_s")) == v[1]);
	}
	json_decref(root);
	gf_bench_io_results_free(res);
	gf_bench_plan_free(&plan);
}

static volatile sig_atomic_t stop;

/* Stops the run once the second point has run a while. */
static void stop_in_second(const struct gf_bench_progress *pr, void *ctx)
{
	const struct gf_bench_plan *plan = ctx;

	if (pr->point == &plan->points[1] && pr->elapsed_s > 0.1)
		stop = 1;
}

/* Cancelled in the second of three points: the first is kept, the second
 * is "interrupted", the third "not run", the file removed, -ECANCELED. */
static void plan_cancel(void **state)
{
	char file[4200];
	struct gf_bench_plan plan;
	struct gf_bench_io_results *res = NULL;
	json_t *root, *pts;

	(void)state;
	snprintf(file, sizeof(file), "%s/cancel.bin", dir);
	make_plan(&plan, file, "4K,8K,16K", 5, 0);
	plan.opts.numa_node = -2;
	plan.opts.cancel = &stop;
	plan.opts.progress = stop_in_second;
	plan.opts.progress_ctx = &plan;
	plan.points[0].duration_s = 0.1;
	stop = 0;
	signal(SIGALRM, on_alarm);
	alarm(20);
	assert_int_equal(gf_bench_io_run_plan(&plan, &plan.opts, &res), -ECANCELED);
	alarm(0);
	assert_non_null(res);
	assert_true(gf_bench_io_results_failed(res));
	assert_non_null(strstr(gf_bench_io_results_problem(res), "interrupted; removed"));
	assert_int_equal(access(file, F_OK), -1);
	root = results_json(res);
	pts = json_object_get(root, "points");
	assert_int_equal(json_array_size(pts), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(pts, 0), "status")), "ok");
	assert_string_equal(json_string_value(json_object_get(json_array_get(pts, 1), "error")), "interrupted");
	assert_string_equal(json_string_value(json_object_get(json_array_get(pts, 2), "error")),
			    "not run (interrupted)");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(pts, 2), "bs")), 16384);
	json_decref(root);
	gf_bench_io_results_free(res);
	gf_bench_plan_free(&plan);
}

/* A point the target cannot take is refused before any runs: -EDOM. */
static void plan_refused(void **state)
{
	char file[4200];
	struct gf_bench_plan plan;
	struct gf_bench_io_results *res = (struct gf_bench_io_results *)1;

	(void)state;
	snprintf(file, sizeof(file), "%s/refused.bin", dir);
	make_plan(&plan, file, "4K", 0.1, 0);
	plan.opts.numa_node = -2;
	plan.points[0].threads = 2;	/* two threads of 1 MiB blocks on a 1 MiB file */
	plan.points[0].bs = 1u << 20;
	assert_int_equal(gf_bench_io_run_plan(&plan, &plan.opts, &res), -EDOM);
	assert_null(res);
	assert_non_null(strstr(gf_last_error(), "too small"));
	assert_int_equal(access(file, F_OK), -1);
	assert_int_equal(gf_bench_io_run_plan(&plan, &plan.opts, NULL), -EINVAL);
	assert_int_equal(gf_bench_io_run_plan(NULL, &plan.opts, &res), -EINVAL);
	gf_bench_plan_free(&plan);
	gf_bench_io_results_free(NULL);
	assert_false(gf_bench_io_results_failed(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_points),
		cmocka_unit_test(json_samples_bounded),
		cmocka_unit_test(null_arguments),
		cmocka_unit_test(sweep_lists),
		cmocka_unit_test(plans),
		cmocka_unit_test(plan_repeats),
		cmocka_unit_test(plan_cancel),
		cmocka_unit_test(plan_refused),
	};

	return cmocka_run_group_tests_name("bench_api", tests, setup, teardown);
}
