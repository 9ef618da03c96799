/* Insides of `bench io` shared by the target (io_target.c), the runner
 * (io_run.c) and the sweep (io_sweep.c). */
#ifndef GF_BENCH_IO_BENCH_H
#define GF_BENCH_IO_BENCH_H

#include <stdbool.h>
#include <sys/stat.h>
#include <gpufeed/cpuset.h>

#include "bench/io_opts.h"

#include "bench/runner.h"

struct gf_bench_io {
	struct gf_bench_io_opts opts;
	struct gf_bench_io_file target;
	struct gf_cpuset cpus;		/* the drive's node's allowed CPUs */
	bool have_cpus;
	/* The file we created, by identity: a file moved onto the path
	 * while we run is someone else's, never written or removed. */
	dev_t dev;
	ino_t ino;
	bool removed;
	int excl_fd;			/* a block device claimed O_EXCL, -1 */
	/* Progress inside a point for gf_bench_io_run_plan (the runner's
	 * in-point report), in place of opts.progress when set. */
	void (*in_point)(const struct gf_bench_progress *pr, void *ctx);
	void *in_point_ctx;
};

/* What gf_bench_io_run_plan returns (io_runner.c), written by io_report.c. */
struct gf_bench_io_results {
	struct gf_bench_io_file target;
	bool single;			/* one point: its fields at the JSON's top level too */
	unsigned n, repeats;
	/* Per point the figure: the median run's result, gb_per_s the median
	 * of the runs' GB/s; a point not run has only p, status and error. */
	struct gf_bench_result *figures;
	struct gf_bench_result *runs;	/* n * repeats, point i's from i * repeats */
	unsigned *nruns;		/* runs each point made */
	struct gf_runner_point *points;	/* the runner's: each run's GB/s, summarised */
	bool cancelled, remove_failed;
	char problem[512];
};

/* Writes n points (figure, its runs, the runner's summary of them) as
 * gf_bench_io_write_json does. */
int gf_bench__write_json(const struct gf_bench_io_file *t, const struct gf_bench_result *figures,
			 const struct gf_bench_result *runs, const unsigned *nruns, unsigned repeats,
			 const struct gf_runner_point *points, unsigned n, bool single, FILE *f);

/* Whether st (of the path or of a descriptor opened on it) is the file
 * this run created; true for targets we did not create. */
bool gf_bench__ours(const struct gf_bench_io *b, const struct stat *st);

/* Fills buf with a non-repeating pseudo-random stream (xorshift64*), so
 * writes are neither zero pages nor compressible. */
void gf_bench__fill(void *buf, size_t len, uint64_t seed);
int gf_bench__drop_cache(struct gf_bench_io *b);
/* Reads [0, span) once, for at most budget_ns; *warmed is how much it read.
 * -ECANCELED when opts.cancel was set. */
int gf_bench__warm_cache(struct gf_bench_io *b, uint64_t span, uint64_t budget_ns, uint64_t *warmed);

#endif
