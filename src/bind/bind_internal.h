/* What the files of the binding share: the options with their defaults,
 * the allowed sets read live, and the environment a binding exports. */
#ifndef GF_BIND_INTERNAL_H
#define GF_BIND_INTERNAL_H

#include <gpufeed/bind.h>

/* A caller's options (NULL: defaults) checked and copied over the
 * defaults: 0 or -EINVAL with a message naming `what`. */
int gf_bind_opts_load(const struct gf_bind_options *opts, const char *what, struct gf_bind_options *out);

/* A binding handed back by a caller (func names the public call): 0, or
 * -EINVAL for b NULL, a target count, CPU mode or memory policy out of
 * range, text fields without their NUL, and with t, a target that is not
 * a GPU (or MIG instance) of t. */
int gf_bind_binding_check(const struct gf_topo *t, const struct gf_binding *b, const char *func);

/* This process's CPU affinity and Mems_allowed, read live. */
int gf_bind_live_cpus(struct gf_cpuset *cpus);
int gf_bind_live_mems(struct gf_cpuset *mems);

/* The variables gf_bind_setenv() exports under `flags`, in order; the
 * values point into b or static text.  Returns their number. */
struct gf_bind_env {
	const char *name;
	char value[GF_BIND_MAX_TARGETS * 100];
};
#define GF_BIND_NENV 4
int gf_bind_env_list(const struct gf_binding *b, unsigned flags, struct gf_bind_env env[GF_BIND_NENV]);

/* The NUMA node of GPU position `gpu`: its own, the only node of a
 * single-node machine, or -1 when unknown on a machine with several. */
int gf_bind_gpu_node(const struct gf_topo *t, int gpu);

#endif
