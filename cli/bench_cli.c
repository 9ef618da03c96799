/* What every runner-based `gpufeed bench` command (mem, h2d, later p2p)
 * does around its target: count options, the signals that stop a run
 * after the current sample, progress on stderr, and the exit code from
 * the output and the findings. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include <gpufeed/parse.h>
#include "cli.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

int gf_cli_count_opt(struct gf_cli *cli, const char *name, const char *arg, uint64_t hi, unsigned *v)
{
	uint64_t n;

	if (gf_parse_count(arg, 1, hi, &n))
		return gf_cli_usage(cli, "--%s: %s", name, gf_last_error());
	*v = (unsigned)n;
	return 0;
}

void gf_cli_bench_start(const struct gf_cli *cli, volatile sig_atomic_t **cancel, FILE **progress, bool *tty)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	*cancel = &interrupted;
	if (!cli->quiet) {
		*progress = stderr;
		*tty = isatty(STDERR_FILENO);
	}
}

int gf_cli_bench_finish(const char *name, int write_rc, unsigned findings)
{
	if (fflush(stdout) || ferror(stdout) || write_rc) {
		fprintf(stderr, "gpufeed %s: writing the results: %s\n", name, strerror(errno ? errno : EIO));
		return GF_EXIT_INPUT;
	}
	return findings ? GF_EXIT_FINDINGS : GF_EXIT_OK;
}
