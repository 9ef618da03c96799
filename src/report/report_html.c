/* `gpufeed report --html`: the report as one page a browser opens from
 * disk, with nothing fetched: the summary, the picture of the machine
 * (inline SVG), the matrix, the paths with their limits, the findings,
 * the host audit grouped by category with a filter, and the figures of
 * bench documents as bars beside their limits.  CSS is inline; the only
 * script is the audit's filter, a few lines of plain JavaScript; the page
 * works without it.  Every string from the machine, the audit or a bench
 * file is escaped (a recording may hold anything). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/gpufeed.h>
#include <gpufeed/report.h>
#include "core/error.h"
#include "core/json_stamp.h"
#include "core/quote.h"
#include "report/report_bench.h"
#include "topo/render.h"

static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
	"margin:0 auto;max-width:1400px;padding:0 16px 40px;color:#1f2328;background:#fff}\n"
	"h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 8px;"
	"border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}\n"
	"nav a{margin-right:14px}.meta{color:#59636e}code,pre,td.num,.mono{font-family:"
	"'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12.5px}\n"
	"pre{background:#f6f8fa;padding:10px;overflow:auto;border-radius:6px}\n"
	"table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #d0d7de;padding:3px 7px;"
	"text-align:left;vertical-align:top}th{background:#f6f8fa}td.num{text-align:right}\n"
	".picture{overflow:auto;border:1px solid #d0d7de;border-radius:6px;max-height:80vh}"
	"#fit:checked~.picture svg{width:100%;height:auto}\n"
	".NV{background:#e8dcfb}.PIX,.PXB{background:#dafbe1}.PHB,.NODE{background:#fff8c5}"
	".SYS{background:#ffebe9}.X{color:#8c959f}\n"
	".pass{color:#1a7f37}.na{color:#8c959f}.needs-root{color:#9a6700}.warn,.warning{color:#9a6700;"
	"font-weight:600}.error,.fail{color:#cf222e;font-weight:600}.info{color:#0969da}\n"
	"#audit-filter label{margin-right:12px}#audit-filter input[type=search]{margin-left:8px;width:22em}\n"
	"details{margin:6px 0}summary{cursor:pointer;font-weight:600}\n"
	".bar{position:relative;width:360px;height:14px;background:#f6f8fa;border:1px solid #d0d7de}"
	".bar .fill{position:absolute;left:0;top:0;bottom:0;background:#2da44e}"
	".bar .fill.over{background:#cf222e}.bar .lim{position:absolute;top:-3px;bottom:-3px;"
	"width:2px;background:#1f2328}\n";

/* Lets a person hide statuses and search the audit's rows; the page
 * reads the same without it (every row shown). */
static const char script[] =
	"(function(){var f=document.getElementById('audit-filter');if(!f)return;\n"
	"function apply(){var q=f.querySelector('input[type=search]').value.toLowerCase(),on={};\n"
	"f.querySelectorAll('input[type=checkbox]').forEach(function(c){on[c.value]=c.checked;});\n"
	"document.querySelectorAll('#audit tr[data-status]').forEach(function(r){\n"
	"r.hidden=!(on[r.getAttribute('data-status')]&&r.textContent.toLowerCase().indexOf(q)>=0);});}\n"
	"f.addEventListener('input',apply);f.addEventListener('change',apply);apply();})();\n";

static void esc(FILE *f, const char *s)
{
	gf_xml_escape(f, s ? s : "");
}

/* A number exactly as the document had it: the shortest form that reads
 * back to the same double (the test compares the page with the JSON). */
static void num(FILE *f, double v)
{
	char buf[40];

	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

static void section(FILE *f, const char *id, const char *title)
{
	fprintf(f, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
}

static int write_summary(const struct gf_topo *t, const struct gf_audit *a, FILE *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int serious = gf_topo_finding_count(t, GF_SEV_WARN);

	if (!m)
		return -ENOMEM;
	gf_print_summary(t, m);
	if (fclose(m)) {
		free(text);
		return -ENOMEM;
	}
	gf_sanitize_text(text);
	section(f, "summary", "Summary");
	fputs("<pre>", f);
	esc(f, text);
	fputs("</pre>\n<p>", f);
	fprintf(f, "Findings of the topology model: <b>%d</b> (%d warning%s or error%s).", t->nfindings, serious,
		serious == 1 ? "" : "s", serious == 1 ? "" : "s");
	if (a)
		fprintf(f, " Host audit: <span class=\"fail\">%d fail</span>, <span class=\"error\">%d error</span>, "
			   "<span class=\"warn\">%d warn</span>, <span class=\"needs-root\">%d needs-root</span>, "
			   "<span class=\"pass\">%d pass</span>, <span class=\"na\">%d na</span>.",
			a->counts[GF_CHECK_FAIL], a->counts[GF_CHECK_ERROR], a->counts[GF_CHECK_WARN],
			a->counts[GF_CHECK_NEEDS_ROOT], a->counts[GF_CHECK_PASS], a->counts[GF_CHECK_NA]);
	fputs("</p></section>\n", f);
	free(text);
	return 0;
}

static int write_picture(const struct gf_topo *t, FILE *f)
{
	int ret;

	section(f, "picture", "The machine");
	fputs("<p class=\"meta\">Links coloured by their narrowest rate, red where a finding limits them; "
	      "hover over a box for its text.</p>\n"
	      "<input type=\"checkbox\" id=\"fit\"><label for=\"fit\"> fit to the page's width</label>\n"
	      "<div class=\"picture\">\n",
	      f);
	ret = gf_topo_write_svg(t, f);
	fputs("</div></section>\n", f);
	return ret;
}

static void write_matrix(const struct gf_topo *t, FILE *f)
{
	const struct gf_matrix *m = &t->matrix;
	char buf[24], desc[96];

	if (!m->nsmi)
		return;
	section(f, "matrix", "Link matrix");
	fputs("<table class=\"mono\"><tr><th></th>", f);
	for (int j = 0; j < m->nsmi; j++) {
		fputs("<th>", f);
		esc(f, m->dev[j].name);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (int i = 0; i < m->nsmi; i++) {
		fputs("<tr><th title=\"", f);
		esc(f, gf_matrix_dev_desc(t, i, desc, sizeof(desc)));
		fputs("\">", f);
		esc(f, m->dev[i].name);
		fputs("</th>", f);
		for (int j = 0; j < m->nsmi; j++) {
			const struct gf_link *l = &m->link[i * m->n + j];

			gf_link_format(l, buf, sizeof(buf));
			fprintf(f, "<td class=\"%s\">%s</td>", gf_link_type_name(l->type), buf);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<p class=\"meta\">X = self; NV# = # bonded NVLinks; PIX = at most one PCIe bridge; "
	      "PXB = several PCIe bridges; PHB = a PCIe host bridge; NODE = host bridges within a NUMA node; "
	      "SYS = the link between NUMA nodes (nvidia-smi topo -m's vocabulary).</p></section>\n",
	      f);
}

static const char *path_kind_title(enum gf_path_kind k)
{
	switch (k) {
	case GF_PATH_HOST_GPU: return "Host memory to GPU";
	case GF_PATH_GPU_GPU: return "GPU to GPU";
	case GF_PATH_GPU_NIC: return "GPU to NIC";
	default: return "GPU to NVMe";
	}
}

static void write_paths(const struct gf_topo *t, FILE *f)
{
	char rate[32], link[24];

	if (!t->npaths)
		return;
	section(f, "paths", "Paths and their limits");
	fputs("<p class=\"meta\">Theoretical one-way bandwidth of each path that feeds a GPU, set by its "
	      "narrowest link.</p>\n",
	      f);
	for (enum gf_path_kind k = GF_PATH_HOST_GPU; k <= GF_PATH_GPU_NVME; k++) {
		int n = 0;

		for (int i = 0; i < t->npaths; i++)
			n += t->paths[i].kind == k;
		if (!n)
			continue;
		fprintf(f, "<details%s><summary>%s (%d)</summary>\n<table><tr><th>path</th><th>link</th>"
			   "<th>GB/s</th><th>limited by</th></tr>\n",
			k == GF_PATH_HOST_GPU ? " open" : "", path_kind_title(k), n);
		for (int i = 0; i < t->npaths; i++) {
			const struct gf_path *p = &t->paths[i];

			if (p->kind != k)
				continue;
			fputs("<tr><td>", f);
			if (p->from < 0)
				fprintf(f, "host memory (node %d) &#8594; ", p->host_node);
			else {
				esc(f, t->matrix.dev[p->from].name);
				fputs(" &#8596; ", f);
			}
			esc(f, t->matrix.dev[p->to].name);
			gf_link_format(&p->link, link, sizeof(link));
			fprintf(f, "</td><td class=\"mono\">%s</td><td class=\"num\">%s</td><td>", link,
				gf_path_rate_text(p, rate, sizeof(rate)));
			esc(f, p->limit_text);
			fputs(p->crosses_cpu_link ? "; crosses sockets (not modelled)" : "", f);
			fputs("</td></tr>\n", f);
		}
		fputs("</table></details>\n", f);
	}
	fputs("</section>\n", f);
}

static void write_findings(const struct gf_topo *t, FILE *f)
{
	section(f, "findings", "Findings of the topology model");
	if (!t->nfindings)
		fputs("<p>None.</p>\n", f);
	else
		fputs("<table><tr><th>#</th><th>severity</th><th>id</th><th>subject</th><th>finding</th></tr>\n", f);
	for (int i = 0; i < t->nfindings; i++) {
		const struct gf_finding *x = &t->findings[i];
		const char *sev = gf_severity_name(x->severity);

		fprintf(f, "<tr><td class=\"num\">%d</td><td class=\"%s\">%s</td><td class=\"mono\">", i + 1, sev,
			sev);
		esc(f, x->id);
		fputs("</td><td>", f);
		esc(f, x->subject);
		fputs("</td><td>", f);
		esc(f, x->message);
		fputs("</td></tr>\n", f);
	}
	if (t->nfindings)
		fputs("</table>\n<p class=\"meta\">The numbers are the pins on the picture.</p>\n", f);
	fputs("</section>\n", f);
}

static void audit_row(const struct gf_check_result *r, FILE *f)
{
	const char *st = gf_check_status_name(r->status);

	fprintf(f, "<tr data-status=\"%s\"><td class=\"%s\">%s</td><td class=\"mono\">", st, st, st);
	esc(f, r->check->id);
	fputs("</td><td>", f);
	esc(f, r->subject);
	fputs("</td><td>", f);
	esc(f, r->check->title);
	fputs("</td><td>", f);
	esc(f, r->observed);
	if (r->note[0]) {
		fputs(r->observed[0] ? "<br><i>" : "<i>", f);
		esc(f, r->note);
		fputs("</i>", f);
	}
	fputs("</td><td>", f);
	esc(f, r->expected);
	fputs("</td><td class=\"mono\">", f);
	esc(f, r->fix);
	fputs("</td></tr>\n", f);
}

/* Categories in the catalogue's order, problems first within each. */
static void write_audit(const struct gf_audit *a, FILE *f)
{
	static const enum gf_check_status order[] = { GF_CHECK_FAIL, GF_CHECK_ERROR, GF_CHECK_WARN,
						      GF_CHECK_NEEDS_ROOT, GF_CHECK_PASS, GF_CHECK_NA };
	const char *prev = NULL;

	section(f, "audit", "Host audit");
	fprintf(f, "<p class=\"meta\">gpufeed check, profile %s, %d results.</p>\n", gf_profile_name(a->profile),
		a->nresults);
	fputs("<form id=\"audit-filter\" onsubmit=\"return false\">Show:", f);
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		const char *st = gf_check_status_name(order[o]);

		fprintf(f, " <label><input type=\"checkbox\" value=\"%s\"%s> <span class=\"%s\">%s</span> (%d)</label>",
			st, order[o] == GF_CHECK_PASS || order[o] == GF_CHECK_NA ? "" : " checked", st, st,
			a->counts[order[o]]);
	}
	fputs("<input type=\"search\" placeholder=\"search: id, subject, text\" aria-label=\"search the audit\">"
	      "</form>\n",
	      f);
	for (int c = 0; c < gf_check_count(); c++) {
		const char *cat = gf_check_info_at(c)->category;
		int n = 0, bad = 0;

		if (prev && !strcmp(prev, cat))
			continue;
		prev = cat;
		for (int j = 0; j < a->nresults; j++)
			if (!strcmp(a->results[j].check->category, cat)) {
				n++;
				bad += a->results[j].status >= GF_CHECK_WARN;
			}
		if (!n)
			continue;
		fprintf(f, "<details%s><summary>", bad ? " open" : "");
		esc(f, cat);
		fprintf(f, " (%d result%s, %d to look at)</summary>\n", n, n == 1 ? "" : "s", bad);
		fputs("<table><tr><th>status</th><th>check</th><th>subject</th><th>what it checks</th><th>observed</th>"
		      "<th>expected</th><th>fix</th></tr>\n",
		      f);
		for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++)
			for (int j = 0; j < a->nresults; j++)
				if (!strcmp(a->results[j].check->category, cat) && a->results[j].status == order[o])
					audit_row(&a->results[j], f);
		fputs("</table></details>\n", f);
	}
	fputs("</section>\n", f);
}

/* One bench document: each figure with a bar; the bar's length is the
 * figure against its limit (or against the largest figure of its unit
 * when the document gives no limit), the dark mark is the limit. */
static void write_bench_doc(const struct gf_report_bench *b, int index, FILE *f)
{
	fprintf(f, "<div class=\"bench\" data-file=\"%d\"><h3>bench ", index);
	esc(f, b->target);
	fputs(": <span class=\"mono\">", f);
	esc(f, b->file);
	fputs("</span></h3>\n<p class=\"meta\">", f);
	esc(f, b->schema);
	if (b->hostname[0]) {
		fputs(", measured on ", f);
		esc(f, b->hostname);
	}
	fprintf(f, ", %d figure%s.</p>\n", b->nfig, b->nfig == 1 ? "" : "s");
	if (!b->nfig) {
		fputs("</div>\n", f);
		return;
	}
	fputs("<table><tr><th>measured</th><th>figure</th><th>unit</th><th></th><th>limit</th><th>of the limit</th>"
	      "<th>limited by</th></tr>\n",
	      f);
	for (int i = 0; i < b->nfig; i++) {
		const struct gf_report_figure *x = &b->fig[i];
		double scale = x->limit > x->value ? x->limit : x->value;

		if (x->limit <= 0)
			for (int j = 0; j < b->nfig; j++)
				if (!strcmp(b->fig[j].unit, x->unit) && b->fig[j].value > scale)
					scale = b->fig[j].value;
		fputs("<tr class=\"figure\"><td>", f);
		esc(f, x->label);
		if (x->failed) {
			fputs("</td><td class=\"fail\" colspan=\"6\">failed: ", f);
			esc(f, x->error);
			fputs("</td></tr>\n", f);
			continue;
		}
		fputs("</td><td class=\"num value\" data-value=\"", f);
		num(f, x->value);
		fputs("\">", f);
		num(f, x->value);
		fputs("</td><td>", f);
		esc(f, x->unit);
		fprintf(f, "</td><td><div class=\"bar\"><span class=\"fill%s\" style=\"width:%.1f%%\"></span>",
			x->limit > 0 && x->value > x->limit ? " over" : "", scale > 0 ? 100 * x->value / scale : 0);
		if (x->limit > 0)
			fprintf(f, "<span class=\"lim\" style=\"left:%.1f%%\"></span>", 100 * x->limit / scale);
		fputs("</div></td>", f);
		if (x->limit > 0) {
			fputs("<td class=\"num limit\" data-limit=\"", f);
			num(f, x->limit);
			fputs("\">", f);
			num(f, x->limit);
			fprintf(f, "</td><td class=\"num%s\">%.1f%%</td><td>", x->value > x->limit ? " fail" : "",
				100 * x->value / x->limit);
			esc(f, x->limited_by);
			fputs("</td></tr>\n", f);
		} else {
			fputs("<td></td><td></td><td class=\"na\">no limit in the document</td></tr>\n", f);
		}
	}
	fputs("</table></div>\n", f);
}

GF_API int gf_report_write_html(const struct gf_topo *t, const struct gf_audit *a, const char *const *bench,
				int nbench, FILE *f)
{
	struct gf_report_bench *docs = NULL;
	char when[40], title[200];
	int ret = 0, nread = 0;

	if (!t || !f)
		return GF_NULL_ARG(!t ? "t" : "f");
	if (nbench < 0 || (nbench && !bench))
		return gf_arg_error(__func__, "bench is NULL or nbench %d is negative", nbench);
	if ((ret = gf_json_timestamp(when, sizeof(when))))
		return ret;
	/* Every document read before a byte is written: a bad one costs the
	 * page, not half of it. */
	if (nbench && !(docs = calloc((size_t)nbench, sizeof(*docs))))
		return gf_error(-ENOMEM, "out of memory");
	for (; nread < nbench; nread++)
		if (!bench[nread]) {
			ret = gf_arg_error(__func__, "bench[%d] is NULL", nread);
			goto out;
		} else if ((ret = gf_report_bench_read(bench[nread], &docs[nread]))) {
			gf_report_bench_free(&docs[nread]);
			goto out;
		}
	snprintf(title, sizeof(title), "gpufeed report: %s", t->machine.hostname[0] ? t->machine.hostname : "machine");
	gf_sanitize_text(title);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      f);
	esc(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head><body>\n<h1>", style);
	esc(f, title);
	fprintf(f, "</h1>\n<p class=\"meta\">gpufeed %s, %s; from ", gf_version(), when);
	esc(f, t->machine.source);
	fputs(".</p>\n<nav><a href=\"#summary\">Summary</a><a href=\"#picture\">Picture</a>", f);
	if (t->matrix.nsmi)
		fputs("<a href=\"#matrix\">Matrix</a>", f);
	if (t->npaths)
		fputs("<a href=\"#paths\">Paths</a>", f);
	fputs("<a href=\"#findings\">Findings</a>", f);
	if (a)
		fputs("<a href=\"#audit\">Audit</a>", f);
	if (nbench)
		fputs("<a href=\"#bench\">Measurements</a>", f);
	fputs("</nav>\n", f);
	if ((ret = write_summary(t, a, f)) || (ret = write_picture(t, f)))
		goto out;
	write_matrix(t, f);
	write_paths(t, f);
	write_findings(t, f);
	if (a)
		write_audit(a, f);
	if (nbench) {
		section(f, "bench", "Measurements");
		fputs("<p class=\"meta\">Each figure (a median of the runs) as a bar; the dark mark is its "
		      "theoretical limit from the machine model; red: above it, which a measurement should never "
		      "be.</p>\n",
		      f);
		for (int i = 0; i < nbench; i++)
			write_bench_doc(&docs[i], i, f);
		fputs("</section>\n", f);
	}
	fprintf(f, "<script>\n%s</script>\n</body></html>\n", script);
	ret = ferror(f) ? gf_error(-EIO, "writing output failed") : 0;
out:
	if (ret == -ENOMEM)
		ret = gf_error(-ENOMEM, "out of memory");
	for (int i = 0; i < nread; i++)
		gf_report_bench_free(&docs[i]);
	free(docs);
	return ret;
}
