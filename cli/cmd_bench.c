/* gpufeed bench io PATH: storage through the I/O engine, a sweep or one
 * fio-style point.  The command parses; the plan, the runs (on the shared
 * bench runner), the file's removal and the output are the library's
 * (gpufeed/bench.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <gpufeed/bench.h>
#include "cli.h"

struct args {
	struct gf_bench_io_request rq;
	int numa_node;
	double status_interval;		/* seconds, 0: none */
};

static int count_arg(struct gf_cli *cli, const char *name, const char *arg, uint64_t lo, uint64_t hi,
		     unsigned *v)
{
	uint64_t n;

	if (gf_parse_count(arg, lo, hi, &n))
		return gf_cli_usage(cli, "--%s: %s", name, gf_last_error());
	*v = (unsigned)n;
	return 0;
}

/* argv to the request; what the values mean together is the library's
 * (gf_bench_io_plan). */
static int opt_mode(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct gf_bench_io_request *rq = &((struct args *)ctx)->rq;

	rq->single = true;
	if (gf_bench_mode_parse(arg, &rq->mode))
		return gf_cli_usage(cli, "--mode: %s", gf_last_error());
	return 0;
}

static int opt_qd(struct gf_cli *cli, void *ctx, const char *arg)
{
	return count_arg(cli, "qd", arg, 1, GF_BENCH_QD_MAX, &((struct args *)ctx)->rq.qd);
}

static int opt_threads(struct gf_cli *cli, void *ctx, const char *arg)
{
	return count_arg(cli, "threads", arg, 1, GF_BENCH_THREADS_MAX, &((struct args *)ctx)->rq.threads);
}

static int opt_engine(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct gf_bench_io_request *rq = &((struct args *)ctx)->rq;

	if (!strcmp(arg, "uring"))
		rq->engine = GF_IO_URING;
	else if (!strcmp(arg, "psync"))
		rq->engine = GF_IO_PSYNC;
	else
		return gf_cli_usage(cli, "--engine: '%s' is not uring or psync", arg);
	return 0;
}

static int opt_duration(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct gf_bench_io_request *rq = &((struct args *)ctx)->rq;

	if (gf_parse_duration(arg, &rq->duration_s))
		return gf_cli_usage(cli, "--duration: %s", gf_last_error());
	if (!(rq->duration_s > 0 && rq->duration_s <= 86400))
		return gf_cli_usage(cli, "--duration: '%s' is not in (0, 24h]", arg);
	return 0;
}

static int opt_size(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct gf_bench_io_request *rq = &((struct args *)ctx)->rq;

	if (gf_parse_size(arg, &rq->size))
		return gf_cli_usage(cli, "--size: %s", gf_last_error());
	if (!rq->size)
		return gf_cli_usage(cli, "--size: must be > 0");
	return 0;
}

static int opt_numa_node(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct args *a = ctx;
	unsigned n = 0;

	if (!strcmp(arg, "none")) {
		a->numa_node = -2;
		return 0;
	}
	if (!strcmp(arg, "auto")) {
		a->numa_node = -1;
		return 0;
	}
	if (count_arg(cli, "numa-node", arg, 0, 1023, &n))
		return GF_EXIT_USAGE;
	a->numa_node = (int)n;
	return 0;
}

static int opt_repeats(struct gf_cli *cli, void *ctx, const char *arg)
{
	return gf_cli_count_opt(cli, "repeats", arg, GF_BENCH_IO_REPEATS_MAX, &((struct args *)ctx)->rq.repeats);
}

static int opt_status_interval(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct args *a = ctx;

	if (gf_parse_duration(arg, &a->status_interval))
		return gf_cli_usage(cli, "--status-interval: %s", gf_last_error());
	if (!(a->status_interval >= 0.1))
		return gf_cli_usage(cli, "--status-interval: '%s' is under 0.1 s", arg);
	return 0;
}

static int cmd_bench_io(int argc, char **argv);

static const struct gf_opt bench_io_opts[] = {
	GF_OPT_CALLBACK(0, "mode", "M", opt_mode, "one point: seqread, randread, seqwrite, randwrite"),
	GF_OPT_STRING(0, "bs", "SIZE", struct args, rq.bs,
		      "block size (4K .. 1G; default 1M sequential, 4K random);\n"
		      "in a sweep a list: --bs 4K,64K,1M"),
	GF_OPT_CALLBACK(0, "qd", "N", opt_qd, "requests in flight per thread (default 32; psync: 1)"),
	GF_OPT_CALLBACK(0, "threads", "N", opt_threads, "submitting threads, each with its own engine (default 1)"),
	GF_OPT_BOOL(0, "direct", struct args, rq.direct, "O_DIRECT (page cache bypassed); else buffered"),
	GF_OPT_BOOL(0, "warm", struct args, rq.warm,
		    "buffered reads from a warm page cache (default: cold,\n"
		    "the file's cached pages dropped first)"),
	GF_OPT_CALLBACK(0, "engine", "E", opt_engine, "uring (default) or psync (pread/pwrite threads)"),
	GF_OPT_BOOL(0, "sqpoll", struct args, rq.sqpoll, "io_uring submission by a kernel thread (burns a core)"),
	GF_OPT_CALLBACK(0, "duration", "D", opt_duration,
			"per point: 10s, 500ms, 1m, or plain seconds (default\n"
			"10 for --mode, 1 in a sweep, 0.25 with --quick)"),
	GF_OPT_CALLBACK(0, "repeats", "N", opt_repeats,
			"runs of each point (default 1); its GB/s is their\n"
			"median, every run is in the JSON"),
	GF_OPT_BOOL(0, "quick", struct args, rq.quick, "a short sweep (under a minute on 2 cores)"),
	GF_OPT_STRING(0, "modes", "LIST", struct args, rq.modes, "sweep: modes to run (default all four)"),
	GF_OPT_STRING(0, "engines", "LIST", struct args, rq.engines,
		      "sweep: psync:N (N threads) and uring:N (depth N),\n"
		      "default psync:1,psync:4,uring:1,uring:8,uring:32"),
	GF_OPT_STRING(0, "cache", "LIST", struct args, rq.cache, "sweep: direct,cold,warm (default all)"),
	GF_OPT_CALLBACK(0, "size", "SIZE", opt_size, "size of a file we create (default 1G, --quick 256M)"),
	GF_OPT_BOOL(0, "force", struct args, rq.force,
		    "allow writing over an existing file or block device\n"
		    "(never one that is mounted)"),
	GF_OPT_CALLBACK(0, "numa-node", "N", opt_numa_node,
			"place buffers and threads on node N; 'none'; 'auto'\n"
			"(default: the drive's node)"),
	GF_OPT_CALLBACK(0, "status-interval", "D", opt_status_interval,
			"when stderr is not a terminal, a status line (point,\n"
			"elapsed, ETA, current GB/s) this often: 10s, 500ms, 1m"),
	GF_OPT_COMMON("root", "take the machine model (the drive's node) from a\n"
		      "recording; the I/O still runs here"),
	GF_OPT_COMMON("pci-locality", NULL),
	GF_OPT_COMMON("json", "results with raw samples (schema gpufeed-bench-io/3)"),
	GF_OPT_COMMON("output", NULL),
	GF_OPT_COMMON("quiet", "no progress or status lines on stderr"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_bench_io_def = {
	.name = "bench io",
	.args = "[OPTIONS] PATH",
	.summary = "storage through gpufeed's I/O engine: GB/s, IOPS, latency, CPU",
	.description =
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
		"With --gpu G, storage to GPU G's memory instead, by each transfer path\n"
		"(bounce, gds, naive): 'gpufeed bench io --gpu 0 --help' for its options.\n",
	.opts = bench_io_opts,
	.exits = { "", NULL, "also a point the target cannot take, e.g. an O_DIRECT block size",
		   "a point failed, e.g. an I/O error (the others still run); Ctrl-C;\n"
		   "a write to an existing file without --force, or to a mounted block device",
		   "--numa-node names a node this machine lacks" },
	.footer = "How it measures and its JSON: docs/bench-io.md.\n",
	.run = cmd_bench_io,
};

static int cmd_bench_io(int argc, char **argv)
{
	struct args a = { .rq = GF_BENCH_IO_REQUEST_INIT, .numa_node = -1 };
	struct gf_bench_io_results *res = NULL;
	struct gf_bench_plan plan;
	struct gf_bench_io_opts bo;
	struct sigaction sa = { .sa_handler = SIG_IGN };
	struct gf_cli cli;
	bool failed;
	int ret, rc;

	if (gf_cli_wants_gpu(argc, argv))
		return gf_cmd_bench_io_gpu(argc, argv);
	gf_cli_init(&cli, "bench io");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_bench_io_def, argc, argv, &a)) >= 0 ||
	    (ret = gf_cli_one_operand(&cli, argc, argv, "PATH", NULL)) >= 0)
		return ret;
	a.rq.path = argv[optind];
	if (gf_bench_io_plan(&a.rq, &plan))
		return gf_cli_usage(&cli, "%s", gf_last_error());
	bo = plan.opts;
	bo.numa_node = a.numa_node;
	bo.root = cli.topo.root;
	bo.pci_locality = cli.topo.pci_locality;
	bo.status_interval_s = a.status_interval;
	gf_cli_bench_start(&cli, &bo.cancel, &bo.progress_stream, &bo.progress_tty);
	/* A reader that goes away must not kill us before the file we made
	 * is removed: a closed stdout is a write error (EPIPE). */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	rc = gf_bench_io_run_plan(&plan, &bo, &res);
	gf_bench_plan_free(&plan);
	if (rc == -EDOM)	/* a point this target cannot take */
		return gf_cli_usage(&cli, "%s", gf_last_error());
	if (!res)
		return gf_cli_fail(&cli, rc);
	/* Also when interrupted: the points that ran, the others marked. */
	if (*gf_bench_io_results_problem(res))
		fprintf(stderr, "gpufeed bench io: %s\n", gf_bench_io_results_problem(res));
	errno = 0;
	rc = cli.json ? gf_bench_io_results_write_json(res, stdout) : gf_bench_io_results_print(res, stdout);
	failed = gf_bench_io_results_failed(res);
	gf_bench_io_results_free(res);
	ret = gf_cli_bench_finish("bench io", rc, 0);
	return ret ? ret : failed ? GF_EXIT_INPUT : GF_EXIT_OK;
}

static const struct gf_cmd *const bench_subs[] = { &gf_cmd_bench_io_def, &gf_cmd_bench_mem_def, &gf_cmd_bench_h2d_def, &gf_cmd_bench_p2p_def, NULL };

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
