/* bench overlap's arithmetic: the bucket plan of an iteration (DDP's
 * buckets of bucket_cap bytes, the last the remainder), each bucket's
 * share of the compute phase, the --buckets list, and the overlap
 * fraction (t_serial - t_overlap) / min(t_compute, t_comm).  And the order
 * an iteration is queued in, against a scripted driver and NCCL on two
 * GPUs (the stand-in libraries run streams synchronously, so only the
 * order can show overlap): serial puts everything on the training stream,
 * overlapped puts bucket i's all-reduce on the second stream behind an
 * event recorded after bucket i's spin, and the training stream waits for
 * it at the end.  The CLI test runs the whole command on the stand-ins. */
#include "helpers.h"
#include <errno.h>
#include <math.h>
#include <string.h>

#include <gpufeed/error.h>
#include "bench/overlap_bench.h"

struct gf_cu_stream_st { char name; };
struct gf_cu_event_st { char name; };
struct gf_cu_ctx_st { int gpu; };
struct gf_cu_function_st { int unused; };
struct gf_nccl_comm_st { int gpu; };

#define MiB (1ull << 20)
#define GiB (1ull << 30)

static void plan_buckets(void **state)
{
	struct gf_overlap_plan p;
	uint64_t sum = 0;

	(void)state;
	assert_int_equal(gf_overlap_plan(GiB, 25 * MiB, &p), 0);
	assert_int_equal(p.nbuckets, 41);	/* 40 x 25 MiB + 24 MiB */
	for (unsigned i = 0; i < p.nbuckets; i++)
		sum += gf_overlap_bucket_bytes(&p, i);
	assert_true(sum == GiB);
	assert_true(gf_overlap_bucket_bytes(&p, 0) == 25 * MiB);
	assert_true(gf_overlap_bucket_bytes(&p, 40) == 24 * MiB);
	assert_true(gf_overlap_bucket_bytes(&p, 41) == 0);

	assert_int_equal(gf_overlap_plan(GiB, GF_OVERLAP_ALL, &p), 0);
	assert_int_equal(p.nbuckets, 1);
	assert_true(gf_overlap_bucket_bytes(&p, 0) == GiB);
	assert_int_equal(gf_overlap_plan(GiB, 2 * GiB, &p), 0);	/* larger than the model: one */
	assert_int_equal(p.nbuckets, 1);
	assert_int_equal(gf_overlap_plan(100 * MiB, 100 * MiB, &p), 0);
	assert_int_equal(p.nbuckets, 1);
	assert_int_equal(gf_overlap_plan(100 * MiB + 4, 100 * MiB, &p), 0);
	assert_int_equal(p.nbuckets, 2);
	assert_true(gf_overlap_bucket_bytes(&p, 1) == 4);
}

static void plan_refused(void **state)
{
	struct gf_overlap_plan p;

	(void)state;
	assert_int_equal(gf_overlap_plan(0, 4096, &p), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--grad-bytes"));
	assert_int_equal(gf_overlap_plan(4098, GF_OVERLAP_ALL, &p), -EINVAL);
	assert_int_equal(gf_overlap_plan(GiB, 4098, &p), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--buckets"));
	/* 64 GiB in 4 KiB buckets: 16 Mi kernels and all-reduces a pass. */
	assert_int_equal(gf_overlap_plan(64 * GiB, 4096, &p), -ERANGE);
	assert_non_null(strstr(gf_last_error(), "16777216 buckets"));
	assert_int_equal(gf_overlap_plan(256 * MiB, 4096, &p), 0);	/* exactly 65536 */
	assert_int_equal(p.nbuckets, GF_OVERLAP_NBUCKETS_MAX);
}

static void compute_shares(void **state)
{
	struct gf_overlap_plan p;
	unsigned long long total = 0;

	(void)state;
	/* 100 MiB in 40 MiB buckets, 10 ms at 1e6 cycles/ms: 4 + 4 + 2 ms. */
	assert_int_equal(gf_overlap_plan(100 * MiB, 40 * MiB, &p), 0);
	assert_int_equal(p.nbuckets, 3);
	assert_true(gf_overlap_bucket_cycles(&p, 0, 1e6, 10) == 4000000ull);
	assert_true(gf_overlap_bucket_cycles(&p, 2, 1e6, 10) == 2000000ull);
	for (unsigned i = 0; i < p.nbuckets; i++)
		total += gf_overlap_bucket_cycles(&p, i, 1e6, 10);
	assert_true(total == 10000000ull);
	/* A bucket too small for one cycle still launches a kernel. */
	assert_int_equal(gf_overlap_plan(256 * MiB, 4096, &p), 0);
	assert_true(gf_overlap_bucket_cycles(&p, 0, 1, 1) == 1);
}

static void parse_list(void **state)
{
	uint64_t s[GF_OVERLAP_CONFIGS_MAX];
	unsigned n;

	(void)state;
	assert_int_equal(gf_overlap_parse_buckets(GF_OVERLAP_BUCKETS_DEFAULT, GiB, s, GF_OVERLAP_CONFIGS_MAX, &n),
			 0);
	assert_int_equal(n, 7);
	assert_true(s[0] == MiB && s[3] == 25 * MiB && s[5] == 100 * MiB && s[6] == GF_OVERLAP_ALL);
	assert_int_equal(gf_overlap_parse_buckets("all", 4096, s, GF_OVERLAP_CONFIGS_MAX, &n), 0);
	assert_int_equal(n, 1);

	assert_int_equal(gf_overlap_parse_buckets("2G", GiB, s, GF_OVERLAP_CONFIGS_MAX, &n), -ERANGE);
	assert_non_null(strstr(gf_last_error(), "'2G'"));
	assert_non_null(strstr(gf_last_error(), "--grad-bytes"));
	assert_int_equal(gf_overlap_parse_buckets("1K", GiB, s, GF_OVERLAP_CONFIGS_MAX, &n), -ERANGE);
	assert_int_equal(gf_overlap_parse_buckets("4098", GiB, s, GF_OVERLAP_CONFIGS_MAX, &n), -ERANGE);
	assert_int_equal(gf_overlap_parse_buckets("25Q", GiB, s, GF_OVERLAP_CONFIGS_MAX, &n), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--buckets: '25Q'"));
	assert_int_equal(gf_overlap_parse_buckets(",", GiB, s, GF_OVERLAP_CONFIGS_MAX, &n), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "names no size"));
	assert_int_equal(gf_overlap_parse_buckets("1M,2M,3M", GiB, s, 2, &n), -ERANGE);
	assert_non_null(strstr(gf_last_error(), "at most 2"));
}

static void fraction(void **state)
{
	(void)state;
	/* The seed's DDP example: 12 ms compute, 10 ms comm, 22 ms serial;
	 * hidden entirely: 12 ms, fraction 1; nothing hidden: 0. */
	assert_true(fabs(gf_overlap_fraction(22, 12, 12, 10) - 1.0) < 1e-12);
	assert_true(fabs(gf_overlap_fraction(22, 22, 12, 10)) < 1e-12);
	assert_true(fabs(gf_overlap_fraction(22, 17, 12, 10) - 0.5) < 1e-12);
	/* Noise is shown, not clamped. */
	assert_true(gf_overlap_fraction(22, 23, 12, 10) < 0);
	assert_true(isnan(gf_overlap_fraction(22, 12, 12, 0)));
	assert_true(isnan(gf_overlap_fraction(0, 12, 12, 10)));
	assert_true(isnan(gf_overlap_fraction(22, NAN, 12, 10)));
	assert_string_equal(gf_overlap_mode_name(GF_OVERLAP_OVERLAPPED), "overlap");
	assert_string_equal(gf_overlap_mode_name(GF_OVERLAP_MODES), "?");
}

/* ---- the queue, against a scripted driver and NCCL ---- */

static char trace[2048];
static int cur = -1;			/* the current context's GPU */
static struct gf_cu_stream_st streams[2][2] = { { { 'T' }, { 'S' } }, { { 'T' }, { 'S' } } };
static struct gf_cu_event_st events[2][5];	/* start, end, comm_done, bucket 0, 1 */
static struct gf_cu_ctx_st ctxs[2] = { { 0 }, { 1 } };
static struct gf_nccl_comm_st comms[2] = { { 0 }, { 1 } };
static struct gf_cu_function_st spin_fn;

static void note(const char *fmt, int a, char b, char c)
{
	char buf[32];

	snprintf(buf, sizeof(buf), fmt, a, b, c);
	if (strlen(trace) + strlen(buf) < sizeof(trace))
		strcat(trace, buf);
}

static int gpu_of_stream(gf_cu_stream s)
{
	return s == &streams[1][0] || s == &streams[1][1];
}

static gf_cu_result set_ctx(gf_cu_context c) { cur = c->gpu; return 0; }

static gf_cu_result launch(gf_cu_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			   unsigned bz, unsigned shared, gf_cu_stream s, void **params, void **extra)
{
	(void)f; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shared; (void)extra;
	assert_int_equal(gpu_of_stream(s), cur);	/* launched in the stream's context */
	assert_int_equal(gx, 3);			/* --compute-blocks */
	assert_true(*(unsigned long long *)params[0] == 5000);	/* half of 10 ms at 1000 cycles/ms */
	note("K%d%c ", cur, s->name, 0);
	return 0;
}

static gf_cu_result record(gf_cu_event e, gf_cu_stream s)
{
	assert_int_equal(gpu_of_stream(s), cur);
	note("R%d%c%c ", cur, s->name, e->name);
	return 0;
}

static gf_cu_result wait_event(gf_cu_stream s, gf_cu_event e, unsigned flags)
{
	(void)flags;
	note("W%d%c%c ", cur, s->name, e->name);
	return 0;
}

static gf_nccl_result group_start(void) { note("[ ", 0, 0, 0); return 0; }
static gf_nccl_result group_end(void) { note("] ", 0, 0, 0); return GF_NCCL_IN_PROGRESS; }
static gf_nccl_result async_error(gf_nccl_comm c, gf_nccl_result *r) { (void)c; *r = 0; return 0; }

static gf_nccl_result all_reduce(const void *sb, void *rb, size_t count, gf_nccl_datatype t, gf_nccl_redop op,
				 gf_nccl_comm comm, gf_cu_stream s)
{
	assert_ptr_equal(sb, rb);			/* in place */
	assert_true(count == 4 * MiB / 4);		/* a bucket's floats */
	assert_int_equal(t, GF_NCCL_FLOAT32);
	assert_int_equal(op, GF_NCCL_SUM);
	assert_int_equal(gpu_of_stream(s), comm->gpu);
	/* Bucket k starts k x 4 MiB into the GPU's gradients. */
	note("A%d%c%c ", comm->gpu, s->name,
	     (char)('0' + (int)(((uintptr_t)sb - 0x100000 * (uintptr_t)(comm->gpu + 1)) / (4 * MiB))));
	return 0;
}

static void rig(struct gf_bench_overlap *b, struct gf_coll_comm *c, struct gf_coll_gpu *cg,
		struct gf_overlap_gpu *g, struct gf_overlap_point *pts, gf_cu_event (*bd)[2])
{
	static struct gf_cuda_ops cops;
	static struct gf_nccl_ops nops;

	cops.ctx_set_current = set_ctx;
	cops.launch_kernel = launch;
	cops.event_record = record;
	cops.stream_wait_event = wait_event;
	nops.group_start = group_start;
	nops.group_end = group_end;
	nops.comm_get_async_error = async_error;
	nops.all_reduce = all_reduce;
	memset(b, 0, sizeof(*b));
	*c = (struct gf_coll_comm){ .nccl = &nops, .nranks = 2, .ngpus = 2, .gpu = cg, .timeout_s = 5 };
	b->comm = c;
	b->ngpus = 2;
	b->gpus = g;
	b->o.compute_ms = 10;
	b->o.compute_blocks = 3;
	assert_int_equal(gf_overlap_plan(8 * MiB, 4 * MiB, &b->plans[0]), 0);
	b->nconfigs = 1;
	pts[0] = (struct gf_overlap_point){ 0, GF_OVERLAP_SERIAL };
	pts[1] = (struct gf_overlap_point){ 0, GF_OVERLAP_OVERLAPPED };
	pts[2] = (struct gf_overlap_point){ 0, GF_OVERLAP_COMPUTE };
	pts[3] = (struct gf_overlap_point){ 0, GF_OVERLAP_COMM };
	b->points = pts;
	b->npoints = 4;
	for (int i = 0; i < 2; i++) {
		const char names[] = "sedAB";

		for (int e = 0; e < 5; e++)
			events[i][e].name = names[e];
		cg[i] = (struct gf_coll_gpu){ .comm = &comms[i], .stream = &streams[i][0], .rank = i };
		cg[i].dev.ops = &cops;
		cg[i].dev.ctx = &ctxs[i];
		bd[i][0] = &events[i][3];
		bd[i][1] = &events[i][4];
		g[i] = (struct gf_overlap_gpu){ .cg = &cg[i], .side = &streams[i][1], .cycles_per_ms = 1000,
						.grad = 0x100000 * (gf_cu_deviceptr)(i + 1), .start = &events[i][0],
						.end = &events[i][1], .comm_done = &events[i][2], .bucket_done = bd[i],
						.nbucket_done = 2 };
		g[i].spin.fn = &spin_fn;
	}
}

static void queue_order(void **state)
{
	struct gf_bench_overlap b;
	struct gf_coll_comm c;
	struct gf_coll_gpu cg[2];
	struct gf_overlap_gpu g[2];
	struct gf_overlap_point pts[4];
	gf_cu_event bd[2][2];

	(void)state;
	rig(&b, &c, cg, g, pts, bd);
	trace[0] = '\0';
	assert_int_equal(gf_overlap_queue(&b, 0), 0);
	/* Serial: both spins, then both all-reduces, all on the training
	 * stream T; one NCCL group per bucket over the two GPUs. */
	assert_string_equal(trace, "R0Ts R1Ts K0T K1T K0T K1T [ A0T0 A1T0 ] [ A0T1 A1T1 ] R0Te R1Te ");
	trace[0] = '\0';
	assert_int_equal(gf_overlap_queue(&b, 1), 0);
	/* Overlapped: bucket k's all-reduce on S once S waits for the event
	 * recorded after bucket k's spin; T waits for S's last at the end. */
	assert_string_equal(trace, "R0Ts R1Ts "
			    "K0T R0TA W0SA K1T R1TA W1SA [ A0S0 A1S0 ] "
			    "K0T R0TB W0SB K1T R1TB W1SB [ A0S1 A1S1 ] "
			    "R0Sd W0Td R0Te R1Sd W1Td R1Te ");
	trace[0] = '\0';
	assert_int_equal(gf_overlap_queue(&b, 2), 0);
	assert_string_equal(trace, "R0Ts R1Ts K0T K1T K0T K1T R0Te R1Te ");
	trace[0] = '\0';
	assert_int_equal(gf_overlap_queue(&b, 3), 0);
	assert_string_equal(trace, "R0Ts R1Ts [ A0T0 A1T0 ] [ A0T1 A1T1 ] R0Te R1Te ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plan_buckets),
		cmocka_unit_test(plan_refused),
		cmocka_unit_test(compute_shares),
		cmocka_unit_test(parse_list),
		cmocka_unit_test(fraction),
		cmocka_unit_test(queue_order),
	};

	return cmocka_run_group_tests_name("bench_overlap", tests, NULL, NULL);
}
