/* gpufeed nccl fr DUMP... and gpufeed nccl ras [FILE|-]: which rank did
 * not enter a collective, from PyTorch's Flight Recorder dumps and from
 * NCCL's RAS output (include/gpufeed/nccl_hang.h).  The two are
 * subcommands of 'gpufeed nccl' (cmd_nccl.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gpufeed/nccl_hang.h>
#include "cli.h"

#define HANG_EXITS(findings, input) { "", findings, "", input, NULL }

#define HANG_OUTPUT_OPTS                                                                         \
	GF_OPT_COMMON("json", "print the verdict as JSON: findings (kind, ranks,\n"                \
		      "message) and verdict (agree, missing_ranks)"),                          \
	GF_OPT_COMMON("output", NULL),                                                         \
	GF_OPT_COMMON("color", "accepted for uniformity; this output has no colour"),          \
	GF_OPT_COMMON("quiet", "print nothing; the exit code says whether the ranks\nagree"), \
	GF_OPTS_STANDARD, GF_OPT_END()

static const struct gf_opt fr_opts[] = { HANG_OUTPUT_OPTS };

/* fr ------------------------------------------------------------------------ */

static int cmd_fr(int argc, char **argv);

const struct gf_cmd gf_cmd_nccl_fr_def = {
	.name = "nccl fr",
	.args = "[OPTIONS] DUMP...",
	.summary = "which rank hangs, from PyTorch's Flight Recorder dumps",
	.description =
		"Reads the Flight Recorder dumps of a PyTorch job, one per rank (each DUMP a\n"
		"file, a directory of them, or the TORCH_FR_DUMP_TEMP_FILE prefix the ranks\n"
		"appended their rank to), matches the collectives of each process group by\n"
		"sequence number and names the rank that did not enter a collective the\n"
		"others entered: the straggler, or the rank that hung or died before it.  It\n"
		"also reports each rank's last enqueued, started and completed collective,\n"
		"different collectives, sizes or dtypes at one sequence number, different\n"
		"NCCL versions and members of a group that wrote no dump.  Dumps are read as\n"
		"data: a pickle that would run code is refused.\n",
	.opts = fr_opts,
	.exits = HANG_EXITS("a rank did not enter a collective the others entered, or the\n"
			    "ranks disagree (collective, size, dtype, NCCL version; a member\n"
			    "without a dump)",
			    "a DUMP that is missing or is not a Flight Recorder dump (the file\n"
			    "and the byte offset or key named); a name without its rank"),
	.footer = "Turning the Flight Recorder on: docs/nccl-hangs.md.\nSee also gpufeed-nccl-ras(1).\n",
	.run = cmd_fr,
};

static int cmd_fr(int argc, char **argv)
{
	struct gf_nccl_fr *fr;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, gf_cmd_nccl_fr_def.name);
	if ((ret = gf_cli_parse(&cli, &gf_cmd_nccl_fr_def, argc, argv, NULL)) >= 0)
		return ret;
	if (optind >= argc)
		return gf_cli_usage(&cli, "no DUMP: name the dumps, their directory or their prefix");
	for (int i = optind; i < argc; i++)
		if (!*argv[i])
			return gf_cli_usage(&cli, "an empty DUMP");
	if ((ret = gf_nccl_fr_load((const char *const *)argv + optind, argc - optind, &fr)))
		return gf_cli_fail(&cli, ret);
	ret = cli.json ? gf_nccl_fr_write_json(fr, stdout) : cli.quiet ? 0 : gf_nccl_fr_print(fr, stdout);
	int findings = gf_nccl_fr_finding_count(fr);
	gf_nccl_fr_free(fr);
	if (ret || fflush(stdout))
		return gf_cli_fail(&cli, ret ? ret : -EIO);
	return findings ? GF_EXIT_FINDINGS : GF_EXIT_OK;
}

/* ras ----------------------------------------------------------------------- */

static int cmd_ras(int argc, char **argv);

struct ras_args {
	const char *query;		/* --query ADDR */
};

static const struct gf_opt ras_opts[] = {
	GF_OPT_STRING(0, "query", "ADDR", struct ras_args, query,
		      "ask the RAS service of the running job at ADDR\n"
		      "(HOST:PORT; NCCL's default is localhost:28028) as\n"
		      "'ncclras -v' does, instead of reading FILE"),
	HANG_OUTPUT_OPTS,
};

const struct gf_cmd gf_cmd_nccl_ras_def = {
	.name = "nccl ras",
	.args = "[OPTIONS] [FILE|-] | --query ADDR",
	.summary = "which rank hangs, from NCCL RAS (ncclras) output",
	.description =
		"Reads what NCCL's RAS client printed (ncclras, ncclras -v, or the JSON of\n"
		"ncclras -f json where the NCCL has it) from FILE or standard input and says\n"
		"which rank launched fewer operations of a communicator than the others\n"
		"(MISMATCH: it did not enter the next one), which ranks did not answer\n"
		"(INCOMPLETE), which processes RAS considers dead and which ranks report\n"
		"errors.  RAS numbers ranks within each communicator.  RAS needs NCCL 2.24\n"
		"or later; 'ncclras -v' lists the ranks of a large communicator.  With\n"
		"--query it asks the job itself over RAS's client protocol.\n",
	.opts = ras_opts,
	.exits = HANG_EXITS("a rank launched fewer operations than the others; ranks that did\n"
			    "not answer, dead processes, ranks with errors",
			    "FILE missing, or not ncclras output (the line or offset named);\n"
			    "--query: no RAS service at ADDR, or no answer in time"),
	.footer = "RAS and ncclras: docs/nccl-hangs.md.  See also gpufeed-nccl-fr(1).\n",
	.run = cmd_ras,
};

static int cmd_ras(int argc, char **argv)
{
	struct ras_args a = { 0 };
	struct gf_nccl_ras *r;
	struct gf_cli cli;
	const char *path = "-";
	int ret;

	gf_cli_init(&cli, gf_cmd_nccl_ras_def.name);
	if ((ret = gf_cli_parse(&cli, &gf_cmd_nccl_ras_def, argc, argv, &a)) >= 0)
		return ret;
	if (a.query && optind < argc)
		return gf_cli_usage(&cli, "--query and FILE: one or the other");
	if (optind < argc && (ret = gf_cli_one_operand(&cli, argc, argv, "FILE", &path)) >= 0)
		return ret;
	/* 5 s: what ncclras gives NCCL's processes by default */
	if ((ret = a.query ? gf_nccl_ras_query(a.query, 5, &r) : gf_nccl_ras_read(path, &r)))
		return gf_cli_fail(&cli, ret);
	ret = cli.json ? gf_nccl_ras_write_json(r, stdout) : cli.quiet ? 0 : gf_nccl_ras_print(r, stdout);
	int findings = gf_nccl_ras_finding_count(r);
	gf_nccl_ras_free(r);
	if (ret || fflush(stdout))
		return gf_cli_fail(&cli, ret ? ret : -EIO);
	return findings ? GF_EXIT_FINDINGS : GF_EXIT_OK;
}
