/* What the audit offers the features above it (report): its summary as a
 * JSON object. */
#ifndef GF_AUDIT_RENDER_H
#define GF_AUDIT_RENDER_H

#include <jansson.h>
#include <gpufeed/audit.h>

/* {"profile", "counts": {...}, "worst": [the `max` most serious results]} */
json_t *gf_audit_json_summary(const struct gf_audit *a, int max);

#endif
