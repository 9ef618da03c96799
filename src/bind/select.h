/* Choosing the CPUs of one target by mode (select.c) for gf_bind_compute. */
#ifndef GF_BIND_SELECT_H
#define GF_BIND_SELECT_H

#include "bind/bind_internal.h"

struct gf_bind_sel {
	const struct gf_topo *t;
	const struct gf_bind_options *o;
	struct gf_cpuset usable;	/* allowed minus reserved */
};

/* The CPUs of NUMA node `node` in the model (every online CPU on a
 * machine whose kernel shows no nodes). */
void gf_bind_node_cpus(const struct gf_topo *t, int node, struct gf_cpuset *out);

/* Adds to *out the CPUs of GPU position `gpu` (on node `node`) under the
 * mode in s->o; appends why to why (size bytes).  -EXDEV / -ENODEV /
 * -EINVAL with a message. */
int gf_bind_select(const struct gf_bind_sel *s, int gpu, int node, struct gf_cpuset *out, char *why, size_t size);

/* Physical cores (distinct package, die, core) among the CPUs of set. */
int gf_bind_count_cores(const struct gf_topo *t, const struct gf_cpuset *set);

#endif
