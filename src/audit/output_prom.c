/* node_exporter textfile format: one gauge per result with its status as a
 * label (so alerts select on status="fail"), counts, and the run's time.
 * The CLI writes it to a temp file and renames it into place, as the
 * textfile collector asks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/atomic.h"
#include "core/json_stamp.h"
#include "core/prom.h"
#include "audit/audit_internal.h"

int gf_audit_write_prom(const struct gf_audit *a, FILE *f)
{
	char stamp[40];
	struct tm tm = { 0 };

	if (!a || !f)
		return GF_NULL_ARG(!a ? "a" : "f");
	gf_prom_family(f, "gpufeed_check_result", "gauge",
		       "One per check and subject; the status label is the result (pass, na, needs-root, warn, "
		       "error, fail).");
	for (int i = 0; i < a->nresults; i++) {
		const struct gf_check_result *r = &a->results[i];
		const char *const labels[] = { "id", r->check->id, "category", r->check->category,
					       "subject", r->subject, "status", gf_check_status_name(r->status),
					       "profile", gf_profile_name(a->profile), NULL };

		gf_prom_sample(f, "gpufeed_check_result", labels, 1);
	}
	gf_prom_family(f, "gpufeed_check_results", "gauge", "Number of results with each status.");
	for (int s = 0; s < GF_CHECK_NSTATUS; s++) {
		const char *const labels[] = { "status", gf_check_status_name((enum gf_check_status)s), NULL };

		gf_prom_sample(f, "gpufeed_check_results", labels, a->counts[s]);
	}
	if (gf_json_timestamp(stamp, sizeof(stamp)) == 0 && strptime(stamp, "%Y-%m-%dT%H:%M:%SZ", &tm)) {
		gf_prom_family(f, "gpufeed_check_last_run_timestamp_seconds", "gauge", "When the checks ran.");
		gf_prom_sample(f, "gpufeed_check_last_run_timestamp_seconds", NULL, (double)timegm(&tm));
	}
	return ferror(f) ? -EIO : 0;
}

static int prom_cb(FILE *f, void *arg)
{
	return gf_audit_write_prom(arg, f);
}

int gf_audit_save_prom(const struct gf_audit *a, const char *path)
{
	if (!a || !path)
		return GF_NULL_ARG(!a ? "a" : "path");
	if (!path[0])
		return gf_arg_error(__func__, "path is empty");
	return gf_atomic_write(path, prom_cb, (void *)a);
}
