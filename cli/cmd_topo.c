/* gpufeed topo: the machine model. */
#include <errno.h>
#include <stdio.h>

#include "cli.h"

static const struct gf_opt topo_opts[] = {
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
		"The machine model: the link matrix of GPUs, NICs and NVMe drives in the\n"
		"vocabulary of 'nvidia-smi topo -m' (X, NV#, PIX, PXB, PHB, NODE, SYS) with\n"
		"CPU and NUMA affinity, the GPUs (NVML index, PCI, UUID, CUDA ordinal,\n"
		"/dev/nvidiaN minor, NUMA node and local CPUs with the source of each),\n"
		"NICs, block devices, and the theoretical bandwidth of every path that\n"
		"feeds a GPU with its narrowest link.  Reads /sys and /proc, and NVML when\n"
		"present; or a recording with --root.\n",
	.opts = topo_opts,
	.exits = { "", NULL, "", "", "--nvml=require without NVML or DIR/nvml.json" },
	.footer = "JSON schema: docs/json-topo.md (\"schema\": \"" GF_TOPO_SCHEMA "\").\n",
	.run = gf_cmd_topo,
};

int gf_cmd_topo(int argc, char **argv)
{
	struct gf_topo *t = NULL;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "topo");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_topo_def, argc, argv, NULL)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	if ((ret = gf_cli_discover(&cli, &t)))
		return ret;
	ret = cli.json ? gf_topo_write_json(t, stdout) : gf_topo_print(t, stdout, cli.color ? GF_PRINT_COLOR : 0);
	gf_topo_free(t);
	if (ret || fflush(stdout))
		return gf_cli_fail(&cli, ret ? ret : -EIO);
	return GF_EXIT_OK;
}
