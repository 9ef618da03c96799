/* gpufeed: find what starves GPUs, fix what can be fixed, move the data. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const struct gf_cmd *const gf_commands[] = {
	&gf_cmd_report_def, &gf_cmd_topo_def, &gf_cmd_check_def, &gf_cmd_tune_def, &gf_cmd_revert_def, &gf_cmd_record_def, &gf_cmd_bench_def,
	&gf_cmd_run_def,
	&gf_cmd_launch_def,
	&gf_cmd_verify_def,
	&gf_cmd_diagnose_def,
	&gf_cmd_plan_def,
	&gf_cmd_config_def,
	&gf_cmd_pack_def,
	&gf_cmd_inspect_def,
	&gf_cmd_nccl_def,
	NULL,
};

/* gpufeed help [COMMAND [SUB]], and the hidden forms the build and the
 * doc-vs-help test use: --man [COMMAND [SUB]] (roff, 'make man'),
 * --options COMMAND [SUB] (the documented long options), --exit-table
 * (docs/exit-codes.md's per-command table). */
static int help(int argc, char **argv)
{
	const char *form = argc > 1 && !strncmp(argv[1], "--", 2) ? argv[1] : NULL;
	const char *const *words = (const char *const *)argv + 1 + (form ? 1 : 0);
	int nwords = argc - 1 - (form ? 1 : 0), used;
	const struct gf_cmd *cmd;

	if (form && strcmp(form, "--man") && strcmp(form, "--options") && strcmp(form, "--exit-table")) {
		fprintf(stderr, "gpufeed help: unknown option '%s'\n", form);
		return GF_EXIT_USAGE;
	}
	if (form && !strcmp(form, "--exit-table") && !nwords) {
		gf_print_exit_table(stdout);
		return GF_EXIT_OK;
	}
	if (!nwords && (!form || !strcmp(form, "--man"))) {
		if (form)
			gf_print_main_man(stdout);
		else
			gf_print_main_help(stdout);
		return GF_EXIT_OK;
	}
	if (!nwords) {
		fprintf(stderr, "gpufeed help: %s needs a COMMAND\n", form);
		return GF_EXIT_USAGE;
	}
	cmd = gf_cli_find(words, nwords, &used);
	if (!cmd || used != nwords) {
		fprintf(stderr, "gpufeed: unknown command '%s%s%s'\nTry 'gpufeed --help'.\n", words[0],
			nwords > 1 ? " " : "", nwords > 1 ? words[1] : "");
		return GF_EXIT_USAGE;
	}
	if (!form)
		gf_cmd_print_help(cmd, stdout);
	else if (!strcmp(form, "--man"))
		gf_cmd_print_man(cmd, stdout);
	else
		gf_cmd_print_option_names(cmd, stdout);
	return GF_EXIT_OK;
}

static int run(int argc, char **argv)
{
	const char *cmd;
	int used;

	if (argc < 2) {
		gf_print_main_help(stderr);
		return GF_EXIT_USAGE;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		gf_print_main_help(stdout);
		return GF_EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("gpufeed %s\n", gf_version());
		return GF_EXIT_OK;
	}
	if (!strcmp(cmd, "help"))
		return help(argc - 1, argv + 1);
	const struct gf_cmd *c = gf_cli_find((const char *const *)argv + 1, 1, &used);
	if (c)
		return c->run(argc - 1, argv + 1);
	fprintf(stderr, "gpufeed: unknown command '%s'\nTry 'gpufeed --help'.\n", cmd);
	return GF_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	gf_cli_bench_register();
	gf_out_init();
	/* Exit 3 when the output could not be written (a full disk, a closed
	 * pipe): scripts trust exit codes.  -o FILE is renamed into place here. */
	return gf_out_finish(run(argc, argv));
}
