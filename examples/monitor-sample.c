/* Sample the machine COUNT times, INTERVAL_MS apart, and print every GPU,
 * NUMA node, disk and NIC beside its limit, one line each, then what one
 * gf_monitor_sample call cost in CPU time (gpufeed/monitor.h).
 *
 *     monitor-sample COUNT INTERVAL_MS [PID]
 *
 * With PID, that process's share too (its CPUs, threads, I/O, its GPU
 * share).  GPUFEED_ROOT=DIR samples a recording instead (levels only). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gpufeed/error.h>
#include <gpufeed/monitor.h>

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* bytes/s as MB/s, "-" when unknown (NAN) */
static const char *mbs(double bps, char *buf, size_t size)
{
	if (isnan(bps))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f", bps / 1e6);
	return buf;
}

static void print_gpu(const struct gf_mon_gpu *g)
{
	char a[32], b[32], c[32], d[32], e[32];

	printf("GPU%d %s src=%s sm=%.3f occ=%.3f tensor=%.3f dram=%.3f mem_used_mib=%.0f power_w=%.1f "
	       "sm_mhz=%u mem_mhz=%u temp_c=%u pcie_rx_mbs=%s pcie_tx_mbs=%s pcie_limit_mbs=%s "
	       "nvlink_rx_mbs=%s nvlink_tx_mbs=%s throttle=%s xid=%lld",
	       g->index, g->pci, g->activity_source, g->sm_active, g->sm_occupancy, g->tensor_active,
	       g->dram_active, g->mem_used == GF_MON_NONE ? NAN : g->mem_used / 1048576.0, g->power_w,
	       g->sm_clock_mhz, g->mem_clock_mhz, g->temperature_c, mbs(g->pcie_rx_bps, a, sizeof(a)),
	       mbs(g->pcie_tx_bps, b, sizeof(b)), mbs(g->pcie_limit_bps, c, sizeof(c)),
	       mbs(g->nvlink_rx_bps, d, sizeof(d)), mbs(g->nvlink_tx_bps, e, sizeof(e)),
	       g->throttle[0] ? g->throttle : "none",
	       g->xid_events == GF_MON_NONE ? -1LL : (long long)g->xid_events);
	if (!isnan(g->proc_sm_share))
		printf(" proc_sm=%.3f proc_mem_mib=%.0f", g->proc_sm_share, g->proc_mem_used / 1048576.0);
	printf("\n");
}

static void print_sample(const struct gf_mon_sample *s)
{
	char a[32], b[32], c[32];

	printf("sample interval_s=%.3f gpus=%u nodes=%u disks=%u nics=%u\n", s->interval_s, s->ngpus, s->nnodes,
	       s->ndisks, s->nnics);
	if (s->gpu_why)
		printf("gpus: %s\n", s->gpu_why);
	for (unsigned i = 0; i < s->ngpus; i++)
		print_gpu(&s->gpus[i]);
	for (unsigned i = 0; i < s->nnodes; i++)
		printf("node%d cpu_busy=%.3f iowait=%.3f mem_free_mib=%.0f\n", s->nodes[i].node, s->nodes[i].cpu_busy,
		       s->nodes[i].cpu_iowait,
		       s->nodes[i].mem_free == GF_MON_NONE ? NAN : s->nodes[i].mem_free / 1048576.0);
	for (unsigned i = 0; i < s->ndisks; i++)
		printf("disk %s read_mbs=%s write_mbs=%s busy=%.3f queue=%.2f limit_mbs=%s\n", s->disks[i].name,
		       mbs(s->disks[i].read_bps, a, sizeof(a)), mbs(s->disks[i].write_bps, b, sizeof(b)),
		       s->disks[i].busy, s->disks[i].queue, mbs(s->disks[i].limit_bps, c, sizeof(c)));
	for (unsigned i = 0; i < s->nnics; i++)
		printf("nic %s rx_mbs=%s tx_mbs=%s limit_mbs=%s\n", s->nics[i].name, mbs(s->nics[i].rx_bps, a, sizeof(a)),
		       mbs(s->nics[i].tx_bps, b, sizeof(b)), mbs(s->nics[i].limit_bps, c, sizeof(c)));
	if (s->proc)
		printf("proc %d alive=%d nprocs=%u cpu=%.3f runq=%.3f threads=%u read_mbs=%s\n", (int)s->proc->pid,
		       s->proc->alive, s->proc->nprocs, s->proc->cpu, s->proc->runq_wait, s->proc->nthreads,
		       mbs(s->proc->read_bps, a, sizeof(a)));
}

int main(int argc, char **argv)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	const struct gf_mon_sample *s;
	struct gf_monitor *m;
	double spent = 0;
	int count, interval_ms;

	if (argc < 3 || (count = atoi(argv[1])) < 1 || (interval_ms = atoi(argv[2])) < 0) {
		fprintf(stderr, "usage: %s COUNT INTERVAL_MS [PID]\n", argv[0]);
		return 2;
	}
	o.root = getenv("GPUFEED_ROOT");
	if (argc > 3) {
		o.pid = atoi(argv[3]);
		o.children = true;
	}
	if (gf_monitor_open(&o, &m)) {
		fprintf(stderr, "%s: %s\n", argv[0], gf_last_error());
		return 1;
	}
	for (int i = 0; i < count; i++) {
		struct timespec ts = { interval_ms / 1000, (interval_ms % 1000) * 1000000L };
		double t0;

		if (i)
			nanosleep(&ts, NULL);
		t0 = cpu_seconds();
		if (gf_monitor_sample(m, &s)) {
			fprintf(stderr, "%s: %s\n", argv[0], gf_last_error());
			gf_monitor_close(m);
			return 1;
		}
		spent += cpu_seconds() - t0;
		print_sample(s);
	}
	printf("cost: %d calls, %.1f us CPU per gf_monitor_sample\n", count, spent / count * 1e6);
	gf_monitor_close(m);
	return 0;
}
