/* One rank of a job read from /proc: its step thread's run and run-queue
 * time (schedstat), what the thread is blocked in (syscall, sampled), the
 * process's own CPU and the GPUs it has open.  Its descendants' CPU, its
 * I/O, faults and cgroup throttling come from the monitor (run.c).
 * docs/diagnose.md, "What is sampled". */
#ifndef GF_DIAGNOSE_PROBE_H
#define GF_DIAGNOSE_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "diagnose/verdict.h"

#define GF_PROBE_MAX_GPUS 16

struct gf_probe {
	pid_t pid, tid;			/* tid: the step thread (the channel's, else the main thread) */
	bool alive;
	/* counters at the start of the interval */
	uint64_t run_ns, wait_ns;	/* schedstat */
	uint64_t cpu_ticks;
	double t0;			/* CLOCK_MONOTONIC seconds at the start */
	/* blocked-state samples in the interval */
	unsigned samples, blocked[GF_DW_N];
	unsigned waiting_child;		/* of them, in wait4/waitid: a launcher or a shell */
	double waiting_child_frac;	/* the last interval's share of those */
	bool syscall_denied;		/* /proc/PID/task/TID/syscall refused: states from stat only */
	int gpu_minor[GF_PROBE_MAX_GPUS];	/* /dev/nvidiaN it has open */
	unsigned ngpus;
};

/* Starts watching pid's thread tid (0: the main thread): -ESRCH named. */
int gf_probe_open(struct gf_probe *p, pid_t pid, pid_t tid);
/* One look at what the step thread is blocked in (called at state_hz). */
void gf_probe_state(struct gf_probe *p);
/* Closes the interval: fills r (pid, run, runq, wait[], cpu; the monitor's
 * figures NAN) and starts the next.  alive false once
 * the process is gone (r keeps zeros). */
void gf_probe_interval(struct gf_probe *p, double now, struct gf_diag_rank_tick *r);
/* The GPUs (/dev/nvidiaN minors) the process has open, read again. */
void gf_probe_gpus(struct gf_probe *p);
/* What one syscall line of /proc/PID/task/TID/syscall means (for tests):
 * the kind, with the fd's target resolved by lookup(fd). */
enum gf_diag_wait gf_probe_classify(const char *syscall_line, char state,
				    int (*lookup)(long fd, char *buf, size_t size, void *arg), void *arg);
/* Direct children of pid (from /proc/PID/task/TID/children): n, at most max. */
int gf_probe_children(pid_t pid, pid_t *out, int max);
double gf_probe_now(void);

#endif
