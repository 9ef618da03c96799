/* A worker re-asserting its GPU's binding, as a DataLoader worker started
 * by spawn must (it does not inherit its parent's affinity): the CPUs of
 * the GPU's NUMA node, memory on that node, and CUDA_VISIBLE_DEVICES, in
 * one call; then what this process now has.
 *
 *     bind-worker GPU [RECORDING]    (a recording: compute as there, apply here)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* sched_getaffinity, CPU_COUNT */
#endif
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <gpufeed/gpufeed.h>

int main(int argc, char **argv)
{
	struct gf_topo_options machine = GF_TOPO_OPTS_INIT;
	struct gf_bind_options o = GF_BIND_OPTS_INIT;
	cpu_set_t set;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: bind-worker GPU [RECORDING]\n");
		return 2;
	}
	machine.root = argc > 2 ? argv[2] : NULL;
	o.mem_optional = true;	/* a container without CAP_SYS_NICE still gets its CPUs */
	rc = gf_bind_gpu(argv[1], &machine, &o);
	if (rc < 0) {
		fprintf(stderr, "bind-worker: %s\n", gf_last_error());
		/* as gpufeed run: a list naming no GPU here is a bad command line */
		return rc == -ENODEV ? 4 : rc == -EINVAL || rc == -ENOENT ? 2 : 3;
	}
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		printf("bound to %d CPU(s)%s; CUDA_VISIBLE_DEVICES=%s\n", CPU_COUNT(&set),
		       rc == GF_BIND_WARNED ? " (with a warning)" : "",
		       getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "");
	return 0;
}
