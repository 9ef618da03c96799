/* gpufeed report: the one screen a person reads first. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* How many --bench documents one page takes. */
#define REPORT_MAX_BENCH 64

struct report_args {
	bool strict;
	const char *html;		/* --html FILE */
	const char *bench[REPORT_MAX_BENCH];
	int nbench;
};

/* --html FILE writes FILE as -o FILE does (atomically, never over what is
 * not a regular file); "-" is standard output. */
static int opt_html(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct report_args *a = ctx;

	if (a->html)
		return gf_cli_usage(cli, "--html given twice");
	if (strcmp(arg, "-")) {
		if (cli->output)
			return gf_cli_usage(cli, "-o %s and --html %s name two outputs: give one", cli->output, arg);
		cli->output = arg;
		cli->output_opt = "--html";
	}
	a->html = arg;
	return 0;
}

static int opt_bench(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct report_args *a = ctx;

	if (a->nbench == REPORT_MAX_BENCH)
		return gf_cli_usage(cli, "more than %d --bench documents", REPORT_MAX_BENCH);
	if (!*arg)
		return gf_cli_usage(cli, "--bench: the file name is empty");
	a->bench[a->nbench++] = arg;
	return 0;
}

static const struct gf_opt report_opts[] = {
	GF_OPT_CALLBACK(0, "html", "FILE", opt_html,
			"the report as one self-contained HTML page to FILE\n"
			"('-': standard output): summary, the picture of the\n"
			"machine, matrix, paths, findings, the audit with a\n"
			"filter (docs/picture.md)"),
	GF_OPT_CALLBACK(0, "bench", "FILE", opt_bench,
			"with --html: a 'gpufeed bench ... --json' output whose\n"
			"figures the page shows as bars beside their limits\n"
			"(repeat for more files)"),
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
	.exits = { "", "with --strict, when the report lists a warning or an error", "",
		   "--bench FILE that cannot be read or is not a bench command's --json output",
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
	/* -o after --html FILE replaced FILE: two outputs named. */
	if (a.html && strcmp(a.html, "-") && cli.output != a.html)
		return gf_cli_usage(&cli, "-o %s and --html %s name two outputs: give one", cli.output, a.html);
	if (a.html && cli.json)
		return gf_cli_usage(&cli, "--html writes the page and --json the document: give one");
	if (a.nbench && !a.html)
		return gf_cli_usage(&cli, "--bench goes with --html (the page shows the figures)");
	if ((ret = gf_cli_discover(&cli, &t)))
		return ret;
	au = run_audit(&cli, t);
	if (a.html)
		ret = gf_report_write_html(t, au, a.bench, a.nbench, stdout);
	else if (cli.json)
		ret = gf_report_write_json_with_audit(t, au, stdout);
	else
		ret = gf_report_print_with_audit(t, au, stdout, cli.color ? GF_PRINT_COLOR : 0);
	gf_audit_free(au);
	return gf_cli_model_done(&cli, t, ret, a.strict);
}
