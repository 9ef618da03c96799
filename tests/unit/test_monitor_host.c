/* The monitor's host parts (src/monitor/host_*.c) on a copy of the
 * hgx-h100-8gpu recording (node 0: CPUs 0-55,112-167; node 1: 56-111,
 * 168-223; NVMe nvme0n1, nvme1n1; ib0-7 on mlx5_0-7) with a /proc and /sys
 * counters planted, sampled as a live machine with a clock the test moves:
 * every rate is checked to the exact value its counters give.  The same
 * copy opened as a recording keeps its levels and leaves every rate NAN. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gpufeed/monitor.h>
#include <gpufeed/error.h>

#include "helpers.h"
#include "monitor/monitor_internal.h"

static char *hgx;

struct fake_clock {
	double mono, real;
};

static void tick(void *arg, double *mono, double *real)
{
	struct fake_clock *c = arg;

	*mono = c->mono;
	*real = c->real;
}

static int setup(void **state)
{
	(void)state;
	hgx = t_mkdtemp();
	t_copytree(t_fixture_root("hgx-h100-8gpu"), hgx);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t_rmtree(hgx);
	free(hgx);
	return 0;
}

#define HOST_PARTS (GF_MON_NUMA | GF_MON_DISK | GF_MON_NIC | GF_MON_PAGECACHE)

static struct gf_monitor *open_live(struct fake_clock *c, unsigned parts)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	struct gf_mon_hooks h = { .root_is_live = true, .clock = tick, .clock_arg = c };
	struct gf_monitor *m = NULL;

	o.root = hgx;
	o.parts = parts;
	if (gf_monitor_open_hooked(&o, &h, &m))
		fail_msg("gf_monitor_open: %s", gf_last_error());
	return m;
}

/* cpu0's counters (node 0) and cpu56's (node 1), the rest absent. */
static void put_stat(unsigned long long user0, unsigned long long idle0, unsigned long long iowait0,
		     unsigned long long user56, unsigned long long idle56)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "cpu  1 2 3 4 5 6 7 8 0 0\n"
		 "cpu0 %llu 0 0 %llu %llu 0 0 0 0 0\n"
		 "cpu56 %llu 0 0 %llu 0 0 0 0 0 0\n"
		 "intr 1 2 3\nctxt 4\nbtime 5\n",
		 user0, idle0, iowait0, user56, idle56);
	t_write(hgx, "proc/stat", text);
}

static void put_diskstats(unsigned long long rd_ios, unsigned long long rd_sectors, unsigned long long wr_ios,
			  unsigned long long wr_sectors, unsigned long long io_ticks, unsigned long long queue_ms,
			  int with_nvme0)
{
	char text[1024];
	int n = 0;

	n += snprintf(text + n, sizeof(text) - (size_t)n, "   7       0 loop0 1 0 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	if (with_nvme0)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      " 259       0 nvme0n1 %llu 0 %llu 0 %llu 0 %llu 0 2 %llu %llu 0 0 0 0 0 0\n", rd_ios,
			      rd_sectors, wr_ios, wr_sectors, io_ticks, queue_ms);
	snprintf(text + n, sizeof(text) - (size_t)n,
		 " 259       1 nvme0n1p1 5 0 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		 " 259       2 nvme1n1 7 0 8 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	t_write(hgx, "proc/diskstats", text);
}

static void put_counter(const char *rel, unsigned long long v)
{
	char text[32];

	snprintf(text, sizeof(text), "%llu\n", v);
	t_write(hgx, rel, text);
}

static const struct gf_mon_disk *disk(const struct gf_mon_sample *s, const char *name)
{
	for (unsigned i = 0; i < s->ndisks; i++)
		if (!strcmp(s->disks[i].name, name))
			return &s->disks[i];
	fail_msg("no disk %s", name);
	return NULL;
}

static const struct gf_mon_nic *nic(const struct gf_mon_sample *s, const char *name)
{
	for (unsigned i = 0; i < s->nnics; i++)
		if (!strcmp(s->nics[i].name, name))
			return &s->nics[i];
	fail_msg("no NIC %s", name);
	return NULL;
}

static void host_rates_exact(void **state)
{
	struct fake_clock c = { 100, 1700000000 };
	const struct gf_mon_sample *s;
	struct gf_monitor *m;

	(void)state;
	put_stat(100, 800, 100, 50, 950);
	put_diskstats(100, 2048, 10, 0, 500, 1000, 1);
	put_counter("sys/class/net/ib0/statistics/rx_bytes", 1000);
	put_counter("sys/class/net/ib0/statistics/tx_bytes", 5000);
	put_counter("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", 0);
	put_counter("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", 100);
	t_write(hgx, "sys/class/net/ib0/speed", "400000\n");
	t_write(hgx, "proc/meminfo", "MemTotal: 2000 kB\nMemFree: 1000 kB\nMemAvailable: 1500 kB\n"
				     "Cached: 700 kB\nDirty: 30 kB\nWriteback: 2 kB\n");
	m = open_live(&c, HOST_PARTS);

	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_true(s->interval_s == 0);
	assert_string_equal(s->hostname, "hgx-h100-01");
	assert_int_equal(s->nnodes, 2);
	assert_true(isnan(s->nodes[0].cpu_busy));
	assert_true(isnan(disk(s, "nvme0n1")->read_bps));
	assert_true(isnan(nic(s, "ib0")->rx_bps));
	assert_null(s->proc);
	assert_int_equal(s->ngpus, 0);	/* GF_MON_GPU not asked for */

	c.mono += 2;
	c.real += 2;
	put_stat(400, 1300, 300, 50, 1950);
	put_diskstats(300, 2048 + 409600, 30, 8192, 1500, 4000, 1);
	put_counter("sys/class/net/ib0/statistics/rx_bytes", 1000 + 2000000);
	put_counter("sys/class/net/ib0/statistics/tx_bytes", 5000 + 600);
	put_counter("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", 500000);
	put_counter("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", 100 + 50);
	assert_int_equal(gf_monitor_sample(m, &s), 0);

	assert_true(s->interval_s == 2);
	assert_true(s->t == 1700000002);
	/* Node 0: 300 of 1000 jiffies busy, 200 in iowait; node 1 idle. */
	assert_int_equal(s->nodes[0].node, 0);
	assert_true(s->nodes[0].cpu_busy == 0.3);
	assert_true(s->nodes[0].cpu_iowait == 0.2);
	assert_true(s->nodes[1].cpu_busy == 0);
	assert_true(s->nodes[1].cpu_iowait == 0);
	assert_true(s->nodes[0].mem_total > 0 && s->nodes[0].mem_total != GF_MON_NONE);

	/* 409600 sectors of 512 bytes in 2 s; 200 reads, 20 writes; io_ticks
	 * 1000 ms of 2000; 3000 ms in queue over 2 s. */
	assert_true(disk(s, "nvme0n1")->read_bps == 104857600.0);
	assert_true(disk(s, "nvme0n1")->write_bps == 8192 * 512 / 2.0);
	assert_true(disk(s, "nvme0n1")->read_iops == 100);
	assert_true(disk(s, "nvme0n1")->write_iops == 10);
	assert_true(disk(s, "nvme0n1")->busy == 0.5);
	assert_true(disk(s, "nvme0n1")->queue == 1.5);
	assert_true(disk(s, "nvme1n1")->read_bps == 0);
	for (unsigned i = 0; i < s->ndisks; i++)
		assert_true(strncmp(s->disks[i].name, "loop", 4));	/* no device behind */
	/* The drive's own link, Gen5 x4: 4 lanes of 3.938 GB/s. */
	assert_true(fabs(disk(s, "nvme0n1")->limit_bps - 15.75e9) < 0.01e9);

	assert_true(nic(s, "ib0")->rx_bps == 1000000);
	assert_true(nic(s, "ib0")->tx_bps == 300);
	assert_false(nic(s, "ib0")->rdma);
	assert_true(nic(s, "ib0")->limit_bps == 400e9 / 8);
	/* port_*_data count 4-byte words. */
	assert_true(nic(s, "mlx5_0/1")->rdma);
	assert_true(nic(s, "mlx5_0/1")->rx_bps == 500000 * 4 / 2.0);
	assert_true(nic(s, "mlx5_0/1")->tx_bps == 50 * 4 / 2.0);
	assert_true(nic(s, "mlx5_0/1")->limit_bps == 400e9 / 8);
	/* ib1 has no statistics planted: unknown, not 0. */
	assert_true(isnan(nic(s, "ib1")->rx_bps));

	assert_int_equal(s->pagecache.cached, 700 * 1024);
	assert_int_equal(s->pagecache.dirty, 30 * 1024);
	assert_int_equal(s->pagecache.writeback, 2 * 1024);
	assert_int_equal(s->pagecache.mem_available, 1500 * 1024);

	/* A drive that left, and a counter that went back (a reset). */
	c.mono += 1;
	put_diskstats(0, 0, 0, 0, 0, 0, 0);
	put_counter("sys/class/net/ib0/statistics/rx_bytes", 10);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_true(isnan(disk(s, "nvme0n1")->read_bps));
	assert_true(isnan(disk(s, "nvme0n1")->busy));
	assert_true(isnan(nic(s, "ib0")->rx_bps));
	assert_true(nic(s, "ib0")->tx_bps == 0);

	/* It comes back: primed afresh, not a rate against its old counters. */
	c.mono += 1;
	put_diskstats(5, 8, 0, 0, 1, 1, 1);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_true(isnan(disk(s, "nvme0n1")->read_bps));
	gf_monitor_close(m);
}

static void recording_keeps_levels_no_rates(void **state)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	const struct gf_mon_sample *s;
	struct gf_monitor *m;

	(void)state;
	put_stat(1, 1, 1, 1, 1);
	o.root = hgx;
	assert_int_equal(gf_monitor_open(&o, &m), 0);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_non_null(gf_monitor_topo(m));
	assert_int_equal(gf_monitor_topo(m)->ngpus, 8);
	assert_true(isnan(s->nodes[0].cpu_busy));
	assert_true(isnan(disk(s, "nvme0n1")->read_bps));
	assert_true(isnan(nic(s, "ib0")->rx_bps));
	assert_true(nic(s, "mlx5_0/1")->limit_bps == 400e9 / 8);
	assert_true(s->nodes[0].mem_total != GF_MON_NONE);
	/* GPUs: who they are and their limits, no figures, and why. */
	assert_int_equal(s->ngpus, 8);
	assert_string_equal(s->gpus[0].pci, "0000:1b:00.0");
	assert_string_equal(s->gpus[0].name, "NVIDIA H100 80GB HBM3");
	assert_true(!strncmp(s->gpus[0].uuid, "GPU-", 4));
	assert_string_equal(s->gpus[0].activity_source, "none");
	assert_true(isnan(s->gpus[0].sm_active));
	assert_int_equal(s->gpus[0].mem_total, 85520809984ull);
	assert_int_equal(s->gpus[0].mem_used, GF_MON_NONE);
	assert_int_equal(s->gpus[0].xid_events, GF_MON_NONE);
	/* Host to GPU: PCIe Gen5 x16; NVLink 4.0 x18 through NVSwitch. */
	assert_true(fabs(s->gpus[0].pcie_limit_bps - 63.0e9) < 0.1e9);
	assert_true(fabs(s->gpus[0].nvlink_limit_bps - 450e9) < 1e6);
	assert_non_null(s->gpu_why);
	assert_non_null(strstr(s->gpu_why, "recording"));
	gf_monitor_close(m);
}

static void bad_options_refused(void **state)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	struct gf_monitor *m = (struct gf_monitor *)&o;

	(void)state;
	assert_int_equal(gf_monitor_open(NULL, &m), -EINVAL);
	assert_null(m);
	assert_int_equal(gf_monitor_open(&o, NULL), -EINVAL);
	o.struct_size = 0;
	assert_int_equal(gf_monitor_open(&o, &m), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "GF_MONITOR_OPTS_INIT"));
	o = (struct gf_monitor_opts)GF_MONITOR_OPTS_INIT;
	o.parts = 0x100;
	assert_int_equal(gf_monitor_open(&o, &m), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "parts"));
	o = (struct gf_monitor_opts)GF_MONITOR_OPTS_INIT;
	o.pid = -3;
	assert_int_equal(gf_monitor_open(&o, &m), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "pid"));
	o = (struct gf_monitor_opts)GF_MONITOR_OPTS_INIT;
	o.children = true;
	assert_int_equal(gf_monitor_open(&o, &m), -EINVAL);
	/* A pid the recording has no /proc entry for. */
	o = (struct gf_monitor_opts)GF_MONITOR_OPTS_INIT;
	o.root = hgx;
	o.pid = 999999;
	assert_int_equal(gf_monitor_open(&o, &m), -ESRCH);
	assert_non_null(strstr(gf_last_error(), "999999"));
	o.pid = 0;
	o.root = "/nonexistent/recording";
	assert_int_equal(gf_monitor_open(&o, &m), -ENOENT);
	assert_int_equal(gf_monitor_sample(NULL, NULL), -EINVAL);
	gf_monitor_close(NULL);
}

/* A model the caller holds is borrowed, not freed at close. */
static void borrowed_model(void **state)
{
	struct gf_topo_options to = GF_TOPO_OPTS_INIT;
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	const struct gf_mon_sample *s;
	struct gf_monitor *m;
	struct gf_topo *t;

	(void)state;
	to.root = hgx;
	assert_int_equal(gf_topo_discover(&to, &t), 0);
	o.topo = t;
	o.root = hgx;	/* the counters' machine: the model's */
	o.parts = GF_MON_NUMA | GF_MON_GPU;
	assert_int_equal(gf_monitor_open(&o, &m), 0);
	assert_ptr_equal(gf_monitor_topo(m), t);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_int_equal(s->ngpus, 8);
	assert_non_null(strstr(s->gpu_why, "recording"));
	gf_monitor_close(m);
	assert_int_equal(t->ngpus, 8);	/* still ours (ASan would see a use after free) */
	gf_topo_free(t);
}

static void meminfo_values(void **state)
{
	(void)state;
	assert_int_equal(gf_mon_meminfo_value("MemTotal:  10 kB\nCached: 3 kB\n", "Cached"), 3072);
	assert_int_equal(gf_mon_meminfo_value("Node 1 MemFree:  7 kB\n", "MemFree"), 7168);
	assert_int_equal(gf_mon_meminfo_value("HugePages_Total: 4\n", "HugePages_Total"), 4);
	/* A key that is a prefix of another's is not that one. */
	assert_int_equal(gf_mon_meminfo_value("SwapCached: 5 kB\n", "Cached"), GF_MON_NONE);
	assert_int_equal(gf_mon_meminfo_value("", "Cached"), GF_MON_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(host_rates_exact),
		cmocka_unit_test(recording_keeps_levels_no_rates),
		cmocka_unit_test(bad_options_refused),
		cmocka_unit_test(borrowed_model),
		cmocka_unit_test(meminfo_values),
	};

	return cmocka_run_group_tests_name("monitor_host", tests, setup, teardown);
}
