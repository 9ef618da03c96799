/* What 'run' and 'launch' share: the binding options' parsing, the CMD after
 * '--', and the exit code of a binding this machine cannot do. */
#ifndef GF_CLI_BIND_OPTS_H
#define GF_CLI_BIND_OPTS_H

#include "cli.h"

/* Argument index of "--", or -1: options before it, CMD after. */
int gf_cli_find_dashes(int argc, char **argv);
/* --cpu MODE, --mem POLICY, --reserve CPULIST: 0, or the usage exit code. */
int gf_cli_cpu_mode_arg(struct gf_cli *cli, const char *arg, enum gf_bind_cpu_mode *out);
int gf_cli_mem_policy_arg(struct gf_cli *cli, const char *arg, enum gf_bind_mem_policy *out);
int gf_cli_reserve_arg(struct gf_cli *cli, const char *arg, struct gf_cpuset *out);
/* A gf_bind_* error: what this machine cannot do (-EXDEV, -ENODEV, -EPERM,
 * -ENOSYS) is exit 4 with gf_last_error() (after "WHAT: " when what is not
 * NULL), anything else as gf_cli_fail. */
int gf_cli_bind_fail(const struct gf_cli *cli, const char *what, int err);

#endif
