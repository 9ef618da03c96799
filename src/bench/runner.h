/* The bench runner shared by every target (mem now; io, h2d, p2p and the
 * collectives to come; docs/bench.md): a target is a table of operations on
 * numbered points, the runner owns the loop around them: warm-up samples
 * that are dropped, repeats that are kept, the summary of each point
 * (stats.h), progress with elapsed time and ETA on a stream, and stopping
 * cleanly when asked (a signal handler sets *cancel).
 *
 * A target knows nothing of repeats or progress; the runner knows nothing
 * of what a sample measures. */
#ifndef GF_BENCH_RUNNER_H
#define GF_BENCH_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench/stats.h"

/* The run in progress (runner.c), for a target's in-point reports. */
struct gf_runner;

struct gf_bench_ops {
	/* Makes point i ready (buffers, threads, calibration).  0, or -errno
	 * with gf_error's message: the point is recorded as failed and the
	 * others still run.  NULL: nothing to prepare. */
	int (*prepare)(void *ctx, unsigned i);
	/* One sample of point i, in the point's unit (ns, GB/s, ...). */
	int (*sample)(void *ctx, unsigned i, double *value);
	/* Undoes prepare; called after every prepare that returned 0.  NULL:
	 * nothing to undo. */
	void (*cleanup)(void *ctx, unsigned i);
	/* Names point i in progress lines ("read, CPU node 0, memory node 1"). */
	void (*label)(void *ctx, unsigned i, char *buf, size_t size);
	/* Optional, for a target whose one sample lasts seconds (bench io: a
	 * sample is a whole timed run): given the run before the first point
	 * and NULL after the last, so that sample() can report where it is
	 * with gf_runner_report. */
	void (*attach)(void *ctx, struct gf_runner *run);
};

struct gf_runner_opts {
	const char *name;		/* "bench mem", heads progress lines */
	unsigned repeats;		/* samples kept per point; 0 means 1 */
	unsigned warmup;		/* samples taken first and dropped */
	volatile sig_atomic_t *cancel;	/* set (by a signal handler) to stop */
	FILE *progress;			/* NULL: no progress */
	bool tty;			/* progress rewrites one line in place;
					 * else a line every status_interval_s */
	double status_interval_s;	/* not tty: 0 means a line per point */
};

struct gf_runner_point {
	int status;			/* 0, or -errno: the point failed */
	char error[256];
	double *samples;		/* repeats kept, in the order taken */
	unsigned nsamples;
	struct gf_stats stats;		/* of samples[] */
	double seconds;			/* the point's wall time, prepare to cleanup */
};

/* Runs points 0..n-1 into res[0..n) (zeroed first).  0 when every point
 * ran (failed points have status set), -ECANCELED when *cancel was set
 * (points not reached have status -ECANCELED), -EINVAL or -ENOMEM.  Free
 * the samples with gf_runner_points_free. */
int gf_runner_run(const struct gf_bench_ops *ops, void *ctx, unsigned n, const struct gf_runner_opts *o,
		  struct gf_runner_point *res);
void gf_runner_points_free(struct gf_runner_point *res, unsigned n);

/* From inside sample(), in the runner's thread: the sample in progress is
 * this fraction (0..1) done; detail ("0.6 of 1.0 s, 1.234 GB/s now") goes
 * on the progress line after the point's label, and the ETA counts the
 * fraction.  Printed as other progress lines are (tty: every call; else
 * every status_interval_s, none when that is 0).  run NULL: nothing. */
void gf_runner_report(struct gf_runner *run, double fraction, const char *detail);

/* Seconds on the monotonic clock: what every target times with. */
double gf_bench_now(void);

#endif
