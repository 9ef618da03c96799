/* The monitor: what every link of the machine is doing now, beside its
 * limit from the topology model (docs/monitor.md).  One sampler serves
 * `gpufeed watch`, `gpufeed exporter` and `gpufeed diagnose`:
 *
 *   struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
 *   o.pid = job_pid;                      (optional: that process's share)
 *   struct gf_monitor *m;
 *   gf_monitor_open(&o, &m);
 *   for (;;) {
 *           const struct gf_mon_sample *s;
 *           gf_monitor_sample(m, &s);     (rates since the previous call)
 *           ... s->gpus[i].sm_active ...
 *           sleep(1);
 *   }
 *   gf_monitor_close(m);
 *
 * Rates (bytes/s, fractions of time busy) are deltas between two calls of
 * gf_monitor_sample; the first call only primes the counters and returns
 * a sample whose rates are NAN (s->interval_s == 0).  Levels (memory
 * used, power, clocks, temperature) are read every call.  A quantity this
 * machine cannot give (no GPM on this GPU, no NVLink, a counter denied to
 * this user) is NAN for doubles and GF_MON_NONE for counts, never 0: 0 is
 * a measurement.  `source` strings say where each GPU figure came from.
 *
 * A recording (opts.root) holds no counters: gf_monitor_open on one works
 * (the names, the limits and the levels a recording has: memory totals)
 * and every rate stays NAN; callers that need rates say so (watch and
 * exporter refuse --root with exit 2 unless --once/--count 1, see their
 * docs). */
#ifndef GPUFEED_MONITOR_H
#define GPUFEED_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <gpufeed/common.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A count this machine cannot give. */
#define GF_MON_NONE UINT64_MAX

/* What to sample; everything by default. */
enum gf_mon_part {
	GF_MON_GPU = 1u << 0,	/* NVML: activity, memory, PCIe, NVLink, power, clocks, events */
	GF_MON_NUMA = 1u << 1,	/* /proc/stat per node's CPUs, node meminfo */
	GF_MON_DISK = 1u << 2,	/* /proc/diskstats of the block devices the model knows */
	GF_MON_NIC = 1u << 3,	/* /sys/class/net statistics, /sys/class/infiniband counters */
	GF_MON_PAGECACHE = 1u << 4,	/* /proc/meminfo Cached, Dirty, Writeback */
	GF_MON_PROC = 1u << 5,	/* opts.pid's share (only with a pid) */
	GF_MON_ALL = 0x3fu,
};

/* Versioned (include/gpufeed/common.h): start from GF_MONITOR_OPTS_INIT. */
struct gf_monitor_opts {
	size_t struct_size;	/* sizeof(struct gf_monitor_opts), set by GF_MONITOR_OPTS_INIT */
	const char *root;	/* NULL: this machine; else a recording (DIR or FILE.tar.gz) */
	unsigned parts;		/* enum gf_mon_part bits; GF_MON_ALL by default */
	pid_t pid;		/* > 0: also sample that process (and its threads); 0: none */
	bool children;		/* with pid: count its descendants too (a launcher's ranks) */
	const struct gf_topo *topo;	/* optional: a model already discovered (borrowed, must outlive
					 * the monitor); NULL: gf_monitor_open discovers one from root */
};
#define GF_MONITOR_OPTS_INIT { .struct_size = sizeof(struct gf_monitor_opts), .parts = GF_MON_ALL }

/* One GPU.  Fractions are 0..1 of the interval; NAN when unknown. */
struct gf_mon_gpu {
	int index;		/* the model's GPU index (gf_topo gpus[]) */
	char uuid[96];
	char pci[16];		/* 0000:1b:00.0 */
	char name[96];
	const char *activity_source;	/* "gpm" (NVML GPM: SM activity/occupancy/tensor),
					 * "utilization" (nvmlDeviceGetUtilizationRates), or "none" */
	double sm_active;	/* GPM SM activity, else utilization.gpu / 100 */
	double sm_occupancy;	/* GPM only */
	double tensor_active;	/* GPM only */
	double dram_active;	/* GPM DRAM bandwidth utilisation, else utilization.memory / 100 */
	uint64_t mem_used, mem_total;	/* bytes */
	double pcie_rx_bps, pcie_tx_bps;	/* bytes/s (NVML PCIe throughput or GPM) */
	double pcie_limit_bps;		/* the model's PCIe link limit, one direction; NAN unknown */
	double nvlink_rx_bps, nvlink_tx_bps;	/* bytes/s summed over links; NAN without NVLink */
	double nvlink_limit_bps;	/* the model's NVLink limit, one direction; NAN without NVLink */
	double power_w, power_limit_w;
	unsigned sm_clock_mhz, mem_clock_mhz;	/* 0 unknown */
	unsigned temperature_c;			/* 0 unknown */
	uint64_t throttle_reasons;	/* nvmlClocksEventReasons bits; GF_MON_NONE unknown */
	char throttle[128];		/* the active reasons by name ("sw_power_cap,hw_slowdown"), "" none */
	uint64_t xid_events;		/* XID events seen since open; GF_MON_NONE when not readable */
	uint64_t last_xid;		/* the last XID seen, 0 none */
	uint64_t ecc_corrected, ecc_uncorrected;	/* volatile counts; GF_MON_NONE without ECC */
	double proc_sm_share;		/* with a pid: that process's SM utilisation / 100; NAN otherwise */
	uint64_t proc_mem_used;		/* with a pid: its GPU memory; GF_MON_NONE otherwise */
};

/* One NUMA node. */
struct gf_mon_node {
	int node;
	double cpu_busy;	/* 0..1 over the node's online CPUs, NAN first call */
	double cpu_iowait;	/* 0..1 */
	uint64_t mem_total, mem_free;	/* bytes, from the node's meminfo */
};

/* One block device the model knows (NVMe, SATA, virtio). */
struct gf_mon_disk {
	char name[32];		/* nvme0n1 */
	double read_bps, write_bps;	/* bytes/s */
	double read_iops, write_iops;
	double busy;		/* 0..1, io_ticks delta / interval (iostat's %util) */
	double queue;		/* average requests in flight (iostat's aqu-sz) */
	double limit_bps;	/* the model's link limit for the device; NAN unknown */
};

/* One network interface or RDMA port. */
struct gf_mon_nic {
	char name[40];		/* eth0, or mlx5_0/1 for an RDMA port */
	bool rdma;
	double rx_bps, tx_bps;	/* bytes/s */
	double limit_bps;	/* link speed (one direction); NAN unknown */
};

/* The page cache (/proc/meminfo), bytes. */
struct gf_mon_pagecache {
	uint64_t cached, dirty, writeback, mem_available;
};

/* One thread of the sampled process. */
struct gf_mon_thread {
	pid_t tid;
	char comm[16];
	double cpu;		/* 0..1 of one CPU over the interval */
	double runq_wait;	/* 0..1 of the interval spent runnable but waiting (schedstat) */
	int last_cpu;		/* where it last ran */
	int node;		/* that CPU's node; -1 unknown */
};

/* The sampled process (opts.pid) and, with children, its descendants. */
struct gf_mon_proc {
	pid_t pid;
	bool alive;		/* false once it has exited (the sample keeps the last figures) */
	unsigned nprocs;	/* processes counted (1 + descendants) */
	double cpu;		/* CPUs busy (1.0 = one CPU) */
	double runq_wait;	/* summed over threads, in CPUs (1.0 = one thread always waiting) */
	double read_bps, write_bps;	/* /proc/PID/io read_bytes/write_bytes (storage) */
	double rchar_bps;	/* /proc/PID/io rchar (any read, page cache included) */
	double major_faults_per_s, minor_faults_per_s;
	uint64_t rss;		/* bytes */
	double cgroup_throttled;	/* 0..1 of the interval its cgroup was throttled (cpu.stat), NAN none */
	char cgroup[256];	/* its cgroup v2 path, "" unknown */
	unsigned nthreads;
	struct gf_mon_thread *threads;	/* nthreads, the busiest first */
};

struct gf_mon_sample {
	double t;		/* CLOCK_REALTIME seconds */
	double interval_s;	/* since the previous sample; 0 on the first */
	char hostname[64];
	unsigned ngpus, nnodes, ndisks, nnics;
	struct gf_mon_gpu *gpus;
	struct gf_mon_node *nodes;
	struct gf_mon_disk *disks;
	struct gf_mon_nic *nics;
	struct gf_mon_pagecache pagecache;	/* zeros without GF_MON_PAGECACHE */
	const struct gf_mon_proc *proc;		/* NULL without a pid */
	const char *gpu_why;	/* why there are no GPU figures ("NVML not available: ..."), NULL if there are */
};

struct gf_monitor;

/* Discovers the model (unless opts->topo), loads NVML if GF_MON_GPU, opens
 * the counters.  A missing NVML is not an error: the sample has no GPU
 * figures and gpu_why says why.  -ESRCH: opts->pid does not exist;
 * -EINVAL: bad options; the message names them. */
GF_API int gf_monitor_open(const struct gf_monitor_opts *opts, struct gf_monitor **out);
/* Reads every counter and points *out at the sample, valid until the next
 * call or gf_monitor_close.  Not thread-safe for one monitor.  A counter
 * that vanishes (a disk removed, the process gone) leaves its figures NAN
 * or proc->alive false; only an internal failure returns -errno. */
GF_API int gf_monitor_sample(struct gf_monitor *m, const struct gf_mon_sample **out);
/* The model the monitor uses (its own or opts->topo). */
GF_API const struct gf_topo *gf_monitor_topo(const struct gf_monitor *m);
GF_API void gf_monitor_close(struct gf_monitor *m);

#ifdef __cplusplus
}
#endif

#endif
