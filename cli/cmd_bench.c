/* gpufeed bench io PATH: storage through the I/O engine, a sweep or one
 * fio-style point. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/bench.h>
#include "cli.h"

static const char help[] =
	"Usage: gpufeed bench io PATH [OPTIONS]\n"
	"\n"
	"Measures storage through gpufeed's I/O engine: GB/s, IOPS, p50/p99 latency\n"
	"and CPU seconds per GB.  PATH is a file or, for reads, a block device.  A file\n"
	"that does not exist is created (filled with data, --size), and removed at the\n"
	"end, also on Ctrl-C.  Writing to an existing file or device needs --force;\n"
	"without it a sweep runs its reads only.  Buffers and threads go to the NUMA\n"
	"node of the drive (from the machine model) unless --numa-node says otherwise.\n"
	"\n"
	"Without --mode, a sweep: seq/rand reads and writes x block sizes x O_DIRECT,\n"
	"cold and warm page cache x pread threads and io_uring queue depths.  With\n"
	"--mode, one point, fio-style, for scripts (docs/bench-io.md):\n"
	"  gpufeed bench io FILE --mode randread --bs 4K --qd 32 --direct --json\n"
	"\n"
	"Options:\n"
	"      --mode M          one point: seqread, randread, seqwrite, randwrite\n"
	"      --bs SIZE         block size (4K .. 1G; default 1M sequential, 4K random);\n"
	"                        in a sweep a list: --bs 4K,64K,1M\n"
	"      --qd N            requests in flight per thread (default 32; psync: 1)\n"
	"      --threads N       submitting threads, each with its own engine (default 1)\n"
	"      --direct          O_DIRECT (page cache bypassed); else buffered\n"
	"      --warm            buffered reads from a warm page cache (default: cold,\n"
	"                        the file's cached pages dropped first)\n"
	"      --engine E        uring (default) or psync (pread/pwrite threads)\n"
	"      --sqpoll          io_uring submission by a kernel thread (burns a core)\n"
	"      --duration D      per point: 10s, 500ms, 1m, or plain seconds (default\n"
	"                        10 for --mode, 1 in a sweep, 0.25 with --quick)\n"
	"      --quick           a short sweep (under a minute on 2 cores)\n"
	"      --modes LIST      sweep: modes to run (default all four)\n"
	"      --engines LIST    sweep: psync:N (N threads) and uring:N (depth N),\n"
	"                        default psync:1,psync:4,uring:1,uring:8,uring:32\n"
	"      --cache LIST      sweep: direct,cold,warm (default all)\n"
	"      --size SIZE       size of a file we create (default 1G, --quick 256M)\n"
	"      --force           allow writing over an existing file or block device\n"
	"                        (never one that is mounted)\n"
	"      --numa-node N     place buffers and threads on node N; 'none'; 'auto'\n"
	"                        (default: the drive's node)\n"
	"      --status-interval DURATION\n"
	"                        when stderr is not a terminal, a status line (point,\n"
	"                        elapsed, ETA, current GB/s) this often: 10s, 500ms, 1m\n"
	"  -r, --root DIR        take the machine model (the drive's node) from a\n"
	"                        recording; the I/O still runs here\n"
	"  -j, --json            results with raw samples (schema gpufeed-bench-io/2)\n"
	"  -q, --quiet           no progress or status lines on stderr\n"
	"  -h, --help            this help\n"
	"  -V, --version         print the version\n"
	"\n"
	GF_EXIT_CODES_HELP
	"  (2 also for a point the target cannot take, e.g. an O_DIRECT block size;\n"
	"   3 also when a point failed, e.g. an I/O error: the others still run)\n";

enum {
	OPT_MODE = 1100, OPT_BS, OPT_QD, OPT_THREADS, OPT_DIRECT, OPT_WARM, OPT_ENGINE, OPT_SQPOLL,
	OPT_DURATION, OPT_QUICK, OPT_MODES, OPT_ENGINES, OPT_CACHE, OPT_SIZE, OPT_NUMA, OPT_STATUS_INTERVAL,
};

struct args {
	struct gf_bench_io_request rq;
	int numa_node;
	double status_interval;		/* seconds, 0: none */
};

/* Progress on stderr: a line rewritten in place on a terminal, or a status
 * line every status_interval seconds otherwise (fio's --status-interval). */
struct progress {
	const struct gf_bench_point *pts;
	unsigned i, n;
	bool tty;
	double status_interval, t0, last_status;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_progress(const struct gf_bench_progress *pr, void *ctx)
{
	struct progress *g = ctx;
	const struct gf_bench_point *p = &g->pts[g->i];
	double now = now_s(), eta = p->duration_s - pr->elapsed_s;
	char eng[24];

	if (!g->tty && (!g->status_interval || now - g->last_status < g->status_interval))
		return;
	if (eta < 0)
		eta = 0;
	for (unsigned k = g->i + 1; k < g->n; k++)
		eta += g->pts[k].duration_s;
	snprintf(eng, sizeof(eng), "%s:%u", gf_io_backend_name(p->engine),
		 p->engine == GF_IO_PSYNC ? p->threads : p->qd);
	if (g->tty) {
		fprintf(stderr, "\r[%u/%u] %s %s bs=%zu %s  %.1f/%.1f s  %.3f GB/s  elapsed %.0f s  ETA %.0f s   ",
			g->i + 1, g->n, gf_bench_mode_name(p->mode), gf_bench_cache_name(p->cache), p->bs, eng,
			pr->elapsed_s, p->duration_s, pr->gbps_now, now - g->t0, eta);
	} else {
		fprintf(stderr, "gpufeed bench io: [%u/%u] %s %s bs=%zu %s: %.1f of %.1f s, %.3f GB/s now; "
			"elapsed %.0f s, ETA %.0f s\n", g->i + 1, g->n, gf_bench_mode_name(p->mode),
			gf_bench_cache_name(p->cache), p->bs, eng, pr->elapsed_s, p->duration_s, pr->gbps_now,
			now - g->t0, eta);
		g->last_status = now;
	}
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int count_opt(struct gf_cli *cli, const char *name, uint64_t lo, uint64_t hi, unsigned *v)
{
	uint64_t n;

	if (gf_parse_count(optarg, lo, hi, &n))
		return gf_cli_usage(cli, "--%s: %s", name, gf_last_error());
	*v = (unsigned)n;
	return 0;
}

/* argv to the request; what the values mean together is the library's
 * (gf_bench_io_plan). */
static int bench_opt(struct gf_cli *cli, int opt, void *ctx)
{
	struct args *a = ctx;
	struct gf_bench_io_request *rq = &a->rq;

	switch (opt) {
	case OPT_MODE:
		rq->single = true;
		if (gf_bench_mode_parse(optarg, &rq->mode))
			return gf_cli_usage(cli, "--mode: %s", gf_last_error());
		return 0;
	case OPT_BS: rq->bs = optarg; return 0;
	case OPT_QD: return count_opt(cli, "qd", 1, GF_BENCH_QD_MAX, &rq->qd);
	case OPT_THREADS: return count_opt(cli, "threads", 1, GF_BENCH_THREADS_MAX, &rq->threads);
	case OPT_DIRECT: rq->direct = true; return 0;
	case OPT_WARM: rq->warm = true; return 0;
	case OPT_SQPOLL: rq->sqpoll = true; return 0;
	case OPT_QUICK: rq->quick = true; return 0;
	case OPT_FORCE: rq->force = true; return 0;
	case OPT_MODES: rq->modes = optarg; return 0;
	case OPT_ENGINES: rq->engines = optarg; return 0;
	case OPT_CACHE: rq->cache = optarg; return 0;
	case OPT_ENGINE:
		if (!strcmp(optarg, "uring"))
			rq->engine = GF_IO_URING;
		else if (!strcmp(optarg, "psync"))
			rq->engine = GF_IO_PSYNC;
		else
			return gf_cli_usage(cli, "--engine: '%s' is not uring or psync", optarg);
		return 0;
	case OPT_DURATION:
		if (gf_parse_duration(optarg, &rq->duration_s))
			return gf_cli_usage(cli, "--duration: %s", gf_last_error());
		if (!(rq->duration_s > 0 && rq->duration_s <= 86400))
			return gf_cli_usage(cli, "--duration: '%s' is not in (0, 24h]", optarg);
		return 0;
	case OPT_SIZE:
		if (gf_parse_size(optarg, &rq->size))
			return gf_cli_usage(cli, "--size: %s", gf_last_error());
		if (!rq->size)
			return gf_cli_usage(cli, "--size: must be > 0");
		return 0;
	case OPT_NUMA: {
		unsigned n = 0;
		if (!strcmp(optarg, "none")) {
			a->numa_node = -2;
			return 0;
		}
		if (!strcmp(optarg, "auto")) {
			a->numa_node = -1;
			return 0;
		}
		if (count_opt(cli, "numa-node", 0, 1023, &n))
			return GF_EXIT_USAGE;
		a->numa_node = (int)n;
		return 0;
	}
	case OPT_STATUS_INTERVAL:
		if (gf_parse_duration(optarg, &a->status_interval))
			return gf_cli_usage(cli, "--status-interval: %s", gf_last_error());
		if (!(a->status_interval >= 0.1))
			return gf_cli_usage(cli, "--status-interval: '%s' is under 0.1 s", optarg);
		return 0;
	case OPT_NVML:
	case OPT_PCI_LOCALITY:
		return -1;	/* common: they shape the model */
	}
	return -1;
}

static int cmd_bench_io(int argc, char **argv)
{
	static const struct option longopts[] = {
		GF_COMMON_LONGOPTS,
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "bs", required_argument, NULL, OPT_BS },
		{ "qd", required_argument, NULL, OPT_QD },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "direct", no_argument, NULL, OPT_DIRECT },
		{ "warm", no_argument, NULL, OPT_WARM },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "sqpoll", no_argument, NULL, OPT_SQPOLL },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "modes", required_argument, NULL, OPT_MODES },
		{ "engines", required_argument, NULL, OPT_ENGINES },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "numa-node", required_argument, NULL, OPT_NUMA },
		{ "status-interval", required_argument, NULL, OPT_STATUS_INTERVAL },
		{ NULL, 0, NULL, 0 },
	};
	struct args a = { .rq = GF_BENCH_IO_REQUEST_INIT, .numa_node = -1 };
	struct gf_bench_plan plan;
	struct gf_bench_io_opts bo;
	struct gf_bench_point *pts;
	struct gf_bench_result *res = NULL;
	struct gf_bench_io *b = NULL;
	struct gf_bench_target target;
	struct progress prog;
	bool failed = false, progress;
	unsigned n, done = 0;
	struct gf_cli cli;
	int ret, rc = 0;

	gf_cli_init(&cli, "bench io");
	if ((ret = gf_cli_parse(&cli, argc, argv, longopts, help, bench_opt, &a)) >= 0)
		return ret;
	if (optind != argc - 1)
		return gf_cli_usage(&cli, optind >= argc ? "missing PATH" : "expected one PATH, got more");
	a.rq.path = argv[optind];
	if (gf_bench_io_plan(&a.rq, &plan))
		return gf_cli_usage(&cli, "%s", gf_last_error());
	pts = plan.points;
	n = plan.n;
	if (plan.reads_only && !cli.quiet)
		fprintf(stderr, "gpufeed bench io: %s exists: reads only (--force to include writes)\n", a.rq.path);
	bo = plan.opts;
	bo.numa_node = a.numa_node;
	bo.root = cli.topo.root;
	bo.pci_locality = cli.topo.pci_locality;
	bo.cancel = &interrupted;
	{
		struct sigaction sa = { .sa_handler = on_signal };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		/* A reader that goes away must not kill us before the file we
		 * made is removed: a closed stdout is a write error (EPIPE). */
		sa.sa_handler = SIG_IGN;
		sigaction(SIGPIPE, &sa, NULL);
	}
	res = calloc(n, sizeof(*res));
	if (!res) {
		gf_bench_plan_free(&plan);
		return gf_cli_fail(&cli, -ENOMEM);
	}
	progress = !cli.quiet && isatty(STDERR_FILENO);
	prog = (struct progress){ .pts = pts, .n = n, .tty = progress, .t0 = now_s(),
				  .status_interval = cli.quiet ? 0 : a.status_interval };
	prog.last_status = prog.t0;
	if (progress || prog.status_interval) {
		bo.progress = on_progress;
		bo.progress_ctx = &prog;
	}
	if (progress)
		fprintf(stderr, "gpufeed bench io: preparing %s\n", bo.path);
	rc = gf_bench_io_open(&bo, &b);
	if (rc) {
		gf_bench_plan_free(&plan);
		free(res);
		return gf_cli_fail(&cli, interrupted ? -ECANCELED : rc);
	}
	for (unsigned i = 0; i < n; i++) {
		if (gf_bench_io_check(b, &pts[i])) {
			/* Asked for something this target cannot do: a usage
			 * error, before anything runs. */
			ret = gf_cli_usage(&cli, "%s", gf_last_error());
			gf_bench_io_close(b);
			gf_bench_plan_free(&plan);
			free(res);
			return ret;
		}
	}
	for (unsigned i = 0; i < n && !rc; i++) {
		prog.i = i;
		rc = gf_bench_io_run(b, &pts[i], &res[i]);
		if (!rc) {
			done++;
			if (res[i].status)
				failed = true;
		}
	}
	if (progress)
		fprintf(stderr, "\n");
	if (rc) {
		/* Cancelled: the file we made goes; what ran is not printed. */
		bool created = gf_bench_io_target(b)->created;
		int rm = gf_bench_io_remove(b);

		if (rm)
			fprintf(stderr, "gpufeed bench io: %s\n", gf_last_error());
		else if (created)
			fprintf(stderr, "gpufeed bench io: interrupted; removed %s\n", bo.path);
		gf_bench_io_close(b);
		gf_bench_plan_free(&plan);
		free(res);
		return gf_cli_fail(&cli, rc);
	}
	/* The file we made goes before any output: nothing the output does
	 * (a full disk, a closed pipe) can leave it behind. */
	target = *gf_bench_io_target(b);
	if (gf_bench_io_remove(b)) {
		fprintf(stderr, "gpufeed bench io: %s\n", gf_last_error());
		failed = true;
	}
	gf_bench_io_close(b);
	if (a.rq.single && res[0].status)
		fprintf(stderr, "gpufeed bench io: %s\n", res[0].error);
	errno = 0;
	if (cli.json)
		rc = gf_bench_io_write_json(&target, res, done, a.rq.single, stdout);
	else
		rc = gf_bench_io_print(&target, res, done, stdout);
	if (fflush(stdout) || ferror(stdout) || rc) {
		fprintf(stderr, "gpufeed bench io: writing the results: %s\n", strerror(errno ? errno : EIO));
		failed = true;
	}
	gf_bench_plan_free(&plan);
	free(res);
	return failed ? GF_EXIT_INPUT : GF_EXIT_OK;
}

static const char bench_help[] =
	"Usage: gpufeed bench WHAT [OPTIONS]\n"
	"\n"
	"  io PATH     storage through the I/O engine (gpufeed bench io --help)\n"
	"\n"
	GF_EXIT_CODES_HELP;

int gf_cmd_bench(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "io"))
		return cmd_bench_io(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("gpufeed %s\n", gf_version());
		return fflush(stdout) ? GF_EXIT_INPUT : GF_EXIT_OK;
	}
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(bench_help, stdout);
		return fflush(stdout) ? GF_EXIT_INPUT : GF_EXIT_OK;
	}
	fprintf(stderr, "gpufeed bench: %s\n%s", argc < 2 ? "what to measure? (io)" : "unknown benchmark",
		bench_help);
	return GF_EXIT_USAGE;
}
