/* gpufeed record DIR: make a recording that every command replays. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int refuse_pci_locality(struct gf_cli *cli, void *ctx, const char *arg)
{
	(void)ctx;
	(void)arg;
	return gf_cli_usage(cli, "--pci-locality does not apply: a recording keeps the machine as it is");
}

static int opt_format(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct gf_record_options *ro = ctx;

	if (!strcmp(arg, "dir"))
		ro->format = GF_RECORD_DIR;
	else if (!strcmp(arg, "tar.gz"))
		ro->format = GF_RECORD_TAR_GZ;
	else
		return gf_cli_usage(cli, "--format: '%s' is not dir or tar.gz", arg);
	return 0;
}

static const struct gf_opt record_opts[] = {
	GF_OPT_BOOL(0, "force", struct gf_record_options, force,
		    "replace the recording already in DIR (never a directory\n"
		    "that is not a recording)"),
	GF_OPT_CALLBACK_CHOICE(0, "format", "FMT", opt_format, "dir|tar.gz",
			"dir or tar.gz (default: tar.gz when the name ends\n"
			"in .tar.gz or .tgz, else dir)"),
	GF_OPT_BOOL(0, "redact", struct gf_record_options, redact,
		    "replace the host name, MAC addresses, serial numbers,\n"
		    "UUIDs and GUIDs by pseudonyms of the same shape (one per\n"
		    "value) everywhere in the recording, to send it out"),
	GF_OPT_COMMON("root", "re-record from a recording (directory or .tar.gz)\n"
		      "instead of this machine"),
	GF_OPT_COMMON("nvml", NULL),
	GF_OPT_HIDDEN_CALLBACK("pci-locality", "SPEC", refuse_pci_locality),
	GF_OPT_COMMON("json", "print a JSON summary of what was recorded"),
	GF_OPT_COMMON("output", NULL),
	GF_OPT_COMMON("color", "accepted for uniformity; record prints no colour"),
	GF_OPT_COMMON("quiet", "no summary, no input warnings"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_record_def = {
	.name = "record",
	.args = "[OPTIONS] DIR|FILE.tar.gz",
	.summary = "record this machine into a directory that --root replays",
	.description =
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
		"A recording also holds what hwloc reads: lstopo -i DIR opens it.\n"
		"A recording may hold host names, kernel command line and IRQ counters:\n"
		"look before you share it; --redact replaces the identities in it.\n",
	.opts = record_opts,
	.exits = { "", NULL, "", "DIR holds a recording and no --force was given, DIR is not a\n"
		   "recording, or the recording was stopped by a signal",
		   "--nvml=require without NVML or a recording without nvml.json" },
	.footer = "Layout: docs/recordings.md.\n",
	.run = gf_cmd_record,
};

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

int gf_cmd_record(int argc, char **argv)
{
	struct gf_record_options ro = GF_RECORD_OPTS_INIT;
	struct gf_record_stats st;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "record");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_record_def, argc, argv, &ro)) >= 0 ||
	    (ret = gf_cli_one_operand(&cli, argc, argv, "DIR", NULL)) >= 0)
		return ret;
	ro.machine = &cli.topo;
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
