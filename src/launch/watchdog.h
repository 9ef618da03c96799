/* The supervisor's watchdog: a small process that outlives a supervisor
 * killed with SIGKILL just long enough to stop the ranks' process groups.
 *
 * PR_SET_PDEATHSIG reaches the ranks themselves, not what they started (a
 * DataLoader worker, a shell's background job), and a supervisor killed
 * outright runs no code.  So a forked helper holds the read end of a pipe
 * whose only writer is the supervisor, and is told each group as it starts
 * and ends.  End of file without a goodbye means the supervisor is gone: it
 * sends SIGTERM to every group still known, SIGKILL after the grace, and
 * exits.  It sits in its own process group with the terminal's signals
 * ignored, so a Ctrl-C or a kill of the launcher's group does not take it
 * first.  Between fork and _exit it makes only async-signal-safe calls: the
 * caller may have threads. */
#ifndef GF_LAUNCH_WATCHDOG_H
#define GF_LAUNCH_WATCHDOG_H

#include <sys/types.h>

struct gf_launch_watchdog {
	pid_t pid;	/* 0: none running */
	int fd;		/* write end, O_CLOEXEC; -1: none */
};

/* Starts it: 0 or -errno (message set). */
int gf_launch_watchdog_start(struct gf_launch_watchdog *w, double grace_s);
/* A rank's group started / ended (its members all gone). */
void gf_launch_watchdog_add(struct gf_launch_watchdog *w, pid_t pgid);
void gf_launch_watchdog_forget(struct gf_launch_watchdog *w, pid_t pgid);
/* The normal end: tells it goodbye and reaps it. */
void gf_launch_watchdog_stop(struct gf_launch_watchdog *w);

#endif
