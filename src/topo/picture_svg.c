/* The picture as SVG, laid out here (no graphviz at run time): packages
 * and NUMA nodes side by side, each node's host bridges as columns with
 * their PCIe tree as an indented list, the NVLink fabric as a bar below
 * them all, then the legend and the findings, numbered as their pins.
 *
 * Every position is a whole number computed from the model's order and
 * the labels' lengths in a monospaced font, so one machine always gives
 * the same bytes.  Colours say the rate of a link; red says a finding
 * limits it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/topo.h>
#include "core/error.h"
#include "core/quote.h"
#include "topo/picture.h"
#include "topo/render.h"
#include "topo/topo_internal.h"

/* Geometry, in pixels; CHAR_W is a little over the advance of an 11 px
 * DejaVu Sans Mono glyph (0.602 em), so text stays inside its box. */
enum {
	FONT = 11, CHAR_W = 7, LINE = 14, PAD = 6, INDENT = 18, VGAP = 8, COL_GAP = 14,
	GUTTER = 10, GUTTER_STEP = 8, MARGIN = 12, FABRIC_H = 30, FABRIC_GAP = 28,
	PIN_R = 8, WRAP = 150,
};

struct rect {
	int x, y, w, h;
};

struct layout {
	struct rect *box, *col, *node;
	int *gutter;			/* per box: the x of a GPU's NVLink line */
	struct rect machine, fabric;
	int width, height;
	int below;			/* where the legend starts */
};

static const char *box_fill(const struct gf_pic_box *x)
{
	switch (x->kind) {
	case GF_PIC_HOST_BRIDGE: return "#eaeef2";
	case GF_PIC_FANOUT: return "#f6f8fa";
	case GF_PIC_GPU: return "#dafbe1";
	case GF_PIC_NIC: return "#ddf4ff";
	case GF_PIC_NVME: case GF_PIC_STORAGE: return "#fff8c5";
	case GF_PIC_NVSWITCH: return "#fbefff";
	}
	return "#ffffff";
}

/* The lines a box shows, in order; returns how many. */
static int box_lines(const struct gf_pic_box *x, const char *line[5])
{
	int n = 0;

	line[n++] = x->title;
	if (x->detail[0])
		line[n++] = x->detail;
	if (x->depth > 0)
		line[n++] = x->link;
	if (x->note[0])
		line[n++] = x->note;
	if (x->nvlink[0])
		line[n++] = x->nvlink;
	return n;
}

static int text_w(const char *s)
{
	return (int)strlen(s) * CHAR_W;
}

/* A node's header: three lines (which node, its CPUs, their list). */
static void node_lines(const struct gf_topo *t, const struct gf_pic_node *n, char line[3][GF_PIC_LABEL + 4])
{
	int ni = n->id >= 0 ? gf_numa_index(t, n->id) : -1, cores = 0, cpus = 0;
	char mem[32] = "", list[256];

	line[1][0] = line[2][0] = '\0';
	if (ni < 0) {
		snprintf(line[0], GF_PIC_LABEL + 4, "%s", n->id < 0 ? "NUMA node unknown" : "NUMA node");
		if (n->id < 0)
			snprintf(line[1], GF_PIC_LABEL + 4, "devices whose locality is unknown");
		return;
	}
	if (t->numa.node[ni].memory_bytes)
		gf_fmt_bytes(t->numa.node[ni].memory_bytes, mem, sizeof(mem));
	snprintf(line[0], GF_PIC_LABEL + 4, "NUMA node %d%s%s", n->id, mem[0] ? ", " : "", mem);
	for (int i = 0; i < t->cpus.ncpu; i++)
		if (t->cpus.cpu[i].node == n->id) {
			cpus++;
			cores += t->cpus.cpu[i].smt_rank == 0;
		}
	if (!(t->omitted & GF_TOPO_OMIT_CPU_DETAIL))
		snprintf(line[1], GF_PIC_LABEL + 4, "%d cores, %d CPUs", cores, cpus);
	else
		snprintf(line[1], GF_PIC_LABEL + 4, "%d CPUs", cpus);
	gf_cpuset_format_short(&t->numa.node[ni].cpus, list, sizeof(list));
	snprintf(line[2], GF_PIC_LABEL + 4, "CPUs %.*s", GF_PIC_LABEL - 5, list);
}

/* A column's boxes placed from (x, y); returns the width of its boxes
 * (its height is in L->col[c]). */
static int layout_column(const struct gf_picture *p, struct layout *L, int c, int x, int y)
{
	const struct gf_pic_column *col = &p->col[c];
	int w = 0;

	L->col[c].x = x;
	L->col[c].y = y;
	for (int k = col->first; k < col->first + col->n; k++) {
		const char *line[5];
		int n = box_lines(&p->box[k], line), bw = 0;

		for (int i = 0; i < n; i++)
			if (text_w(line[i]) > bw)
				bw = text_w(line[i]);
		L->box[k] = (struct rect){ x + p->box[k].depth * INDENT, y, bw + 2 * PAD, n * LINE + PAD };
		y += L->box[k].h + VGAP;
		if (L->box[k].x + L->box[k].w - x > w)
			w = L->box[k].x + L->box[k].w - x;
	}
	L->col[c].w = w;
	L->col[c].h = y - VGAP - L->col[c].y;
	return w;
}

/* A node's columns in a grid of about as many rows as columns per row, so
 * a node with many host bridges grows down as well as across.  The
 * columns of one grid slot share its width and, on its right, one lane
 * per GPU in any of them: a GPU's NVLink line runs down its lane past the
 * columns below it to the fabric. */
static int grid_per_row(int ncols)
{
	int n = 1;

	while (n * n < ncols)
		n++;
	return n;
}

static void layout_node(const struct gf_picture *p, struct layout *L, int k, int x, int y)
{
	const struct gf_pic_node *n = &p->node[k];
	int per_row = grid_per_row(n->ncols), w = 0, head = 0, gy, sx = x + PAD;
	char line[3][GF_PIC_LABEL + 4];

	node_lines(p->t, n, line);
	for (int i = 0; i < 3; i++)
		if (line[i][0]) {
			head += LINE;
			if (text_w(line[i]) > w)
				w = text_w(line[i]);
		}
	head += PAD;
	gy = y + head + PAD;
	/* Slot by slot: the widest column of the slot, then its lanes. */
	for (int s = 0; s < per_row && s < n->ncols; s++) {
		int sw = 0, lane = 0;

		for (int c = n->first_col + s; c < n->first_col + n->ncols; c += per_row) {
			int cw = layout_column(p, L, c, sx, 0);

			if (cw > sw)
				sw = cw;
		}
		for (int c = n->first_col + s; c < n->first_col + n->ncols; c += per_row)
			for (int b = p->col[c].first; b < p->col[c].first + p->col[c].n; b++)
				if (p->box[b].kind == GF_PIC_GPU)
					L->gutter[b] = sx + sw + GUTTER + GUTTER_STEP * lane++;
		sx += sw + (lane ? GUTTER + GUTTER_STEP * lane : 0) + COL_GAP;
	}
	/* Row by row: each as tall as its tallest column. */
	for (int r = 0; r * per_row < n->ncols; r++) {
		int rh = 0;

		for (int c = n->first_col + r * per_row; c < n->first_col + n->ncols && c < n->first_col + (r + 1) * per_row; c++) {
			layout_column(p, L, c, L->col[c].x, gy);
			if (L->col[c].h > rh)
				rh = L->col[c].h;
		}
		gy += rh + 2 * VGAP;
	}
	if (n->ncols && sx - COL_GAP - x - PAD > w)
		w = sx - COL_GAP - x - PAD;
	L->node[k] = (struct rect){ x, y, w + 2 * PAD, n->ncols ? gy - 2 * VGAP + PAD - y : head };
}

static void layout(const struct gf_picture *p, struct layout *L)
{
	int x = MARGIN + PAD, top = MARGIN + 3 * LINE + PAD, bottom = top, right = x;

	for (int k = 0; k < p->nnode;) {
		/* One package: its nodes in a frame with a header line. */
		int pkg = p->node[k].package, nx = x, y = top + (pkg >= 0 ? LINE + PAD : 0), end = k;

		if (pkg >= 0)
			nx += PAD;
		while (end < p->nnode && (end == k || (pkg >= 0 && p->node[end].package == pkg))) {
			layout_node(p, L, end, nx, y);
			nx += L->node[end].w + COL_GAP;
			if (L->node[end].y + L->node[end].h > bottom)
				bottom = L->node[end].y + L->node[end].h;
			end++;
		}
		/* The next group starts past this one's frame. */
		right = nx - COL_GAP + (pkg >= 0 ? PAD : 0);
		x = right + COL_GAP;
		k = end;
	}
	bottom += PAD;
	L->machine = (struct rect){ MARGIN, MARGIN, right - MARGIN + PAD, bottom + PAD - MARGIN };
	L->below = L->machine.y + L->machine.h + VGAP;
	if (p->fabric) {
		int lo = -1, hi = -1;

		for (int b = 0; b < p->nbox; b++)
			if (p->box[b].kind == GF_PIC_GPU) {
				if (lo < 0 || L->gutter[b] < lo)
					lo = L->gutter[b];
				if (L->gutter[b] > hi)
					hi = L->gutter[b];
			}
		if (lo < 0)
			lo = hi = MARGIN + PAD;
		lo -= 2 * PAD;
		if (hi - lo < text_w(p->fabric_title) + 4 * PAD)
			hi = lo + text_w(p->fabric_title) + 4 * PAD;
		L->fabric = (struct rect){ lo, L->below + FABRIC_GAP, hi + 2 * PAD - lo, FABRIC_H };
		L->below = L->fabric.y + L->fabric.h + VGAP + (p->npair ? 24 + 12 * p->npair : 0);
	}
	L->width = L->machine.x + L->machine.w;
	if (p->fabric && L->fabric.x + L->fabric.w > L->width)
		L->width = L->fabric.x + L->fabric.w;
}

static void text(FILE *f, int x, int y, const char *attrs, const char *s)
{
	fprintf(f, "<text x=\"%d\" y=\"%d\"%s%s>", x, y, attrs[0] ? " " : "", attrs);
	gf_xml_escape(f, s);
	fputs("</text>\n", f);
}

static void draw_box(const struct gf_picture *p, const struct layout *L, int k, FILE *f)
{
	const struct gf_pic_box *x = &p->box[k];
	const struct rect *r = &L->box[k];
	const char *line[5];
	int n = box_lines(x, line), y = r->y + LINE - 2;
	char attrs[96];

	fputs("<g><title>", f);
	for (int i = 0; i < n; i++) {
		gf_xml_escape(f, line[i]);
		fputs(i + 1 < n ? "&#10;" : "", f);
	}
	fputs("</title>\n", f);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\" stroke=\"%s\"%s/>\n",
		r->x, r->y, r->w, r->h, box_fill(x), x->locality_unknown ? GF_PIC_RED : "#57606a",
		x->locality_unknown ? " stroke-dasharray=\"5 3\" stroke-width=\"1.5\"" : "");
	for (int i = 0; i < n; i++, y += LINE) {
		if (line[i] == x->title)
			snprintf(attrs, sizeof(attrs), "font-weight=\"bold\"");
		else if (line[i] == x->link)
			snprintf(attrs, sizeof(attrs), "fill=\"%s\"", gf_pic_link_colour(x));
		else if (line[i] == x->note)
			snprintf(attrs, sizeof(attrs), "fill=\"%s\"", GF_PIC_RED);
		else if (line[i] == x->nvlink)
			snprintf(attrs, sizeof(attrs), "fill=\"%s\"",
				 x->nvlink_degraded ? GF_PIC_RED : gf_pic_rate_colour(x->nvlink_gb_per_s));
		else
			snprintf(attrs, sizeof(attrs), "fill=\"#424a53\"");
		text(f, r->x + PAD, y, attrs, line[i]);
	}
	fputs("</g>\n", f);
}

/* The link from a box's parent: down the parent's left side, then across
 * into the box.  Drawn farthest child first, so each stretch of a shared
 * vertical shows the colour of the link that ends below it. */
static void draw_link(const struct gf_picture *p, const struct layout *L, int k, FILE *f)
{
	const struct gf_pic_box *x = &p->box[k];
	const struct rect *r = &L->box[k], *pr = &L->box[x->parent];
	int vx = pr->x + INDENT / 2, my = r->y + r->h / 2;

	fprintf(f, "<path d=\"M%d %dV%dH%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>\n", vx,
		pr->y + pr->h, my, r->x, gf_pic_link_colour(x), gf_pic_rate_width(x->gb_per_s),
		x->state == GF_PIC_LINK_UNKNOWN ? " stroke-dasharray=\"4 3\"" : "");
}

static void draw_nvlink(const struct gf_picture *p, const struct layout *L, int k, FILE *f)
{
	const struct gf_pic_box *x = &p->box[k];
	const struct rect *r = &L->box[k];

	if (!x->nvlink[0])
		return;
	fprintf(f, "<path d=\"M%d %dH%dV%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>\n", r->x + r->w,
		r->y + r->h / 2, L->gutter[k], L->fabric.y,
		x->nvlink_degraded ? GF_PIC_RED : gf_pic_rate_colour(x->nvlink_gb_per_s), gf_pic_rate_width(x->nvlink_gb_per_s),
		x->nvlink_gb_per_s > 0 ? "" : " stroke-dasharray=\"4 3\"");
}

static int gpu_box(const struct gf_picture *p, int gpu)
{
	for (int k = 0; k < p->nbox; k++)
		if (p->box[k].gpu == gpu)
			return k;
	return -1;
}

static void draw_fabric(const struct gf_picture *p, const struct layout *L, FILE *f)
{
	const struct rect *r = &L->fabric;
	int base = r->y + r->h;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" fill=\"#fbefff\" stroke=\"#6639ba\" stroke-width=\"1.5\"/>\n",
		r->x, r->y, r->w, r->h);
	text(f, r->x + 2 * PAD, r->y + r->h / 2 + 4, "font-weight=\"bold\" fill=\"#6639ba\"", p->fabric_title);
	for (int i = 0; i < p->npair; i++) {
		const struct gf_pic_pair *pr = &p->pair[i];
		int a = gpu_box(p, pr->a), b = gpu_box(p, pr->b), depth = 16 + 12 * i, xa, xb;
		char lab[32];

		if (a < 0 || b < 0)
			continue;
		xa = L->gutter[a];
		xb = L->gutter[b];
		fprintf(f, "<path d=\"M%d %dV%dH%dV%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"/>\n", xa,
			base, base + depth, xb, base, gf_pic_rate_colour(25.0 * pr->nvlinks), gf_pic_rate_width(25.0 * pr->nvlinks));
		snprintf(lab, sizeof(lab), "NV%d GPU%d-GPU%d", pr->nvlinks, p->t->gpus[pr->a].index,
			 p->t->gpus[pr->b].index);
		text(f, (xa < xb ? xa : xb) + 4, base + depth - 2, "font-size=\"9\" fill=\"#6639ba\"", lab);
	}
}

static void draw_pins(const struct gf_picture *p, const struct layout *L, FILE *f)
{
	for (int k = 0; k < p->nbox; k++) {
		int nth = 0;

		for (int i = 0; i < p->npin; i++) {
			const struct gf_finding *fd = &p->t->findings[p->pin[i].finding];
			int cx, cy;

			if (p->pin[i].box != k)
				continue;
			cx = L->box[k].x + L->box[k].w - 2 - nth++ * (2 * PIN_R + 2);
			cy = L->box[k].y + 1;
			fprintf(f, "<g><title>%d: ", gf_pic_pin_number(i));
			gf_xml_escape(f, fd->message);
			fprintf(f, "</title><circle cx=\"%d\" cy=\"%d\" r=\"%d\" fill=\"%s\" stroke=\"#ffffff\"/>",
				cx, cy, PIN_R, gf_pic_severity_colour(fd->severity));
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" font-weight=\"bold\" fill=\"#ffffff\">%d</text></g>\n",
				cx, cy + 4, gf_pic_pin_number(i));
		}
	}
}

static void draw_frames(const struct gf_picture *p, const struct layout *L, FILE *f)
{
	const struct gf_topo *t = p->t;
	const struct gf_machine *m = &t->machine;
	char line[3][GF_PIC_LABEL + 4], mem[32] = "unknown";

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" fill=\"#ffffff\" stroke=\"#24292f\" stroke-width=\"1.5\"/>\n",
		L->machine.x, L->machine.y, L->machine.w, L->machine.h);
	if (m->memory_bytes)
		gf_fmt_bytes(m->memory_bytes, mem, sizeof(mem));
	snprintf(line[0], sizeof(line[0]), "Machine %.40s", m->hostname[0] ? m->hostname : "(no host name)");
	snprintf(line[1], sizeof(line[1]), "%.28s%s%.28s", m->vendor, m->vendor[0] ? " " : "", m->product);
	gf_sanitize_text(line[0]);
	gf_sanitize_text(line[1]);
	text(f, L->machine.x + PAD, L->machine.y + LINE, "font-weight=\"bold\" font-size=\"13\"", line[0]);
	snprintf(line[2], sizeof(line[2]), "%s memory, %d CPUs, %d GPU%s%s%.20s", mem, t->cpus.ncpu, t->ngpus,
		 t->ngpus == 1 ? "" : "s", m->driver_version[0] ? ", driver " : "", m->driver_version);
	gf_sanitize_text(line[2]);
	text(f, L->machine.x + PAD, L->machine.y + 2 * LINE, "fill=\"#424a53\"", line[1][0] ? line[1] : line[2]);
	if (line[1][0])
		text(f, L->machine.x + PAD, L->machine.y + 3 * LINE, "fill=\"#424a53\"", line[2]);
	for (int k = 0; k < p->nnode;) {
		int pkg = p->node[k].package, end = k;
		const struct rect *first = &L->node[k];
		int right, bottom = 0;

		while (end < p->nnode && (end == k || (pkg >= 0 && p->node[end].package == pkg))) {
			if (L->node[end].y + L->node[end].h > bottom)
				bottom = L->node[end].y + L->node[end].h;
			end++;
		}
		right = L->node[end - 1].x + L->node[end - 1].w;
		if (pkg >= 0) {
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" fill=\"#f6f8fa\" stroke=\"#8c959f\"/>\n",
				first->x - PAD, first->y - LINE - PAD, right - first->x + 2 * PAD,
				bottom - first->y + LINE + 2 * PAD);
			snprintf(line[0], sizeof(line[0]), "Package %d%s%.48s", pkg, t->cpus.model[0] ? ": " : "",
				 t->cpus.model);
			gf_sanitize_text(line[0]);
			text(f, first->x, first->y - PAD - 2, "font-weight=\"bold\"", line[0]);
		}
		for (int n = k; n < end; n++) {
			const struct rect *r = &L->node[n];
			int y = r->y + LINE - 2;

			node_lines(t, &p->node[n], line);
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" fill=\"#ffffff\" stroke=\"%s\"%s/>\n",
				r->x, r->y, r->w, r->h, p->node[n].id < 0 ? GF_PIC_RED : "#57606a",
				p->node[n].id < 0 ? " stroke-dasharray=\"5 3\"" : "");
			for (int i = 0; i < 3; i++)
				if (line[i][0]) {
					text(f, r->x + PAD, y, i ? "fill=\"#424a53\"" : "font-weight=\"bold\"", line[i]);
					y += LINE;
				}
		}
		k = end;
	}
}

/* The legend in one row; returns the y below it, and widens *width to
 * hold it. */
static int draw_legend(FILE *f, int y, int *width)
{
	static const struct {
		const char *colour, *dash, *what;
	} rows[] = {
		{ "#6639ba", "", ">= 200 GB/s (NVLink)" },
		{ "#116329", "", ">= 50 GB/s" },
		{ "#2da44e", "", ">= 25 GB/s" },
		{ "#0969da", "", ">= 10 GB/s" },
		{ "#bc4c00", "", "< 10 GB/s" },
		{ "#8c959f", " stroke-dasharray=\"4 3\"", "rate unknown" },
		{ GF_PIC_RED, "", "limited: see the finding" },
	};
	int x = MARGIN;

	text(f, x, y + 4, "font-weight=\"bold\"", "Links:");
	x += text_w("Links:") + PAD;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		fprintf(f, "<path d=\"M%d %dH%d\" stroke=\"%s\" stroke-width=\"4\"%s/>\n", x, y, x + 24, rows[i].colour,
			rows[i].dash);
		text(f, x + 28, y + 4, "fill=\"#424a53\"", rows[i].what);
		x += 28 + text_w(rows[i].what) + 2 * PAD;
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"12\" fill=\"none\" stroke=\"%s\" stroke-dasharray=\"5 3\"/>\n",
		x, y - 6, GF_PIC_RED);
	text(f, x + 28, y + 4, "fill=\"#424a53\"", "NUMA node unknown");
	x += 28 + text_w("NUMA node unknown") + MARGIN;
	if (x > *width)
		*width = x;
	return y + LINE + PAD;
}

/* The findings, numbered as their pins, wrapped at WRAP characters. */
static int draw_findings(const struct gf_picture *p, FILE *f, int y, int *width)
{
	const struct gf_topo *t = p->t;
	char head[96];

	text(f, MARGIN, y, "font-weight=\"bold\"", t->nfindings ? "Findings:" : "Findings: none");
	y += LINE + 2;
	for (int i = 0; i < p->npin; i++) {
		const struct gf_finding *fd = &t->findings[p->pin[i].finding];
		char buf[sizeof(fd->message) + 1];
		const char *s = fd->message;
		int indent;

		snprintf(head, sizeof(head), "%d %s %s%s", gf_pic_pin_number(i), gf_severity_name(fd->severity), fd->id,
			 p->pin[i].box < 0 ? " (not drawn)" : "");
		gf_sanitize_text(head);
		fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"%d\" fill=\"%s\"/>\n", MARGIN + PIN_R, y - 4, PIN_R,
			gf_pic_severity_colour(fd->severity));
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" font-weight=\"bold\" fill=\"#ffffff\">%d</text>\n",
			MARGIN + PIN_R, y, gf_pic_pin_number(i));
		text(f, MARGIN + 2 * PIN_R + PAD, y, "font-weight=\"bold\"", strchr(head, ' ') + 1);
		indent = MARGIN + 2 * PIN_R + PAD + text_w(strchr(head, ' ') + 1) + CHAR_W;
		/* Wrap the message at spaces. */
		while (*s) {
			size_t n = strlen(s);

			if (n > WRAP) {
				n = WRAP;
				while (n > WRAP / 2 && s[n] != ' ')
					n--;
			}
			memcpy(buf, s, n);
			buf[n] = '\0';
			gf_sanitize_text(buf);
			text(f, indent, y, "fill=\"#24292f\"", buf);
			if (indent + text_w(buf) + MARGIN > *width)
				*width = indent + text_w(buf) + MARGIN;
			y += LINE;
			s += n;
			while (*s == ' ')
				s++;
		}
		if (!fd->message[0])
			y += LINE;
	}
	return y;
}

int gf_picture_write_svg(const struct gf_picture *p, FILE *f)
{
	struct layout L = { 0 };
	size_t nb = (size_t)(p->nbox ? p->nbox : 1);
	int width, height, y, ret = 0;
	char *body = NULL;
	size_t body_len = 0;
	FILE *g;

	L.box = calloc(nb, sizeof(*L.box));
	L.gutter = calloc(nb, sizeof(*L.gutter));
	L.col = calloc((size_t)(p->ncol ? p->ncol : 1), sizeof(*L.col));
	L.node = calloc((size_t)(p->nnode ? p->nnode : 1), sizeof(*L.node));
	if (!L.box || !L.gutter || !L.col || !L.node || !(g = open_memstream(&body, &body_len))) {
		ret = gf_error(-ENOMEM, "out of memory");
		goto out;
	}
	layout(p, &L);
	/* The body first (the findings' width decides the picture's). */
	draw_frames(p, &L, g);
	for (int k = p->nbox - 1; k >= 0; k--)
		if (p->box[k].parent >= 0)
			draw_link(p, &L, k, g);
	if (p->fabric) {
		for (int k = 0; k < p->nbox; k++)
			if (p->box[k].kind == GF_PIC_GPU)
				draw_nvlink(p, &L, k, g);
		draw_fabric(p, &L, g);
	}
	for (int k = 0; k < p->nbox; k++)
		draw_box(p, &L, k, g);
	draw_pins(p, &L, g);
	width = L.width + MARGIN;
	y = draw_legend(g, L.below + LINE, &width);
	y = draw_findings(p, g, y + LINE, &width);
	height = y + MARGIN;
	if (fclose(g)) {
		ret = gf_error(-ENOMEM, "out of memory");
		goto out;
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		   "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"%d\" role=\"img\">\n",
		width, height, width, height, FONT);
	fputs("<title>", f);
	gf_xml_escape(f, "gpufeed topo: ");
	gf_xml_escape(f, p->t->machine.hostname[0] ? p->t->machine.hostname : "machine");
	fputs("</title>\n", f);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height);
	fwrite(body, 1, body_len, f);
	fputs("</svg>\n", f);
	ret = ferror(f) ? gf_error(-EIO, "writing output failed") : 0;
out:
	free(body);
	free(L.box);
	free(L.gutter);
	free(L.col);
	free(L.node);
	return ret;
}
