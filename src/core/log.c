/* The diagnostics channel (include/gpufeed/log.h): a level per subsystem,
 * one callback, GPUFEED_LOG read once. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/env.h>
#include "core/error.h"
#include "core/log.h"

static const char *const subsys_names[GF_LOG_NSUBSYS] = {
	[GF_LOG_CORE] = "core", [GF_LOG_TOPO] = "topo", [GF_LOG_IO] = "io",
	[GF_LOG_BENCH] = "bench", [GF_LOG_RECORD] = "record", [GF_LOG_VENDOR] = "vendor",
};
static const char *const level_names[] = {
	[GF_LOG_NONE] = "none", [GF_LOG_ERROR] = "error", [GF_LOG_WARN] = "warning",
	[GF_LOG_INFO] = "info", [GF_LOG_DEBUG] = "debug",
};

static atomic_int levels[GF_LOG_NSUBSYS] = {
	GF_LOG_WARN, GF_LOG_WARN, GF_LOG_WARN, GF_LOG_WARN, GF_LOG_WARN, GF_LOG_WARN,
};
static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;
static gf_log_fn cb_fn;
static void *cb_user;
static bool env_stderr;			/* GPUFEED_LOG was set: stderr without a callback */
static _Thread_local bool in_callback;	/* a callback that logs is not called again */
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

const char *gf_log_level_name(enum gf_log_level level)
{
	return (unsigned)level < sizeof(level_names) / sizeof(level_names[0]) ? level_names[level] : "?";
}

const char *gf_log_subsys_name(enum gf_log_subsys subsys)
{
	return subsys >= 0 && subsys < GF_LOG_NSUBSYS ? subsys_names[subsys] : "?";
}

/* "warn" also spelled as the level's name, "warning". */
static int level_from(const char *s, size_t n)
{
	static const char *const words[] = { "none", "error", "warn", "info", "debug" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && !strncmp(s, words[i], n))
			return (int)i;
	if (n == 7 && !strncmp(s, "warning", 7))
		return GF_LOG_WARN;
	return -1;
}

static int subsys_from(const char *s, size_t n)
{
	if (n == 3 && !strncmp(s, "all", 3))
		return GF_LOG_ALL;
	for (int i = 0; i < GF_LOG_NSUBSYS; i++)
		if (strlen(subsys_names[i]) == n && !strncmp(s, subsys_names[i], n))
			return i;
	return -2;
}

static void set_level(int subsys, int level)
{
	for (int i = 0; i < GF_LOG_NSUBSYS; i++)
		if (subsys == GF_LOG_ALL || subsys == i)
			atomic_store_explicit(&levels[i], level, memory_order_relaxed);
}

/* Parses all of spec into want[] first: all or nothing. */
static int parse(const char *spec, const char *what)
{
	int want[GF_LOG_NSUBSYS];
	const char *p = spec;

	for (int i = 0; i < GF_LOG_NSUBSYS; i++)
		want[i] = atomic_load_explicit(&levels[i], memory_order_relaxed);
	while (*p) {
		size_t n = strcspn(p, ",");
		const char *colon = memchr(p, ':', n);
		int subsys = GF_LOG_ALL, level;

		if (colon) {
			subsys = subsys_from(p, (size_t)(colon - p));
			level = level_from(colon + 1, n - (size_t)(colon + 1 - p));
		} else {
			level = level_from(p, n);
		}
		if (subsys == -2 || level < 0)
			return gf_error(-EINVAL, "%s: cannot parse '%.*s' (want LEVEL or SUBSYS:LEVEL, LEVEL one of "
					"none, error, warn, info, debug; SUBSYS one of core, topo, io, bench, record, "
					"vendor, all)", what, (int)n, p);
		for (int i = 0; i < GF_LOG_NSUBSYS; i++)
			if (subsys == GF_LOG_ALL || subsys == i)
				want[i] = level;
		p += n;
		if (*p == ',')
			p++;
	}
	for (int i = 0; i < GF_LOG_NSUBSYS; i++)
		set_level(i, want[i]);
	return 0;
}

/* GPUFEED_LOG, read through the environment registry.  A bad value is
 * said on stderr: the user who set it is asking for output there. */
static void load_env(void)
{
	const char *spec = gf_env_str(GF_ENV_LOG);

	if (!spec || !*spec)
		return;
	env_stderr = true;
	if (parse(spec, "GPUFEED_LOG"))
		fprintf(stderr, "gpufeed: %s\n", gf_last_error());
}

static void init(void)
{
	pthread_once(&env_once, load_env);
}

void gf_log_set_callback(gf_log_fn fn, void *user)
{
	init();
	pthread_mutex_lock(&cb_lock);
	cb_fn = fn;
	cb_user = user;
	pthread_mutex_unlock(&cb_lock);
}

void gf_log_set_level(enum gf_log_subsys subsys, enum gf_log_level level)
{
	init();
	if (level < GF_LOG_NONE || level > GF_LOG_DEBUG || subsys < GF_LOG_ALL || subsys >= GF_LOG_NSUBSYS)
		return;
	set_level(subsys, level);
}

enum gf_log_level gf_log_level_of(enum gf_log_subsys subsys)
{
	init();
	if (subsys < 0 || subsys >= GF_LOG_NSUBSYS)
		return GF_LOG_NONE;
	return (enum gf_log_level)atomic_load_explicit(&levels[subsys], memory_order_relaxed);
}

int gf_log_parse(const char *spec)
{
	init();
	if (!spec)
		return GF_NULL_ARG("spec");
	return parse(spec, "log filter");
}

bool gf_log_enabled(enum gf_log_subsys subsys, enum gf_log_level level)
{
	init();
	return subsys >= 0 && subsys < GF_LOG_NSUBSYS && level > GF_LOG_NONE &&
	       (int)level <= atomic_load_explicit(&levels[subsys], memory_order_relaxed);
}

void gf_log_stderr(enum gf_log_level level, enum gf_log_subsys subsys, const char *msg, void *user)
{
	(void)user;
	if (!msg)
		return;
	fprintf(stderr, "gpufeed: %s: %s: %s\n", gf_log_subsys_name(subsys), gf_log_level_name(level), msg);
}

void gf_log(enum gf_log_subsys subsys, enum gf_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (in_callback || !gf_log_enabled(subsys, level))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&cb_lock);
	in_callback = true;
	if (cb_fn)
		cb_fn(level, subsys, msg, cb_user);
	else if (env_stderr)
		gf_log_stderr(level, subsys, msg, NULL);
	in_callback = false;
	pthread_mutex_unlock(&cb_lock);
}
