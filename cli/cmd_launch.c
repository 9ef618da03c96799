/* gpufeed launch: one process per GPU, each bound to its share of the GPU's
 * node, with torchrun's environment, supervised (src/launch). */
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
	const char *gpus;
	double grace_s;
	int nproc;
	bool mem_optional, keep_nccl, no_bind, dry_run, reserve_set, cpu_set, mem_set;
};

/* What each child needs in its setup callback, computed before any fork. */
struct plan {
	struct gf_launch_world *w;
	struct gf_bind_options *o;
	struct gf_binding *b;	/* nproc of them; NULL with --no-bind */
	unsigned env_flags;
	bool quiet;
};

static int count_arg(struct gf_cli *cli, const char *name, const char *arg, uint64_t lo, uint64_t hi, int *out)
{
	uint64_t v;

	if (gf_parse_count(arg, lo, hi, &v))
		return gf_cli_usage(cli, "--%s: '%s' is not a whole number in [%llu, %llu]", name, arg,
				    (unsigned long long)lo, (unsigned long long)hi);
	*out = (int)v;
	return 0;
}

static int opt_nproc(struct gf_cli *cli, void *ctx, const char *arg)
{
	return count_arg(cli, "nproc-per-node", arg, 1, GF_LAUNCH_MAX_PROCS, &((struct launch_args *)ctx)->nproc);
}

static int opt_nnodes(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct launch_args *a = ctx;

	a->w.nnodes_from = "--nnodes";
	return count_arg(cli, "nnodes", arg, 1, 1000000, &a->w.nnodes);
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
			"processes on this node, one per GPU (default: one\n"
			"for each GPU of --gpus, else of the model)"),
	GF_OPT_STRING('g', "gpus", "LIST", struct launch_args, gpus,
		      "the GPUs, local rank i taking the i-th: NVML\n"
		      "indices, UUIDs (or unique prefixes), PCI\n"
		      "addresses, MIG UUIDs or G:GI:CI MIG triples\n"
		      "(default: every GPU of the model, in order)"),
	GF_OPT_CALLBACK(0, "cpu", "MODE", opt_cpu,
			"exclusive (default): each rank its GPU's share of\n"
			"the node's physical cores; node, socket, l3 or\n"
			"none, as for 'gpufeed run'"),
	GF_OPT_CALLBACK(0, "mem", "POLICY", opt_mem,
			"bind (default), preferred, interleave or none:\n"
			"the memory policy over each rank's GPU's node"),
	GF_OPT_CALLBACK(0, "reserve", "CPULIST", opt_reserve,
			"CPUs kept for the system: no rank gets them"),
	GF_OPT_BOOL(0, "mem-optional", struct launch_args, mem_optional,
		    "when seccomp or a missing CAP_SYS_NICE refuses the\n"
		    "memory policy, warn and run the rank without it"),
	GF_OPT_BOOL(0, "keep-nccl-affinity", struct launch_args, keep_nccl,
		    "do not set NCCL_IGNORE_CPU_AFFINITY=1"),
	GF_OPT_BOOL(0, "no-bind", struct launch_args, no_bind,
		    "no binding and no GPU variables: only the ranks'\n"
		    "environment (needs --nproc-per-node; reads no\n"
		    "model)"),
	GF_OPT_CALLBACK(0, "nnodes", "N", opt_nnodes,
			"nodes of the job (default: PET_NNODES, a Slurm\n"
			"step's SLURM_STEP_NUM_NODES, else 1)"),
	GF_OPT_CALLBACK(0, "node-rank", "R", opt_node_rank,
			"this node's rank (default: PET_NODE_RANK,\n"
			"SLURM_NODEID in a Slurm step, else 0)"),
	GF_OPT_CALLBACK(0, "master-addr", "HOST", opt_master_addr,
			"rank 0's host (default: PET_MASTER_ADDR,\n"
			"MASTER_ADDR, the Slurm step's first host, else\n"
			"127.0.0.1)"),
	GF_OPT_CALLBACK(0, "master-port", "PORT", opt_master_port,
			"rank 0's port (default: PET_MASTER_PORT,\n"
			"MASTER_PORT, else 29500)"),
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
	GF_OPT_COMMON("quiet", "no notices or warnings on standard error (the\nfirst failure is still reported)"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_launch_def = {
	.name = "launch",
	.args = "[--nproc-per-node N] [OPTIONS] -- CMD [ARG...]",
	.summary = "start one process per GPU, each bound, with torchrun's environment",
	.description =
		"Starts N copies of CMD, local rank i for the i-th GPU, each bound before it\n"
		"runs as 'gpufeed run' would bind it (by default --cpu exclusive: the GPUs\n"
		"launched split their node's physical cores, SMT siblings together, minus\n"
		"--reserve) and given torchrun's environment: RANK, LOCAL_RANK, WORLD_SIZE,\n"
		"LOCAL_WORLD_SIZE, GROUP_RANK, GROUP_WORLD_SIZE, ROLE_RANK, ROLE_WORLD_SIZE,\n"
		"ROLE_NAME, MASTER_ADDR, MASTER_PORT, with CUDA_VISIBLE_DEVICES,\n"
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

static int check_args(struct gf_cli *cli, const struct launch_args *a, int dashes, int argc)
{
	if (dashes < 0)
		return gf_cli_usage(cli, "put '--' before the command to run");
	if (dashes == argc - 1 && !a->dry_run)
		return gf_cli_usage(cli, "no command after '--'");
	if (cli->json && !a->dry_run)
		return gf_cli_usage(cli, "--json goes with --dry-run (the plan is printed, nothing run)");
	if (a->no_bind && (a->gpus || a->cpu_set || a->mem_set || a->reserve_set || a->mem_optional || a->keep_nccl))
		return gf_cli_usage(cli, "--no-bind binds nothing: --gpus, --cpu, --mem, --reserve, "
					 "--mem-optional and --keep-nccl-affinity do not apply");
	if (a->no_bind && !a->nproc)
		return gf_cli_usage(cli, "--no-bind needs --nproc-per-node N (no model is read to count GPUs)");
	return -1;
}

/* The GPUs local ranks take: --gpus, else every whole GPU of the model. */
static int choose_targets(struct gf_cli *cli, const struct launch_args *a, const struct gf_topo *t,
			  struct gf_bind_target *tg)
{
	int n;

	if (!t->ngpus) {
		fprintf(stderr, "gpufeed launch: no NVIDIA GPU in %s: nothing to bind to (--no-bind launches "
			"without binding)\n", t->machine.source);
		return -GF_EXIT_UNAVAILABLE;
	}
	if (!a->gpus) {
		n = t->ngpus < GF_BIND_MAX_TARGETS ? t->ngpus : GF_BIND_MAX_TARGETS;
		for (int i = 0; i < n; i++)
			tg[i] = (struct gf_bind_target){ .gpu = i, .mig = -1 };
	} else if ((n = gf_bind_parse_targets(t, a->gpus, tg, GF_BIND_MAX_TARGETS)) < 0) {
		return -gf_cli_usage(cli, "--gpus: %s", gf_last_error());
	}
	if (a->gpus && a->nproc && a->nproc != n)
		return -gf_cli_usage(cli, "--nproc-per-node %d but --gpus names %d GPUs: one rank per GPU", a->nproc, n);
	if (a->nproc > n)
		return -gf_cli_usage(cli, "--nproc-per-node %d but %s has %d GPUs: one rank per GPU", a->nproc,
				     t->machine.source, n);
	return a->nproc ? a->nproc : n;
}

/* Every rank's binding, before anything starts.  -1 to go on, else the
 * exit code. */
static int compute(struct gf_cli *cli, struct launch_args *a, const struct gf_topo *t, struct gf_binding **out)
{
	struct gf_bind_target tg[GF_BIND_MAX_TARGETS];
	int sharing[GF_BIND_MAX_TARGETS], nsharing = 0, n, ret;
	struct gf_binding *b;

	if ((n = choose_targets(cli, a, t, tg)) < 0)
		return -n;
	/* exclusive: the launched GPUs split their nodes' cores among them */
	for (int i = 0; i < n; i++) {
		int j = 0;

		while (j < nsharing && sharing[j] != tg[i].gpu)
			j++;
		if (j == nsharing)
			sharing[nsharing++] = tg[i].gpu;
	}
	a->o.sharing = sharing;
	a->o.nsharing = nsharing;
	a->o.mem_optional = a->mem_optional;
	/* a preview of a recording: as it would bind there, not here */
	a->o.allowed_from_model = a->dry_run && cli->topo.root;
	if (!(b = calloc((size_t)n, sizeof(*b))))
		return gf_cli_fail(cli, -ENOMEM);
	for (int i = 0; i < n; i++) {
		if ((ret = gf_bind_compute(t, &tg[i], 1, &a->o, &b[i])) < 0) {
			char what[32];

			free(b);
			snprintf(what, sizeof(what), "rank %d", i);
			return gf_cli_bind_fail(cli, what, ret);
		}
	}
	a->o.sharing = NULL;	/* points at this frame; apply does not need it */
	a->o.nsharing = 0;
	a->nproc = n;
	*out = b;
	return -1;
}

/* In each child, before exec: the rank's environment, then its binding. */
static int setup_rank(int local, void *arg)
{
	const struct plan *p = arg;
	int ret;

	if ((ret = gf_launch_world_setenv(p->w, local)) || !p->b)
		return ret;
	if ((ret = gf_bind_apply(&p->b[local], p->o)) < 0)
		return ret;
	if (ret == GF_BIND_WARNED && !p->quiet)
		fprintf(stderr, "gpufeed launch: warning: %s\n", gf_last_error());
	return gf_bind_setenv(&p->b[local], p->env_flags);
}

static void print_indented(const char *text, FILE *f)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		fprintf(f, "  %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

static int show_text(const struct gf_topo *t, const struct plan *p, char **cmd)
{
	const struct gf_launch_world *w = p->w;

	printf("world:   %d node%s (%s), node rank %d (%s), %d per node, world size %d\n", w->nnodes,
	       w->nnodes == 1 ? "" : "s", w->nnodes_from, w->node_rank, w->node_rank_from, w->nproc,
	       w->nnodes * w->nproc);
	printf("master:  %s (%s):%d (%s)\ncommand:", w->master_addr, w->master_addr_from, w->master_port,
	       w->master_port_from);
	for (int i = 0; cmd[i]; i++)
		printf(" %s", cmd[i]);
	printf("\n");
	for (int i = 0; i < w->nproc; i++) {
		struct gf_launch_env env[GF_LAUNCH_NENV];
		int n = gf_launch_world_env(w, i, env);
		char *text = NULL;
		size_t len = 0;
		FILE *ms;

		printf("rank %d (local %d):\n  rank env:", w->node_rank * w->nproc + i, i);
		for (int k = 0; k < n; k++)
			printf(" %s=%s", env[k].name, env[k].value);
		printf("\n");
		if (!p->b)
			continue;
		if (!(ms = open_memstream(&text, &len)))
			return -ENOMEM;
		gf_bind_print(t, &p->b[i], p->env_flags, ms);
		fclose(ms);
		print_indented(text, stdout);
		free(text);
	}
	return ferror(stdout) ? -EIO : 0;
}

static int show_json(const struct gf_topo *t, const struct plan *p, char **cmd)
{
	int n = p->w->nproc, ret = 0;
	char **docs = calloc((size_t)n, sizeof(*docs));

	if (!docs)
		return -ENOMEM;
	for (int i = 0; p->b && i < n && !ret; i++) {
		size_t len = 0;
		FILE *ms = open_memstream(&docs[i], &len);

		if (!ms) {
			ret = -ENOMEM;
			break;
		}
		ret = gf_bind_write_json(t, &p->b[i], p->env_flags, cmd, ms);
		fclose(ms);
	}
	if (!ret)
		ret = gf_launch_write_json(p->w, cmd, p->b ? (const char *const *)docs : NULL, stdout);
	for (int i = 0; i < n; i++)
		free(docs[i]);
	free(docs);
	return ret;
}

static int show(struct gf_cli *cli, const struct gf_topo *t, const struct plan *p, char **cmd)
{
	int ret = cli->json ? show_json(t, p, cmd) : show_text(t, p, cmd);

	if (ret || fflush(stdout))
		return gf_cli_fail(cli, ret ? ret : -EIO);
	return GF_EXIT_OK;
}

static int supervise(struct gf_cli *cli, const struct launch_args *a, struct plan *p, char **cmd)
{
	struct gf_launch_options lo = GF_LAUNCH_OPTS_INIT;
	struct gf_launch_result res;
	int ret;

	lo.nproc = a->nproc;
	lo.argv = cmd;
	lo.setup = setup_rank;
	lo.setup_arg = p;
	lo.rank_base = p->w->node_rank * a->nproc;
	lo.grace_s = a->grace_s;
	lo.quiet = cli->quiet;
	if ((ret = gf_launch_run(&lo, &res)))
		return gf_cli_fail(cli, ret);
	/* the ranks' own failure says more than their lost output (said already) */
	return res.exit_code || !res.output_error ? res.exit_code : GF_EXIT_INPUT;
}

int gf_cmd_launch(int argc, char **argv)
{
	struct launch_args a = { .o = GF_BIND_OPTS_INIT, .w = GF_LAUNCH_WORLD_INIT, .grace_s = 5 };
	int dashes = gf_cli_find_dashes(argc, argv), nopt = dashes < 0 ? argc : dashes, ret;
	char **cmd = argv + nopt + (dashes < 0 ? 0 : 1);
	struct plan p = { .w = &a.w, .o = &a.o };
	struct gf_topo *t = NULL;
	struct gf_cli cli;

	a.o.cpu = GF_BIND_CPU_EXCLUSIVE;
	gf_cli_init(&cli, "launch");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_launch_def, nopt, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, nopt, argv)) >= 0 || (ret = check_args(&cli, &a, dashes, argc)) >= 0)
		return ret;
	p.env_flags = a.keep_nccl ? GF_BIND_ENV_KEEP_NCCL_AFFINITY : 0;
	p.quiet = cli.quiet;
	if (!a.no_bind) {
		if ((ret = gf_cli_discover(&cli, &t)))
			return ret;
		if ((ret = compute(&cli, &a, t, &p.b)) >= 0) {
			gf_topo_free(t);
			return ret;
		}
	}
	a.w.nproc = a.nproc;
	if ((ret = gf_launch_world_resolve(&a.w)))
		ret = gf_cli_usage(&cli, "%s", gf_last_error());
	else if (a.dry_run)
		ret = show(&cli, t, &p, cmd);
	else
		ret = supervise(&cli, &a, &p, cmd);
	gf_topo_free(t);
	free(p.b);
	return ret;
}
