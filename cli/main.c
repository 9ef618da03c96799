/* gpufeed: find what starves GPUs, fix what can be fixed, move the data. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "help_topic.h"
#include "suggest.h"

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
	&gf_cmd_exporter_def,
	&gf_cmd_watch_def,
	&gf_cmd_completion_def,
	NULL,
};

/* "gpufeed tpo": the command it looks like, when one does. */
static int unknown_command(const char *word)
{
	const char *near = gf_suggest_command(word);

	fprintf(stderr, "gpufeed: unknown command '%s'\n", word);
	if (near)
		fprintf(stderr, "Did you mean 'gpufeed %s'?\n", near);
	fprintf(stderr, "Try 'gpufeed --help'.\n");
	return GF_EXIT_USAGE;
}

/* "gpufeed help loadr": neither a command nor a page of the docs. */
static int unknown_topic(const char *word)
{
	const char *cmd = gf_suggest_command(word), *topic = gf_doc_suggest(word);

	fprintf(stderr, "gpufeed help: no command or topic '%s'\n", word);
	if (cmd)
		fprintf(stderr, "Did you mean 'gpufeed %s'?\n", cmd);
	else if (topic)
		fprintf(stderr, "Did you mean 'gpufeed help %s'?\n", topic);
	fprintf(stderr, "Try 'gpufeed help' for the commands and topics.\n");
	return GF_EXIT_USAGE;
}

/* gpufeed help [COMMAND [SUB] | TOPIC], and the hidden forms the build and the
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
		if (form) {
			gf_print_main_man(stdout);
		} else {
			gf_print_main_help(stdout);
			fputc('\n', stdout);
			gf_doc_list_topics(stdout, 78);
		}
		return GF_EXIT_OK;
	}
	if (!nwords) {
		fprintf(stderr, "gpufeed help: %s needs a COMMAND\n", form);
		return GF_EXIT_USAGE;
	}
	cmd = gf_cli_find(words, nwords, &used);
	/* A command first ("help plan": plan's options); a page of the docs
	 * otherwise, or by its file's name ("help docs/plan.md", as the
	 * --help footers cite it). */
	if (!cmd && !form && nwords == 1 && gf_doc_find(words[0])) {
		fputs(gf_doc_find(words[0])->text, stdout);
		return GF_EXIT_OK;
	}
	if (!cmd && !(cmd = gf_cli_find(words, 1, &used)))
		return form ? unknown_command(words[0]) : unknown_topic(words[0]);
	if (used != nwords) {
		const char *near = cmd->subs && nwords == 2 ? gf_suggest_sub(cmd, words[1]) : NULL;

		fprintf(stderr, "gpufeed: unknown command '%s %s'\n", words[0], words[1]);
		if (near)
			fprintf(stderr, "Did you mean 'gpufeed %s %s'?\n", cmd->name, near);
		fprintf(stderr, "Try 'gpufeed --help'.\n");
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
	return unknown_command(cmd);
}

int main(int argc, char **argv)
{
	gf_cli_bench_register();
	gf_out_init();
	/* Exit 3 when the output could not be written (a full disk, a closed
	 * pipe): scripts trust exit codes.  -o FILE is renamed into place here. */
	return gf_out_finish(run(argc, argv));
}
