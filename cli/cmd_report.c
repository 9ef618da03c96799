/* gpufeed report: the one screen a person reads first. */
#include <errno.h>
#include <stdio.h>

#include "cli.h"

struct report_args {
	bool strict;
};

static const struct gf_opt report_opts[] = {
	GF_OPT_BOOL(0, "strict", struct report_args, strict,
		    "exit 1 when findings of severity warning or error\n"
		    "are made"),
	GF_OPTS_MODEL,
	GF_OPTS_OUTPUT,
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_report_def = {
	.name = "report",
	.args = "[OPTIONS]",
	.summary = "the one screen to read first: summary, matrix, paths, findings",
	.description =
		"The main job: a summary of this machine (or of a recording), the link\n"
		"matrix, the paths that feed each GPU with their bottleneck, and the\n"
		"findings of the model (a GPU whose NUMA node is unknown, a link\n"
		"running below its width or generation, a NIC faster than the PCIe behind\n"
		"it, inactive NVLinks), and a summary of the host audit ('gpufeed check',\n"
		"profile training): its counts and the worst results.\n",
	.opts = report_opts,
	.exits = { "", "with --strict, when the report lists a warning or an error", "", "",
		   "--nvml=require without NVML or DIR/nvml.json" },
	.footer = "JSON schema: docs/json-report.md (\"schema\": \"" GF_REPORT_SCHEMA "\").\n",
	.run = gf_cmd_report,
};

/* The host audit on the same model; a failure costs the report its audit
 * summary (said on stderr), not the report. */
static struct gf_audit *run_audit(const struct gf_cli *cli, const struct gf_topo *t)
{
	struct gf_audit_options o = GF_AUDIT_OPTS_INIT;
	struct gf_audit *au = NULL;

	o.machine = &cli->topo;
	o.model = t;
	if (gf_audit_run(&o, &au))
		fprintf(stderr, "gpufeed report: the host audit did not run: %s\n", gf_last_error());
	return au;
}

int gf_cmd_report(int argc, char **argv)
{
	struct gf_topo *t = NULL;
	struct gf_audit *au;
	struct gf_cli cli;
	struct report_args a = { 0 };
	int ret;

	gf_cli_init(&cli, "report");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_report_def, argc, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	if ((ret = gf_cli_discover(&cli, &t)))
		return ret;
	au = run_audit(&cli, t);
	ret = cli.json ? gf_report_write_json_with_audit(t, au, stdout)
		       : gf_report_print_with_audit(t, au, stdout, cli.color ? GF_PRINT_COLOR : 0);
	gf_audit_free(au);
	return gf_cli_model_done(&cli, t, ret, a.strict);
}
