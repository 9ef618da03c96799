/* gpufeed tune: apply the audit's safe fixes, journalled for revert. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct tune_args {
	struct gf_tune_options o;
};

static int opt_profile(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct tune_args *a = ctx;

	if (gf_profile_parse(arg, &a->o.profile))
		return gf_cli_usage(cli, "--profile: '%s' is not training or inference", arg);
	return 0;
}

static const struct gf_opt tune_opts[] = {
	GF_OPT_CALLBACK_CHOICE(0, "profile", "NAME", opt_profile, "training|inference",
			"training (default) or inference: the values to set\n"
			"where the two differ (docs/checks.md)"),
	GF_OPT_STRING(0, "only", "LIST", struct tune_args, o.only,
		      "only these checks or categories, comma-separated;\n"
		      "one without a safe fix is reported, not applied"),
	GF_OPT_STRING(0, "except", "LIST", struct tune_args, o.except,
		      "all but these checks or categories"),
	GF_OPT_BOOL('n', "dry-run", struct tune_args, o.dry_run,
		    "print what would change (old value, new value,\n"
		    "file) and write nothing"),
	GF_OPT_BOOL(0, "persist", struct tune_args, o.persist,
		    "also add each fix to gpufeed's file under /etc\n"
		    "(sysctl.d, udev rules, tmpfiles.d, modprobe.d)"),
	GF_OPT_STRING(0, "state-dir", "DIR", struct tune_args, o.state_dir,
		      "keep the journal in DIR (default /var/lib/gpufeed,\n"
		      "under --root DIR with a recording)"),
	GF_OPTS_MODEL,
	GF_OPTS_CHANGE_OUTPUT,
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_tune_def = {
	.name = "tune",
	.args = "[OPTIONS]",
	.summary = "apply the safe fixes 'gpufeed check' finds, journalled so 'gpufeed revert' undoes them",
	.description =
		"Runs the audit ('gpufeed check') and applies its safe fixes: runtime writes\n"
		"of one sysfs or procfs value that are reversible, need no reboot, touch no\n"
		"GPU state and restart no service (vm.swappiness, ...).  Every other finding\n"
		"is printed as advice.  Before each write the value it replaces is appended\n"
		"to a journal on disk and synced, so 'gpufeed revert' restores the machine\n"
		"exactly, even after a kill -9 half-way or a reboot.  A second tune keeps\n"
		"the first original values.  One tune or revert runs at a time (a lock on\n"
		"the journal's directory).  With --root DIR every read and write stays\n"
		"inside the recording DIR.\n",
	.opts = tune_opts,
	.exits = { "", "a fix not applied: refused, or --only named one without a safe fix", "",
		   "the journal not written or read; another tune or revert holds the lock",
		   "--nvml=require without NVML or DIR/nvml.json" },
	.footer = "Safety classes, the journal and --persist: docs/tune.md.  Undo: gpufeed revert.\n",
	.run = gf_cmd_tune,
};

/* The exit code of a report: 0, or 1 when something was left undone. */
int gf_cli_tune_finish(struct gf_cli *cli, struct gf_tune_report *rep, int ret)
{
	int code = GF_EXIT_OK;

	if (rep && gf_tune_print_width(rep, stdout, cli->quiet, GF_PRINT_WIDTH_OF(gf_cli_text_width(cli))) && !ret)
		ret = -EIO;
	if (fflush(stdout) && !ret)
		ret = -EIO;
	if (ret == -EINVAL)
		code = gf_cli_usage(cli, "%s", gf_last_error());
	else if (ret)
		code = gf_cli_fail(cli, ret);
	else if (gf_tune_undone(rep))
		code = GF_EXIT_FINDINGS;
	gf_tune_report_free(rep);
	return code;
}

int gf_cmd_tune(int argc, char **argv)
{
	struct tune_args a = { .o = GF_TUNE_OPTS_INIT };
	struct gf_tune_report *rep = NULL;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "tune");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_tune_def, argc, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	a.o.machine = &cli.topo;
	ret = gf_tune_run(&a.o, &rep);
	return gf_cli_tune_finish(&cli, rep, ret);
}
