/* gpufeed bench h2d: copy-engine bandwidth between host memory and GPUs.
 * The command parses; the measuring, the checks and the output are the
 * library's (gpufeed/bench_h2d.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/bench_h2d.h>
#include <gpufeed/error.h>
#include <gpufeed/parse.h>
#include "cli.h"

static int opt_repeats(struct gf_cli *cli, void *ctx, const char *arg)
{
	return gf_cli_count_opt(cli, "repeats", arg, GF_BENCH_H2D_REPEATS_MAX, &((struct gf_bench_h2d_opts *)ctx)->repeats);
}

static int opt_loops(struct gf_cli *cli, void *ctx, const char *arg)
{
	return gf_cli_count_opt(cli, "loops", arg, GF_BENCH_H2D_LOOPS_MAX, &((struct gf_bench_h2d_opts *)ctx)->loops);
}

static int cmd_bench_h2d(int argc, char **argv);

static const struct gf_opt bench_h2d_opts[] = {
	GF_OPT_BOOL(0, "quick", struct gf_bench_h2d_opts, quick, "64 MiB buffers, 3 samples per figure"),
	GF_OPT_STRING(0, "gpu", "LIST", struct gf_bench_h2d_opts, gpus,
		      "the GPUs measured, by NVML index: 0,1 or 0-3\n(default: all)"),
	GF_OPT_STRING(0, "numa-node", "LIST", struct gf_bench_h2d_opts, nodes,
		      "host memory on these NUMA nodes: 0,1, 0-3 or all\n"
		      "(default: each GPU's own node, as nvbandwidth)"),
	GF_OPT_STRING(0, "size", "SIZE", struct gf_bench_h2d_opts, sizes,
		      "bytes of each copy (default 512M, nvbandwidth's;\n--quick 64M)"),
	GF_OPT_STRING(0, "sizes", "LIST", struct gf_bench_h2d_opts, sizes, "a size sweep: 4M,64M,512M"),
	GF_OPT_BOOL(0, "pageable", struct gf_bench_h2d_opts, pageable,
		    "pageable host memory (malloc-like, bound to the\nnode) beside pinned"),
	GF_OPT_BOOL(0, "all-at-once", struct gf_bench_h2d_opts, all_at_once,
		    "also each GPU while every other GPU copies the\nsame way (nvbandwidth's host_to_all, all_to_host)"),
	GF_OPT_STRING(0, "direction", "LIST", struct gf_bench_h2d_opts, directions,
		      "only these figures, as nvbandwidth's -t: host_to_device,\n"
		      "device_to_host, bidirectional_host_to_device,\n"
		      "bidirectional_device_to_host, host_to_all, all_to_host,\n"
		      "bidirectional_host_to_all, bidirectional_all_to_host\n"
		      "(default: the first four; all eight with --all-at-once)"),
	GF_OPT_CALLBACK(0, "repeats", "N", opt_repeats, "samples per figure after a warm-up (default 5,\n--quick 3)"),
	GF_OPT_CALLBACK(0, "loops", "N", opt_loops, "copies timed per sample (default 16, nvbandwidth's)"),
	GF_OPT_COMMON("json", "every sample, median and spread, the limit\n"
		      "(schema gpufeed-bench-h2d/1)"),
	GF_OPT_COMMON("output", NULL),
	GF_OPT_COMMON("quiet", "no progress lines on stderr"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_bench_h2d_def = {
	.name = "bench h2d",
	.args = "[OPTIONS]",
	.summary = "host <-> GPU copy bandwidth per NUMA node, like nvbandwidth's CE tests",
	.description =
		"Measures copy-engine bandwidth between host memory and each GPU: host to\n"
		"device, device to host, and each of those while the other direction runs\n"
		"at once (bidirectional, reported per direction as nvbandwidth does).  Host\n"
		"memory is bound to a NUMA node and, pinned, registered with the driver\n"
		"(cuMemHostRegister); --pageable adds plain pageable memory.  A sample is\n"
		"--loops cuMemcpyAsync calls queued behind a spin kernel and timed with CUDA\n"
		"events, as nvbandwidth's *_memcpy_ce testcases; GB/s is 1e9 bytes/s, bytes\n"
		"counted once.  Each figure is shown beside its path's theoretical\n"
		"bandwidth from the machine model and as a percentage of it; the bytes of\n"
		"one copy of every point are checked.\n",
	.opts = bench_h2d_opts,
	.exits = { "", "a figure above its path's limit (a measurement error), a\n"
		   "failed measurement or a byte check that failed",
		   "", "the machine model cannot be read; writing the output failed; Ctrl-C",
		   "no CUDA driver (libcuda.so.1) or NVML, no GPU, or --gpu or\n"
		   "--numa-node names one this machine lacks" },
	.footer = "How it measures and its JSON: docs/bench-h2d.md, docs/json-bench-h2d.md.\n",
	.run = cmd_bench_h2d,
};

static int cmd_bench_h2d(int argc, char **argv)
{
	struct gf_bench_h2d_opts o = GF_BENCH_H2D_OPTS_INIT;
	struct gf_bench_h2d *h = NULL;
	struct gf_cli cli;
	unsigned findings;
	int ret, rc;

	gf_cli_init(&cli, "bench h2d");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_bench_h2d_def, argc, argv, &o)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	if (gf_bench_h2d_check(&o))
		return gf_cli_usage(&cli, "%s", gf_last_error());
	gf_cli_bench_start(&cli, &o.cancel, &o.progress, &o.progress_tty);
	if ((rc = gf_bench_h2d_run(&o, &h)))
		return gf_cli_fail(&cli, rc);
	errno = 0;
	rc = cli.json ? gf_bench_h2d_write_json(h, stdout) : gf_bench_h2d_print(h, stdout);
	findings = gf_bench_h2d_findings(h);
	gf_bench_h2d_free(h);
	return gf_cli_bench_finish("bench h2d", rc, findings);
}
