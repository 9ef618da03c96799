/* gpufeed bench mem: idle latency and bandwidth between NUMA nodes.  The
 * command parses; the measuring, the checks and the output are the
 * library's (gpufeed/bench_mem.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/bench_mem.h>
#include <gpufeed/error.h>
#include <gpufeed/parse.h>
#include "cli.h"

static int opt_size(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct gf_bench_mem_opts *o = ctx;

	if (gf_parse_size(arg, &o->size))
		return gf_cli_usage(cli, "--size: %s", gf_last_error());
	if (o->size < GF_BENCH_MEM_SIZE_MIN || o->size > GF_BENCH_MEM_SIZE_MAX)
		return gf_cli_usage(cli, "--size: '%s' is not from 1M to 1T", arg);
	return 0;
}

static int opt_threads(struct gf_cli *cli, void *ctx, const char *arg)
{
	return gf_cli_count_opt(cli, "threads", arg, GF_BENCH_MEM_THREADS_MAX, &((struct gf_bench_mem_opts *)ctx)->threads);
}

static int opt_repeats(struct gf_cli *cli, void *ctx, const char *arg)
{
	return gf_cli_count_opt(cli, "repeats", arg, GF_BENCH_MEM_REPEATS_MAX, &((struct gf_bench_mem_opts *)ctx)->repeats);
}

static int cmd_bench_mem(int argc, char **argv);

static const struct gf_opt bench_mem_opts[] = {
	GF_OPT_BOOL(0, "quick", struct gf_bench_mem_opts, quick,
		    "64 MiB buffers (or 4x the L3), 3 short samples per\n"
		    "figure (seconds on a small machine)"),
	GF_OPT_STRING(0, "nodes", "LIST", struct gf_bench_mem_opts, nodes,
		      "the NUMA nodes measured, as CPU and as memory nodes:\n"
		      "0,1 or 0-3 (default: all)"),
	GF_OPT_CALLBACK(0, "size", "SIZE", opt_size,
			"bytes of each buffer (default 256M or 4x the\n"
			"largest L3, --quick 64M or 4x the L3; under 2x\n"
			"the L3 draws a warning)"),
	GF_OPT_CALLBACK(0, "threads", "N", opt_threads,
			"bandwidth threads per CPU node, pinned round robin\n"
			"(default: one per allowed CPU of the node)"),
	GF_OPT_CALLBACK(0, "repeats", "N", opt_repeats, "samples per figure after a warm-up (default 5,\n--quick 3)"),
	GF_OPT_BOOL(0, "nt", struct gf_bench_mem_opts, nt, "non-temporal stores in write and copy (x86-64)"),
	GF_OPT_COMMON("json", "matrices, every sample, median and spread, the\n"
		      "topology (schema gpufeed-bench-mem/1)"),
	GF_OPT_COMMON("output", NULL),
	GF_OPT_COMMON("quiet", "no progress lines on stderr"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_bench_mem_def = {
	.name = "bench mem",
	.args = "[OPTIONS]",
	.summary = "memory latency and bandwidth between NUMA nodes, like Intel MLC",
	.description =
		"Measures this machine's memory between every pair of NUMA nodes, as Intel\n"
		"MLC's latency and bandwidth matrices do: a thread on the CPUs of node i,\n"
		"memory bound to node j (MPOL_BIND, the pages' node checked with\n"
		"move_pages).  Idle latency is ns per dependent load of a pointer chain in\n"
		"random order; read, write and copy bandwidth are GB/s (1e9 bytes/s) with a\n"
		"thread per CPU of node i; copy counts bytes read + bytes written, as STREAM\n"
		"does.  Each figure is the median of --repeats samples; --json has them all.\n"
		"\n"
		"A single-node machine gets a 1x1 matrix.  Figures past a physical limit\n"
		"(over 1 TB/s) and pages found on another node are findings (exit 1);\n"
		"latencies under 30 ns or over 1 us are warnings.\n",
	.opts = bench_mem_opts,
	.exits = { "", "pages not on the node asked for, a figure past a physical\n"
		   "limit, or a failed measurement",
		   "", "the machine model cannot be read; writing the output failed; Ctrl-C",
		   "--nodes names a node this machine lacks or this process may\n"
		   "not use; --nt on a CPU without non-temporal stores" },
	.footer = "How it measures and its JSON: docs/bench-mem.md, docs/json-bench-mem.md.\n",
	.run = cmd_bench_mem,
};

static int cmd_bench_mem(int argc, char **argv)
{
	struct gf_bench_mem_opts o = GF_BENCH_MEM_OPTS_INIT;
	struct gf_bench_mem *m = NULL;
	struct gf_cli cli;
	unsigned findings;
	int ret, rc;

	gf_cli_init(&cli, "bench mem");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_bench_mem_def, argc, argv, &o)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	if (gf_bench_mem_check(&o))
		return gf_cli_usage(&cli, "%s", gf_last_error());
	gf_cli_bench_start(&cli, &o.cancel, &o.progress, &o.progress_tty);
	if ((rc = gf_bench_mem_run(&o, &m)))
		return gf_cli_fail(&cli, rc);
	errno = 0;
	rc = cli.json ? gf_bench_mem_write_json(m, stdout) : gf_bench_mem_print(m, stdout);
	findings = gf_bench_mem_findings(m);
	gf_bench_mem_free(m);
	return gf_cli_bench_finish("bench mem", rc, findings);
}
