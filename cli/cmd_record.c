/* gpufeed record DIR: make a recording that every command replays. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

enum { OPT_RECORD_FORMAT = 1100 };

static const char help[] =
	"Usage: gpufeed record [OPTIONS] DIR\n"
	"       gpufeed record [OPTIONS] FILE.tar.gz\n"
	"\n"
	"Copies every file the model and the host audit read from /sys, /proc\n"
	"(and a few /etc files) into DIR, keeping sysfs symlinks, and writes the\n"
	"NVML facts (topology and the state an audit needs: persistence, ECC,\n"
	"remapped rows, clock-event reasons, power limits, MIG, fabric state,\n"
	"driver and CUDA versions) to DIR/nvml.json.  Any command then reads the\n"
	"same machine with --root DIR.  DIR is written as DIR.tmp-XXXXXX and\n"
	"renamed at the end: a failed recording, or one stopped with Ctrl-C or\n"
	"SIGTERM, leaves nothing.\n"
	"Given a name ending in .tar.gz (or .tgz), or --format tar.gz, the\n"
	"recording is one gzip'd tar file instead, written atomically; --root\n"
	"FILE.tar.gz reads it as it reads the directory.\n"
	"A recording may hold host names, kernel command line and IRQ counters:\n"
	"look before you share it.\n"
	"\n"
	"Options:\n"
	"      --force           replace the recording already in DIR (never a directory\n"
	"                        that is not a recording)\n"
	"      --format=FMT      dir or tar.gz (default: tar.gz when the name ends in\n"
	"                        .tar.gz or .tgz, else dir)\n"
	"  -r, --root SRC        re-record from a recording (directory or .tar.gz)\n"
	"                        instead of this machine\n"
	"  -j, --json            print a JSON summary of what was recorded\n"
	"      --nvml=MODE       auto (default), off, or require (exit 4 without NVML)\n"
	"  -q, --quiet           no summary, no input warnings\n"
	"      --color=WHEN      accepted for uniformity; record prints no colour\n"
	"  -h, --help            this help\n"
	"  -V, --version         print the version\n"
	"\n"
	GF_EXIT_CODES_HELP
	"\n"
	"Layout: docs/recordings.md.\n";

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;	/* gf_record stops and removes its temp dir */
}

static void print_warning(const char *msg, void *arg)
{
	const struct gf_cli *cli = arg;

	if (!cli->quiet)
		fprintf(stderr, "gpufeed record: warning: %s\n", msg);
}

static int record_opt(struct gf_cli *cli, int opt, void *ctx)
{
	if (opt == OPT_FORCE) {
		((struct gf_record_options *)ctx)->force = true;
		return 0;
	}
	if (opt == OPT_RECORD_FORMAT) {
		struct gf_record_options *ro = ctx;

		if (!strcmp(optarg, "dir"))
			ro->format = GF_RECORD_DIR;
		else if (!strcmp(optarg, "tar.gz"))
			ro->format = GF_RECORD_TAR_GZ;
		else
			return gf_cli_usage(cli, "--format: '%s' is not dir or tar.gz", optarg);
		return 0;
	}
	if (opt == OPT_PCI_LOCALITY)
		return gf_cli_usage(cli, "--pci-locality does not apply: a recording keeps the machine as it is");
	return -1;
}

int gf_cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		GF_COMMON_LONGOPTS,
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "format", required_argument, NULL, OPT_RECORD_FORMAT },
		{ NULL, 0, NULL, 0 },
	};
	struct gf_record_options ro = GF_RECORD_OPTS_INIT;
	struct gf_record_stats st;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "record");
	if ((ret = gf_cli_parse(&cli, argc, argv, longopts, help, record_opt, &ro)) >= 0)
		return ret;
	if (optind != argc - 1)
		return gf_cli_usage(&cli, optind >= argc ? "missing DIR" : "expected one DIR, got more");
	if (!*argv[optind])	/* "record $UNSET" */
		return gf_cli_usage(&cli, "DIR is empty: give the directory to write");
	ro.root = cli.topo.root;
	ro.nvml = cli.topo.nvml;
	ro.warn = print_warning;
	ro.warn_arg = &cli;
	ro.cancel = &interrupted;
	{
		struct sigaction sa = { .sa_handler = on_signal };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
	ret = gf_record(argv[optind], &ro, &st);
	if (ret)
		return gf_cli_fail(&cli, ret);
	if (cli.json) {
		if (gf_record_write_json(stdout, argv[optind], &st))
			return gf_cli_fail(&cli, -EIO);
	} else if (!cli.quiet) {
		printf("Recorded %s: %u files, %u links, %llu bytes; %d GPU%s, %d NIC%s, %d block device%s; %s\n",
		       argv[optind], st.files, st.links, st.bytes, st.ngpus, st.ngpus == 1 ? "" : "s", st.nnics,
		       st.nnics == 1 ? "" : "s", st.nblocks, st.nblocks == 1 ? "" : "s",
		       st.nvml ? "NVML facts in nvml.json" : st.nvml_note);
	}
	if (fflush(stdout) || ferror(stdout))
		return gf_cli_fail(&cli, -EIO);
	return GF_EXIT_OK;
}
