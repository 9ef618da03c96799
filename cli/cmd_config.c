/* gpufeed config kubelet|slurm|nccl-topo|labels: node-level configuration
 * written from the machine model (include/gpufeed/emit.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gpufeed/emit.h>
#include "cli.h"

struct args {
	struct gf_emit_options o;
};

typedef int writer_fn(const struct gf_topo *t, const struct gf_emit_options *o, FILE *f);

static int count_opt(struct gf_cli *cli, const char *name, const char *arg, uint64_t lo, int *v)
{
	uint64_t n;

	if (gf_parse_count(arg, lo, 4096, &n))
		return gf_cli_usage(cli, "--%s: %s", name, gf_last_error());
	*v = (int)n;
	return 0;
}

static int opt_reserve(struct gf_cli *cli, void *ctx, const char *arg)
{
	return count_opt(cli, "reserve", arg, 0, &((struct args *)ctx)->o.reserve_cores);
}

static int opt_max_gpus(struct gf_cli *cli, void *ctx, const char *arg)
{
	return count_opt(cli, "max-gpus-per-pod", arg, 1, &((struct args *)ctx)->o.max_gpus_per_pod);
}

static int opt_format(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct args *a = ctx;

	if (!strcmp(arg, "text"))
		a->o.label_format = GF_EMIT_LABELS_TEXT;
	else if (!strcmp(arg, "yaml"))
		a->o.label_format = GF_EMIT_LABELS_YAML;
	else
		return gf_cli_usage(cli, "--format: '%s' is not text or yaml", arg);
	return 0;
}

/* Every subcommand: parse, read the model, write. */
static int run_config(const struct gf_cmd *def, writer_fn *write, int argc, char **argv)
{
	struct args a = { .o = GF_EMIT_OPTS_INIT };
	struct gf_topo *t = NULL;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, def->name);
	if ((ret = gf_cli_parse(&cli, def, argc, argv, &a)) >= 0 || (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	if ((ret = gf_cli_discover(&cli, &t)))
		return ret;
	ret = write(t, &a.o, stdout);
	if (ret == -EINVAL) {
		gf_topo_free(t);
		return gf_cli_usage(&cli, "%s", gf_last_error());
	}
	return gf_cli_model_done(&cli, t, ret, false);
}

#define CONFIG_OPTS_TAIL \
	GF_OPTS_MODEL, GF_OPT_COMMON("output", NULL), GF_OPT_COMMON("quiet", NULL), GF_OPTS_STANDARD, GF_OPT_END()

#define CONFIG_EXITS(unavailable) { "", NULL, "", "", unavailable }

/* kubelet ------------------------------------------------------------------ */

static int cmd_kubelet(int argc, char **argv);

static const struct gf_opt kubelet_opts[] = {
	GF_OPT_STRING_CHOICE(0, "policy", "P", struct args, o.tm_policy, "none|best-effort|restricted|single-numa-node",
		      "topologyManagerPolicy: none, best-effort, restricted,\n"
		      "single-numa-node (default: chosen, the reason in a\ncomment)"),
	GF_OPT_STRING_CHOICE(0, "scope", "S", struct args, o.tm_scope, "container|pod", "topologyManagerScope: container (default) or pod"),
	GF_OPT_CALLBACK(0, "reserve", "N", opt_reserve,
			"whole cores for reservedSystemCPUs (default 2, at\n"
			"least 1: the static CPU manager needs one)"),
	GF_OPT_CALLBACK(0, "max-gpus-per-pod", "N", opt_max_gpus,
			"the most GPUs one pod asks for; 1 allows\n"
			"single-numa-node on a machine of several NUMA nodes"),
	GF_OPT_BOOL(0, "memory-manager", struct args, o.memory_manager,
		    "write memoryManagerPolicy Static with reservedMemory"),
	CONFIG_OPTS_TAIL,
};

const struct gf_cmd gf_cmd_config_kubelet_def = {
	.name = "config kubelet",
	.args = "[OPTIONS]",
	.summary = "a KubeletConfiguration fragment: CPU and Topology Manager, reserved CPUs",
	.description =
		"Writes a KubeletConfiguration fragment (kubelet.config.k8s.io/v1beta1) for this\n"
		"machine or a recording: the static CPU Manager (full-pcpus-only with SMT), the\n"
		"Topology Manager policy and scope with the reason for the choice in a comment,\n"
		"reservedSystemCPUs as whole cores away from the GPUs' local CPUs, and memory\n"
		"reservations.  Every line that is a choice says why.\n",
	.opts = kubelet_opts,
	.exits = CONFIG_EXITS("the machine has no core left for pods after --reserve;\n"
			      "--memory-manager where the NUMA nodes' meminfo does not\n"
			      "account the machine's memory (MemTotal)"),
	.footer = "What each setting means and how it is chosen: docs/config.md.\n",
	.run = cmd_kubelet,
};

static int cmd_kubelet(int argc, char **argv)
{
	return run_config(&gf_cmd_config_kubelet_def, gf_emit_kubelet, argc, argv);
}

/* slurm -------------------------------------------------------------------- */

static int cmd_slurm(int argc, char **argv);

static const struct gf_opt slurm_opts[] = {
	GF_OPT_STRING_CHOICE(0, "autodetect", "MODE", struct args, o.autodetect, "off|nvml|nvidia",
		      "the AutoDetect= line: off (default: these lines are the\n"
		      "configuration), nvml or nvidia (they are its sanity\ncheck)"),
	GF_OPT_STRING(0, "type", "NAME", struct args, o.gpu_type,
		      "Type= of every GPU (default: from its name, e.g. h100)"),
	CONFIG_OPTS_TAIL,
};

const struct gf_cmd gf_cmd_config_slurm_def = {
	.name = "config slurm",
	.args = "[OPTIONS]",
	.summary = "a Slurm gres.conf with Cores= and Links=",
	.description =
		"Writes a Slurm gres.conf: one Name=gpu line per GPU with its device file, the\n"
		"cores local to it (Cores=, Slurm's abstract core ids) and its NVLinks to every\n"
		"other GPU (Links=), and slurm.conf's NodeName line as a comment.\n",
	.opts = slurm_opts,
	.exits = CONFIG_EXITS("the model has no NVIDIA GPU"),
	.footer = "What each field means: docs/config.md.\n",
	.run = cmd_slurm,
};

static int cmd_slurm(int argc, char **argv)
{
	return run_config(&gf_cmd_config_slurm_def, gf_emit_slurm, argc, argv);
}

/* nccl-topo ---------------------------------------------------------------- */

static int cmd_nccl_topo(int argc, char **argv);

static const struct gf_opt nccl_opts[] = {
	GF_OPT_BOOL(0, "skeleton", struct args, o.skeleton,
		    "only the <cpu> and <pci> tree: NCCL detects the GPUs,\n"
		    "their NVLinks and the NICs itself"),
	CONFIG_OPTS_TAIL,
};

const struct gf_cmd gf_cmd_config_nccl_topo_def = {
	.name = "config nccl-topo",
	.args = "[OPTIONS]",
	.summary = "an NCCL topology file (NCCL_TOPO_FILE) from the model",
	.description =
		"Writes an NCCL topology XML for NCCL_TOPO_FILE: a <cpu> per NUMA node with its\n"
		"CPU mask, the PCIe switches above each GPU and RDMA NIC as NCCL would build them\n"
		"from sysfs, and the GPUs with their NVLinks (NVSwitch included).  Made from a\n"
		"recording of the host (--root), it gives a VM that hides the topology the real\n"
		"tree; --pci-locality fixes a GPU's NUMA node where the model cannot see it.\n",
	.opts = nccl_opts,
	.exits = CONFIG_EXITS("the model has no NVIDIA GPU"),
	.footer = "The attributes and where NCCL reads them: docs/config.md.\n",
	.run = cmd_nccl_topo,
};

static int cmd_nccl_topo(int argc, char **argv)
{
	return run_config(&gf_cmd_config_nccl_topo_def, gf_emit_nccl_topo, argc, argv);
}

/* labels ------------------------------------------------------------------- */

static int cmd_labels(int argc, char **argv);

static const struct gf_opt labels_opts[] = {
	GF_OPT_CALLBACK_CHOICE(0, "format", "F", opt_format, "text|yaml",
			"text: key=value lines (default); yaml: an NFD\nNodeFeature object"),
	GF_OPT_STRING(0, "node", "NAME", struct args, o.node_name,
		      "the node's name in the NodeFeature, an RFC 1123\n"
		      "subdomain (default: the short host name, lower-cased)"),
	CONFIG_OPTS_TAIL,
};

const struct gf_cmd gf_cmd_config_labels_def = {
	.name = "config labels",
	.args = "[OPTIONS]",
	.summary = "node labels: GPU Feature Discovery's and the topology's",
	.description =
		"Writes node labels: nvidia.com/... as GPU Feature Discovery names them (count,\n"
		"product, memory, family, compute capability, driver and CUDA versions) and\n"
		"gpufeed.io/... for the topology (NUMA nodes, GPUs per node, NVSwitch, NVLink,\n"
		"RDMA NICs).  Values are valid label values (63 characters of [A-Za-z0-9._-]).\n",
	.opts = labels_opts,
	.exits = CONFIG_EXITS("the model has no NVIDIA GPU"),
	.footer = "Each label: docs/config.md.\n",
	.run = cmd_labels,
};

static int cmd_labels(int argc, char **argv)
{
	return run_config(&gf_cmd_config_labels_def, gf_emit_labels, argc, argv);
}

/* config ------------------------------------------------------------------- */

static const struct gf_cmd *const config_subs[] = {
	&gf_cmd_config_kubelet_def, &gf_cmd_config_slurm_def, &gf_cmd_config_nccl_topo_def,
	&gf_cmd_config_labels_def, NULL,
};

static const struct gf_opt config_opts[] = {
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_config_def = {
	.name = "config",
	.args = "WHAT [OPTIONS]",
	.summary = "node configuration from the model: kubelet, Slurm, NCCL, labels",
	.description = "Writes node-level configuration from the machine model; 'gpufeed config WHAT\n"
		       "--help' for each of kubelet, slurm, nccl-topo and labels.\n",
	.opts = config_opts,
	.exits = { "", NULL, "", "", "" },
	.run = gf_cmd_config,
	.subs = config_subs,
};

int gf_cmd_config(int argc, char **argv)
{
	return gf_cli_dispatch(&gf_cmd_config_def, argc, argv);
}
