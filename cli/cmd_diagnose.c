/* gpufeed diagnose: run a job (or attach to one), sample it while it runs,
 * and say what it waits for. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bind_opts.h"
#include "cli.h"

/* env(1)'s codes for a command that could not be run. */
enum { DIAG_EXIT_CANNOT_EXEC = 126, DIAG_EXIT_NOT_FOUND = 127 };

struct diagnose_args {
	struct gf_diagnose_opts o;
	const char *pid, *report, *replay;
};

static int seconds(struct gf_cli *cli, const char *opt, const char *arg, double min, double max, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= min && v <= max))
		return gf_cli_usage(cli, "%s: '%s' is not a number of seconds in [%g, %g]", opt, arg, min, max);
	*out = v;
	return 0;
}

static int opt_interval(struct gf_cli *cli, void *ctx, const char *arg)
{
	return seconds(cli, "--interval", arg, 0.05, 3600, &((struct diagnose_args *)ctx)->o.interval_s);
}

static int opt_duration(struct gf_cli *cli, void *ctx, const char *arg)
{
	return seconds(cli, "--duration", arg, 0.1, 1e7, &((struct diagnose_args *)ctx)->o.duration_s);
}

static int opt_state_hz(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct diagnose_args *a = ctx;
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 1 && v <= 1000))
		return gf_cli_usage(cli, "--state-hz: '%s' is not a rate in [1, 1000] per second", arg);
	a->o.state_hz = v;
	return 0;
}

static int opt_no_nccl_log(struct gf_cli *cli, void *ctx, const char *arg)
{
	(void)cli;
	(void)arg;
	((struct diagnose_args *)ctx)->o.nccl_log = false;
	return 0;
}

static const struct gf_opt diagnose_opts[] = {
	GF_OPT_STRING(0, "pid", "PID", struct diagnose_args, pid,
		      "attach to a running process instead of starting\n"
		      "CMD; sampling ends when it exits, after --duration\n"
		      "or at Ctrl-C"),
	GF_OPT_CALLBACK(0, "interval", "SECONDS", opt_interval,
			"sample the GPU and process counters every SECONDS\n"
			"(default 1; fractions allowed)"),
	GF_OPT_CALLBACK(0, "state-hz", "N", opt_state_hz,
			"look N times a second at what each rank's step\n"
			"thread is blocked in (default 20)"),
	GF_OPT_CALLBACK(0, "duration", "SECONDS", opt_duration,
			"stop sampling after SECONDS (a started job keeps\n"
			"running; diagnose waits for it)"),
	GF_OPT_STRING(0, "samples", "FILE", struct diagnose_args, o.samples,
		      "write every interval's samples to FILE, one JSON\n"
		      "object a line, for --replay"),
	GF_OPT_STRING(0, "replay", "FILE", struct diagnose_args, replay,
		      "the verdict on samples written by --samples; no job"),
	GF_OPT_CALLBACK(0, "no-nccl-log", NULL, opt_no_nccl_log,
			"leave NCCL's logging as the environment has it\n"
			"(by default the job writes NCCL's INFO log where\n"
			"diagnose reads it)"),
	GF_OPT_STRING(0, "report", "FILE", struct diagnose_args, report,
		      "write the report to FILE (atomically) instead of\n"
		      "standard output, apart from the job's output"),
	GF_OPT_COMMON("json", "the report as JSON"),
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_diagnose_def = {
	.name = "diagnose",
	.args = "[OPTIONS] -- CMD [ARG...] | --pid PID | --replay FILE",
	.summary = "run or watch a job and say what it waits for: input, communication, compute or the host",
	.description =
		"Runs CMD (or attaches to --pid PID) and samples it at a low rate while it\n"
		"runs: the GPUs it has open (SM activity, PCIe and NVLink traffic beside\n"
		"their limits, through NVML), each rank's step thread (its time on a CPU\n"
		"and waiting for one, from schedstat, and what it is blocked in: a file, a\n"
		"pipe or socket, the GPU, a sleep, another thread), the process's I/O and\n"
		"its descendants' CPU, its cgroup's CPU throttling, and the busiest disk.\n"
		"At the end it prints a verdict with numbers: input-bound (which part:\n"
		"the disk, another process such as loader workers, gpufeed's loader, the\n"
		"host-to-GPU copy), communication-bound, compute-bound or host-bound (its\n"
		"own CPU work, CPU contention, sleeping, waiting for its other threads);\n"
		"the share of the time each part takes, the speed-up if that part took no\n"
		"time, and the gpufeed feature that addresses it.\n"
		"\n"
		"Steps: the job runs with GPUFEED_DIAGNOSE set, so gf_step() in C,\n"
		"gpufeed.step() in Python and gpufeed's loader publish each step's end and\n"
		"the time the training loop waited for a batch.  Without markers the step\n"
		"is inferred from the GPU's periodic activity, or the report says there\n"
		"are no step boundaries.  A process that publishes markers is a rank; the\n"
		"children of gpufeed launch, torchrun or mpirun are ranks too, each\n"
		"sampled on its own, and a rank whose input stall shows as the others'\n"
		"wait in collectives is named.  NCCL's INFO log, written where diagnose\n"
		"reads it, is analysed as 'gpufeed nccl log' does.\n"
		"\n"
		"The report goes to standard output after the job's own output, or to\n"
		"--report FILE.  Exit status: the job's own (its exit code, 128+N when\n"
		"signal N killed it), so diagnose can wrap a job in a script; 126/127 when\n"
		"CMD could not be executed/found; 2 or 3 (below) when diagnose itself\n"
		"failed.  The verdict never changes the exit status: read it from the\n"
		"report or --json.  With --pid or --replay: 0 when a verdict was printed.\n"
		"SIGINT, SIGTERM and SIGHUP stop the sampling: a job diagnose started gets\n"
		"SIGTERM once and diagnose reports when it has exited.\n",
	.opts = diagnose_opts,
	.exits = { "the job exited 0; with --pid or --replay, a verdict was printed", NULL,
		   "also --pid or --replay with CMD, a malformed number", 
		   "--pid names no process; --replay FILE unreadable or not samples (the\n"
		   "line named); --samples or --report FILE not written",
		   NULL },
	.footer = "How the verdict is reached, and its limits: docs/diagnose.md.  JSON schema:\n"
		  "docs/json-diagnose.md (\"schema\": \"" GF_DIAGNOSE_SCHEMA "\").\n",
	.run = gf_cmd_diagnose,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int check_args(struct gf_cli *cli, struct diagnose_args *a, int dashes, int argc)
{
	int modes = (dashes >= 0) + (a->pid != NULL) + (a->replay != NULL);
	char *end;
	long v;

	if (modes != 1)
		return gf_cli_usage(cli, modes ? "-- CMD, --pid PID and --replay FILE: one of them"
					       : "put '--' before the command to run (or --pid PID, --replay FILE)");
	if (dashes >= 0 && dashes == argc - 1)
		return gf_cli_usage(cli, "no command after '--'");
	if (a->pid) {
		v = strtol(a->pid, &end, 10);
		if (end == a->pid || *end || v <= 0 || v > 0x3fffffff)
			return gf_cli_usage(cli, "--pid: '%s' is not a process id", a->pid);
		a->o.pid = (pid_t)v;
	}
	if (a->replay && a->o.samples)
		return gf_cli_usage(cli, "--samples records a run; --replay reads one: not both");
	if (a->report && !*a->report)
		return gf_cli_usage(cli, "--report: empty path");
	if (a->o.samples && !*a->o.samples)
		return gf_cli_usage(cli, "--samples: empty path");
	return -1;
}

static int write_report(struct gf_cli *cli, const struct diagnose_args *a, struct gf_diagnosis *d)
{
	int ret;

	if (a->report)
		ret = gf_diagnose_save(d, a->report, cli->json);
	else {
		ret = cli->json ? gf_diagnose_write_json(d, stdout) : gf_diagnose_print(d, stdout);
		if (!ret && fflush(stdout))
			ret = -EIO;
	}
	return ret ? gf_cli_fail(cli, ret) : GF_EXIT_OK;
}

/* The job's status as a shell gives it. */
static int job_exit(int status)
{
	if (status < 0)
		return GF_EXIT_OK;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return GF_EXIT_INPUT;
}

int gf_cmd_diagnose(int argc, char **argv)
{
	struct diagnose_args a = { .o = GF_DIAGNOSE_OPTS_INIT };
	int dashes = gf_cli_find_dashes(argc, argv), nopt = dashes < 0 ? argc : dashes, ret, job;
	struct sigaction sa = { .sa_handler = on_signal };
	struct gf_diagnosis *d = NULL;
	struct gf_cli cli;

	gf_cli_init(&cli, "diagnose");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_diagnose_def, nopt, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, nopt, argv)) >= 0 || (ret = check_args(&cli, &a, dashes, argc)) >= 0)
		return ret;
	if (a.replay) {
		if ((ret = gf_diagnose_replay(a.replay, &d)))
			return gf_cli_fail(&cli, ret);
		ret = write_report(&cli, &a, d);
		gf_diagnose_free(d);
		return ret;
	}
	if (dashes >= 0)
		a.o.argv = argv + dashes + 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	a.o.stop = &stop;
	if ((ret = gf_diagnose_run(&a.o, &d))) {
		int err = -ret;

		if (a.o.argv && (err == ENOENT || err == EACCES || err == ENOEXEC || err == ENOTDIR)) {
			fprintf(stderr, "gpufeed diagnose: %s\n", gf_last_error());
			return err == ENOENT || err == ENOTDIR ? DIAG_EXIT_NOT_FOUND : DIAG_EXIT_CANNOT_EXEC;
		}
		return gf_cli_fail(&cli, ret);
	}
	job = job_exit(gf_diagnose_job_status(d));
	ret = write_report(&cli, &a, d);
	gf_diagnose_free(d);
	/* the job's failure first: a report that could not be written only
	 * fails a job that succeeded */
	return job ? job : ret;
}
