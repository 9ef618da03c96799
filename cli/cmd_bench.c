/* gpufeed bench TARGET: one command path for every target the library
 * describes (gpufeed/bench.h).  Each subcommand, its --help, its man page
 * and its exit codes are built from the target's description; its options
 * go to the library by name (gf_bench_set), so the CLI knows no target's
 * options and a new target needs nothing here. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/bench.h>
#include <gpufeed/error.h>
#include <gpufeed/parse.h>
#include "cli.h"

/* More than the library has; a target past it fails test_help. */
enum { TARGETS_MAX = 16, TARGET_OPTS_MAX = 40 };

/* What one run of a bench subcommand parses into. */
struct bench_args {
	struct gf_bench *b;
	double status_interval;		/* seconds, 0: the target's default */
};

static int opt_status_interval(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct bench_args *a = ctx;

	if (gf_parse_duration(arg, &a->status_interval))
		return gf_cli_usage(cli, "--status-interval: %s", gf_last_error());
	if (!(a->status_interval >= 0.1))
		return gf_cli_usage(cli, "--status-interval: '%s' is under 0.1 s", arg);
	return 0;
}

/* A target's option, by name, to the library; its message is the usage
 * error. */
static int set_option(struct gf_cli *cli, void *ctx, const char *name, const char *arg)
{
	struct bench_args *a = ctx;

	if (gf_bench_set(a->b, name, arg))
		return gf_cli_usage(cli, "%s", gf_last_error());
	return 0;
}

/* The options every target takes after its own: the machine (its model
 * gives placement and limits; the measuring runs here), progress, output. */
static const struct gf_opt frame_opts[] = {
	GF_OPT_COMMON("root", "take the machine model (placement, limits) from a\n"
		      "recording; the measuring still runs here"),
	GF_OPT_COMMON("nvml", NULL),
	GF_OPT_COMMON("pci-locality", NULL),
	GF_OPT_CALLBACK(0, "status-interval", "D", opt_status_interval,
			"when stderr is not a terminal, a status line (point,\n"
			"elapsed, ETA) this often: 10s, 500ms, 1m"),
	GF_OPT_COMMON("json", NULL),	/* its help names the target's schema */
	GF_OPT_COMMON("output", NULL),
	GF_OPT_COMMON("quiet", "no progress lines on stderr"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

static struct gf_cmd target_cmds[TARGETS_MAX];
static struct gf_opt target_opts[TARGETS_MAX][TARGET_OPTS_MAX];
static char target_names[TARGETS_MAX][32], target_args[TARGETS_MAX][32], target_json[TARGETS_MAX][96];
static const struct gf_cmd *bench_subs[TARGETS_MAX + 1];

static int cmd_bench_target(int argc, char **argv);

void gf_cli_bench_register(void)
{
	const struct gf_bench_target *t;
	unsigned i, k, n;

	for (i = 0; i < TARGETS_MAX && (t = gf_bench_target_at(i)); i++) {
		const struct gf_bench_option *bo;
		struct gf_opt *opts = target_opts[i];

		for (n = 0; n < TARGET_OPTS_MAX - 12 && (bo = gf_bench_option_at(t, n)); n++)
			opts[n] = (struct gf_opt){ GF_OPT_FORWARD, 0, bo->name, bo->argh, bo->help, 0, 0, NULL, NULL };
		snprintf(target_json[i], sizeof(target_json[i]), "every sample, median and spread\n(schema %s)",
			 t->schema);
		for (k = 0; frame_opts[k].type != GF_OPT_END; k++) {
			opts[n] = frame_opts[k];
			if (!strcmp(opts[n].long_name, "json"))
				opts[n].help = target_json[i];
			n++;
		}
		opts[n] = (struct gf_opt)GF_OPT_END();
		snprintf(target_names[i], sizeof(target_names[i]), "bench %s", t->name);
		snprintf(target_args[i], sizeof(target_args[i]), "[OPTIONS]%s%s", t->operand ? " " : "",
			 t->operand ? t->operand : "");
		target_cmds[i] = (struct gf_cmd){
			.name = target_names[i],
			.args = target_args[i],
			.summary = t->summary,
			.description = t->description,
			.opts = opts,
			.footer = t->footer,
			.run = cmd_bench_target,
			.set = set_option,
		};
		for (k = 0; k < GF_NEXIT && k < GF_BENCH_EXITS; k++)
			target_cmds[i].exits[k] = t->exits[k];
		bench_subs[i] = &target_cmds[i];
	}
	bench_subs[i] = NULL;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Ctrl-C, TERM and HUP stop the run after the current sample (the target
 * then removes what it made); progress on stderr unless --quiet. */
static void start(const struct gf_cli *cli, struct gf_bench_run_opts *ro)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ro->cancel = &interrupted;
	if (!cli->quiet) {
		ro->progress = stderr;
		ro->progress_tty = isatty(STDERR_FILENO);
	}
}

/* argv[0] is the target's name ("h2d"): gf_cli_dispatch's operand. */
static int cmd_bench_target(int argc, char **argv)
{
	struct gf_bench_run_opts ro = GF_BENCH_RUN_OPTS_INIT;
	struct bench_args a = { 0 };
	const struct gf_cmd *cmd = NULL;
	const struct gf_bench_target *t;
	const char *operand = NULL;
	struct gf_cli cli;
	int ret, rc;

	for (unsigned i = 0; bench_subs[i]; i++)
		if (!strcmp(bench_subs[i]->name + strlen("bench "), argv[0]))
			cmd = bench_subs[i];
	if (!cmd || gf_bench_new(argv[0], &a.b)) {
		fprintf(stderr, "gpufeed bench: %s\n", gf_last_error());
		return GF_EXIT_USAGE;
	}
	t = gf_bench_target_of(a.b);
	gf_cli_init(&cli, cmd->name);
	if ((ret = gf_cli_parse(&cli, cmd, argc, argv, &a)) >= 0)
		goto out;
	ret = t->operand ? gf_cli_one_operand(&cli, argc, argv, t->operand, &operand) :
			   gf_cli_no_operands(&cli, argc, argv);
	if (ret >= 0)
		goto out;
	if ((operand && gf_bench_set_operand(a.b, operand)) || gf_bench_check(a.b)) {
		ret = gf_cli_usage(&cli, "%s", gf_last_error());
		goto out;
	}
	start(&cli, &ro);
	ro.machine = &cli.topo;
	ro.status_interval_s = a.status_interval;
	rc = gf_bench_run(a.b, &ro);
	if (rc == -EDOM) {	/* a point the target cannot take */
		ret = gf_cli_usage(&cli, "%s", gf_last_error());
		goto out;
	}
	if (!gf_bench_has_results(a.b)) {
		ret = gf_cli_fail(&cli, rc);
		goto out;
	}
	/* Also when interrupted: the points that ran, the others marked. */
	if (*gf_bench_problem(a.b))
		fprintf(stderr, "gpufeed %s: %s\n", cmd->name, gf_bench_problem(a.b));
	errno = 0;
	rc = cli.json ? gf_bench_write_json(a.b, stdout) : gf_bench_print(a.b, stdout);
	if (rc || fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "gpufeed %s: writing the results: %s\n", cmd->name, strerror(errno ? errno : EIO));
		ret = GF_EXIT_INPUT;
	} else {
		enum gf_bench_outcome o = gf_bench_outcome(a.b);

		ret = o == GF_BENCH_FAILED ? GF_EXIT_INPUT : o == GF_BENCH_FINDINGS ? GF_EXIT_FINDINGS : GF_EXIT_OK;
	}
out:
	gf_bench_free(a.b);
	return ret;
}

static const struct gf_opt bench_opts[] = {
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_bench_def = {
	.name = "bench",
	.args = "WHAT [OPTIONS]",
	.summary = "measure a link against its limit",
	.description = "Measures a link against its limit; 'gpufeed bench WHAT --help' for each.\n",
	.opts = bench_opts,
	.exits = { "", NULL, "", "", NULL },
	.run = gf_cmd_bench,
	.subs = bench_subs,
};

int gf_cmd_bench(int argc, char **argv)
{
	return gf_cli_dispatch(&gf_cmd_bench_def, argc, argv);
}
