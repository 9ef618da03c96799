#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <gpufeed/env.h>
#include <gpufeed/gpufeed.h>
#include "core/json_read.h"
#include "core/json_stamp.h"

int gf_json_timestamp(char *buf, size_t size)
{
	long long v;
	time_t when = time(NULL);
	struct tm tm;
	int ret;

	/* A malformed SOURCE_DATE_EPOCH is an error naming it, as
	 * reproducible-builds.org asks: a wrong date must not pass silently. */
	ret = gf_env_int(GF_ENV_SOURCE_DATE_EPOCH, &v);
	if (ret < 0)
		return ret;
	if (ret)
		when = (time_t)v;
	gmtime_r(&when, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return 0;
}

int gf_json_stamp(json_t *obj, const char *schema)
{
	char when[32];
	int ret;

	if ((ret = gf_json_timestamp(when, sizeof(when))))
		return ret;
	if (json_object_set_new(obj, "schema", gf_jstr(schema)) ||
	    json_object_set_new(obj, "gpufeed_version", gf_jstr(gf_version())) ||
	    json_object_set_new(obj, "generated_at", gf_jstr(when)))
		return -ENOMEM;
	return 0;
}
