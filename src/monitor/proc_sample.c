/* The sampled process (opts.pid) and, with children, its descendants:
 * CPU time and faults from /proc/PID/stat, storage bytes from
 * /proc/PID/io, every thread's CPU time and last CPU from task/TID/stat
 * and its run-queue wait from task/TID/schedstat, the cgroup v2 cpu.stat
 * throttled_usec over the interval.  proc(5) ("/proc/pid/stat",
 * "/proc/pid/io", "/proc/pid/task/tid/children"); the kernel's
 * Documentation/scheduler/sched-stats.rst ("/proc/<pid>/schedstat") and
 * Documentation/admin-guide/cgroup-v2.rst ("cpu.stat"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/proc.h"
#include "core/strutil.h"
#include "monitor/monitor_internal.h"

/* Descendants looked for at most: a launcher's ranks and their workers. */
#define MAX_PIDS 4096

struct pid_reading {
	unsigned pid;
	uint64_t start;			/* stat's starttime: tells a recycled pid */
	uint64_t ticks, minflt, majflt, rss_pages;
	uint64_t rchar, read_bytes, write_bytes;
	bool io;			/* /proc/PID/io was readable */
};

struct tid_reading {
	unsigned tid;
	uint64_t ticks;
	uint64_t wait_ns;
	bool has_wait;
	int cpu;
	char comm[16];
};

struct mon_proc {
	struct gf_mon_proc out;
	unsigned *pids;			/* the process and its descendants, last sample */
	unsigned npids;
	struct pid_reading *pr;		/* last sample's, sorted by pid */
	unsigned npr;
	struct tid_reading *tr;		/* last sample's, sorted by tid */
	unsigned ntr;
	bool primed;
	uint64_t throttled_usec;
	bool have_throttled;
	double ticks_per_s;
	long page_size;
};

static int cmp_pid(const void *a, const void *b)
{
	unsigned x = ((const struct pid_reading *)a)->pid, y = ((const struct pid_reading *)b)->pid;

	return (x > y) - (x < y);
}

static int cmp_tid(const void *a, const void *b)
{
	unsigned x = ((const struct tid_reading *)a)->tid, y = ((const struct tid_reading *)b)->tid;

	return (x > y) - (x < y);
}

static int cmp_busiest(const void *a, const void *b)
{
	const struct gf_mon_thread *x = a, *y = b;
	double cx = isnan(x->cpu) ? -1 : x->cpu, cy = isnan(y->cpu) ? -1 : y->cpu;

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* stat's fields after the comm's closing ')': field 3 is the state. */
struct stat_fields {
	char comm[16];
	unsigned ppid;
	uint64_t minflt, majflt, utime, stime, start, rss;
	int cpu;
};

static int parse_stat(const char *text, struct stat_fields *f)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	unsigned long long v[50];
	const char *p;
	size_t n;
	int i;

	if (!open || !close || close < open)
		return -EBADMSG;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(f->comm))
		n = sizeof(f->comm) - 1;
	memcpy(f->comm, open + 1, n);
	f->comm[n] = '\0';
	p = close + 1;
	while (*p == ' ')
		p++;
	if (!*p)
		return -EBADMSG;
	p++;	/* the state letter, field 3 */
	/* v[k] is field k + 4. */
	for (i = 0; i < 50; i++) {
		char *end;

		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		v[i] = strtoull(p, &end, 10);
		if (end == p) {
			v[i] = 0;	/* a negative field (priority, nice) */
			strtoll(p, &end, 10);
			if (end == p)
				return -EBADMSG;
		}
		p = end;
	}
	if (i < 12)		/* through stime, field 15 */
		return -EBADMSG;
	f->ppid = (unsigned)v[0];
	f->minflt = v[6];
	f->majflt = v[8];
	f->utime = v[10];
	f->stime = v[11];
	f->start = i > 18 ? v[18] : 0;		/* field 22 */
	f->rss = i > 20 ? v[20] : 0;		/* field 24 */
	f->cpu = i > 35 ? (int)v[35] : -1;	/* field 39 */
	return 0;
}

static int read_stat(struct gf_monitor *m, const char *path, struct stat_fields *f)
{
	char *text;
	int ret = gf_fs_read(&m->fs, path, &text, NULL);

	if (ret)
		return ret;
	ret = parse_stat(text, f);
	free(text);
	return ret;
}

static bool has_pid(const unsigned *pids, unsigned n, unsigned pid)
{
	for (unsigned i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* Children of pid from its threads' children files; false when the kernel
 * has none (CONFIG_PROC_CHILDREN off). */
static bool children_of(struct gf_monitor *m, unsigned pid, unsigned **pids, unsigned *n, unsigned *cap)
{
	char dir[64], path[96], **tasks = NULL;
	int ntasks = 0;
	bool any = false;

	snprintf(dir, sizeof(dir), "/proc/%u/task", pid);
	if (gf_fs_list(&m->fs, dir, &tasks, &ntasks))
		return true;	/* gone: no children to find */
	for (int i = 0; i < ntasks; i++) {
		char *text, *p, *end;

		snprintf(path, sizeof(path), "%s/%s/children", dir, tasks[i]);
		if (gf_fs_read(&m->fs, path, &text, NULL))
			continue;
		any = true;
		for (p = text;; p = end) {
			unsigned long c = strtoul(p, &end, 10);

			if (end == p)
				break;
			if (*n >= MAX_PIDS || has_pid(*pids, *n, (unsigned)c))
				continue;
			if (*n == *cap) {
				unsigned *np = realloc(*pids, (*cap *= 2) * sizeof(*np));

				if (!np)
					break;
				*pids = np;
			}
			(*pids)[(*n)++] = (unsigned)c;
		}
		free(text);
	}
	gf_strv_free(tasks, ntasks);
	return any;
}

/* Without children files: every process's parent from its stat. */
static void children_by_scan(struct gf_monitor *m, unsigned **pids, unsigned *n, unsigned *cap)
{
	char **names = NULL;
	int nnames = 0;
	bool grew = true;

	if (gf_fs_list(&m->fs, "/proc", &names, &nnames))
		return;
	/* Parents come before children in pid order but for a recycled pid:
	 * pass again until nothing is added. */
	while (grew) {
		grew = false;
		for (int i = 0; i < nnames && *n < MAX_PIDS; i++) {
			struct stat_fields f;
			char path[64];
			unsigned long p = strtoul(names[i], NULL, 10);

			if (!p || has_pid(*pids, *n, (unsigned)p))
				continue;
			snprintf(path, sizeof(path), "/proc/%lu/stat", p);
			if (read_stat(m, path, &f) || !has_pid(*pids, *n, f.ppid))
				continue;
			if (*n == *cap) {
				unsigned *np = realloc(*pids, (*cap *= 2) * sizeof(*np));

				if (!np)
					goto out;
				*pids = np;
			}
			(*pids)[(*n)++] = (unsigned)p;
			grew = true;
		}
	}
out:
	gf_strv_free(names, nnames);
}

static int find_pids(struct gf_monitor *m, struct mon_proc *p)
{
	unsigned cap = 16, n = 1;
	unsigned *pids = malloc(cap * sizeof(*pids));

	if (!pids)
		return gf_error(-ENOMEM, "monitor: out of memory");
	pids[0] = (unsigned)m->pid;
	if (m->children) {
		bool files = true;

		for (unsigned i = 0; i < n && files; i++)
			files = children_of(m, pids[i], &pids, &n, &cap);
		if (!files) {
			n = 1;
			children_by_scan(m, &pids, &n, &cap);
		}
	}
	free(p->pids);
	p->pids = pids;
	p->npids = n;
	return 0;
}

static void read_io(struct gf_monitor *m, struct pid_reading *r)
{
	char path[64], *text, val[32];
	long long v;

	snprintf(path, sizeof(path), "/proc/%u/io", r->pid);
	if (gf_fs_read(&m->fs, path, &text, NULL))
		return;
	r->io = true;
	if (gf_kv_find(text, "rchar", val, sizeof(val)) && !gf_parse_ll(val, &v))
		r->rchar = (uint64_t)v;
	else
		r->io = false;
	if (gf_kv_find(text, "read_bytes", val, sizeof(val)) && !gf_parse_ll(val, &v))
		r->read_bytes = (uint64_t)v;
	else
		r->io = false;
	if (gf_kv_find(text, "write_bytes", val, sizeof(val)) && !gf_parse_ll(val, &v))
		r->write_bytes = (uint64_t)v;
	else
		r->io = false;
	free(text);
}

/* Every thread of pid appended to *tr. */
static int read_threads(struct gf_monitor *m, unsigned pid, struct tid_reading **tr, unsigned *n, unsigned *cap)
{
	char dir[64], path[96], **tasks = NULL;
	int ntasks = 0;

	snprintf(dir, sizeof(dir), "/proc/%u/task", pid);
	if (gf_fs_list(&m->fs, dir, &tasks, &ntasks))
		return 0;
	for (int i = 0; i < ntasks; i++) {
		struct tid_reading *t;
		struct stat_fields f;
		unsigned long long run, wait;
		char *text;

		snprintf(path, sizeof(path), "%s/%s/stat", dir, tasks[i]);
		if (read_stat(m, path, &f))
			continue;	/* exited since the listing */
		if (*n == *cap) {
			struct tid_reading *nt = realloc(*tr, (*cap = *cap ? *cap * 2 : 64) * sizeof(*nt));

			if (!nt) {
				gf_strv_free(tasks, ntasks);
				return gf_error(-ENOMEM, "monitor: out of memory");
			}
			*tr = nt;
		}
		t = &(*tr)[(*n)++];
		memset(t, 0, sizeof(*t));
		t->tid = (unsigned)strtoul(tasks[i], NULL, 10);
		t->ticks = f.utime + f.stime;
		t->cpu = f.cpu;
		gf_strlcpy(t->comm, f.comm, sizeof(t->comm));
		snprintf(path, sizeof(path), "%s/%s/schedstat", dir, tasks[i]);
		if (!gf_fs_read(&m->fs, path, &text, NULL)) {
			if (sscanf(text, "%llu %llu", &run, &wait) == 2) {
				t->wait_ns = wait;
				t->has_wait = true;
			}
			free(text);
		}
	}
	gf_strv_free(tasks, ntasks);
	return 0;
}

/* The cgroup v2 path of the process ("0::/path"), "" without one. */
static void read_cgroup(struct gf_monitor *m, struct mon_proc *p)
{
	char path[64], *text;

	p->out.cgroup[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)m->pid);
	if (gf_fs_read(&m->fs, path, &text, NULL))
		return;
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (!strncmp(line, "0::", 3))
			gf_strlcpy(p->out.cgroup, line + 3, sizeof(p->out.cgroup));
		line = nl ? nl + 1 : NULL;
	}
	free(text);
}

/* throttled_usec of the cgroup's cpu.stat, at the unified mount (pure v2)
 * or under unified/ (a hybrid v1 + v2 host). */
static bool read_throttled(struct gf_monitor *m, const char *cgroup, uint64_t *usec)
{
	static const char *const mounts[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	char path[PATH_MAX], *text;

	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		bool ok = false;

		snprintf(path, sizeof(path), "%s%s%scpu.stat", mounts[i], cgroup,
			 cgroup[strlen(cgroup) - 1] == '/' ? "" : "/");
		if (gf_fs_read(&m->fs, path, &text, NULL))
			continue;
		/* "key value" lines, no colon. */
		for (char *line = text; line && *line && !ok;) {
			char *nl = strchr(line, '\n');
			unsigned long long v;

			if (sscanf(line, "throttled_usec %llu", &v) == 1) {
				*usec = v;
				ok = true;
			}
			line = nl ? nl + 1 : NULL;
		}
		free(text);
		if (ok)
			return true;
	}
	return false;
}

static int node_of_cpu(const struct gf_topo *t, int cpu)
{
	for (int i = 0; cpu >= 0 && i < t->cpus.ncpu; i++)
		if (t->cpus.cpu[i].id == cpu)
			return t->cpus.cpu[i].node;
	return -1;
}

int gf_mon_proc_open(struct gf_monitor *m)
{
	struct gf_proc pr;
	char *text;
	int ret;

	gf_proc_init(&pr, &m->fs, (int)m->pid);
	if ((ret = gf_proc_read(&pr, "stat", &text, NULL)))
		return ret;
	free(text);
	m->proc = calloc(1, sizeof(*m->proc));
	if (!m->proc)
		return gf_error(-ENOMEM, "monitor: out of memory");
	m->proc->out.pid = m->pid;
	m->proc->out.alive = true;
	m->proc->out.cpu = m->proc->out.runq_wait = NAN;
	m->proc->out.read_bps = m->proc->out.write_bps = m->proc->out.rchar_bps = NAN;
	m->proc->out.major_faults_per_s = m->proc->out.minor_faults_per_s = NAN;
	m->proc->out.cgroup_throttled = NAN;
	m->proc->ticks_per_s = (double)sysconf(_SC_CLK_TCK);
	m->proc->page_size = sysconf(_SC_PAGESIZE);
	m->s.proc = &m->proc->out;
	if ((ret = find_pids(m, m->proc)))
		return ret;
	read_cgroup(m, m->proc);
	return 0;
}

bool gf_mon_proc_has(const struct gf_monitor *m, unsigned pid)
{
	return m->proc && has_pid(m->proc->pids, m->proc->npids, pid);
}

/* A rate of a counter between two readings, NAN without both. */
static double delta_rate(uint64_t now, uint64_t prev, bool have, double dt)
{
	return have ? gf_mon_rate(now, prev, dt) : NAN;
}

static int fill_threads(struct gf_monitor *m, struct mon_proc *p, const struct tid_reading *tr, unsigned ntr)
{
	struct gf_mon_proc *o = &p->out;
	struct gf_mon_thread *th = NULL;
	double runq = 0;
	bool runq_known = false;

	if (ntr) {
		th = calloc(ntr, sizeof(*th));
		if (!th)
			return gf_error(-ENOMEM, "monitor: out of memory");
	}
	for (unsigned i = 0; i < ntr; i++) {
		const struct tid_reading *prev = p->primed && p->tr ? bsearch(&tr[i], p->tr, p->ntr, sizeof(*tr), cmp_tid) : NULL;

		th[i].tid = (pid_t)tr[i].tid;
		gf_strlcpy(th[i].comm, tr[i].comm, sizeof(th[i].comm));
		th[i].last_cpu = tr[i].cpu;
		th[i].node = node_of_cpu(m->topo, tr[i].cpu);
		th[i].cpu = prev ? delta_rate(tr[i].ticks, prev->ticks, true, m->dt) / p->ticks_per_s : NAN;
		th[i].runq_wait = prev && prev->has_wait && tr[i].has_wait ?
					  delta_rate(tr[i].wait_ns, prev->wait_ns, true, m->dt) / 1e9 : NAN;
		if (!isnan(th[i].runq_wait)) {
			runq += th[i].runq_wait;
			runq_known = true;
		}
	}
	if (ntr)
		qsort(th, ntr, sizeof(*th), cmp_busiest);
	free(o->threads);
	o->threads = th;
	o->nthreads = ntr;
	o->runq_wait = runq_known ? runq : NAN;
	return 0;
}

int gf_mon_proc_sample(struct gf_monitor *m)
{
	struct mon_proc *p = m->proc;
	struct gf_mon_proc *o = &p->out;
	struct pid_reading *pr = NULL;
	struct tid_reading *tr = NULL;
	unsigned npr = 0, ntr = 0, tcap = 0;
	double cpu = 0, rb = 0, wb = 0, rc = 0, maj = 0, min = 0;
	bool cpu_k = false, io_k = false, flt_k = false;
	uint64_t rss = 0, thr;
	char path[64];
	int ret = 0;

	if (!o->alive)
		return 0;	/* it left: the sample keeps its last figures */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)m->pid);
	{
		struct stat_fields f;

		if (read_stat(m, path, &f)) {
			o->alive = false;
			return 0;
		}
	}
	if ((ret = find_pids(m, p)))
		return ret;
	pr = calloc(p->npids, sizeof(*pr));
	if (!pr)
		return gf_error(-ENOMEM, "monitor: out of memory");
	for (unsigned i = 0; i < p->npids; i++) {
		struct stat_fields f;
		struct pid_reading *r = &pr[npr];
		const struct pid_reading *prev;

		snprintf(path, sizeof(path), "/proc/%u/stat", p->pids[i]);
		if (read_stat(m, path, &f))
			continue;	/* exited since it was found */
		npr++;
		r->pid = p->pids[i];
		r->start = f.start;
		r->ticks = f.utime + f.stime;
		r->minflt = f.minflt;
		r->majflt = f.majflt;
		r->rss_pages = f.rss;
		rss += f.rss;
		read_io(m, r);
		if ((ret = read_threads(m, r->pid, &tr, &ntr, &tcap)))
			goto out;
		prev = p->primed ? bsearch(r, p->pr, p->npr, sizeof(*r), cmp_pid) : NULL;
		/* A process new since the last sample, or a new one under a
		 * recycled pid, counts from the next. */
		if (!prev || prev->start != r->start || !(m->dt > 0))
			continue;
		cpu += delta_rate(r->ticks, prev->ticks, true, m->dt) / p->ticks_per_s;
		min += delta_rate(r->minflt, prev->minflt, true, m->dt);
		maj += delta_rate(r->majflt, prev->majflt, true, m->dt);
		cpu_k = flt_k = true;
		if (r->io && prev->io) {
			rb += delta_rate(r->read_bytes, prev->read_bytes, true, m->dt);
			wb += delta_rate(r->write_bytes, prev->write_bytes, true, m->dt);
			rc += delta_rate(r->rchar, prev->rchar, true, m->dt);
			io_k = true;
		}
	}
	qsort(pr, npr, sizeof(*pr), cmp_pid);
	if (ntr)
		qsort(tr, ntr, sizeof(*tr), cmp_tid);
	o->nprocs = npr;
	o->rss = rss * (uint64_t)p->page_size;
	o->cpu = cpu_k ? cpu : NAN;
	o->minor_faults_per_s = flt_k ? min : NAN;
	o->major_faults_per_s = flt_k ? maj : NAN;
	o->read_bps = io_k ? rb : NAN;
	o->write_bps = io_k ? wb : NAN;
	o->rchar_bps = io_k ? rc : NAN;
	if ((ret = fill_threads(m, p, tr, ntr)))
		goto out;
	o->cgroup_throttled = NAN;
	if (o->cgroup[0] && read_throttled(m, o->cgroup, &thr)) {
		if (p->have_throttled && m->dt > 0) {
			o->cgroup_throttled = gf_mon_rate(thr, p->throttled_usec, m->dt) / 1e6;
			if (o->cgroup_throttled > 1)
				o->cgroup_throttled = 1;	/* a period ending at the edge */
		}
		p->throttled_usec = thr;
		p->have_throttled = true;
	}
	free(p->pr);
	free(p->tr);
	p->pr = pr;
	p->npr = npr;
	p->tr = tr;
	p->ntr = ntr;
	p->primed = m->live;
	return 0;
out:
	free(pr);
	free(tr);
	return ret;
}

void gf_mon_proc_close(struct gf_monitor *m)
{
	if (!m->proc)
		return;
	free(m->proc->out.threads);
	free(m->proc->pids);
	free(m->proc->pr);
	free(m->proc->tr);
	free(m->proc);
	m->proc = NULL;
}
