/* gpufeed revert: undo what gpufeed tune did, from its journal. */
#include <stdio.h>

#include "cli.h"

struct revert_args {
	struct gf_tune_options o;
};

static const struct gf_opt revert_opts[] = {
	GF_OPT_BOOL(0, "force", struct revert_args, o.force,
		    "also restore values someone else changed since\n"
		    "tune (for a file: remove only tune's lines)"),
	GF_OPT_STRING(0, "state-dir", "DIR", struct revert_args, o.state_dir,
		      "the journal's directory, as given to tune"),
	GF_OPT_COMMON("root", NULL),
	GF_OPTS_CHANGE_OUTPUT,
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_revert_def = {
	.name = "revert",
	.args = "[OPTIONS]",
	.summary = "undo 'gpufeed tune': restore every value and file it changed",
	.description =
		"Restores, newest first, every value 'gpufeed tune' changed to the value it\n"
		"had before the first tune, removes the lines tune --persist added (a file\n"
		"tune created is removed, one it extended gets its previous bytes back), and\n"
		"removes the journal once everything is restored.  A value someone else\n"
		"changed since tune is reported and left alone (the journal is kept) unless\n"
		"--force.  After a reboot the runtime values are already back to what the\n"
		"machine boots with: revert then says so and removes the persistent files.\n"
		"Without a journal there is nothing to do (exit 0).  The journal names the\n"
		"root tune ran on (this machine or the recording): revert refuses it on any\n"
		"other, and refuses a journal naming a path tune never writes.\n",
	.opts = revert_opts,
	.exits = { "", "a value changed by someone else since tune (--force) or not restored", "",
		   "the journal not read or removed, of another root, or naming a path\n"
		   "tune does not write; another tune or revert holds the lock", NULL },
	.footer = "The journal and what revert does after a reboot: docs/tune.md.\n",
	.run = gf_cmd_revert,
};

int gf_cmd_revert(int argc, char **argv)
{
	struct revert_args a = { .o = GF_TUNE_OPTS_INIT };
	struct gf_tune_report *rep = NULL;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "revert");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_revert_def, argc, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	a.o.machine = &cli.topo;
	ret = gf_tune_revert(&a.o, &rep);
	return gf_cli_tune_finish(&cli, rep, ret);
}
