/* The machine model: every GPU with its NUMA node, its CPUs and where that
 * came from, and the narrowest link that feeds it from the host.
 *
 *     gpus-and-nodes [RECORDING]       (this machine without one)
 */
#include <stdio.h>
#include <gpufeed/gpufeed.h>

int main(int argc, char **argv)
{
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t;
	char cpus[256];

	o.root = argc > 1 ? argv[1] : NULL;	/* a recording, or this machine */
	if (gf_topo_discover(&o, &t)) {
		fprintf(stderr, "gpus-and-nodes: %s\n", gf_last_error());
		return 1;
	}
	printf("%s: %d GPU(s), %d NUMA node(s)\n", t->machine.hostname, t->ngpus, t->numa.nnodes);
	for (int i = 0; i < t->ngpus; i++) {
		const struct gf_gpu *g = &t->gpus[i];

		gf_cpuset_format_list(&g->cpus, cpus, sizeof(cpus));
		printf("GPU %d %s: node %d (%s), CPUs %s\n", g->index, g->bdf, g->numa_node,
		       gf_source_name(g->numa_source), cpus);
	}
	for (int i = 0; i < t->npaths; i++)
		if (t->paths[i].kind == GF_PATH_HOST_GPU)
			printf("host -> %s: %.1f GB/s, limited by %s\n", t->matrix.dev[t->paths[i].to].name,
			       t->paths[i].gb_per_s, t->paths[i].limit_text);
	gf_topo_free(t);
	return 0;
}
