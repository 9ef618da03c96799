/* The watchdog (watchdog.h): messages are one int32 each, written whole
 * (under PIPE_BUF, so never torn): +pgid a group started, -pgid it ended,
 * 0 goodbye. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/launch.h>
#include "core/error.h"
#include "launch/signals.h"
#include "launch/watchdog.h"

#define BYE 0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Only the pipe (as fd 0) and /dev/null as stdout and stderr: a held copy
 * of the caller's descriptors (a pipe someone reads to its end) must not
 * outlive the supervisor through us. */
static void keep_only(int rfd)
{
	int null;

	if (rfd != STDIN_FILENO) {
		if (rfd <= STDERR_FILENO)	/* the caller had closed stdin: out of the way first */
			rfd = fcntl(rfd, F_DUPFD, 3);
		dup2(rfd, STDIN_FILENO);
	}
	if ((null = open("/dev/null", O_RDWR)) >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
#ifdef SYS_close_range
	if (!syscall(SYS_close_range, 3U, ~0U, 0U))
		return;
#endif
	for (int fd = 3; fd < 65536; fd++)	/* before Linux 5.9 */
		close(fd);
}

static void ignore_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU };
	struct sigaction sa = { .sa_handler = SIG_IGN };
	sigset_t none;

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static bool any_alive(pid_t *groups, int n)
{
	bool any = false;

	for (int i = 0; i < n; i++) {
		if (groups[i] && kill(-groups[i], 0) && errno == ESRCH)
			groups[i] = 0;
		any |= groups[i] != 0;
	}
	return any;
}

static _Noreturn void watch(double grace_s)
{
	pid_t groups[GF_LAUNCH_MAX_PROCS];
	int n = 0;
	int32_t msg;
	double until;

	for (;;) {
		ssize_t r = read(STDIN_FILENO, &msg, sizeof(msg));

		if (r < 0 && errno == EINTR)
			continue;
		if (r != (ssize_t)sizeof(msg))
			break;		/* end of file: the supervisor is gone */
		if (msg == BYE)
			_exit(0);
		if (msg > 0 && n < GF_LAUNCH_MAX_PROCS) {
			groups[n++] = (pid_t)msg;
			continue;
		}
		for (int i = 0; i < n; i++)
			if (groups[i] == (pid_t)-msg)
				groups[i--] = groups[--n];
	}
	for (int i = 0; i < n; i++)
		kill(-groups[i], SIGTERM);
	/* (zombies that init has not reaped count as alive here: the cost is
	 * at most the grace, in a process nobody waits for) */
	for (until = now_s() + grace_s; any_alive(groups, n) && now_s() < until;) {
		struct timespec tick = { .tv_sec = 0, .tv_nsec = 20 * 1000 * 1000 };

		nanosleep(&tick, NULL);
	}
	for (int i = 0; i < n; i++)
		if (groups[i])
			kill(-groups[i], SIGKILL);
	_exit(0);
}

static void say(struct gf_launch_watchdog *w, int32_t msg)
{
	ssize_t r;

	if (w->fd < 0)
		return;
	do
		r = write(w->fd, &msg, sizeof(msg));
	while (r < 0 && errno == EINTR);
	/* a watchdog that died (EPIPE, SIGPIPE ignored by the supervisor)
	 * costs the protection, not the run */
}

int gf_launch_watchdog_start(struct gf_launch_watchdog *w, double grace_s)
{
	int fds[2];
	sigset_t saved;

	w->pid = 0;
	w->fd = -1;
	if (pipe2(fds, O_CLOEXEC))
		return gf_error_errno(-errno, "launch: watchdog pipe");
	gf_launch_sigs_block(&saved);
	w->pid = fork();
	if (w->pid == 0) {
		setpgid(0, 0);
		ignore_signals();
		keep_only(fds[0]);
		watch(grace_s);
	}
	int e = errno;

	gf_launch_sigs_unblock(&saved);
	close(fds[0]);
	if (w->pid < 0) {
		w->pid = 0;
		close(fds[1]);
		return gf_error_errno(-e, "launch: fork of the watchdog");
	}
	w->fd = fds[1];
	return 0;
}

void gf_launch_watchdog_add(struct gf_launch_watchdog *w, pid_t pgid)
{
	say(w, (int32_t)pgid);
}

void gf_launch_watchdog_forget(struct gf_launch_watchdog *w, pid_t pgid)
{
	say(w, -(int32_t)pgid);
}

void gf_launch_watchdog_stop(struct gf_launch_watchdog *w)
{
	if (!w->pid)
		return;
	say(w, BYE);
	close(w->fd);
	w->fd = -1;
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
}
