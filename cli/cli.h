/* What every subcommand shares: exit codes, common options, messages.
 * The CLI uses the public API only (include/gpufeed). */
#ifndef GF_CLI_H
#define GF_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <gpufeed/gpufeed.h>

#include "opt.h"
#include "output.h"

/* docs/exit-codes.md; keep the two in step. */
enum gf_exit {
	GF_EXIT_OK = 0,			/* success */
	GF_EXIT_FINDINGS = 1,		/* ran fine and found problems (where asked) */
	GF_EXIT_USAGE = 2,		/* bad command line */
	GF_EXIT_INPUT = 3,		/* input or tool error: bad file, I/O error */
	GF_EXIT_UNAVAILABLE = 4,	/* not available here: no GPU, no NVML */
};

/* What each code means (gf_exit_meaning) and which command returns which
 * (struct gf_cmd's exits) are in the command tables: opt.h. */

struct gf_cli {
	const char *cmd;		/* "topo" */
	const struct gf_cmd *def;	/* its table (set by gf_cli_parse) */
	bool json;
	bool quiet;
	bool color;
	bool color_asked;		/* --color given: -o FILE keeps it */
	const char *output;		/* -o FILE, NULL: standard output */
	const char *output_opt;		/* the option that named it: "--svg"; NULL: -o */
	struct gf_topo_options topo;
};

void gf_cli_init(struct gf_cli *cli, const char *cmd);
/* Parses argv with the command's table (opt.h) and opens -o FILE.  Returns
 * -1 when the command should go on (its operands from optind on), else the
 * exit code to return (0 after --help or --version). */
int gf_cli_parse(struct gf_cli *cli, const struct gf_cmd *cmd, int argc, char **argv, void *ctx);
/* The operands after the options: none, or exactly one non-empty NAME
 * ("DIR", "PATH"), left at argv[optind] (and in *val unless val is NULL).
 * -1 when they are right, else the usage exit code. */
int gf_cli_no_operands(struct gf_cli *cli, int argc, char **argv);
int gf_cli_one_operand(struct gf_cli *cli, int argc, char **argv, const char *name, const char **val);
/* A command that only dispatches ("bench"): its options, then the
 * subcommand named by the first operand runs with the rest. */
int gf_cli_dispatch(const struct gf_cmd *cmd, int argc, char **argv);
/* The command named by words ("bench", "io"): *used words name it; NULL
 * when the first names none or the second no subcommand of it. */
const struct gf_cmd *gf_cli_find(const char *const *words, int nwords, int *used);
/* "gpufeed topo: <msg>" on stderr and the exit code for err (-errno).  When
 * writing the output failed, the message says so with the write's errno
 * (not a stale gf_last_error()). */
int gf_cli_fail(const struct gf_cli *cli, int err);
/* The width text output fits (GF_PRINT_WIDTH flags): the terminal's
 * ($COLUMNS, else TIOCGWINSZ) when standard output is one, else 100. */
unsigned gf_cli_text_width(const struct gf_cli *cli);
int gf_cli_usage(const struct gf_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gf_cli_print_warnings(const struct gf_cli *cli, const struct gf_topo *t);
/* Discovery with the CLI's options and error reporting. */
int gf_cli_discover(const struct gf_cli *cli, struct gf_topo **t);
int gf_cli_model_done(const struct gf_cli *cli, struct gf_topo *t, int ret, bool strict);

int gf_cmd_topo(int argc, char **argv);
int gf_cmd_report(int argc, char **argv);
int gf_cmd_check(int argc, char **argv);
int gf_cmd_record(int argc, char **argv);
int gf_cmd_bench(int argc, char **argv);
/* Builds a `bench` subcommand for each target the library describes
 * (gpufeed/bench.h): main() calls it before any command is looked up. */
void gf_cli_bench_register(void);
int gf_cmd_tune(int argc, char **argv);
int gf_cmd_revert(int argc, char **argv);
int gf_cmd_run(int argc, char **argv);
int gf_cmd_diagnose(int argc, char **argv);
int gf_cmd_verify(int argc, char **argv);
int gf_cmd_plan(int argc, char **argv);
int gf_cmd_config(int argc, char **argv);
int gf_cmd_launch(int argc, char **argv);
int gf_cmd_pack(int argc, char **argv);
int gf_cmd_inspect(int argc, char **argv);
int gf_cmd_nccl(int argc, char **argv);
int gf_cmd_exporter(int argc, char **argv);
int gf_cmd_watch(int argc, char **argv);
int gf_cmd_completion(int argc, char **argv);
/* gpufeed nccl fr / nccl ras (cmd_nccl_hang.c): subcommands of 'gpufeed nccl'. */
extern const struct gf_cmd gf_cmd_nccl_fr_def, gf_cmd_nccl_ras_def;
/* nccl log's analysis, output and exit code, also nccl check's (cmd_nccl.c). */
int gf_cli_nccl_report(struct gf_cli *cli, struct gf_nccl_log *l, struct gf_topo *t);
/* Prints a tune or revert report and gives the exit code (cmd_tune.c). */
int gf_cli_tune_finish(struct gf_cli *cli, struct gf_tune_report *rep, int ret);

#endif
