/* Benchmarks: `gpufeed bench TARGET`.  Every target (io, io-gpu, mem, h2d,
 * p2p) is described by the library: its name, its options (as fio's engines
 * carry theirs), its operand, what its exit codes mean.  The CLI builds each
 * `bench` subcommand, its --help and its man page from that description, and
 * a binding builds its calls the same way; one frame runs every target:
 *
 *     struct gf_bench *b;
 *     struct gf_bench_run_opts ro = GF_BENCH_RUN_OPTS_INIT;
 *
 *     gf_bench_new("h2d", &b);
 *     gf_bench_set(b, "gpu", "0");            // as --gpu 0
 *     gf_bench_set(b, "quick", NULL);         // a flag
 *     if (gf_bench_check(b) == 0 && gf_bench_run(b, &ro) == 0)
 *             gf_bench_write_json(b, stdout);
 *     gf_bench_free(b);
 *
 * The machine comes in one way, as for every feature: ro.machine (the model's
 * options: a recording's root, NVML, the locality override) or ro.model (a
 * model the caller already discovered).  A target measures this machine; the
 * model gives it placement (a drive's or a GPU's NUMA node) and the limits
 * its figures are held against.  docs/bench.md. */
#ifndef GPUFEED_BENCH_H
#define GPUFEED_BENCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an option's value is, for a caller that builds a command line, a
 * form or a keyword argument from it. */
enum gf_bench_option_kind {
	GF_BENCH_OPT_FLAG = 0,		/* no value: gf_bench_set(b, name, NULL) */
	GF_BENCH_OPT_TEXT,		/* a word or a list: "0,1", "bounce,gds" */
	GF_BENCH_OPT_COUNT,		/* a whole number within the option's bounds */
	GF_BENCH_OPT_SIZE,		/* bytes: 4K, 64M, 1G (gpufeed/parse.h) */
	GF_BENCH_OPT_DURATION,		/* seconds: 10s, 500ms, 1m */
};

struct gf_bench_option {
	const char *name;		/* the long option, without dashes: "repeats" */
	const char *argh;		/* the value's name in help ("N"); NULL: a flag */
	const char *help;		/* lines separated by '\n' */
	enum gf_bench_option_kind kind;
};

/* The exit codes of the CLI's convention (docs/exit-codes.md). */
#define GF_BENCH_EXITS 5

struct gf_bench_target {
	const char *name;		/* "h2d": gpufeed bench h2d */
	const char *summary;		/* one line */
	const char *description;	/* paragraphs, a blank line between */
	const char *operand;		/* "PATH" when it takes one, else NULL */
	const char *schema;		/* its JSON's schema: "gpufeed-bench-h2d/1" */
	/* What each exit code means for it beyond the common meaning ("": the
	 * common meaning says it all; NULL: it never returns that code). */
	const char *exits[GF_BENCH_EXITS];
	const char *footer;		/* where its documents are */
};

/* The targets in the order `gpufeed bench --help` lists them: i from 0, NULL
 * past the last. */
GF_API const struct gf_bench_target *gf_bench_target_at(unsigned i);
/* By name; NULL (-ENOENT in gf_last_error(), naming the known ones) when
 * there is none. */
GF_API const struct gf_bench_target *gf_bench_target_find(const char *name);
/* Its options: i from 0, NULL past the last. */
GF_API const struct gf_bench_option *gf_bench_option_at(const struct gf_bench_target *t, unsigned i);

/* One benchmark: a target's options, then its results. */
struct gf_bench;

/* A benchmark of the named target with every option at its default:
 * -ENOENT for an unknown target, -EINVAL for NULL. */
GF_API int gf_bench_new(const char *target, struct gf_bench **out);
/* The target b measures (NULL, with a message, for b NULL). */
GF_API const struct gf_bench_target *gf_bench_target_of(const struct gf_bench *b);
/* Sets an option by its long name from its command-line form (value NULL
 * for a flag).  0, or -EINVAL / -ERANGE with a message naming the option
 * ("--repeats: '0' is not a number from 1 to 1000"); -ENOENT for an option
 * the target does not have; -EBUSY after gf_bench_run.  The value is
 * copied. */
GF_API int gf_bench_set(struct gf_bench *b, const char *option, const char *value);
/* The operand (the target's `operand`: bench io's PATH), copied; -EINVAL
 * for a target without one. */
GF_API int gf_bench_set_operand(struct gf_bench *b, const char *value);
/* The options together, before anything runs: 0, or -EINVAL / -ERANGE with
 * a message naming the option (a usage error: conflicting options, a
 * missing operand). */
GF_API int gf_bench_check(const struct gf_bench *b);

/* Versioned (include/gpufeed/common.h): start from GF_BENCH_RUN_OPTS_INIT. */
struct gf_bench_run_opts {
	size_t struct_size;
	/* The machine model: model when the caller has one (it must outlive the
	 * run), else discovered with machine (NULL: this machine, NVML when
	 * present). */
	const struct gf_topo_options *machine;
	const struct gf_topo *model;
	volatile sig_atomic_t *cancel;	/* set from a signal handler to stop */
	FILE *progress;			/* progress lines with elapsed time and
					 * ETA; NULL: none */
	bool progress_tty;		/* one line rewritten in place */
	double status_interval_s;	/* progress not on a tty: a status line
					 * this often; 0: one a point */
};
#define GF_BENCH_RUN_OPTS_INIT { .struct_size = sizeof(struct gf_bench_run_opts) }

/* Measures (once per gf_bench).  0 when it ran: points that failed are in
 * the results (gf_bench_outcome).  -EINVAL / -ERANGE: gf_bench_check's usage
 * errors, or a point the target cannot take (bench io's O_DIRECT block
 * size), nothing run; -ENOSYS / -ENODEV: not available here (no libcuda, no
 * such GPU or NUMA node); -ECANCELED: stopped, the points that ran may
 * still be printed (gf_bench_has_results); else -errno. */
GF_API int gf_bench_run(struct gf_bench *b, const struct gf_bench_run_opts *opts);
/* Whether there are results to print: after a run that returned 0, and
 * after an interrupted one whose target keeps the points that ran. */
GF_API bool gf_bench_has_results(const struct gf_bench *b);

enum gf_bench_outcome {
	GF_BENCH_CLEAN = 0,		/* every figure measured, none in question */
	GF_BENCH_FINDINGS,		/* a figure above its limit, a byte check
					 * that failed, pages off their node, a
					 * measurement that failed (exit 1) */
	GF_BENCH_FAILED,		/* the run itself is incomplete: a point's
					 * I/O failed, it was interrupted, a file it
					 * made could not be removed (exit 3) */
};
/* What the run found, for the exit code; GF_BENCH_FAILED before a run that
 * kept results, and for b NULL. */
GF_API enum gf_bench_outcome gf_bench_outcome(const struct gf_bench *b);
/* The findings and failures behind the outcome, counted (0 without
 * results). */
GF_API unsigned gf_bench_findings(const struct gf_bench *b);
/* What went wrong beyond the figures, for a line on stderr ("" when
 * nothing): bench io's file that could not be removed, an interruption.
 * NULL, with a message, for b NULL. */
GF_API const char *gf_bench_problem(const struct gf_bench *b);
/* The results as text and as JSON (the target's schema): 0, -EIO when
 * writing failed, -EINVAL for b or f NULL or a benchmark without results
 * (gf_bench_has_results). */
GF_API int gf_bench_print(const struct gf_bench *b, FILE *f);
GF_API int gf_bench_write_json(const struct gf_bench *b, FILE *f);
/* NULL does nothing. */
GF_API void gf_bench_free(struct gf_bench *b);

#ifdef __cplusplus
}
#endif
#endif
