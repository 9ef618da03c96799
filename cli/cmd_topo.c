/* gpufeed topo: the machine model. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static const char help[] =
	"Usage: gpufeed topo [OPTIONS]\n"
	"\n"
	"The machine model: the link matrix of GPUs, NICs and NVMe drives in the\n"
	"vocabulary of 'nvidia-smi topo -m' (X, NV#, PIX, PXB, PHB, NODE, SYS) with\n"
	"CPU and NUMA affinity, the GPUs (NVML index, PCI, UUID, CUDA ordinal,\n"
	"/dev/nvidiaN minor, NUMA node and local CPUs with the source of each),\n"
	"NICs, block devices, and the theoretical bandwidth of every path that\n"
	"feeds a GPU with its narrowest link.  Reads /sys and /proc, and NVML when\n"
	"present; or a recording with --root.\n"
	"\n"
	"Options:\n"
	"      --matrix          the matrix alone, as 'nvidia-smi topo -m' prints it\n"
	"      --gpu G           one GPU: its row of the matrix and every path that feeds it\n"
	"                        (G: NVML index, UUID or its prefix, or PCI address)\n"
	"      --nearest-nic G   the RDMA device nearest to GPU G, e.g. mlx5_0, for\n"
	"                        NCCL_IB_HCA; exit 4 when the machine has none up\n"
	"      --strict          exit 1 when findings of severity warning or error are made\n"
	GF_COMMON_OPTIONS_HELP
	"\n"
	GF_EXIT_CODES_HELP
	"\n"
	"JSON schema: docs/json-topo.md (\"schema\": \"" GF_TOPO_SCHEMA "\"; --matrix, --gpu and\n"
	"--nearest-nic write " GF_TOPO_MATRIX_SCHEMA ", " GF_TOPO_GPU_SCHEMA " and\n"
	GF_TOPO_NEAREST_NIC_SCHEMA ").\n";

enum { OPT_MATRIX = 1100, OPT_GPU, OPT_NEAREST_NIC };

/* What to show: everything, or one thing. */
struct topo_what {
	int opt;			/* 0, OPT_MATRIX, OPT_GPU or OPT_NEAREST_NIC */
	const char *gpu;		/* G of --gpu / --nearest-nic */
	bool strict;			/* --strict: findings are exit 1 */
};

static int topo_opt(struct gf_cli *cli, int opt, void *ctx)
{
	struct topo_what *w = ctx;

	if (opt == OPT_STRICT) {
		w->strict = true;
		return 0;
	}
	if (opt != OPT_MATRIX && opt != OPT_GPU && opt != OPT_NEAREST_NIC)
		return -1;
	if (w->opt && w->opt != opt)
		return gf_cli_usage(cli, "--matrix, --gpu and --nearest-nic ask one thing each: give one");
	w->opt = opt;
	w->gpu = opt == OPT_MATRIX ? NULL : optarg;
	return 0;
}

static int show(const struct gf_cli *cli, const struct gf_topo *t, const struct topo_what *w, int gpu)
{
	switch (w->opt) {
	case OPT_MATRIX:
		return cli->json ? gf_topo_write_matrix_json(t, stdout) : gf_topo_print_matrix(t, stdout);
	case OPT_GPU:
		return cli->json ? gf_topo_write_gpu_json(t, gpu, stdout) : gf_topo_print_gpu(t, gpu, stdout);
	case OPT_NEAREST_NIC:
		return cli->json ? gf_topo_write_nearest_nic_json(t, gpu, stdout) :
				   gf_topo_print_nearest_nic(t, gpu, stdout);
	default:
		return cli->json ? gf_topo_write_json(t, stdout) :
				   gf_topo_print(t, stdout, cli->color ? GF_PRINT_COLOR : 0);
	}
}

int gf_cmd_topo(int argc, char **argv)
{
	static const struct option longopts[] = {
		GF_COMMON_LONGOPTS,
		{ "matrix", no_argument, NULL, OPT_MATRIX },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "nearest-nic", required_argument, NULL, OPT_NEAREST_NIC },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ NULL, 0, NULL, 0 },
	};
	struct topo_what what = { 0, NULL, false };
	struct gf_topo *t = NULL;
	struct gf_cli cli;
	int ret, gpu = -1, serious;

	gf_cli_init(&cli, "topo");
	if ((ret = gf_cli_parse(&cli, argc, argv, longopts, help, topo_opt, &what)) >= 0)
		return ret;
	if (optind < argc)
		return gf_cli_usage(&cli, "unexpected argument '%s'", argv[optind]);
	if ((ret = gf_cli_discover(&cli, &t)))
		return ret;
	if (what.gpu && !t->ngpus) {
		gf_topo_free(t);
		fprintf(stderr, "gpufeed topo: no NVIDIA GPU here: nothing to ask about GPU %s\n", what.gpu);
		return GF_EXIT_UNAVAILABLE;
	}
	if (what.gpu && (gpu = gf_topo_find_gpu(t, what.gpu)) < 0) {
		gf_topo_free(t);
		return gf_cli_usage(&cli, "%s", gf_last_error());
	}
	ret = show(&cli, t, &what, gpu);
	serious = gf_topo_finding_count(t, GF_SEV_WARN);
	gf_topo_free(t);
	if (ret || fflush(stdout))
		return gf_cli_fail(&cli, ret ? ret : -EIO);
	return what.strict && serious ? GF_EXIT_FINDINGS : GF_EXIT_OK;
}
