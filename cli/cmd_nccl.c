/* gpufeed nccl: what NCCL says about a run, held against the machine model
 * (docs/nccl.md). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* log ---------------------------------------------------------------------- */

static int cmd_nccl_log(int argc, char **argv);

static const struct gf_opt nccl_log_opts[] = {
	GF_OPTS_MODEL,
	GF_OPTS_OUTPUT,
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_nccl_log_def = {
	.name = "nccl log",
	.args = "[OPTIONS] FILE...|-",
	.summary = "read NCCL_DEBUG=INFO output and say what it finds",
	.description =
		"Reads NCCL_DEBUG=INFO output of one or many ranks (one FILE per rank or all in\n"
		"one; '-' reads standard input), behind the rank prefixes of torchrun\n"
		"('[rank0]:', '[default0]:') and gpufeed launch ('[0] '), and says what it\n"
		"finds: the NCCL version of each rank (a mismatch names both), the transport of\n"
		"each GPU pair (P2P, SHM, NET/IB, NET/Socket) against the link the machine model\n"
		"has between the two GPUs, GPUDirect RDMA, NVLS, rings and trees, algorithms\n"
		"and protocols, NCCL_* overrides and which of them cost bandwidth, NCCL\n"
		"warnings and PyTorch's NCCL errors and timeouts (the straggler rank),\n"
		"communicators created, and the CPU affinity NCCL took.  The model is this\n"
		"machine's, or the recording given with --root (the machine the log came\n"
		"from); without GPUs in it, transports are reported but not compared.\n",
	.opts = nccl_log_opts,
	.exits = { "every GPU pair on the best transport the machine allows, no override that\n"
		   "costs bandwidth, no version mismatch, warning or error",
		   "findings of severity warning or error: a slower transport than the\n"
		   "machine allows, an override that costs bandwidth, mixed versions, NCCL\n"
		   "warnings, errors or timeouts",
		   "", "a FILE that cannot be read", "" },
	.footer = "JSON schema: docs/nccl.md (\"schema\": \"" GF_NCCL_LOG_SCHEMA "\").\n",
	.run = cmd_nccl_log,
};

static int feed(struct gf_cli *cli, struct gf_nccl_log *l, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int ret;

	if (!f) {
		fprintf(stderr, "gpufeed %s: %s: %s\n", cli->cmd, path, strerror(errno));
		return GF_EXIT_INPUT;
	}
	ret = gf_nccl_log_feed_file(l, strcmp(path, "-") ? path : "stdin", f);
	if (f != stdin)
		fclose(f);
	return ret ? gf_cli_fail(cli, ret) : -1;
}

/* The analysis against the model, written, and its exit code: 1 when it is
 * not clean.  Takes t (freed by the model's bookkeeping); for log and
 * check. */
int gf_cli_nccl_report(struct gf_cli *cli, struct gf_nccl_log *l, struct gf_topo *t)
{
	int ret;

	if ((ret = gf_nccl_log_analyse(l, t))) {
		gf_topo_free(t);
		return gf_cli_fail(cli, ret);
	}
	ret = cli->json ? gf_nccl_log_write_json(l, stdout) : gf_nccl_log_write_text(l, stdout);
	ret = gf_cli_model_done(cli, t, ret, false);
	if (ret == GF_EXIT_OK && !gf_nccl_log_clean(l))
		ret = GF_EXIT_FINDINGS;
	return ret;
}

static int cmd_nccl_log(int argc, char **argv)
{
	struct gf_nccl_log *l = NULL;
	struct gf_topo *t = NULL;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "nccl log");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_nccl_log_def, argc, argv, NULL)) >= 0)
		return ret;
	if (optind >= argc)
		return gf_cli_usage(&cli, "name the log: FILE... or - for standard input");
	for (int i = optind; i < argc; i++)
		if (!argv[i][0])
			return gf_cli_usage(&cli, "an empty FILE name");
	if ((ret = gf_nccl_log_new(NULL, &l)))
		return gf_cli_fail(&cli, ret);
	for (int i = optind; i < argc; i++)
		if ((ret = feed(&cli, l, argv[i])) >= 0)
			goto out;
	if ((ret = gf_cli_discover(&cli, &t)))
		goto out;
	ret = gf_cli_nccl_report(&cli, l, t);
	t = NULL;
out:
	gf_topo_free(t);
	gf_nccl_log_free(l);
	return ret;
}

/* nccl --------------------------------------------------------------------- */

/* log reads NCCL's own output, check makes some (cmd_nccl_check.c); fr and ras (cmd_nccl_hang.c) name the rank
 * that did not enter a collective. */
static const struct gf_cmd *const nccl_subs[] = {
	&gf_cmd_nccl_log_def,
	&gf_cmd_nccl_check_def,
	&gf_cmd_nccl_fr_def,
	&gf_cmd_nccl_ras_def,
	NULL,
};

static const struct gf_opt nccl_opts[] = {
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_nccl_def = {
	.name = "nccl",
	.args = "WHAT [OPTIONS]",
	.summary = "NCCL diagnosis: its log held against the machine model, which rank hangs",
	.description = "What NCCL says about a run, held against the machine model; 'gpufeed nccl WHAT\n"
		       "--help' for each of: log, check, fr (Flight Recorder dumps), ras (NCCL RAS status).\n",
	.opts = nccl_opts,
	.exits = { "", NULL, "", "", "" },
	.run = gf_cmd_nccl,
	.subs = nccl_subs,
};

int gf_cmd_nccl(int argc, char **argv)
{
	return gf_cli_dispatch(&gf_cmd_nccl_def, argc, argv);
}
