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
static const char *out_opt = "-o";	/* "--svg": names messages */
static char real_path[4096];	/* what is written: FILE, or the file its link leads to */
static char tmp_path[4096];	/* real_path.tmp-XXXXXX while it is being written */

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
	if (tmp_path[0])
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int open_failed(const struct gf_cli *cli, const char *what, int fd)
{
	fprintf(stderr, "gpufeed %s: %s %s: %s\n", cli->cmd, cli->output_opt ? cli->output_opt : "-o",
		cli->output, what);
	if (fd >= 0)
		close(fd);
	if (tmp_path[0])
		unlink(tmp_path);
	tmp_path[0] = '\0';
	return GF_EXIT_INPUT;
}

/* FILE by the rule of <gpufeed/outfile.h>: a temporary file beside it (or
 * beside the file its link leads to) renamed at the end, or a character
 * device or FIFO written in place; never a rename over anything else. */
int gf_out_open(struct gf_cli *cli)
{
	enum gf_outfile_mode mode;
	char why[4200];
	mode_t mask;
	int fd;

	if (!cli->output)
		return 0;
	tmp_path[0] = '\0';
	if (gf_outfile_check(cli->output, real_path, sizeof(real_path), &mode)) {
		/* The library's message names FILE first: say it once. */
		const char *msg = gf_last_error(), *rest = strncmp(msg, cli->output, strlen(cli->output)) ? msg
							    : msg + strlen(cli->output);

		return open_failed(cli, rest[0] == ':' ? rest + 2 : rest, -1);
	}
	if (mode == GF_OUTFILE_IN_PLACE) {
		fd = open(real_path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return open_failed(cli, strerror(errno), -1);
	} else {
		if ((size_t)snprintf(tmp_path, sizeof(tmp_path), "%s.tmp-XXXXXX", real_path) >= sizeof(tmp_path)) {
			tmp_path[0] = '\0';
			return open_failed(cli, strerror(ENAMETOOLONG), -1);
		}
		fd = mkostemp(tmp_path, O_CLOEXEC);
		if (fd < 0) {
			snprintf(why, sizeof(why), "cannot create %s: %s", tmp_path, strerror(errno));
			tmp_path[0] = '\0';
			return open_failed(cli, why, -1);
		}
		mask = umask(0);	/* the mode a shell's '>' would give */
		umask(mask);
		if (fchmod(fd, 0666 & ~mask))
			return open_failed(cli, strerror(errno), fd);
	}
	if (fflush(stdout) || dup2(fd, STDOUT_FILENO) < 0)
		return open_failed(cli, strerror(errno), fd);
	close(fd);
	out_path = cli->output;
	if (cli->output_opt)
		out_opt = cli->output_opt;
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
		return rc;	/* standard output, or FILE written in place */
	if (ok && fsync(STDOUT_FILENO)) {
		fprintf(stderr, "gpufeed %s: %s %s: %s\n", cmd, out_opt, out_path, strerror(errno));
		rc = GF_EXIT_INPUT;
		ok = false;
	}
	if (!ok)
		unlink(tmp_path);
	else if (gf_outfile_rename(tmp_path, real_path)) {	/* it removes tmp on failure */
		fprintf(stderr, "gpufeed %s: %s %s: %s\n", cmd, out_opt, out_path, gf_last_error());
		rc = GF_EXIT_INPUT;
	}
	tmp_path[0] = '\0';
	return rc;
}
