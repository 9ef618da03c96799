/* The classifier: a job's samples in, a verdict with numbers out
 * (docs/diagnose.md, "How the verdict is reached").  Pure functions of the
 * samples, so recorded runs replay through them and the unit tests feed
 * them synthetic sequences. */
#ifndef GF_DIAGNOSE_VERDICT_H
#define GF_DIAGNOSE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define GF_DIAG_MAX_RANKS 16
#define GF_DIAG_MAX_SERIES 4096	/* GPU activity samples kept for step inference */

/* What the step thread was blocked in, from /proc/PID/task/TID/syscall. */
enum gf_diag_wait {
	GF_DW_DISK,	/* reading a file or block device, or in uninterruptible disk sleep */
	GF_DW_PIPE,	/* reading a pipe or socket: another process (loader workers) or the network */
	GF_DW_GPU,	/* in an ioctl or poll on /dev/nvidia*: waiting for the GPU */
	GF_DW_SLEEP,	/* nanosleep, select or poll on no GPU */
	GF_DW_SYNC,	/* futex: another thread of its own (a queue, a lock, the GIL) */
	GF_DW_OTHER,
	GF_DW_N,
};

/* One process (a rank) over one interval; fractions are of the interval. */
struct gf_diag_rank_tick {
	pid_t pid;
	bool gone;			/* the rank has exited: nothing sampled (its slot is kept) */
	double run, runq;		/* the step thread on a CPU / runnable waiting (schedstat) */
	double wait[GF_DW_N];		/* the step thread blocked, by kind (sampled) */
	double cpu;			/* CPUs busy, the whole process */
	double children_cpu;		/* CPUs busy, its descendants (worker processes) */
	double read_bps, rchar_bps;	/* storage reads, any reads */
	double majflt_ps;		/* major page faults a second (a mapped file read from disk) */
	double throttled;		/* its cgroup throttled, NAN unknown */
	double gpu_active;		/* SM activity of its GPUs, NAN: no GPU of its own */
	double pcie_rx_frac;		/* host-to-GPU bytes / the link's limit, NAN unknown */
	double link_frac;		/* GPU-to-GPU bytes (NVLink, or PCIe tx) / the limit, NAN unknown */
	uint64_t steps;			/* step markers in the interval */
	double step_s;			/* their summed step times */
	double input_wait_s;		/* loader consumer wait in the interval */
	uint64_t input_bytes;
};

/* One interval of the whole job. */
struct gf_diag_tick {
	double t, dt;			/* CLOCK_MONOTONIC seconds; length */
	unsigned nranks;
	struct gf_diag_rank_tick rank[GF_DIAG_MAX_RANKS];
	char disk[32];			/* the busiest disk the model knows, "" none */
	double disk_busy, disk_read_bps, disk_limit_bps;	/* NAN unknown */
};

/* Sums over the run (time-weighted). */
struct gf_diag_rank_acc {
	pid_t pid;
	double t;			/* seconds observed */
	double run, runq, wait[GF_DW_N];	/* seconds */
	double cpu_s, children_cpu_s, read_b, rchar_b, majflt, throttled_s, throttled_t;
	double gpu_s, gpu_t;		/* busy seconds, seconds with a GPU figure */
	double pcie_rx_s, pcie_t, link_s, link_t;
	uint64_t steps;
	double step_s, step_max_s;
	double input_wait_s;
	uint64_t input_bytes;
};

struct gf_diag_acc {
	unsigned nranks;
	unsigned nticks;
	double t;
	struct gf_diag_rank_acc rank[GF_DIAG_MAX_RANKS];
	char disk[32];
	double disk_busy_s, disk_read_b, disk_t, disk_limit_bps;
	unsigned nseries;
	double series_dt;		/* the first tick's interval */
	double series[GF_DIAG_MAX_SERIES];	/* rank 0's GPU activity per tick */
};

enum gf_diag_part { GF_DIAG_INPUT, GF_DIAG_COMM, GF_DIAG_COMPUTE, GF_DIAG_HOST, GF_DIAG_NPARTS };

struct gf_diag_verdict {
	bool known;			/* false: nothing observed (the job ended at once) */
	enum gf_diag_part bound;
	bool mixed;			/* the second part is within 80% of the first */
	enum gf_diag_part second;
	bool gpu;			/* the job had GPU figures of its own */
	double frac[GF_DIAG_NPARTS];	/* of the run's time, sum 1 */
	double speedup[GF_DIAG_NPARTS];	/* if that part took no time: 1 / (1 - frac) */
	char why[GF_DIAG_NPARTS][256];	/* which part of it, with numbers */
	char fix[GF_DIAG_NPARTS][320];	/* gpufeed's features that address it */
	const char *input_kind;		/* "disk", "pipe", "loader", "h2d" */
	const char *host_kind;		/* "contention", "cpu", "sleep", "sync", "other" */
	/* steps */
	const char *step_source;	/* "markers", "gpu-period", "none" */
	uint64_t steps;
	double step_mean_s, step_max_s;
	/* the straggler, with two ranks or more */
	int straggler;			/* rank index, -1 none */
	double straggler_input;		/* its input fraction */
	double others_input;		/* the others' mean */
	double t;			/* seconds observed */
	unsigned nranks;
};

void gf_diag_acc_init(struct gf_diag_acc *a);
/* Adds one interval; -EINVAL for a tick with more ranks than fit, a
 * negative or NAN interval (the message says which). */
int gf_diag_acc_add(struct gf_diag_acc *a, const struct gf_diag_tick *t);
void gf_diag_classify(const struct gf_diag_acc *a, struct gf_diag_verdict *v);
/* Step period of a GPU activity series by autocorrelation: seconds, or 0
 * when no lag of 2 samples or more correlates above 0.5. */
double gf_diag_infer_period(const double *x, unsigned n, double dt);

const char *gf_diag_part_name(enum gf_diag_part p);
/* The `gpufeed check` categories whose findings bear on the verdict's
 * part ("storage", "cpu", "pcie", "nccl,pcie", "gpu"), NULL none. */
const char *gf_diag_check_categories(const struct gf_diag_verdict *v);
const char *gf_diag_wait_name(enum gf_diag_wait w);

#endif
