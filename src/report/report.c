/* `gpufeed report`: the machine summary, the matrix, the paths that feed
 * each GPU with their bottlenecks, and the problems the model shows.  Later
 * issues add the host audit and measurements here. */
#include <errno.h>
#include <stdio.h>

#include <gpufeed/report.h>
#include "core/error.h"
#include "topo/render.h"

GF_API int gf_report_problem_count(const struct gf_topo *t)
{
	int n = 0;

	for (int i = 0; i < t->nfindings; i++)
		n += t->findings[i].severity >= GF_SEV_WARN;
	return n;
}

GF_API int gf_report_print(const struct gf_topo *t, FILE *f, unsigned flags)
{
	int problems = gf_report_problem_count(t), notes = t->nfindings - problems;

	fputs("== gpufeed report ==\n\n", f);
	gf_print_summary(t, f);
	fputs("\n", f);
	gf_print_matrix(t, f);
	gf_print_other_devices(t, f);
	gf_print_paths(t, f, true);
	fprintf(f, "\nProblems: %s\n", problems ? "" : "none found by the topology model");
	if (t->nfindings)
		gf_print_findings(t, f, flags & GF_PRINT_COLOR);
	if (notes && !problems)
		fprintf(f, "  (%d note%s above are informational)\n", notes, notes == 1 ? "" : "s");
	if (t->nwarnings)
		fprintf(f, "\nInput warnings: %d (on stderr unless --quiet; in --json's \"warnings\")\n",
			t->nwarnings);
	return ferror(f) ? gf_error(-EIO, "writing output failed") : 0;
}

GF_API int gf_report_write_json(const struct gf_topo *t, FILE *f)
{
	json_t *root = json_object();

	json_object_set_new(root, "schema", json_string(GF_REPORT_SCHEMA));
	json_object_set_new(root, "machine", gf_json_machine(t));
	json_object_set_new(root, "gpus", gf_json_gpus(t));
	json_object_set_new(root, "matrix", gf_json_matrix(t));
	json_object_set_new(root, "other_devices", gf_json_other_devices(t));
	json_object_set_new(root, "paths", gf_json_paths(t));
	json_object_set_new(root, "problems", json_integer(gf_report_problem_count(t)));
	json_object_set_new(root, "findings", gf_json_findings(t));
	json_object_set_new(root, "warnings", gf_json_warnings(t));
	return gf_json_dump(root, f);
}
