/* One diagnostics channel for the whole library: messages with a level and
 * a subsystem (NCCL's INFO(NCCL_INIT, ...) habit), delivered to a callback
 * the application sets.
 *
 * The library never prints on its own.  With no callback set, messages go
 * nowhere, unless the environment variable GPUFEED_LOG is set: then the
 * messages it selects go to stderr (the user asked for them).
 *
 *   gf_log_set_callback(gf_log_stderr, NULL);    // or your own function
 *   gf_log_parse("warn,io:debug");               // what gets through
 *
 * GPUFEED_LOG takes the same text as gf_log_parse(): a comma-separated list
 * of LEVEL (every subsystem) or SUBSYS:LEVEL, applied in order, e.g.
 * "info", "io:debug,topo:warn", "none".  Levels: none, error, warn, info,
 * debug; subsystems: core, topo, io, bench, record, vendor, all.  It is read
 * once, at the first call of the channel; gf_log_set_level() and
 * gf_log_parse() change the filter after that.  The default filter lets
 * errors and warnings through.
 *
 * What a message reports stays available as a fact to the caller too
 * (gf_file_info()->direct_refused, gf_buf.placed, gf_io_fallback_error());
 * the channel says it in words, when it happens.
 *
 * Callbacks run in the thread that logs (an I/O worker included), one at a
 * time; a message the callback itself logs is dropped.  The channel is
 * thread-safe; it is not async-signal-safe. */
#ifndef GPUFEED_LOG_H
#define GPUFEED_LOG_H

#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gf_log_level {
	GF_LOG_NONE = 0,	/* as a filter: nothing */
	GF_LOG_ERROR,
	GF_LOG_WARN,
	GF_LOG_INFO,
	GF_LOG_DEBUG,
};

enum gf_log_subsys {
	GF_LOG_CORE = 0,
	GF_LOG_TOPO,
	GF_LOG_IO,
	GF_LOG_BENCH,
	GF_LOG_RECORD,
	GF_LOG_VENDOR,		/* NVML and the vendor libraries to come */
	GF_LOG_NSUBSYS,
	GF_LOG_ALL = -1,	/* for gf_log_set_level */
};

/* msg has no trailing newline; it is valid during the call only. */
typedef void (*gf_log_fn)(enum gf_log_level level, enum gf_log_subsys subsys, const char *msg, void *user);

/* fn NULL: messages go nowhere (or to stderr when GPUFEED_LOG is set). */
GF_API void gf_log_set_callback(gf_log_fn fn, void *user);
/* A ready-made callback: "gpufeed: io: warning: MSG" on stderr. */
GF_API void gf_log_stderr(enum gf_log_level level, enum gf_log_subsys subsys, const char *msg, void *user);

/* Messages of subsys (GF_LOG_ALL: every one) at level or more severe get
 * through; GF_LOG_NONE silences it.  A subsys or level out of range
 * changes nothing; the level of one out of range is GF_LOG_NONE. */
GF_API void gf_log_set_level(enum gf_log_subsys subsys, enum gf_log_level level);
GF_API enum gf_log_level gf_log_level_of(enum gf_log_subsys subsys);
/* The GPUFEED_LOG syntax.  All or nothing: 0, or -EINVAL with a message in
 * gf_last_error() and the filter unchanged. */
GF_API int gf_log_parse(const char *spec);

/* "error", "warning", "info", "debug" ("none" for GF_LOG_NONE); "?" out
 * of range. */
GF_API const char *gf_log_level_name(enum gf_log_level level);
/* "core", "topo", "io", "bench", "record", "vendor"; "?" out of range. */
GF_API const char *gf_log_subsys_name(enum gf_log_subsys subsys);

#ifdef __cplusplus
}
#endif
#endif
