#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <gpufeed/gpufeed.h>
#include "core/json_read.h"
#include "core/json_stamp.h"
#include "core/strutil.h"

void gf_json_timestamp(char *buf, size_t size)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	long long v;
	time_t when = time(NULL);
	struct tm tm;

	/* An unparsable SOURCE_DATE_EPOCH is ignored, as reproducible-builds.org
	 * asks of tools that do not fail on it. */
	if (epoch && !gf_parse_ll(epoch, &v) && v >= 0)
		when = (time_t)v;
	gmtime_r(&when, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int gf_json_stamp(json_t *obj, const char *schema)
{
	char when[32];

	gf_json_timestamp(when, sizeof(when));
	if (json_object_set_new(obj, "schema", gf_jstr(schema)) ||
	    json_object_set_new(obj, "gpufeed_version", gf_jstr(gf_version())) ||
	    json_object_set_new(obj, "generated_at", gf_jstr(when)))
		return -ENOMEM;
	return 0;
}
