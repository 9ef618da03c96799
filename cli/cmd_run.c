/* gpufeed run: bind to GPUs' CPUs and memory, set their environment, exec
 * the command. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bind_opts.h"
#include "cli.h"

/* env(1)'s codes for a command that could not be run. */
enum { RUN_EXIT_CANNOT_EXEC = 126, RUN_EXIT_NOT_FOUND = 127 };

struct run_args {
	const char *gpus;
	struct gf_bind_options o;
	struct gf_cpuset reserved;
	bool mem_optional, keep_nccl, dry_run, verbose;
};

static int opt_cpu(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct run_args *a = ctx;

	return gf_cli_cpu_mode_arg(cli, arg, &a->o.cpu);
}

static int opt_mem(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct run_args *a = ctx;

	return gf_cli_mem_policy_arg(cli, arg, &a->o.mem);
}

static int opt_reserve(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct run_args *a = ctx;

	int ret = gf_cli_reserve_arg(cli, arg, &a->reserved);

	if (!ret)
		a->o.reserved = &a->reserved;
	return ret;
}

static const struct gf_opt run_opts[] = {
	GF_OPT_STRING_CHOICE('g', "gpu", "LIST", struct run_args, gpus, GF_VALUES_GPUS,
		      "the GPUs to bind to, comma-separated: NVML\n"
		      "indices, UUIDs (or unique prefixes), PCI\n"
		      "addresses, MIG UUIDs or G:GI:CI MIG triples"),
	GF_OPT_CALLBACK_CHOICE(0, "cpu", "MODE", opt_cpu, "node|socket|exclusive|l3|none",
			"node (default): every CPU of the GPUs' NUMA nodes;\n"
			"socket: of their packages; exclusive: this GPU's\n"
			"share of its node's physical cores; l3: one L3\n"
			"group of its node; none: leave the affinity"),
	GF_OPT_CALLBACK_CHOICE(0, "mem", "POLICY", opt_mem, "bind|preferred|interleave|none",
			"bind (default), preferred, interleave (over the\n"
			"GPUs' nodes) or none: leave the memory policy"),
	GF_OPT_CALLBACK(0, "reserve", "CPULIST", opt_reserve,
			"CPUs kept for the system: never chosen (e.g. 0-1)"),
	GF_OPT_BOOL(0, "mem-optional", struct run_args, mem_optional,
		    "when seccomp or a missing CAP_SYS_NICE refuses the\n"
		    "memory policy, warn and run CMD without it"),
	GF_OPT_BOOL(0, "keep-nccl-affinity", struct run_args, keep_nccl,
		    "do not set NCCL_IGNORE_CPU_AFFINITY=1 (NCCL then\n"
		    "pins its threads to all the GPU's local CPUs)"),
	GF_OPT_BOOL(0, "dry-run", struct run_args, dry_run,
		    "print the binding and the environment on standard\n"
		    "output, run nothing (CMD may be left out); with\n"
		    "--root, as on the recorded machine"),
	GF_OPT_BOOL('v', "verbose", struct run_args, verbose,
		    "print the binding on standard error before CMD runs"),
	GF_OPTS_MODEL,
	GF_OPT_COMMON("json", "with --dry-run: the binding as JSON"),
	GF_OPT_COMMON("output", "with --dry-run: write the binding to FILE (a\n"
				"temporary file beside it, renamed when done); CMD's\n"
				"own output is its own"),
	GF_OPT_COMMON("quiet", "no warnings on standard error"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_run_def = {
	.name = "run",
	.args = "--gpu LIST [OPTIONS] -- CMD [ARG...]",
	.summary = "run a command bound to its GPUs' CPUs and memory, with their environment",
	.description =
		"Binds to the CPUs local to the GPUs in LIST (by --cpu mode), intersected\n"
		"with the CPUs this process may use (its affinity, which the kernel keeps\n"
		"inside the cgroup cpuset) minus --reserve, sets the memory policy over the\n"
		"GPUs' NUMA nodes, exports CUDA_VISIBLE_DEVICES (UUIDs where known; MIG\n"
		"UUIDs for MIG instances), CUDA_DEVICE_ORDER=PCI_BUS_ID, OMP_NUM_THREADS (the\n"
		"physical cores bound) and NCCL_IGNORE_CPU_AFFINITY=1, then executes CMD in\n"
		"its place: CMD's exit status and signals are its own.  '--' before CMD is\n"
		"required.  An empty intersection, or a GPU whose NUMA node is unknown on a\n"
		"machine with several nodes, is an error: never a silent fallback.  With\n"
		"--root the model is a recording; the binding still acts on this machine,\n"
		"while --dry-run previews it as on the recorded machine (the CPUs and nodes\n"
		"the recording's process could use).\n"
		"\n"
		"Exit status: CMD's; else 2, 3 or 4 for gpufeed's own errors (below), 126\n"
		"when CMD was found but could not be executed, 127 when it was not found\n"
		"(as env(1)).\n",
	.opts = run_opts,
	.exits = { "with --dry-run", NULL, "", "",
		   "no GPU in the model; a GPU's NUMA node unknown; the GPUs' CPUs or\n"
		   "nodes and the allowed ones do not meet; the memory policy refused\n"
		   "(seccomp, no CAP_SYS_NICE) without --mem-optional" },
	.footer = "Modes, policies and containers: docs/run.md.  JSON schema: docs/json-run.md\n"
		  "(\"schema\": \"" GF_BIND_RUN_SCHEMA "\").\n",
	.run = gf_cmd_run,
};

static int check_args(struct gf_cli *cli, const struct run_args *a, int dashes, int argc)
{
	if (!a->gpus)
		return gf_cli_usage(cli, "--gpu LIST is required");
	if (dashes < 0 && !a->dry_run)
		return gf_cli_usage(cli, "put '--' before the command to run");
	if (dashes == argc - 1 && !a->dry_run)
		return gf_cli_usage(cli, "no command after '--'");
	if (cli->json && !a->dry_run)
		return gf_cli_usage(cli, "--json goes with --dry-run (the binding is printed, nothing run)");
	if (cli->output && !a->dry_run)
		return gf_cli_usage(cli, "-o goes with --dry-run (the binding is written); CMD's output is its own: "
					 "redirect it");
	return -1;
}

static int show(struct gf_cli *cli, const struct gf_topo *t, const struct gf_binding *b, unsigned flags,
		char **cmd)
{
	int ret = cli->json ? gf_bind_write_json(t, b, flags, cmd, stdout) : gf_bind_print(t, b, flags, stdout);

	if (ret || fflush(stdout))
		return gf_cli_fail(cli, ret ? ret : -EIO);
	return GF_EXIT_OK;
}

/* Computes the binding; -1 to go on, else the exit code. */
static int compute(struct gf_cli *cli, struct run_args *a, const struct gf_topo *t, struct gf_binding *b)
{
	struct gf_bind_target tg[GF_BIND_MAX_TARGETS];
	int n;

	if (!t->ngpus) {
		fprintf(stderr, "gpufeed run: no NVIDIA GPU in %s: nothing to bind to\n", t->machine.source);
		return GF_EXIT_UNAVAILABLE;
	}
	if ((n = gf_bind_parse_targets(t, a->gpus, tg, GF_BIND_MAX_TARGETS)) < 0)
		return gf_cli_usage(cli, "--gpu: %s", gf_last_error());
	a->o.mem_optional = a->mem_optional;
	/* a preview of a recording: as it would bind there, not here */
	a->o.allowed_from_model = a->dry_run && cli->topo.root;
	if ((n = gf_bind_compute(t, tg, n, &a->o, b)) < 0)
		return gf_cli_bind_fail(cli, NULL, n);
	return -1;
}

static int execute(struct gf_cli *cli, char **cmd)
{
	int err;

	fflush(NULL);
	execvp(cmd[0], cmd);
	err = errno;
	fprintf(stderr, "gpufeed %s: %s: %s\n", cli->cmd, cmd[0], strerror(err));
	return err == ENOENT || err == ENOTDIR ? RUN_EXIT_NOT_FOUND : RUN_EXIT_CANNOT_EXEC;
}

int gf_cmd_run(int argc, char **argv)
{
	static struct gf_binding b;	/* 8 KiB: not on the stack */
	struct run_args a = { .o = GF_BIND_OPTS_INIT };
	int dashes = gf_cli_find_dashes(argc, argv), nopt = dashes < 0 ? argc : dashes, ret;
	char **cmd = argv + nopt + (dashes < 0 ? 0 : 1);
	unsigned flags;
	struct gf_topo *t = NULL;
	struct gf_cli cli;

	gf_cli_init(&cli, "run");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_run_def, nopt, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, nopt, argv)) >= 0 || (ret = check_args(&cli, &a, dashes, argc)) >= 0)
		return ret;
	flags = a.keep_nccl ? GF_BIND_ENV_KEEP_NCCL_AFFINITY : 0;
	if ((ret = gf_cli_discover(&cli, &t)))
		return ret;
	ret = compute(&cli, &a, t, &b);
	if (ret < 0 && a.dry_run)
		ret = show(&cli, t, &b, flags, cmd);
	else if (ret < 0 && a.verbose)
		gf_bind_print(t, &b, flags, stderr);
	gf_topo_free(t);
	if (ret >= 0)
		return ret;
	if ((ret = gf_bind_apply(&b, &a.o)) < 0)
		return gf_cli_bind_fail(&cli, NULL, ret);
	if (ret == GF_BIND_WARNED && !cli.quiet)
		fprintf(stderr, "gpufeed run: warning: %s\n", gf_last_error());
	if ((ret = gf_bind_setenv(&b, flags)))
		return gf_cli_fail(&cli, ret);
	return execute(&cli, cmd);
}
