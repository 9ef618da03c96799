/* gpufeed exporter: the monitor's samples and the checks' results as
 * Prometheus metrics, served on /metrics or written for node_exporter's
 * textfile collector. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct exporter_args {
	struct gf_exporter_opts o;
	bool no_checks;
	const char *model;
};

static int opt_listen(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct exporter_args *a = ctx;

	if (gf_exporter_check_listen(arg))
		return gf_cli_usage(cli, "--listen: %s", gf_last_error());
	a->o.listen = arg;
	return 0;
}

static int opt_textfile(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct exporter_args *a = ctx;

	if (!*arg)
		return gf_cli_usage(cli, "--textfile: the path is empty");
	a->o.textfile = arg;
	return 0;
}

static int seconds(struct gf_cli *cli, const char *opt, const char *arg, double *v)
{
	if (gf_parse_duration(arg, v) || *v <= 0 || *v > 86400)
		return gf_cli_usage(cli, "%s: '%s' is not a duration of more than 0 and at most a day (15, 0.5, 2m)",
				    opt, arg);
	return 0;
}

static int opt_interval(struct gf_cli *cli, void *ctx, const char *arg)
{
	return seconds(cli, "--interval", arg, &((struct exporter_args *)ctx)->o.interval_s);
}

static int opt_checks_interval(struct gf_cli *cli, void *ctx, const char *arg)
{
	return seconds(cli, "--checks-interval", arg, &((struct exporter_args *)ctx)->o.checks_interval_s);
}

static int opt_profile(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct exporter_args *a = ctx;

	if (gf_profile_parse(arg, &a->o.profile))
		return gf_cli_usage(cli, "--profile: '%s' is not training or inference", arg);
	return 0;
}

static const struct gf_opt exporter_opts[] = {
	GF_OPT_CALLBACK(0, "listen", "ADDR:PORT", opt_listen,
			"serve GET /metrics there: 127.0.0.1:9400,\n"
			"[::1]:9400, or :9400 for every address (IPv6 and\n"
			"IPv4); port 0 lets the kernel pick one (said on\n"
			"stderr)"),
	GF_OPT_CALLBACK(0, "textfile", "FILE", opt_textfile,
			"write the metrics to FILE every interval,\n"
			"atomically (a temporary file renamed over it), for\n"
			"node_exporter's textfile collector; a device or\n"
			"FIFO in place; a directory is refused"),
	GF_OPT_CALLBACK(0, "interval", "SECONDS", opt_interval,
			"time between samples (default 15; fractions\n"
			"allowed): rates are over the last interval,\n"
			"whoever scrapes and how often"),
	GF_OPT_BOOL(0, "once", struct exporter_args, o.once,
		    "with --textfile: sample over one interval, write\n"
		    "the file, exit (with --root: at once, no rates)"),
	GF_OPT_CALLBACK(0, "checks-interval", "SECONDS", opt_checks_interval,
			"run gpufeed check's checks again this often\n"
			"(default 300)"),
	GF_OPT_BOOL(0, "no-checks", struct exporter_args, no_checks,
		    "leave the checks' results out"),
	GF_OPT_CALLBACK(0, "profile", "NAME", opt_profile,
			"the checks' profile: training (default) or\n"
			"inference"),
	GF_OPT_COMMON("root", "read a recording instead of this machine: only\n"
			      "with --once (a recording has levels, no rates)"),
	GF_OPT_STRING(0, "model", "DIR", struct exporter_args, model,
		      "take the machine's model (GPUs, links, limits)\n"
		      "from the recording DIR and sample this machine:\n"
		      "where sysfs hides the GPUs (some VMs), or to try it\n"
		      "with a stand-in NVML"),
	GF_OPT_COMMON("nvml", NULL),
	GF_OPT_COMMON("pci-locality", NULL),
	GF_OPT_COMMON("quiet", "do not say where the server listens"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_exporter_def = {
	.name = "exporter",
	.args = "[OPTIONS] --listen ADDR:PORT | --textfile FILE",
	.summary = "serve the machine's live figures and the checks' results as Prometheus metrics",
	.description =
		"Samples, every --interval, what 'gpufeed watch' shows: per GPU its SM, tensor\n"
		"and DRAM activity (NVML GPM, else utilisation), memory, PCIe and NVLink\n"
		"throughput beside the links' limits, power, clocks, clock event reasons, XID\n"
		"and ECC events; per NUMA node CPU busy and memory free; per disk and NIC\n"
		"throughput; the page cache; and, every --checks-interval, the results of\n"
		"'gpufeed check' (as check --prom writes them).  GPU metrics keep DCGM\n"
		"exporter's names, units and labels (gpu, UUID, pci_bus_id, device,\n"
		"modelName, Hostname) so its dashboards read them; the rest are gpufeed_*.\n"
		"A figure the machine cannot give is left out, never written as 0.\n"
		"\n"
		"--listen serves GET /metrics (and a short page at /) over HTTP/1.1;\n"
		"--textfile writes node_exporter's textfile collector's file; both may be\n"
		"given.  Scrapes are served from the last sample: they never wait on NVML,\n"
		"and any number of scrapers see the same figures.  SIGTERM or Ctrl-C stops\n"
		"it (exit 0).  Metric list, deployment (systemd, Kubernetes) and cost:\n"
		"docs/exporter.md.\n",
	.opts = exporter_opts,
	.exits = { "stopped by SIGTERM, SIGINT or SIGHUP, or --once done", NULL,
		   "neither --listen nor --textfile, a malformed --listen address, --once\n"
		   "with --listen, --root without --once or with --model",
		   "the port is taken or the address not this host's, --textfile is a\n"
		   "directory or cannot be written, --root or --model not a recording",
		   "--nvml=require without NVML" },
	.footer = "Deployment: deploy/systemd/gpufeed-exporter.service,\n"
		  "deploy/kubernetes/gpufeed-exporter.yaml (docs/exporter.md).\n",
	.run = gf_cmd_exporter,
};

static struct gf_exporter *running;

static void on_signal(int sig)
{
	(void)sig;
	gf_exporter_stop(running);
}

int gf_cmd_exporter(int argc, char **argv)
{
	struct exporter_args a = { .o = GF_EXPORTER_OPTS_INIT };
	struct sigaction sa = { .sa_handler = on_signal };
	struct gf_exporter *e = NULL;
	struct gf_cli cli;
	char addr[96];
	int ret;

	gf_cli_init(&cli, "exporter");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_exporter_def, argc, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	if (!a.o.listen && !a.o.textfile)
		return gf_cli_usage(&cli, "nothing to do: give --listen ADDR:PORT, --textfile FILE or both");
	if (a.o.once && (a.o.listen || !a.o.textfile))
		return gf_cli_usage(&cli, "--once writes --textfile FILE once and exits: it goes without --listen");
	if (cli.topo.root && !a.o.once)
		return gf_cli_usage(&cli, "--root: a recording has no counters to sample again; use it with "
					  "--once --textfile FILE (its levels, no rates)");
	if (cli.topo.root && a.model)
		return gf_cli_usage(&cli, "--root reads the model and the figures from a recording, --model the "
					  "model alone: give one");
	a.o.sample_root = cli.topo.root;
	if (a.model)
		cli.topo.root = a.model;
	if (a.no_checks)
		a.o.checks_interval_s = -1;
	a.o.machine = &cli.topo;
	/* A long-running service: what goes wrong after start (a text file
	 * that cannot be written, a failed sample) is said on stderr (the
	 * journal), as it happens. */
	gf_log_set_callback(gf_log_stderr, NULL);
	if ((ret = gf_exporter_open(&a.o, &e)))
		return gf_cli_fail(&cli, ret);
	if (a.o.listen && !cli.quiet && !gf_exporter_address(e, addr, sizeof(addr)))
		fprintf(stderr, "gpufeed exporter: listening on %s (GET /metrics)\n", addr);
	running = e;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ret = gf_exporter_run(e);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	running = NULL;
	if (ret) {
		ret = gf_cli_fail(&cli, ret);
		gf_exporter_close(e);
		return ret;
	}
	gf_exporter_close(e);
	return GF_EXIT_OK;
}
