/* The sampler's private side: the monitor's state, one reader per part
 * (host_cpu.c, host_disk.c, host_net.c, host_mem.c, gpu.c, proc_sample.c)
 * and the hooks a unit test uses to sample a tree it made as if it were a
 * live machine, with a clock it moves itself. */
#ifndef GF_MONITOR_INTERNAL_H
#define GF_MONITOR_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <gpufeed/monitor.h>

#include "core/fs.h"

/* Seconds on a monotonic clock (intervals) and on the wall clock (s->t). */
typedef void gf_mon_clock_fn(void *arg, double *mono, double *real);

struct gf_mon_hooks {
	/* Read the counters of opts.root as those of a live machine (a test's
	 * fabricated /proc and /sys), and load NVML for it. */
	bool root_is_live;
	gf_mon_clock_fn *clock;		/* NULL: clock_gettime */
	void *clock_arg;
};

/* gf_monitor_open with hooks (NULL: none); tests only. */
int gf_monitor_open_hooked(const struct gf_monitor_opts *opts, const struct gf_mon_hooks *hooks,
			   struct gf_monitor **out);

/* The previous reading of one CPU set (/proc/stat jiffies). */
struct mon_cpu_prev {
	uint64_t busy, iowait, total;
	bool have;
};

struct mon_disk_prev {
	uint64_t rd_ios, rd_sectors, wr_ios, wr_sectors, io_ticks, time_in_queue;
	bool have;
};

/* One NIC or RDMA port: where its counters are and their last values. */
struct mon_nic_src {
	char rx_path[160], tx_path[160];
	char speed_path[160];		/* net: speed (Mb/s); rdma: rate ("400 Gb/sec (4X NDR)") */
	unsigned word;			/* bytes per counter unit: 1, or 4 for RDMA port_*_data */
	uint64_t rx, tx;
	bool have;
};

struct mon_gpu;		/* gpu.c */
struct mon_proc;	/* proc_sample.c */

struct gf_monitor {
	struct gf_fs fs;
	bool fs_open;
	struct gf_topo *own_topo;	/* discovered here, freed at close */
	const struct gf_topo *topo;
	unsigned parts;
	pid_t pid;
	bool children;
	bool live;			/* counters are read (this machine, or a test's tree) */
	gf_mon_clock_fn *clock;
	void *clock_arg;
	double prev_mono;
	bool primed;			/* a previous sample exists */
	double dt;			/* seconds since it, 0 on the first */

	struct gf_mon_sample s;
	struct mon_cpu_prev *cpu_prev;	/* one per node */
	struct mon_disk_prev *disk_prev;	/* one per disk */
	struct mon_nic_src *nic_src;	/* one per nic */
	int *disk_block;		/* s.disks[i] is topo->blocks[disk_block[i]] */
	struct mon_gpu *gpu;
	struct mon_proc *proc;
	char gpu_why[320];		/* s.gpu_why points here */
};

/* With a pid: whether pid is the sampled process or (with children) one of
 * its descendants, as the last process sample found them. */
bool gf_mon_proc_has(const struct gf_monitor *m, unsigned pid);

/* A rate from two readings of a counter, NAN without an interval or when
 * the counter went back (a device reset or a wrapped 32-bit counter). */
double gf_mon_rate(uint64_t now, uint64_t prev, double dt);

/* Parts: set up at open (0 or -errno with a message), read each sample
 * (0, or -errno only for an internal failure; a file that vanished leaves
 * its figures NAN), freed at close. */
int gf_mon_nodes_open(struct gf_monitor *m);
int gf_mon_nodes_sample(struct gf_monitor *m);
int gf_mon_disks_open(struct gf_monitor *m);
int gf_mon_disks_sample(struct gf_monitor *m);
int gf_mon_nics_open(struct gf_monitor *m);
int gf_mon_nics_sample(struct gf_monitor *m);
int gf_mon_pagecache_sample(struct gf_monitor *m);
int gf_mon_gpus_open(struct gf_monitor *m);
int gf_mon_gpus_sample(struct gf_monitor *m);
void gf_mon_gpus_close(struct gf_monitor *m);
int gf_mon_proc_open(struct gf_monitor *m);
int gf_mon_proc_sample(struct gf_monitor *m);
void gf_mon_proc_close(struct gf_monitor *m);

/* "Key: 123 kB" lines (/proc/meminfo, a node's meminfo with its "Node N "
 * prefix): the value of key in bytes (kB times 1024, a bare number as is),
 * or GF_MON_NONE when absent. */
uint64_t gf_mon_meminfo_value(const char *text, const char *key);

#endif
