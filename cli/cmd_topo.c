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
	GF_COMMON_OPTIONS_HELP
	"\n"
	GF_EXIT_CODES_HELP
	"\n"
	"JSON schema: docs/json-topo.md (\"schema\": \"" GF_TOPO_SCHEMA "\").\n";

int gf_cmd_topo(int argc, char **argv)
{
	static const struct option longopts[] = { GF_COMMON_LONGOPTS, { NULL, 0, NULL, 0 } };
	struct gf_topo *t = NULL;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "topo");
	if ((ret = gf_cli_parse(&cli, argc, argv, longopts, help, NULL, NULL)) >= 0)
		return ret;
	if (optind < argc)
		return gf_cli_usage(&cli, "unexpected argument '%s'", argv[optind]);
	if ((ret = gf_cli_discover(&cli, &t)))
		return ret;
	ret = cli.json ? gf_topo_write_json(t, stdout) : gf_topo_print(t, stdout, cli.color ? GF_PRINT_COLOR : 0);
	gf_topo_free(t);
	if (ret || fflush(stdout))
		return gf_cli_fail(&cli, ret ? ret : -EIO);
	return GF_EXIT_OK;
}
