#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include "launch/child.h"

static void onto(int fd, int target)
{
	if (fd != target) {
		dup2(fd, target);
		close(fd);
	}
}

_Noreturn void gf_launch_child(const struct gf_launch_options *o, const struct gf_launch_sigs *s, int local,
			       pid_t parent, int out_w, int err_w, int wd_fd)
{
	int rank = o->rank_base + local, in, ret, err;

	setpgid(0, 0);
	/* A supervisor killed with SIGKILL cannot stop its ranks: the kernel
	 * does.  Checked after setting it, in case the parent died already. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(GF_LAUNCH_EXIT_SETUP);
	/* only the supervisor may hold it: its end of file is the news */
	if (wd_fd >= 0)
		close(wd_fd);
	in = open("/dev/null", O_RDONLY);
	if (in >= 0)
		onto(in, STDIN_FILENO);
	onto(out_w, STDOUT_FILENO);
	onto(err_w, STDERR_FILENO);
	gf_launch_sigs_child_reset(s);
	if (o->setup && (ret = o->setup(local, o->setup_arg))) {
		const char *msg = gf_last_error();

		dprintf(STDERR_FILENO, "gpufeed launch: rank %d: %s\n", rank, *msg ? msg : strerror(-ret));
		_exit(GF_LAUNCH_EXIT_SETUP);
	}
	execvp(o->argv[0], o->argv);
	err = errno;
	dprintf(STDERR_FILENO, "gpufeed launch: rank %d: %s: %s\n", rank, o->argv[0], strerror(err));
	_exit(err == ENOENT ? GF_LAUNCH_EXIT_NOTFOUND : GF_LAUNCH_EXIT_NOEXEC);
}
