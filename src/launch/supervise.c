/* gf_launch_run: the poll loop over the children's pipes and the self-pipe
 * of signals; the first failure stops the rest. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/launch.h>
#include "core/error.h"
#include "core/opts.h"
#include "launch/child.h"
#include "launch/lines.h"
#include "launch/signals.h"

struct child {
	pid_t pid;		/* 0: never started */
	bool running;
	int fd[2];		/* read ends of its stdout and stderr; -1 closed */
	struct gf_lines lines[2];
};

struct sup {
	struct gf_launch_options o;
	struct gf_launch_result *res;
	struct gf_launch_sigs sigs;
	struct child *c;
	int started, running;
	bool stopping, killed;
	double kill_at;		/* CLOCK_MONOTONIC seconds: SIGKILL for the rest */
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

/* Signal a rank's process group: the rank and whatever it started. */
static void signal_rank(struct child *c, int sig)
{
	if (c->pid > 0 && kill(-c->pid, sig) && errno == ESRCH && c->running)
		kill(c->pid, sig);	/* not yet its own group leader (setpgid race) */
}

static void close_stream(struct child *c, int k)
{
	gf_lines_flush(&c->lines[k]);
	close(c->fd[k]);
	c->fd[k] = -1;
}

/* Whatever is in the stream now; wait: 0 reads only what is there. */
static void read_stream(struct sup *s, struct child *c, int k)
{
	ssize_t n;

	do
		n = read(c->fd[k], s->buf, sizeof(s->buf));
	while (n < 0 && errno == EINTR);
	if (n > 0)
		gf_lines_feed(&c->lines[k], s->buf, (size_t)n);
	else
		close_stream(c, k);
}

/* Read the child's pipes until they are empty (or closed), without
 * waiting: its last lines come out before the news of its end. */
static void drain(struct sup *s, struct child *c)
{
	for (int k = 0; k < 2; k++) {
		while (c->fd[k] >= 0) {
			struct pollfd p = { .fd = c->fd[k], .events = POLLIN };

			if (poll(&p, 1, 0) <= 0)
				break;
			read_stream(s, c, k);
		}
	}
}

static void stop_all(struct sup *s)
{
	s->stopping = true;
	s->kill_at = mono() + s->o.grace_s;
	for (int i = 0; i < s->started; i++)
		signal_rank(&s->c[i], SIGTERM);
}

static void record_end(struct sup *s, int i, int status)
{
	struct child *c = &s->c[i];
	int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);

	c->running = false;
	s->running--;
	drain(s, c);
	if (!code || s->res->failed_rank >= 0)
		return;
	s->res->failed_rank = i;
	s->res->failed_pid = c->pid;
	s->res->failed_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	s->res->exit_code = code;
	if (WIFSIGNALED(status))
		note(s, true, "rank %d (pid %d) failed first: killed by signal %d (%s)%s", s->o.rank_base + i,
		     (int)c->pid, WTERMSIG(status), strsignal(WTERMSIG(status)),
		     s->running ? "; stopping the others" : "");
	else
		note(s, true, "rank %d (pid %d) failed first: exit %d%s", s->o.rank_base + i, (int)c->pid, code,
		     s->running ? "; stopping the others" : "");
	if (!s->stopping)
		stop_all(s);
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
		if (s->c[i].running)
			signal_rank(&s->c[i], sig);
}

static int poll_timeout(const struct sup *s)
{
	double left;

	if (!s->stopping || s->killed)
		return -1;
	left = s->kill_at - mono();
	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

static void kill_late(struct sup *s)
{
	if (!s->stopping || s->killed || poll_timeout(s) > 0)
		return;
	s->killed = true;
	for (int i = 0; i < s->started; i++) {
		if (!s->c[i].running)
			continue;
		note(s, true, "rank %d (pid %d) still running %.3g s after SIGTERM: SIGKILL", s->o.rank_base + i,
		     (int)s->c[i].pid, s->o.grace_s);
		s->res->killed = true;
		signal_rank(&s->c[i], SIGKILL);
	}
}

/* One pass: wait for a signal, output or the kill deadline. */
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
		close(out[0]);
		close(err[0]);
		gf_launch_child(&s->o, &s->sigs, i, parent, out[1], err[1]);
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
	c->running = true;
	s->running++;
	s->started++;
	return 0;
}

static int check_opts(const struct gf_launch_options *opts, struct gf_launch_options *o)
{
	struct gf_launch_options def = GF_LAUNCH_OPTS_INIT;
	int ret;

	if (!opts)
		return gf_error(-EINVAL, "launch: no options");
	if ((ret = gf_opts_check(opts->struct_size, offsetof(struct gf_launch_options, quiet) + sizeof(bool),
				 "gf_launch_run", "GF_LAUNCH_OPTS_INIT")))
		return ret;
	*o = def;
	gf_opts_copy(o, sizeof(*o), opts, opts->struct_size);
	if (o->nproc < 1 || o->nproc > GF_LAUNCH_MAX_PROCS)
		return gf_error(-EINVAL, "launch: %d processes: 1 to %d", o->nproc, GF_LAUNCH_MAX_PROCS);
	if (!o->argv || !o->argv[0] || !*o->argv[0])
		return gf_error(-EINVAL, "launch: no command");
	if (!(o->grace_s >= 0 && o->grace_s <= 86400))
		return gf_error(-EINVAL, "launch: grace period %g s: 0 to 86400", o->grace_s);
	return 0;
}

static void finish(struct sup *s)
{
	for (int i = 0; i < s->started; i++) {
		drain(s, &s->c[i]);
		for (int k = 0; k < 2; k++) {
			if (s->c[i].fd[k] >= 0)
				close_stream(&s->c[i], k);
		}
	}
	for (int i = 0; i < s->o.nproc; i++)
		for (int k = 0; k < 2; k++)
			gf_lines_free(&s->c[i].lines[k]);
	gf_launch_sigs_restore(&s->sigs);
	free(s->c);
}

GF_API int gf_launch_run(const struct gf_launch_options *opts, struct gf_launch_result *res)
{
	struct sup *s;
	struct pollfd *pfd;
	int *owner, ret = 0;

	if (!res)
		return gf_error(-EINVAL, "launch: no place for the result");
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
	for (int i = 0; i < s->o.nproc && !ret && !s->stopping; i++)
		ret = spawn(s, i);
	if (ret && s->started) {
		note(s, true, "%s; stopping the %d ranks started", gf_last_error(), s->started);
		stop_all(s);
	}
	while (s->running) {
		int r = step(s, pfd, owner);

		if (r && !ret)
			ret = r;
		if (r && !s->stopping)
			stop_all(s);
	}
	finish(s);
out_poll:
	free(pfd);
	free(owner);
out:
	free(s);
	return ret;
}
