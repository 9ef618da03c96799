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

#ifdef __cplusplus
}
#endif
#endif
