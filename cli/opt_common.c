/* The options every command shares and the meaning of each exit code:
 * written once here, listed by name in each command's table. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* docs/exit-codes.md says the same (tests/cli/test_help.sh checks its
 * per-command table against 'gpufeed help --exit-table'). */
const char *const gf_exit_meaning[GF_NEXIT] = {
	[GF_EXIT_OK] = "success",
	[GF_EXIT_FINDINGS] = "findings: the command ran and found problems",
	[GF_EXIT_USAGE] = "usage error",
	[GF_EXIT_INPUT] = "input or tool error (a malformed or unreadable file, an I/O error)",
	[GF_EXIT_UNAVAILABLE] = "not available here",
};

static int opt_help(struct gf_cli *cli, void *ctx, const char *arg)
{
	(void)ctx;
	(void)arg;
	gf_cmd_print_help(cli->def, stdout);
	return GF_OPT_DONE;
}

static int opt_version(struct gf_cli *cli, void *ctx, const char *arg)
{
	(void)cli;
	(void)ctx;
	(void)arg;
	printf("gpufeed %s\n", gf_version());
	return GF_OPT_DONE;
}

static int opt_nvml(struct gf_cli *cli, void *ctx, const char *arg)
{
	(void)ctx;
	if (!strcmp(arg, "auto"))
		cli->topo.nvml = GF_NVML_AUTO;
	else if (!strcmp(arg, "off"))
		cli->topo.nvml = GF_NVML_OFF;
	else if (!strcmp(arg, "require"))
		cli->topo.nvml = GF_NVML_REQUIRE;
	else
		return gf_cli_usage(cli, "--nvml: '%s' is not auto, off or require", arg);
	return 0;
}

static int opt_pci_locality(struct gf_cli *cli, void *ctx, const char *arg)
{
	(void)ctx;
	if (gf_pci_locality_check(arg))
		return gf_cli_usage(cli, "%s", gf_last_error());
	cli->topo.pci_locality = arg;
	return 0;
}

static int opt_color(struct gf_cli *cli, void *ctx, const char *arg)
{
	(void)ctx;
	if (!strcmp(arg, "always"))
		cli->color = true;
	else if (!strcmp(arg, "never"))
		cli->color = false;
	else if (strcmp(arg, "auto"))
		return gf_cli_usage(cli, "--color: '%s' is not auto, always or never", arg);
	cli->color_asked = strcmp(arg, "auto") != 0;
	return 0;
}

#define IN_CLI(type, s, l, a, field, h) { type, s, l, a, h, GF_OPT_IN_CLI, offsetof(struct gf_cli, field), NULL, NULL }

static const struct gf_opt common[] = {
	IN_CLI(GF_OPT_STRING, 'r', "root", "DIR", topo.root,
	       "read a recording made by 'gpufeed record' instead\n"
	       "of this machine"),
	GF_OPT_CALLBACK_CHOICE(0, "nvml", "MODE", opt_nvml, "auto|off|require",
			"auto (default): use NVML when present; off: sysfs\n"
			"only; require: exit 4 when NVML (or DIR/nvml.json)\n"
			"is absent"),
	GF_OPT_CALLBACK(0, "pci-locality", "SPEC", opt_pci_locality,
			"NUMA node of devices a VM hides, e.g.\n"
			"'0000:00:06.0=1;0000:80-ff=1' (default:\n"
			"$GPUFEED_PCI_LOCALITY)"),
	IN_CLI(GF_OPT_BOOL, 'j', "json", NULL, json, "machine-readable output (schema in docs/)"),
	IN_CLI(GF_OPT_STRING, 'o', "output", "FILE", output,
	       "write to FILE instead of standard output: to a\n"
	       "temporary file beside it, renamed to FILE when the\n"
	       "command succeeds; FILE is left as it was when it fails.\n"
	       "A character device or FIFO is written in place, a\n"
	       "symlink followed; nothing else is ever replaced"),
	GF_OPT_CALLBACK_CHOICE(0, "color", "WHEN", opt_color, "auto|always|never", "auto (default: only on a terminal), always, never"),
	IN_CLI(GF_OPT_BOOL, 'q', "quiet", NULL, quiet, "do not print input warnings on stderr"),
	GF_OPT_CALLBACK('h', "help", NULL, opt_help, "this help"),
	GF_OPT_CALLBACK('V', "version", NULL, opt_version, "print the version"),
};

const struct gf_opt *gf_opt_common(const char *long_name)
{
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		if (!strcmp(common[i].long_name, long_name))
			return &common[i];
	return NULL;
}
