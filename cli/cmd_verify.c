/* gpufeed verify: does a running process really sit next to its GPUs? */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct verify_args {
	struct gf_verify_options o;
	bool self;
	const char *gpu;
	const char *model;
};

static int opt_max_off_node(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct verify_args *a = ctx;
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || v < 0 || v > 100)
		return gf_cli_usage(cli, "--max-off-node: '%s' is not a percentage (0 to 100)", arg);
	a->o.max_off_node_pct = v;
	return 0;
}

static const struct gf_opt verify_opts[] = {
	GF_OPT_BOOL(0, "self", struct verify_args, self,
		    "verify this process (gpufeed itself): run it under\n"
		    "the binding to check, e.g. 'gpufeed run --gpu 0 --\n"
		    "gpufeed verify --self'"),
	GF_OPT_STRING_CHOICE(0, "gpu", "LIST", struct verify_args, gpu, GF_VALUES_GPUS,
		      "compare with these GPUs (NVML index, UUID or\n"
		      "prefix, PCI address, MIG UUID; comma-separated)\n"
		      "instead of the ones the process has open or its\n"
		      "CUDA_VISIBLE_DEVICES names"),
	GF_OPT_STRING(0, "model", "DIR", struct verify_args, model,
		      "take the model from the recording DIR and read the\n"
		      "process live from /proc (or from --root)"),
	GF_OPT_CALLBACK(0, "max-off-node", "PCT", opt_max_off_node,
			"warn when more than PCT percent of the process's\n"
			"private pages are off the GPUs' nodes (default 10;\n"
			"above 50 is an error)"),
	GF_OPT_COMMON("root", "read the process (DIR/proc/PID) and the model\n"
			      "from DIR, a test tree or a recording"),
	GF_OPT_COMMON("nvml", NULL),
	GF_OPT_COMMON("pci-locality", NULL),
	GF_OPTS_OUTPUT,
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_verify_def = {
	.name = "verify",
	.args = "[OPTIONS] PID|--self",
	.summary = "check that a running process's threads and memory are next to its GPUs",
	.description =
		"Reads what a running process really has, from /proc/PID: the CPUs and memory\n"
		"nodes it may use (Cpus_allowed_list, Mems_allowed_list), the CPU each thread\n"
		"last ran on, its resident pages per NUMA node and its memory policy\n"
		"(numa_maps, like 'numastat -p'), the GPUs it has open (/dev/nvidiaN and MIG\n"
		"capabilities) and its CUDA_VISIBLE_DEVICES.  Compares them with the GPUs' NUMA\n"
		"nodes and local CPUs from the model, and reports each mismatch: allowed CPUs\n"
		"or threads away from the GPUs, pages on another node, a memory policy that\n"
		"names another node, a GPU open but not visible, GPUs split over nodes.\n"
		"\n"
		"The GPUs compared with are the ones named by --gpu, else the ones the process\n"
		"has open, else the ones its CUDA_VISIBLE_DEVICES names (as it was at exec).\n"
		"On a machine with one NUMA node everything is local and said so.  Reading\n"
		"another user's process needs root, and the kernel may refuse even root (a\n"
		"process of another user namespace, one that is not dumpable, a security\n"
		"module): the message says which.  A kernel thread or a zombie has nothing\n"
		"to verify.  --root DIR reads both the process and the model from DIR;\n"
		"--model DIR takes the model from DIR and the process from this machine.\n",
	.opts = verify_opts,
	.exits = { "all local: every thread and page is next to the GPUs (or one NUMA node)",
		   "a finding of severity warning or error: a mismatch", "",
		   "no such process, a kernel thread or a zombie, its files unreadable\n"
		   "(another user's: needs root; the message says what refused them), a\n"
		   "malformed /proc file",
		   "no GPU known for the process: none open, none in CUDA_VISIBLE_DEVICES,\n"
		   "no --gpu (the report is still printed)" },
	.footer = "Findings: docs/verify.md.  JSON schema: docs/json-verify.md (\"schema\":\n"
		  "\"" GF_VERIFY_SCHEMA "\").\n",
	.run = gf_cmd_verify,
};

/* PID, or --self: exactly one of them. */
static int target(struct gf_cli *cli, const struct verify_args *a, int argc, char **argv, int *pid)
{
	const char *arg;
	char *end;
	long v;
	int ret;

	*pid = 0;
	if (a->self)
		return optind < argc ? gf_cli_usage(cli, "--self or a PID, not both") : -1;
	if ((ret = gf_cli_one_operand(cli, argc, argv, "PID (or --self)", &arg)) >= 0)
		return ret;
	v = strtol(arg, &end, 10);
	if (*end || v <= 0 || v > 0x3fffffff)
		return gf_cli_usage(cli, "'%s' is not a process id", arg);
	*pid = (int)v;
	return -1;
}

static int finish(struct gf_cli *cli, struct gf_verify *v)
{
	int ret = cli->json ? gf_verify_write_json(v, stdout)
			    : gf_verify_print(v, stdout, cli->color ? GF_VERIFY_PRINT_COLOR : 0);

	if (!ret && fflush(stdout))
		ret = -EIO;
	if (ret) {
		gf_verify_free(v);
		return gf_cli_fail(cli, ret);
	}
	if (!cli->quiet)
		for (int i = 0; i < v->topo->nwarnings; i++)
			fprintf(stderr, "gpufeed verify: warning: %s\n", v->topo->warnings[i]);
	ret = gf_verify_finding_count(v, GF_SEV_WARN) ? GF_EXIT_FINDINGS
	      : gf_verify_no_gpu(v)		      ? GF_EXIT_UNAVAILABLE
						      : GF_EXIT_OK;
	gf_verify_free(v);
	return ret;
}

int gf_cmd_verify(int argc, char **argv)
{
	struct verify_args a = { .o = GF_VERIFY_OPTS_INIT };
	struct gf_verify *v = NULL;
	struct gf_cli cli;
	int ret, pid;

	gf_cli_init(&cli, "verify");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_verify_def, argc, argv, &a)) >= 0 ||
	    (ret = target(&cli, &a, argc, argv, &pid)) >= 0)
		return ret;
	a.o.proc_root = cli.topo.root;
	if (a.model)
		cli.topo.root = a.model;
	a.o.machine = &cli.topo;
	a.o.gpus = a.gpu;
	if ((ret = gf_verify_run(&a.o, pid, &v)))
		return ret == -EDOM ? gf_cli_usage(&cli, "%s", gf_last_error()) : gf_cli_fail(&cli, ret);
	return finish(&cli, v);
}
