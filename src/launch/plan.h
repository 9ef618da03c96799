/* The plan of a bound launch (include/gpufeed/launch.h), shared by the
 * file that makes and runs it (job.c) and the one that prints it
 * (plan_print.c). */
#ifndef GF_LAUNCH_PLAN_H
#define GF_LAUNCH_PLAN_H

#include <gpufeed/launch.h>

struct gf_launch_plan {
	const struct gf_topo *t;		/* NULL with no_bind */
	struct gf_topo *owned;			/* the model gf_launch_job discovered */
	struct gf_launch_job_options o;		/* the caller's, over the defaults */
	struct gf_bind_options bind;		/* o.bind's, sharing the plan's own */
	int sharing[GF_BIND_MAX_TARGETS];	/* exclusive: the GPUs launched */
	struct gf_launch_world w;		/* resolved, nproc set */
	struct gf_binding *b;			/* w.nproc of them; NULL with no_bind */
	char **argv;				/* a copy of o.argv, NULL-terminated */
};

#endif
