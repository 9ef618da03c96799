/* gpufeed check: audit this machine (or a recording) against the practices
 * that keep GPUs fed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct check_args {
	struct gf_audit_options o;
	enum gf_check_status fail_on;
	const char *prom;
	const char *only;
	bool all, list, markdown;
};

static int opt_profile(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct check_args *a = ctx;

	if (gf_profile_parse(arg, &a->o.profile))
		return gf_cli_usage(cli, "--profile: '%s' is not training or inference", arg);
	return 0;
}

static int opt_fail_on(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct check_args *a = ctx;

	if (!strcmp(arg, "warn"))
		a->fail_on = GF_CHECK_WARN;
	else if (!strcmp(arg, "fail"))
		a->fail_on = GF_CHECK_FAIL;
	else if (!strcmp(arg, "never"))
		a->fail_on = GF_CHECK_NSTATUS;
	else
		return gf_cli_usage(cli, "--fail-on: '%s' is not warn, fail or never", arg);
	return 0;
}

/* Every name in --only is a check id or a category: else a usage error. */
static int check_only(struct gf_cli *cli, const char *only)
{
	const char *p = only;

	while (*p) {
		size_t n = strcspn(p, ",");
		bool found = false;

		for (int i = 0; i < gf_check_count() && !found && n; i++) {
			const struct gf_check_info *c = gf_check_info_at(i);

			found = (strlen(c->id) == n && !strncmp(c->id, p, n)) ||
				(strlen(c->category) == n && !strncmp(c->category, p, n));
		}
		if (!found)
			return gf_cli_usage(cli, "--only: '%.*s' is no check id or category (gpufeed check --list)",
					    (int)n, p);
		p += n + (p[n] == ',');
	}
	return -1;
}

static const struct gf_opt check_opts[] = {
	GF_OPT_CALLBACK_CHOICE(0, "profile", "NAME", opt_profile, "training|inference",
			"training (default) or inference: the values\n"
			"expected where the two differ (docs/checks.md)"),
	GF_OPT_CALLBACK_CHOICE(0, "fail-on", "LEVEL", opt_fail_on, "warn|fail|never",
			"exit 1 when a result is at LEVEL or worse: warn\n"
			"(warn, error, fail), fail (default) or never"),
	GF_OPT_STRING(0, "only", "LIST", struct check_args, only,
		      "run only these checks or categories, comma-\n"
		      "separated (ids and categories: --list)"),
	GF_OPT_STRING(0, "prom", "FILE", struct check_args, prom,
		      "also write the results to FILE in the Prometheus\n"
		      "textfile format (node_exporter), atomically (a\n"
		      "device or FIFO in place, as -o)"),
	GF_OPT_BOOL(0, "all", struct check_args, all, "list passes and na too, not only problems"),
	GF_OPT_BOOL(0, "list", struct check_args, list,
		    "list the checks (id, category, title) instead of\n"
		    "running them; with --json as JSON"),
	GF_OPT_BOOL(0, "markdown", struct check_args, markdown,
		    "with --list: the catalogue as docs/checks.md"),
	GF_OPTS_MODEL,
	GF_OPTS_OUTPUT,
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_check_def = {
	.name = "check",
	.args = "[OPTIONS]",
	.summary = "audit the host: OS, CPU, IRQs, storage, network, PCIe, GPUs, containers, NCCL",
	.description =
		"Audits this machine (or a recording, --root) against the practices that keep\n"
		"GPUs fed: swap, THP, NUMA balancing, the CPU governor, IRQ placement, disk\n"
		"schedulers, socket buffers, PCIe links and ACS, persistence, ECC, row remaps,\n"
		"Fabric Manager, /dev/shm, memlock, cgroups, NCCL variables, and checks across\n"
		"layers from the topology model (IRQs on their device's node, a job cpuset\n"
		"away from its GPUs).  Each result has a status (pass, na, needs-root, warn,\n"
		"error, fail), what was observed and expected, where it was read, why it\n"
		"matters, and the fix with what makes it persist.  Inside a container,\n"
		"checks of the host's configuration are na; without root, what cannot be\n"
		"read is needs-root, never a pass.  'gpufeed tune' applies the safe fixes.\n",
	.opts = check_opts,
	.exits = { "", "a result at the --fail-on level or worse (default: fail)", "",
		   "a recording that is not one, a malformed nvml.json, --prom FILE not written",
		   "--nvml=require without NVML or DIR/nvml.json" },
	.footer = "Checks: docs/checks.md (gpufeed check --list).  JSON schema:\n"
		  "docs/json-check.md (\"schema\": \"" GF_CHECK_SCHEMA "\").\n",
	.run = gf_cmd_check,
};

int gf_cmd_check(int argc, char **argv)
{
	struct check_args a = { .o = GF_AUDIT_OPTS_INIT, .fail_on = GF_CHECK_FAIL };
	struct gf_audit *au = NULL;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "check");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_check_def, argc, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	if (a.markdown && !a.list)
		return gf_cli_usage(&cli, "--markdown goes with --list");
	if (a.list) {
		if (a.prom || a.only)
			return gf_cli_usage(&cli, "--list runs no check: --prom and --only do not apply");
		ret = a.markdown ? gf_checks_write_markdown(stdout) : cli.json ? gf_checks_write_json(stdout) : 0;
		for (int i = 0; !a.markdown && !cli.json && i < gf_check_count(); i++) {
			const struct gf_check_info *c = gf_check_info_at(i);

			printf("%-28s %-10s %s\n", c->id, c->category, c->title);
		}
		return ret || fflush(stdout) ? gf_cli_fail(&cli, ret ? ret : -EIO) : GF_EXIT_OK;
	}
	if (a.only && (ret = check_only(&cli, a.only)) >= 0)
		return ret;
	a.o.machine = &cli.topo;
	a.o.only = a.only;
	if ((ret = gf_audit_run(&a.o, &au)))
		return gf_cli_fail(&cli, ret);
	if (a.prom && (ret = gf_audit_save_prom(au, a.prom))) {
		gf_audit_free(au);
		return gf_cli_fail(&cli, ret);
	}
	ret = cli.json ? gf_audit_write_json(au, stdout)
		       : gf_audit_print(au, stdout, (cli.color ? GF_AUDIT_PRINT_COLOR : 0) |
							    (a.all ? GF_AUDIT_PRINT_ALL : 0) | gf_cli_text_width(&cli));
	ret = ret ? ret : fflush(stdout) ? -EIO : 0;
	if (ret) {
		gf_audit_free(au);
		return gf_cli_fail(&cli, ret);
	}
	ret = a.fail_on < GF_CHECK_NSTATUS && gf_audit_count_at_least(au, a.fail_on) ? GF_EXIT_FINDINGS : GF_EXIT_OK;
	gf_audit_free(au);
	return ret;
}
