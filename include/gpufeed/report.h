/* `gpufeed report`: the one screen a person reads first. */
#ifndef GPUFEED_REPORT_H
#define GPUFEED_REPORT_H

#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/topo.h>
#include <gpufeed/audit.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GF_REPORT_SCHEMA "gpufeed-report/2"

/* Machine summary, link matrix, paths per group of GPUs with their
 * bottlenecks, findings, then the host audit's summary (counts and the
 * worst results; a NULL audit: none), as text and as JSON
 * (docs/json-report.md).  0, -EIO when writing failed, -EINVAL for t or f
 * NULL. */
GF_API int gf_report_print_with_audit(const struct gf_topo *t, const struct gf_audit *a, FILE *f, unsigned flags);
GF_API int gf_report_write_json_with_audit(const struct gf_topo *t, const struct gf_audit *a, FILE *f);

/* The report as one self-contained HTML page (docs/picture.md, "The
 * page"): the summary, the picture of the machine (gf_topo_write_svg), the
 * matrix, the paths with their limits, the findings, the audit's results
 * grouped by category with a filter (a NULL audit: none), and each figure
 * of the nbench documents named in bench (the --json outputs of gpufeed
 * bench commands) as a bar beside its limit.  Nothing is fetched: CSS and
 * SVG are inline, the filter is a few lines of plain script.  Strings from
 * the machine and the documents are escaped.  Every document is read
 * before anything is written.  0, -EIO when writing failed, -ENOMEM,
 * -EINVAL for t or f NULL or a bad bench/nbench, or what reading a
 * document met, naming it (-ENOENT; -EBADMSG: not JSON, or not a gpufeed
 * bench document). */
GF_API int gf_report_write_html(const struct gf_topo *t, const struct gf_audit *a, const char *const *bench,
				int nbench, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
