/* The monitor's process part (src/monitor/proc_sample.c): a launcher with
 * two threads and a worker child planted as /proc files in a copy of the
 * hgx-h100-8gpu recording (node 0: CPUs 0-55,112-167; node 1: 56-111,
 * 168-223), sampled twice with a clock the test moves and every figure
 * checked to its exact value; then a real busy child of this process,
 * found among its descendants and seen busy. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <gpufeed/monitor.h>
#include <gpufeed/error.h>

#include "helpers.h"
#include "monitor/monitor_internal.h"

static char *hgx;
static double now_s;
static unsigned long long start_ticks;	/* field 22 of the next put_stat */

static void tick(void *arg, double *mono, double *real)
{
	(void)arg;
	*mono = now_s;
	*real = now_s;
}

static int setup(void **state)
{
	(void)state;
	hgx = t_mkdtemp();
	t_copytree(t_fixture_root("hgx-h100-8gpu"), hgx);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t_rmtree(hgx);
	free(hgx);
	return 0;
}

/* proc(5)'s stat with the fields the monitor reads: 4 ppid, 10 minflt,
 * 12 majflt, 14 utime, 15 stime, 24 rss (pages), 39 processor. */
static void put_stat(const char *rel, unsigned pid, const char *comm, unsigned ppid, unsigned long long minflt,
		     unsigned long long majflt, unsigned long long utime, unsigned long long stime,
		     unsigned long long rss, int cpu)
{
	char line[1024];
	int len = snprintf(line, sizeof(line), "%u (%s) S", pid, comm);

	for (int field = 4; field <= 52; field++) {
		unsigned long long v = field == 4 ? ppid : field == 10 ? minflt : field == 12 ? majflt :
				       field == 14 ? utime : field == 15 ? stime : field == 24 ? rss :
				       field == 22 ? start_ticks : field == 39 ? (unsigned long long)cpu : 0;

		/* Priority and nice may be negative: the parser must skip them. */
		if (field == 18)
			len += snprintf(line + len, sizeof(line) - (size_t)len, " -21");
		else
			len += snprintf(line + len, sizeof(line) - (size_t)len, " %llu", v);
	}
	snprintf(line + len, sizeof(line) - (size_t)len, "\n");
	t_write(hgx, rel, line);
}

static void put(const char *rel, const char *fmt, unsigned long long a, unsigned long long b,
		unsigned long long c)
{
	char text[256];

	snprintf(text, sizeof(text), fmt, a, b, c);
	t_write(hgx, rel, text);
}

/* The launcher 4242 (threads 4242 "trainer" on CPU 60, 4243 "loader" on
 * CPU 3) and its worker 4300 on CPU 112; step 0 and step 1 two seconds
 * apart (in clock ticks of sysconf(_SC_CLK_TCK)). */
static void plant(int step)
{
	unsigned long long hz = (unsigned long long)sysconf(_SC_CLK_TCK);

	put_stat("proc/4242/stat", 4242, "python3", 1, 100 + step * 200, 2 + step * 4, 1000 + step * 2 * hz, 200,
		 1000, 60);
	put_stat("proc/4242/task/4242/stat", 4242, "trainer", 1, 0, 0, 700 + step * 2 * hz, 100, 0, 60);
	put_stat("proc/4242/task/4243/stat", 4243, "loader", 1, 0, 0, 300, 100, 0, 3);
	put("proc/4242/task/4242/schedstat", "%llu %llu %llu\n", 1, 5000000 + step * 500000000ull, 10);
	put("proc/4242/task/4243/schedstat", "%llu %llu %llu\n", 1, 1000000, 1);
	put("proc/4242/task/4242/children", "%llu \n", 4300, 0, 0);
	t_write(hgx, "proc/4242/task/4243/children", "");
	put("proc/4242/io", "rchar: %llu\nwchar: 0\nsyscr: 0\nsyscw: 0\nread_bytes: %llu\nwrite_bytes: %llu\n"
			    "cancelled_write_bytes: 0\n", 1000 + step * 4000, step * 8192, step * 2048);
	put_stat("proc/4300/stat", 4300, "worker", 4242, 10, 0, 50 + step * hz, 0, 500, 112);
	put_stat("proc/4300/task/4300/stat", 4300, "worker", 4242, 0, 0, 50 + step * hz, 0, 0, 112);
	put("proc/4300/task/4300/schedstat", "%llu %llu %llu\n", 1, step * 200000000ull, 0);
	t_write(hgx, "proc/4300/task/4300/children", "");
	put("proc/4300/io", "rchar: %llu\nread_bytes: %llu\nwrite_bytes: %llu\n", 0, 0, step * 1024);
	t_write(hgx, "proc/4242/cgroup", "0::/job.slice/train\n");
	put("sys/fs/cgroup/job.slice/train/cpu.stat",
	    "usage_usec 5\nuser_usec 3\nsystem_usec 2\nnr_periods 9\nnr_throttled 1\nthrottled_usec %llu\n",
	    1000000 + step * 500000ull, 0, 0);
}

static struct gf_monitor *open_proc(int pid, bool children)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	struct gf_mon_hooks h = { .root_is_live = true, .clock = tick };
	struct gf_monitor *m = NULL;

	o.root = hgx;
	o.parts = GF_MON_PROC;
	o.pid = pid;
	o.children = children;
	if (gf_monitor_open_hooked(&o, &h, &m))
		fail_msg("gf_monitor_open: %s", gf_last_error());
	return m;
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void process_figures_exact(void **state)
{
	const struct gf_mon_sample *s;
	const struct gf_mon_proc *p;
	struct gf_monitor *m;

	(void)state;
	now_s = 10;
	plant(0);
	m = open_proc(4242, true);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	p = s->proc;
	assert_non_null(p);
	assert_true(p->alive);
	assert_int_equal(p->pid, 4242);
	assert_int_equal(p->nprocs, 2);
	assert_int_equal(p->nthreads, 3);
	assert_true(isnan(p->cpu));
	assert_true(isnan(p->threads[0].cpu));
	assert_true(isnan(p->cgroup_throttled));
	assert_string_equal(p->cgroup, "/job.slice/train");

	now_s += 2;
	plant(1);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	p = s->proc;
	/* trainer: one CPU; worker: half of one; loader idle. */
	NEAR(p->cpu, 1.5);
	assert_int_equal(p->nthreads, 3);
	assert_int_equal(p->threads[0].tid, 4242);
	assert_string_equal(p->threads[0].comm, "trainer");
	NEAR(p->threads[0].cpu, 1.0);
	assert_int_equal(p->threads[0].last_cpu, 60);
	assert_int_equal(p->threads[0].node, 1);
	NEAR(p->threads[0].runq_wait, 0.25);
	assert_int_equal(p->threads[1].tid, 4300);
	NEAR(p->threads[1].cpu, 0.5);
	assert_int_equal(p->threads[1].node, 0);
	NEAR(p->threads[1].runq_wait, 0.1);
	assert_int_equal(p->threads[2].tid, 4243);
	NEAR(p->threads[2].cpu, 0);
	assert_int_equal(p->threads[2].last_cpu, 3);
	assert_int_equal(p->threads[2].node, 0);
	NEAR(p->runq_wait, 0.35);
	NEAR(p->read_bps, 4096);
	NEAR(p->write_bps, 1024 + 512);
	NEAR(p->rchar_bps, 2000);
	NEAR(p->minor_faults_per_s, 100);
	NEAR(p->major_faults_per_s, 2);
	assert_int_equal(p->rss, 1500ull * (unsigned long long)sysconf(_SC_PAGESIZE));
	NEAR(p->cgroup_throttled, 0.25);

	/* It exits: alive false, the last figures kept. */
	{
		char path[4096];

		snprintf(path, sizeof(path), "%s/proc/4242/stat", hgx);
		assert_int_equal(unlink(path), 0);
	}
	now_s += 1;
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_false(s->proc->alive);
	NEAR(s->proc->cpu, 1.5);
	gf_monitor_close(m);
}

/* The worker exits and a new process gets its pid between two samples
 * (field 22, its start time, differs; its counters start low): it counts
 * from the next sample, and the others' figures stay known. */
static void recycled_pid_counts_afresh(void **state)
{
	const struct gf_mon_sample *s;
	struct gf_monitor *m;

	(void)state;
	now_s = 10;
	plant(0);
	m = open_proc(4242, true);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	now_s += 2;
	plant(1);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	NEAR(s->proc->cpu, 1.5);
	now_s += 2;
	plant(2);
	start_ticks = 99999;
	put_stat("proc/4300/stat", 4300, "worker", 4242, 1, 0, 5, 0, 500, 112);
	put("proc/4300/io", "rchar: %llu\nread_bytes: %llu\nwrite_bytes: %llu\n", 0, 0, 0);
	start_ticks = 0;
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_int_equal(s->proc->nprocs, 2);
	NEAR(s->proc->cpu, 1.0);
	NEAR(s->proc->minor_faults_per_s, 100);
	NEAR(s->proc->write_bps, 1024);
	gf_monitor_close(m);
}

static void without_children_only_the_process(void **state)
{
	const struct gf_mon_sample *s;
	struct gf_monitor *m;

	(void)state;
	now_s = 10;
	plant(0);
	m = open_proc(4242, false);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	now_s += 2;
	plant(1);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_int_equal(s->proc->nprocs, 1);
	assert_int_equal(s->proc->nthreads, 2);
	NEAR(s->proc->cpu, 1.0);
	NEAR(s->proc->write_bps, 1024);
	gf_monitor_close(m);
}

/* A kernel without children files: descendants from every process's
 * parent in its stat. */
static void children_found_by_parent(void **state)
{
	const struct gf_mon_sample *s;
	struct gf_monitor *m;
	char path[4096];

	(void)state;
	now_s = 10;
	plant(0);
	snprintf(path, sizeof(path), "%s/proc/4242/task/4242/children", hgx);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc/4242/task/4243/children", hgx);
	unlink(path);
	put_stat("proc/4301/stat", 4301, "grandchild", 4300, 0, 0, 0, 0, 0, 1);
	put_stat("proc/4400/stat", 4400, "stranger", 1, 0, 0, 0, 0, 0, 1);
	m = open_proc(4242, true);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_int_equal(s->proc->nprocs, 3);
	assert_true(gf_mon_proc_has(m, 4300));
	assert_true(gf_mon_proc_has(m, 4301));
	assert_false(gf_mon_proc_has(m, 4400));
	gf_monitor_close(m);
	snprintf(path, sizeof(path), "%s/proc/4301", hgx);
	t_rmtree(path);
	snprintf(path, sizeof(path), "%s/proc/4400", hgx);
	t_rmtree(path);
}

static void stat_with_odd_comm(void **state)
{
	const struct gf_mon_sample *s;
	struct gf_monitor *m;

	(void)state;
	now_s = 10;
	plant(0);
	/* A comm with ") (" and spaces: the last ')' ends it. */
	put_stat("proc/4242/task/4243/stat", 4243, "a) (b c", 1, 0, 0, 300, 100, 0, 3);
	m = open_proc(4242, false);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_int_equal(s->proc->nthreads, 2);
	assert_true(!strcmp(s->proc->threads[0].comm, "a) (b c") || !strcmp(s->proc->threads[1].comm, "a) (b c"));
	gf_monitor_close(m);
}

/* ---- a real child ---- */

static pid_t spin(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	assert_true(pid >= 0);
	/* The machine may be shared with other busy work: as root, the child
	 * goes first (nice -20), so a busy loop is a busy CPU. */
	if (pid > 0 && geteuid() == 0)
		setpriority(PRIO_PROCESS, (id_t)pid, -20);
	if (pid == 0) {
		volatile unsigned long x = 0;

		/* Never outlive the test, even one that failed half-way. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);

		for (;;)
			x++;
	}
	return pid;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void real_busy_child(void **state)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	const struct gf_mon_sample *s;
	struct gf_monitor *self, *child;
	pid_t pid = spin();
	double best = 0;
	int status;

	(void)state;
	o.parts = GF_MON_PROC;
	o.pid = getpid();
	o.children = true;
	assert_int_equal(gf_monitor_open(&o, &self), 0);
	o.pid = pid;
	o.children = false;
	assert_int_equal(gf_monitor_open(&o, &child), 0);
	assert_int_equal(gf_monitor_sample(self, &s), 0);
	assert_true(gf_mon_proc_has(self, (unsigned)pid));
	assert_true(s->proc->nprocs >= 2);
	assert_int_equal(gf_monitor_sample(child, &s), 0);
	/* A busy loop is one CPU when it runs; on a machine shared with other
	 * work an interval may give it less, so up to ten are tried. */
	for (int i = 0; i < 10 && best <= 0.5; i++) {
		sleep_ms(300);
		assert_int_equal(gf_monitor_sample(child, &s), 0);
		assert_true(s->proc->alive);
		assert_int_equal(s->proc->nthreads, 1);
		if (s->proc->cpu > best)
			best = s->proc->cpu;
		assert_true(s->proc->threads[0].cpu <= 1.05);
		assert_true(s->proc->threads[0].last_cpu >= 0);
	}
	assert_true(best > 0.5);
	assert_int_equal(gf_monitor_sample(self, &s), 0);
	assert_true(gf_mon_proc_has(self, (unsigned)pid));
	assert_true(s->proc->cpu > 0);

	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(gf_monitor_sample(child, &s), 0);
	assert_false(s->proc->alive);
	assert_int_equal(gf_monitor_sample(self, &s), 0);
	assert_false(gf_mon_proc_has(self, (unsigned)pid));
	gf_monitor_close(child);
	gf_monitor_close(self);
}

/* The child's utime + stime as this test reads them, in clock ticks. */
static unsigned long long child_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	assert_non_null(p);
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	assert_int_equal(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st), 2);
	return ut + st;
}

/* The same child on a clock the test sets: the CPU time the monitor saw
 * lies between what the test read just inside and just outside its two
 * samples, whatever else the machine is doing. */
static void real_child_cpu_bracketed(void **state)
{
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	struct gf_mon_hooks h = { .clock = tick };
	const struct gf_mon_sample *s;
	struct gf_monitor *m;
	double hz = (double)sysconf(_SC_CLK_TCK), seen;
	unsigned long long a0, a1, b0, b1;
	pid_t pid = spin();
	int status;

	(void)state;
	o.parts = GF_MON_PROC;
	o.pid = pid;
	assert_int_equal(gf_monitor_open_hooked(&o, &h, &m), 0);
	now_s = 0;
	a0 = child_ticks(pid);
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	a1 = child_ticks(pid);
	for (int i = 0; i < 100 && child_ticks(pid) < a1 + 5; i++)
		sleep_ms(50);
	b0 = child_ticks(pid);
	now_s = 10;
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	b1 = child_ticks(pid);
	seen = s->proc->cpu * 10 * hz;
	assert_true(b0 >= a1 + 5);
	assert_true(seen >= (double)(b0 - a1) - 1e-6);
	assert_true(seen <= (double)(b1 - a0) + 1e-6);
	assert_true(fabs(s->proc->threads[0].cpu * 10 * hz - seen) < 1e-6);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	gf_monitor_close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(process_figures_exact),
		cmocka_unit_test(recycled_pid_counts_afresh),
		cmocka_unit_test(without_children_only_the_process),
		cmocka_unit_test(children_found_by_parent),
		cmocka_unit_test(stat_with_odd_comm),
		cmocka_unit_test(real_busy_child),
		cmocka_unit_test(real_child_cpu_bracketed),
	};

	return cmocka_run_group_tests_name("monitor_proc", tests, setup, teardown);
}
