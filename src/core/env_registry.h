/* The registry's rows: what docs/environment.md is written from (a test
 * keeps the two equal).  Private to the library and its tests: a program
 * reads a variable by its id (<gpufeed/env.h>), not the table. */
#ifndef GF_CORE_ENV_REGISTRY_H
#define GF_CORE_ENV_REGISTRY_H

#include <gpufeed/env.h>

enum gf_env_type {
	GF_ENV_STRING,		/* free text, parsed by the subsystem that reads it */
	GF_ENV_PATH,		/* a file name or a library soname */
	GF_ENV_INT,		/* a whole decimal number within [min, max] */
	GF_ENV_FLAG,		/* on when set to anything but the empty string */
};

/* One row of the registry, static in env.c. */
struct gf_env_info {
	const char *name;		/* "GPUFEED_NVML_LIBRARY" */
	enum gf_env_type type;
	const char *default_text;	/* what applies when unset, in words */
	const char *subsystem;		/* "vendor", "topo", "io", "core", "cli" */
	const char *help;		/* one line */
	long long min, max;		/* GF_ENV_INT only */
};

/* Number of registered variables; ids run from 0 to gf_env_count() - 1. */
int gf_env_count(void);
/* The registry row of `var`, NULL for an id that is not registered. */
const struct gf_env_info *gf_env_info(enum gf_env_var var);

#endif
