/* The verdict on synthetic sample sequences: each class, the mixed case,
 * the straggler whose input stall is the others' communication wait, and
 * steps from markers or inferred from the GPU's period. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "diagnose/verdict.h"

static struct gf_diag_acc acc;
static struct gf_diag_verdict v;

/* A rank with no GPU and nothing known but what the test sets. */
static struct gf_diag_rank_tick rank(void)
{
	return (struct gf_diag_rank_tick){ .pid = 100, .throttled = NAN, .gpu_active = NAN, .pcie_rx_frac = NAN,
					   .link_frac = NAN, .majflt_ps = NAN };
}

static void feed(const struct gf_diag_rank_tick *ranks, unsigned n, int ticks)
{
	struct gf_diag_tick t = { .dt = 1.0, .nranks = n, .disk_busy = NAN, .disk_read_bps = NAN,
				  .disk_limit_bps = NAN };

	for (unsigned i = 0; i < n; i++)
		t.rank[i] = ranks[i];
	for (int i = 0; i < ticks; i++) {
		t.t = i;
		assert_int_equal(gf_diag_acc_add(&acc, &t), 0);
	}
}

static void classify_one(const struct gf_diag_rank_tick *r, int ticks)
{
	gf_diag_acc_init(&acc);
	feed(r, 1, ticks);
	gf_diag_classify(&acc, &v);
	assert_true(v.known);
}

static void expect_why(enum gf_diag_part p, const char *words)
{
	if (!strstr(v.why[p], words))
		fail_msg("why[%s] = '%s' lacks '%s'", gf_diag_part_name(p), v.why[p], words);
}

static void sleeping_job_is_host_bound(void **state)
{
	struct gf_diag_rank_tick r = rank();

	(void)state;
	r.run = 0.05;
	r.wait[GF_DW_SLEEP] = 0.95;
	classify_one(&r, 10);
	assert_int_equal(v.bound, GF_DIAG_HOST);
	assert_false(v.gpu);
	assert_false(v.mixed);
	assert_true(fabs(v.frac[GF_DIAG_HOST] - 1.0) < 1e-9);
	expect_why(GF_DIAG_HOST, "slept or polled 95%");
	assert_string_equal(v.step_source, "none");
	/* the job's own sleeps: no host setting bears on them */
	assert_null(gf_diag_check_categories(&v));
}

static void cpu_burning_job_is_host_bound_on_its_own_cpu(void **state)
{
	struct gf_diag_rank_tick r = rank();

	(void)state;
	r.run = 0.98;
	r.runq = 0.02;
	r.cpu = 1.0;
	classify_one(&r, 10);
	assert_int_equal(v.bound, GF_DIAG_HOST);
	expect_why(GF_DIAG_HOST, "on a CPU 98%");
	assert_non_null(strstr(v.fix[GF_DIAG_HOST], "gpufeed verify"));
}

static void contention_is_named_with_the_binding_fix(void **state)
{
	struct gf_diag_rank_tick r = rank();

	(void)state;
	r.run = 0.3;
	r.runq = 0.6;
	r.wait[GF_DW_SLEEP] = 0.1;
	classify_one(&r, 10);
	assert_int_equal(v.bound, GF_DIAG_HOST);
	expect_why(GF_DIAG_HOST, "waiting for a CPU 60%");
	assert_non_null(strstr(v.fix[GF_DIAG_HOST], "gpufeed run --gpu N --cpu node"));
	assert_string_equal(gf_diag_check_categories(&v), "cpu");
}

static void disk_reads_are_input_bound_with_the_speedup(void **state)
{
	struct gf_diag_rank_tick r = rank();

	(void)state;
	r.run = 0.2;
	r.wait[GF_DW_DISK] = 0.7;
	r.wait[GF_DW_SLEEP] = 0.1;
	r.read_bps = 50e6;
	r.rchar_bps = 50e6;
	r.majflt_ps = 120;
	classify_one(&r, 20);
	assert_int_equal(v.bound, GF_DIAG_INPUT);
	assert_true(fabs(v.frac[GF_DIAG_INPUT] - 0.7) < 1e-9);
	assert_true(fabs(v.speedup[GF_DIAG_INPUT] - 1 / 0.3) < 1e-9);
	expect_why(GF_DIAG_INPUT, "disk: the step thread blocked reading files 70%");
	expect_why(GF_DIAG_INPUT, "50.0 MB/s from storage");
	expect_why(GF_DIAG_INPUT, "120 major page faults/s (a mapped file)");
	assert_non_null(strstr(v.fix[GF_DIAG_INPUT], "O_DIRECT"));
	assert_string_equal(gf_diag_check_categories(&v), "storage");
}

static void a_slow_pipe_is_input_from_another_process(void **state)
{
	struct gf_diag_rank_tick r = rank();

	(void)state;
	r.run = 0.1;
	r.wait[GF_DW_PIPE] = 0.9;
	r.children_cpu = 1.0;
	classify_one(&r, 10);
	assert_int_equal(v.bound, GF_DIAG_INPUT);
	expect_why(GF_DIAG_INPUT, "pipe or socket 90%");
	expect_why(GF_DIAG_INPUT, "CPU decode");
}

/* The loader's wait is a futex: the channel moves it from sync to input. */
static void the_loaders_wait_counts_as_input(void **state)
{
	struct gf_diag_rank_tick r = rank();

	(void)state;
	r.run = 0.3;
	r.wait[GF_DW_SYNC] = 0.7;
	r.input_wait_s = 0.6;
	r.input_bytes = 100000000;
	classify_one(&r, 10);
	assert_int_equal(v.bound, GF_DIAG_INPUT);
	assert_true(fabs(v.frac[GF_DIAG_INPUT] - 0.6) < 1e-9);
	expect_why(GF_DIAG_INPUT, "waited 60% of the time in gf_loader_next (100.0 MB/s");
}

static void a_busy_gpu_is_compute_bound(void **state)
{
	struct gf_diag_rank_tick r = rank();

	(void)state;
	r.run = 0.1;
	r.wait[GF_DW_GPU] = 0.9;
	r.gpu_active = 0.95;
	r.link_frac = 0.02;
	classify_one(&r, 10);
	assert_true(v.gpu);
	assert_int_equal(v.bound, GF_DIAG_COMPUTE);
	assert_true(fabs(v.frac[GF_DIAG_COMPUTE] - 0.93) < 1e-9);
	assert_true(fabs(v.frac[GF_DIAG_HOST] - 0.05) < 1e-9);
	expect_why(GF_DIAG_COMPUTE, "GPU computing 93%");
	assert_string_equal(gf_diag_check_categories(&v), "gpu");
}

static void links_near_their_limit_are_communication(void **state)
{
	struct gf_diag_rank_tick r = rank();

	(void)state;
	r.wait[GF_DW_GPU] = 1.0;
	r.gpu_active = 0.9;
	r.link_frac = 0.7;
	classify_one(&r, 10);
	assert_int_equal(v.bound, GF_DIAG_COMM);
	assert_true(fabs(v.frac[GF_DIAG_COMM] - 0.7) < 1e-9);
	assert_non_null(strstr(v.fix[GF_DIAG_COMM], "gpufeed nccl log"));
	assert_string_equal(gf_diag_check_categories(&v), "nccl,pcie");
}

static void an_idle_gpu_waiting_for_copies_is_the_h2d_part(void **state)
{
	struct gf_diag_rank_tick r = rank();

	(void)state;
	r.run = 0.1;
	r.wait[GF_DW_PIPE] = 0.6;
	r.wait[GF_DW_GPU] = 0.3;
	r.gpu_active = 0.3;
	r.pcie_rx_frac = 0.8;
	classify_one(&r, 10);
	assert_int_equal(v.bound, GF_DIAG_INPUT);
	/* 70% idle, 6/7 of what the host did meanwhile was input */
	assert_true(fabs(v.frac[GF_DIAG_INPUT] - 0.6) < 1e-9);
	expect_why(GF_DIAG_INPUT, "host-to-GPU copy: PCIe at 80%");
	assert_string_equal(gf_diag_check_categories(&v), "pcie");
}

static void input_and_host_alike_is_mixed(void **state)
{
	struct gf_diag_rank_tick r = rank();

	(void)state;
	r.run = 0.40;
	r.wait[GF_DW_DISK] = 0.5;
	r.wait[GF_DW_SLEEP] = 0.1;
	classify_one(&r, 10);
	assert_int_equal(v.bound, GF_DIAG_INPUT);
	assert_int_equal(v.second, GF_DIAG_HOST);
	assert_true(v.mixed);
	/* not mixed when the second is far behind */
	r.run = 0.2;
	r.wait[GF_DW_DISK] = 0.8;
	r.wait[GF_DW_SLEEP] = 0;
	classify_one(&r, 10);
	assert_int_equal(v.bound, GF_DIAG_INPUT);
	assert_false(v.mixed);
}

/* Rank 1 waits for its input; rank 0 spends the time in collectives
 * waiting for rank 1: the job is input-bound and rank 1 is named. */
static void a_stragglers_input_stall_is_everyones_wait(void **state)
{
	struct gf_diag_rank_tick r[3] = { rank(), rank(), rank() };

	(void)state;
	for (int i = 0; i < 3; i++) {
		r[i].pid = 200 + i;
		r[i].wait[GF_DW_GPU] = 1.0;
		r[i].gpu_active = 0.9;
		r[i].link_frac = 0.8;
	}
	r[1].wait[GF_DW_GPU] = 0.2;
	r[1].wait[GF_DW_DISK] = 0.8;
	r[1].gpu_active = 0.2;
	r[1].link_frac = 0.1;
	gf_diag_acc_init(&acc);
	feed(r, 3, 10);
	gf_diag_classify(&acc, &v);
	assert_int_equal(v.nranks, 3);
	assert_int_equal(v.straggler, 1);
	assert_true(fabs(v.straggler_input - 0.8) < 1e-9);
	assert_true(v.others_input < 1e-9);
	assert_int_equal(v.bound, GF_DIAG_INPUT);
	assert_int_equal(v.second, GF_DIAG_COMM);
	expect_why(GF_DIAG_INPUT, "disk");
}

static void no_straggler_among_equals(void **state)
{
	struct gf_diag_rank_tick r[2] = { rank(), rank() };

	(void)state;
	r[0].wait[GF_DW_DISK] = r[1].wait[GF_DW_DISK] = 0.5;
	r[0].run = r[1].run = 0.5;
	gf_diag_acc_init(&acc);
	feed(r, 2, 5);
	gf_diag_classify(&acc, &v);
	assert_int_equal(v.straggler, -1);
}

/* A rank that exited before its first interval keeps its slot and counts
 * for nothing; each part is explained from the rank where it is largest. */
static void a_gone_rank_counts_for_nothing(void **state)
{
	struct gf_diag_rank_tick r[3] = { rank(), rank(), rank() };

	(void)state;
	r[0].gone = true;
	r[1].wait[GF_DW_SLEEP] = 1.0;
	r[2].run = 0.9;
	r[2].wait[GF_DW_PIPE] = 0.1;
	gf_diag_acc_init(&acc);
	feed(r, 3, 5);
	gf_diag_classify(&acc, &v);
	assert_true(v.known);
	assert_true(fabs(v.frac[GF_DIAG_HOST] - 0.95) < 1e-9);
	assert_true(fabs(v.frac[GF_DIAG_INPUT] - 0.05) < 1e-9);
	expect_why(GF_DIAG_HOST, "slept or polled 100%");
	expect_why(GF_DIAG_INPUT, "pipe or socket 10%");
	assert_int_equal(v.straggler, -1);
}

static void steps_from_markers(void **state)
{
	struct gf_diag_rank_tick r = rank();

	(void)state;
	r.run = 1;
	r.steps = 4;
	r.step_s = 1.0;
	classify_one(&r, 10);
	assert_string_equal(v.step_source, "markers");
	assert_int_equal(v.steps, 40);
	assert_true(fabs(v.step_mean_s - 0.25) < 1e-9);
}

static void steps_inferred_from_the_gpus_period(void **state)
{
	struct gf_diag_tick t = { .dt = 0.5, .nranks = 1 };

	(void)state;
	gf_diag_acc_init(&acc);
	t.rank[0] = rank();
	t.rank[0].run = 1;
	/* busy 3 samples, idle 2: a 2.5 s step at 0.5 s a sample */
	for (int i = 0; i < 60; i++) {
		t.rank[0].gpu_active = i % 5 < 3 ? 0.9 : 0.05;
		assert_int_equal(gf_diag_acc_add(&acc, &t), 0);
	}
	gf_diag_classify(&acc, &v);
	assert_string_equal(v.step_source, "gpu-period");
	assert_true(fabs(v.step_mean_s - 2.5) < 1e-9);
	assert_int_equal(v.steps, 12);
}

static void no_period_in_flat_or_random_activity(void **state)
{
	double x[200];
	unsigned s = 12345;

	(void)state;
	for (int i = 0; i < 200; i++)
		x[i] = 0.7;
	assert_true(gf_diag_infer_period(x, 200, 1) == 0);
	for (int i = 0; i < 200; i++) {
		s = s * 1103515245u + 12345u;
		x[i] = (double)((s >> 16) & 0x7fff) / 32768.0;
	}
	assert_true(gf_diag_infer_period(x, 200, 1) == 0);
	x[3] = NAN;
	assert_true(gf_diag_infer_period(x, 200, 1) == 0);
	assert_true(gf_diag_infer_period(x, 4, 1) == 0);
}

static void bad_ticks_are_refused(void **state)
{
	struct gf_diag_tick t = { .dt = 0, .nranks = 1 };

	(void)state;
	gf_diag_acc_init(&acc);
	assert_int_equal(gf_diag_acc_add(&acc, &t), -EINVAL);
	t.dt = NAN;
	assert_int_equal(gf_diag_acc_add(&acc, &t), -EINVAL);
	t.dt = 1;
	t.nranks = GF_DIAG_MAX_RANKS + 1;
	assert_int_equal(gf_diag_acc_add(&acc, &t), -EINVAL);
	gf_diag_classify(&acc, &v);
	assert_false(v.known);
	assert_string_equal(v.step_source, "none");
	assert_null(gf_diag_check_categories(&v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sleeping_job_is_host_bound),
		cmocka_unit_test(cpu_burning_job_is_host_bound_on_its_own_cpu),
		cmocka_unit_test(contention_is_named_with_the_binding_fix),
		cmocka_unit_test(disk_reads_are_input_bound_with_the_speedup),
		cmocka_unit_test(a_slow_pipe_is_input_from_another_process),
		cmocka_unit_test(the_loaders_wait_counts_as_input),
		cmocka_unit_test(a_busy_gpu_is_compute_bound),
		cmocka_unit_test(links_near_their_limit_are_communication),
		cmocka_unit_test(an_idle_gpu_waiting_for_copies_is_the_h2d_part),
		cmocka_unit_test(input_and_host_alike_is_mixed),
		cmocka_unit_test(a_stragglers_input_stall_is_everyones_wait),
		cmocka_unit_test(no_straggler_among_equals),
		cmocka_unit_test(a_gone_rank_counts_for_nothing),
		cmocka_unit_test(steps_from_markers),
		cmocka_unit_test(steps_inferred_from_the_gpus_period),
		cmocka_unit_test(no_period_in_flat_or_random_activity),
		cmocka_unit_test(bad_ticks_are_refused),
	};

	return cmocka_run_group_tests_name("diagnose_verdict", tests, NULL, NULL);
}
