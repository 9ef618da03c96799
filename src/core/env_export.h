/* Changing the environment goes through src/core/env.c too
 * (scripts/check-env.sh): one function, for the commands whose job it is. */
#ifndef GF_CORE_ENV_EXPORT_H
#define GF_CORE_ENV_EXPORT_H

/* Sets (overwrites) name=value, or unsets name for value NULL: 0 or
 * -errno with a message naming it. */
int gf_env_export(const char *name, const char *value);

#endif
