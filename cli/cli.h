/* What every subcommand shares: exit codes, common options, messages.
 * The CLI uses the public API only (include/gpufeed). */
#ifndef GF_CLI_H
#define GF_CLI_H

#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <gpufeed/gpufeed.h>

/* docs/exit-codes.md; keep the two in step. */
enum gf_exit {
	GF_EXIT_OK = 0,			/* success */
	GF_EXIT_FINDINGS = 1,		/* ran fine and found problems (where asked) */
	GF_EXIT_USAGE = 2,		/* bad command line */
	GF_EXIT_INPUT = 3,		/* input or tool error: bad file, I/O error */
	GF_EXIT_UNAVAILABLE = 4,	/* not available here: no GPU, no NVML */
};

#define GF_EXIT_CODES_HELP \
	"Exit codes:\n" \
	"  0  success\n" \
	"  1  findings: the command ran and found problems (--strict)\n" \
	"  2  usage error\n" \
	"  3  input or tool error (a malformed or unreadable file, I/O error)\n" \
	"  4  not available here (no GPU, NVML required but absent)\n"

struct gf_cli {
	const char *cmd;		/* "topo" */
	bool json;
	bool quiet;
	bool color;
	struct gf_topo_options topo;
};

/* Options every machine-reading command takes (getopt_long ids >= 1000). */
enum {
	OPT_NVML = 1000,
	OPT_PCI_LOCALITY,
	OPT_COLOR,
	OPT_FORCE,
	OPT_STRICT,
};

#define GF_COMMON_LONGOPTS \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, 'V' }, \
	{ "json", no_argument, NULL, 'j' }, \
	{ "root", required_argument, NULL, 'r' }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "nvml", required_argument, NULL, OPT_NVML }, \
	{ "pci-locality", required_argument, NULL, OPT_PCI_LOCALITY }, \
	{ "color", required_argument, NULL, OPT_COLOR }
#define GF_COMMON_SHORTOPTS ":hVjr:q"

#define GF_COMMON_OPTIONS_HELP \
	"  -r, --root DIR        read a recording made by 'gpufeed record' instead of this machine\n" \
	"  -j, --json            machine-readable output (schema in docs/)\n" \
	"      --nvml=MODE       auto (default): use NVML when present; off: sysfs only;\n" \
	"                        require: exit 4 when NVML (or DIR/nvml.json) is absent\n" \
	"      --pci-locality S  NUMA node of devices a VM hides, e.g. '0000:00:06.0=1;0000:80-ff=1'\n" \
	"                        (default: $GPUFEED_PCI_LOCALITY)\n" \
	"      --color=WHEN      auto (default, only on a terminal), always, never\n" \
	"  -q, --quiet           do not print input warnings on stderr\n" \
	"  -h, --help            this help\n" \
	"  -V, --version         print the version\n"

void gf_cli_init(struct gf_cli *cli, const char *cmd);
/* Handles a common option (and getopt's '?' and ':'); returns -1 if `opt`
 * is not common, else 0 or an exit code >0 for the caller to return.  After
 * --help/--version *done is set and the caller exits 0. */
int gf_cli_common_opt(struct gf_cli *cli, int opt, char **argv, const char *help, bool *done);
/* getopt_long over the common options plus the command's own (in longopts).
 * `own` (may be NULL) sees every option first and returns -1 when it is not
 * its own, 0 when handled, or an exit code.  Returns -1 when the command
 * should go on, else the exit code to return (0 after --help or --version). */
int gf_cli_parse(struct gf_cli *cli, int argc, char **argv, const struct option *longopts,
		 const char *help, int (*own)(struct gf_cli *cli, int opt, void *ctx), void *ctx);
/* "gpufeed topo: <msg>" on stderr and the exit code for err (-errno). */
int gf_cli_fail(const struct gf_cli *cli, int err);
int gf_cli_usage(const struct gf_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gf_cli_print_warnings(const struct gf_cli *cli, const struct gf_topo *t);
/* Discovery with the CLI's options and error reporting. */
int gf_cli_discover(const struct gf_cli *cli, struct gf_topo **t);

int gf_cmd_topo(int argc, char **argv);
int gf_cmd_report(int argc, char **argv);
int gf_cmd_record(int argc, char **argv);
int gf_cmd_bench(int argc, char **argv);

#endif
