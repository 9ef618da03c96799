/* `gpufeed report`: the one screen a person reads first. */
#ifndef GPUFEED_REPORT_H
#define GPUFEED_REPORT_H

#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GF_REPORT_SCHEMA "gpufeed-report/1"

/* Machine summary, link matrix, path table with bottlenecks, problems. */
GF_API int gf_report_print(const struct gf_topo *t, FILE *f, unsigned flags);
GF_API int gf_report_write_json(const struct gf_topo *t, FILE *f);
/* Findings at or above GF_SEV_WARN. */
GF_API int gf_report_problem_count(const struct gf_topo *t);

#ifdef __cplusplus
}
#endif
#endif
