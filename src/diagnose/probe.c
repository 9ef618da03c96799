/* One rank of a job read from /proc (probe.h).  Every file is small and
 * read whole; a file that vanishes means the process ended, and one the
 * kernel refuses leaves its figure unknown, never a guess. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/proc.h"
#include "diagnose/probe.h"

static struct gf_fs live;
static bool live_ready;

static const struct gf_fs *fs(void)
{
	if (!live_ready) {
		gf_fs_init(&live, NULL);
		live_ready = true;
	}
	return &live;
}

double gf_probe_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int read_str(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int read_str(char *buf, size_t size, const char *fmt, ...)
{
	char path[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return gf_fs_read_str(fs(), path, buf, size);
}

/* schedstat: "run_ns wait_ns timeslices" (Documentation/scheduler/sched-stats.rst). */
static int schedstat(pid_t pid, pid_t tid, uint64_t *run, uint64_t *wait)
{
	char b[128];
	unsigned long long r, w;

	if (read_str(b, sizeof(b), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid) ||
	    sscanf(b, "%llu %llu", &r, &w) != 2)
		return -1;
	*run = r;
	*wait = w;
	return 0;
}

/* utime + stime (fields 14 and 15) of /proc/PID/stat, after the comm. */
static int cpu_ticks(pid_t pid, uint64_t *ticks, char *state)
{
	char b[1024], *p;
	unsigned long long ut, st;

	if (read_str(b, sizeof(b), "/proc/%d/stat", (int)pid) || !(p = strrchr(b, ')')))
		return -1;
	if (sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", state, &ut, &st) != 3)
		return -1;
	*ticks = ut + st;
	return 0;
}

int gf_probe_children(pid_t pid, pid_t *out, int max)
{
	char b[4096], *p, *end;
	int n = 0;

	/* the main thread's list holds the children its threads forked */
	if (read_str(b, sizeof(b), "/proc/%d/task/%d/children", (int)pid, (int)pid))
		return 0;
	for (p = b; n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		out[n++] = (pid_t)v;
	}
	return n;
}

static void gpus_seen(const char *target, void *arg)
{
	struct gf_probe *p = arg;
	int minor = gf_proc_nvidia_minor(target);

	if (minor < 0 || minor >= GF_PROC_CAP_BASE || p->ngpus >= GF_PROBE_MAX_GPUS)
		return;
	for (unsigned i = 0; i < p->ngpus; i++)
		if (p->gpu_minor[i] == minor)
			return;
	p->gpu_minor[p->ngpus++] = minor;
}

void gf_probe_gpus(struct gf_probe *p)
{
	struct gf_proc proc;

	gf_proc_init(&proc, fs(), (int)p->pid);
	p->ngpus = 0;
	(void)gf_proc_fds(&proc, gpus_seen, p);
}

static void start_interval(struct gf_probe *p, double now)
{
	char st;

	p->t0 = now;
	p->waiting_child_frac = p->samples ? (double)p->waiting_child / p->samples : 0;
	p->waiting_child = 0;
	p->samples = 0;
	memset(p->blocked, 0, sizeof(p->blocked));
	if (schedstat(p->pid, p->tid, &p->run_ns, &p->wait_ns))
		p->run_ns = p->wait_ns = 0;
	if (cpu_ticks(p->pid, &p->cpu_ticks, &st))
		p->alive = false;
}

int gf_probe_open(struct gf_probe *p, pid_t pid, pid_t tid)
{
	uint64_t t;
	char st;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->tid = tid > 0 ? tid : pid;
	if (cpu_ticks(pid, &t, &st))
		return gf_error(-ESRCH, "%d: no such process", (int)pid);
	p->alive = true;
	gf_probe_gpus(p);
	start_interval(p, gf_probe_now());
	return 0;
}

/* nr among list[0..n) (numbers as <sys/syscall.h> has them here; a call
 * this architecture lacks is a negative stand-in that never matches). */
static bool among(long nr, const long *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == nr)
			return true;
	return false;
}

#define IS(nr, ...) among(nr, (const long[]){ __VA_ARGS__ }, sizeof((const long[]){ __VA_ARGS__ }) / sizeof(long))
#ifndef SYS_poll
#define SYS_poll (-100)
#endif
#ifndef SYS_select
#define SYS_select (-101)
#endif
#ifndef SYS_epoll_wait
#define SYS_epoll_wait (-102)
#endif
#ifndef SYS_nanosleep
#define SYS_nanosleep (-103)
#endif
#ifndef SYS_wait4
#define SYS_wait4 (-104)
#endif
#ifndef SYS_waitid
#define SYS_waitid (-105)
#endif

static enum gf_diag_wait of_fd(const char *target)
{
	if (!strncmp(target, "pipe:", 5) || !strncmp(target, "socket:", 7))
		return GF_DW_PIPE;
	if (!strncmp(target, "/dev/nvidia", 11))
		return GF_DW_GPU;
	if (target[0] == '/' && strncmp(target, "/dev/", 5))
		return GF_DW_DISK;
	if (!strncmp(target, "/dev/nvme", 9) || !strncmp(target, "/dev/sd", 7) || !strncmp(target, "/dev/vd", 7))
		return GF_DW_DISK;
	if (!strncmp(target, "anon_inode:[eventfd]", 20))
		return GF_DW_SYNC;
	return GF_DW_OTHER;
}

enum gf_diag_wait gf_probe_classify(const char *line, char state,
				    int (*lookup)(long fd, char *buf, size_t size, void *arg), void *arg)
{
	char target[256];
	unsigned long long a0 = 0;
	char *end;
	long nr;

	if (state == 'D')
		return GF_DW_DISK;	/* uninterruptible: disk I/O or a page fault on a file */
	nr = strtol(line, &end, 10);
	if (end == line || nr < 0)
		return GF_DW_OTHER;
	if (*end == ' ')
		a0 = strtoull(end + 1, NULL, 16);
	if (IS(nr, SYS_read, SYS_pread64, SYS_readv, SYS_preadv, SYS_preadv2,
		       SYS_recvfrom, SYS_recvmsg, SYS_ioctl)) {
		if (!lookup || lookup((long)a0, target, sizeof(target), arg))
			return GF_DW_OTHER;
		return of_fd(target);
	}
	if (IS(nr, SYS_io_uring_enter, SYS_io_getevents, SYS_io_pgetevents))
		return GF_DW_DISK;
	if (IS(nr, SYS_futex))
		return GF_DW_SYNC;
	if (IS(nr, SYS_nanosleep, SYS_clock_nanosleep, SYS_poll, SYS_ppoll, SYS_select,
		       SYS_pselect6, SYS_epoll_wait, SYS_epoll_pwait))
		return GF_DW_SLEEP;
	return GF_DW_OTHER;
}

struct fd_ctx {
	pid_t pid;
};

static int lookup_fd(long fd, char *buf, size_t size, void *arg)
{
	const struct fd_ctx *c = arg;
	char path[96];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%ld", (int)c->pid, fd);
	if ((n = readlink(path, buf, size - 1)) < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

void gf_probe_state(struct gf_probe *p)
{
	char line[256], stat[512], *q, state = '?';
	struct fd_ctx c = { p->pid };
	int ret;

	if (!p->alive)
		return;
	if (read_str(stat, sizeof(stat), "/proc/%d/task/%d/stat", (int)p->pid, (int)p->tid) ||
	    !(q = strrchr(stat, ')')) || sscanf(q + 1, " %c", &state) != 1)
		return;
	if (state == 'R')
		return;		/* running or runnable: schedstat counts it */
	p->samples++;
	ret = p->syscall_denied ? -EACCES
				: read_str(line, sizeof(line), "/proc/%d/task/%d/syscall", (int)p->pid, (int)p->tid);
	if (ret == -EACCES || ret == -EPERM) {
		p->syscall_denied = true;
		line[0] = 0;
	} else if (ret) {
		line[0] = 0;
	}
	p->blocked[gf_probe_classify(line, state, lookup_fd, &c)]++;
	if (line[0] && IS(strtol(line, NULL, 10), SYS_wait4, SYS_waitid))
		p->waiting_child++;
}

void gf_probe_interval(struct gf_probe *p, double now, struct gf_diag_rank_tick *r)
{
	double dt = now - p->t0, blocked;
	uint64_t run, wait, ticks;
	long hz = sysconf(_SC_CLK_TCK);
	char st;

	memset(r, 0, sizeof(*r));
	r->pid = p->pid;
	r->throttled = r->gpu_active = r->pcie_rx_frac = r->link_frac = NAN;
	r->read_bps = r->rchar_bps = r->majflt_ps = r->children_cpu = NAN;
	if (!p->alive || dt <= 0 || cpu_ticks(p->pid, &ticks, &st) || st == 'Z') {
		p->alive = false;
		return;
	}
	if (!schedstat(p->pid, p->tid, &run, &wait)) {
		r->run = (double)(run - p->run_ns) * 1e-9 / dt;
		r->runq = (double)(wait - p->wait_ns) * 1e-9 / dt;
	}
	r->run = r->run > 1 ? 1 : r->run < 0 ? 0 : r->run;
	r->runq = r->runq > 1 - r->run ? 1 - r->run : r->runq < 0 ? 0 : r->runq;
	blocked = 1 - r->run - r->runq;
	if (p->samples) {
		for (int k = 0; k < GF_DW_N; k++)
			r->wait[k] = blocked * p->blocked[k] / p->samples;
	} else {
		r->wait[GF_DW_OTHER] = blocked;
	}
	r->cpu = (double)(ticks - p->cpu_ticks) / (double)hz / dt;
	start_interval(p, now);
}
