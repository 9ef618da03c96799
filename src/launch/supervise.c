/* gf_launch_run: the poll loop over the children's pipes and the self-pipe
 * of signals; the first failure stops the rest.
 *
 * A rank ends with its process group: when the rank's own process is
 * reaped, what it left running in its group (a background job, a child
 * that still holds its stdout) gets SIGTERM, and SIGKILL --grace seconds
 * later.  Until then its pipes are read in the same loop as every other
 * rank's, so a leftover that writes without end holds no one up and signals
 * are still forwarded.  Reading a pipe takes what is in it at one moment
 * (FIONREAD), never "until it is empty", which a fast writer never lets
 * happen. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/launch.h>
#include "core/error.h"
#include "core/opts.h"
#include "launch/child.h"
#include "launch/lines.h"
#include "launch/signals.h"
#include "launch/watchdog.h"

/* While a group lingers, nothing tells the loop when its last member dies
 * (they are not our children): look again this often. */
#define LINGER_TICK_S 0.05

/* A rank's life: running (its process not yet reaped), then lingering
 * while what it left in its process group, or in its pipes, is stopped and
 * read, then done. */
struct child {
	pid_t pid;		/* 0: never started */
	bool running;
	bool lingering;
	bool killed;		/* its group got SIGKILL */
	bool done;		/* reaped and its group given up: never signalled again */
	double kill_at;		/* CLOCK_MONOTONIC seconds: SIGKILL to its group; 0: none */
	int fd[2];		/* read ends of its stdout and stderr; -1 closed */
	struct gf_lines lines[2];
};

struct sup {
	struct gf_launch_options o;
	struct gf_launch_result *res;
	struct gf_launch_sigs sigs;
	struct gf_launch_watchdog wd;
	struct child *c;
	int started, running, lingering;
	int restart;		/* which start of the children this is, 0 first */
	bool stopping;
	char buf[65536];
};

static void note(struct sup *s, bool always, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(struct sup *s, bool always, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	if (s->o.quiet && !always)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* one write: the notice does not split a rank's line on a shared stderr */
	dprintf(s->o.err_fd, "gpufeed launch: %.*s\n", n < 0 ? 0 : (int)sizeof(line) - 1, line);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int rank_of(const struct sup *s, const struct child *c)
{
	return s->o.rank_base + (int)(c - s->c);
}

/* Signal a rank's process group: the rank and whatever it started. */
static void signal_rank(struct child *c, int sig)
{
	if (c->pid > 0 && !c->done && kill(-c->pid, sig) && errno == ESRCH && c->running)
		kill(c->pid, sig);	/* not yet its own group leader (setpgid race) */
}

/* A process of group pg that has not exited: /proc/N/stat's state (after
 * the command's closing parenthesis) is not Z or X, and its pgrp is pg. */
static bool live_member(pid_t pg)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;

	if (!d)
		return true;	/* cannot tell: kill() said someone is there */
	while (!found && (e = readdir(d))) {
		char path[64], buf[512], *p;
		int fd, pgrp;
		ssize_t n;
		char state;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if ((p = strrchr(buf, ')')) && sscanf(p + 1, " %c %*d %d", &state, &pgrp) == 2)
			found = pgrp == pg && state != 'Z' && state != 'X';
	}
	closedir(d);
	return found;
}

/* Someone in the rank's group is still running.  kill(-pg, 0) alone also
 * counts the dead that their new parent has not reaped yet (an init that
 * reaps late, or never), so a yes from it is checked in /proc.  EPERM:
 * someone we may not signal (a setuid program), alive. */
static bool group_alive(const struct child *c)
{
	if (kill(-c->pid, 0) && errno != EPERM)
		return false;
	return live_member(c->pid);
}

/* The first failed write of the ranks' output, said once: the run goes on
 * (a closed pipe must not stop a training job), the result keeps it. */
static void check_output(struct sup *s, struct child *c, int k)
{
	int err = c->lines[k].err;

	if (!err || s->res->output_error)
		return;
	s->res->output_error = err;
	note(s, true, "writing rank %d's %s: %s: its output is lost from here on", rank_of(s, c),
	     k ? "standard error" : "standard output", strerror(-err));
}

static void close_stream(struct sup *s, struct child *c, int k)
{
	gf_lines_flush(&c->lines[k]);
	check_output(s, c, k);
	close(c->fd[k]);
	c->fd[k] = -1;
}

/* One read of whatever the stream has (poll said so), at most a buffer. */
static void read_stream(struct sup *s, struct child *c, int k)
{
	ssize_t n;

	do
		n = read(c->fd[k], s->buf, sizeof(s->buf));
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		gf_lines_feed(&c->lines[k], s->buf, (size_t)n);
		check_output(s, c, k);
	} else {
		close_stream(s, c, k);
	}
}

/* What the child's pipes hold now, and no more: its last lines come out
 * before the news of its end, and a writer that keeps them full cannot
 * keep the loop here. */
static void drain(struct sup *s, struct child *c)
{
	for (int k = 0; k < 2; k++) {
		int avail = 0;

		if (c->fd[k] < 0 || ioctl(c->fd[k], FIONREAD, &avail))
			continue;
		while (avail > 0 && c->fd[k] >= 0) {
			size_t want = (size_t)avail < sizeof(s->buf) ? (size_t)avail : sizeof(s->buf);
			ssize_t n = read(c->fd[k], s->buf, want);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close_stream(s, c, k);
				break;
			}
			gf_lines_feed(&c->lines[k], s->buf, (size_t)n);
			check_output(s, c, k);
			avail -= (int)n;
		}
	}
}

/* The rank and its group are gone, or given up on: read what is left in its
 * pipes and close them.  A process that left the group (setsid) and still
 * holds a pipe is not waited for; its writes then fail with EPIPE. */
static void done_with(struct sup *s, struct child *c)
{
	drain(s, c);
	for (int k = 0; k < 2; k++)
		if (c->fd[k] >= 0)
			close_stream(s, c, k);
	if (c->pid > 0 && !c->running && !c->done) {
		gf_launch_watchdog_forget(&s->wd, c->pid);
		c->done = true;
	}
	if (c->lingering) {
		c->lingering = false;
		s->lingering--;
	}
}

/* Every rank still running or lingering: SIGTERM, SIGKILL after the grace. */
static void stop_all(struct sup *s)
{
	double at = mono() + s->o.grace_s;

	s->stopping = true;
	for (int i = 0; i < s->started; i++) {
		struct child *c = &s->c[i];

		if (!c->running && !c->lingering)
			continue;
		signal_rank(c, SIGTERM);
		if (!c->kill_at)
			c->kill_at = at;
	}
}

/* The rank's process was reaped: stop what it left behind, if anything. */
static void start_lingering(struct sup *s, struct child *c)
{
	if (c->killed || !group_alive(c)) {
		done_with(s, c);
		return;
	}
	c->lingering = true;
	s->lingering++;
	note(s, false, "rank %d (pid %d) ended; stopping what it left running in its process group", rank_of(s, c),
	     (int)c->pid);
	signal_rank(c, SIGTERM);
	if (!c->kill_at)
		c->kill_at = mono() + s->o.grace_s;
}

static void record_end(struct sup *s, int i, int status)
{
	struct child *c = &s->c[i];
	int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);

	c->running = false;
	s->running--;
	drain(s, c);
	if (code && s->res->failed_rank < 0) {
		s->res->failed_rank = i;
		s->res->failed_pid = c->pid;
		s->res->failed_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		s->res->exit_code = code;
		if (WIFSIGNALED(status))
			note(s, true, "rank %d (pid %d) failed first: killed by signal %d (%s)%s", rank_of(s, c),
			     (int)c->pid, WTERMSIG(status), strsignal(WTERMSIG(status)),
			     s->running ? "; stopping the others" : "");
		else
			note(s, true, "rank %d (pid %d) failed first: exit %d%s", rank_of(s, c), (int)c->pid, code,
			     s->running ? "; stopping the others" : "");
		if (!s->stopping)
			stop_all(s);
	}
	start_lingering(s, c);
}

static void reap(struct sup *s)
{
	for (int i = 0; i < s->started; i++) {
		int status;

		if (s->c[i].running && waitpid(s->c[i].pid, &status, WNOHANG) == s->c[i].pid)
			record_end(s, i, status);
	}
}

static void on_signal(struct sup *s, int sig)
{
	if (sig == SIGCHLD) {
		reap(s);
		return;
	}
	if (!s->res->forwarded_signal) {
		s->res->forwarded_signal = sig;
		note(s, false, "got %s: forwarding it to the ranks", strsignal(sig));
	}
	for (int i = 0; i < s->started; i++)
		if (s->c[i].running || s->c[i].lingering)
			signal_rank(&s->c[i], sig);
}

/* Milliseconds until the next thing the loop must do by itself, -1: none. */
static int poll_timeout(const struct sup *s)
{
	double now = mono(), next = s->lingering ? now + LINGER_TICK_S : -1;

	for (int i = 0; i < s->started; i++) {
		const struct child *c = &s->c[i];

		if ((c->running || c->lingering) && c->kill_at && !c->killed && (next < 0 || c->kill_at < next))
			next = c->kill_at;
	}
	if (next < 0)
		return -1;
	return next <= now ? 0 : (int)((next - now) * 1000) + 1;
}

/* SIGKILL to every group past its grace; a lingering group that emptied is
 * done. */
static void kill_late(struct sup *s)
{
	double now = mono();

	for (int i = 0; i < s->started; i++) {
		struct child *c = &s->c[i];

		if (c->lingering && !group_alive(c)) {
			done_with(s, c);
			continue;
		}
		if ((!c->running && !c->lingering) || !c->kill_at || c->killed || now < c->kill_at)
			continue;
		c->killed = true;
		s->res->killed = true;
		if (c->running)
			note(s, true, "rank %d (pid %d) still running %.3g s after SIGTERM: SIGKILL", rank_of(s, c),
			     (int)c->pid, s->o.grace_s);
		else
			note(s, true, "rank %d (pid %d) left processes still running %.3g s after SIGTERM: SIGKILL "
			     "to its process group", rank_of(s, c), (int)c->pid, s->o.grace_s);
		signal_rank(c, SIGKILL);
		if (c->lingering)
			done_with(s, c);
	}
}

/* One pass: wait for a signal, output or a deadline. */
static int step(struct sup *s, struct pollfd *pfd, int *owner)
{
	int n = 0, ret, sig;

	pfd[n++] = (struct pollfd){ .fd = s->sigs.rfd, .events = POLLIN };
	for (int i = 0; i < s->started; i++)
		for (int k = 0; k < 2; k++)
			if (s->c[i].fd[k] >= 0) {
				owner[n] = 2 * i + k;
				pfd[n++] = (struct pollfd){ .fd = s->c[i].fd[k], .events = POLLIN };
			}
	ret = poll(pfd, (nfds_t)n, poll_timeout(s));
	if (ret < 0 && errno != EINTR)
		return gf_error_errno(-errno, "launch: poll");
	if (ret > 0 && pfd[0].revents)
		while ((sig = gf_launch_sigs_next(&s->sigs)))
			on_signal(s, sig);
	for (int j = 1; ret > 0 && j < n; j++)
		if (pfd[j].revents && s->c[owner[j] / 2].fd[owner[j] % 2] >= 0)
			read_stream(s, &s->c[owner[j] / 2], owner[j] % 2);
	reap(s);	/* a SIGCHLD byte lost to a full self-pipe costs nothing */
	kill_late(s);
	return 0;
}

static int spawn(struct sup *s, int i)
{
	struct child *c = &s->c[i];
	int out[2], err[2];
	char prefix[32] = "";
	sigset_t saved;
	pid_t parent = getpid();

	if (s->o.prefix)
		snprintf(prefix, sizeof(prefix), "[%d] ", s->o.rank_base + i);
	if (gf_lines_init(&c->lines[0], s->o.out_fd, prefix) || gf_lines_init(&c->lines[1], s->o.err_fd, prefix))
		return gf_error(-ENOMEM, "launch: no memory for rank %d's output", s->o.rank_base + i);
	if (pipe2(out, O_CLOEXEC))
		return gf_error_errno(-errno, "launch: pipe");
	if (pipe2(err, O_CLOEXEC)) {
		close(out[0]);
		close(out[1]);
		return gf_error_errno(-errno, "launch: pipe");
	}
	fflush(NULL);
	gf_launch_sigs_block(&saved);
	c->pid = fork();
	if (c->pid == 0) {
		struct gf_launch_spawn sp = { .local = i, .restart = s->restart, .parent = parent, .out_w = out[1],
					      .err_w = err[1], .wd_fd = s->wd.fd };

		close(out[0]);
		close(err[0]);
		gf_launch_child(&s->o, &s->sigs, &sp);
	}
	int e = errno;

	gf_launch_sigs_unblock(&saved);
	close(out[1]);
	close(err[1]);
	if (c->pid < 0) {
		c->pid = 0;
		close(out[0]);
		close(err[0]);
		return gf_error_errno(-e, "launch: fork");
	}
	c->fd[0] = out[0];
	c->fd[1] = err[0];
	setpgid(c->pid, c->pid);	/* also here: no window where signal_rank misses it */
	gf_launch_watchdog_add(&s->wd, c->pid);
	c->running = true;
	s->running++;
	s->started++;
	return 0;
}

static int check_opts(const struct gf_launch_options *opts, struct gf_launch_options *o)
{
	struct gf_launch_options def = GF_LAUNCH_OPTS_INIT;
	int ret;

	if ((ret = gf_opts_check(opts->struct_size, offsetof(struct gf_launch_options, quiet) + sizeof(bool),
				 "gf_launch_run", "GF_LAUNCH_OPTS_INIT")))
		return ret;
	*o = def;
	gf_opts_copy(o, sizeof(*o), opts, opts->struct_size);
	if (o->nproc < 1 || o->nproc > GF_LAUNCH_MAX_PROCS)
		return gf_arg_error("gf_launch_run", "nproc %d: 1 to %d", o->nproc, GF_LAUNCH_MAX_PROCS);
	if (!o->argv)
		return gf_arg_error("gf_launch_run", "argv is NULL");
	if (!o->argv[0] || !*o->argv[0])
		return gf_arg_error("gf_launch_run", "argv[0] is empty: no command");
	if (!(o->grace_s >= 0 && o->grace_s <= 86400))
		return gf_arg_error("gf_launch_run", "grace_s %g: 0 to 86400", o->grace_s);
	if (o->max_restarts < 0 || o->max_restarts > GF_LAUNCH_MAX_RESTARTS)
		return gf_arg_error("gf_launch_run", "max_restarts %d: 0 to %d", o->max_restarts,
				    GF_LAUNCH_MAX_RESTARTS);
	if (o->out_fd < 0 || o->err_fd < 0)
		return gf_arg_error("gf_launch_run", "%s %d is not a descriptor", o->out_fd < 0 ? "out_fd" : "err_fd",
				    o->out_fd < 0 ? o->out_fd : o->err_fd);
	return 0;
}

/* Start every child and supervise them, and what they leave, to the end. */
static int run_once(struct sup *s, struct pollfd *pfd, int *owner)
{
	int ret = 0;

	for (int i = 0; i < s->o.nproc && !ret && !s->stopping; i++)
		ret = spawn(s, i);
	if (ret && s->started) {
		note(s, true, "%s; stopping the %d ranks started", gf_last_error(), s->started);
		stop_all(s);
	}
	while (s->running || s->lingering) {
		int r = step(s, pfd, owner);

		if (r && !ret)
			ret = r;
		if (r && !s->stopping)
			stop_all(s);
	}
	for (int i = 0; i < s->started; i++)
		done_with(s, &s->c[i]);
	for (int i = 0; i < s->o.nproc; i++)
		for (int k = 0; k < 2; k++)
			gf_lines_free(&s->c[i].lines[k]);
	return ret;
}

/* A failure of the children, not of the supervisor nor asked for by a
 * signal, with restarts left: start again from nothing. */
static bool restart(struct sup *s, int ret)
{
	struct gf_launch_result *res = s->res;

	if (ret || !res->exit_code || res->forwarded_signal || s->restart >= s->o.max_restarts)
		return false;
	res->restarts = ++s->restart;
	note(s, true, "restarting every rank (restart %d of %d)", s->restart, s->o.max_restarts);
	memset(s->c, 0, (size_t)s->o.nproc * sizeof(*s->c));
	for (int i = 0; i < s->o.nproc; i++)
		s->c[i].fd[0] = s->c[i].fd[1] = -1;
	s->started = s->running = s->lingering = 0;
	s->stopping = false;
	res->exit_code = 0;
	res->failed_rank = -1;
	res->failed_pid = 0;
	res->failed_signal = 0;
	res->killed = false;
	return true;
}

static void finish(struct sup *s)
{
	gf_launch_watchdog_stop(&s->wd);
	gf_launch_sigs_restore(&s->sigs);
	free(s->c);
}

GF_API int gf_launch_run(const struct gf_launch_options *opts, struct gf_launch_result *res)
{
	struct sup *s;
	struct pollfd *pfd;
	int *owner, ret = 0;

	if (!opts || !res)
		return GF_NULL_ARG(!opts ? "opts" : "res");
	*res = (struct gf_launch_result){ .failed_rank = -1 };
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->res = res;
	if ((ret = check_opts(opts, &s->o)))
		goto out;
	s->c = calloc((size_t)s->o.nproc, sizeof(*s->c));
	pfd = calloc((size_t)(2 * s->o.nproc + 1), sizeof(*pfd));
	owner = calloc((size_t)(2 * s->o.nproc + 1), sizeof(*owner));
	if (!s->c || !pfd || !owner) {
		free(s->c);
		ret = -ENOMEM;
		goto out_poll;
	}
	for (int i = 0; i < s->o.nproc; i++)
		s->c[i].fd[0] = s->c[i].fd[1] = -1;
	if ((ret = gf_launch_sigs_install(&s->sigs))) {
		free(s->c);
		goto out_poll;
	}
	if ((ret = gf_launch_watchdog_start(&s->wd, s->o.grace_s))) {
		gf_launch_sigs_restore(&s->sigs);
		free(s->c);
		goto out_poll;
	}
	do
		ret = run_once(s, pfd, owner);
	while (restart(s, ret));
	finish(s);
out_poll:
	free(pfd);
	free(owner);
out:
	free(s);
	return ret;
}
