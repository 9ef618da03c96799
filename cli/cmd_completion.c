/* gpufeed completion: the bash or zsh completion script, and the GPUs the
 * scripts complete (--gpus), cheap enough to run at each TAB. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "completion.h"

struct completion_args {
	bool gpus;
};

static const struct gf_opt completion_opts[] = {
	GF_OPT_BOOL(0, "gpus", struct completion_args, gpus,
		    "list the GPUs the scripts complete instead: index,\n"
		    "UUID and name, tab-separated, one GPU a line"),
	GF_OPTS_MODEL,
	GF_OPT_COMMON("quiet", NULL),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_completion_def = {
	.name = "completion",
	.args = "[OPTIONS] bash|zsh",
	.summary = "print the shell completion script for bash or zsh",
	.description =
		"Prints the completion script for bash or zsh, written from the command\n"
		"tables: the commands and subcommands, every option, the words an option\n"
		"takes, files where a file is asked, help topics, and GPUs (index or UUID)\n"
		"of this machine, or of the recording --root names on the command line,\n"
		"read at completion time by 'gpufeed completion --gpus'.  'make install'\n"
		"installs both; to try one in the current shell:\n"
		"\n"
		"  source <(gpufeed completion bash)\n",
	.opts = completion_opts,
	.exits = { "", NULL, "", "--gpus: the recording --root names missing or unreadable",
		   "--gpus --nvml=require: no NVML" },
	.footer = "Installed: $(PREFIX)/share/bash-completion/completions/gpufeed and\n"
		  "$(PREFIX)/share/zsh/site-functions/_gpufeed.\n",
	.run = gf_cmd_completion,
};

static int list_gpus(struct gf_cli *cli)
{
	struct gf_topo *t;
	int ret;

	cli->quiet = true;	/* at a TAB, warnings would land in the prompt */
	if ((ret = gf_cli_discover(cli, &t)))
		return ret;
	for (int i = 0; i < t->ngpus; i++)
		printf("%d\t%s\t%s\n", t->gpus[i].index, t->gpus[i].uuid, t->gpus[i].name);
	return gf_cli_model_done(cli, t, 0, false);
}

int gf_cmd_completion(int argc, char **argv)
{
	struct completion_args a = { 0 };
	const char *shell;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "completion");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_completion_def, argc, argv, &a)) >= 0)
		return ret;
	if (a.gpus)
		return (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0 ? ret : list_gpus(&cli);
	if ((ret = gf_cli_one_operand(&cli, argc, argv, "shell (bash or zsh)", &shell)) >= 0)
		return ret;
	if (!strcmp(shell, "bash"))
		gf_completion_bash(stdout);
	else if (!strcmp(shell, "zsh"))
		gf_completion_zsh(stdout);
	else
		return gf_cli_usage(&cli, "no completion for '%s': bash or zsh", shell);
	return GF_EXIT_OK;
}
