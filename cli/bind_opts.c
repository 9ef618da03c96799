#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bind_opts.h"

int gf_cli_find_dashes(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			return i;
	return -1;
}

int gf_cli_cpu_mode_arg(struct gf_cli *cli, const char *arg, enum gf_bind_cpu_mode *out)
{
	return gf_bind_cpu_mode_parse(arg, out) ? gf_cli_usage(cli, "--cpu: %s", gf_last_error()) : 0;
}

int gf_cli_mem_policy_arg(struct gf_cli *cli, const char *arg, enum gf_bind_mem_policy *out)
{
	return gf_bind_mem_policy_parse(arg, out) ? gf_cli_usage(cli, "--mem: %s", gf_last_error()) : 0;
}

int gf_cli_reserve_arg(struct gf_cli *cli, const char *arg, struct gf_cpuset *out)
{
	return gf_cpuset_parse_list(out, arg) ? gf_cli_usage(cli, "--reserve '%s': %s", arg, gf_last_error()) : 0;
}

int gf_cli_bind_fail(const struct gf_cli *cli, const char *what, int err)
{
	if (err == -EXDEV || err == -ENODEV || err == -EPERM || err == -ENOSYS) {
		fprintf(stderr, "gpufeed %s: %s%s%s\n", cli->cmd, what ? what : "", what ? ": " : "", gf_last_error());
		return GF_EXIT_UNAVAILABLE;
	}
	return gf_cli_fail(cli, err);
}
