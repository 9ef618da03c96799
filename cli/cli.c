#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

void gf_cli_init(struct gf_cli *cli, const char *cmd)
{
	const char *nc = getenv("NO_COLOR");

	memset(cli, 0, sizeof(*cli));
	cli->topo = (struct gf_topo_options)GF_TOPO_OPTS_INIT;
	cli->cmd = cmd;
	cli->color = isatty(STDOUT_FILENO) && !(nc && *nc);
	optind = 1;
	opterr = 0;
}

int gf_cli_usage(const struct gf_cli *cli, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpufeed %s: ", cli->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'gpufeed %s --help'.\n", cli->cmd);
	return GF_EXIT_USAGE;
}

int gf_cli_common_opt(struct gf_cli *cli, int opt, char **argv, const char *help, bool *done)
{
	const char *arg = optarg;

	switch (opt) {
	case 'h':
		fputs(help, stdout);
		*done = true;
		return 0;
	case 'V':
		printf("gpufeed %s\n", gf_version());
		*done = true;
		return 0;
	case 'j':
		cli->json = true;
		return 0;
	case 'r':
		if (!*arg)	/* "--root $UNSET" must not read this machine */
			return gf_cli_usage(cli, "--root needs a directory (an empty one was given)");
		cli->topo.root = arg;
		return 0;
	case 'q':
		cli->quiet = true;
		return 0;
	case OPT_NVML:
		if (!strcmp(arg, "auto"))
			cli->topo.nvml = GF_NVML_AUTO;
		else if (!strcmp(arg, "off"))
			cli->topo.nvml = GF_NVML_OFF;
		else if (!strcmp(arg, "require"))
			cli->topo.nvml = GF_NVML_REQUIRE;
		else
			return gf_cli_usage(cli, "--nvml: '%s' is not auto, off or require", arg);
		return 0;
	case OPT_PCI_LOCALITY:
		if (gf_pci_locality_check(arg))
			return gf_cli_usage(cli, "%s", gf_last_error());
		cli->topo.pci_locality = arg;
		return 0;
	case OPT_COLOR:
		if (!strcmp(arg, "always"))
			cli->color = true;
		else if (!strcmp(arg, "never"))
			cli->color = false;
		else if (strcmp(arg, "auto"))
			return gf_cli_usage(cli, "--color: '%s' is not auto, always or never", arg);
		return 0;
	case '?':
		if (!strncmp(argv[optind - 1], "--", 2)) {
			if (strchr(argv[optind - 1], '='))
				return gf_cli_usage(cli, "unknown option or unexpected value '%s'", argv[optind - 1]);
			return gf_cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
		return gf_cli_usage(cli, "unknown option '-%c'", optopt);
	case ':':
		return gf_cli_usage(cli, "option '%s' needs a value", argv[optind - 1]);
	default:
		return -1;
	}
}

int gf_cli_fail(const struct gf_cli *cli, int err)
{
	const char *msg = gf_last_error();

	fprintf(stderr, "gpufeed %s: %s\n", cli->cmd, *msg ? msg : strerror(-err));
	if (err == -ENOSYS || err == -ENODEV)
		return GF_EXIT_UNAVAILABLE;
	return GF_EXIT_INPUT;
}

void gf_cli_print_warnings(const struct gf_cli *cli, const struct gf_topo *t)
{
	if (cli->quiet)
		return;
	for (int i = 0; i < t->nwarnings; i++)
		fprintf(stderr, "gpufeed %s: warning: %s\n", cli->cmd, t->warnings[i]);
}

int gf_cli_discover(const struct gf_cli *cli, struct gf_topo **t)
{
	int ret = gf_topo_discover(&cli->topo, t);

	if (ret)
		return gf_cli_fail(cli, ret);
	gf_cli_print_warnings(cli, *t);
	return 0;
}

int gf_cli_parse(struct gf_cli *cli, int argc, char **argv, const struct option *longopts,
		 const char *help, int (*own)(struct gf_cli *cli, int opt, void *ctx), void *ctx)
{
	bool done = false;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, GF_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		ret = own ? own(cli, opt, ctx) : -1;
		if (ret < 0)
			ret = gf_cli_common_opt(cli, opt, argv, help, &done);
		if (ret > 0)
			return ret;
		if (done)	/* --help, --version: say so if stdout failed */
			return fflush(stdout) || ferror(stdout) ? GF_EXIT_INPUT : GF_EXIT_OK;
	}
	return -1;
}
