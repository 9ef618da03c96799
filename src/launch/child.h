/* The child's side of gf_launch_run: from fork to execvp. */
#ifndef GF_LAUNCH_CHILD_H
#define GF_LAUNCH_CHILD_H

#include <sys/types.h>
#include <gpufeed/launch.h>
#include "launch/signals.h"

/* Which child this is and what it was handed. */
struct gf_launch_spawn {
	int local;		/* its local rank */
	int restart;		/* 0 for the first start */
	pid_t parent;		/* the supervisor */
	int out_w, err_w;	/* the write ends of its stdout and stderr pipes */
	int wd_fd;		/* the watchdog's pipe, to close; -1 none */
};

/* Never returns: own process group, death signal, stdout/stderr onto the
 * pipes, stdin from /dev/null, the watchdog's pipe closed, signals reset,
 * the supervisor's variables (gf_launch_restart_env), setup, exec. */
_Noreturn void gf_launch_child(const struct gf_launch_options *o, const struct gf_launch_sigs *s,
			       const struct gf_launch_spawn *sp);

/* The variables the supervisor itself gives a child started for the
 * restart-th time: TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_MAX_RESTARTS.
 * Their number. */
#define GF_LAUNCH_NRESTART_ENV 2
int gf_launch_restart_env(int restart, int max_restarts, struct gf_launch_env out[GF_LAUNCH_NRESTART_ENV]);

#endif
