/* Shared bench output (see output.h). */
#include <math.h>
#include <string.h>

#include "bench/output.h"
#include "core/json_read.h"

json_t *gf_bench_jnum(double v)
{
	return json_real(isfinite(v) ? round(v * 1000) / 1000 : 0);
}

json_t *gf_bench_json_point(const struct gf_runner_point *p, const char *unit)
{
	json_t *o = json_object(), *s;

	if (p->status) {
		json_object_set_new(o, "status", json_string("error"));
		json_object_set_new(o, "error", gf_jstr(p->error));
		return o;
	}
	s = json_array();
	json_object_set_new(o, "status", json_string("ok"));
	json_object_set_new(o, "unit", json_string(unit));
	json_object_set_new(o, "n", json_integer(p->stats.n));
	json_object_set_new(o, "median", gf_bench_jnum(p->stats.median));
	json_object_set_new(o, "min", gf_bench_jnum(p->stats.min));
	json_object_set_new(o, "max", gf_bench_jnum(p->stats.max));
	json_object_set_new(o, "q1", gf_bench_jnum(p->stats.q1));
	json_object_set_new(o, "q3", gf_bench_jnum(p->stats.q3));
	json_object_set_new(o, "iqr", gf_bench_jnum(p->stats.iqr));
	json_object_set_new(o, "mean", gf_bench_jnum(p->stats.mean));
	for (unsigned i = 0; i < p->nsamples; i++)
		json_array_append_new(s, gf_bench_jnum(p->samples[i]));
	json_object_set_new(o, "samples", s);
	return o;
}

json_t *gf_bench_json_topology(const struct gf_topo *t)
{
	json_t *o = json_object(), *nodes = json_array();
	char list[1024];

	json_object_set_new(o, "hostname", gf_jstr(t->machine.hostname));
	json_object_set_new(o, "kernel", gf_jstr(t->machine.kernel));
	json_object_set_new(o, "cpu_model", gf_jstr(t->cpus.model));
	json_object_set_new(o, "cpus", json_integer(gf_cpuset_count(&t->cpus.online)));
	json_object_set_new(o, "numa_nodes", json_integer(t->numa.nnodes));
	json_object_set_new(o, "memory_bytes", json_integer((json_int_t)t->machine.memory_bytes));
	json_object_set_new(o, "hypervisor", json_boolean(t->machine.hypervisor));
	for (int i = 0; i < t->numa.nnodes; i++) {
		const struct gf_numa_node *nd = &t->numa.node[i];
		json_t *n = json_object(), *d = json_array();

		gf_cpuset_format_list(&nd->cpus, list, sizeof(list));
		json_object_set_new(n, "node", json_integer(nd->id));
		json_object_set_new(n, "cpus", json_string(list));
		json_object_set_new(n, "memory_bytes", json_integer((json_int_t)nd->memory_bytes));
		for (int k = 0; k < t->numa.nnodes && nd->distance; k++)
			json_array_append_new(d, json_integer(nd->distance[k]));
		json_object_set_new(n, "distance", d);
		json_array_append_new(nodes, n);
	}
	json_object_set_new(o, "nodes", nodes);
	return o;
}

void gf_bench_print_matrix(FILE *f, const char *title, const char *corner, const char *const *rows,
			   unsigned nrows, const char *const *cols, unsigned ncols, const double *cells,
			   const char *fmt)
{
	int w = (int)strlen(corner);
	char cell[32];

	for (unsigned r = 0; r < nrows; r++)
		if ((int)strlen(rows[r]) > w)
			w = (int)strlen(rows[r]);
	fprintf(f, "%s\n%-*s", title, w, corner);
	for (unsigned c = 0; c < ncols; c++)
		fprintf(f, " %10s", cols[c]);
	fputc('\n', f);
	for (unsigned r = 0; r < nrows; r++) {
		fprintf(f, "%-*s", w, rows[r]);
		for (unsigned c = 0; c < ncols; c++) {
			double v = cells[r * ncols + c];
			if (isnan(v))
				snprintf(cell, sizeof(cell), "-");
			else
				snprintf(cell, sizeof(cell), fmt, v);
			fprintf(f, " %10s", cell);
		}
		fputc('\n', f);
	}
}
