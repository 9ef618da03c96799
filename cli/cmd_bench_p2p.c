/* gpufeed bench p2p: the GPU x GPU bandwidth and latency matrices.  The
 * command parses; the measuring, the checks and the output are the
 * library's (gpufeed/bench_p2p.h). */
#include <errno.h>
#include <stdio.h>

#include <gpufeed/bench_p2p.h>
#include <gpufeed/error.h>
#include "cli.h"

static int opt_repeats(struct gf_cli *cli, void *ctx, const char *arg)
{
	return gf_cli_count_opt(cli, "repeats", arg, GF_BENCH_P2P_REPEATS_MAX, &((struct gf_bench_p2p_opts *)ctx)->repeats);
}

static int opt_loops(struct gf_cli *cli, void *ctx, const char *arg)
{
	return gf_cli_count_opt(cli, "loops", arg, GF_BENCH_P2P_LOOPS_MAX, &((struct gf_bench_p2p_opts *)ctx)->loops);
}

static int cmd_bench_p2p(int argc, char **argv);

static const struct gf_opt bench_p2p_opts[] = {
	GF_OPT_BOOL(0, "quick", struct gf_bench_p2p_opts, quick,
		    "64 MiB buffers, 3 samples per figure, 100k loads\nper latency sample"),
	GF_OPT_STRING(0, "gpu", "LIST", struct gf_bench_p2p_opts, gpus,
		      "the GPUs measured, by NVML index: 0,1 or 0-3\n(default: all)"),
	GF_OPT_STRING(0, "test", "LIST", struct gf_bench_p2p_opts, tests,
		      "read, write, bidir-read, bidir-write, local,\nlatency or all (default: all)"),
	GF_OPT_STRING(0, "copy", "LIST", struct gf_bench_p2p_opts, copies,
		      "ce (copy engine), sm (copy kernel) or both\n(default: ce,sm)"),
	GF_OPT_STRING(0, "size", "SIZE", struct gf_bench_p2p_opts, sizes,
		      "bytes of each copy (default 512M, nvbandwidth's;\n--quick 64M)"),
	GF_OPT_STRING(0, "sizes", "LIST", struct gf_bench_p2p_opts, sizes, "a size sweep: 4M,64M,512M"),
	GF_OPT_CALLBACK(0, "repeats", "N", opt_repeats, "samples per figure after a warm-up (default 5,\n--quick 3)"),
	GF_OPT_CALLBACK(0, "loops", "N", opt_loops, "copies timed per sample (default 16, nvbandwidth's)"),
	GF_OPT_COMMON("json", "every sample, median and spread, the limit\n"
		      "(schema gpufeed-bench-p2p/1)"),
	GF_OPT_COMMON("output", NULL),
	GF_OPT_COMMON("quiet", "no progress lines on stderr"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_bench_p2p_def = {
	.name = "bench p2p",
	.args = "[OPTIONS]",
	.summary = "GPU x GPU copy bandwidth and latency, like nvbandwidth's d2d tests",
	.description =
		"Measures copies between every pair of GPUs with peer access: read (the\n"
		"destination GPU pulls), write (the source GPU pushes), each alone and\n"
		"while the reverse copy runs at once (bidirectional), by copy engine\n"
		"(cuMemcpyPeerAsync) and by SM copy kernel; each GPU's local copy (the\n"
		"diagonal, nvbandwidth's device_local_copy); and the latency of one\n"
		"thread's dependent loads from a peer's memory.  A sample is --loops copies\n"
		"queued behind a spin kernel and timed with CUDA events, as nvbandwidth's\n"
		"device_to_device_* testcases; GB/s is 1e9 bytes/s, bytes counted once.\n"
		"Each figure is shown beside its path's theoretical bandwidth from the\n"
		"machine model (NVLink or PCIe) and as a percentage of it; the bytes of\n"
		"one sample of every point are checked.  A pair without peer access is\n"
		"reported as n/a, not measured.  On one GPU only the diagonal runs.\n",
	.opts = bench_p2p_opts,
	.exits = { "", "a figure above its path's limit (a measurement error), a\n"
		   "failed measurement or a byte check that failed",
		   "", "the machine model cannot be read; writing the output failed; Ctrl-C",
		   "no CUDA driver (libcuda.so.1) or NVML, no GPU, or --gpu\n"
		   "names one this machine lacks" },
	.footer = "How it measures and its JSON: docs/bench-p2p.md, docs/json-bench-p2p.md.\n",
	.run = cmd_bench_p2p,
};

static int cmd_bench_p2p(int argc, char **argv)
{
	struct gf_bench_p2p_opts o = GF_BENCH_P2P_OPTS_INIT;
	struct gf_bench_p2p *p = NULL;
	struct gf_cli cli;
	unsigned findings;
	int ret, rc;

	gf_cli_init(&cli, "bench p2p");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_bench_p2p_def, argc, argv, &o)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	if (gf_bench_p2p_check(&o))
		return gf_cli_usage(&cli, "%s", gf_last_error());
	gf_cli_bench_start(&cli, &o.cancel, &o.progress, &o.progress_tty);
	if ((rc = gf_bench_p2p_run(&o, &p)))
		return gf_cli_fail(&cli, rc);
	errno = 0;
	rc = cli.json ? gf_bench_p2p_write_json(p, stdout) : gf_bench_p2p_print(p, stdout);
	findings = gf_bench_p2p_findings(p);
	gf_bench_p2p_free(p);
	return gf_cli_bench_finish("bench p2p", rc, findings);
}
