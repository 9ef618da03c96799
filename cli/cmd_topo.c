/* gpufeed topo: the machine model. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

enum { WHAT_ALL, WHAT_MATRIX, WHAT_GPU, WHAT_NEAREST_NIC, WHAT_SVG, WHAT_DOT };

/* What to show: everything, or one thing. */
struct topo_what {
	int what;			/* WHAT_* */
	const char *gpu;		/* G of --gpu / --nearest-nic */
	const char *picture;		/* FILE of --svg / --dot */
	bool strict;			/* --strict: findings are exit 1 */
};

static int set_what(struct gf_cli *cli, struct topo_what *w, int what, const char *gpu)
{
	if (w->what != WHAT_ALL && w->what != what)
		return gf_cli_usage(cli, "--matrix, --gpu, --nearest-nic, --svg and --dot ask one thing each: give one");
	w->what = what;
	w->gpu = gpu;
	return 0;
}

static int opt_matrix(struct gf_cli *cli, void *ctx, const char *arg)
{
	(void)arg;
	return set_what(cli, ctx, WHAT_MATRIX, NULL);
}

static int opt_gpu(struct gf_cli *cli, void *ctx, const char *arg)
{
	return set_what(cli, ctx, WHAT_GPU, arg);
}

static int opt_nearest_nic(struct gf_cli *cli, void *ctx, const char *arg)
{
	return set_what(cli, ctx, WHAT_NEAREST_NIC, arg);
}

/* --svg FILE and --dot FILE write FILE as -o FILE does (atomically, never
 * over what is not a regular file); "-" is standard output. */
static int set_picture(struct gf_cli *cli, struct topo_what *w, int what, const char *file)
{
	int ret = set_what(cli, w, what, NULL);

	if (ret)
		return ret;
	if (strcmp(file, "-")) {
		if (cli->output)
			return gf_cli_usage(cli, "-o %s and --%s %s name two outputs: give one", cli->output,
					    what == WHAT_SVG ? "svg" : "dot", file);
		cli->output = file;
		cli->output_opt = what == WHAT_SVG ? "--svg" : "--dot";
	}
	w->picture = file;
	return 0;
}

static int opt_svg(struct gf_cli *cli, void *ctx, const char *arg)
{
	return set_picture(cli, ctx, WHAT_SVG, arg);
}

static int opt_dot(struct gf_cli *cli, void *ctx, const char *arg)
{
	return set_picture(cli, ctx, WHAT_DOT, arg);
}

static const struct gf_opt topo_opts[] = {
	GF_OPT_CALLBACK(0, "matrix", NULL, opt_matrix, "the matrix alone, as 'nvidia-smi topo -m' prints it"),
	GF_OPT_CALLBACK(0, "gpu", "G", opt_gpu,
			"one GPU: its row of the matrix and every path that\n"
			"feeds it (G: NVML index, UUID or its prefix, or PCI\n"
			"address)"),
	GF_OPT_CALLBACK(0, "nearest-nic", "G", opt_nearest_nic,
			"the RDMA device nearest to GPU G, e.g. mlx5_0, for\n"
			"NCCL_IB_HCA; exit 4 when the machine has none up"),
	GF_OPT_CALLBACK(0, "svg", "FILE", opt_svg,
			"the machine as a picture, in SVG, to FILE ('-':\n"
			"standard output): packages, NUMA nodes, the PCIe tree,\n"
			"GPUs, NICs, drives, NVLink; links coloured by rate,\n"
			"findings pinned (docs/picture.md)"),
	GF_OPT_CALLBACK(0, "dot", "FILE", opt_dot,
			"the same picture as a graphviz graph (DOT) to FILE\n"
			"('-': standard output), for 'dot -Tsvg'"),
	GF_OPT_BOOL(0, "strict", struct topo_what, strict,
		    "exit 1 when findings of severity warning or error\n"
		    "are made"),
	GF_OPTS_MODEL,
	GF_OPTS_OUTPUT,
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_topo_def = {
	.name = "topo",
	.args = "[OPTIONS]",
	.summary = "the machine model: link matrix, GPUs, NICs, disks, path bandwidth",
	.description =
		"The machine model: the link matrix of GPUs and RDMA NICs in the vocabulary\n"
		"of 'nvidia-smi topo -m' (X, NV#, PIX, PXB, PHB, NODE, SYS) with CPU and\n"
		"NUMA affinity, other NICs and NVMe drives, the GPUs (NVML index, PCI, UUID,\n"
		"CUDA ordinal, /dev/nvidiaN minor, NUMA node and local CPUs with the source\n"
		"of each), NICs, block devices, and the theoretical bandwidth of every path\n"
		"that feeds a GPU with its narrowest link.  Reads /sys and /proc, and NVML\n"
		"when present; or a recording with --root.\n",
	.opts = topo_opts,
	.exits = { "", "with --strict, when findings of severity warning or error are made", "", "",
		   "--nvml=require without NVML or DIR/nvml.json; --gpu or --nearest-nic\n"
		   "on a host without a GPU; --nearest-nic when no RDMA NIC is up" },
	.footer = "JSON schema: docs/json-topo.md (\"schema\": \"" GF_TOPO_SCHEMA "\"; --matrix, --gpu and\n"
		  "--nearest-nic write " GF_TOPO_MATRIX_SCHEMA ", " GF_TOPO_GPU_SCHEMA " and\n"
		  GF_TOPO_NEAREST_NIC_SCHEMA ").\n",
	.run = gf_cmd_topo,
};

static int show(const struct gf_cli *cli, const struct gf_topo *t, const struct topo_what *w, int gpu)
{
	switch (w->what) {
	case WHAT_MATRIX:
		return cli->json ? gf_topo_write_matrix_json(t, stdout) : gf_topo_print_matrix(t, stdout);
	case WHAT_GPU:
		return cli->json ? gf_topo_write_gpu_json(t, gpu, stdout) : gf_topo_print_gpu(t, gpu, stdout);
	case WHAT_SVG:
		return gf_topo_write_svg(t, stdout);
	case WHAT_DOT:
		return gf_topo_write_dot(t, stdout);
	case WHAT_NEAREST_NIC:
		return cli->json ? gf_topo_write_nearest_nic_json(t, gpu, stdout) :
				   gf_topo_print_nearest_nic(t, gpu, stdout);
	default:
		return cli->json ? gf_topo_write_json(t, stdout) :
				   gf_topo_print(t, stdout, (cli->color ? GF_PRINT_COLOR : 0) | gf_cli_text_width(cli));
	}
}

int gf_cmd_topo(int argc, char **argv)
{
	struct topo_what what = { WHAT_ALL, NULL, NULL, false };
	struct gf_topo *t = NULL;
	struct gf_cli cli;
	int ret, gpu = -1;

	gf_cli_init(&cli, "topo");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_topo_def, argc, argv, &what)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	/* -o after --svg FILE replaced FILE: two outputs named. */
	if (what.picture && strcmp(what.picture, "-") && cli.output != what.picture)
		return gf_cli_usage(&cli, "-o %s and --%s %s name two outputs: give one", cli.output,
				    what.what == WHAT_SVG ? "svg" : "dot", what.picture);
	if (what.picture && cli.json)
		return gf_cli_usage(&cli, "--%s draws the model and --json writes it: give one",
				    what.what == WHAT_SVG ? "svg" : "dot");
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
	return gf_cli_model_done(&cli, t, show(&cli, t, &what, gpu), what.strict);
}
