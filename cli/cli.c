#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <gpufeed/env.h>
#include "cli.h"
#include "suggest.h"

void gf_cli_init(struct gf_cli *cli, const char *cmd)
{
	memset(cli, 0, sizeof(*cli));
	cli->topo = (struct gf_topo_options)GF_TOPO_OPTS_INIT;
	cli->cmd = cmd;
	gf_out_set_command(cmd);
	cli->color = isatty(STDOUT_FILENO) && !gf_env_flag(GF_ENV_NO_COLOR);
	optind = 1;
	opterr = 0;
}

unsigned gf_cli_text_width(const struct gf_cli *cli)
{
	struct winsize ws;
	long long cols;

	/* -o FILE, a pipe: a fixed width, so the output is the same everywhere */
	if (cli->output || !isatty(STDOUT_FILENO))
		return GF_PRINT_WIDTH(GF_PRINT_WIDTH_DEFAULT);
	if (gf_env_int(GF_ENV_COLUMNS, &cols) == 1)
		return GF_PRINT_WIDTH(cols);
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return GF_PRINT_WIDTH(ws.ws_col);
	return GF_PRINT_WIDTH(GF_PRINT_WIDTH_DEFAULT);
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

int gf_cli_fail(const struct gf_cli *cli, int err)
{
	const char *msg = gf_last_error(), *what;
	int werr;

	if (gf_out_failed(&werr, &what)) {
		fprintf(stderr, "gpufeed %s: writing %s: %s\n", cli->cmd, what, strerror(werr));
		return GF_EXIT_INPUT;
	}
	fprintf(stderr, "gpufeed %s: %s\n", cli->cmd, *msg ? msg : strerror(-err));
	/* Not here: no such library, device or node, not enough memory for
	 * what was asked (bench mem --size). */
	if (err == -ENOSYS || err == -ENODEV || err == -ENOMEM)
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

/* The end of topo and report, after printing t (ret: how that went):
 * frees t; the exit code, 1 under --strict (strict) when findings of
 * severity warning or error were made. */
int gf_cli_model_done(const struct gf_cli *cli, struct gf_topo *t, int ret, bool strict)
{
	int serious = gf_topo_finding_count(t, GF_SEV_WARN);

	gf_topo_free(t);
	if (ret || fflush(stdout))
		return gf_cli_fail(cli, ret ? ret : -EIO);
	return strict && serious ? GF_EXIT_FINDINGS : GF_EXIT_OK;
}

int gf_cli_parse(struct gf_cli *cli, const struct gf_cmd *cmd, int argc, char **argv, void *ctx)
{
	int ret = gf_opt_parse(cli, cmd, argc, argv, ctx);

	if (ret >= 0)
		return ret;
	ret = gf_out_open(cli);
	return ret ? ret : -1;
}

int gf_cli_no_operands(struct gf_cli *cli, int argc, char **argv)
{
	if (optind < argc)
		return gf_cli_usage(cli, "unexpected argument '%s'", argv[optind]);
	return -1;
}

int gf_cli_one_operand(struct gf_cli *cli, int argc, char **argv, const char *name, const char **val)
{
	if (optind >= argc)
		return gf_cli_usage(cli, "missing %s", name);
	if (optind < argc - 1)
		return gf_cli_usage(cli, "expected one %s, got more", name);
	if (!*argv[optind])	/* "record $UNSET" */
		return gf_cli_usage(cli, "%s is empty", name);
	if (val)
		*val = argv[optind];
	return -1;
}

/* The subcommand named by the operand after cmd's options: "bench io". */
static const struct gf_cmd *find_sub(const struct gf_cmd *cmd, const char *word)
{
	size_t skip = strlen(cmd->name) + 1;

	for (const struct gf_cmd *const *s = cmd->subs; *s; s++)
		if (!strcmp((*s)->name + skip, word))
			return *s;
	return NULL;
}

static void list_subs(const struct gf_cmd *cmd, char *buf, size_t size)
{
	size_t skip = strlen(cmd->name) + 1, len = 0;

	buf[0] = '\0';
	for (const struct gf_cmd *const *s = cmd->subs; *s && len < size; s++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", (*s)->name + skip);
}

int gf_cli_dispatch(const struct gf_cmd *cmd, int argc, char **argv)
{
	const struct gf_cmd *sub;
	struct gf_cli cli;
	char names[256];
	int ret;

	gf_cli_init(&cli, cmd->name);
	if ((ret = gf_opt_parse(&cli, cmd, argc, argv, NULL)) >= 0)
		return ret;
	list_subs(cmd, names, sizeof(names));
	if (optind >= argc)
		return gf_cli_usage(&cli, "what to run? (one of: %s)", names);
	sub = find_sub(cmd, argv[optind]);
	if (!sub) {
		const char *near = gf_suggest_sub(cmd, argv[optind]);

		if (near)
			return gf_cli_usage(&cli, "unknown '%s'; did you mean '%s %s'? (one of: %s)", argv[optind],
					    cmd->name, near, names);
		return gf_cli_usage(&cli, "unknown '%s' (one of: %s)", argv[optind], names);
	}
	return sub->run(argc - optind, argv + optind);
}

const struct gf_cmd *gf_cli_find(const char *const *words, int nwords, int *used)
{
	const struct gf_cmd *cmd = NULL;

	*used = 0;
	for (const struct gf_cmd *const *c = gf_commands; *c && nwords > 0; c++)
		if (!strcmp((*c)->name, words[0]))
			cmd = *c, *used = 1;
	if (cmd && cmd->subs && nwords > 1) {
		const struct gf_cmd *sub = find_sub(cmd, words[1]);

		if (!sub)
			return NULL;
		cmd = sub;
		*used = 2;
	}
	return cmd;
}
