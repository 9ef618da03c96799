/* The supervisor's signals: a self-pipe (each caught signal becomes one byte
 * to read in the poll loop), the previous dispositions kept for restoring,
 * and the reset a child does before exec. */
#ifndef GF_LAUNCH_SIGNALS_H
#define GF_LAUNCH_SIGNALS_H

#include <signal.h>

/* SIGINT, SIGTERM, SIGHUP, SIGQUIT: forwarded, unless the caller ignores
 * one (nohup): then it stays ignored, here and in the children, as a shell
 * keeps it.  SIGCHLD: reap.  SIGPIPE: ignored here (a closed output must not
 * kill the supervisor of running ranks), default in the children. */
#define GF_LAUNCH_NSIG 6
extern const int gf_launch_signals[GF_LAUNCH_NSIG];

struct gf_launch_sigs {
	int rfd, wfd;
	struct sigaction old[GF_LAUNCH_NSIG];
};

/* 0 or -errno. */
int gf_launch_sigs_install(struct gf_launch_sigs *s);
void gf_launch_sigs_restore(struct gf_launch_sigs *s);
/* The next caught signal, 0 when none is pending. */
int gf_launch_sigs_next(struct gf_launch_sigs *s);
/* Around fork: block everything so no handler runs in the child before
 * it has reset them; then restore the caller's mask. */
void gf_launch_sigs_block(sigset_t *saved);
void gf_launch_sigs_unblock(const sigset_t *saved);
/* In the child: the dispositions above, the mask empty. */
void gf_launch_sigs_child_reset(const struct gf_launch_sigs *s);

#endif
