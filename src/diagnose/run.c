/* The runner: starts the job (or attaches), samples it at a low rate until
 * it ends, reads NCCL's log, and reaches the verdict. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/audit.h>
#include <gpufeed/env.h>
#include <gpufeed/monitor.h>
#include <gpufeed/nccl.h>
#include <gpufeed/outfile.h>
#include "core/atomic.h"
#include "core/env_export.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/opts.h"
#include "core/proc.h"
#include "core/rmtree.h"
#include "core/sigclean.h"
#include "core/stepchan.h"
#include "diagnose/diagnose_internal.h"
#include "diagnose/probe.h"

/* env(1)'s codes for a command that could not be run, as the child's exit. */
enum { EXIT_CANNOT_EXEC = 126, EXIT_NOT_FOUND = 127 };

struct rank {
	struct gf_probe probe;
	struct gf_monitor *mon;		/* the process with its descendants: CPU, I/O, faults, cgroup */
	int job_rank;			/* RANK in its environment, -1 none */
	bool chan;			/* it publishes step markers */
	struct gf_stepchan_counters prev;
};

struct runner {
	const struct gf_diagnose_opts *o;
	struct gf_diagnosis *d;
	char dir[4096];			/* the step channel's directory */
	bool own_dir;
	int dir_slot;
	pid_t root;
	bool child;			/* root is diagnose's own child */
	bool exited;
	bool launcher;			/* root starts ranks: its children are them */
	struct rank ranks[GF_DIAG_MAX_RANKS];
	unsigned nranks;
	struct gf_monitor *mon;
	const struct gf_topo *topo;
	FILE *samples;
	char samples_tmp[4200];		/* written beside opts.samples, renamed at the end; "" in place */
	char samples_real[4096];
	double t0;
};

static double cpu_self(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec * 1e-6;
}

/* The rank's process and its descendants (its loader's worker processes)
 * through the monitor: a rank without one has those figures unknown. */
static void open_rank_monitor(struct runner *r, struct rank *k)
{
	struct gf_monitor_opts mo = GF_MONITOR_OPTS_INIT;
	const struct gf_mon_sample *s;

	mo.root = r->o->machine ? r->o->machine->root : NULL;
	mo.parts = GF_MON_PROC;
	mo.pid = k->probe.pid;
	mo.children = true;
	mo.topo = r->topo;
	if (gf_monitor_open(&mo, &k->mon))
		k->mon = NULL;
	else
		(void)gf_monitor_sample(k->mon, &s);	/* primes the counters */
}

static void proc_figures(struct rank *k, struct gf_diag_rank_tick *rt)
{
	const struct gf_mon_sample *s;
	const struct gf_mon_proc *p;

	if (!k->mon || gf_monitor_sample(k->mon, &s) || !(p = s->proc) || !(s->interval_s > 0) || !p->alive)
		return;
	/* the monitor counts the process with its descendants */
	if (!isnan(p->cpu))
		rt->children_cpu = p->cpu > rt->cpu ? p->cpu - rt->cpu : 0;
	rt->read_bps = p->read_bps;
	rt->rchar_bps = p->rchar_bps;
	rt->majflt_ps = p->major_faults_per_s;
	rt->throttled = p->cgroup_throttled;
}

static void close_ranks(struct runner *r)
{
	for (unsigned i = 0; i < r->nranks; i++) {
		gf_monitor_close(r->ranks[i].mon);
		r->ranks[i].mon = NULL;
	}
}

/* The rank the job gave the process (RANK, as torchrun and gpufeed launch
 * set it), so the report names ranks as the job does. */
static int job_rank(pid_t pid)
{
	struct gf_proc p;
	struct gf_fs fs;
	char buf[32], *end;
	bool known;
	long v = -1;

	if (gf_fs_init(&fs, NULL))
		return -1;
	gf_proc_init(&p, &fs, (int)pid);
	if (gf_proc_getenv(&p, gf_env_name(GF_ENV_RANK), buf, sizeof(buf), &known) == 1) {
		v = strtol(buf, &end, 10);
		if (*end || v < 0 || v > 1000000)
			v = -1;
	}
	gf_fs_fini(&fs);
	return (int)v;
}

static int add_rank(struct runner *r, pid_t pid, pid_t tid, bool chan)
{
	struct rank *k;

	for (unsigned i = 0; i < r->nranks; i++)
		if (r->ranks[i].probe.pid == pid) {
			if (chan && !r->ranks[i].chan) {
				r->ranks[i].chan = true;
				r->ranks[i].probe.tid = tid > 0 ? tid : pid;
			}
			return 0;
		}
	if (r->nranks >= GF_DIAG_MAX_RANKS)
		return 0;
	k = &r->ranks[r->nranks];
	memset(k, 0, sizeof(*k));
	if (gf_probe_open(&k->probe, pid, tid))
		return 0;	/* gone already */
	k->chan = chan;
	k->job_rank = job_rank(pid);
	open_rank_monitor(r, k);
	r->nranks++;
	return 0;
}

/* Once processes publish markers, they are the ranks (not a wrapper, not
 * a launcher's helpers, not a loader's worker processes): true then. */
static bool keep_publishers(struct runner *r)
{
	unsigned j = 0;
	bool any = false;

	for (unsigned i = 0; i < r->nranks; i++)
		any |= r->ranks[i].chan;
	if (!any)
		return false;
	for (unsigned i = 0; i < r->nranks; i++) {
		if (r->ranks[i].chan)
			r->ranks[j++] = r->ranks[i];
		else
			gf_monitor_close(r->ranks[i].mon);
	}
	r->nranks = j;
	return true;
}

/* Processes that publish step markers are the ranks; the job's first
 * process is one until a channel names others, and a launcher's
 * (gpufeed launch, torchrun) children are. */
static void find_ranks(struct runner *r)
{
	struct gf_stepchan_counters c;
	char path[4400];
	struct dirent *e;
	DIR *dir = opendir(r->dir);

	while (dir && (e = readdir(dir))) {
		if (strncmp(e->d_name, GF_STEPCHAN_PREFIX, strlen(GF_STEPCHAN_PREFIX)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->dir, e->d_name);
		if (!gf_stepchan_read(path, &c) && kill(c.pid, 0) == 0)
			add_rank(r, c.pid, c.tid, true);
	}
	if (dir)
		closedir(dir);
	if (keep_publishers(r))
		return;
	if (r->launcher) {
		pid_t kids[GF_DIAG_MAX_RANKS];
		int n = gf_probe_children(r->root, kids, GF_DIAG_MAX_RANKS);

		for (int i = 0; i < n; i++)
			add_rank(r, kids[i], 0, false);
	}
	if (!r->nranks && !r->launcher)
		add_rank(r, r->root, 0, false);
}

/* The model's GPU of a /dev/nvidiaN minor, then its sample. */
static const struct gf_mon_gpu *gpu_of_minor(const struct runner *r, const struct gf_mon_sample *s, int minor)
{
	for (int g = 0; r->topo && g < r->topo->ngpus; g++) {
		if (r->topo->gpus[g].minor != minor)
			continue;
		for (unsigned i = 0; i < s->ngpus; i++)
			if (s->gpus[i].index == g)
				return &s->gpus[i];
	}
	return NULL;
}

/* A rank's GPU figures: the mean activity of the GPUs it has open, host-to-
 * GPU bytes against the PCIe limit, GPU-to-GPU bytes against NVLink's (or,
 * without NVLink, the traffic both ways over PCIe: a collective through
 * host memory sends as much as it receives). */
static void gpu_figures(struct runner *r, const struct gf_mon_sample *s, const struct gf_probe *p,
			struct gf_diag_rank_tick *rt)
{
	double act = 0, rx = 0, lim = 0, link = NAN;
	unsigned n = 0;

	for (unsigned i = 0; i < p->ngpus; i++) {
		const struct gf_mon_gpu *g = gpu_of_minor(r, s, p->gpu_minor[i]);
		double l;

		if (!g || isnan(g->sm_active))
			continue;
		if (!r->d->gpu_source)
			r->d->gpu_source = g->activity_source;
		act += g->sm_active;
		n++;
		if (!isnan(g->pcie_rx_bps) && g->pcie_limit_bps > 0) {
			rx += g->pcie_rx_bps;
			lim += g->pcie_limit_bps;
		}
		if (!isnan(g->nvlink_tx_bps) && g->nvlink_limit_bps > 0)
			l = g->nvlink_tx_bps / g->nvlink_limit_bps;
		else if (!isnan(g->pcie_tx_bps) && !isnan(g->pcie_rx_bps) && g->pcie_limit_bps > 0)
			l = fmin(g->pcie_tx_bps, g->pcie_rx_bps) / g->pcie_limit_bps;
		else
			continue;
		link = isnan(link) || l > link ? l : link;
	}
	if (!n)
		return;
	rt->gpu_active = act / n;
	rt->pcie_rx_frac = lim > 0 ? rx / lim : NAN;
	rt->link_frac = link;
}

static void disk_figures(const struct gf_mon_sample *s, struct gf_diag_tick *t)
{
	const struct gf_mon_disk *best = NULL;

	for (unsigned i = 0; s && i < s->ndisks; i++)
		if (!isnan(s->disks[i].busy) && (!best || s->disks[i].busy > best->busy))
			best = &s->disks[i];
	t->disk_busy = t->disk_read_bps = t->disk_limit_bps = NAN;
	if (!best)
		return;
	snprintf(t->disk, sizeof(t->disk), "%s", best->name);
	t->disk_busy = best->busy;
	t->disk_read_bps = best->read_bps;
	t->disk_limit_bps = best->limit_bps;
}

static void channel_figures(struct runner *r, struct rank *k, struct gf_diag_rank_tick *rt)
{
	struct gf_stepchan_counters c;
	char path[4400];

	if (!k->chan || gf_stepchan_path(r->dir, k->probe.pid, path, sizeof(path)) || gf_stepchan_read(path, &c))
		return;
	/* steps timed: the first marker ends a step whose start nobody saw,
	 * and step_sum_ns holds the times between markers */
	rt->steps = c.steps - k->prev.steps - (k->prev.steps == 0 && c.steps > 0);
	rt->step_s = (double)(c.step_sum_ns - k->prev.step_sum_ns) * 1e-9;
	rt->input_wait_s = (double)(c.input_wait_ns - k->prev.input_wait_ns) * 1e-9;
	rt->input_bytes = c.input_bytes - k->prev.input_bytes;
	if (c.tid > 0)
		k->probe.tid = c.tid;
	k->prev = c;
}

static int write_sample(struct runner *r, const struct gf_diag_tick *t)
{
	json_t *o;
	char *text;
	int ret = 0;

	if (!r->samples)
		return 0;
	o = gf_diag_tick_json(t);
	text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6));
	json_decref(o);
	if (!text)
		return gf_error(-ENOMEM, "diagnose: out of memory");
	if (fprintf(r->samples, "%s\n", text) < 0)
		ret = gf_error(-EIO, "%s: %s", r->o->samples, strerror(errno));
	else
		r->d->samples_bytes += strlen(text) + 1;
	free(text);
	return ret;
}

/* A first process that spent the interval in wait4 (a shell, a launcher
 * diagnose does not know by name) is not the job: its children are. */
static bool become_launcher(struct runner *r)
{
	pid_t kid;

	if (r->launcher || r->nranks != 1 || r->ranks[0].chan || r->ranks[0].probe.pid != r->root ||
	    r->ranks[0].probe.waiting_child_frac < 0.5 || gf_probe_children(r->root, &kid, 1) < 1)
		return false;
	r->launcher = true;
	close_ranks(r);
	r->nranks = 0;
	find_ranks(r);
	return true;
}

static int interval(struct runner *r, unsigned *gpu_refresh)
{
	const struct gf_mon_sample *s = NULL;
	struct gf_diag_tick t;
	unsigned alive = 0;
	double now;
	int ret;

	find_ranks(r);
	if (r->mon && gf_monitor_sample(r->mon, &s))
		s = NULL;
	now = gf_probe_now();
	memset(&t, 0, sizeof(t));
	t.t = now - r->t0;
	disk_figures(s, &t);
	for (unsigned i = 0; i < r->nranks; i++) {
		struct rank *k = &r->ranks[i];
		struct gf_diag_rank_tick *rt = &t.rank[i];

		/* a rank keeps its slot when it exits: the others keep their index */
		t.nranks = i + 1;
		rt->pid = k->probe.pid;
		rt->gone = true;
		if (!k->probe.alive)
			continue;
		t.dt = now - k->probe.t0;
		gf_probe_interval(&k->probe, now, rt);
		if (!k->probe.alive) {
			rt->gone = true;
			continue;
		}
		alive++;
		/* the GPUs a rank opens: again every 10 intervals */
		if (*gpu_refresh % 10 == 0)
			gf_probe_gpus(&k->probe);
		proc_figures(k, rt);
		if (s && s->interval_s > 0)
			gpu_figures(r, s, &k->probe, rt);
		channel_figures(r, k, rt);
	}
	(*gpu_refresh)++;
	if (become_launcher(r))
		return 0;	/* this interval was the wrapper's: its children are sampled from now */
	if (!alive || !(t.dt > 0))
		return 0;
	if ((ret = gf_diag_acc_add(&r->d->acc, &t)))
		return ret;
	return write_sample(r, &t);
}

static bool root_alive(struct runner *r)
{
	int status;

	if (r->child) {
		if (r->exited)
			return false;
		if (waitpid(r->root, &status, WNOHANG) == r->root) {
			r->d->status = status;
			r->exited = true;
			return false;
		}
		return true;
	}
	return kill(r->root, 0) == 0 || errno == EPERM;
}

static void sleep_until(double t)
{
	double now = gf_probe_now();
	struct timespec ts;

	if (t <= now)
		return;
	ts.tv_sec = (time_t)(t - now);
	ts.tv_nsec = (long)((t - now - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);	/* a signal ends it early: the loop looks again */
}

static int loop(struct runner *r)
{
	const struct gf_diagnose_opts *o = r->o;
	double state_dt = 1.0 / o->state_hz, next_state, next_tick, end = 0, cpu0 = cpu_self();
	unsigned gpu_refresh = 0;
	bool termed = false;
	int ret = 0;

	r->t0 = gf_probe_now();
	next_state = r->t0;
	next_tick = r->t0 + o->interval_s;
	if (o->duration_s > 0)
		end = r->t0 + o->duration_s;
	find_ranks(r);
	while (root_alive(r)) {
		double now = gf_probe_now();

		if (o->stop && *o->stop) {
			if (!r->child)
				break;
			if (!termed) {
				kill(r->root, SIGTERM);
				termed = true;
			}
		}
		if (end && now >= end)
			break;
		if (now >= next_state) {
			for (unsigned i = 0; i < r->nranks; i++)
				gf_probe_state(&r->ranks[i].probe);
			next_state += state_dt;
			if (next_state < now)
				next_state = now + state_dt;
		}
		if (now >= next_tick) {
			if ((ret = interval(r, &gpu_refresh)))
				break;
			next_tick += o->interval_s;
			if (next_tick < now)
				next_tick = now + o->interval_s;
		}
		sleep_until(fmin(next_state, next_tick));
	}
	/* the last part of an interval: a short job still has its samples */
	if (!ret && gf_probe_now() - r->t0 > 0.05)
		ret = interval(r, &gpu_refresh);
	/* markers published after a rank's last interval (it exited) */
	for (unsigned i = 0; i < r->nranks && i < r->d->acc.nranks; i++) {
		struct gf_diag_rank_tick rt = { 0 };

		channel_figures(r, &r->ranks[i], &rt);
		r->d->acc.rank[i].steps += rt.steps;
		r->d->acc.rank[i].step_s += rt.step_s;
		r->d->acc.rank[i].input_wait_s += rt.input_wait_s;
		r->d->acc.rank[i].input_bytes += rt.input_bytes;
	}
	r->d->self_cpu_s = cpu_self() - cpu0;
	return ret;
}

/* The child: the channel and NCCL's log to the private directory, then the
 * job.  An exec failure goes back through the pipe. */
static void child(const struct runner *r, int fd)
{
	int err;

	/* gpufeed ignores SIGPIPE for itself; the job starts with the default */
	signal(SIGPIPE, SIG_DFL);
	if (gf_env_export(gf_env_name(GF_ENV_DIAGNOSE), r->dir) || (r->o->nccl_log && gf_nccl_log_capture(r->dir)))
		err = errno ? errno : EINVAL;
	else {
		execvp(r->o->argv[0], r->o->argv);
		err = errno;
	}
	if (write(fd, &err, sizeof(err)) < 0)
		_exit(EXIT_CANNOT_EXEC);
	_exit(err == ENOENT || err == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
}

static int start(struct runner *r)
{
	int fds[2], err = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return gf_error(-errno, "diagnose: pipe: %s", strerror(errno));
	fflush(NULL);
	if ((pid = fork()) < 0) {
		err = errno;
		close(fds[0]);
		close(fds[1]);
		return gf_error(-err, "diagnose: fork: %s", strerror(err));
	}
	if (pid == 0) {
		close(fds[0]);
		child(r, fds[1]);
	}
	close(fds[1]);
	do
		n = read(fds[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	r->root = pid;
	r->child = true;
	if (n == sizeof(err)) {
		waitpid(pid, &r->d->status, 0);
		return gf_error(-err, "%s: %s", r->o->argv[0], strerror(err));
	}
	return 0;
}

static bool is_launcher(pid_t pid)
{
	char comm[64] = "";
	FILE *f;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((f = fopen(path, "re"))) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
	}
	comm[strcspn(comm, "\n")] = 0;
	return !strcmp(comm, "gpufeed") || !strcmp(comm, "torchrun") || !strcmp(comm, "mpirun");
}

/* Attaching: the job's own GPUFEED_DIAGNOSE, if it was started with one. */
static void attach_dir(struct runner *r)
{
	struct gf_proc p;
	struct gf_fs fs;
	bool known;

	if (gf_fs_init(&fs, NULL))
		return;
	gf_proc_init(&p, &fs, (int)r->root);
	if (gf_proc_getenv(&p, gf_env_name(GF_ENV_DIAGNOSE), r->dir, sizeof(r->dir), &known) != 1)
		r->dir[0] = 0;
	gf_fs_fini(&fs);
	if (!r->dir[0])
		gf_diag_note(r->d, "no step markers: the process was not started with GPUFEED_DIAGNOSE=DIR "
			     "(steps are inferred from the GPU's activity, if any)");
}

static void read_nccl(struct runner *r)
{
	struct gf_nccl_log *l = NULL;
	const struct gf_nccl_finding *f;
	struct dirent *e;
	char path[4400];
	DIR *dir;
	int n;

	if (!r->dir[0] || !(dir = opendir(r->dir)))
		return;
	while ((e = readdir(dir))) {
		FILE *fp;

		if (strncmp(e->d_name, "nccl.", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->dir, e->d_name);
		if (!l && gf_nccl_log_new(NULL, &l))
			break;
		if ((fp = fopen(path, "re"))) {
			if (!gf_nccl_log_feed_file(l, e->d_name, fp))
				r->d->nccl_files++;
			fclose(fp);
		}
	}
	closedir(dir);
	if (l && r->d->nccl_files && r->topo && !gf_nccl_log_analyse(l, r->topo)) {
		r->d->nccl_clean = gf_nccl_log_clean(l);
		n = gf_nccl_log_findings(l, &f);
		for (int i = 0; i < n && r->d->nnccl < GF_DIAG_MAX_NCCL; i++)
			if (f[i].severity >= GF_SEV_WARN)
				snprintf(r->d->nccl[r->d->nnccl++], sizeof(r->d->nccl[0]), "%s: %s", f[i].id, f[i].text);
	}
	gf_nccl_log_free(l);
}

/* The host settings that bear on the verdict: `gpufeed check` on its
 * categories, the results at warn or worse. */
static void run_checks(struct runner *r)
{
	struct gf_audit_options ao = GF_AUDIT_OPTS_INIT;
	const char *cats = gf_diag_check_categories(&r->d->v);
	struct gf_diagnosis *d = r->d;
	struct gf_audit *a;

	if (!cats)
		return;
	ao.machine = r->o->machine;
	ao.model = r->topo;
	ao.only = cats;
	if (gf_audit_run(&ao, &a)) {
		gf_diag_note(d, "gpufeed check --only %s did not run: %s", cats, gf_last_error());
		return;
	}
	snprintf(d->check_categories, sizeof(d->check_categories), "%s", cats);
	for (int i = 0; i < a->nresults; i++) {
		const struct gf_check_result *c = &a->results[i];

		if (c->status < GF_CHECK_WARN)
			continue;
		if (d->ncheck_results < GF_DIAG_MAX_NCCL)
			snprintf(d->checks[d->ncheck_results], sizeof(d->checks[0]), "%s %s%s%s: %s (expected %s)",
				 gf_check_status_name(c->status), c->check->id, c->subject[0] ? " " : "", c->subject,
				 c->observed, c->expected);
		d->ncheck_results++;
	}
	gf_audit_free(a);
}

static void open_monitor(struct runner *r)
{
	struct gf_monitor_opts mo = GF_MONITOR_OPTS_INIT;
	const struct gf_mon_sample *s;

	mo.root = r->o->machine ? r->o->machine->root : NULL;
	mo.parts = GF_MON_GPU | GF_MON_DISK;
	if (gf_monitor_open(&mo, &r->mon)) {
		gf_diag_note(r->d, "no GPU or disk figures: %s", gf_last_error());
		r->mon = NULL;
		return;
	}
	r->topo = gf_monitor_topo(r->mon);
	/* the first sample primes the counters */
	if (!gf_monitor_sample(r->mon, &s) && s->gpu_why)
		gf_diag_note(r->d, "no GPU figures: %s", s->gpu_why);
}

static int check_opts(const struct gf_diagnose_opts *o)
{
	int ret;

	if (!o)
		return gf_arg_error("gf_diagnose_run", "opts is NULL");
	if ((ret = gf_opts_check(o->struct_size, sizeof(*o), "gf_diagnose_run", "GF_DIAGNOSE_OPTS_INIT")))
		return ret;
	if (!o->argv == !(o->pid > 0))
		return gf_arg_error("gf_diagnose_run", "give a job to run (argv) or a pid to attach to, one of them");
	if (o->argv && !o->argv[0])
		return gf_arg_error("gf_diagnose_run", "argv is empty");
	if (!(o->interval_s >= 0.05 && o->interval_s <= 3600))
		return gf_arg_error("gf_diagnose_run", "interval_s %g is outside [0.05, 3600]", o->interval_s);
	if (!(o->state_hz >= 1 && o->state_hz <= 1000))
		return gf_arg_error("gf_diagnose_run", "state_hz %g is outside [1, 1000]", o->state_hz);
	if (o->duration_s < 0 || isnan(o->duration_s))
		return gf_arg_error("gf_diagnose_run", "duration_s %g is negative", o->duration_s);
	return 0;
}

static void describe_job(struct runner *r)
{
	size_t n = 0;

	if (!r->o->argv) {
		snprintf(r->d->job, sizeof(r->d->job), "pid %d", (int)r->root);
		return;
	}
	for (char *const *a = r->o->argv; *a && n + 1 < sizeof(r->d->job); a++) {
		int w = snprintf(r->d->job + n, sizeof(r->d->job) - n, "%s%s", n ? " " : "", *a);

		if (w < 0)
			break;
		n += (size_t)w;
	}
	for (char *c = r->d->job; *c; c++)
		if (*c == '\n' || *c == '\t')
			*c = ' ';
}

static int private_dir(struct runner *r)
{
	const char *tmp = gf_env_str(GF_ENV_TMPDIR);
	int ret;

	if (snprintf(r->dir, sizeof(r->dir), "%s/gpufeed-diagnose.XXXXXX", tmp ? tmp : "/tmp") >= (int)sizeof(r->dir))
		return gf_error(-ENAMETOOLONG, "TMPDIR: %s: too long", tmp);
	if ((ret = gf_sigclean_mkdtemp(r->dir, &r->dir_slot)))
		return gf_error(ret, "%s: cannot make diagnose's directory: %s", r->dir, strerror(-ret));
	r->own_dir = true;
	return 0;
}

/* The samples file follows the rule for a path a user names to write
 * (<gpufeed/outfile.h>): a temporary file beside a regular one, renamed at
 * the end; a FIFO or a device written in place. */
static int open_samples(struct runner *r)
{
	enum gf_outfile_mode mode;
	int fd, ret;

	if ((ret = gf_outfile_check(r->o->samples, r->samples_real, sizeof(r->samples_real), &mode)))
		return ret;
	if (mode == GF_OUTFILE_IN_PLACE) {
		if (!(r->samples = fopen(r->samples_real, "ae")))
			return gf_error(-errno, "%s: %s", r->o->samples, strerror(errno));
		return 0;
	}
	if ((fd = gf_atomic_tmp(r->samples_real, r->samples_tmp, sizeof(r->samples_tmp))) < 0)
		return fd;
	if (!(r->samples = fdopen(fd, "w"))) {
		ret = gf_error(-errno, "%s: %s", r->o->samples, strerror(errno));
		close(fd);
		unlink(r->samples_tmp);
		r->samples_tmp[0] = 0;
		return ret;
	}
	return 0;
}

static int close_samples(struct runner *r, int ret)
{
	if (!r->samples)
		return ret;
	if ((fflush(r->samples) || ferror(r->samples)) && !ret)
		ret = gf_error(-EIO, "%s: %s", r->o->samples, strerror(errno ? errno : EIO));
	if (fclose(r->samples) && !ret)
		ret = gf_error(-EIO, "%s: %s", r->o->samples, strerror(errno));
	r->samples = NULL;
	if (r->samples_tmp[0]) {
		if (!ret && chmod(r->samples_tmp, 0644))
			ret = gf_error(-errno, "%s: %s", r->o->samples, strerror(errno));
		if (ret)
			unlink(r->samples_tmp);
		else
			ret = gf_outfile_rename(r->samples_tmp, r->samples_real);
	}
	return ret;
}

GF_API int gf_diagnose_run(const struct gf_diagnose_opts *o, struct gf_diagnosis **out)
{
	struct runner *r;
	int ret;

	if (out)
		*out = NULL;
	if (!out)
		return GF_NULL_ARG("out");
	if ((ret = check_opts(o)))
		return ret;
	if (!(r = calloc(1, sizeof(*r))) || !(r->d = calloc(1, sizeof(*r->d)))) {
		free(r);
		return gf_error(-ENOMEM, "diagnose: out of memory");
	}
	r->o = o;
	r->dir_slot = -1;
	gf_diag_acc_init(&r->d->acc);
	r->d->status = -1;
	if (o->samples && (ret = open_samples(r)))
		goto out;
	if (o->pid > 0) {
		r->d->mode = "attach";
		r->root = o->pid;
		if (kill(o->pid, 0) && errno == ESRCH) {
			ret = gf_error(-ESRCH, "%d: no such process", (int)o->pid);
			goto out;
		}
		attach_dir(r);
	} else {
		r->d->mode = "run";
		if ((ret = private_dir(r)))
			goto out;
	}
	open_monitor(r);
	if (o->argv && (ret = start(r)))
		goto out;
	r->d->pid = r->root;
	r->launcher = is_launcher(r->root);
	describe_job(r);
	ret = loop(r);
	/* the job outlives a sampling stopped early: diagnose waits for its own */
	if (r->child && !r->exited && waitpid(r->root, &r->d->status, 0) == r->root)
		r->exited = true;
	for (unsigned i = 0; i < GF_DIAG_MAX_RANKS; i++)
		r->d->job_rank[i] = i < r->nranks ? r->ranks[i].job_rank : -1;
	if (!ret) {
		read_nccl(r);
		gf_diag_classify(&r->d->acc, &r->d->v);
		run_checks(r);
		for (unsigned i = 0; i < r->nranks; i++)
			if (r->ranks[i].probe.syscall_denied) {
				gf_diag_note(r->d, "pid %d: /proc/PID/task/TID/syscall refused (ptrace access): "
					     "blocked time split from the thread state only", (int)r->ranks[i].probe.pid);
				break;
			}
	}
out:
	ret = close_samples(r, ret);
	close_ranks(r);
	gf_monitor_close(r->mon);
	if (r->own_dir) {
		gf_rmtree(r->dir);
		gf_sigclean_drop(r->dir_slot);
	}
	if (ret) {
		free(r->d);
	} else {
		*out = r->d;
	}
	free(r);
	return ret;
}

GF_API int gf_diagnose_job_status(const struct gf_diagnosis *d)
{
	return d ? d->status : -1;
}

GF_API bool gf_diagnose_known(const struct gf_diagnosis *d)
{
	return d && d->v.known;
}

GF_API void gf_diagnose_free(struct gf_diagnosis *d)
{
	free(d);
}
