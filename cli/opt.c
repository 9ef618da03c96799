/* Parsing a command line with a command's option table (opt.h). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "suggest.h"

/* More than any command needs; a table that outgrows it fails its test. */
enum { GF_OPT_MAX = 64 };

struct gf_opt gf_opt_resolve(const struct gf_opt *o)
{
	struct gf_opt r = *o;

	if (o->type == GF_OPT_COMMON) {
		const struct gf_opt *c = gf_opt_common(o->long_name);

		if (!c) {	/* a typo in a table: loud in every test */
			fprintf(stderr, "gpufeed: internal error: no common option '%s'\n", o->long_name);
			r = (struct gf_opt)GF_OPT_END();
			return r;
		}
		r = *c;
		if (o->help)
			r.help = o->help;
	}
	return r;
}

/* getopt's complaints in our words. */
static int bad_option(struct gf_cli *cli, int opt, char **argv)
{
	const char *word = argv[optind - 1];

	if (opt == ':')
		return gf_cli_usage(cli, "option '%s' needs a value", word);
	if (!strncmp(word, "--", 2)) {
		const char *near = gf_suggest_option(cli->def, word + 2);

		if (strchr(word, '='))
			return gf_cli_usage(cli, "unknown option or unexpected value '%s'%s%s%s", word,
					    near ? "; did you mean '--" : "", near ? near : "", near ? "'?" : "");
		return gf_cli_usage(cli, "unknown option '%s'%s%s%s", word, near ? "; did you mean '--" : "",
				    near ? near : "", near ? "'?" : "");
	}
	return gf_cli_usage(cli, "unknown option '-%c'", optopt);
}

static int apply(struct gf_cli *cli, const struct gf_opt *o, void *ctx, const char *arg)
{
	char *base = (o->flags & GF_OPT_IN_CLI) ? (char *)cli : (char *)ctx;

	switch (o->type) {
	case GF_OPT_BOOL:
		*(bool *)(base + o->off) = true;
		return 0;
	case GF_OPT_STRING:
		/* "--root $UNSET" must not read this machine, "-o $UNSET" not write stdout */
		if (!*arg)
			return gf_cli_usage(cli, "--%s needs a %s (an empty one was given)", o->long_name, o->argh);
		*(const char **)(base + o->off) = arg;
		return 0;
	case GF_OPT_CALLBACK:
		return o->cb(cli, ctx, arg);
	case GF_OPT_FORWARD:
		return cli->def->set(cli, ctx, o->long_name, arg);
	default:
		return 0;
	}
}

int gf_opt_parse(struct gf_cli *cli, const struct gf_cmd *cmd, int argc, char **argv, void *ctx)
{
	struct gf_opt opts[GF_OPT_MAX];
	struct option longopts[GF_OPT_MAX + 1];
	/* ':' first: a missing value is reported as ':'.  A command with
	 * subcommands stops at the first operand ('+'): the rest is theirs. */
	char shortopts[2 * GF_OPT_MAX + 3];
	size_t n = 0, ns = 0;
	int opt, ret;

	if (cmd->subs)
		shortopts[ns++] = '+';
	shortopts[ns++] = ':';

	cli->def = cmd;
	for (const struct gf_opt *o = cmd->opts; o->type != GF_OPT_END; o++) {
		if (n == GF_OPT_MAX) {
			fprintf(stderr, "gpufeed %s: internal error: more than %d options\n", cli->cmd, GF_OPT_MAX);
			return GF_EXIT_INPUT;
		}
		opts[n] = gf_opt_resolve(o);
		if (opts[n].type == GF_OPT_END)
			return GF_EXIT_INPUT;
		longopts[n] = (struct option){ opts[n].long_name, opts[n].argh ? required_argument : no_argument,
					       NULL, 256 + (int)n };
		if (opts[n].short_name) {
			shortopts[ns++] = opts[n].short_name;
			if (opts[n].argh)
				shortopts[ns++] = ':';
		}
		n++;
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[ns] = '\0';

	optind = 0;	/* glibc: start afresh (bench, then bench io, parse in one process) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct gf_opt *o = NULL;

		if (opt >= 256 && (size_t)(opt - 256) < n)
			o = &opts[opt - 256];
		for (size_t i = 0; !o && i < n; i++)
			if (opts[i].short_name && opts[i].short_name == opt)
				o = &opts[i];
		if (!o)
			return bad_option(cli, opt, argv);
		ret = apply(cli, o, ctx, optarg);
		if (ret == GF_OPT_DONE)	/* --help, --version: main() checks stdout took it */
			return GF_EXIT_OK;
		if (ret)
			return ret;
	}
	return -1;
}
