/* gpufeed watch: every link of the machine, beside its limit, refreshed
 * every interval (nvidia-smi dmon's habit, for the whole machine). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"

/* The GPU table's header again after this many lines, about a screenful. */
#define HEADER_EVERY 24

struct watch_args {
	double interval;	/* seconds, > 0 */
	uint64_t count;		/* samples to print; 0: until interrupted */
	bool csv;
	pid_t pid;
	bool children;
	const char *gpus;	/* --gpus LIST */
	unsigned parts;		/* enum gf_mon_part bits; 0: every one */
};

static int opt_interval(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct watch_args *a = ctx;
	double v;

	if (gf_parse_duration(arg, &v) || v <= 0)
		return gf_cli_usage(cli, "--interval: '%s' is not a number of seconds above 0 (e.g. 1, 0.5, 250ms)",
				    arg);
	a->interval = v;
	return 0;
}

static int opt_count(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct watch_args *a = ctx;

	if (gf_parse_count(arg, 1, 1000000000, &a->count))
		return gf_cli_usage(cli, "--count: '%s' is not a number of samples from 1", arg);
	return 0;
}

static int opt_pid(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct watch_args *a = ctx;
	uint64_t v;

	if (gf_parse_count(arg, 1, 0x3fffffff, &v))
		return gf_cli_usage(cli, "--pid: '%s' is not a process id", arg);
	a->pid = (pid_t)v;
	return 0;
}

static const struct {
	const char *name;
	unsigned bit;
} part_names[] = {
	{ "gpu", GF_MON_GPU }, { "numa", GF_MON_NUMA }, { "disk", GF_MON_DISK },
	{ "nic", GF_MON_NIC }, { "pagecache", GF_MON_PAGECACHE },
};

static int opt_parts(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct watch_args *a = ctx;
	char buf[256], *tok, *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		return gf_cli_usage(cli, "--parts: '%s' is too long", arg);
	a->parts = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(part_names) / sizeof(part_names[0]); i++)
			if (!strcmp(tok, part_names[i].name))
				break;
		if (i == sizeof(part_names) / sizeof(part_names[0]))
			return gf_cli_usage(cli, "--parts: '%s' is not gpu, numa, disk, nic or pagecache", tok);
		a->parts |= part_names[i].bit;
	}
	if (!a->parts)
		return gf_cli_usage(cli, "--parts: name one part at least");
	return 0;
}

static const struct gf_opt watch_opts[] = {
	GF_OPT_CALLBACK('i', "interval", "SECONDS", opt_interval,
			"time between samples (default 1; fractions and\n"
			"units allowed: 0.5, 250ms, 2s)"),
	GF_OPT_CALLBACK('c', "count", "N", opt_count, "stop after N samples (default: until Ctrl-C)"),
	GF_OPT_BOOL(0, "csv", struct watch_args, csv,
		    "CSV: a header row, then one row per sample\n"
		    "(docs/json-monitor.md)"),
	GF_OPT_CALLBACK('p', "pid", "PID", opt_pid,
			"also show that process's share: its CPUs and\n"
			"run-queue wait, I/O, GPU use, where its threads ran;\n"
			"stop when it exits"),
	GF_OPT_BOOL(0, "children", struct watch_args, children,
		    "with --pid: count its descendants too (a launcher's\n"
		    "ranks)"),
	GF_OPT_STRING(0, "gpus", "LIST", struct watch_args, gpus,
		      "only these GPUs (NVML index, UUID or a prefix of\n"
		      "it of 8 characters or more, PCI address;\n"
		      "comma-separated)"),
	GF_OPT_CALLBACK(0, "parts", "LIST", opt_parts,
			"only these parts (comma-separated): gpu, numa, disk,\n"
			"nic, pagecache (default: all)"),
	GF_OPT_COMMON("root", "a recording made by 'gpufeed record' (DIR or\n"
			      "FILE.tar.gz): it holds no counters, so only with\n"
			      "--count 1, which prints its levels once"),
	GF_OPT_COMMON("nvml", "auto (default): GPU figures when NVML is present;\n"
			      "off: no GPU figures; require: exit 4 without NVML"),
	GF_OPT_COMMON("pci-locality", NULL),
	GF_OPT_COMMON("json", "JSON Lines: one object per sample, one per line\n"
			      "(docs/json-monitor.md)"),
	GF_OPT_COMMON("output", NULL),
	GF_OPT_COMMON("color", "accepted, as by every command; this output has\nno colour"),
	GF_OPT_COMMON("quiet", NULL),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_watch_def = {
	.name = "watch",
	.args = "[OPTIONS]",
	.summary = "a live view of every GPU, NUMA node, disk and NIC beside its limit",
	.description =
		"Samples the machine every interval and prints what each link is doing beside\n"
		"its limit from the machine model: per GPU its SM activity, occupancy and\n"
		"tensor activity (NVML GPM where the GPU has it, else NVML's utilisation),\n"
		"memory used, PCIe and NVLink rx/tx with the busier direction as a share of\n"
		"the link's limit, power and its limit, clocks, throttle reasons, the last\n"
		"XID and ECC counts; then one compact row per NUMA node (CPU busy, memory\n"
		"free), disk (read/write MB/s, utilisation, queue, share of its link), NIC\n"
		"and RDMA port (rx/tx, share of its speed) and the page cache.  --pid adds\n"
		"one process's share.\n"
		"\n"
		"The table fits 100 columns and repeats its header every screenful, as\n"
		"'nvidia-smi dmon' does; a figure this machine cannot give is '-', never 0.\n"
		"The first sample only primes the counters, so the first line comes after\n"
		"one interval.  --json and --csv write the same figures for scripts, in\n"
		"bytes, bytes/s and fractions.  Ctrl-C (or SIGTERM, SIGHUP) ends it after\n"
		"the sample being written, with exit 0; so does --count N, and the exit of\n"
		"the process --pid watches.\n"
		"\n"
		"A recording (--root) holds no counters: with --count 1 watch prints what it\n"
		"has once (names, limits, memory totals; every rate '-') and says so;\n"
		"without --count 1 it refuses with exit 2.\n",
	.opts = watch_opts,
	.exits = { "interrupted, --count samples printed, or the watched process exited", NULL,
		   "a bad option; --root without --count 1; --gpus naming no GPU of the\n"
		   "machine",
		   "the process --pid names does not exist; the model or a counter could\n"
		   "not be read; writing the output failed",
		   "--nvml=require without NVML; --gpus on a machine without a GPU" },
	.footer = "Columns and units: docs/watch.md.  JSON and CSV: docs/json-monitor.md\n"
		  "(\"schema\": \"" GF_MON_SCHEMA "\").\n",
	.run = gf_cmd_watch,
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Ctrl-C, TERM and HUP end the loop; no SA_RESTART, so the sleep between
 * samples returns at once. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleeps until *next on the monotonic clock and moves it one interval on,
 * so the samples keep their pace however long printing took; after a
 * stall (a stopped terminal, a slow counter) the pace starts again from
 * now rather than catching up in a burst.  False when interrupted. */
static bool sleep_until(double *next, double interval)
{
	struct timespec when = { .tv_sec = (time_t)*next, .tv_nsec = (long)((*next - floor(*next)) * 1e9) };

	while (!interrupted) {
		int ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &when, NULL);

		if (ret == EINTR)
			continue;
		if (ret)
			return false;
		*next += interval;
		if (*next < now_mono())
			*next = now_mono() + interval;
		return true;
	}
	return false;
}

/* --gpus: which of the sample's GPUs it names (by position). */
struct gpu_filter {
	const char *list;
	bool *keep;		/* one per GPU of the sample; NULL: all */
};

/* spec names g: its index, its UUID or a prefix of it ("GPU-8f1c"), its
 * PCI address with or without the domain. */
static bool names_gpu(const char *spec, const struct gf_mon_gpu *g)
{
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", g->index);
	if (!strcmp(spec, idx) || !strcasecmp(spec, g->pci))
		return true;
	if (strlen(g->pci) == 12 && !strcasecmp(spec, g->pci + 5))
		return true;
	return g->uuid[0] && strlen(spec) >= 8 && !strncasecmp(spec, g->uuid, strlen(spec));
}

/* Marks the GPUs LIST names; a usage error for an item that names none or
 * more than one. */
static int resolve_gpus(struct gf_cli *cli, const struct gf_mon_sample *s, struct gpu_filter *g)
{
	char buf[1024], *tok, *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", g->list) >= (int)sizeof(buf))
		return gf_cli_usage(cli, "--gpus: the list is too long");
	if (!(g->keep = calloc(s->ngpus ? s->ngpus : 1, sizeof(*g->keep))))
		return gf_cli_fail(cli, -ENOMEM);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int found = 0, at = -1;

		for (unsigned i = 0; i < s->ngpus; i++)
			if (names_gpu(tok, &s->gpus[i]))
				found++, at = (int)i;
		if (!s->ngpus) {
			fprintf(stderr, "gpufeed watch: --gpus %s: no GPU on this machine%s%s\n", g->list,
				s->gpu_why ? ": " : "", s->gpu_why ? s->gpu_why : "");
			return GF_EXIT_UNAVAILABLE;
		}
		if (found != 1)
			return gf_cli_usage(cli, "--gpus: '%s' names %s GPU of this machine (it has %u)", tok,
					    found ? "more than one" : "no", s->ngpus);
		g->keep[at] = true;
	}
	return -1;
}

/* The sample with only the GPUs --gpus names: a copy of the sample that
 * points at `keep` (room for every GPU of s). */
static const struct gf_mon_sample *filtered(const struct gf_mon_sample *s, const struct gpu_filter *g,
					     struct gf_mon_sample *copy, struct gf_mon_gpu *keep)
{
	if (!g->keep)
		return s;
	*copy = *s;
	copy->gpus = keep;
	copy->ngpus = 0;
	for (unsigned i = 0; i < s->ngpus; i++)
		if (g->keep[i])
			keep[copy->ngpus++] = s->gpus[i];
	return copy;
}

struct printer {
	struct gf_cli *cli;
	const struct watch_args *a;
	uint64_t printed;
	int since_header;
};

static int print_sample(struct printer *p, const struct gf_mon_sample *s)
{
	int ret;

	if (p->cli->json) {
		ret = gf_mon_sample_write_json(s, stdout);
	} else if (p->a->csv) {
		ret = gf_mon_sample_write_csv(s, stdout, p->printed ? 0 : GF_MON_OUT_HEADER);
	} else {
		bool header = !p->printed || p->since_header >= HEADER_EVERY;

		ret = gf_mon_sample_print(s, stdout, header ? GF_MON_OUT_HEADER : 0);
		if (ret >= 0) {
			p->since_header = header ? ret : p->since_header + ret;
			ret = 0;
		}
	}
	if (!ret && fflush(stdout))
		ret = -EIO;
	p->printed++;
	return ret;
}

static int check_args(struct gf_cli *cli, const struct watch_args *a)
{
	if (cli->json && a->csv)
		return gf_cli_usage(cli, "--json and --csv: give one");
	if (a->gpus && ((a->parts && !(a->parts & GF_MON_GPU)) || cli->topo.nvml == GF_NVML_OFF))
		return gf_cli_usage(cli, "--gpus with no GPU part (--parts without gpu, or --nvml=off)");
	if (a->children && !a->pid)
		return gf_cli_usage(cli, "--children goes with --pid");
	if (cli->topo.root && a->count != 1)
		return gf_cli_usage(cli, "--root %s: a recording holds no counters to watch; "
					 "--count 1 prints what it has once", cli->topo.root);
	return -1;
}

/* The loop: prime, then a sample every interval until --count, Ctrl-C or
 * the watched process's exit. */
static int watch(struct gf_cli *cli, const struct watch_args *a, struct gf_monitor *m, struct gpu_filter *g)
{
	struct printer p = { .cli = cli, .a = a };
	const struct gf_mon_sample *s;
	struct gf_mon_sample copy;
	struct gf_mon_gpu *keep = NULL;
	double next;
	int ret;

	next = now_mono() + a->interval;
	if ((ret = gf_monitor_sample(m, &s)))
		return gf_cli_fail(cli, ret);
	if (s->gpu_why && !cli->topo.root && cli->topo.nvml == GF_NVML_REQUIRE) {
		fprintf(stderr, "gpufeed watch: %s\n", s->gpu_why);
		return GF_EXIT_UNAVAILABLE;
	}
	if (s->gpu_why && !cli->topo.root && !cli->quiet)
		fprintf(stderr, "gpufeed watch: no GPU figures: %s\n", s->gpu_why);
	if (g->list && (ret = resolve_gpus(cli, s, g)) >= 0)
		return ret;
	ret = 0;
	if (s->ngpus && !(keep = calloc(s->ngpus, sizeof(*keep))))
		return gf_cli_fail(cli, -ENOMEM);
	if (cli->topo.root) {
		if (!cli->quiet)
			fprintf(stderr, "gpufeed watch: %s is a recording: it holds no counters, so every rate is '-' "
					"(names, limits and levels only)\n", cli->topo.root);
		ret = print_sample(&p, filtered(s, g, &copy, keep));
		goto out;
	}
	while (!interrupted && (!a->count || p.printed < a->count)) {
		if (!sleep_until(&next, a->interval))
			break;
		if ((ret = gf_monitor_sample(m, &s)))
			break;
		if ((ret = print_sample(&p, filtered(s, g, &copy, keep))))
			break;
		if (s->proc && !s->proc->alive) {
			if (!cli->quiet)
				fprintf(stderr, "gpufeed watch: process %d has exited\n", (int)s->proc->pid);
			break;
		}
	}
out:
	free(keep);
	return ret ? gf_cli_fail(cli, ret) : GF_EXIT_OK;
}

int gf_cmd_watch(int argc, char **argv)
{
	struct watch_args a = { .interval = 1.0 };
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	struct gpu_filter g = { NULL, NULL };
	struct gf_monitor *m = NULL;
	struct gf_topo *t = NULL;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "watch");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_watch_def, argc, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0 || (ret = check_args(&cli, &a)) >= 0)
		return ret;
	/* The model as the common options ask for it (its warnings, and exit 4
	 * for --nvml=require without NVML or DIR/nvml.json).  A recording's
	 * monitor discovers its own: root and topo are one or the other. */
	if ((ret = gf_cli_discover(&cli, &t)))
		return ret;
	if (cli.topo.root)
		o.root = cli.topo.root;
	else
		o.topo = t;
	g.list = a.gpus;
	o.parts = a.parts ? a.parts : GF_MON_ALL & ~GF_MON_PROC;
	if (cli.topo.nvml == GF_NVML_OFF)
		o.parts &= ~GF_MON_GPU;
	if (a.pid)
		o.parts |= GF_MON_PROC;
	o.pid = a.pid;
	o.children = a.children;
	if ((ret = gf_monitor_open(&o, &m))) {
		gf_topo_free(t);
		return gf_cli_fail(&cli, ret);
	}
	catch_signals();
	ret = watch(&cli, &a, m, &g);
	free(g.keep);
	gf_monitor_close(m);
	gf_topo_free(t);
	return ret;
}
