/* gpufeed nccl check: an active path check.  A short all-reduce over this
 * machine's GPUs (bench coll, one process) with NCCL's INFO log written to a
 * private directory, then that log read as `nccl log` reads one and held
 * against the machine model: exit 1 when a GPU pair uses a worse transport
 * than the model allows or an override costs bandwidth (docs/nccl.md). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct check_args {
	const char *gpus;
	const char *bytes;
	const char *timeout;
};

static const struct gf_opt nccl_check_opts[] = {
	GF_OPT_STRING_CHOICE(0, "gpus", "LIST", struct check_args, gpus, GF_VALUES_GPUS,
		      "NVML indexes of the GPUs: 0,1 or 0-3 (default all)"),
	GF_OPT_STRING(0, "bytes", "SIZE", struct check_args, bytes,
		      "the all-reduce's size (default 64M)"),
	GF_OPT_STRING(0, "timeout", "DURATION", struct check_args, timeout,
		      "end a run that hangs, naming the GPU"),
	GF_OPTS_MODEL,
	GF_OPTS_OUTPUT,
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

static int cmd_nccl_check(int argc, char **argv);

const struct gf_cmd gf_cmd_nccl_check_def = {
	.name = "nccl check",
	.args = "[OPTIONS]",
	.summary = "run a short all-reduce and check NCCL's paths against the machine",
	.description =
		"Runs a short all-reduce over this machine's GPUs in one process (as 'gpufeed\n"
		"bench coll --op all_reduce'), with NCCL_DEBUG=INFO and\n"
		"NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV,NET,P2P,SHM written to a private directory,\n"
		"then reads that log as 'gpufeed nccl log' does and holds each GPU pair's\n"
		"transport against the link the machine model has between them.  The NCCL_*\n"
		"variables of this shell are the ones tested: run it with the job's\n"
		"environment.  The all-reduce's busbw is printed above the findings.\n",
	.opts = nccl_check_opts,
	.exits = { "every GPU pair on the best transport the machine allows, no override that\n"
		   "costs bandwidth, no warning",
		   "a slower transport than the machine allows, an override that costs\n"
		   "bandwidth, NCCL warnings or errors, wrong elements in the all-reduce",
		   "", "the all-reduce failed or timed out; NCCL wrote no log",
		   "no NCCL (libnccl.so.2), no CUDA driver or no GPU" },
	.footer = "JSON: the schema of 'gpufeed nccl log' (docs/nccl.md).\n",
	.run = cmd_nccl_check,
};


/* Every file NCCL wrote into dir, fed and removed; the count in *n. */
static int feed_dir(struct gf_cli *cli, struct gf_nccl_log *l, const char *dir, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int ret = -1;

	*n = 0;
	if (!d) {
		fprintf(stderr, "gpufeed %s: %s: %s\n", cli->cmd, dir, strerror(errno));
		return GF_EXIT_INPUT;
	}
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((f = fopen(path, "r"))) {
			int rc = ret < 0 ? gf_nccl_log_feed_file(l, e->d_name, f) : 0;

			if (rc)
				ret = gf_cli_fail(cli, rc);
			fclose(f);
			(*n)++;
		}
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
	return ret;
}

static int run_allreduce(struct gf_cli *cli, const struct check_args *a, const struct gf_topo *t)
{
	struct gf_bench_run_opts ro = GF_BENCH_RUN_OPTS_INIT;
	const char *bytes = a->bytes ? a->bytes : "64M";
	struct gf_bench *b = NULL;
	int rc, ret = -1;

	if ((rc = gf_bench_new("coll", &b)) || (rc = gf_bench_set(b, "op", "all_reduce")) ||
	    (rc = gf_bench_set(b, "min-bytes", bytes)) || (rc = gf_bench_set(b, "max-bytes", bytes)) ||
	    (rc = gf_bench_set(b, "iters", "5")) || (rc = gf_bench_set(b, "warmup-iters", "2")) ||
	    (rc = gf_bench_set(b, "check", "1")) || (a->gpus && (rc = gf_bench_set(b, "gpus", a->gpus))) ||
	    (a->timeout && (rc = gf_bench_set(b, "timeout", a->timeout))) || (rc = gf_bench_check(b))) {
		ret = gf_cli_usage(cli, "%s", gf_last_error());
		goto out;
	}
	ro.model = t;
	if ((rc = gf_bench_run(b, &ro)) || !gf_bench_has_results(b)) {
		ret = gf_cli_fail(cli, rc ? rc : -EIO);
		goto out;
	}
	if (!cli->json && gf_bench_print(b, stdout)) {
		ret = GF_EXIT_INPUT;
		goto out;
	}
	if (!cli->json)
		putchar('\n');
	if (gf_bench_outcome(b) != GF_BENCH_CLEAN)
		ret = GF_EXIT_FINDINGS;
out:
	gf_bench_free(b);
	return ret;
}

static int cmd_nccl_check(int argc, char **argv)
{
	struct check_args a = { 0 };
	struct gf_nccl_log *l = NULL;
	struct gf_topo *t = NULL;
	char dir[PATH_MAX];
	const char *tmp = gf_env_str(GF_ENV_TMPDIR);
	struct gf_cli cli;
	int ret, bench_ret, nfiles = 0;

	gf_cli_init(&cli, "nccl check");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_nccl_check_def, argc, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	/* It acts on this machine: a recording's model would judge another. */
	if (cli.topo.root && cli.topo.root[0])
		return gf_cli_usage(&cli, "--root: nccl check runs on this machine; 'gpufeed nccl log --root' reads a\n"
				    "recorded machine's log");
	snprintf(dir, sizeof(dir), "%s/gpufeed-nccl-check.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "gpufeed nccl check: %s: %s\n", dir, strerror(errno));
		return GF_EXIT_INPUT;
	}
	if (gf_nccl_log_capture(dir)) {
		fprintf(stderr, "gpufeed nccl check: %s\n", gf_last_error());
		rmdir(dir);
		return GF_EXIT_INPUT;
	}
	if ((ret = gf_cli_discover(&cli, &t))) {
		rmdir(dir);
		return ret;
	}
	bench_ret = run_allreduce(&cli, &a, t);
	if ((ret = gf_nccl_log_new(NULL, &l))) {
		ret = gf_cli_fail(&cli, ret);
		goto out;
	}
	if ((ret = feed_dir(&cli, l, dir, &nfiles)) >= 0)
		goto out;
	if (bench_ret >= 0 && bench_ret != GF_EXIT_FINDINGS) {
		ret = bench_ret;	/* the all-reduce did not run: said above */
		goto out;
	}
	if (!nfiles) {
		fprintf(stderr, "gpufeed nccl check: NCCL wrote no log (NCCL_DEBUG_FILE in %s)\n", dir);
		ret = GF_EXIT_INPUT;
		goto out;
	}
	ret = gf_cli_nccl_report(&cli, l, t);
	t = NULL;
	if (ret == GF_EXIT_OK && bench_ret == GF_EXIT_FINDINGS)
		ret = GF_EXIT_FINDINGS;
out:
	gf_topo_free(t);
	gf_nccl_log_free(l);
	return ret;
}
