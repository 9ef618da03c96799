#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int write_errno;		/* of the first failed write to the output */
static const char *out_path;	/* -o FILE */
static const char *out_cmd;	/* "topo": names messages */
static char tmp_path[4096];	/* FILE.tmp-XXXXXX while it is being written */

static ssize_t out_write(void *cookie, const char *buf, size_t len)
{
	size_t done = 0;

	(void)cookie;
	while (done < len) {
		ssize_t n = write(STDOUT_FILENO, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!write_errno)
				write_errno = n < 0 ? errno : EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)len;
}

void gf_out_init(void)
{
	cookie_io_functions_t io = { .write = out_write };
	FILE *f;

	signal(SIGPIPE, SIG_IGN);
	f = fopencookie(NULL, "w", io);
	if (!f)
		return;		/* keep the real stdout: errors then say EIO */
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	stdout = f;
}

void gf_out_set_command(const char *cmd)
{
	out_cmd = cmd;
}

bool gf_out_failed(int *err, const char **what)
{
	if (!write_errno && !ferror(stdout))
		return false;
	*err = write_errno ? write_errno : EIO;
	*what = out_path ? out_path : "standard output";
	return true;
}

/* Ctrl-C while -o FILE is written: leave no temporary file behind.  (record
 * and bench io catch these signals themselves and return through main.) */
static void on_signal(int sig)
{
	unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

int gf_out_open(struct gf_cli *cli)
{
	struct stat st;
	mode_t mask;
	int fd;

	if (!cli->output)
		return 0;
	if (!stat(cli->output, &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "gpufeed %s: -o %s: is a directory\n", cli->cmd, cli->output);
		return GF_EXIT_INPUT;
	}
	if ((size_t)snprintf(tmp_path, sizeof(tmp_path), "%s.tmp-XXXXXX", cli->output) >= sizeof(tmp_path)) {
		tmp_path[0] = '\0';
		fprintf(stderr, "gpufeed %s: -o %s: %s\n", cli->cmd, cli->output, strerror(ENAMETOOLONG));
		return GF_EXIT_INPUT;
	}
	fd = mkostemp(tmp_path, O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "gpufeed %s: -o %s: cannot create %s: %s\n", cli->cmd, cli->output, tmp_path,
			strerror(errno));
		tmp_path[0] = '\0';
		return GF_EXIT_INPUT;
	}
	mask = umask(0);	/* the mode a shell's '>' would give */
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) || fflush(stdout) || dup2(fd, STDOUT_FILENO) < 0) {
		fprintf(stderr, "gpufeed %s: -o %s: %s\n", cli->cmd, cli->output, strerror(errno));
		close(fd);
		unlink(tmp_path);
		tmp_path[0] = '\0';
		return GF_EXIT_INPUT;
	}
	close(fd);
	out_path = cli->output;
	if (!cli->color_asked)	/* 'auto' looked at the terminal FILE replaces */
		cli->color = false;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	return 0;
}

int gf_out_finish(int rc)
{
	const char *cmd = out_cmd;
	bool ok = rc == GF_EXIT_OK || rc == GF_EXIT_FINDINGS;
	const char *what;
	int err;

	/* A command that failed said why already, a write error included. */
	fflush(stdout);		/* a failure sets ferror(), seen next */
	if (gf_out_failed(&err, &what) && ok) {
		fprintf(stderr, "gpufeed%s%s: writing %s: %s\n", cmd ? " " : "", cmd ? cmd : "", what,
			strerror(err));
		rc = GF_EXIT_INPUT;
		ok = false;
	}
	if (!tmp_path[0])
		return rc;
	if (ok && (fsync(STDOUT_FILENO) || rename(tmp_path, out_path))) {
		fprintf(stderr, "gpufeed %s: -o %s: %s\n", cmd, out_path, strerror(errno));
		rc = GF_EXIT_INPUT;
		ok = false;
	}
	if (!ok)
		unlink(tmp_path);
	tmp_path[0] = '\0';
	return rc;
}
