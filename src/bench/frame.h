/* The bench frame (gpufeed/bench.h) from a target's side: a target is one
 * struct gf_bench_def, its options a table of struct gf_bench_opt_def,
 * listed in frame.c's targets[].  The frame owns what every target did
 * alike: options from their command-line form, the operand, the machine
 * model (discovered once from the caller's options, or the caller's),
 * progress and cancel, and the lifetime of the results.  A target owns its
 * points, its measuring and its output.  docs/bench.md. */
#ifndef GF_BENCH_FRAME_H
#define GF_BENCH_FRAME_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <gpufeed/bench.h>
#include <gpufeed/topo.h>

#include "bench/runner.h"

/* Where an option's value goes in the target's options struct. */
enum gf_bench_store {
	GF_BENCH_STORE_BOOL = 0,	/* bool, set by a flag */
	GF_BENCH_STORE_TEXT,		/* const char *, the frame's copy */
	GF_BENCH_STORE_UINT,		/* unsigned, within [lo, hi] */
	GF_BENCH_STORE_U64,		/* uint64_t bytes, within [lo, hi] (hi 0: any) */
	GF_BENCH_STORE_DOUBLE,		/* double seconds, within (0, hi] */
	GF_BENCH_STORE_CUSTOM,		/* set() parses it */
};

struct gf_bench_opt_def {
	struct gf_bench_option pub;
	enum gf_bench_store store;
	size_t off;
	uint64_t lo, hi;
	/* GF_BENCH_STORE_CUSTOM: 0, or -EINVAL/-ERANGE with a message that
	 * names the option. */
	int (*set)(void *opts, const char *value);
};

#define GF_BENCH_FLAG(name, help, type, field) \
	{ { name, NULL, help, GF_BENCH_OPT_FLAG }, GF_BENCH_STORE_BOOL, offsetof(type, field), 0, 0, NULL }
#define GF_BENCH_TEXT(name, argh, help, type, field) \
	{ { name, argh, help, GF_BENCH_OPT_TEXT }, GF_BENCH_STORE_TEXT, offsetof(type, field), 0, 0, NULL }
#define GF_BENCH_COUNT(name, argh, help, type, field, lo, hi) \
	{ { name, argh, help, GF_BENCH_OPT_COUNT }, GF_BENCH_STORE_UINT, offsetof(type, field), lo, hi, NULL }
#define GF_BENCH_SIZE(name, argh, help, type, field, lo, hi) \
	{ { name, argh, help, GF_BENCH_OPT_SIZE }, GF_BENCH_STORE_U64, offsetof(type, field), lo, hi, NULL }
#define GF_BENCH_DURATION(name, argh, help, type, field, hi) \
	{ { name, argh, help, GF_BENCH_OPT_DURATION }, GF_BENCH_STORE_DOUBLE, offsetof(type, field), 0, hi, NULL }
#define GF_BENCH_CUSTOM(name, argh, help, kind, fn) \
	{ { name, argh, help, kind }, GF_BENCH_STORE_CUSTOM, 0, 0, 0, fn }
#define GF_BENCH_OPTS_END { { NULL, NULL, NULL, GF_BENCH_OPT_FLAG }, 0, 0, 0, 0, NULL }

/* What a target's run gets from the frame. */
struct gf_bench_env {
	const struct gf_topo *model;	/* never NULL; outlives the results */
	volatile sig_atomic_t *cancel;	/* NULL: not cancellable */
	FILE *progress;
	bool progress_tty;
	double status_interval_s;
};

struct gf_bench_def {
	struct gf_bench_target pub;
	const struct gf_bench_opt_def *opts;	/* ended by GF_BENCH_OPTS_END */
	size_t opts_size;			/* of its options struct */
	void (*init)(void *opts);		/* every option at its default; NULL:
						 * all zero */
	/* The options together, operand included (NULL when not given): 0 or
	 * -EINVAL/-ERANGE naming the option.  NULL: nothing to check. */
	int (*check)(const void *opts, const char *operand);
	/* Measures into *res, freed with free_res; returns as gf_bench_run.  On
	 * -ECANCELED a target that keeps the points that ran sets *res too. */
	int (*run)(const void *opts, const char *operand, const struct gf_bench_env *env, void **res);
	enum gf_bench_outcome (*outcome)(const void *res);
	unsigned (*findings)(const void *res);
	const char *(*problem)(const void *res);	/* NULL: never one */
	int (*print)(const void *res, FILE *f);
	int (*write_json)(const void *res, FILE *f);
	void (*free_res)(void *res);
};

extern const struct gf_bench_def gf_bench_io_def, gf_bench_io_gpu_def, gf_bench_mem_def, gf_bench_h2d_def,
	gf_bench_p2p_def, gf_bench_loader_def, gf_bench_coll_def, gf_bench_overlap_def;

/* The runner's cancel, progress, tty and status interval from the frame's. */
void gf_bench_env_runner(const struct gf_bench_env *env, struct gf_runner_opts *ro);

/* The outcome of a GPU or memory target from its findings: any is
 * GF_BENCH_FINDINGS. */
enum gf_bench_outcome gf_bench_outcome_of(unsigned findings);

/* A target whose results are a `type` with typed functions PREFIX_findings,
 * _print, _write_json and _free (gf_bench_mem_print(const struct
 * gf_bench_mem *, FILE *)...), its outcome from its findings: the def's
 * result functions, written once.  GF_BENCH_RESULTS_DEFINE(PREFIX, TYPE) at
 * file scope, GF_BENCH_RESULTS(PREFIX) in the def. */
#define GF_BENCH_RESULTS_DEFINE(prefix, type) \
	static unsigned prefix##_findings_(const void *r) { return prefix##_findings((const type *)r); } \
	static enum gf_bench_outcome prefix##_outcome_(const void *r) \
	{ return gf_bench_outcome_of(prefix##_findings((const type *)r)); } \
	static int prefix##_print_(const void *r, FILE *f) { return prefix##_print((const type *)r, f); } \
	static int prefix##_write_json_(const void *r, FILE *f) { return prefix##_write_json((const type *)r, f); } \
	static void prefix##_free_(void *r) { prefix##_free((type *)r); }
#define GF_BENCH_RESULTS(prefix) \
	.outcome = prefix##_outcome_, .findings = prefix##_findings_, .print = prefix##_print_, \
	.write_json = prefix##_write_json_, .free_res = prefix##_free_

#endif
