/* `gpufeed report`: the machine summary, the matrix, the paths that feed
 * each GPU with their bottlenecks, and the findings of the model.  Later
 * issues add the host audit and measurements here. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include <gpufeed/report.h>
#include "core/error.h"
#include "core/json_stamp.h"
#include "core/table.h"
#include "audit/audit_render.h"
#include "report/report_paths.h"
#include "topo/render.h"

/* The GPU block of the matrix, aligned for reading (topo prints the whole
 * matrix in nvidia-smi's layout), and a legend short enough to read.  Past
 * 10 GPUs the columns are headed by index alone and one space apart, so a
 * 16-GPU box still fits the report's 100 columns. */
#define REPORT_WIDE_GPUS 10
static void print_gpu_matrix(const struct gf_topo *t, FILE *f)
{
	const struct gf_matrix *m = &t->matrix;
	struct gf_table tb;
	char buf[16];

	bool wide = t->ngpus > REPORT_WIDE_GPUS;

	gf_table_init(&tb, t->ngpus + 2);
	if (wide)
		tb.gap = 1;
	gf_table_add(&tb, "%s", wide ? "GPU" : "");
	for (int j = 0; j < t->ngpus; j++) {
		if (wide)
			gf_table_add(&tb, "%d", t->gpus[m->dev[j].ref].index);
		else
			gf_table_add(&tb, "%s", m->dev[j].name);
	}
	gf_table_add(&tb, "NUMA");
	for (int i = 0; i < t->ngpus; i++) {
		int node = t->gpus[m->dev[i].ref].numa_node;

		gf_table_add(&tb, "%s", m->dev[i].name);
		for (int j = 0; j < t->ngpus; j++) {
			gf_link_format(&m->link[i * m->n + j], buf, sizeof(buf));
			gf_table_add(&tb, "%s", buf);
		}
		if (node >= 0)
			gf_table_add(&tb, "%d", node);
		else
			gf_table_add(&tb, "unknown");
	}
	fputc('\n', f);
	gf_table_print(&tb, f, "");
	gf_table_free(&tb);
	fputs("\nNV# = # NVLinks; PIX, PXB = through PCIe switches; PHB = through the host bridge;\n"
	      "NODE = across host bridges of one NUMA node; SYS = across NUMA nodes.\n"
	      "NICs and drives, and the matrix as nvidia-smi prints it: gpufeed topo.\n", f);
}

/* How many of the audit's worst results the report shows. */
#define REPORT_AUDIT_WORST 5

GF_API int gf_report_print_with_audit(const struct gf_topo *t, const struct gf_audit *a, FILE *out, unsigned flags)
{
	int serious, ret;
	struct gf_text x;
	FILE *f;

	if (!t || !out)
		return GF_NULL_ARG(!t ? "t" : "f");
	if (!(f = gf_text_open(&x)))
		return gf_error(-ENOMEM, "out of memory");
	serious = gf_topo_finding_count(t, GF_SEV_WARN);
	fputs("== gpufeed report ==\n\n", f);
	if (!t->ngpus)
		fputs("No NVIDIA GPU found: nothing below feeds a GPU.\n\n", f);
	gf_print_summary(t, f);
	if (t->ngpus) {
		print_gpu_matrix(t, f);
		if (gf_report_print_paths(t, f)) {
			gf_text_close(&x, out);
			return gf_error(-ENOMEM, "out of memory");
		}
	}
	if ((ret = gf_text_close(&x, out)))
		return ret;
	f = out;	/* findings sanitize their own text, around their colour */
	if (!t->nfindings)
		fputs("\nFindings: none from the topology model\n", f);
	else
		fprintf(f, "\nFindings: %d (%d warning%s or error%s)\n", t->nfindings, serious,
			serious == 1 ? "" : "s", serious == 1 ? "" : "s");
	gf_print_findings(t, f, flags & GF_PRINT_COLOR);
	if (a) {
		fputc('\n', f);
		gf_audit_print_summary(a, f, REPORT_AUDIT_WORST, flags & GF_PRINT_COLOR ? GF_AUDIT_PRINT_COLOR : 0);
	}
	if (t->nwarnings)
		fprintf(f, "\nInput warnings: %d (on stderr unless --quiet; in --json's \"warnings\")\n",
			t->nwarnings);
	return ferror(f) ? gf_error(-EIO, "writing output failed") : 0;
}

GF_API int gf_report_write_json_with_audit(const struct gf_topo *t, const struct gf_audit *a, FILE *f)
{
	json_t *root, *counts;

	if (!t || !f)
		return GF_NULL_ARG(!t ? "t" : "f");
	root = json_object();
	counts = json_object();
	if (gf_json_stamp(root, GF_REPORT_SCHEMA)) {
		json_decref(root);
		json_decref(counts);
		return gf_error(-ENOMEM, "out of memory");
	}
	json_object_set_new(root, "machine", gf_json_machine(t));
	json_object_set_new(root, "gpus", gf_json_gpus(t));
	json_object_set_new(root, "matrix", gf_json_matrix(t));
	json_object_set_new(root, "other_devices", gf_json_other_devices(t));
	json_object_set_new(root, "paths", gf_json_paths(t));
	/* What the text lists, and how many of each severity. */
	json_object_set_new(root, "findings", gf_json_findings(t));
	for (enum gf_severity s = GF_SEV_INFO; s <= GF_SEV_ERROR; s++) {
		int n = 0;

		for (int i = 0; i < t->nfindings; i++)
			n += t->findings[i].severity == s;
		json_object_set_new(counts, gf_severity_name(s), json_integer(n));
	}
	json_object_set_new(counts, "total", json_integer(t->nfindings));
	json_object_set_new(root, "finding_counts", counts);
	if (a)
		json_object_set_new(root, "audit", gf_audit_json_summary(a, REPORT_AUDIT_WORST));
	json_object_set_new(root, "warnings", gf_json_warnings(t));
	return gf_json_dump(root, f);
}
