/* gpufeed record DIR: make a recording that every command replays. */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static const char help[] =
	"Usage: gpufeed record [OPTIONS] DIR\n"
	"\n"
	"Copies every file the model and the host audit read from /sys, /proc\n"
	"(and a few /etc files) into DIR, keeping sysfs symlinks, and writes the\n"
	"NVML facts (topology and the state an audit needs: persistence, ECC,\n"
	"remapped rows, clock-event reasons, power limits, MIG, fabric state,\n"
	"driver and CUDA versions) to DIR/nvml.json.  Any command then reads the\n"
	"same machine with --root DIR.  DIR is written as DIR.tmp-XXXXXX and\n"
	"renamed at the end: an interrupted or failed recording leaves nothing.\n"
	"A recording may hold host names, kernel command line and IRQ counters:\n"
	"look before you share it.\n"
	"\n"
	"Options:\n"
	"      --force           replace DIR when it exists and is not empty\n"
	"  -r, --root SRC        re-record from a recording instead of this machine\n"
	"  -j, --json            print a JSON summary of what was recorded\n"
	"      --nvml=MODE       auto (default), off, or require (exit 4 without NVML)\n"
	"  -q, --quiet           no summary, no input warnings\n"
	"  -h, --help            this help\n"
	"  -V, --version         print the version\n"
	"\n"
	GF_EXIT_CODES_HELP
	"\n"
	"Layout: docs/recordings.md.\n";

/* A JSON string: the directory name is the user's and may hold anything. */
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static int record_opt(struct gf_cli *cli, int opt, void *ctx)
{
	if (opt == OPT_FORCE) {
		((struct gf_record_options *)ctx)->force = true;
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
		{ NULL, 0, NULL, 0 },
	};
	struct gf_record_options ro = { 0 };
	struct gf_record_stats st;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "record");
	if ((ret = gf_cli_parse(&cli, argc, argv, longopts, help, record_opt, &ro)) >= 0)
		return ret;
	if (optind != argc - 1)
		return gf_cli_usage(&cli, optind >= argc ? "missing DIR" : "expected one DIR, got more");
	ro.root = cli.topo.root;
	ro.nvml = cli.topo.nvml;
	ret = gf_record(argv[optind], &ro, &st);
	if (ret)
		return gf_cli_fail(&cli, ret);
	if (cli.json) {
		printf("{\n  \"dir\": ");
		json_string(stdout, argv[optind]);
		printf(",\n  \"files\": %u,\n  \"links\": %u,\n  \"bytes\": %llu,\n"
		       "  \"nvml\": %s,\n  \"gpus\": %d,\n  \"nics\": %d,\n  \"block_devices\": %d\n}\n",
		       st.files, st.links, st.bytes, st.nvml ? "true" : "false", st.ngpus, st.nnics, st.nblocks);
	} else if (!cli.quiet) {
		printf("Recorded %s: %u files, %u links, %llu bytes; %d GPU%s, %d NIC%s, %d block device%s; %s\n",
		       argv[optind], st.files, st.links, st.bytes, st.ngpus, st.ngpus == 1 ? "" : "s", st.nnics,
		       st.nnics == 1 ? "" : "s", st.nblocks, st.nblocks == 1 ? "" : "s",
		       st.nvml ? "NVML facts in nvml.json" : st.nvml_note);
	}
	return GF_EXIT_OK;
}
