/* Setting a variable in this process's environment, for a child about to
 * exec (launch's RANK and MASTER_ADDR, bind's CUDA_VISIBLE_DEVICES): the one
 * place besides env.c allowed to change the environment (scripts/check-env.sh),
 * so every write is a named export with an error message, never a stray
 * setenv in library code. */
#ifndef GF_CORE_ENV_EXPORT_H
#define GF_CORE_ENV_EXPORT_H

/* 0, or -errno with "NAME: <strerror>" (-EINVAL for an empty name or one
 * with '='). */
int gf_env_export(const char *name, const char *value);
int gf_env_export_long(const char *name, long value);

#endif
