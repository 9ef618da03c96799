/* `gpufeed bench io` (the target gf_bench_io_def, frame.h): storage through
 * the I/O engine, one point (fio-style) or a sweep, with placement from the
 * machine model.  Its parts (the point, the sweep, the plan, the results)
 * are the library's own; tests/unit/test_bench_api.c calls them directly. */
#ifndef GF_BENCH_IO_OPTS_H
#define GF_BENCH_IO_OPTS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <gpufeed/io.h>
#include <gpufeed/parse.h>	/* sizes, counts, durations */
#include <gpufeed/topo.h>


/* 2: gpufeed_version and generated_at (was version), span_bytes, redrops,
 * target.direct_align.  3: per point "repeats", "summary" (the median and
 * spread of its runs' GB/s) and "runs" (each run's figures); gb_per_s is
 * the median of the runs. */
#define GF_BENCH_IO_SCHEMA "gpufeed-bench-io/3"

enum gf_bench_mode { GF_BENCH_SEQREAD = 0, GF_BENCH_RANDREAD, GF_BENCH_SEQWRITE, GF_BENCH_RANDWRITE };
const char *gf_bench_mode_name(enum gf_bench_mode m);
int gf_bench_mode_parse(const char *s, enum gf_bench_mode *m);
bool gf_bench_mode_writes(enum gf_bench_mode m);

enum gf_bench_cache {
	GF_CACHE_DIRECT = 0,	/* O_DIRECT: the page cache is bypassed */
	GF_CACHE_COLD,		/* buffered, the file's cached pages dropped first */
	GF_CACHE_WARM,		/* buffered reads, the span read once first */
};
const char *gf_bench_cache_name(enum gf_bench_cache c);

/* One configuration of the sweep. */
struct gf_bench_point {
	enum gf_bench_mode mode;
	size_t bs;
	unsigned qd;			/* in flight per thread */
	unsigned threads;		/* submitting threads, each with its engine */
	enum gf_bench_cache cache;
	enum gf_io_backend engine;	/* GF_IO_URING or GF_IO_PSYNC */
	bool sqpoll;
	double duration_s;
};

#define GF_LAT_SAMPLES_MAX 600
/* Bounds of a point (gf_bench_io_run refuses others). */
#define GF_BENCH_BS_MIN 512u
#define GF_BENCH_BS_MAX (1u << 30)
#define GF_BENCH_QD_MAX 4096u
#define GF_BENCH_THREADS_MAX 256u
#define GF_BENCH_IO_REPEATS_MAX 100u	/* runs per point (--repeats) */

struct gf_bench_result {
	struct gf_bench_point p;
	int status;			/* 0, or -errno: the point failed */
	char error[256];
	char note[256];			/* "O_DIRECT refused by ramfs; ..." */
	char engine_used[8];		/* "uring", "psync" */
	bool direct_used;
	uint64_t span;			/* bytes of the file the point covers */
	unsigned redrops;		/* cold: passes that dropped (or, buffered
					 * writes, flushed) their slice again */
	uint64_t bytes, ios;
	double seconds;
	double gb_per_s, iops;		/* GB/s = 1e9 bytes per second */
	double lat_mean_us, lat_p50_us, lat_p99_us, lat_p999_us, lat_max_us;
	double cpu_user_s, cpu_sys_s, cpu_s_per_gb;
	double interval_s;		/* samples[] are GB/s over this interval */
	double samples[GF_LAT_SAMPLES_MAX];
	unsigned nsamples;
};

/* Where a running point is, for progress lines. */
struct gf_bench_progress {
	const struct gf_bench_point *point;
	double elapsed_s;		/* since the point's I/O started */
	uint64_t bytes;			/* completed so far */
	double gb_per_s_now;		/* over the last report's interval */
};

struct gf_bench_io_opts {
	size_t struct_size;		/* GF_BENCH_IO_OPTS_INIT sets it */
	const char *path;		/* file (created when missing) or block device */
	uint64_t size;			/* bytes of a file we create; 0 = 1 GiB */
	bool force;			/* write over an existing file or device */
	bool writes;			/* some point writes: checks --force */
	int numa_node;			/* -1: the drive's node from the model; -2: no placement */
	const struct gf_topo *model;	/* the machine's model (the drive's node);
					 * NULL: no placement from a model */
	volatile sig_atomic_t *cancel;	/* set from a signal handler to stop */
	/* Called about every 0.1 s while a point runs, in the thread that
	 * called gf_bench_io_run; NULL: none. */
	void (*progress)(const struct gf_bench_progress *pr, void *ctx);
	void *progress_ctx;
	/* gf_bench_io_run_plan only (the shared bench runner's): */
	unsigned repeats;		/* runs of each point, 0 means 1 */
	FILE *progress_stream;		/* progress lines (elapsed, ETA); NULL none */
	bool progress_tty;		/* one line rewritten in place */
	double status_interval_s;	/* not tty: a status line this often; 0 none */
};
#define GF_BENCH_IO_OPTS_INIT { .struct_size = sizeof(struct gf_bench_io_opts), .numa_node = -1 }

/* What was measured on, filled by gf_bench_io_open. */
struct gf_bench_io_file {
	char path[4096];
	bool block_device;
	bool created;			/* we created the file (and remove it) */
	uint64_t size;
	char fs[24];			/* "ext4", "tmpfs", "block device" */
	char device[32];		/* the disk under it: "vda", "nvme0n1", "" */
	char model[64];
	char pcie[64];			/* "PCIe Gen4 x4" or "" */
	int device_numa_node;		/* -1 unknown */
	int numa_node;			/* where buffers and threads go, -1 none */
	char numa_source[16];		/* "drive", "option", "none" */
	char cpus[256];			/* CPU list threads are bound to, "" any */
	int buffer_node_actual;		/* move_pages truth of a buffer page, -1 unknown */
	unsigned direct_align;		/* bytes O_DIRECT blocks must be a multiple of;
					 * 0: O_DIRECT is not available (runs buffered) */
	/* Machine summary from the model. */
	char hostname[65], kernel[96];
	int ncpus, nnodes;
	unsigned long long memory_bytes;
};

struct gf_bench_io;
int gf_bench_io_open(const struct gf_bench_io_opts *opts, struct gf_bench_io **out);
const struct gf_bench_io_file *gf_bench_io_file(const struct gf_bench_io *b);
/* Whether the point can run as asked on this target (block size, queue
 * depth, threads, engine, O_DIRECT alignment, writes allowed): 0 or -EINVAL
 * / -EPERM with a message.  gf_bench_io_run checks the same; a caller checks
 * all points first to refuse a bad sweep before any runs. */
int gf_bench_io_check(const struct gf_bench_io *b, const struct gf_bench_point *p);
/* Runs one point; a failed point still returns 0 with r->status set, a
 * cancelled run returns -ECANCELED. */
int gf_bench_io_run(struct gf_bench_io *b, const struct gf_bench_point *p, struct gf_bench_result *r);
/* Removes the file we created, if the path still holds it: 0 (also when
 * there is nothing to remove), -ESTALE when another file was moved onto
 * the path (left in place), or -errno. */
int gf_bench_io_remove(struct gf_bench_io *b);
/* Removes the file as gf_bench_io_remove does, and frees b. */
void gf_bench_io_close(struct gf_bench_io *b);

/* The sweep: the product of these lists (docs/bench-io.md). */
struct gf_bench_sweep {
	enum gf_bench_mode modes[4];
	unsigned nmodes;
	size_t bs[16];
	unsigned nbs;
	enum gf_bench_cache caches[3];
	unsigned ncaches;
	struct { enum gf_io_backend engine; unsigned n; } engines[8];	/* n = qd (uring) or threads (psync) */
	unsigned nengines;
	double duration_s;
};
void gf_bench_sweep_default(struct gf_bench_sweep *s, bool quick);
/* Replaces one list of the sweep from its command-line form: list is
 * "modes" (seqread,randwrite), "bs" (4K,1M), "cache" (direct,cold,warm) or
 * "engines" (psync:4,uring:32).  All or nothing: 0, or -EINVAL / -ERANGE /
 * -E2BIG with a message naming the item, s unchanged. */
int gf_bench_sweep_set(struct gf_bench_sweep *s, const char *list, const char *value);
/* Points of the sweep (caches that do not apply are skipped: warm writes). */
unsigned gf_bench_sweep_points(const struct gf_bench_sweep *s, struct gf_bench_point *out, unsigned max);

/* What was asked for, as the command line gives it (strings for the lists
 * and the block size, 0 for "the default"). */
struct gf_bench_io_request {
	size_t struct_size;		/* GF_BENCH_IO_REQUEST_INIT sets it */
	const char *path;
	bool single;			/* one point (--mode), else a sweep */
	enum gf_bench_mode mode;
	const char *bs;			/* one size; in a sweep a list */
	unsigned qd, threads;		/* one point; 0: default */
	bool direct, warm, sqpoll;	/* one point */
	enum gf_io_backend engine;	/* one point: GF_IO_URING or GF_IO_PSYNC */
	bool quick;			/* the short sweep */
	const char *modes, *engines, *cache;	/* sweep lists, NULL: default */
	double duration_s;		/* per point, 0: default */
	uint64_t size;			/* of a file we create, 0: default */
	bool force;			/* writes to an existing file or device */
	unsigned repeats;		/* runs of each point, 0: 1 */
};
#define GF_BENCH_IO_REQUEST_INIT { .struct_size = sizeof(struct gf_bench_io_request), .engine = GF_IO_URING }

/* What will run: the points and the options to open the target with. */
struct gf_bench_plan {
	struct gf_bench_point *points;
	unsigned n;
	bool reads_only;		/* PATH exists, no --force: the sweep's writes were dropped */
	struct gf_bench_io_opts opts;	/* path, size, force, writes, repeats set; the rest default */
	bool single;			/* one point (--mode): its fields also at the JSON's top level */
};
/* Checks the request (conflicting options, bounds, lists) and makes the
 * points.  Errors are the caller's usage errors: -EINVAL/-ERANGE with a
 * message naming the option.  Free with gf_bench_plan_free. */
int gf_bench_io_plan(const struct gf_bench_io_request *rq, struct gf_bench_plan *plan);
void gf_bench_plan_free(struct gf_bench_plan *plan);

/* The whole of `gpufeed bench io` on the shared bench runner: opens the
 * target with opts (plan->opts with the caller's placement, cancel and
 * progress), checks every point before any runs, runs each point
 * opts->repeats times (progress with ETA on opts->progress_stream, stopping
 * when *opts->cancel is set), removes the file it created and returns the
 * results in *out.  0 when every point ran (some may have failed:
 * gf_bench_io_results_failed); -EDOM when a point is one the target cannot
 * take (gf_bench_io_check's message: a usage error), nothing run;
 * -ECANCELED when stopped, *out still set (the points not reached say so);
 * else -errno from opening the target, *out NULL. */
struct gf_bench_io_results;
int gf_bench_io_run_plan(const struct gf_bench_plan *plan, const struct gf_bench_io_opts *opts,
				struct gf_bench_io_results **out);
/* Whether something failed: a point, the removal of the file, or the run
 * was interrupted. */
bool gf_bench_io_results_failed(const struct gf_bench_io_results *res);
/* What went wrong, for a line on stderr ("" when nothing): the file could
 * not be removed, the run was interrupted, or the one point failed. */
const char *gf_bench_io_results_problem(const struct gf_bench_io_results *res);
int gf_bench_io_results_write_json(const struct gf_bench_io_results *res, FILE *f);
int gf_bench_io_results_print(const struct gf_bench_io_results *res, FILE *f);
void gf_bench_io_results_free(struct gf_bench_io_results *res);

/* Output: results of one run (n points); single = the fio-style one point,
 * whose fields are also written at the top level. */
int gf_bench_io_write_json(const struct gf_bench_io_file *t, const struct gf_bench_result *r, unsigned n,
				  bool single, FILE *f);
int gf_bench_io_print(const struct gf_bench_io_file *t, const struct gf_bench_result *r, unsigned n,
			     FILE *f);

#endif
