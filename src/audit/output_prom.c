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
#include "audit/audit_internal.h"

/* Label values escape \, " and newline (the exposition format's rule). */
static void label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

int gf_audit_write_prom(const struct gf_audit *a, FILE *f)
{
	char stamp[40];
	struct tm tm = { 0 };
	long long when;

	if (!a || !f)
		return -EINVAL;
	fputs("# HELP gpufeed_check_result One per check and subject; the status label is the result "
	      "(pass, na, needs-root, warn, error, fail).\n"
	      "# TYPE gpufeed_check_result gauge\n",
	      f);
	for (int i = 0; i < a->nresults; i++) {
		const struct gf_check_result *r = &a->results[i];

		fputs("gpufeed_check_result{id=\"", f);
		label(f, r->check->id);
		fputs("\",category=\"", f);
		label(f, r->check->category);
		fputs("\",subject=\"", f);
		label(f, r->subject);
		fprintf(f, "\",status=\"%s\",profile=\"%s\"} 1\n", gf_check_status_name(r->status),
			gf_profile_name(a->profile));
	}
	fputs("# HELP gpufeed_check_results Number of results with each status.\n"
	      "# TYPE gpufeed_check_results gauge\n",
	      f);
	for (int s = 0; s < GF_CHECK_NSTATUS; s++)
		fprintf(f, "gpufeed_check_results{status=\"%s\"} %d\n", gf_check_status_name((enum gf_check_status)s),
			a->counts[s]);
	if (gf_json_timestamp(stamp, sizeof(stamp)) == 0 && strptime(stamp, "%Y-%m-%dT%H:%M:%SZ", &tm)) {
		when = (long long)timegm(&tm);
		fputs("# HELP gpufeed_check_last_run_timestamp_seconds When the checks ran.\n"
		      "# TYPE gpufeed_check_last_run_timestamp_seconds gauge\n",
		      f);
		fprintf(f, "gpufeed_check_last_run_timestamp_seconds %lld\n", when);
	}
	return ferror(f) ? -EIO : 0;
}

static int prom_cb(FILE *f, void *arg)
{
	return gf_audit_write_prom(arg, f);
}

int gf_audit_save_prom(const struct gf_audit *a, const char *path)
{
	if (!a || !path || !path[0])
		return gf_error(-EINVAL, "gf_audit_save_prom: no audit or no path");
	return gf_atomic_write(path, prom_cb, (void *)a);
}
