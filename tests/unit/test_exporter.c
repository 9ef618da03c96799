/* The exporter's metrics from hand-built samples (src/exporter/metrics.c):
 * DCGM exporter's names, units and labels where they overlap, the activity
 * figures under the name of their source, unknown figures left out, and
 * the listen addresses the server takes (src/exporter/http.c). */
#include "helpers.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/gpufeed.h>

static struct gf_mon_gpu gpu_template(int index)
{
	struct gf_mon_gpu g = {
		.index = index,
		.activity_source = "gpm",
		.sm_active = 0.5, .sm_occupancy = 0.25, .tensor_active = 0.125, .dram_active = 0.75,
		.mem_used = 3ull << 30, .mem_total = 80ull << 30,
		.pcie_rx_bps = 1.5e9, .pcie_tx_bps = 2.5e9, .pcie_limit_bps = 31.5e9,
		.nvlink_rx_bps = NAN, .nvlink_tx_bps = NAN, .nvlink_limit_bps = NAN,
		.power_w = 312.5, .power_limit_w = 700,
		.sm_clock_mhz = 1980, .mem_clock_mhz = 2619, .temperature_c = 41,
		.throttle_reasons = 0x5, .throttle = "gpu_idle,sw_power_cap",
		.xid_events = 2, .last_xid = 79,
		.ecc_corrected = 0, .ecc_uncorrected = GF_MON_NONE,
		.proc_sm_share = NAN, .proc_mem_used = GF_MON_NONE,
	};

	snprintf(g.uuid, sizeof(g.uuid), "GPU-0000000%d-aaaa-bbbb-cccc-dddddddddddd", index);
	snprintf(g.pci, sizeof(g.pci), "0000:1b:0%d.0", index);
	snprintf(g.name, sizeof(g.name), "NVIDIA H100 80GB HBM3");
	return g;
}

struct world {
	struct gf_mon_sample s;
	struct gf_mon_gpu gpus[2];
	struct gf_mon_node nodes[1];
	struct gf_mon_disk disks[1];
	struct gf_mon_nic nics[1];
};

static void build(struct world *w)
{
	memset(w, 0, sizeof(*w));
	w->gpus[0] = gpu_template(0);
	w->gpus[1] = gpu_template(1);
	w->nodes[0] = (struct gf_mon_node){ .node = 1, .cpu_busy = 0.375, .cpu_iowait = 0.0625,
					    .mem_total = 64ull << 30, .mem_free = 16ull << 30 };
	w->disks[0] = (struct gf_mon_disk){ .name = "nvme0n1", .read_bps = 2e9, .write_bps = 0, .read_iops = 15000,
					    .write_iops = 0, .busy = 0.5, .queue = 3.25, .limit_bps = NAN };
	w->nics[0] = (struct gf_mon_nic){ .name = "mlx5_0/1", .rdma = true, .rx_bps = 1e9, .tx_bps = 2e9,
					  .limit_bps = 50e9 };
	w->s = (struct gf_mon_sample){ .t = 1795000000.5, .interval_s = 15, .hostname = "gpu-node-7",
				       .ngpus = 2, .nnodes = 1, .ndisks = 1, .nnics = 1,
				       .gpus = w->gpus, .nodes = w->nodes, .disks = w->disks, .nics = w->nics,
				       .pagecache = { .cached = 4096, .dirty = 8192, .writeback = 0, .mem_available = 1 << 20 } };
}

/* The exposition of s (and t, a), whole. */
static char *render(const struct gf_mon_sample *s, const struct gf_topo *t, const struct gf_audit *a)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(gf_exporter_write_prom(s, t, a, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void has_line(const char *text, const char *line)
{
	const char *p = text;
	size_t n = strlen(line);

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return;
		p += n;
	}
	fail_msg("no line '%s' in:\n%s", line, text);
}

#define LABELS0 "gpu=\"0\",UUID=\"GPU-00000000-aaaa-bbbb-cccc-dddddddddddd\",pci_bus_id=\"00000000:1B:00.0\"," \
		"device=\"\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"gpu-node-7\""

static void gpm_figures_take_dcgm_profiling_names(void **state)
{
	struct world w;
	char *text;

	(void)state;
	build(&w);
	text = render(&w.s, NULL, NULL);
	has_line(text, "# TYPE DCGM_FI_PROF_SM_ACTIVE gauge");
	has_line(text, "DCGM_FI_PROF_SM_ACTIVE{" LABELS0 "} 0.5");
	has_line(text, "DCGM_FI_PROF_SM_OCCUPANCY{" LABELS0 "} 0.25");
	has_line(text, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{" LABELS0 "} 0.125");
	has_line(text, "DCGM_FI_PROF_DRAM_ACTIVE{" LABELS0 "} 0.75");
	/* Utilisation is another quantity: not written under its name. */
	assert_null(strstr(text, "DCGM_FI_DEV_GPU_UTIL"));
	assert_null(strstr(text, "DCGM_FI_DEV_MEM_COPY_UTIL"));
	has_line(text, "gpufeed_gpu_activity_source{gpu=\"0\",UUID=\"GPU-00000000-aaaa-bbbb-cccc-dddddddddddd\","
		       "source=\"gpm\"} 1");
	free(text);
}

static void utilization_takes_dcgm_util_names_in_percent(void **state)
{
	struct world w;
	char *text;

	(void)state;
	build(&w);
	w.gpus[0].activity_source = "utilization";
	w.gpus[0].sm_active = 0.37;
	w.gpus[0].dram_active = 0.5;
	w.gpus[0].sm_occupancy = w.gpus[0].tensor_active = NAN;
	text = render(&w.s, NULL, NULL);
	has_line(text, "DCGM_FI_DEV_GPU_UTIL{" LABELS0 "} 37");
	has_line(text, "DCGM_FI_DEV_MEM_COPY_UTIL{" LABELS0 "} 50");
	assert_null(strstr(text, "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\""));
	/* GPU 1 keeps GPM's names. */
	assert_non_null(strstr(text, "DCGM_FI_PROF_SM_ACTIVE{gpu=\"1\""));
	free(text);
}

static void units_follow_dcgm(void **state)
{
	struct world w;
	char *text;

	(void)state;
	build(&w);
	text = render(&w.s, NULL, NULL);
	has_line(text, "DCGM_FI_DEV_FB_USED{" LABELS0 "} 3072");	/* MiB */
	has_line(text, "gpufeed_gpu_memory_total_bytes{" LABELS0 "} 85899345920");
	has_line(text, "DCGM_FI_PROF_PCIE_TX_BYTES{" LABELS0 "} 2500000000");	/* bytes/s */
	has_line(text, "DCGM_FI_PROF_PCIE_RX_BYTES{" LABELS0 "} 1500000000");
	has_line(text, "gpufeed_gpu_pcie_limit_bytes_per_second{" LABELS0 "} 31500000000");
	has_line(text, "DCGM_FI_DEV_POWER_USAGE{" LABELS0 "} 312.5");
	has_line(text, "DCGM_FI_DEV_POWER_MGMT_LIMIT{" LABELS0 "} 700");
	has_line(text, "DCGM_FI_DEV_SM_CLOCK{" LABELS0 "} 1980");
	has_line(text, "DCGM_FI_DEV_MEM_CLOCK{" LABELS0 "} 2619");
	has_line(text, "DCGM_FI_DEV_GPU_TEMP{" LABELS0 "} 41");
	has_line(text, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS{" LABELS0 "} 5");
	has_line(text, "gpufeed_gpu_clocks_event_active{" LABELS0 ",reason=\"gpu_idle\"} 1");
	has_line(text, "gpufeed_gpu_clocks_event_active{" LABELS0 ",reason=\"sw_power_cap\"} 1");
	has_line(text, "DCGM_FI_DEV_XID_ERRORS{" LABELS0 "} 79");
	has_line(text, "# TYPE gpufeed_gpu_xid_events_total counter");
	has_line(text, "gpufeed_gpu_xid_events_total{" LABELS0 "} 2");
	has_line(text, "# TYPE DCGM_FI_DEV_ECC_SBE_VOL_TOTAL counter");
	has_line(text, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL{" LABELS0 "} 0");
	free(text);
}

/* NAN and GF_MON_NONE are "cannot say": no sample, and no family when no
 * GPU has one; 0 stays a measurement. */
static void unknown_figures_are_left_out(void **state)
{
	struct world w;
	char *text;

	(void)state;
	build(&w);
	for (int i = 0; i < 2; i++) {
		w.gpus[i].pcie_tx_bps = NAN;
		w.gpus[i].sm_clock_mhz = 0;
		w.gpus[i].throttle_reasons = GF_MON_NONE;
		w.gpus[i].throttle[0] = '\0';
		w.gpus[i].xid_events = GF_MON_NONE;
	}
	w.gpus[1].power_w = NAN;
	text = render(&w.s, NULL, NULL);
	assert_null(strstr(text, "DCGM_FI_PROF_PCIE_TX_BYTES"));
	assert_null(strstr(text, "DCGM_FI_DEV_SM_CLOCK"));
	assert_null(strstr(text, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"));
	assert_null(strstr(text, "gpufeed_gpu_clocks_event_active"));
	assert_null(strstr(text, "DCGM_FI_DEV_XID_ERRORS"));
	assert_null(strstr(text, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"));	/* GF_MON_NONE: no ECC */
	assert_null(strstr(text, "DCGM_FI_PROF_NVLINK_TX_BYTES"));	/* no NVLink */
	assert_null(strstr(text, "NaN"));
	assert_non_null(strstr(text, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\""));
	assert_null(strstr(text, "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\""));
	/* 0 is a measurement. */
	has_line(text, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL{" LABELS0 "} 0");
	free(text);
}

static void host_figures(void **state)
{
	struct world w;
	char *text;

	(void)state;
	build(&w);
	text = render(&w.s, NULL, NULL);
	has_line(text, "gpufeed_numa_cpu_busy_ratio{node=\"1\"} 0.375");
	has_line(text, "gpufeed_numa_cpu_iowait_ratio{node=\"1\"} 0.0625");
	has_line(text, "gpufeed_numa_memory_total_bytes{node=\"1\"} 68719476736");
	has_line(text, "gpufeed_numa_memory_free_bytes{node=\"1\"} 17179869184");
	has_line(text, "gpufeed_disk_read_bytes_per_second{device=\"nvme0n1\"} 2000000000");
	has_line(text, "gpufeed_disk_write_bytes_per_second{device=\"nvme0n1\"} 0");
	has_line(text, "gpufeed_disk_reads_per_second{device=\"nvme0n1\"} 15000");
	has_line(text, "gpufeed_disk_busy_ratio{device=\"nvme0n1\"} 0.5");
	has_line(text, "gpufeed_disk_queue_depth{device=\"nvme0n1\"} 3.25");
	assert_null(strstr(text, "gpufeed_disk_limit_bytes_per_second"));
	has_line(text, "gpufeed_nic_receive_bytes_per_second{device=\"mlx5_0/1\",rdma=\"true\"} 1000000000");
	has_line(text, "gpufeed_nic_transmit_bytes_per_second{device=\"mlx5_0/1\",rdma=\"true\"} 2000000000");
	has_line(text, "gpufeed_nic_limit_bytes_per_second{device=\"mlx5_0/1\",rdma=\"true\"} 50000000000");
	has_line(text, "gpufeed_page_cache_bytes 4096");
	has_line(text, "gpufeed_page_cache_dirty_bytes 8192");
	has_line(text, "gpufeed_page_cache_writeback_bytes 0");
	has_line(text, "gpufeed_memory_available_bytes 1048576");
	free(text);
}

/* The first sample has no rates: its levels only. */
static void first_sample_has_levels_only(void **state)
{
	struct world w;
	char *text;

	(void)state;
	build(&w);
	w.s.interval_s = 0;
	for (int i = 0; i < 2; i++) {
		struct gf_mon_gpu *g = &w.gpus[i];

		g->sm_active = g->sm_occupancy = g->tensor_active = g->dram_active = NAN;
		g->pcie_rx_bps = g->pcie_tx_bps = NAN;
	}
	w.nodes[0].cpu_busy = w.nodes[0].cpu_iowait = NAN;
	w.disks[0] = (struct gf_mon_disk){ .name = "nvme0n1", .read_bps = NAN, .write_bps = NAN, .read_iops = NAN,
					   .write_iops = NAN, .busy = NAN, .queue = NAN, .limit_bps = NAN };
	text = render(&w.s, NULL, NULL);
	if (strstr(text, "\nDCGM_FI_PROF_"))
		fail_msg("a rate in the first sample: %s", strstr(text, "\nDCGM_FI_PROF_"));
	assert_null(strstr(text, "gpufeed_numa_cpu_busy_ratio"));
	assert_null(strstr(text, "gpufeed_disk_"));
	has_line(text, "DCGM_FI_DEV_FB_USED{" LABELS0 "} 3072");
	has_line(text, "gpufeed_numa_memory_free_bytes{node=\"1\"} 17179869184");
	free(text);
}

/* Each family's samples stay together, after one HELP and one TYPE. */
static void one_block_per_family(void **state)
{
	struct world w;
	char *text, *save = NULL;
	char seen[64][64];
	int nseen = 0;

	(void)state;
	build(&w);
	text = render(&w.s, NULL, NULL);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];

		if (line[0] == '#')
			continue;
		sscanf(line, "%63[A-Za-z0-9_:]", name);
		if (nseen && !strcmp(seen[nseen - 1], name))
			continue;
		for (int i = 0; i < nseen; i++)
			if (!strcmp(seen[i], name))
				fail_msg("%s's samples are split", name);
		assert_true(nseen < 64);
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", name);
	}
	free(text);
	text = render(&w.s, NULL, NULL);
	for (int i = 0; i < nseen; i++) {
		char help[96], *p;
		int n = 0;

		snprintf(help, sizeof(help), "# HELP %s ", seen[i]);
		for (p = text; (p = strstr(p, help)); p++)
			n++;
		assert_int_equal(n, 1);
	}
	free(text);
}

/* A name from the machine (a recording's, a hostile hostname) cannot end
 * a label. */
static void labels_escaped(void **state)
{
	struct world w;
	char *text;

	(void)state;
	build(&w);
	snprintf(w.gpus[0].name, sizeof(w.gpus[0].name), "bad\"} 1\nevil 2");
	text = render(&w.s, NULL, NULL);
	assert_non_null(strstr(text, "modelName=\"bad\\\"} 1\\nevil 2\""));
	assert_null(strstr(text, "\nevil 2"));
	free(text);
}

/* The device label from the model's minor number, matched by PCI address. */
static void device_label_from_the_model(void **state)
{
	struct world w;
	struct gf_gpu gpus[2] = { { .index = 0, .bdf = "0000:1b:00.0", .minor = 4 },
				  { .index = 1, .bdf = "0000:1b:01.0", .minor = -1 } };
	struct gf_topo t = { .gpus = gpus, .ngpus = 2 };
	char *text;

	(void)state;
	build(&w);
	text = render(&w.s, &t, NULL);
	assert_non_null(strstr(text, "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-00000000-aaaa-bbbb-cccc-dddddddddddd\","
				     "pci_bus_id=\"00000000:1B:00.0\",device=\"nvidia4\","));
	assert_non_null(strstr(text, "DCGM_FI_DEV_FB_USED{gpu=\"1\",UUID=\"GPU-00000001-aaaa-bbbb-cccc-dddddddddddd\","
				     "pci_bus_id=\"00000000:1B:01.0\",device=\"\","));
	free(text);
}

static void no_gpus_say_why(void **state)
{
	struct world w;
	char *text;

	(void)state;
	build(&w);
	w.s.ngpus = 0;
	w.s.gpu_why = "NVML not available: libnvidia-ml.so.1 not found";
	text = render(&w.s, NULL, NULL);
	has_line(text, "gpufeed_gpu_unavailable{reason=\"NVML not available: libnvidia-ml.so.1 not found\"} 1");
	assert_null(strstr(text, "DCGM_"));
	free(text);
}

/* The audit's results follow, as check --prom writes them. */
static void checks_appended(void **state)
{
	struct world w;
	struct gf_audit a = { .profile = GF_PROFILE_TRAINING };
	char *text;

	(void)state;
	build(&w);
	a.counts[GF_CHECK_WARN] = 3;
	text = render(&w.s, NULL, &a);
	has_line(text, "gpufeed_check_results{status=\"warn\"} 3");
	has_line(text, "gpufeed_check_results{status=\"pass\"} 0");
	free(text);
}

static void null_arguments(void **state)
{
	struct world w;

	(void)state;
	build(&w);
	assert_int_equal(gf_exporter_write_prom(NULL, NULL, NULL, stdout), -EINVAL);
	assert_int_equal(gf_exporter_write_prom(&w.s, NULL, NULL, NULL), -EINVAL);
}

static void listen_addresses(void **state)
{
	static const char *const good[] = { "127.0.0.1:9400", ":9400", "[::1]:9400", "[::]:0", "0.0.0.0:65535",
					    "[fe80::1]:80" };
	static const char *const bad[] = { "9400", "localhost:9400", "127.0.0.1:", "127.0.0.1:65536",
					   "127.0.0.1:-1", "127.0.0.1:94x", "::1:9400", "[::1]9400", "[::1:9400",
					   "300.0.0.1:80", "[zz]:80", "" };

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (gf_exporter_check_listen(good[i]))
			fail_msg("'%s' refused: %s", good[i], gf_last_error());
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (gf_exporter_check_listen(bad[i]) != -EINVAL)
			fail_msg("'%s' taken", bad[i]);
		if (!strstr(gf_last_error(), bad[i]))
			fail_msg("'%s': the message '%s' does not name it", bad[i], gf_last_error());
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gpm_figures_take_dcgm_profiling_names),
		cmocka_unit_test(utilization_takes_dcgm_util_names_in_percent),
		cmocka_unit_test(units_follow_dcgm),
		cmocka_unit_test(unknown_figures_are_left_out),
		cmocka_unit_test(host_figures),
		cmocka_unit_test(first_sample_has_levels_only),
		cmocka_unit_test(one_block_per_family),
		cmocka_unit_test(labels_escaped),
		cmocka_unit_test(device_label_from_the_model),
		cmocka_unit_test(no_gpus_say_why),
		cmocka_unit_test(checks_appended),
		cmocka_unit_test(null_arguments),
		cmocka_unit_test(listen_addresses),
	};

	return cmocka_run_group_tests_name("exporter", tests, NULL, NULL);
}
