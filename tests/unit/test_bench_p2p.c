/* bench p2p's timed copies and latency chase against a scripted driver (an
 * ops table of our own, device memory = host memory, two GPUs): the figure
 * is bytes x loops / the events' time; the queue is spin, 4 warm-up
 * copies, start, loops copies, end (nvbandwidth's order) on the stream of
 * the GPU that issues the copy (read: the destination, write: the
 * source); a bidirectional point runs the reverse copy on the other
 * GPU's second stream, released by the measured stream's one spin and
 * timed from its start event; the byte check catches a copy that moved
 * nothing or the wrong bytes, each way; the chase's figure and end check;
 * a figure above the path's limit is a finding; and the nvbandwidth cell
 * of each test.  The CLI test runs the whole command on the stand-in. */
#include "helpers.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/error.h>
#include "bench/p2p_bench.h"

struct gf_cu_event_st { double ms; int gpu; };
struct gf_cu_ctx_st { int gpu; };
struct gf_cu_function_st { char kind; };

enum fault { NONE, DROP, CORRUPT, DROP_REVERSE, WRONG_END };
static enum fault fault;
static char trace[1024];
static int cur = -1;			/* the current context's GPU */
static struct gf_p2p_gpu *gp;		/* the rig's two GPUs */
static unsigned by_stream[2][2];	/* copies per (GPU, stream) */
static unsigned peer_copies, local_copies, sm_copies, sm_grid, sm_block;
static double now_ms;
static struct gf_cu_ctx_st ctxs[2] = { { 0 }, { 1 } };
static struct gf_cu_function_st spin_fn = { 'S' }, copy_fn = { 'K' }, chase_fn = { 'C' };

static void note(const char *s)
{
	if (strlen(trace) + strlen(s) < sizeof(trace))
		strcat(trace, s);
}

/* Which GPU and stream number s is; asserts it belongs to the current GPU. */
static int stream_no(gf_cu_stream s, int *gpu)
{
	for (int g = 0; g < 2; g++)
		for (int k = 0; k < 2; k++)
			if (gp[g].s[k] == s) {
				*gpu = g;
				return k;
			}
	fail_msg("an unknown stream");
	return -1;
}

static void count(gf_cu_stream s)
{
	int g, k = stream_no(s, &g);

	assert_int_equal(g, cur);	/* issued with its GPU current */
	by_stream[g][k]++;
	now_ms += 1.0;	/* one ms per copy */
	note(k ? "r" : "c");
}

static gf_cu_result ok_ctx(gf_cu_context c) { cur = c->gpu; return 0; }

static void move(gf_cu_deviceptr d, gf_cu_deviceptr s, size_t n, bool reverse)
{
	if (fault == DROP || (fault == DROP_REVERSE && reverse))
		return;
	memcpy((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
	if (fault == CORRUPT)
		((unsigned char *)(uintptr_t)d)[n - 3] ^= 1;
}

static gf_cu_result do_peer(gf_cu_deviceptr d, gf_cu_context dc, gf_cu_deviceptr s, gf_cu_context sc, size_t n,
			    gf_cu_stream st)
{
	int g;

	assert_int_not_equal(dc->gpu, sc->gpu);
	peer_copies++;
	count(st);
	move(d, s, n, stream_no(st, &g) == 1);
	return 0;
}

static gf_cu_result do_dtod(gf_cu_deviceptr d, gf_cu_deviceptr s, size_t n, gf_cu_stream st)
{
	local_copies++;
	count(st);
	move(d, s, n, false);
	return 0;
}

static gf_cu_result do_htod(gf_cu_deviceptr d, const void *h, size_t n, gf_cu_stream s)
{
	(void)s;
	memcpy((void *)(uintptr_t)d, h, n);
	return 0;
}

static gf_cu_result do_dtoh(void *h, gf_cu_deviceptr d, size_t n, gf_cu_stream s)
{
	(void)s;
	memcpy(h, (const void *)(uintptr_t)d, n);
	if (fault == WRONG_END && n == 8)
		*(uint64_t *)h += 8;
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
	int g, k = stream_no(s, &g);

	assert_int_equal(g, cur);
	assert_ptr_not_equal(e, NULL);
	e->ms = now_ms;
	e->gpu = g;
	if (e == gp[g].go)
		note("g");
	else if (e == gp[g].start[k])
		note(k ? "(" : "<");
	else if (e == gp[g].end[k])
		note(k ? ")" : ">");
	else
		fail_msg("an event of another GPU or stream");
	return 0;
}

static gf_cu_result do_wait(gf_cu_stream s, gf_cu_event e, unsigned flags)
{
	int g, k = stream_no(s, &g);

	assert_int_equal(flags, 0);
	assert_int_equal(k, 1);			/* the reverse stream waits */
	assert_int_not_equal(e->gpu, g);	/* on the other GPU's event */
	note(e == gp[e->gpu].go ? "W" : "w");
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
	(void)gy, (void)gz, (void)by, (void)bz, (void)sh, (void)extra;
	if (f == &spin_fn) {
		assert_true(*(unsigned long long *)params[0] > 0);
		note("S");
	} else if (f == &copy_fn) {
		int g;

		sm_copies++;
		sm_grid = gx, sm_block = bx;
		count(s);
		move(*(gf_cu_deviceptr *)params[0], *(gf_cu_deviceptr *)params[1],
		     *(unsigned long long *)params[2], stream_no(s, &g) == 1);
	} else {
		uint64_t *p = (uint64_t *)(uintptr_t)*(gf_cu_deviceptr *)params[0];
		unsigned long long hops = *(unsigned long long *)params[1];

		for (unsigned long long i = 0; i < hops; i++)
			p = (uint64_t *)(uintptr_t)*p;
		*(uint64_t *)(uintptr_t)*(gf_cu_deviceptr *)params[2] = (uint64_t)(uintptr_t)p;
		now_ms += 2.0;
		note("C");
	}
	return 0;
}

static gf_cu_result do_alloc(gf_cu_deviceptr *d, size_t n)
{
	void *p = aligned_alloc(256, (n + 255) / 256 * 256);

	*d = (uintptr_t)p;
	return p ? 0 : 2;
}

static gf_cu_result do_free(gf_cu_deviceptr d) { free((void *)(uintptr_t)d); return 0; }

static const struct gf_cuda_ops ops = {
	.ctx_set_current = ok_ctx, .memcpy_peer_async = do_peer, .memcpy_dtod_async = do_dtod,
	.memcpy_htod_async = do_htod, .memcpy_dtoh_async = do_dtoh, .memset_d8_async = do_memset,
	.stream_synchronize = do_sync, .event_record = do_record, .event_elapsed_time = do_elapsed,
	.launch_kernel = do_launch, .stream_wait_event = do_wait, .mem_alloc = do_alloc, .mem_free = do_free,
};

struct rig {
	struct gf_bench_p2p p;
	struct gf_p2p_gpu g[2];
	struct gf_p2p_pair pairs[4];
	struct gf_cu_event_st ev[2][5];
	char streams[2][2];
	struct gf_p2p_point pt;
	struct gf_runner_point res;
};

static void rig_init(struct rig *r, enum gf_p2p_test t, enum gf_p2p_copy c, unsigned src, unsigned dst, size_t n)
{
	memset(r, 0, sizeof(*r));
	fault = NONE;
	trace[0] = '\0';
	memset(by_stream, 0, sizeof(by_stream));
	peer_copies = local_copies = sm_copies = sm_grid = sm_block = 0;
	now_ms = 0;
	cur = -1;
	gp = r->g;
	for (int g = 0; g < 2; g++) {
		struct gf_p2p_gpu *x = &r->g[g];

		x->index = (unsigned)g;
		x->open = true;
		x->dev.ops = &ops;
		x->dev.ctx = &ctxs[g];
		x->dev.sm_count = 132;
		x->spin.fn = &spin_fn;
		x->copy.fn = &copy_fn;
		x->chase.fn = &chase_fn;
		x->spin_cycles = 1000;
		for (int k = 0; k < 2; k++) {
			x->s[k] = (gf_cu_stream)&r->streams[g][k];
			x->start[k] = &r->ev[g][2 * k];
			x->end[k] = &r->ev[g][2 * k + 1];
		}
		x->go = &r->ev[g][4];
	}
	r->p.gpus = r->g;
	r->p.ngpus = 2;
	r->p.pairs = r->pairs;
	r->p.o.loops = 16;
	r->p.hops = 1000;
	r->pt = (struct gf_p2p_point){ .test = t, .copy = c, .src = src, .dst = dst, .size = n };
	r->p.points = &r->pt;
	r->p.npoints = 1;
	r->p.res = &r->res;
}

static int sample(struct rig *r, double *v)
{
	int rc = r->pt.test == GF_P2P_LATENCY ? gf_p2p_chain_for(&r->p, &r->pt) : gf_p2p_bufs_for(&r->p, &r->pt);

	assert_int_equal(rc, 0);
	return r->pt.test == GF_P2P_LATENCY ? gf_p2p_chase(&r->p, &r->pt, v) : gf_p2p_sample(&r->p, &r->pt, v);
}

static void rig_fini(struct rig *r)
{
	gf_p2p_bufs_free(&r->p);
	gf_p2p_chain_free(&r->p);
}

static void test_read_issued_by_destination(void **state)
{
	struct rig r;
	double gbs = 0;

	(void)state;
	rig_init(&r, GF_P2P_READ, GF_P2P_CE, 0, 1, 1 << 20);
	assert_int_equal(sample(&r, &gbs), 0);
	assert_true(r.pt.verified);
	/* 16 copies of 1 MiB over 16 ms (one per copy, the scripted clock). */
	assert_true(fabs(gbs - 16.0 * (1 << 20) / 0.016 / 1e9) < 1e-6);
	assert_string_equal(trace, "Scccc<cccccccccccccccc>");
	assert_int_equal(by_stream[1][0], 20);	/* GPU 1, the destination, pulls */
	assert_int_equal(by_stream[0][0] + by_stream[0][1] + by_stream[1][1], 0);
	assert_int_equal(peer_copies, 20);
	rig_fini(&r);
}

static void test_write_sm_issued_by_source(void **state)
{
	struct rig r;
	double gbs = 0;

	(void)state;
	rig_init(&r, GF_P2P_WRITE, GF_P2P_SM, 1, 0, 1 << 16);
	assert_int_equal(sample(&r, &gbs), 0);
	assert_int_equal(by_stream[1][0], 20);	/* GPU 1, the source, pushes */
	assert_int_equal(sm_copies, 20);
	assert_int_equal(peer_copies, 0);
	/* nvbandwidth's grid: a block of 512 threads per SM. */
	assert_int_equal(sm_grid, 132);
	assert_int_equal(sm_block, 512);
	assert_true(r.pt.verified);
	rig_fini(&r);
}

static void test_local_copy(void **state)
{
	struct rig r;
	double gbs = 0;

	(void)state;
	rig_init(&r, GF_P2P_LOCAL, GF_P2P_CE, 1, 1, 1 << 16);
	assert_int_equal(sample(&r, &gbs), 0);
	assert_int_equal(local_copies, 20);	/* cuMemcpyDtoDAsync, not a peer copy */
	assert_int_equal(by_stream[1][0], 20);
	assert_true(r.pt.verified);
	rig_fini(&r);
}

static void test_bidir_one_release(void **state)
{
	struct rig r;
	double gbs = 0;

	(void)state;
	rig_init(&r, GF_P2P_BIDIR_READ, GF_P2P_CE, 0, 1, 1 << 16);
	assert_int_equal(sample(&r, &gbs), 0);
	/* Measured: 0 -> 1 pulled by GPU 1; reverse: 1 -> 0 pulled by GPU 0,
	 * the same size, on its second stream. */
	assert_int_equal(by_stream[1][0], 20);
	assert_int_equal(by_stream[0][1], 20);
	/* One spin; the reverse stream waits on the event behind it (W), and
	 * times its copies from the measured start (w), as nvbandwidth. */
	assert_string_equal(trace, "SgWrrrrcccc<cccccccccccccccc>w(rrrrrrrrrrrrrrrr)");
	assert_true(fabs(gbs - 16.0 * (1 << 16) / 0.016 / 1e9) < 1e-6);
	rig_fini(&r);

	rig_init(&r, GF_P2P_BIDIR_WRITE, GF_P2P_SM, 0, 1, 1 << 16);
	assert_int_equal(sample(&r, &gbs), 0);
	assert_int_equal(by_stream[0][0], 20);	/* measured 0 -> 1 pushed by GPU 0 */
	assert_int_equal(by_stream[1][1], 20);	/* reverse 1 -> 0 pushed by GPU 1 */
	assert_true(r.pt.verified);
	rig_fini(&r);
}

static void test_check_catches_dropped_and_wrong_bytes(void **state)
{
	struct rig r;
	double gbs = 0;

	(void)state;
	rig_init(&r, GF_P2P_READ, GF_P2P_CE, 0, 1, 1 << 16);
	fault = DROP;
	assert_int_equal(sample(&r, &gbs), -EIO);
	assert_non_null(strstr(gf_last_error(), "the measured copy: the bytes copied differ from those sent at offset 0"));
	assert_false(r.pt.verified);
	rig_fini(&r);

	rig_init(&r, GF_P2P_WRITE, GF_P2P_SM, 0, 1, 1 << 16);
	fault = CORRUPT;
	assert_int_equal(sample(&r, &gbs), -EIO);
	assert_non_null(strstr(gf_last_error(), "at offset 65528"));	/* the word of byte n - 3 */
	rig_fini(&r);

	/* The reverse copy of a bidirectional point is checked too. */
	rig_init(&r, GF_P2P_BIDIR_WRITE, GF_P2P_CE, 0, 1, 1 << 16);
	fault = DROP_REVERSE;
	assert_int_equal(sample(&r, &gbs), -EIO);
	assert_non_null(strstr(gf_last_error(), "the reverse copy: the bytes copied differ"));
	rig_fini(&r);

	/* Checked once: later samples time without it. */
	rig_init(&r, GF_P2P_READ, GF_P2P_CE, 0, 1, 1 << 16);
	assert_int_equal(sample(&r, &gbs), 0);
	fault = DROP;
	assert_int_equal(sample(&r, &gbs), 0);
	rig_fini(&r);
}

static void test_chase(void **state)
{
	struct rig r;
	double ns = 0;

	(void)state;
	rig_init(&r, GF_P2P_LATENCY, GF_P2P_SM, 0, 1, GF_P2P_CHASE_BYTES);
	assert_int_equal(sample(&r, &ns), 0);
	/* 1000 loads in 2 scripted ms: 2000 ns each. */
	assert_true(fabs(ns - 2000.0) < 1e-6);
	assert_true(r.pt.verified);
	assert_string_equal(trace, "<C>");
	rig_fini(&r);

	rig_init(&r, GF_P2P_LATENCY, GF_P2P_SM, 0, 1, GF_P2P_CHASE_BYTES);
	fault = WRONG_END;
	assert_int_equal(sample(&r, &ns), -EIO);
	assert_non_null(strstr(gf_last_error(), "after 1000 loads, not at"));
	rig_fini(&r);
}

static void test_above_limit_is_a_finding(void **state)
{
	struct rig r;
	struct gf_p2p_flag flag;
	double v = 50;

	(void)state;
	rig_init(&r, GF_P2P_READ, GF_P2P_CE, 0, 1, 1 << 16);
	r.p.flags = &flag;
	r.pairs[0 * 2 + 1].limit_gb_per_s = 40;
	r.res.samples = &v;
	r.res.nsamples = 1;
	r.res.stats.median = 50;
	gf_p2p_sanity(&r.p);
	assert_int_equal(r.p.nflags, 1);
	assert_int_equal(gf_bench_p2p_findings(&r.p), 1);
	assert_non_null(strstr(flag.message, "above the path's theoretical 40.00 GB/s"));
	r.p.nflags = 0;
	r.res.stats.median = 39;
	gf_p2p_sanity(&r.p);
	assert_int_equal(gf_bench_p2p_findings(&r.p), 0);
}

/* nvbandwidth's cells: read and write keep the issuing GPU as the row;
 * the bidirectional read1/write1 matrices have the destination as the row. */
static void test_nvbandwidth_cells(void **state)
{
	struct gf_p2p_point pt = { .copy = GF_P2P_CE, .src = 0, .dst = 1 };
	unsigned row, col;

	(void)state;
	pt.test = GF_P2P_READ;
	assert_string_equal(gf_p2p_nvbw_name(&pt, &row, &col), "device_to_device_memcpy_read_ce");
	assert_true(row == 1 && col == 0);
	pt.test = GF_P2P_WRITE;
	assert_string_equal(gf_p2p_nvbw_name(&pt, &row, &col), "device_to_device_memcpy_write_ce");
	assert_true(row == 0 && col == 1);
	pt.test = GF_P2P_BIDIR_WRITE;
	pt.copy = GF_P2P_SM;
	assert_string_equal(gf_p2p_nvbw_name(&pt, &row, &col), "device_to_device_bidirectional_memcpy_write_sm");
	assert_true(row == 1 && col == 0);
	pt.test = GF_P2P_LOCAL;
	assert_null(gf_p2p_nvbw_name(&pt, &row, &col));	/* no SM local copy there */
	pt.copy = GF_P2P_CE;
	pt.src = pt.dst = 1;
	assert_string_equal(gf_p2p_nvbw_name(&pt, &row, &col), "device_local_copy");
	assert_true(row == 0 && col == 1);
	pt.test = GF_P2P_LATENCY;
	assert_null(gf_p2p_nvbw_name(&pt, &row, &col));	/* the diagonal: not nvbandwidth's */
	pt.src = 0;
	assert_string_equal(gf_p2p_nvbw_name(&pt, &row, &col), "device_to_device_latency_sm");
	assert_true(row == 1 && col == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_issued_by_destination),
		cmocka_unit_test(test_write_sm_issued_by_source),
		cmocka_unit_test(test_local_copy),
		cmocka_unit_test(test_bidir_one_release),
		cmocka_unit_test(test_check_catches_dropped_and_wrong_bytes),
		cmocka_unit_test(test_chase),
		cmocka_unit_test(test_above_limit_is_a_finding),
		cmocka_unit_test(test_nvbandwidth_cells),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
