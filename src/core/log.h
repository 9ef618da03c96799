/* Internal side of the diagnostics channel (include/gpufeed/log.h):
 *
 *   GF_WARN(GF_LOG_IO, "%s: O_DIRECT refused by %s; using the page cache", path, fs);
 *   GF_DEBUG(GF_LOG_IO, "retrying after %llu us", ...);
 *
 * A message below the subsystem's level costs one atomic load; nothing is
 * formatted.  For what a caller must act on, keep returning -errno with
 * gf_error(): the channel is for what happened beside the result. */
#ifndef GF_CORE_LOG_H
#define GF_CORE_LOG_H

#include <stdbool.h>
#include <gpufeed/log.h>
#include "core/error.h"

bool gf_log_enabled(enum gf_log_subsys subsys, enum gf_log_level level);
void gf_log(enum gf_log_subsys subsys, enum gf_log_level level, const char *fmt, ...) GF_PRINTF(3, 4);

#define GF_LOG_AT(lvl, subsys, ...)                         \
	do {                                                \
		if (gf_log_enabled((subsys), (lvl)))        \
			gf_log((subsys), (lvl), __VA_ARGS__); \
	} while (0)
#define GF_LOGERR(subsys, ...) GF_LOG_AT(GF_LOG_ERROR, subsys, __VA_ARGS__)
#define GF_WARN(subsys, ...) GF_LOG_AT(GF_LOG_WARN, subsys, __VA_ARGS__)
#define GF_INFO(subsys, ...) GF_LOG_AT(GF_LOG_INFO, subsys, __VA_ARGS__)
#define GF_DEBUG(subsys, ...) GF_LOG_AT(GF_LOG_DEBUG, subsys, __VA_ARGS__)

#endif
