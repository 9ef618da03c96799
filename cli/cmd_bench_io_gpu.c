/* gpufeed bench io --gpu G FILE: storage to GPU memory by each transfer
 * path, beside the disk's O_DIRECT rate and the pinned host-to-device
 * rate.  `bench io` hands its arguments here when --gpu is among them; the
 * command parses, the library measures (gpufeed/bench_io_gpu.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/bench_io_gpu.h>
#include <gpufeed/error.h>
#include <gpufeed/parse.h>
#include "cli.h"

/* A number 0..1023 (an NVML index, a node): -1 with a usage message. */
static int index_opt(struct gf_cli *cli, const char *name, const char *what, const char *arg, int *v)
{
	uint64_t n;

	if (gf_parse_count(arg, 0, 1023, &n))
		return gf_cli_usage(cli, "--%s: '%s' is not %s", name, arg, what);
	*v = (int)n;
	return 0;
}

static int opt_gpu(struct gf_cli *cli, void *ctx, const char *arg)
{
	int v = 0, rc = index_opt(cli, "gpu", "an NVML index", arg, &v);

	((struct gf_bench_io_gpu_opts *)ctx)->gpu = (unsigned)v;
	return rc;
}

static int size_opt(struct gf_cli *cli, const char *name, const char *arg, uint64_t *v)
{
	if (gf_parse_size(arg, v) || !*v)
		return gf_cli_usage(cli, "--%s: '%s' is not a size (4K, 8M, 1G)", name, arg);
	return 0;
}

static int opt_size(struct gf_cli *cli, void *ctx, const char *arg)
{
	return size_opt(cli, "size", arg, &((struct gf_bench_io_gpu_opts *)ctx)->size);
}

static int opt_chunk(struct gf_cli *cli, void *ctx, const char *arg)
{
	uint64_t v;
	int rc = size_opt(cli, "chunk", arg, &v);

	((struct gf_bench_io_gpu_opts *)ctx)->chunk = (size_t)v;
	return rc;
}

static int opt_depth(struct gf_cli *cli, void *ctx, const char *arg)
{
	return gf_cli_count_opt(cli, "depth", arg, 3, &((struct gf_bench_io_gpu_opts *)ctx)->depth);
}

static int opt_reads(struct gf_cli *cli, void *ctx, const char *arg)
{
	return gf_cli_count_opt(cli, "reads", arg, 16, &((struct gf_bench_io_gpu_opts *)ctx)->reads);
}

static int opt_repeats(struct gf_cli *cli, void *ctx, const char *arg)
{
	return gf_cli_count_opt(cli, "repeats", arg, GF_BENCH_IO_GPU_REPEATS_MAX,
				&((struct gf_bench_io_gpu_opts *)ctx)->repeats);
}

static int opt_node(struct gf_cli *cli, void *ctx, const char *arg)
{
	return index_opt(cli, "numa-node", "a node number", arg, &((struct gf_bench_io_gpu_opts *)ctx)->numa_node);
}

static int cmd_bench_io_gpu(int argc, char **argv);

static const struct gf_opt bench_io_gpu_opts[] = {
	GF_OPT_CALLBACK(0, "gpu", "G", opt_gpu, "the GPU, by NVML index (this option selects the mode)"),
	GF_OPT_STRING(0, "path", "LIST", struct gf_bench_io_gpu_opts, paths,
		      "transfer paths: bounce,gds,naive (default all)"),
	GF_OPT_CALLBACK(0, "size", "SIZE", opt_size,
			"bytes of a file we create (default 1G, --quick 256M);\n"
			"of an existing file, read at most this many"),
	GF_OPT_CALLBACK(0, "chunk", "SIZE", opt_chunk, "staging buffer and cuFile request size (default 8M)"),
	GF_OPT_CALLBACK(0, "depth", "N", opt_depth, "staging buffers: 1, 2 (default) or 3"),
	GF_OPT_CALLBACK(0, "reads", "N", opt_reads, "O_DIRECT reads in flight per chunk (default 4)"),
	GF_OPT_CALLBACK(0, "numa-node", "N", opt_node, "staging memory's node (default: the GPU's)"),
	GF_OPT_CALLBACK(0, "repeats", "N", opt_repeats, "samples per figure, each cold (default 3, --quick 1)"),
	GF_OPT_BOOL(0, "quick", struct gf_bench_io_gpu_opts, quick, "256 MiB file, 1 sample"),
	GF_OPT_COMMON("json", "every sample, median and spread, CPU s/GB\n(schema gpufeed-bench-io-gpu/1)"),
	GF_OPT_COMMON("output", NULL),
	GF_OPT_COMMON("quiet", "no progress lines on stderr"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_bench_io_gpu_def = {
	.name = "bench io --gpu",
	.args = "G [OPTIONS] FILE",
	.summary = "storage to GPU memory: bounce, GPUDirect Storage, naive",
	.description =
		"Moves FILE (created, filled and removed when absent) to GPU memory by each\n"
		"transfer path of gpufeed's xfer library and reports GB/s and CPU seconds per\n"
		"GB: bounce (io_uring O_DIRECT into pinned staging, pipelined copies), gds\n"
		"(cuFile; compatibility mode without nvidia-fs, labelled) and naive (read()\n"
		"into pageable memory, then a copy).  Beside them, measured in the same run:\n"
		"the disk's O_DIRECT sequential read rate and the pinned host-to-device copy\n"
		"rate; each path's ratio to the slower of the two.  Every sample is cold (the\n"
		"file's cached pages are dropped first); the first and last 64 MiB on the GPU\n"
		"are compared with the file after each path's first sample.\n",
	.opts = bench_io_gpu_opts,
	.exits = { "", "a failed path or byte check, or a path faster than the\n"
		   "disk's O_DIRECT rate (a cache served it)",
		   "", "FILE cannot be read or created; writing the output failed; Ctrl-C",
		   "no CUDA driver (libcuda.so.1) or NVML, or no GPU G" },
	.footer = "How it measures and its JSON: docs/bench-io-gpu.md; the library: docs/xfer.md.\n",
	.run = cmd_bench_io_gpu,
};

static int cmd_bench_io_gpu(int argc, char **argv)
{
	struct gf_bench_io_gpu_opts o = GF_BENCH_IO_GPU_OPTS_INIT;
	struct gf_bench_io_gpu *b = NULL;
	struct gf_cli cli;
	unsigned findings;
	int ret, rc;

	gf_cli_init(&cli, "bench io --gpu");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_bench_io_gpu_def, argc, argv, &o)) >= 0 ||
	    (ret = gf_cli_one_operand(&cli, argc, argv, "FILE", &o.file)) >= 0)
		return ret;
	if (gf_bench_io_gpu_check(&o))
		return gf_cli_usage(&cli, "%s", gf_last_error());
	gf_cli_bench_start(&cli, &o.cancel, &o.progress, &o.progress_tty);
	if ((rc = gf_bench_io_gpu_run(&o, &b)))
		return gf_cli_fail(&cli, rc);
	errno = 0;
	rc = cli.json ? gf_bench_io_gpu_write_json(b, stdout) : gf_bench_io_gpu_print(b, stdout);
	findings = gf_bench_io_gpu_findings(b);
	gf_bench_io_gpu_free(b);
	return gf_cli_bench_finish("bench io --gpu", rc, findings);
}

/* `bench io` with --gpu anywhere among its arguments is this command. */
int gf_cmd_bench_io_gpu(int argc, char **argv)
{
	return cmd_bench_io_gpu(argc, argv);
}

bool gf_cli_wants_gpu(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--gpu") || !strncmp(argv[i], "--gpu=", 6))
			return true;
	return false;
}
