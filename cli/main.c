/* gpufeed: find what starves GPUs, fix what can be fixed, move the data. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *what;
} commands[] = {
	{ "report", gf_cmd_report, "the one screen to read first: summary, matrix, paths, problems" },
	{ "topo", gf_cmd_topo, "the machine model: link matrix, GPUs, NICs, disks, path bandwidth" },
	{ "record", gf_cmd_record, "record this machine into a directory that --root replays" },
	{ "bench", gf_cmd_bench, "measure a link against its limit: io (storage through the engine)" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: gpufeed COMMAND [OPTIONS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\nEvery command takes --help, --version, --json; those that read the machine\n"
		   "take --root DIR to read a recording instead.  'gpufeed help COMMAND' shows\n"
		   "a command's options.\n\n" GF_EXIT_CODES_HELP);
}

/* Exit 3 when stdout could not take what we wrote (a full disk, a closed
 * pipe): scripts trust exit codes. */
static int flushed(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "gpufeed: writing to standard output failed\n");
		return GF_EXIT_INPUT;
	}
	return GF_EXIT_OK;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return GF_EXIT_USAGE;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return flushed();
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("gpufeed %s\n", gf_version());
		return flushed();
	}
	if (!strcmp(cmd, "help")) {
		if (argc < 3) {
			usage(stdout);
			return flushed();
		}
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].run(2, (char *[]){ argv[2], "--help", NULL });
		fprintf(stderr, "gpufeed: unknown command '%s'\n", argv[2]);
		return GF_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "gpufeed: unknown command '%s'\nTry 'gpufeed --help'.\n", cmd);
	return GF_EXIT_USAGE;
}
