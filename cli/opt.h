/* One option table per command: it drives parsing (getopt_long), --help and
 * the man page, so the three cannot drift apart (git's parse-options.h).
 * A command is described once, by a struct gf_cmd; docs/exit-codes.md and
 * man/ are generated from or checked against these tables
 * (tests/cli/test_help.sh). */
#ifndef GF_CLI_OPT_H
#define GF_CLI_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct gf_cli;

enum gf_opt_type {
	GF_OPT_END = 0,
	GF_OPT_BOOL,		/* sets the bool at `off` */
	GF_OPT_STRING,		/* stores the argument (const char *) at `off`; "" is refused */
	GF_OPT_CALLBACK,	/* cb() parses the argument (sizes, durations, enums) */
	GF_OPT_COMMON,		/* one of the common options, by long name (opt_common.c) */
	GF_OPT_FORWARD,		/* the command's set() takes it by name (bench: the
				 * library's own option tables) */
};

#define GF_OPT_IN_CLI	(1u << 0)	/* `off` is into struct gf_cli, not the command's context */
#define GF_OPT_HIDDEN	(1u << 1)	/* parsed, not documented (kept for a clear refusal) */

/* A callback returns 0 to go on, an exit code (> 0) to stop with it, or
 * GF_OPT_DONE to stop with success (--help, --version). */
#define GF_OPT_DONE (-1)
typedef int gf_opt_cb(struct gf_cli *cli, void *ctx, const char *arg);

struct gf_opt {
	enum gf_opt_type type;
	char short_name;	/* 0: none */
	const char *long_name;
	const char *argh;	/* the argument's name in help ("DIR"); NULL: takes none */
	const char *help;	/* lines separated by '\n'; COMMON: NULL keeps the common help */
	unsigned flags;
	size_t off;		/* BOOL, STRING */
	gf_opt_cb *cb;		/* CALLBACK: arg is NULL when argh is */
	/* What the argument completes to in the shells (completion.c): the
	 * words it takes, '|' between ("auto|off|require"), or NULL: found
	 * from argh (FILE, DIR, ... a file; G, a GPU). */
	const char *values;
};

#define GF_OPT_BOOL(s, l, type, field, h) \
	{ GF_OPT_BOOL, s, l, NULL, h, 0, offsetof(type, field), NULL, NULL }
#define GF_OPT_STRING(s, l, a, type, field, h) \
	{ GF_OPT_STRING, s, l, a, h, 0, offsetof(type, field), NULL, NULL }
#define GF_OPT_CALLBACK(s, l, a, fn, h) \
	{ GF_OPT_CALLBACK, s, l, a, h, 0, 0, fn, NULL }
/* Options whose argument is one of a few words ("auto|off|require"): the
 * shells complete them (tests/cli/test_completion.sh passes each to the
 * parser, so the list cannot name a word it refuses). */
#define GF_OPT_STRING_CHOICE(s, l, a, type, field, v, h) \
	{ GF_OPT_STRING, s, l, a, h, 0, offsetof(type, field), NULL, v }
#define GF_OPT_CALLBACK_CHOICE(s, l, a, fn, v, h) \
	{ GF_OPT_CALLBACK, s, l, a, h, 0, 0, fn, v }
/* Values that are not fixed words: GPUs of the machine (or of --root's
 * recording), one or a comma-separated list. */
#define GF_VALUES_GPU	"<gpu>"
#define GF_VALUES_GPUS	"<gpus>"
#define GF_OPT_HIDDEN_CALLBACK(l, a, fn) \
	{ GF_OPT_CALLBACK, 0, l, a, NULL, GF_OPT_HIDDEN, 0, fn, NULL }
/* A common option; h overrides its help for this command (NULL: as is). */
#define GF_OPT_COMMON(l, h) { GF_OPT_COMMON, 0, l, NULL, h, 0, 0, NULL, NULL }
#define GF_OPT_END() { GF_OPT_END, 0, NULL, NULL, NULL, 0, 0, NULL, NULL }

/* The groups of common options, in the order help lists them. */
#define GF_OPTS_MODEL \
	GF_OPT_COMMON("root", NULL), GF_OPT_COMMON("nvml", NULL), GF_OPT_COMMON("pci-locality", NULL)
#define GF_OPTS_OUTPUT \
	GF_OPT_COMMON("json", NULL), GF_OPT_COMMON("output", NULL), GF_OPT_COMMON("color", NULL), \
	GF_OPT_COMMON("quiet", NULL)
#define GF_OPTS_STANDARD GF_OPT_COMMON("help", NULL), GF_OPT_COMMON("version", NULL)
/* The output of the commands that change the machine (tune, revert): a list
 * of changes, no colour, --quiet keeps what was left undone. */
#define GF_OPTS_CHANGE_OUTPUT \
	GF_OPT_COMMON("output", NULL), \
	GF_OPT_COMMON("color", "accepted, as by every command; this output has\nno colour"), \
	GF_OPT_COMMON("quiet", "print only what was left undone or failed, and\nthe summary, not each change")

enum { GF_NEXIT = 5 };

/* A command (or a subcommand: "bench io"), described once. */
struct gf_cmd {
	const char *name;		/* "topo", "bench io" */
	const char *args;		/* after the name in the usage line: "[OPTIONS] DIR" */
	const char *summary;		/* one line: 'gpufeed --help', the man page's NAME */
	const char *description;	/* paragraphs; a blank line between; "  " lines kept as is */
	const struct gf_opt *opts;	/* NULL for a command that only dispatches */
	/* exits[code]: NULL when the command never returns it, else when it
	 * does ("" = the common meaning says it all). */
	const char *exits[GF_NEXIT];
	const char *footer;		/* last paragraph of --help and SEE ALSO of the man page */
	int (*run)(int argc, char **argv);
	const struct gf_cmd *const *subs;	/* NULL-terminated subcommands ("bench": io) */
	/* GF_OPT_FORWARD options: 0 to go on, else the exit code. */
	int (*set)(struct gf_cli *cli, void *ctx, const char *name, const char *arg);
};

/* Every command, NULL-terminated (main.c). */
extern const struct gf_cmd *const gf_commands[];
extern const struct gf_cmd gf_cmd_check_def, gf_cmd_topo_def, gf_cmd_report_def, gf_cmd_record_def, gf_cmd_bench_def,
	gf_cmd_tune_def, gf_cmd_revert_def;
extern const struct gf_cmd gf_cmd_run_def;
extern const struct gf_cmd gf_cmd_verify_def;
extern const struct gf_cmd gf_cmd_diagnose_def;
extern const struct gf_cmd gf_cmd_plan_def;
extern const struct gf_cmd gf_cmd_config_def, gf_cmd_config_kubelet_def, gf_cmd_config_slurm_def,
	gf_cmd_config_nccl_topo_def, gf_cmd_config_labels_def;
extern const struct gf_cmd gf_cmd_launch_def;
extern const struct gf_cmd gf_cmd_pack_def, gf_cmd_inspect_def;
extern const struct gf_cmd gf_cmd_nccl_def, gf_cmd_nccl_log_def, gf_cmd_nccl_check_def;
extern const struct gf_cmd gf_cmd_exporter_def;
extern const struct gf_cmd gf_cmd_watch_def;
extern const struct gf_cmd gf_cmd_completion_def;

/* The common options (opt_common.c) and the meaning of each exit code. */
const struct gf_opt *gf_opt_common(const char *long_name);
extern const char *const gf_exit_meaning[GF_NEXIT];

/* The entry as parsed and documented: a COMMON one resolved, its help
 * overridden where the command gave one. */
struct gf_opt gf_opt_resolve(const struct gf_opt *o);

/* Parses argv with the command's table; BOOL/STRING/CALLBACK targets are
 * in ctx (or cli with GF_OPT_IN_CLI).  Returns -1 when the command should
 * go on (optind at the first operand), else the exit code to return. */
int gf_opt_parse(struct gf_cli *cli, const struct gf_cmd *cmd, int argc, char **argv, void *ctx);

/* --help text; the man page in roff (man 7 man). */
void gf_cmd_print_help(const struct gf_cmd *cmd, FILE *f);
void gf_cmd_print_man(const struct gf_cmd *cmd, FILE *f);
/* The top level: 'gpufeed --help' and gpufeed.1. */
void gf_print_main_help(FILE *f);
void gf_print_main_man(FILE *f);
/* The long names of the documented options, one a line (the doc-vs-help test). */
void gf_cmd_print_option_names(const struct gf_cmd *cmd, FILE *f);
/* The per-command exit code table of docs/exit-codes.md, in Markdown. */
void gf_print_exit_table(FILE *f);

#endif
