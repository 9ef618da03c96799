/* gpufeed bench io PATH: storage through the I/O engine, a sweep or one
 * fio-style point. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/bench.h>
#include "cli.h"

struct args {
	bool single, direct, warm, sqpoll, quick, force;
	enum gf_bench_mode mode;
	const char *bs, *modes, *engines, *cache;
	long qd, threads;
	enum gf_io_backend engine;
	double duration;
	uint64_t size;
	int numa_node;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int parse_long(struct gf_cli *cli, const char *name, const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (end == s || *end || errno || *v < lo || *v > hi)
		return gf_cli_usage(cli, "--%s: '%s' is not a whole number in %ld..%ld", name, s, lo, hi);
	return 0;
}

static int opt_mode(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct args *a = ctx;

	a->single = true;
	if (gf_bench_mode_parse(arg, &a->mode))
		return gf_cli_usage(cli, "--mode: %s", gf_last_error());
	return 0;
}

static int opt_qd(struct gf_cli *cli, void *ctx, const char *arg)
{
	return parse_long(cli, "qd", arg, 1, 4096, &((struct args *)ctx)->qd);
}

static int opt_threads(struct gf_cli *cli, void *ctx, const char *arg)
{
	return parse_long(cli, "threads", arg, 1, 256, &((struct args *)ctx)->threads);
}

static int opt_engine(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct args *a = ctx;

	if (!strcmp(arg, "uring"))
		a->engine = GF_IO_URING;
	else if (!strcmp(arg, "psync"))
		a->engine = GF_IO_PSYNC;
	else
		return gf_cli_usage(cli, "--engine: '%s' is not uring or psync", arg);
	return 0;
}

static int opt_duration(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct args *a = ctx;
	char *end;

	errno = 0;
	a->duration = strtod(arg, &end);
	if (end == arg || *end || errno || !(a->duration > 0 && a->duration <= 86400))
		return gf_cli_usage(cli, "--duration: '%s' is not a number of seconds in (0, 86400]", arg);
	return 0;
}

static int opt_size(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct args *a = ctx;

	if (gf_parse_size(arg, &a->size) || !a->size)
		return gf_cli_usage(cli, "--size: %s", a->size ? gf_last_error() : "must be > 0");
	return 0;
}

static int opt_numa_node(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct args *a = ctx;
	long n;

	if (!strcmp(arg, "none")) {
		a->numa_node = -2;
		return 0;
	}
	if (!strcmp(arg, "auto")) {
		a->numa_node = -1;
		return 0;
	}
	if (parse_long(cli, "numa-node", arg, 0, 1023, &n))
		return GF_EXIT_USAGE;
	a->numa_node = (int)n;
	return 0;
}

static int cmd_bench_io(int argc, char **argv);

static const struct gf_opt bench_io_opts[] = {
	GF_OPT_CALLBACK(0, "mode", "M", opt_mode, "one point: seqread, randread, seqwrite, randwrite"),
	GF_OPT_STRING(0, "bs", "SIZE", struct args, bs,
		      "block size (4K .. 1G; default 1M sequential, 4K random);\n"
		      "in a sweep a list: --bs 4K,64K,1M"),
	GF_OPT_CALLBACK(0, "qd", "N", opt_qd, "requests in flight per thread (default 32; psync: 1)"),
	GF_OPT_CALLBACK(0, "threads", "N", opt_threads, "submitting threads, each with its own engine (default 1)"),
	GF_OPT_BOOL(0, "direct", struct args, direct, "O_DIRECT (page cache bypassed); else buffered"),
	GF_OPT_BOOL(0, "warm", struct args, warm,
		    "buffered reads from a warm page cache (default: cold,\n"
		    "the file's cached pages dropped first)"),
	GF_OPT_CALLBACK(0, "engine", "E", opt_engine, "uring (default) or psync (pread/pwrite threads)"),
	GF_OPT_BOOL(0, "sqpoll", struct args, sqpoll, "io_uring submission by a kernel thread (burns a core)"),
	GF_OPT_CALLBACK(0, "duration", "S", opt_duration,
			"seconds per point (default 10 for --mode, 1 in a\n"
			"sweep, 0.25 with --quick)"),
	GF_OPT_BOOL(0, "quick", struct args, quick, "a short sweep (under a minute on 2 cores)"),
	GF_OPT_STRING(0, "modes", "LIST", struct args, modes, "sweep: modes to run (default all four)"),
	GF_OPT_STRING(0, "engines", "LIST", struct args, engines,
		      "sweep: psync:N (N threads) and uring:N (depth N),\n"
		      "default psync:1,psync:4,uring:1,uring:8,uring:32"),
	GF_OPT_STRING(0, "cache", "LIST", struct args, cache, "sweep: direct,cold,warm (default all)"),
	GF_OPT_CALLBACK(0, "size", "SIZE", opt_size, "size of a file we create (default 1G, --quick 256M)"),
	GF_OPT_BOOL(0, "force", struct args, force, "allow writing over an existing file or block device"),
	GF_OPT_CALLBACK(0, "numa-node", "N", opt_numa_node,
			"place buffers and threads on node N; 'none'; 'auto'\n"
			"(default: the drive's node)"),
	GF_OPT_COMMON("root", "take the machine model (the drive's node) from a\n"
		      "recording; the I/O still runs here"),
	GF_OPT_COMMON("pci-locality", NULL),
	GF_OPT_COMMON("json", "results with raw samples (schema gpufeed-bench-io/1)"),
	GF_OPT_COMMON("output", NULL),
	GF_OPT_COMMON("quiet", "no progress on stderr"),
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
		"  gpufeed bench io FILE --mode randread --bs 4K --qd 32 --direct --json\n",
	.opts = bench_io_opts,
	.exits = { "", NULL, "",
		   "a point failed, e.g. an I/O error (the others still run); Ctrl-C;\n"
		   "a write to an existing file without --force",
		   "--numa-node names a node this machine lacks" },
	.footer = "How it measures and its JSON: docs/bench-io.md.\n",
	.run = cmd_bench_io,
};

/* Splits a comma list; calls fn on each item.  Returns 0 or an exit code. */
static int each_item(struct gf_cli *cli, const char *list, const char *opt,
		     int (*fn)(struct gf_bench_sweep *s, const char *item), struct gf_bench_sweep *s)
{
	char buf[512], *save = NULL, *tok;

	if (strlen(list) >= sizeof(buf))
		return gf_cli_usage(cli, "--%s: list too long", opt);
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (fn(s, tok))
			return gf_cli_usage(cli, "--%s: %s", opt, gf_last_error());
	return 0;
}

static int add_mode(struct gf_bench_sweep *s, const char *item)
{
	enum gf_bench_mode m;
	int rc = gf_bench_mode_parse(item, &m);

	if (rc)
		return rc;
	if (s->nmodes >= 4)
		return -E2BIG;
	s->modes[s->nmodes++] = m;
	return 0;
}

static int add_bs(struct gf_bench_sweep *s, const char *item)
{
	uint64_t v;
	int rc = gf_parse_size(item, &v);

	if (rc)
		return rc;
	if (v < 512 || v > (1u << 30) || s->nbs >= 16)
		return -ERANGE;
	s->bs[s->nbs++] = (size_t)v;
	return 0;
}

static int add_cache(struct gf_bench_sweep *s, const char *item)
{
	for (unsigned c = 0; c < 3; c++) {
		if (!strcmp(item, gf_bench_cache_name((enum gf_bench_cache)c))) {
			if (s->ncaches >= 3)
				return -E2BIG;
			s->caches[s->ncaches++] = (enum gf_bench_cache)c;
			return 0;
		}
	}
	return -EINVAL;
}

static int add_engine(struct gf_bench_sweep *s, const char *item)
{
	unsigned n;
	char name[8];

	if (sscanf(item, "%7[a-z]:%u", name, &n) != 2 || !n || n > 4096 || s->nengines >= 8)
		return -EINVAL;
	if (!strcmp(name, "uring"))
		s->engines[s->nengines].engine = GF_IO_URING;
	else if (!strcmp(name, "psync") && n <= 256)
		s->engines[s->nengines].engine = GF_IO_PSYNC;
	else
		return -EINVAL;
	s->engines[s->nengines++].n = n;
	return 0;
}

static int build_points(struct gf_cli *cli, struct args *a, struct gf_bench_point **pts, unsigned *n)
{
	struct gf_bench_sweep s;
	int rc;

	if (a->single) {
		struct gf_bench_point *p = calloc(1, sizeof(*p));
		uint64_t bs = (a->mode == GF_BENCH_SEQREAD || a->mode == GF_BENCH_SEQWRITE) ? 1u << 20 : 4096;

		if (!p)
			return gf_cli_fail(cli, -ENOMEM);
		if (a->bs && (gf_parse_size(a->bs, &bs) || bs < 512 || bs > (1u << 30))) {
			free(p);
			return gf_cli_usage(cli, "--bs: '%s' is not a size from 512 to 1G", a->bs);
		}
		if (a->warm && (a->direct || gf_bench_mode_writes(a->mode))) {
			free(p);
			return gf_cli_usage(cli, "--warm applies to buffered reads (no --direct, a read mode)");
		}
		if (a->sqpoll && a->engine != GF_IO_URING) {
			free(p);
			return gf_cli_usage(cli, "--sqpoll needs --engine uring");
		}
		p->mode = a->mode;
		p->bs = (size_t)bs;
		p->engine = a->engine;
		p->qd = a->qd ? (unsigned)a->qd : a->engine == GF_IO_PSYNC ? 1 : 32;
		p->threads = a->threads ? (unsigned)a->threads : 1;
		p->cache = a->direct ? GF_CACHE_DIRECT : a->warm ? GF_CACHE_WARM : GF_CACHE_COLD;
		p->sqpoll = a->sqpoll;
		p->duration_s = a->duration > 0 ? a->duration : 10;
		*pts = p;
		*n = 1;
		return -1;
	}
	if (a->qd || a->threads || a->direct || a->warm || a->sqpoll)
		return gf_cli_usage(cli, "--qd, --threads, --direct, --warm and --sqpoll go with --mode; "
				    "a sweep takes --engines and --cache");
	gf_bench_sweep_default(&s, a->quick);
	if (a->modes) {
		s.nmodes = 0;
		if ((rc = each_item(cli, a->modes, "modes", add_mode, &s)))
			return rc;
	}
	if (a->bs) {
		s.nbs = 0;
		if ((rc = each_item(cli, a->bs, "bs", add_bs, &s)))
			return rc;
	}
	if (a->cache) {
		s.ncaches = 0;
		if ((rc = each_item(cli, a->cache, "cache", add_cache, &s)))
			return rc;
	}
	if (a->engines) {
		s.nengines = 0;
		if ((rc = each_item(cli, a->engines, "engines", add_engine, &s)))
			return rc;
	}
	if (a->duration > 0)
		s.duration_s = a->duration;
	*n = gf_bench_sweep_points(&s, NULL, 0);
	if (!*n)
		return gf_cli_usage(cli, "the sweep is empty");
	*pts = calloc(*n, sizeof(**pts));
	if (!*pts)
		return gf_cli_fail(cli, -ENOMEM);
	gf_bench_sweep_points(&s, *pts, *n);
	return -1;
}

static int cmd_bench_io(int argc, char **argv)
{
	struct args a = { .engine = GF_IO_URING, .numa_node = -1 };
	struct gf_bench_io_opts bo = { 0 };
	struct gf_bench_point *pts = NULL;
	struct gf_bench_result *res = NULL;
	struct gf_bench_io *b = NULL;
	bool failed = false, progress;
	unsigned n = 0, done = 0;
	struct gf_cli cli;
	int ret, rc = 0;

	gf_cli_init(&cli, "bench io");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_bench_io_def, argc, argv, &a)) >= 0 ||
	    (ret = gf_cli_one_operand(&cli, argc, argv, "PATH", NULL)) >= 0)
		return ret;
	if ((ret = build_points(&cli, &a, &pts, &n)) >= 0)
		return ret;

	bo.path = argv[optind];
	if (!a.single && !a.force && access(bo.path, F_OK) == 0) {
		/* An existing file may be someone's data: a sweep reads it only. */
		unsigned k = 0;
		for (unsigned i = 0; i < n; i++)
			if (!gf_bench_mode_writes(pts[i].mode))
				pts[k++] = pts[i];
		if (k < n && !cli.quiet)
			fprintf(stderr, "gpufeed bench io: %s exists: reads only (--force to include writes)\n",
				bo.path);
		n = k;
		if (!n) {
			free(pts);
			return gf_cli_usage(&cli, "%s exists and the sweep only writes: add --force", bo.path);
		}
	}
	bo.size = a.size ? a.size : a.quick ? 256ull << 20 : 1ull << 30;
	bo.force = a.force;
	for (unsigned i = 0; i < n; i++)
		bo.writes |= gf_bench_mode_writes(pts[i].mode);
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
	}
	res = calloc(n, sizeof(*res));
	if (!res) {
		free(pts);
		return gf_cli_fail(&cli, -ENOMEM);
	}
	progress = !cli.quiet && !a.single && isatty(STDERR_FILENO);
	if (progress)
		fprintf(stderr, "gpufeed bench io: preparing %s\n", bo.path);
	rc = gf_bench_io_open(&bo, &b);
	if (rc) {
		free(pts);
		free(res);
		return gf_cli_fail(&cli, interrupted ? -ECANCELED : rc);
	}
	for (unsigned i = 0; i < n && !rc; i++) {
		if (progress)
			fprintf(stderr, "\r[%u/%u] %s %s bs=%zu %s q%u x%u   ", i + 1, n, gf_bench_mode_name(pts[i].mode),
				gf_bench_cache_name(pts[i].cache), pts[i].bs, gf_io_backend_name(pts[i].engine),
				pts[i].qd, pts[i].threads);
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
		const char *path = gf_bench_io_target(b)->created ? bo.path : NULL;
		gf_bench_io_close(b);
		free(pts);
		free(res);
		if (path)
			fprintf(stderr, "gpufeed bench io: interrupted; removed %s\n", path);
		return gf_cli_fail(&cli, rc);
	}
	if (cli.json)
		rc = gf_bench_io_write_json(gf_bench_io_target(b), res, done, a.single, stdout);
	else
		rc = gf_bench_io_print(gf_bench_io_target(b), res, done, stdout);
	gf_bench_io_close(b);
	if (a.single && res[0].status)
		fprintf(stderr, "gpufeed bench io: %s\n", res[0].error);
	free(pts);
	free(res);
	if (rc || fflush(stdout) || ferror(stdout))
		return gf_cli_fail(&cli, -EIO);
	return failed ? GF_EXIT_INPUT : GF_EXIT_OK;
}

static const struct gf_cmd *const bench_subs[] = { &gf_cmd_bench_io_def, NULL };

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
