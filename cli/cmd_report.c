/* gpufeed report: the one screen a person reads first. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static const char help[] =
	"Usage: gpufeed report [OPTIONS]\n"
	"\n"
	"The main job: a summary of this machine (or of a recording), the link\n"
	"matrix, the paths that feed each GPU with their bottleneck, and the\n"
	"findings of the model (a GPU whose NUMA node is unknown, a link\n"
	"running below its width or generation, a NIC faster than the PCIe behind\n"
	"it, inactive NVLinks).\n"
	"\n"
	"Options:\n"
	"      --strict          exit 1 when findings of severity warning or error are made\n"
	GF_COMMON_OPTIONS_HELP
	"\n"
	GF_EXIT_CODES_HELP
	"\n"
	"JSON schema: docs/json-report.md (\"schema\": \"" GF_REPORT_SCHEMA "\").\n";

static int report_opt(struct gf_cli *cli, int opt, void *ctx)
{
	(void)cli;
	if (opt != OPT_STRICT)
		return -1;
	*(bool *)ctx = true;
	return 0;
}

int gf_cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		GF_COMMON_LONGOPTS,
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ NULL, 0, NULL, 0 },
	};
	struct gf_topo *t = NULL;
	struct gf_cli cli;
	bool strict = false;
	int ret, serious;

	gf_cli_init(&cli, "report");
	if ((ret = gf_cli_parse(&cli, argc, argv, longopts, help, report_opt, &strict)) >= 0)
		return ret;
	if (optind < argc)
		return gf_cli_usage(&cli, "unexpected argument '%s'", argv[optind]);
	if ((ret = gf_cli_discover(&cli, &t)))
		return ret;
	ret = cli.json ? gf_report_write_json(t, stdout) : gf_report_print(t, stdout, cli.color ? GF_PRINT_COLOR : 0);
	serious = gf_topo_finding_count(t, GF_SEV_WARN);
	gf_topo_free(t);
	if (ret || fflush(stdout))
		return gf_cli_fail(&cli, ret ? ret : -EIO);
	return strict && serious ? GF_EXIT_FINDINGS : GF_EXIT_OK;
}
