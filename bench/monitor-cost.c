/* What one gf_monitor_sample costs in CPU time, with every part asked for:
 * the 4 x H200 VM's recording (tests/fixtures/machines/h200x4-vm) given
 * this machine's /proc/stat, /proc/diskstats and /proc/meminfo and sampled
 * as a live machine, its GPUs through the stand-in NVML.  The stand-in
 * answers in nanoseconds where the driver's ioctls take microseconds, so
 * the figure is the sampler's own work (file reads, parsing), not a GPU
 * machine's cost.  Built and run by bench/monitor-cost.sh.
 *
 *     monitor-cost ROOT CALLS [PID] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gpufeed/error.h>
#include <gpufeed/monitor.h>
#include "monitor/monitor_internal.h"

static double now_s;

static void tick(void *arg, double *mono, double *real)
{
	(void)arg;
	*mono = *real = now_s;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	struct gf_mon_hooks h = { .root_is_live = true, .clock = tick };
	const struct gf_mon_sample *s = NULL;
	struct gf_monitor *m;
	double t0, spent;
	int calls;

	if (argc < 3 || (calls = atoi(argv[2])) < 2) {
		fprintf(stderr, "usage: %s ROOT CALLS [PID]\n", argv[0]);
		return 2;
	}
	o.root = argv[1];
	if (argc > 3) {
		o.pid = atoi(argv[3]);
		o.children = true;
	}
	if (gf_monitor_open_hooked(&o, &h, &m)) {
		fprintf(stderr, "%s: %s\n", argv[0], gf_last_error());
		return 1;
	}
	t0 = cpu_seconds();
	for (int i = 0; i < calls; i++) {
		now_s += 1;
		if (gf_monitor_sample(m, &s)) {
			fprintf(stderr, "%s: %s\n", argv[0], gf_last_error());
			return 1;
		}
	}
	spent = cpu_seconds() - t0;
	printf("%d calls: %u GPUs (%s), %u nodes, %u disks, %u NICs%s: %.1f us CPU per gf_monitor_sample\n", calls,
	       s->ngpus, s->ngpus ? s->gpus[0].activity_source : "-", s->nnodes, s->ndisks, s->nnics,
	       s->proc ? ", a process" : "", spent / calls * 1e6);
	gf_monitor_close(m);
	return 0;
}
