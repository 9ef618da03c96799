/* The monitor's GPU figures (src/monitor/gpu*.c) through the stand-in NVML
 * (tests/fakes/fake_nvml.c: four H200s at 0000:00:06.0-09.0, as in the
 * h200x4-vm recording the model comes from), each figure from the knob
 * that sets it: GPM, its fallback to utilisation, PCIe and NVLink byte
 * counters over the interval, PCIe throughput without counters, levels,
 * named clocks event reasons, XID events, a process's share, and NVML
 * missing or failing (gpu_why, no failure). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gpufeed/monitor.h>
#include <gpufeed/error.h>

#include "helpers.h"
#include "monitor/gpu_nvml.h"
#include "monitor/monitor_internal.h"
#include "vendor/nvml/nvml.h"

static char *vm;
static double now_s;

static void tick(void *arg, double *mono, double *real)
{
	(void)arg;
	*mono = now_s;
	*real = 1700000000 + now_s;
}

static const char *const knobs[] = {
	"FAKE_NVML_SCENARIO", "FAKE_NVML_GPM", "FAKE_NVML_UTIL", "FAKE_NVML_COUNTERS", "FAKE_NVML_PCIE_KBS",
	"FAKE_NVML_THROTTLE", "FAKE_NVML_XID", "FAKE_NVML_PROCS", "FAKE_NVML_PCI",
};

static int reset(void **state)
{
	(void)state;
	t_use_fakes();
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		unsetenv(knobs[i]);
	gf_nvml_unload();
	now_s = 100;
	return 0;
}

static int setup(void **state)
{
	vm = t_mkdtemp();
	t_copytree(t_fixture_root("h200x4-vm"), vm);
	t_write(vm, "proc/857/stat", "857 (python3) S 1 857 857 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0\n");
	return reset(state);
}

static int teardown(void **state)
{
	(void)state;
	t_rmtree(vm);
	free(vm);
	return 0;
}

static struct gf_monitor *open_gpus(int pid)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	struct gf_mon_hooks h = { .root_is_live = true, .clock = tick };
	struct gf_monitor *m = NULL;

	o.root = vm;
	o.parts = GF_MON_GPU | (pid ? GF_MON_PROC : 0);
	o.pid = pid;
	if (gf_monitor_open_hooked(&o, &h, &m))
		fail_msg("gf_monitor_open: %s", gf_last_error());
	return m;
}

static const struct gf_mon_sample *sample(struct gf_monitor *m, double advance)
{
	const struct gf_mon_sample *s;

	now_s += advance;
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	return s;
}

#define MIB 1048576.0

static void gpm_figures(void **state)
{
	struct gf_monitor *m = open_gpus(0);
	const struct gf_mon_sample *s = sample(m, 0);
	const struct gf_mon_gpu *g = &s->gpus[0];

	(void)state;
	assert_null(s->gpu_why);
	assert_int_equal(s->ngpus, 4);
	assert_string_equal(g->pci, "0000:00:06.0");
	assert_string_equal(g->activity_source, "gpm");
	/* GPM's first sample only primes it. */
	assert_true(isnan(g->sm_active));
	assert_true(isnan(g->pcie_rx_bps));
	/* Levels are there at once. */
	assert_true(g->power_w == 350);
	assert_true(g->power_limit_w == 700);
	assert_int_equal(g->sm_clock_mhz, 1980);
	assert_int_equal(g->mem_clock_mhz, 3201);
	assert_int_equal(g->temperature_c, 41);
	assert_int_equal(g->mem_total, 150754820096ull);
	assert_int_equal(g->mem_used, 0);
	assert_int_equal(g->throttle_reasons, 1);
	assert_string_equal(g->throttle, "gpu_idle");
	assert_int_equal(g->ecc_corrected, 0);
	assert_int_equal(g->ecc_uncorrected, 0);
	assert_int_equal(s->gpus[3].ecc_corrected, 5);
	assert_int_equal(g->xid_events, 0);
	assert_true(isnan(g->proc_sm_share));
	assert_int_equal(g->proc_mem_used, GF_MON_NONE);

	setenv("FAKE_NVML_GPM", "87.5,62.5,12.5,25,100,200,300,400", 1);
	s = sample(m, 1);
	for (unsigned i = 0; i < s->ngpus; i++) {
		g = &s->gpus[i];
		assert_string_equal(g->activity_source, "gpm");
		assert_true(g->sm_active == 0.875);
		assert_true(g->sm_occupancy == 0.625);
		assert_true(g->tensor_active == 0.125);
		assert_true(g->dram_active == 0.25);
		assert_true(g->pcie_rx_bps == 100 * MIB);
		assert_true(g->pcie_tx_bps == 200 * MIB);
		assert_true(g->nvlink_rx_bps == 300 * MIB);
		assert_true(g->nvlink_tx_bps == 400 * MIB);
	}
	gf_monitor_close(m);
}

/* A GPU without GPM: utilisation for activity, the byte counters for
 * PCIe and NVLink over the interval. */
static void utilization_and_counters(void **state)
{
	struct gf_monitor *m;
	const struct gf_mon_sample *s;
	const struct gf_mon_gpu *g;

	(void)state;
	setenv("FAKE_NVML_SCENARIO", "no_gpm", 1);
	setenv("FAKE_NVML_UTIL", "35,20", 1);
	setenv("FAKE_NVML_COUNTERS", "1000,2000,10,20", 1);
	m = open_gpus(0);
	s = sample(m, 0);
	g = &s->gpus[1];
	assert_string_equal(g->activity_source, "utilization");
	assert_true(g->sm_active == 0.35);
	assert_true(g->dram_active == 0.2);
	assert_true(isnan(g->sm_occupancy));
	assert_true(isnan(g->tensor_active));
	assert_true(isnan(g->pcie_tx_bps));
	assert_true(isnan(g->nvlink_tx_bps));

	setenv("FAKE_NVML_COUNTERS", "5000,8000,1034,2068", 1);
	s = sample(m, 2);
	g = &s->gpus[1];
	assert_true(g->pcie_tx_bps == 2000);
	assert_true(g->pcie_rx_bps == 3000);
	/* KiB: 1024 KiB and 2048 KiB in 2 s. */
	assert_true(g->nvlink_tx_bps == 524288);
	assert_true(g->nvlink_rx_bps == 1048576);
	gf_monitor_close(m);
}

/* GPM failing for one sample falls back to the counters, which start
 * afresh then: never a rate against a reading from before GPM's run. */
static void counters_not_stale_after_gpm(void **state)
{
	struct gf_monitor *m;
	const struct gf_mon_sample *s;

	(void)state;
	setenv("FAKE_NVML_COUNTERS", "1000,1000,0,0", 1);
	m = open_gpus(0);
	sample(m, 0);			/* GPM primes, counters read */
	setenv("FAKE_NVML_COUNTERS", "9000000,9000000,0,0", 1);
	s = sample(m, 1);		/* GPM's figures */
	assert_true(s->gpus[0].pcie_rx_bps == 1000 * MIB);
	setenv("FAKE_NVML_SCENARIO", "no_gpm_metrics", 1);
	setenv("FAKE_NVML_COUNTERS", "9000100,9000200,0,0", 1);
	s = sample(m, 1);		/* GPM refuses: counters, primed only */
	assert_true(isnan(s->gpus[0].pcie_rx_bps));
	setenv("FAKE_NVML_COUNTERS", "9000300,9000600,0,0", 1);
	s = sample(m, 2);
	assert_true(s->gpus[0].pcie_tx_bps == 100);
	assert_true(s->gpus[0].pcie_rx_bps == 200);
	gf_monitor_close(m);
}

/* No byte counters either: nvmlDeviceGetPcieThroughput's KB/s, NVLink
 * unknown (NAN, never 0). */
static void pcie_throughput_without_counters(void **state)
{
	struct gf_monitor *m;
	const struct gf_mon_sample *s;

	(void)state;
	setenv("FAKE_NVML_SCENARIO", "no_fields", 1);
	setenv("FAKE_NVML_PCIE_KBS", "100,200", 1);
	m = open_gpus(0);
	sample(m, 0);
	s = sample(m, 1);
	/* GPM's own PCIe figures where GPM is there. */
	assert_true(s->gpus[0].pcie_rx_bps == 1000 * MIB);
	gf_monitor_close(m);

	/* Neither GPM nor counters: the throughput call answers at once. */
	setenv("FAKE_NVML_SCENARIO", "no_gpm,no_fields", 1);
	m = open_gpus(0);
	s = sample(m, 0);
	assert_true(s->gpus[2].pcie_tx_bps == 100 * 1024.0);
	assert_true(isnan(s->gpus[2].nvlink_tx_bps));
	s = sample(m, 1);
	assert_true(isnan(s->gpus[2].nvlink_rx_bps));
	gf_monitor_close(m);
}

static void throttle_named(void **state)
{
	struct gf_monitor *m;
	const struct gf_mon_sample *s;
	char small[20];

	(void)state;
	setenv("FAKE_NVML_THROTTLE", "0xc", 1);
	m = open_gpus(0);
	s = sample(m, 0);
	assert_int_equal(s->gpus[0].throttle_reasons, 0xc);
	assert_string_equal(s->gpus[0].throttle, "sw_power_cap,hw_slowdown");
	gf_monitor_close(m);

	gf_mon_throttle_names(0, small, sizeof(small));
	assert_string_equal(small, "");
	gf_mon_throttle_names(0x40 | 0x80 | 0x100, small, sizeof(small));
	assert_string_equal(small, "hw_thermal_slowdown");	/* never half a name */
}

static void xid_events_counted(void **state)
{
	struct gf_monitor *m;
	const struct gf_mon_sample *s;

	(void)state;
	setenv("FAKE_NVML_XID", "1:79,1:48,2:13", 1);
	m = open_gpus(0);
	s = sample(m, 0);
	assert_int_equal(s->gpus[0].xid_events, 0);
	assert_int_equal(s->gpus[0].last_xid, 0);
	assert_int_equal(s->gpus[1].xid_events, 2);
	assert_int_equal(s->gpus[1].last_xid, 48);
	assert_int_equal(s->gpus[2].xid_events, 1);
	assert_int_equal(s->gpus[2].last_xid, 13);
	/* Since open: they stay counted, and are not counted twice. */
	s = sample(m, 1);
	assert_int_equal(s->gpus[1].xid_events, 2);
	gf_monitor_close(m);
}

static void process_share(void **state)
{
	struct gf_monitor *m;
	const struct gf_mon_sample *s;

	(void)state;
	setenv("FAKE_NVML_PROCS", "857:0:30:1000,900:0:20:500,857:1:10:7", 1);
	m = open_gpus(857);
	s = sample(m, 0);
	assert_non_null(s->proc);
	assert_true(s->gpus[0].proc_sm_share == 0.3);
	assert_int_equal(s->gpus[0].proc_mem_used, 1000);
	assert_true(s->gpus[1].proc_sm_share == 0.1);
	assert_int_equal(s->gpus[1].proc_mem_used, 7);
	/* A GPU it does not use: 0 is the measurement. */
	assert_true(s->gpus[2].proc_sm_share == 0);
	assert_int_equal(s->gpus[2].proc_mem_used, 0);
	gf_monitor_close(m);

	/* Without GF_MON_PROC: no process part, the GPUs' share still its. */
	{
		struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
		struct gf_mon_hooks h = { .root_is_live = true, .clock = tick };

		o.root = vm;
		o.parts = GF_MON_GPU;
		o.pid = 857;
		assert_int_equal(gf_monitor_open_hooked(&o, &h, &m), 0);
	}
	s = sample(m, 0);
	assert_null(s->proc);
	assert_true(s->gpus[0].proc_sm_share == 0.3);
	/* No newer samples since: no kernel of anyone's ran. */
	s = sample(m, 1);
	assert_true(s->gpus[0].proc_sm_share == 0);
	assert_int_equal(s->gpus[0].proc_mem_used, 1000);
	gf_monitor_close(m);
}

static void nvml_missing_or_failing(void **state)
{
	struct gf_monitor *m;
	const struct gf_mon_sample *s;

	(void)state;
	setenv("GPUFEED_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	gf_nvml_unload();
	m = open_gpus(0);
	s = sample(m, 0);
	s = sample(m, 1);
	assert_non_null(s->gpu_why);
	assert_non_null(strstr(s->gpu_why, "NVML not available"));
	assert_non_null(strstr(s->gpu_why, "/nonexistent/libnvidia-ml.so.1"));
	/* The GPUs are still listed, from the model, without figures. */
	assert_int_equal(s->ngpus, 4);
	assert_string_equal(s->gpus[3].pci, "0000:00:09.0");
	assert_string_equal(s->gpus[3].activity_source, "none");
	assert_true(isnan(s->gpus[3].sm_active));
	assert_true(isnan(s->gpus[3].power_w));
	assert_int_equal(s->gpus[3].ecc_corrected, GF_MON_NONE);
	gf_monitor_close(m);

	reset(state);
	setenv("FAKE_NVML_SCENARIO", "init_fail", 1);
	m = open_gpus(0);
	s = sample(m, 0);
	assert_non_null(strstr(s->gpu_why, "nvmlInit failed: Driver Not Loaded"));
	assert_true(isnan(s->gpus[0].sm_active));
	gf_monitor_close(m);
}

/* A GPU NVML cannot reach: the others keep their figures. */
static void lost_gpu_keeps_the_others(void **state)
{
	struct gf_monitor *m;
	const struct gf_mon_sample *s;

	(void)state;
	setenv("FAKE_NVML_SCENARIO", "lost_gpu", 1);
	m = open_gpus(0);
	s = sample(m, 0);
	assert_null(s->gpu_why);
	assert_true(isnan(s->gpus[2].power_w));
	assert_true(s->gpus[3].power_w == 350);
	gf_monitor_close(m);
}

/* NVML's GPUs matched to the model's by PCI address, not by index. */
static void matched_by_pci_address(void **state)
{
	struct gf_monitor *m;
	const struct gf_mon_sample *s;

	(void)state;
	setenv("FAKE_NVML_PCI", "0000:00:07.0,0000:00:06.0,0000:00:08.0,0000:55:00.0", 1);
	setenv("FAKE_NVML_XID", "0:31", 1);
	m = open_gpus(0);
	s = sample(m, 0);
	assert_null(s->gpu_why);
	/* NVML's GPU 0 sits at the model's GPU1's address. */
	assert_int_equal(s->gpus[1].xid_events, 1);
	assert_int_equal(s->gpus[0].xid_events, 0);
	assert_true(s->gpus[2].power_w == 350);
	assert_true(isnan(s->gpus[3].power_w));
	gf_monitor_close(m);

	setenv("FAKE_NVML_PCI", "0000:77:00.0,0000:78:00.0,0000:79:00.0,0000:7a:00.0", 1);
	m = open_gpus(0);
	s = sample(m, 0);
	assert_non_null(s->gpu_why);
	assert_string_equal(s->gpu_why, "NVML lists 4 GPU(s), none of them a GPU of the model's (no PCI address matches)");
	gf_monitor_close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(gpm_figures, reset),
		cmocka_unit_test_setup(utilization_and_counters, reset),
		cmocka_unit_test_setup(counters_not_stale_after_gpm, reset),
		cmocka_unit_test_setup(pcie_throughput_without_counters, reset),
		cmocka_unit_test_setup(throttle_named, reset),
		cmocka_unit_test_setup(xid_events_counted, reset),
		cmocka_unit_test_setup(process_share, reset),
		cmocka_unit_test_setup(nvml_missing_or_failing, reset),
		cmocka_unit_test_setup(lost_gpu_keeps_the_others, reset),
		cmocka_unit_test_setup(matched_by_pci_address, reset),
	};

	return cmocka_run_group_tests_name("monitor_gpu", tests, setup, teardown);
}
