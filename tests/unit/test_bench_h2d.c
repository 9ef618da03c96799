/* bench h2d's timed copies against a scripted driver (an ops table of our
 * own, device memory = host memory): the figure is bytes x loops / the
 * events' time, the queue is spin, 4 warm-up copies, start, loops copies,
 * end (nvbandwidth's order), bidirectional copies run twice the bytes the
 * other way on a stream released by the measured stream's one spin, and
 * the byte check catches a copy that moved nothing or
 * moved the wrong bytes.  The CLI test runs the whole command on the
 * stand-in libcuda. */
#include "helpers.h"
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/bench.h>
#include <gpufeed/error.h>
#include "bench/h2d_bench.h"

struct gf_cu_event_st { double ms; };

enum fault { NONE, DROP, CORRUPT };
static enum fault fault;
static char trace[512];		/* "S w w w w < c c ... >" per call */
static unsigned htod, dtoh;	/* copies, by direction */
static size_t big;		/* copies of 2 x size seen */
static size_t size;
static double now_ms;
static struct gf_cu_event_st *go_event, *start_event;	/* the rig's */
static struct gf_cu_stream_st *second;	/* the interfering stream */
static unsigned waits_ok;		/* s[1] waiting on go */

static void note(const char *s)
{
	if (strlen(trace) + strlen(s) < sizeof(trace))
		strcat(trace, s);
}

static gf_cu_result ok_ctx(gf_cu_context c) { (void)c; return 0; }

static gf_cu_result do_htod(gf_cu_deviceptr d, const void *h, size_t n, gf_cu_stream s)
{
	(void)s;
	htod++;
	big += n == 2 * size;
	note("c");
	now_ms += 1.0;	/* one ms per copy */
	if (fault != DROP)
		memcpy((void *)(uintptr_t)d, h, n);
	if (fault == CORRUPT)
		((unsigned char *)(uintptr_t)d)[n - 3] ^= 1;
	return 0;
}

static gf_cu_result do_dtoh(void *h, gf_cu_deviceptr d, size_t n, gf_cu_stream s)
{
	(void)s;
	dtoh++;
	big += n == 2 * size;
	note("c");
	now_ms += 1.0;
	memcpy(h, (const void *)(uintptr_t)d, n);
	return 0;
}

static gf_cu_result do_memset(gf_cu_deviceptr d, unsigned char v, size_t n, gf_cu_stream s)
{
	(void)s;
	memset((void *)(uintptr_t)d, v, n);
	return 0;
}

static gf_cu_result do_sync(gf_cu_stream s) { (void)s; return 0; }

static gf_cu_result do_record(gf_cu_event e, gf_cu_stream s)
{
	(void)s;
	e->ms = now_ms;
	if (e == go_event) {
		assert_true(s != second);	/* recorded behind the spin */
		note("g");
	} else {
		note(e == start_event ? "<" : ">");
	}
	return 0;
}

static gf_cu_result do_wait(gf_cu_stream s, gf_cu_event e, unsigned flags)
{
	assert_int_equal(flags, 0);
	waits_ok += s == second && e == go_event;
	note("W");
	return 0;
}

static gf_cu_result do_elapsed(float *ms, gf_cu_event a, gf_cu_event b)
{
	*ms = (float)(b->ms - a->ms);
	return 0;
}

static gf_cu_result do_launch(gf_cu_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			      unsigned bz, unsigned sh, gf_cu_stream s, void **params, void **extra)
{
	(void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)sh, (void)s, (void)extra;
	assert_true(*(unsigned long long *)params[0] > 0);	/* the spin's cycles */
	note("S");
	return 0;
}

static const struct gf_cuda_ops ops = {
	.ctx_set_current = ok_ctx, .memcpy_htod_async = do_htod, .memcpy_dtoh_async = do_dtoh,
	.memset_d8_async = do_memset, .stream_synchronize = do_sync, .event_record = do_record,
	.event_elapsed_time = do_elapsed, .launch_kernel = do_launch, .stream_wait_event = do_wait,
};

struct rig {
	struct gf_bench_h2d h;
	struct gf_h2d_gpu g;
	struct gf_buf ha, hb;
	struct gf_cu_event_st e0, e1, e2;
	char streams[2];
	void *da, *db;
};

static void rig_init(struct rig *r, size_t n, enum gf_h2d_dir dir)
{
	memset(r, 0, sizeof(*r));
	size = n;
	fault = NONE;
	trace[0] = '\0';
	htod = dtoh = 0;
	big = 0;
	now_ms = 0;
	waits_ok = 0;
	r->g.dev.ops = &ops;
	r->g.go = go_event = &r->e2;
	r->g.s[0] = (gf_cu_stream)&r->streams[0];
	r->g.s[1] = second = (gf_cu_stream)&r->streams[1];
	r->g.spin_cycles = 1000;
	r->g.start = start_event = &r->e0;
	r->g.end = &r->e1;
	r->ha.data = calloc(1, n);
	r->hb.data = calloc(1, 2 * n);
	r->da = calloc(1, n);
	r->db = calloc(1, 2 * n);
	r->h.gpus = &r->g;
	r->h.ngpus = 1;
	r->h.o.loops = 16;
	r->h.bufs = (struct gf_h2d_bufs){ .size = n, .ha = &r->ha, .hb = &r->hb, .da = (uintptr_t)r->da,
					  .db = (uintptr_t)r->db };
	r->h.points = calloc(1, sizeof(*r->h.points));
	r->h.points[0] = (struct gf_h2d_point){ .dir = dir, .size = n };
	r->h.npoints = 1;
}

static void rig_fini(struct rig *r)
{
	free(r->ha.data), free(r->hb.data), free(r->da), free(r->db), free(r->h.points);
}

static void test_htod_figure_and_order(void **state)
{
	struct rig r;
	double gbs = 0;

	(void)state;
	rig_init(&r, 1 << 20, GF_H2D_HTOD);
	assert_int_equal(gf_h2d_sample(&r.h, &r.h.points[0], &gbs), 0);
	assert_true(r.h.points[0].verified);
	/* 16 copies of 1 MiB over 16 ms (one per copy, the scripted clock). */
	assert_true(fabs(gbs - 16.0 * (1 << 20) / 0.016 / 1e9) < 1e-6);
	/* The seed's readback copy aside: spin, 4 warm-up, start, 16, end. */
	assert_string_equal(trace, "Scccc<cccccccccccccccc>c");
	rig_fini(&r);
}

static void test_bidir_twice_the_bytes(void **state)
{
	struct rig r;
	double gbs = 0;

	(void)state;
	rig_init(&r, 1 << 16, GF_H2D_BIDIR_DTOH);
	r.h.points[0].verified = true;	/* the timed copies alone */
	assert_int_equal(gf_h2d_sample(&r.h, &r.h.points[0], &gbs), 0);
	assert_int_equal(dtoh, 20);	/* measured: 4 + 16 */
	assert_int_equal(htod, 20);	/* the other way, at once */
	assert_int_equal(big, 20);	/* ... each of twice the bytes */
	/* One spin releases both streams: the second waits on the event
	 * recorded behind it, so neither direction starts alone. */
	assert_int_equal(waits_ok, 1);
	assert_true(strncmp(trace, "SgW", 3) == 0);
	assert_null(strchr(trace + 1, 'S'));
	assert_true(gbs > 0);
	rig_fini(&r);
}

static void test_check_catches_dropped_and_wrong_bytes(void **state)
{
	struct rig r;
	double gbs = 0;

	(void)state;
	rig_init(&r, 1 << 16, GF_H2D_HTOD);
	fault = DROP;
	assert_int_equal(gf_h2d_sample(&r.h, &r.h.points[0], &gbs), -EIO);
	assert_non_null(strstr(gf_last_error(), "differ from those sent at offset 0"));
	assert_false(r.h.points[0].verified);
	rig_fini(&r);

	rig_init(&r, 1 << 16, GF_H2D_HTOD);
	fault = CORRUPT;
	assert_int_equal(gf_h2d_sample(&r.h, &r.h.points[0], &gbs), -EIO);
	assert_non_null(strstr(gf_last_error(), "at offset 65528"));	/* the word of byte n - 3 */
	rig_fini(&r);

	/* Device to host: the copy back to the host is the one checked. */
	rig_init(&r, 1 << 16, GF_H2D_DTOH);
	assert_int_equal(gf_h2d_sample(&r.h, &r.h.points[0], &gbs), 0);
	assert_true(r.h.points[0].verified);
	rig_fini(&r);
}

/* --direction: names checked, through the frame as the CLI gives them. */
static void test_directions_option(void **state)
{
	struct gf_bench *b;

	(void)state;
	assert_int_equal(gf_bench_new("h2d", &b), 0);
	assert_int_equal(gf_bench_set(b, "direction", "bidirectional_host_to_device,host_to_all"), 0);
	assert_int_equal(gf_bench_check(b), 0);
	assert_int_equal(gf_bench_set(b, "direction", "host_to_device,upwards"), 0);
	assert_int_equal(gf_bench_check(b), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "'upwards'"));
	assert_int_equal(gf_bench_set(b, "direction", ""), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--direction needs a LIST"));
	/* --all-at-once with only per-GPU figures named: refused. */
	assert_int_equal(gf_bench_set(b, "direction", "host_to_device"), 0);
	assert_int_equal(gf_bench_set(b, "all-at-once", NULL), 0);
	assert_int_equal(gf_bench_check(b), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--all-at-once"));
	gf_bench_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_htod_figure_and_order),
		cmocka_unit_test(test_bidir_twice_the_bytes),
		cmocka_unit_test(test_check_catches_dropped_and_wrong_bytes),
		cmocka_unit_test(test_directions_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
