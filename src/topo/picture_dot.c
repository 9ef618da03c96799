/* The picture as a graph in graphviz's DOT language (`dot -Tsvg`): the same
 * boxes, links, colours and pins as the SVG gpufeed lays out itself, with
 * packages and NUMA nodes as clusters.  gpufeed never runs graphviz. */
#include <errno.h>
#include <stdio.h>

#include <gpufeed/topo.h>
#include "core/error.h"
#include "topo/picture.h"
#include "topo/render.h"
#include "topo/topo_internal.h"

/* A DOT string's contents: '"' and '\' escaped (a backslash would start an
 * escape such as \N or \l), anything but printable ASCII as '?' (the file
 * is then valid in any charset graphviz assumes). */
static void dot_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fputc('\\', f);
		fputc(c >= 0x20 && c < 0x7f ? c : '?', f);
	}
}

static void dot_box(const struct gf_picture *p, int k, FILE *f, const char *indent)
{
	const struct gf_pic_box *x = &p->box[k];

	fprintf(f, "%sb%d [label=\"", indent, k);
	dot_text(f, x->title);
	if (x->detail[0]) {
		fputs("\\n", f);
		dot_text(f, x->detail);
	}
	if (x->nvlink[0]) {
		fputs("\\n", f);
		dot_text(f, x->nvlink);
	}
	fputs("\"", f);
	if (x->locality_unknown)
		fprintf(f, ", color=\"%s\", style=\"rounded,filled,dashed\"", GF_PIC_RED);
	switch (x->kind) {
	case GF_PIC_HOST_BRIDGE: fputs(", fillcolor=\"#eaeef2\"", f); break;
	case GF_PIC_FANOUT: fputs(", fillcolor=\"#f6f8fa\"", f); break;
	case GF_PIC_GPU: fputs(", fillcolor=\"#dafbe1\"", f); break;
	case GF_PIC_NIC: fputs(", fillcolor=\"#ddf4ff\"", f); break;
	case GF_PIC_NVME: case GF_PIC_STORAGE: fputs(", fillcolor=\"#fff8c5\"", f); break;
	case GF_PIC_NVSWITCH: fputs(", fillcolor=\"#fbefff\"", f); break;
	}
	fputs("];\n", f);
}

static void dot_nodes(const struct gf_picture *p, FILE *f)
{
	const struct gf_topo *t = p->t;

	for (int k = 0; k < p->nnode;) {
		int pkg = p->node[k].package, end = k;
		const char *in = pkg >= 0 ? "\t\t" : "\t";

		if (pkg >= 0) {
			fprintf(f, "\tsubgraph \"cluster_package%d\" {\n\t\tlabel=\"Package %d", pkg, pkg);
			if (t->cpus.model[0]) {
				fputs(": ", f);
				dot_text(f, t->cpus.model);
			}
			fputs("\";\n\t\tstyle=\"rounded,filled\"; fillcolor=\"#f6f8fa\";\n", f);
		}
		while (end < p->nnode && (end == k || (pkg >= 0 && p->node[end].package == pkg))) {
			const struct gf_pic_node *n = &p->node[end];
			int ni = n->id >= 0 ? gf_numa_index(t, n->id) : -1;
			char mem[32] = "";

			if (ni >= 0 && t->numa.node[ni].memory_bytes)
				gf_fmt_bytes(t->numa.node[ni].memory_bytes, mem, sizeof(mem));
			if (n->id >= 0)
				fprintf(f, "%ssubgraph \"cluster_node%d\" {\n%s\tlabel=\"NUMA node %d%s%s\"; style=\"rounded,filled\"; fillcolor=\"#ffffff\";\n",
					in, n->id, in, n->id, mem[0] ? ", " : "", mem);
			else
				fprintf(f, "%ssubgraph \"cluster_node_unknown\" {\n%s\tlabel=\"NUMA node unknown\"; style=\"rounded,dashed\"; color=\"%s\";\n",
					in, in, GF_PIC_RED);
			/* An empty cluster is dropped by dot: give a node its CPUs. */
			fprintf(f, "%s\tcpus%d [shape=plaintext, style=\"\", label=\"", in, end);
			if (ni >= 0) {
				char list[256];

				gf_cpuset_format_short(&t->numa.node[ni].cpus, list, sizeof(list));
				fputs("CPUs ", f);
				dot_text(f, list);
			}
			fputs("\"];\n", f);
			for (int c = n->first_col; c < n->first_col + n->ncols; c++)
				for (int b = p->col[c].first; b < p->col[c].first + p->col[c].n; b++) {
					char deeper[8];

					snprintf(deeper, sizeof(deeper), "%s\t", in);
					dot_box(p, b, f, deeper);
				}
			fprintf(f, "%s}\n", in);
			end++;
		}
		if (pkg >= 0)
			fputs("\t}\n", f);
		k = end;
	}
}

static void dot_edge_attrs(FILE *f, const char *label, const char *colour, double gb_per_s, bool dashed)
{
	fputs(" [label=\"", f);
	dot_text(f, label);
	fprintf(f, "\", color=\"%s\", fontcolor=\"%s\", penwidth=%.1f%s];\n", colour, colour,
		gf_pic_rate_width(gb_per_s), dashed ? ", style=dashed" : "");
}

int gf_picture_write_dot(const struct gf_picture *p, FILE *f)
{
	const struct gf_topo *t = p->t;

	fputs("// gpufeed topo --dot: render with graphviz, e.g. dot -Tsvg -o machine.svg\n", f);
	fputs("graph \"gpufeed\" {\n\tgraph [rankdir=TB, labelloc=t, fontname=\"DejaVu Sans Mono\", label=\"Machine ", f);
	dot_text(f, t->machine.hostname[0] ? t->machine.hostname : "(no host name)");
	if (t->machine.vendor[0] || t->machine.product[0]) {
		fputs(" (", f);
		dot_text(f, t->machine.vendor);
		fputs(" ", f);
		dot_text(f, t->machine.product);
		fputs(")", f);
	}
	fputs("\"];\n\tnode [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans Mono\", fontsize=10];\n"
	      "\tedge [fontname=\"DejaVu Sans Mono\", fontsize=9];\n", f);
	dot_nodes(p, f);
	for (int k = 0; k < p->nbox; k++) {
		const struct gf_pic_box *x = &p->box[k];
		char label[2 * GF_PIC_LABEL + 8];

		if (x->parent < 0)
			continue;
		snprintf(label, sizeof(label), "%s%s%s", x->link, x->note[0] ? "\n" : "", x->note);
		fprintf(f, "\tb%d -- b%d", x->parent, k);
		dot_edge_attrs(f, label, gf_pic_link_colour(x), x->gb_per_s, x->state == GF_PIC_LINK_UNKNOWN);
	}
	if (p->fabric) {
		fputs("\tfabric [label=\"", f);
		dot_text(f, p->fabric_title);
		fputs("\", fillcolor=\"#fbefff\", color=\"#6639ba\"];\n", f);
		for (int k = 0; k < p->nbox; k++) {
			const struct gf_pic_box *x = &p->box[k];

			if (x->kind != GF_PIC_GPU || !x->nvlink[0] || p->npair)
				continue;
			fprintf(f, "\tb%d -- fabric", k);
			dot_edge_attrs(f, x->nvlink, x->nvlink_degraded ? GF_PIC_RED : gf_pic_rate_colour(x->nvlink_gb_per_s),
				       x->nvlink_gb_per_s, x->nvlink_gb_per_s <= 0);
		}
		for (int i = 0; i < p->npair; i++) {
			int a = -1, b = -1;
			char label[16];

			for (int k = 0; k < p->nbox; k++) {
				if (p->box[k].gpu == p->pair[i].a)
					a = k;
				if (p->box[k].gpu == p->pair[i].b)
					b = k;
			}
			if (a < 0 || b < 0)
				continue;
			snprintf(label, sizeof(label), "NV%d", p->pair[i].nvlinks);
			fprintf(f, "\tb%d -- b%d", a, b);
			dot_edge_attrs(f, label, gf_pic_rate_colour(25.0 * p->pair[i].nvlinks), 25.0 * p->pair[i].nvlinks,
				       false);
		}
	}
	for (int i = 0; i < p->npin; i++) {
		const struct gf_finding *fd = &t->findings[p->pin[i].finding];

		fprintf(f, "\tfinding%d [shape=note, style=filled, fillcolor=\"#fff8c5\", color=\"%s\", label=\"%d %s ",
			i, gf_pic_severity_colour(fd->severity), gf_pic_pin_number(i), gf_severity_name(fd->severity));
		dot_text(f, fd->id);
		fputs("\\n", f);
		dot_text(f, fd->message);
		fputs("\"];\n", f);
		if (p->pin[i].box >= 0)
			fprintf(f, "\tfinding%d -- b%d [style=dotted, color=\"%s\"];\n", i, p->pin[i].box,
				gf_pic_severity_colour(fd->severity));
	}
	fputs("}\n", f);
	return ferror(f) ? gf_error(-EIO, "writing output failed") : 0;
}
