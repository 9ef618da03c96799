#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include "core/env_export.h"
#include "launch/child.h"

static void onto(int fd, int target)
{
	if (fd != target) {
		dup2(fd, target);
		close(fd);
	}
}

int gf_launch_restart_env(int restart, int max_restarts, struct gf_launch_env out[GF_LAUNCH_NRESTART_ENV])
{
	out[0].name = "TORCHELASTIC_RESTART_COUNT";
	snprintf(out[0].value, sizeof(out[0].value), "%d", restart);
	out[1].name = "TORCHELASTIC_MAX_RESTARTS";
	snprintf(out[1].value, sizeof(out[1].value), "%d", max_restarts);
	return GF_LAUNCH_NRESTART_ENV;
}

static int restart_setenv(const struct gf_launch_options *o, int restart)
{
	struct gf_launch_env env[GF_LAUNCH_NRESTART_ENV];
	int n = gf_launch_restart_env(restart, o->max_restarts, env), ret;

	for (int i = 0; i < n; i++)
		if ((ret = gf_env_export(env[i].name, env[i].value)))
			return ret;
	return 0;
}

_Noreturn void gf_launch_child(const struct gf_launch_options *o, const struct gf_launch_sigs *s,
			       const struct gf_launch_spawn *sp)
{
	int local = sp->local, rank = o->rank_base + local, in, ret, err;

	setpgid(0, 0);
	/* A supervisor killed with SIGKILL cannot stop its ranks: the kernel
	 * does.  Checked after setting it, in case the parent died already. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != sp->parent)
		_exit(GF_LAUNCH_EXIT_SETUP);
	/* only the supervisor may hold it: its end of file is the news */
	if (sp->wd_fd >= 0)
		close(sp->wd_fd);
	in = open("/dev/null", O_RDONLY);
	if (in >= 0)
		onto(in, STDIN_FILENO);
	onto(sp->out_w, STDOUT_FILENO);
	onto(sp->err_w, STDERR_FILENO);
	gf_launch_sigs_child_reset(s);
	if ((ret = restart_setenv(o, sp->restart)) || (o->setup && (ret = o->setup(local, o->setup_arg)))) {
		const char *msg = gf_last_error();

		dprintf(STDERR_FILENO, "gpufeed launch: rank %d: %s\n", rank, *msg ? msg : strerror(-ret));
		_exit(GF_LAUNCH_EXIT_SETUP);
	}
	execvp(o->argv[0], o->argv);
	err = errno;
	dprintf(STDERR_FILENO, "gpufeed launch: rank %d: %s: %s\n", rank, o->argv[0], strerror(err));
	_exit(err == ENOENT ? GF_LAUNCH_EXIT_NOTFOUND : GF_LAUNCH_EXIT_NOEXEC);
}
