/* The diagnostics channel (gpufeed/log.h): the filter (levels per
 * subsystem, gf_log_parse, GPUFEED_LOG), the callback, silence by
 * default, and a callback that logs itself. */
#include "helpers.h"
#include "t_child.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include <gpufeed/log.h>
#include "core/log.h"

static char got[4096];
static unsigned calls;

static void capture(enum gf_log_level level, enum gf_log_subsys subsys, const char *msg, void *user)
{
	size_t n = strlen(got);

	assert_ptr_equal(user, &calls);
	calls++;
	snprintf(got + n, sizeof(got) - n, "%s/%s/%s;", gf_log_subsys_name(subsys), gf_log_level_name(level), msg);
}

static int reset(void **state)
{
	(void)state;
	got[0] = '\0';
	calls = 0;
	gf_log_set_level(GF_LOG_ALL, GF_LOG_WARN);
	gf_log_set_callback(capture, &calls);
	return 0;
}

static void filter(void **state)
{
	(void)state;
	/* The default: errors and warnings. */
	for (int s = 0; s < GF_LOG_NSUBSYS; s++)
		assert_int_equal(gf_log_level_of((enum gf_log_subsys)s), GF_LOG_WARN);
	GF_WARN(GF_LOG_IO, "w %d", 1);
	GF_INFO(GF_LOG_IO, "i %d", 2);
	GF_LOGERR(GF_LOG_TOPO, "e");
	GF_DEBUG(GF_LOG_TOPO, "d");
	assert_string_equal(got, "io/warning/w 1;topo/error/e;");

	/* Per subsystem, in order, "warning" spelled both ways. */
	assert_int_equal(gf_log_parse("none,io:debug,vendor:warning"), 0);
	assert_int_equal(gf_log_level_of(GF_LOG_IO), GF_LOG_DEBUG);
	assert_int_equal(gf_log_level_of(GF_LOG_VENDOR), GF_LOG_WARN);
	assert_int_equal(gf_log_level_of(GF_LOG_TOPO), GF_LOG_NONE);
	got[0] = '\0';
	GF_DEBUG(GF_LOG_IO, "d");
	GF_LOGERR(GF_LOG_TOPO, "e");
	GF_INFO(GF_LOG_VENDOR, "i");
	GF_WARN(GF_LOG_VENDOR, "w");
	assert_string_equal(got, "io/debug/d;vendor/warning/w;");
	assert_int_equal(gf_log_parse("all:info"), 0);
	for (int s = 0; s < GF_LOG_NSUBSYS; s++)
		assert_int_equal(gf_log_level_of((enum gf_log_subsys)s), GF_LOG_INFO);
	assert_int_equal(gf_log_parse(""), 0);	/* nothing to change */
	assert_int_equal(gf_log_level_of(GF_LOG_CORE), GF_LOG_INFO);

	/* Bad: all or nothing, a message naming the part. */
	{
		const char *bad[] = { "io:loud", "disk:info", "io:debug,x", "io:", ":info", "io:debug,,info", "io:debug:1" };

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			print_message("'%s'\n", bad[i]);
			assert_int_equal(gf_log_parse(bad[i]), -EINVAL);
			assert_non_null(strstr(gf_last_error(), "cannot parse"));
			assert_int_equal(gf_log_level_of(GF_LOG_IO), GF_LOG_INFO);
		}
		assert_int_equal(gf_log_parse(NULL), -EINVAL);
	}
	/* Out of range: ignored. */
	gf_log_set_level((enum gf_log_subsys)99, GF_LOG_DEBUG);
	gf_log_set_level(GF_LOG_IO, (enum gf_log_level)9);
	assert_int_equal(gf_log_level_of(GF_LOG_IO), GF_LOG_INFO);
	assert_int_equal(gf_log_level_of((enum gf_log_subsys)99), GF_LOG_NONE);
	assert_string_equal(gf_log_level_name((enum gf_log_level)9), "?");
	assert_string_equal(gf_log_subsys_name((enum gf_log_subsys)-1), "?");
}

static void logs_itself(enum gf_log_level level, enum gf_log_subsys subsys, const char *msg, void *user)
{
	capture(level, subsys, msg, user);
	GF_WARN(GF_LOG_CORE, "from the callback");	/* dropped, no deadlock */
}

static void reentrant(void **state)
{
	(void)state;
	gf_log_set_callback(logs_itself, &calls);
	GF_WARN(GF_LOG_BENCH, "once");
	GF_WARN(GF_LOG_RECORD, "twice");
	assert_string_equal(got, "bench/warning/once;record/warning/twice;");
	assert_int_equal(calls, 2);
}

struct env_child {
	const char *spec, *what;
};

static int exec_env_child(void *arg, int wfd)
{
	const struct env_child *e = arg;

	dup2(wfd, 2);
	if (e->spec)
		setenv("GPUFEED_LOG", e->spec, 1);
	else
		unsetenv("GPUFEED_LOG");
	execl("/proc/self/exe", "test_log", "env-child", e->what, (char *)NULL);
	return 127;
}

/* Runs this binary as "env-child" with GPUFEED_LOG=spec; returns its
 * stderr. */
static char *run_env_child(const char *spec, const char *what)
{
	static char out[2048];
	struct env_child e = { spec, what };
	int status = t_fork_collect(exec_env_child, &e, out, sizeof(out));

	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return out;
}

/* The library never prints unless asked: no callback and no GPUFEED_LOG
 * is silence; GPUFEED_LOG alone sends what it selects to stderr; a bad
 * GPUFEED_LOG says so there; a callback takes precedence over stderr. */
static void environment(void **state)
{
	(void)state;
	assert_string_equal(run_env_child(NULL, "plain"), "");
	assert_string_equal(run_env_child("io:debug", "plain"),
			    "gpufeed: io: debug: io detail\ngpufeed: topo: warning: topo warning\n");
	assert_string_equal(run_env_child("none", "plain"), "");
	assert_string_equal(run_env_child("io:debug", "callback"), "");
	assert_non_null(strstr(run_env_child("io:chatty", "plain"),
			       "gpufeed: GPUFEED_LOG: cannot parse 'io:chatty'"));
}

static int env_child(const char *what)
{
	if (!strcmp(what, "callback"))
		gf_log_set_callback(capture, &calls);
	GF_DEBUG(GF_LOG_IO, "io detail");
	GF_INFO(GF_LOG_TOPO, "topo info");
	GF_WARN(GF_LOG_TOPO, "topo warning");
	if (!strcmp(what, "callback") && strcmp(got, "io/debug/io detail;topo/warning/topo warning;"))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(filter, reset),
		cmocka_unit_test_setup(reentrant, reset),
		cmocka_unit_test(environment),
	};

	if (argc == 3 && !strcmp(argv[1], "env-child"))
		return env_child(argv[2]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
