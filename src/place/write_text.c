/* The plan for a person: the set, what it binds to, its score, the reasons. */
#include <errno.h>
#include <stdio.h>

#include "core/error.h"
#include "place/place_internal.h"

static void print_score(const struct gf_plan_score *s, FILE *f)
{
	for (int i = 0; i < GF_PLAN_NPARTS; i++)
		fprintf(f, "%s%s %d", i ? ", " : "", gf_plan_part_name((enum gf_plan_part)i), s->part[i]);
	fputc('\n', f);
}

int plan_write_text(const struct gf_topo *t, const struct gf_plan *p, FILE *f)
{
	char buf[1024];

	plan_index_list(t, p->gpu, p->n, buf, sizeof(buf));
	fprintf(f, "GPUs     %s\n", buf);
	for (int i = 0; i < p->n; i++) {
		const struct gf_gpu *g = &t->gpus[p->gpu[i]];

		fprintf(f, "  GPU%-3d %s %s node %d%s%s\n", g->index, g->bdf, *g->uuid ? g->uuid : "(no UUID)",
			g->numa_node, p->nic[i] >= 0 ? " nic " : "", p->nic[i] >= 0 ? t->nics[p->nic[i]].name : "");
	}
	gf_cpuset_format_list(&p->cpus, buf, sizeof(buf));
	fprintf(f, "CPUs     %s (%u)\n", *buf ? buf : "-", gf_cpuset_count(&p->cpus));
	gf_cpuset_format_list(&p->mems, buf, sizeof(buf));
	fprintf(f, "mems     %s\n", *buf ? buf : "-");
	fprintf(f, "score    ");
	print_score(&p->score, f);
	fprintf(f, "why\n");
	for (int i = 0; i < p->nreason; i++)
		fprintf(f, "  %s\n", p->reason[i]);
	fprintf(f, "selected in %.3f ms (%llu complete sets scored)\n", p->select_ms, p->sets_scored);
	return ferror(f) ? gf_error(-EIO, "writing the plan failed") : 0;
}
