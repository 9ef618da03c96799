/* The head every JSON document gpufeed writes starts with. */
#ifndef GF_CORE_JSON_STAMP_H
#define GF_CORE_JSON_STAMP_H

#include <jansson.h>

/* Sets "schema", "gpufeed_version" (gf_version()) and "generated_at"
 * (RFC 3339 UTC, e.g. "2026-11-23T13:05:00Z") on obj.  The time is now, or
 * $SOURCE_DATE_EPOCH when set (reproducible output: the golden tests set it).
 * Returns 0, -ENOMEM, or -EINVAL for a malformed SOURCE_DATE_EPOCH (the
 * message names it). */
int gf_json_stamp(json_t *obj, const char *schema);

/* The same timestamp as a string ("now" or SOURCE_DATE_EPOCH); 0 or
 * -EINVAL as above. */
int gf_json_timestamp(char *buf, size_t size);

#endif
