/* CPU and scheduler checks (src/audit/checks_cpu.c) on copies of the
 * fixture machines.  ci-vm: a Firecracker VM without cpufreq, two CPUs,
 * cpuidle POLL + haltpoll; hgx-h100-8gpu: bare metal, 224 CPUs with the
 * performance governor, no cpuidle recorded. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gpufeed/record.h>

#include "audit_fixture.h"

#define CPU "/sys/devices/system/cpu/"

static void test_governor(void **state)
{
	struct afx *vm = afx_new("ci-vm"), *hgx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	r = afx_expect(vm, "cpu.governor", "", GF_CHECK_NA);	/* never a fail in a VM */
	assert_non_null(strstr(r->note, "VM"));
	r = afx_expect(hgx, "cpu.governor", "", GF_CHECK_PASS);
	assert_string_equal(r->observed, "performance on all 224 CPUs");
	afx_put(hgx, CPU "cpu5/cpufreq/scaling_governor", "powersave\n");
	afx_put(hgx, CPU "cpu6/cpufreq/scaling_governor", "powersave\n");
	afx_put(hgx, CPU "cpu100/cpufreq/scaling_governor", "schedutil\n");
	r = afx_expect(hgx, "cpu.governor", "", GF_CHECK_WARN);
	assert_string_equal(r->observed, "powersave, schedutil on 3 of 224 CPUs (5-6,100)");
	/* One result for the host, advice (not 224 writes). */
	assert_int_equal(hgx->last->nresults, 1);
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	afx_free(vm);
	afx_free(hgx);
}

static void test_epp(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "cpu.epp", "", GF_CHECK_NA);	/* acpi-cpufreq: no EPP */
	afx_put(fx, CPU "cpu0/cpufreq/energy_performance_preference", "performance\n");
	afx_put(fx, CPU "cpu1/cpufreq/energy_performance_preference", "balance_performance\n");
	r = afx_expect(fx, "cpu.epp", "", GF_CHECK_WARN);
	assert_string_equal(r->observed, "balance_performance on 1 of 2 CPUs (1)");
	afx_put(fx, CPU "cpu1/cpufreq/energy_performance_preference", "performance\n");
	afx_expect(fx, "cpu.epp", "", GF_CHECK_PASS);
	afx_free(fx);
}

static void test_max_freq(void **state)
{
	struct afx *vm = afx_new("ci-vm"), *hgx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(vm, "cpu.max-freq", "", GF_CHECK_NA);
	afx_expect(hgx, "cpu.max-freq", "", GF_CHECK_PASS);
	afx_put(hgx, CPU "cpu3/cpufreq/scaling_max_freq", "2000000\n");
	r = afx_expect(hgx, "cpu.max-freq", "", GF_CHECK_WARN);
	assert_string_equal(r->observed, "2000 of 3800 MHz on 1 of 224 CPUs (3)");
	afx_put(hgx, CPU "cpu3/cpufreq/scaling_max_freq", "fast\n");
	afx_expect(hgx, "cpu.max-freq", "", GF_CHECK_ERROR);
	afx_free(vm);
	afx_free(hgx);
}

static void test_boost(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "cpu.boost", "", GF_CHECK_NA);	/* VMs have neither file */
	afx_put(fx, CPU "cpufreq/boost", "0\n");
	r = afx_expect(fx, "cpu.boost", "", GF_CHECK_WARN);
	assert_int_equal(r->fix_class, GF_FIX_SAFE);
	assert_string_equal(r->path, CPU "cpufreq/boost");
	assert_string_equal(r->value, "1");
	assert_string_equal(r->persist_file, "/etc/tmpfiles.d/gpufeed.conf");
	afx_put(fx, CPU "cpufreq/boost", "1\n");
	afx_expect(fx, "cpu.boost", "", GF_CHECK_PASS);
	/* intel_pstate's inverted knob takes precedence where it exists. */
	afx_put(fx, CPU "intel_pstate/no_turbo", "1\n");
	r = afx_expect(fx, "cpu.boost", "", GF_CHECK_WARN);
	assert_string_equal(r->path, CPU "intel_pstate/no_turbo");
	assert_string_equal(r->value, "0");
	afx_put(fx, CPU "intel_pstate/no_turbo", "0\n");
	afx_expect(fx, "cpu.boost", "", GF_CHECK_PASS);
	afx_free(fx);
}

static void test_min_perf(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "cpu.min-perf", "", GF_CHECK_NA);
	afx_put(fx, CPU "intel_pstate/min_perf_pct", "24\n");
	r = afx_expect(fx, "cpu.min-perf", "", GF_CHECK_WARN);
	assert_string_equal(r->value, "100");
	afx_put(fx, CPU "intel_pstate/min_perf_pct", "100\n");
	afx_expect(fx, "cpu.min-perf", "", GF_CHECK_PASS);
	afx_free(fx);
}

static void put_state(struct afx *fx, int i, const char *name, const char *latency, const char *disable)
{
	char path[128];

	snprintf(path, sizeof(path), CPU "cpu0/cpuidle/state%d/name", i);
	afx_put(fx, path, name);
	snprintf(path, sizeof(path), CPU "cpu0/cpuidle/state%d/latency", i);
	afx_put(fx, path, latency);
	snprintf(path, sizeof(path), CPU "cpu0/cpuidle/state%d/disable", i);
	afx_put(fx, path, disable);
}

static void test_cstate_profiles(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "cpu.cstate", "", GF_CHECK_PASS);	/* POLL 0, haltpoll 1 */
	/* A bare-metal set: C1 2 us, C1E 10 us, C6 170 us. */
	put_state(fx, 1, "C1\n", "2\n", "0\n");
	put_state(fx, 2, "C1E\n", "10\n", "0\n");
	put_state(fx, 3, "C6\n", "170\n", "0\n");
	r = afx_expect(fx, "cpu.cstate", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "C6 170 us (deep)"));
	assert_non_null(strstr(r->fix, "-D 100"));
	assert_non_null(strstr(r->note, "recording"));
	put_state(fx, 3, "C6\n", "170\n", "1\n");	/* disabled */
	afx_expect(fx, "cpu.cstate", "", GF_CHECK_PASS);
	/* Inference: C1 only, so C1E (10 us) is already too deep. */
	fx->profile = GF_PROFILE_INFERENCE;
	r = afx_expect(fx, "cpu.cstate", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "C1E 10 us (deep)"));
	put_state(fx, 2, "C1E\n", "10\n", "1\n");
	afx_expect(fx, "cpu.cstate", "", GF_CHECK_PASS);
	afx_free(fx);
}

static void test_cstate_qos_and_absent(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;
	int32_t qos = 50;

	(void)state;
	put_state(fx, 2, "C6\n", "170\n", "0\n");
	afx_put(fx, "/proc/cmdline", "ro quiet intel_idle.max_cstate=6\n");
	r = afx_expect(fx, "cpu.cstate", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "max_cstate=6"));
	/* A PM QoS request (TuneD force_latency) keeps C6 out: pass. */
	t_write_bytes(fx->dir, "dev/cpu_dma_latency", &qos, sizeof(qos));
	r = afx_expect(fx, "cpu.cstate", "", GF_CHECK_PASS);
	assert_non_null(strstr(r->note, "50 us"));
	qos = 2000000000;	/* no request */
	t_write_bytes(fx->dir, "dev/cpu_dma_latency", &qos, sizeof(qos));
	afx_expect(fx, "cpu.cstate", "", GF_CHECK_WARN);
	afx_rm(fx, CPU "cpu0/cpuidle");
	afx_expect(fx, "cpu.cstate", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_nmi_watchdog(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "cpu.nmi-watchdog", "", GF_CHECK_NA);	/* not in the old recording */
	afx_put(fx, "/proc/sys/kernel/nmi_watchdog", "0\n");
	afx_expect(fx, "cpu.nmi-watchdog", "", GF_CHECK_PASS);
	afx_put(fx, "/proc/sys/kernel/nmi_watchdog", "1\n");
	afx_expect(fx, "cpu.nmi-watchdog", "", GF_CHECK_PASS);	/* training does not care */
	fx->profile = GF_PROFILE_INFERENCE;
	r = afx_expect(fx, "cpu.nmi-watchdog", "", GF_CHECK_WARN);
	assert_string_equal(r->path, "/proc/sys/kernel/nmi_watchdog");
	assert_string_equal(r->value, "0");
	afx_free(fx);
}

/* The per-CPU files come through gpufeed record (copy_cpufreq). */
static void test_recording_keeps_status(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	static const char *const ids[] = { "cpu.governor", "cpu.epp", "cpu.max-freq", "cpu.boost",
					   "cpu.nmi-watchdog" };

	(void)state;
	afx_put(fx, CPU "cpu7/cpufreq/scaling_governor", "powersave\n");
	afx_put(fx, CPU "cpu7/cpufreq/energy_performance_preference", "power\n");
	afx_put(fx, CPU "cpu9/cpufreq/scaling_max_freq", "1000000\n");
	afx_put(fx, CPU "cpufreq/boost", "0\n");
	afx_put(fx, "/proc/sys/kernel/nmi_watchdog", "1\n");
	fx->profile = GF_PROFILE_INFERENCE;
	afx_record_keeps(fx, ids, sizeof(ids) / sizeof(ids[0]), GF_CHECK_WARN);
	afx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_governor),
		cmocka_unit_test(test_epp),
		cmocka_unit_test(test_max_freq),
		cmocka_unit_test(test_boost),
		cmocka_unit_test(test_min_perf),
		cmocka_unit_test(test_cstate_profiles),
		cmocka_unit_test(test_cstate_qos_and_absent),
		cmocka_unit_test(test_nmi_watchdog),
		cmocka_unit_test(test_recording_keeps_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
