/* The launch supervisor with real processes: rank-prefixed lines (partial,
 * long, "\r" and "\r\n"), exit codes (the first failure's, 128+N for a
 * signal, 125/127 for a setup or exec failure), the first failure stopping
 * a sleeping sibling within the grace period (SIGKILL for one that ignores
 * SIGTERM), signals forwarded; and the world: options, PET_*, a Slurm step,
 * MASTER_*, defaults, the first host of a Slurm hostlist. */
#include "helpers.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include <gpufeed/launch.h>
#include <gpufeed/topo.h>
#include "launch/hostlist.h"
#include "launch/lines.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- lines ---- */

static char *lines_of(const char *const *chunks, const size_t *lens, int n)
{
	char path[] = "/tmp/gf-lines-XXXXXX";
	int fd = mkstemp(path);
	struct gf_lines l;
	char *out;

	assert_true(fd >= 0);
	assert_int_equal(gf_lines_init(&l, fd, "[3] "), 0);
	for (int i = 0; i < n; i++)
		gf_lines_feed(&l, chunks[i], lens ? lens[i] : strlen(chunks[i]));
	gf_lines_flush(&l);
	gf_lines_free(&l);
	close(fd);
	out = t_read(path);
	unlink(path);
	assert_non_null(out);
	return out;
}

static void lines_split_across_reads(void **state)
{
	const char *chunks[] = { "ab", "c\nd", "e\n\nf" };
	char *out = lines_of(chunks, NULL, 3);

	(void)state;
	/* the partial "f" comes out at the end, with a '\n' */
	assert_string_equal(out, "[3] abc\n[3] de\n[3] \n[3] f\n");
	free(out);
}

static void lines_carriage_return(void **state)
{
	const char *chunks[] = { "10%\r20%\r", "\ndone\r", "\n" };
	char *out = lines_of(chunks, NULL, 3);

	(void)state;
	/* "\r\n" split over two reads is one end of line, not an empty line */
	assert_string_equal(out, "[3] 10%\r[3] 20%\r\n[3] done\r\n");
	free(out);
}

static void lines_long(void **state)
{
	size_t n = GF_LAUNCH_LINE_MAX + 1000;
	char *big = malloc(n + 1), *out;
	const char *chunks[] = { big, "tail\n" };
	size_t lens[] = { n, 5 };

	(void)state;
	memset(big, 'x', n);
	big[n] = '\0';
	out = lines_of(chunks, lens, 2);
	/* first piece: the prefix and GF_LAUNCH_LINE_MAX bytes, then a '\n' */
	assert_int_equal(strncmp(out, "[3] xxx", 7), 0);
	assert_int_equal(out[4 + GF_LAUNCH_LINE_MAX], '\n');
	assert_int_equal(strspn(out + 4, "x"), GF_LAUNCH_LINE_MAX);
	/* second piece: its own prefix, the 1000 left and the tail */
	assert_int_equal(strncmp(out + 5 + GF_LAUNCH_LINE_MAX, "[3] ", 4), 0);
	assert_int_equal(strspn(out + 9 + GF_LAUNCH_LINE_MAX, "x"), 1000);
	assert_string_equal(out + 9 + GF_LAUNCH_LINE_MAX + 1000, "tail\n");
	free(big);
	free(out);
}

/* ---- the supervisor ---- */

struct run {
	struct gf_launch_result res;
	char *out, *err;
	double secs;
	int ret;
};

/* Sets R=<local rank> for the shell scripts, or fails in rank fail_rank;
 * run_sh's runs restart up to max_restarts times. */
static int fail_rank = -1, max_restarts;
static int setup_r(int local, void *arg)
{
	char v[16];

	(void)arg;
	if (local == fail_rank)
		return -EXDEV;
	snprintf(v, sizeof(v), "%d", local);
	return setenv("R", v, 1);
}

static void run_sh(struct run *r, int nproc, const char *script, double grace)
{
	char outp[] = "/tmp/gf-launch-out-XXXXXX", errp[] = "/tmp/gf-launch-err-XXXXXX";
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct gf_launch_options o = GF_LAUNCH_OPTS_INIT;
	double t0;

	o.out_fd = mkstemp(outp);
	o.err_fd = mkstemp(errp);
	assert_true(o.out_fd >= 0 && o.err_fd >= 0);
	o.nproc = nproc;
	o.argv = argv;
	o.setup = setup_r;
	o.grace_s = grace;
	o.max_restarts = max_restarts;
	t0 = now_s();
	r->ret = gf_launch_run(&o, &r->res);
	r->secs = now_s() - t0;
	close(o.out_fd);
	close(o.err_fd);
	r->out = t_read(outp);
	r->err = t_read(errp);
	unlink(outp);
	unlink(errp);
	assert_non_null(r->out);
	assert_non_null(r->err);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

static void prefixes_and_streams(void **state)
{
	struct run r;

	(void)state;
	run_sh(&r, 3, "echo out $R; echo err $R >&2; printf 'partial %s' $R", 5);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.res.exit_code, 0);
	assert_int_equal(r.res.failed_rank, -1);
	for (int i = 0; i < 3; i++) {
		char want[64];

		snprintf(want, sizeof(want), "[%d] out %d\n", i, i);
		assert_non_null(strstr(r.out, want));
		snprintf(want, sizeof(want), "[%d] partial %d\n", i, i);
		assert_non_null(strstr(r.out, want));
		snprintf(want, sizeof(want), "[%d] err %d\n", i, i);
		assert_non_null(strstr(r.err, want));
		assert_null(strstr(r.out, want));	/* stderr stays stderr */
	}
	run_free(&r);
}

static void first_failure_code(void **state)
{
	struct run r;

	(void)state;
	/* rank 1 fails at once; rank 0 sleeps 30 s and must be stopped */
	run_sh(&r, 3, "case $R in 1) echo bye; exit 3;; 0) exec sleep 30;; esac; exit 0", 5);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.res.exit_code, 3);
	assert_int_equal(r.res.failed_rank, 1);
	assert_int_equal(r.res.failed_signal, 0);
	assert_false(r.res.killed);	/* sleep dies of SIGTERM, no SIGKILL needed */
	assert_true(r.secs < 3);
	assert_non_null(strstr(r.out, "[1] bye\n"));
	assert_non_null(strstr(r.err, "rank 1 (pid"));
	assert_non_null(strstr(r.err, "failed first: exit 3"));
	run_free(&r);
}

static void grandchild_stopped_too(void **state)
{
	struct run r;

	(void)state;
	/* rank 0's shell waits on a background sleep that holds the pipes:
	 * the SIGTERM to its process group must reach the sleep as well */
	run_sh(&r, 2, "if [ $R = 0 ]; then sleep 30 & wait; else sleep 0.2; exit 4; fi", 5);
	assert_int_equal(r.res.exit_code, 4);
	assert_true(r.secs < 3);
	run_free(&r);
}

/* Gone, or a zombie its new parent has not reaped yet: not running.
 * (/proc files have no size: read, not t_read.) */
static bool pid_gone(pid_t pid)
{
	char path[64], st[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		return true;
	n = read(fd, st, sizeof(st) - 1);
	close(fd);
	if (n <= 0)
		return true;
	st[n] = '\0';
	paren = strrchr(st, ')');
	return paren && (paren[2] == 'Z' || paren[2] == 'X');
}

static pid_t pid_in(const char *dir, const char *name)
{
	char path[512], *text;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = t_read(path);
	assert_non_null(text);
	pid = (pid_t)atoi(text);
	free(text);
	assert_true(pid > 0);
	return pid;
}

static void leftover_stopped_with_its_rank(void **state)
{
	char *dir = t_mkdtemp(), script[1024];
	struct run r;
	pid_t pid;

	(void)state;
	/* rank 0 leaves a sleep holding its stdout and exits 0: the sleep is
	 * stopped through the rank's group, and the run ends at once */
	snprintf(script, sizeof(script), "sleep 1000 & echo $! > %s/pid; echo bye", dir);
	run_sh(&r, 1, script, 5);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.res.exit_code, 0);
	assert_true(r.secs < 3);
	assert_non_null(strstr(r.out, "[0] bye\n"));
	pid = pid_in(dir, "pid");
	assert_true(pid_gone(pid));	/* the supervisor waited for its group */
	run_free(&r);
	t_rmtree(dir);
	free(dir);
}

static void leftover_writer_does_not_hold_the_supervisor(void **state)
{
	struct run r;

	(void)state;
	/* rank 0 leaves 'yes' writing to its stdout (faster than it can be
	 * read) and exits; rank 1 sleeps a little and says so.  The
	 * supervisor must not sit reading rank 0's pipe: rank 1's line comes
	 * out and the writer is stopped.  (--foreground keeps timeout in the
	 * rank's group; its 10 s only bound a regression, which would
	 * otherwise hang here.) */
	run_sh(&r, 2, "if [ $R = 0 ]; then timeout --foreground 10 yes & exit 0; else sleep 0.3; echo done $R; fi", 5);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.res.exit_code, 0);
	assert_true(r.secs < 3);
	assert_non_null(strstr(r.out, "[1] done 1\n"));
	run_free(&r);
}

static void output_error_reported(void **state)
{
	struct gf_launch_options o = GF_LAUNCH_OPTS_INIT;
	struct gf_launch_result res;
	char *argv[] = { "echo", "hello", NULL };

	(void)state;
	/* a full disk under the ranks' output: the ranks succeed, the output
	 * is lost, and the result says so */
	o.nproc = 2;
	o.argv = argv;
	o.out_fd = open("/dev/full", O_WRONLY);
	o.err_fd = open("/dev/null", O_WRONLY);
	assert_true(o.out_fd >= 0 && o.err_fd >= 0);
	assert_int_equal(gf_launch_run(&o, &res), 0);
	close(o.out_fd);
	close(o.err_fd);
	assert_int_equal(res.exit_code, 0);
	assert_int_equal(res.output_error, -ENOSPC);
}

static void sigkill_after_grace(void **state)
{
	struct run r;

	(void)state;
	/* rank 0 ignores SIGTERM (and so does its sleep): SIGKILL after 0.3 s */
	run_sh(&r, 2, "if [ $R = 0 ]; then trap '' TERM; sleep 30; else sleep 0.2; exit 9; fi", 0.3);
	assert_int_equal(r.res.exit_code, 9);
	assert_int_equal(r.res.failed_rank, 1);
	assert_true(r.res.killed);
	assert_true(r.secs < 3);
	assert_non_null(strstr(r.err, "rank 0"));
	assert_non_null(strstr(r.err, "SIGKILL"));
	run_free(&r);
}

static void signal_is_128_plus(void **state)
{
	struct run r;

	(void)state;
	run_sh(&r, 2, "[ $R = 1 ] && kill -SEGV $$; sleep 30", 5);
	assert_int_equal(r.res.exit_code, 128 + SIGSEGV);
	assert_int_equal(r.res.failed_signal, SIGSEGV);
	assert_int_equal(r.res.failed_rank, 1);
	assert_non_null(strstr(r.err, "killed by signal 11"));
	run_free(&r);
}

static void setup_and_exec_failures(void **state)
{
	struct gf_launch_options o = GF_LAUNCH_OPTS_INIT;
	struct gf_launch_result res;
	char *argv[] = { "/nonexistent/gpufeed-no-such-cmd", NULL };
	struct run r;

	(void)state;
	fail_rank = 0;
	run_sh(&r, 2, "sleep 30", 5);
	fail_rank = -1;
	assert_int_equal(r.res.exit_code, GF_LAUNCH_EXIT_SETUP);
	assert_int_equal(r.res.failed_rank, 0);
	assert_non_null(strstr(r.err, "[0] gpufeed launch: rank 0: "));
	run_free(&r);

	o.nproc = 1;
	o.argv = argv;
	o.err_fd = open("/dev/null", O_WRONLY);
	assert_int_equal(gf_launch_run(&o, &res), 0);
	close(o.err_fd);
	assert_int_equal(res.exit_code, GF_LAUNCH_EXIT_NOTFOUND);
}

/* SIGTERM to this process once rank 0 has set its trap (it creates the
 * file $READY), so a slow start cannot make the test pass or fail. */
static void *send_term(void *arg)
{
	const char *ready = arg;

	for (int i = 0; i < 500 && access(ready, F_OK); i++)
		usleep(10 * 1000);
	kill(getpid(), SIGTERM);
	return NULL;
}

static void signals_forwarded(void **state)
{
	struct sigaction before, after;
	char *dir = t_mkdtemp(), ready[512];
	pthread_t th;
	struct run r;

	(void)state;
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	setenv("READY", ready, 1);
	sigaction(SIGTERM, NULL, &before);
	assert_int_equal(pthread_create(&th, NULL, send_term, ready), 0);
	/* rank 0 catches SIGTERM and says so; rank 1 dies of it (both give
	 * up after a while: a broken forwarding fails, it does not hang) */
	run_sh(&r, 2,
	       "if [ $R = 0 ]; then trap 'echo got-term; exit 0' TERM; : > \"$READY\"; "
	       "for i in $(seq 100); do sleep 0.05; done; else exec sleep 5; fi", 5);
	pthread_join(th, NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.res.forwarded_signal, SIGTERM);
	assert_non_null(strstr(r.out, "[0] got-term\n"));
	assert_int_equal(r.res.failed_rank, 1);
	assert_int_equal(r.res.exit_code, 128 + SIGTERM);
	assert_true(r.secs < 3);
	/* the caller's disposition is back */
	sigaction(SIGTERM, NULL, &after);
	assert_true(after.sa_handler == before.sa_handler);
	run_free(&r);
	unsetenv("READY");
	t_rmtree(dir);
	free(dir);
}

/* Every rank restarts when one fails, up to max_restarts times; each
 * knows which try it is (TORCHELASTIC_RESTART_COUNT) and how many there
 * may be (TORCHELASTIC_MAX_RESTARTS), as under torchrun. */
static void restarts(void **state)
{
	struct run r;

	(void)state;
	max_restarts = 2;
	run_sh(&r, 2, "echo try $TORCHELASTIC_RESTART_COUNT of $TORCHELASTIC_MAX_RESTARTS; "
		      "[ $R = 1 ] && [ $TORCHELASTIC_RESTART_COUNT = 0 ] && exit 3; exit 0", 5);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.res.exit_code, 0);	/* the second try succeeded */
	assert_int_equal(r.res.restarts, 1);
	assert_int_equal(r.res.failed_rank, -1);
	assert_non_null(strstr(r.out, "[1] try 0 of 2\n"));
	assert_non_null(strstr(r.out, "[0] try 1 of 2\n"));
	assert_null(strstr(r.out, "try 2"));
	assert_non_null(strstr(r.err, "restart 1 of 2"));
	run_free(&r);

	/* a failure every time: the last try's */
	run_sh(&r, 1, "exit 4", 5);
	assert_int_equal(r.res.exit_code, 4);
	assert_int_equal(r.res.restarts, 2);
	run_free(&r);
	max_restarts = 0;
}

static void bad_options(void **state)
{
	struct gf_launch_options o = GF_LAUNCH_OPTS_INIT, zero;
	struct gf_launch_result res;
	char *argv[] = { "true", NULL };

	(void)state;
	assert_int_equal(gf_launch_run(&o, &res), -EINVAL);	/* nproc 0 */
	o.nproc = 1;
	assert_int_equal(gf_launch_run(&o, &res), -EINVAL);	/* no command */
	memset(&zero, 0, sizeof(zero));
	zero.nproc = 1;
	zero.argv = argv;
	assert_int_equal(gf_launch_run(&zero, &res), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "GF_LAUNCH_OPTS_INIT"));
}

static void clear_world(void);

/* ---- a bound launch as library calls ---- */

/* Every CPU and node allowed: the fixtures' CPUs are not this machine's. */
static struct gf_topo *load_fixture(const char *machine)
{
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t = NULL;

	o.root = t_fixture_root(machine);
	if (gf_topo_discover(&o, &t))
		fail_msg("%s: %s", machine, gf_last_error());
	return t;
}

static char *plan_json(const struct gf_launch_plan *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *ms = open_memstream(&text, &len);

	assert_non_null(ms);
	assert_int_equal(gf_launch_plan_write_json(p, ms), 0);
	fclose(ms);
	return text;
}

static void plan_on_a_recording(void **state)
{
	struct gf_topo *t = load_fixture("hgx-h100-8gpu");
	struct gf_launch_job_options o = GF_LAUNCH_JOB_OPTS_INIT;
	struct gf_bind_options b = GF_BIND_OPTS_INIT;
	struct gf_launch_plan *p;
	char *argv[] = { "python3", "train.py", NULL }, *json;

	(void)state;
	clear_world();
	b.cpu = GF_BIND_CPU_EXCLUSIVE;
	b.allowed_from_model = true;
	o.argv = argv;
	o.bind = &b;
	o.gpus = "4,5";
	assert_int_equal(gf_launch_plan_new(t, &o, &p), 0);
	assert_int_equal(gf_launch_plan_world(p)->nproc, 2);
	json = plan_json(p);
	/* GPUs 4 and 5, the two launched on node 1, split its 56 cores */
	assert_non_null(strstr(json, "\"cpus\": \"56-83,168-195\""));
	assert_non_null(strstr(json, "\"cpus\": \"84-111,196-223\""));
	assert_non_null(strstr(json, "\"schema\": \"gpufeed-launch/1\""));
	free(json);
	gf_launch_plan_free(p);

	/* every GPU visible: the same list for both, in rank order */
	o.all_gpus_visible = true;
	o.gpus = "5,4";
	assert_int_equal(gf_launch_plan_new(t, &o, &p), 0);
	json = plan_json(p);
	{
		char want[256], *first;

		snprintf(want, sizeof(want), "\"CUDA_VISIBLE_DEVICES\": \"%s,%s\"", t->gpus[5].uuid, t->gpus[4].uuid);
		assert_non_null(first = strstr(json, want));
		assert_non_null(strstr(first + 1, want));
	}
	free(json);
	gf_launch_plan_free(p);
	o.gpus = "4,4";
	assert_int_equal(gf_launch_plan_new(t, &o, &p), -EINVAL);	/* device 1 would not be rank 1's */
	o.all_gpus_visible = false;

	/* errors, each before anything starts */
	o.gpus = "4,9";
	assert_int_equal(gf_launch_plan_new(t, &o, &p), -ENOENT);
	assert_non_null(strstr(gf_last_error(), "'9'"));
	assert_null(p);
	o.gpus = "4,5";
	o.nproc = 3;
	assert_int_equal(gf_launch_plan_new(t, &o, &p), -EINVAL);
	o.gpus = NULL;
	o.nproc = 9;
	assert_int_equal(gf_launch_plan_new(t, &o, &p), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "8 GPUs"));
	o.nproc = 0;
	gf_cpuset_parse_list(&t->cpus.allowed, "0-55,112-167");	/* as if the recording's process had node 0 only */
	assert_int_equal(gf_launch_plan_new(t, &o, &p), -EXDEV);
	assert_non_null(strstr(gf_last_error(), "rank 4: "));
	o.struct_size = 0;
	assert_int_equal(gf_launch_plan_new(t, &o, &p), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "GF_LAUNCH_JOB_OPTS_INIT"));
	gf_topo_free(t);

	t = load_fixture("ci-vm");	/* no GPU */
	o = (struct gf_launch_job_options)GF_LAUNCH_JOB_OPTS_INIT;
	o.argv = argv;
	assert_int_equal(gf_launch_plan_new(t, &o, &p), -ENODEV);
	assert_non_null(strstr(gf_last_error(), "no NVIDIA GPU"));
	gf_topo_free(t);
}

/* gf_launch_job: the model, the plan and the run in one call.  CPUs and
 * memory left alone (this machine's CPUs are not the recording's): what
 * each rank is given is its GPU and its variables. */
static void job_in_one_call(void **state)
{
	struct gf_launch_job_options o = GF_LAUNCH_JOB_OPTS_INIT;
	struct gf_bind_options b = GF_BIND_OPTS_INIT;
	struct gf_launch_result res;
	char outp[] = "/tmp/gf-launch-job-XXXXXX", *out;
	char *argv[] = { "sh", "-c", "echo $RANK/$WORLD_SIZE $CUDA_VISIBLE_DEVICES", NULL };

	(void)state;
	clear_world();
	b.cpu = GF_BIND_CPU_NONE;
	b.mem = GF_BIND_MEM_NONE;
	o.argv = argv;
	o.bind = &b;
	o.machine = T_MACHINE(.root = t_fixture_root("ci-2gpu"));
	o.out_fd = mkstemp(outp);
	assert_true(o.out_fd >= 0);
	assert_int_equal(gf_launch_job(&o, &res), 0);
	close(o.out_fd);
	assert_int_equal(res.exit_code, 0);
	out = t_read(outp);
	unlink(outp);
	assert_non_null(out);
	assert_non_null(strstr(out, "[0] 0/2 GPU-"));
	assert_non_null(strstr(out, "[1] 1/2 GPU-"));
	free(out);
	/* without binding: no model, the variables only */
	o.no_bind = true;
	o.nproc = 1;
	o.machine = T_MACHINE(.root = "/nonexistent");
	o.out_fd = open("/dev/null", O_WRONLY);
	assert_int_equal(gf_launch_job(&o, &res), 0);
	close(o.out_fd);
	assert_int_equal(res.exit_code, 0);
}

/* ---- the world ---- */

static const char *const world_vars[] = { "PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT",
					  "SLURM_STEP_NUM_NODES", "SLURM_NODEID", "SLURM_STEP_NODELIST",
					  "MASTER_ADDR", "MASTER_PORT", "SLURM_NNODES" };

static void clear_world(void)
{
	for (size_t i = 0; i < sizeof(world_vars) / sizeof(world_vars[0]); i++)
		unsetenv(world_vars[i]);
}

static void world_defaults_and_sources(void **state)
{
	struct gf_launch_world w = GF_LAUNCH_WORLD_INIT;

	(void)state;
	clear_world();
	assert_int_equal(gf_launch_world_resolve(&w), 0);
	assert_int_equal(w.nnodes, 1);
	assert_int_equal(w.node_rank, 0);
	assert_int_equal(w.master_port, 29500);
	assert_string_equal(w.master_addr, "127.0.0.1");
	assert_string_equal(w.nnodes_from, "default");

	/* a Slurm step: nodes, node id and the first host */
	setenv("SLURM_STEP_NUM_NODES", "4", 1);
	setenv("SLURM_NODEID", "2", 1);
	setenv("SLURM_STEP_NODELIST", "gpu[07-09,12]", 1);
	w = (struct gf_launch_world)GF_LAUNCH_WORLD_INIT;
	assert_int_equal(gf_launch_world_resolve(&w), 0);
	assert_int_equal(w.nnodes, 4);
	assert_int_equal(w.node_rank, 2);
	assert_string_equal(w.master_addr, "gpu07");
	assert_string_equal(w.master_addr_from, "SLURM_STEP_NODELIST");

	/* torchrun's PET_* and MASTER_* come first; options before all */
	setenv("PET_NNODES", "2", 1);
	setenv("PET_NODE_RANK", "1", 1);
	setenv("MASTER_ADDR", "head.example", 1);
	setenv("MASTER_PORT", "1234", 1);
	w = (struct gf_launch_world)GF_LAUNCH_WORLD_INIT;
	w.master_port = 4321;
	w.master_port_from = "--master-port";
	assert_int_equal(gf_launch_world_resolve(&w), 0);
	assert_int_equal(w.nnodes, 2);
	assert_string_equal(w.nnodes_from, "PET_NNODES");
	assert_int_equal(w.node_rank, 1);
	assert_string_equal(w.master_addr, "head.example");
	assert_string_equal(w.master_addr_from, "MASTER_ADDR");
	assert_int_equal(w.master_port, 4321);
	assert_string_equal(w.master_port_from, "--master-port");
	clear_world();
}

static void world_errors(void **state)
{
	struct gf_launch_world w = GF_LAUNCH_WORLD_INIT;

	(void)state;
	clear_world();
	/* a batch script's shell (no srun step) is not node 1 of 2 */
	setenv("SLURM_NNODES", "2", 1);
	setenv("SLURM_NODEID", "1", 1);
	assert_int_equal(gf_launch_world_resolve(&w), 0);
	assert_int_equal(w.nnodes, 1);
	assert_int_equal(w.node_rank, 0);
	clear_world();

	setenv("MASTER_PORT", "99999", 1);
	w = (struct gf_launch_world)GF_LAUNCH_WORLD_INIT;
	assert_int_equal(gf_launch_world_resolve(&w), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "MASTER_PORT"));
	clear_world();

	w = (struct gf_launch_world)GF_LAUNCH_WORLD_INIT;
	w.nnodes = 2;
	w.nnodes_from = "--nnodes";
	assert_int_equal(gf_launch_world_resolve(&w), -EINVAL);	/* no master address */
	assert_non_null(strstr(gf_last_error(), "master address"));

	w = (struct gf_launch_world)GF_LAUNCH_WORLD_INIT;
	w.nnodes = 2;
	w.node_rank = 2;
	w.nnodes_from = "--nnodes";
	w.node_rank_from = "--node-rank";
	snprintf(w.master_addr, sizeof(w.master_addr), "h");
	w.master_addr_from = "--master-addr";
	assert_int_equal(gf_launch_world_resolve(&w), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "node rank 2"));
}

static void world_setenv(void **state)
{
	struct gf_launch_world w = GF_LAUNCH_WORLD_INIT;

	(void)state;
	clear_world();
	w.nnodes = 2;
	w.node_rank = 1;
	w.nproc = 4;
	w.nnodes_from = w.node_rank_from = "test";
	snprintf(w.master_addr, sizeof(w.master_addr), "head");
	w.master_addr_from = "test";
	assert_int_equal(gf_launch_world_resolve(&w), 0);
	assert_int_equal(gf_launch_world_setenv(&w, 3), 0);
	assert_string_equal(getenv("RANK"), "7");
	assert_string_equal(getenv("LOCAL_RANK"), "3");
	assert_string_equal(getenv("WORLD_SIZE"), "8");
	assert_string_equal(getenv("LOCAL_WORLD_SIZE"), "4");
	assert_string_equal(getenv("GROUP_RANK"), "1");
	assert_string_equal(getenv("MASTER_ADDR"), "head");
	assert_string_equal(getenv("MASTER_PORT"), "29500");
	/* no agent hosts a store: the ranks' rank 0 does (torch's env://) */
	assert_string_equal(getenv("TORCHELASTIC_USE_AGENT_STORE"), "False");
	assert_string_equal(getenv("TORCHELASTIC_RUN_ID"), "none");	/* torchrun's default --rdzv-id */
	/* torchrun's default, and the caller's value when it has one */
	assert_string_equal(getenv("TORCH_NCCL_ASYNC_ERROR_HANDLING"), "1");
	setenv("TORCH_NCCL_ASYNC_ERROR_HANDLING", "3", 1);
	assert_int_equal(gf_launch_world_setenv(&w, 3), 0);
	assert_string_equal(getenv("TORCH_NCCL_ASYNC_ERROR_HANDLING"), "3");
	unsetenv("TORCH_NCCL_ASYNC_ERROR_HANDLING");
	assert_int_equal(gf_launch_world_setenv(&w, 4), -EINVAL);
	clear_world();
}

static void first_host(void **state)
{
	static const struct { const char *in, *want; } ok[] = {
		{ "node1", "node1" }, { "gpu[07-09,12],login1", "gpu07" }, { "a,b", "a" },
		{ "rack[2-3]-n[010-011]", "rack2-n010" }, { "x[5]", "x5" },
	};
	static const char *const bad[] = { "", "gpu[", "gpu[-3]", "gpu[a]", ",x", "a]b" };
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(gf_launch_first_host(ok[i].in, out, sizeof(out)), 0);
		assert_string_equal(out, ok[i].want);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(gf_launch_first_host(bad[i], out, sizeof(out)), -EINVAL);
	assert_int_equal(gf_launch_first_host("averylonghostname", out, 5), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_split_across_reads),
		cmocka_unit_test(lines_carriage_return),
		cmocka_unit_test(lines_long),
		cmocka_unit_test(prefixes_and_streams),
		cmocka_unit_test(first_failure_code),
		cmocka_unit_test(grandchild_stopped_too),
		cmocka_unit_test(leftover_stopped_with_its_rank),
		cmocka_unit_test(leftover_writer_does_not_hold_the_supervisor),
		cmocka_unit_test(output_error_reported),
		cmocka_unit_test(sigkill_after_grace),
		cmocka_unit_test(signal_is_128_plus),
		cmocka_unit_test(setup_and_exec_failures),
		cmocka_unit_test(signals_forwarded),
		cmocka_unit_test(restarts),
		cmocka_unit_test(bad_options),
		cmocka_unit_test(plan_on_a_recording),
		cmocka_unit_test(job_in_one_call),
		cmocka_unit_test(world_defaults_and_sources),
		cmocka_unit_test(world_errors),
		cmocka_unit_test(world_setenv),
		cmocka_unit_test(first_host),
	};

	return cmocka_run_group_tests_name("launch", tests, NULL, NULL);
}
