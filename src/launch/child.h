/* The child's side of gf_launch_run: from fork to execvp. */
#ifndef GF_LAUNCH_CHILD_H
#define GF_LAUNCH_CHILD_H

#include <sys/types.h>
#include <gpufeed/launch.h>
#include "launch/signals.h"

/* Never returns: own process group, death signal, stdout/stderr onto the
 * pipes (out_w, err_w), stdin from /dev/null, the watchdog's pipe (wd_fd)
 * closed, signals reset, setup, exec. */
_Noreturn void gf_launch_child(const struct gf_launch_options *o, const struct gf_launch_sigs *s, int local,
			       pid_t parent, int out_w, int err_w, int wd_fd);

#endif
