#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "launch/signals.h"

const int gf_launch_signals[GF_LAUNCH_NSIG] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE };

/* One supervisor per process: the handler needs the pipe without an argument. */
static volatile sig_atomic_t self_pipe = -1;

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	/* A full pipe drops the byte: SIGCHLD and a forwarded signal repeat
	 * their work for each byte, so losing duplicates loses nothing. */
	if (self_pipe >= 0 && write(self_pipe, &b, 1) < 0)
		(void)0;
	errno = saved;
}

/* A forwarded signal the caller ignores (nohup's SIGHUP). */
static bool kept_ignored(const struct gf_launch_sigs *s, int i)
{
	int sig = gf_launch_signals[i];

	return sig != SIGCHLD && sig != SIGPIPE && s->old[i].sa_handler == SIG_IGN;
}

int gf_launch_sigs_install(struct gf_launch_sigs *s)
{
	int fds[2];

	if (self_pipe >= 0)
		return gf_error(-EBUSY, "launch: a supervisor is already running in this process");
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK))
		return gf_error_errno(-errno, "launch: self-pipe");
	s->rfd = fds[0];
	s->wfd = fds[1];
	self_pipe = fds[1];
	for (int i = 0; i < GF_LAUNCH_NSIG; i++) {
		struct sigaction sa;

		sigaction(gf_launch_signals[i], NULL, &s->old[i]);
		if (kept_ignored(s, i))
			continue;
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = gf_launch_signals[i] == SIGPIPE ? SIG_IGN : on_signal;
		sa.sa_flags = SA_RESTART | (gf_launch_signals[i] == SIGCHLD ? SA_NOCLDSTOP : 0);
		sigaction(gf_launch_signals[i], &sa, NULL);
	}
	return 0;
}

void gf_launch_sigs_restore(struct gf_launch_sigs *s)
{
	for (int i = 0; i < GF_LAUNCH_NSIG; i++)
		sigaction(gf_launch_signals[i], &s->old[i], NULL);
	self_pipe = -1;
	close(s->rfd);
	close(s->wfd);
}

int gf_launch_sigs_next(struct gf_launch_sigs *s)
{
	unsigned char b;
	ssize_t n;

	do
		n = read(s->rfd, &b, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? b : 0;
}

void gf_launch_sigs_block(sigset_t *saved)
{
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, saved);
}

void gf_launch_sigs_unblock(const sigset_t *saved)
{
	sigprocmask(SIG_SETMASK, saved, NULL);
}

void gf_launch_sigs_child_reset(const struct gf_launch_sigs *s)
{
	sigset_t none;

	for (int i = 0; i < GF_LAUNCH_NSIG; i++)
		signal(gf_launch_signals[i], kept_ignored(s, i) ? SIG_IGN : SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}
