/* gpufeed launch: one process per GPU, each bound to its share of the GPU's
 * node, with torchrun's environment, supervised.  The options and the
 * printing; the plan and the supervisor are the library's (gf_launch_plan_*
 * in src/launch). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind_opts.h"
#include "cli.h"

struct launch_args {
	struct gf_bind_options o;
	struct gf_cpuset reserved;
	struct gf_launch_world w;
	const char *gpus, *module;
	double grace_s;
	int nproc, max_restarts;
	bool mem_optional, keep_nccl, no_bind, dry_run, reserve_set, cpu_set, mem_set, standalone, per_gpu,
		all_visible;
};

/* torchrun runs a module as `python -u -m MODULE` (unbuffered: each line
 * reaches the prefixer as it is printed); its PYTHON_EXEC is not read. */
#define PYTHON "python3"

static int count_arg(struct gf_cli *cli, const char *name, const char *arg, uint64_t lo, uint64_t hi, int *out)
{
	uint64_t v;

	if (gf_parse_count(arg, lo, hi, &v))
		return gf_cli_usage(cli, "--%s: '%s' is not a whole number in [%llu, %llu]", name, arg,
				    (unsigned long long)lo, (unsigned long long)hi);
	*out = (int)v;
	return 0;
}

/* N, or torchrun's "gpu" and "auto": one rank per GPU (the default). */
static int opt_nproc(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct launch_args *a = ctx;

	if (!strcmp(arg, "gpu") || !strcmp(arg, "auto")) {
		a->nproc = 0;
		a->per_gpu = true;
		return 0;
	}
	if (!strcmp(arg, "cpu") || !strcmp(arg, "xpu"))
		return gf_cli_usage(cli, "--nproc-per-node %s: gpufeed launch starts one rank per NVIDIA GPU (N, gpu "
				    "or auto)", arg);
	a->per_gpu = false;
	return count_arg(cli, "nproc-per-node", arg, 1, GF_LAUNCH_MAX_PROCS, &a->nproc);
}

/* N, or torchrun's MIN:MAX with MIN == MAX: a range is an elastic job. */
static int opt_nnodes(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct launch_args *a = ctx;
	const char *colon = strchr(arg, ':');
	char min[32];
	int max = 0;

	a->w.nnodes_from = "--nnodes";
	if (!colon)
		return count_arg(cli, "nnodes", arg, 1, 1000000, &a->w.nnodes);
	if ((size_t)(colon - arg) >= sizeof(min))
		return gf_cli_usage(cli, "--nnodes: '%s' is not N or N:N", arg);
	memcpy(min, arg, (size_t)(colon - arg));
	min[colon - arg] = '\0';
	if (count_arg(cli, "nnodes", min, 1, 1000000, &a->w.nnodes) ||
	    count_arg(cli, "nnodes", colon + 1, 1, 1000000, &max))
		return GF_EXIT_USAGE;
	if (max != a->w.nnodes)
		return gf_cli_usage(cli, "--nnodes %s: a range of nodes is an elastic job, which needs torchrun's "
				    "rendezvous; gpufeed launch runs a fixed number of nodes (--nnodes N)", arg);
	return 0;
}

static int opt_node_rank(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct launch_args *a = ctx;

	a->w.node_rank_from = "--node-rank";
	return count_arg(cli, "node-rank", arg, 0, 999999, &a->w.node_rank);
}

static int opt_master_port(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct launch_args *a = ctx;

	a->w.master_port_from = "--master-port";
	return count_arg(cli, "master-port", arg, 1, 65535, &a->w.master_port);
}

static int opt_master_addr(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct launch_args *a = ctx;

	if (!*arg || strlen(arg) >= sizeof(a->w.master_addr))
		return gf_cli_usage(cli, "--master-addr: '%s' is empty or too long", arg);
	strcpy(a->w.master_addr, arg);
	a->w.master_addr_from = "--master-addr";
	return 0;
}

static int opt_max_restarts(struct gf_cli *cli, void *ctx, const char *arg)
{
	return count_arg(cli, "max-restarts", arg, 0, GF_LAUNCH_MAX_RESTARTS, &((struct launch_args *)ctx)->max_restarts);
}

static int opt_rdzv_id(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct launch_args *a = ctx;

	if (!*arg || strlen(arg) >= sizeof(a->w.run_id))
		return gf_cli_usage(cli, "--rdzv-id: '%s' is empty or longer than %zu", arg, sizeof(a->w.run_id) - 1);
	strcpy(a->w.run_id, arg);
	return 0;
}

static int opt_grace(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct launch_args *a = ctx;

	if (gf_parse_duration(arg, &a->grace_s) || a->grace_s > 86400)
		return gf_cli_usage(cli, "--grace: '%s' is not a duration of at most 24h (5, 500ms, 1m)", arg);
	return 0;
}

static int opt_cpu(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct launch_args *a = ctx;

	a->cpu_set = true;
	return gf_cli_cpu_mode_arg(cli, arg, &a->o.cpu);
}

static int opt_mem(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct launch_args *a = ctx;

	a->mem_set = true;
	return gf_cli_mem_policy_arg(cli, arg, &a->o.mem);
}

static int opt_reserve(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct launch_args *a = ctx;

	a->o.reserved = &a->reserved;
	a->reserve_set = true;
	return gf_cli_reserve_arg(cli, arg, &a->reserved);
}

static const struct gf_opt launch_opts[] = {
	GF_OPT_CALLBACK(0, "nproc-per-node", "N", opt_nproc,
			"processes on this node, one per GPU (default, or\n"
			"gpu or auto: one for each GPU of --gpus, else of\n"
			"the model); also --nproc_per_node, as torchrun"),
	GF_OPT_STRING('m', "module", "MODULE", struct launch_args, module,
		      "run 'python3 -u -m MODULE ARG...' in each rank, as\n"
		      "torchrun -m: the words after MODULE are its own\n"
		      "(no '--' needed)"),
	GF_OPT_STRING_CHOICE('g', "gpus", "LIST", struct launch_args, gpus, GF_VALUES_GPUS,
		      "the GPUs, local rank i taking the i-th: NVML\n"
		      "indices, UUIDs (or unique prefixes), PCI\n"
		      "addresses, MIG UUIDs or G:GI:CI MIG triples\n"
		      "(default: every GPU of the model, in order)"),
	GF_OPT_CALLBACK_CHOICE(0, "cpu", "MODE", opt_cpu, "exclusive|node|socket|l3|none",
			"exclusive (default): each rank its GPU's share of\n"
			"the node's physical cores; node, socket, l3 or\n"
			"none, as for 'gpufeed run'"),
	GF_OPT_CALLBACK_CHOICE(0, "mem", "POLICY", opt_mem, "bind|preferred|interleave|none",
			"bind (default), preferred, interleave or none:\n"
			"the memory policy over each rank's GPU's node"),
	GF_OPT_CALLBACK(0, "reserve", "CPULIST", opt_reserve,
			"CPUs kept for the system: no rank gets them"),
	GF_OPT_BOOL(0, "mem-optional", struct launch_args, mem_optional,
		    "when seccomp or a missing CAP_SYS_NICE refuses the\n"
		    "memory policy, warn and run the rank without it"),
	GF_OPT_BOOL(0, "all-gpus-visible", struct launch_args, all_visible,
		    "each rank sees the job's GPUs in rank order, so\n"
		    "device LOCAL_RANK is its own (set_device(LOCAL_RANK));\n"
		    "default: its own GPU alone, as device 0.  CPUs and\n"
		    "memory stay each rank's own"),
	GF_OPT_BOOL(0, "keep-nccl-affinity", struct launch_args, keep_nccl,
		    "do not set NCCL_IGNORE_CPU_AFFINITY=1"),
	GF_OPT_BOOL(0, "no-bind", struct launch_args, no_bind,
		    "no binding and no GPU variables: only the ranks'\n"
		    "environment (needs --nproc-per-node; reads no\n"
		    "model)"),
	GF_OPT_CALLBACK(0, "nnodes", "N", opt_nnodes,
			"nodes of the job, or N:N (default: PET_NNODES, a\n"
			"Slurm step's SLURM_STEP_NUM_NODES, else 1)"),
	GF_OPT_CALLBACK(0, "node-rank", "R", opt_node_rank,
			"this node's rank (default: PET_NODE_RANK,\n"
			"SLURM_NODEID in a Slurm step, else 0); also\n"
			"--node_rank"),
	GF_OPT_CALLBACK(0, "master-addr", "HOST", opt_master_addr,
			"rank 0's host (default: PET_MASTER_ADDR,\n"
			"MASTER_ADDR, the Slurm step's first host, else\n"
			"127.0.0.1); also --master_addr"),
	GF_OPT_CALLBACK(0, "master-port", "PORT", opt_master_port,
			"rank 0's port (default: PET_MASTER_PORT,\n"
			"MASTER_PORT, else 29500); also --master_port"),
	GF_OPT_BOOL(0, "standalone", struct launch_args, standalone,
		    "one node, this host: MASTER_ADDR 127.0.0.1 and a\n"
		    "free MASTER_PORT, the environment not read (as\n"
		    "torchrun --standalone)"),
	GF_OPT_CALLBACK(0, "max-restarts", "N", opt_max_restarts,
			"after a rank fails, stop every rank and start them\n"
			"all again, up to N times (default 0); also\n"
			"--max_restarts, as torchrun"),
	GF_OPT_CALLBACK(0, "rdzv-id", "ID", opt_rdzv_id,
			"the job's id, TORCHELASTIC_RUN_ID (default: none,\n"
			"a random UUID with --standalone); also --rdzv_id"),
	/* torchrun's spellings (its argparse takes both) */
	GF_OPT_HIDDEN_CALLBACK("nproc_per_node", "N", opt_nproc),
	GF_OPT_HIDDEN_CALLBACK("node_rank", "R", opt_node_rank),
	GF_OPT_HIDDEN_CALLBACK("master_addr", "HOST", opt_master_addr),
	GF_OPT_HIDDEN_CALLBACK("master_port", "PORT", opt_master_port),
	GF_OPT_HIDDEN_CALLBACK("max_restarts", "N", opt_max_restarts),
	GF_OPT_HIDDEN_CALLBACK("rdzv_id", "ID", opt_rdzv_id),
	GF_OPT_CALLBACK(0, "grace", "SEC", opt_grace,
			"after the first failure, SIGTERM to the other\n"
			"ranks, SIGKILL SEC later (default 5); as long\n"
			"for what a rank leaves running when it exits"),
	GF_OPT_BOOL(0, "dry-run", struct launch_args, dry_run,
		    "print each rank's environment and binding on\n"
		    "standard output, run nothing; with --root, as on\n"
		    "the recorded machine"),
	GF_OPTS_MODEL,
	GF_OPT_COMMON("json", "with --dry-run: the plan as JSON"),
	GF_OPT_COMMON("output", "with --dry-run: write the plan to FILE (a\n"
				"temporary file beside it, renamed when done); the\n"
				"ranks' output is theirs, on standard output and\n"
				"error"),
	GF_OPT_COMMON("quiet", "no notices or warnings on standard error (the\nfirst failure is still reported)"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_launch_def = {
	.name = "launch",
	.args = "[OPTIONS] {-- CMD | -m MODULE} [ARG...]",
	.summary = "start one process per GPU, each bound, with torchrun's environment",
	.description =
		"Starts N copies of CMD, local rank i for the i-th GPU, each bound before it\n"
		"runs as 'gpufeed run' would bind it (by default --cpu exclusive: the GPUs\n"
		"launched split their node's physical cores, SMT siblings together, minus\n"
		"--reserve) and given torchrun's environment: RANK, LOCAL_RANK, WORLD_SIZE,\n"
		"LOCAL_WORLD_SIZE, GROUP_RANK, GROUP_WORLD_SIZE, ROLE_RANK, ROLE_WORLD_SIZE,\n"
		"ROLE_NAME, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RESTART_COUNT,\n"
		"TORCHELASTIC_MAX_RESTARTS, TORCHELASTIC_RUN_ID and\n"
		"TORCHELASTIC_USE_AGENT_STORE=False, with CUDA_VISIBLE_DEVICES,\n"
		"CUDA_DEVICE_ORDER, OMP_NUM_THREADS and NCCL_IGNORE_CPU_AFFINITY=1.  Every\n"
		"binding is computed before anything starts: an impossible one starts none.\n"
		"\n"
		"Each line a rank writes is prefixed with its rank ('[3] '), stdout to stdout\n"
		"and stderr to stderr.  SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to\n"
		"every rank; each rank runs in its own process group (so Ctrl-C reaches it\n"
		"once, through gpufeed) with standard input from /dev/null.  The first rank\n"
		"that fails (non-zero exit, or killed by a signal) is reported on standard\n"
		"error and stops the others: SIGTERM to their process groups, SIGKILL after\n"
		"--grace.  A rank ends with its process group: what it leaves running when\n"
		"it exits gets SIGTERM, SIGKILL after --grace, and so does every rank's\n"
		"group should gpufeed itself be killed.  '--' before CMD is required.\n"
		"\n"
		"torchrun's command lines carry over: --nproc_per_node (N, gpu or auto),\n"
		"--node_rank, --master_addr, --master_port, --max_restarts and --rdzv_id\n"
		"as well as their dashed spellings, --nnodes N:N, --standalone, and\n"
		"-m MODULE in place of '-- CMD' (each rank runs 'python3 -u -m MODULE\n"
		"ARG...').  An elastic range of nodes is refused: there is no rendezvous.\n"
		"\n"
		"Exit status: 0 when every rank exited 0; else the first failure's exit\n"
		"status, 128+N for signal N; 125 when a rank's binding could not be\n"
		"applied, 126/127 when CMD could not be executed/found; 3 when every rank\n"
		"exited 0 but their output could not be written (a full disk); 2, 3 or 4\n"
		"(below) when gpufeed stopped before starting any rank.\n",
	.opts = launch_opts,
	.exits = { "every rank exited 0 (or --dry-run)", NULL, "", "a rank's output or the plan not written",
		   "no GPU in the model (use --no-bind); a binding impossible here (see\n"
		   "'gpufeed run')" },
	.footer = "The supervisor, signals and multi-node jobs: docs/launch.md.  JSON schema:\n"
		  "docs/json-launch.md (\"schema\": \"" GF_LAUNCH_SCHEMA "\").\n",
	.run = gf_cmd_launch,
};

/* Where the options end and CMD starts: at '--', or after -m MODULE (the
 * words after MODULE are the module's, as after python's own -m). */
struct split {
	int nopt;	/* options: argv[1 .. nopt) */
	int cmd;	/* CMD or the module's arguments: argv[cmd ..] */
	bool dashes;	/* CMD follows a '--' */
};

static struct split split_command(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "--"))
			return (struct split){ i, i + 1, true };
		if (!strcmp(w, "-m") || !strcmp(w, "--module"))
			return (struct split){ i + 1 < argc ? i + 2 : argc, i + 1 < argc ? i + 2 : argc, false };
		if ((!strncmp(w, "-m", 2) && w[2]) || !strncmp(w, "--module=", 9))
			return (struct split){ i + 1, i + 1, false };
	}
	return (struct split){ argc, argc, false };
}

/* python3 -u -m MODULE ARG...: a new argv (NULL on no memory). */
static char **module_command(const char *module, char **args)
{
	int n = 0;
	char **cmd;

	while (args[n])
		n++;
	if (!(cmd = calloc((size_t)n + 5, sizeof(*cmd))))
		return NULL;
	/* torchrun runs $PYTHON_EXEC, else its own interpreter. */
	cmd[0] = gf_env_str(GF_ENV_PYTHON_EXEC) ? (char *)gf_env_str(GF_ENV_PYTHON_EXEC) : PYTHON;
	cmd[1] = "-u";
	cmd[2] = "-m";
	cmd[3] = (char *)module;
	memcpy(cmd + 4, args, (size_t)n * sizeof(*cmd));
	return cmd;
}

static int check_args(struct gf_cli *cli, const struct launch_args *a, struct split sp, int argc)
{
	if (!sp.dashes && !a->module)
		return gf_cli_usage(cli, "put '--' before the command to run (or -m MODULE)");
	if (a->module && sp.dashes)
		return gf_cli_usage(cli, "-m MODULE or '--' CMD: one of the two");
	if (sp.dashes && sp.cmd == argc && !a->dry_run)
		return gf_cli_usage(cli, "no command after '--'");
	if (cli->json && !a->dry_run)
		return gf_cli_usage(cli, "--json goes with --dry-run (the plan is printed, nothing run)");
	if (cli->output && !a->dry_run)
		return gf_cli_usage(cli, "-o goes with --dry-run (the plan is written); the ranks' output goes to "
					 "standard output and error: redirect them");
	if (a->no_bind && (a->gpus || a->cpu_set || a->mem_set || a->reserve_set || a->mem_optional || a->keep_nccl ||
			   a->all_visible))
		return gf_cli_usage(cli, "--no-bind binds nothing: --gpus, --cpu, --mem, --reserve, --mem-optional, "
					 "--keep-nccl-affinity and --all-gpus-visible do not apply");
	if (a->no_bind && !a->nproc)
		return gf_cli_usage(cli, "--no-bind needs --nproc-per-node N (no model is read to count GPUs)");
	return -1;
}

/* A plan refused: what the command line got wrong is a usage error, what
 * this machine cannot do exit 4 (as for 'gpufeed run'), the rest 3. */
static int plan_fail(struct gf_cli *cli, const struct gf_topo *t, int err)
{
	if (err == -EINVAL || err == -ENOENT || err == -E2BIG)
		return gf_cli_usage(cli, "%s", gf_last_error());
	if (err == -ENODEV && t && !t->ngpus) {
		fprintf(stderr, "gpufeed launch: %s (--no-bind launches without binding)\n", gf_last_error());
		return GF_EXIT_UNAVAILABLE;
	}
	return gf_cli_bind_fail(cli, NULL, err);
}

static int show(struct gf_cli *cli, const struct gf_launch_plan *p)
{
	int ret = cli->json ? gf_launch_plan_write_json(p, stdout) : gf_launch_plan_print(p, stdout);

	if (ret || fflush(stdout))
		return gf_cli_fail(cli, ret ? ret : -EIO);
	return GF_EXIT_OK;
}

static int supervise(struct gf_cli *cli, const struct gf_launch_plan *p)
{
	struct gf_launch_result res;
	int ret;

	if ((ret = gf_launch_plan_run(p, &res)))
		return gf_cli_fail(cli, ret);
	/* the ranks' own failure says more than their lost output (said already) */
	return res.exit_code || !res.output_error ? res.exit_code : GF_EXIT_INPUT;
}

int gf_cmd_launch(int argc, char **argv)
{
	struct launch_args a = { .o = GF_BIND_OPTS_INIT, .w = GF_LAUNCH_WORLD_INIT, .grace_s = 5 };
	struct gf_launch_job_options jo = GF_LAUNCH_JOB_OPTS_INIT;
	struct split sp = split_command(argc, argv);
	char **cmd = argv + sp.cmd, **module_cmd = NULL;
	struct gf_launch_plan *p = NULL;
	int ret;
	struct gf_topo *t = NULL;
	struct gf_cli cli;

	a.o.cpu = GF_BIND_CPU_EXCLUSIVE;
	gf_cli_init(&cli, "launch");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_launch_def, sp.nopt, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, sp.nopt, argv)) >= 0 || (ret = check_args(&cli, &a, sp, argc)) >= 0)
		return ret;
	if (a.module && !(cmd = module_cmd = module_command(a.module, cmd)))
		return gf_cli_fail(&cli, -ENOMEM);
	a.o.mem_optional = a.mem_optional;
	/* a preview of a recording: as it would bind there, not here */
	a.o.allowed_from_model = a.dry_run && cli.topo.root;
	jo.argv = cmd;
	jo.gpus = a.gpus;
	jo.nproc = a.nproc;
	jo.no_bind = a.no_bind;
	jo.bind = &a.o;
	jo.env_flags = a.keep_nccl ? GF_BIND_ENV_KEEP_NCCL_AFFINITY : 0;
	jo.world = &a.w;
	jo.grace_s = a.grace_s;
	jo.quiet = cli.quiet;
	jo.standalone = a.standalone;
	jo.max_restarts = a.max_restarts;
	jo.all_gpus_visible = a.all_visible;
	if (!a.no_bind && (ret = gf_cli_discover(&cli, &t))) {
		free(module_cmd);
		return ret;
	}
	if ((ret = gf_launch_plan_new(t, &jo, &p)))
		ret = plan_fail(&cli, t, ret);
	else
		ret = a.dry_run ? show(&cli, p) : supervise(&cli, p);
	gf_launch_plan_free(p);
	gf_topo_free(t);
	free(module_cmd);
	return ret;
}
