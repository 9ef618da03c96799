/* The step channel: gf_step and the loader's hook write it, diagnose's
 * reader takes it; a truncated, foreign or hostile file is refused with a
 * message naming it. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <gpufeed/error.h>
#include <gpufeed/step.h>
#include "core/stepchan.h"
#include "helpers.h"

static char *dir;
static char path[4096];

static int setup(void **state)
{
	(void)state;
	dir = t_mkdtemp();
	assert_int_equal(gf_stepchan_path(dir, getpid(), path, sizeof(path)), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("GPUFEED_DIAGNOSE");
	gf_stepchan_reset();
	t_rmtree(dir);
	free(dir);
	return 0;
}

static void start(void)
{
	unlink(path);
	setenv("GPUFEED_DIAGNOSE", dir, 1);
	gf_stepchan_reset();
}

static void off_without_the_variable(void **state)
{
	(void)state;
	unsetenv("GPUFEED_DIAGNOSE");
	gf_stepchan_reset();
	assert_int_equal(gf_step(), 0);
	assert_int_equal(gf_step_input_wait(5, 6), 0);
	assert_false(gf_step_enabled());
	assert_int_equal(access(path, F_OK), -1);
}

static void steps_and_input_waits_round_trip(void **state)
{
	struct gf_stepchan_counters c;
	struct stat st;

	(void)state;
	start();
	assert_int_equal(gf_step(), 0);
	usleep(2000);
	assert_int_equal(gf_step(), 0);
	usleep(1000);
	assert_int_equal(gf_step(), 0);
	gf_stepchan_input(1500, 4096);
	assert_int_equal(gf_step_input_wait(500, 1024), 0);
	assert_true(gf_step_enabled());

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(gf_stepchan_read(path, &c), 0);
	assert_int_equal(c.pid, getpid());
	assert_true(c.tid > 0);
	assert_int_equal(c.steps, 3);
	/* two intervals, the first at least 2 ms, the second at least 1 ms */
	assert_true(c.step_sum_ns >= 3000000);
	assert_true(c.step_max_ns >= 2000000);
	assert_true(c.step_max_ns <= c.step_sum_ns);
	assert_true(c.last_step_ns >= c.created_ns);
	assert_int_equal(c.input_waits, 2);
	assert_int_equal(c.input_wait_ns, 2000);
	assert_int_equal(c.input_bytes, 5120);
}

/* A forked worker's markers go to its own file, not its parent's. */
static void a_forked_child_has_its_own_channel(void **state)
{
	struct gf_stepchan_counters c;
	char child_path[4096];
	pid_t pid;
	int status;

	(void)state;
	start();
	assert_int_equal(gf_step(), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(gf_step() || gf_step() ? 1 : 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(gf_stepchan_read(path, &c), 0);
	assert_int_equal(c.steps, 1);
	assert_int_equal(gf_stepchan_path(dir, pid, child_path, sizeof(child_path)), 0);
	assert_int_equal(gf_stepchan_read(child_path, &c), 0);
	assert_int_equal(c.pid, pid);
	assert_int_equal(c.steps, 2);
}

/* A file left by an earlier process with this pid is replaced: a link there
 * is not followed. */
static void a_stale_link_is_replaced_not_followed(void **state)
{
	char victim[4200], *text;
	struct gf_stepchan_counters c;

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	t_write(dir, "victim", "keep me\n");
	unlink(path);
	assert_int_equal(symlink(victim, path), 0);
	setenv("GPUFEED_DIAGNOSE", dir, 1);
	gf_stepchan_reset();
	assert_int_equal(gf_step(), 0);
	text = t_read(victim);
	assert_string_equal(text, "keep me\n");
	free(text);
	assert_int_equal(gf_stepchan_read(path, &c), 0);
	assert_int_equal(c.steps, 1);
}

static void an_unwritable_directory_is_named(void **state)
{
	(void)state;
	setenv("GPUFEED_DIAGNOSE", "/proc/no/such/dir", 1);
	gf_stepchan_reset();
	assert_int_equal(gf_step(), -ENOENT);
	assert_non_null(strstr(gf_last_error(), "/proc/no/such/dir/step-"));
	assert_non_null(strstr(gf_last_error(), "GPUFEED_DIAGNOSE"));
	/* later calls give the same answer without trying again */
	assert_int_equal(gf_step(), -ENOENT);
	assert_false(gf_step_enabled());
}

static void expect_refused(const char *rel, int err, const char *words)
{
	struct gf_stepchan_counters c;
	char p[4200];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	assert_int_equal(gf_stepchan_read(p, &c), err);
	if (!strstr(gf_last_error(), words) || !strstr(gf_last_error(), rel))
		fail_msg("%s: message '%s' lacks '%s'", rel, gf_last_error(), words);
}

static void hostile_files_are_refused(void **state)
{
	struct gf_stepchan_page good = { .version = GF_STEPCHAN_VERSION, .size = sizeof(good), .pid = 7 };
	struct gf_stepchan_page page;
	char fifo[4200];

	(void)state;
	memcpy(good.magic, GF_STEPCHAN_MAGIC, 8);
	t_write_bytes(dir, "good.gfs", &good, sizeof(good));
	{
		struct gf_stepchan_counters c;
		char p[4200];

		snprintf(p, sizeof(p), "%s/good.gfs", dir);
		assert_int_equal(gf_stepchan_read(p, &c), 0);
		assert_int_equal(c.pid, 7);
		assert_int_equal(c.steps, 0);
	}
	t_write_bytes(dir, "short.gfs", &good, 40);
	expect_refused("short.gfs", -EBADMSG, "truncated step channel: 40 bytes of 88");
	t_write_bytes(dir, "empty.gfs", "", 0);
	expect_refused("empty.gfs", -EBADMSG, "truncated");
	page = good;
	memcpy(page.magic, "GFSTEPCX", 8);
	t_write_bytes(dir, "magic.gfs", &page, sizeof(page));
	expect_refused("magic.gfs", -EBADMSG, "not a gpufeed step channel");
	page = good;
	page.version = 9;
	t_write_bytes(dir, "version.gfs", &page, sizeof(page));
	expect_refused("version.gfs", -EBADMSG, "version 9");
	page = good;
	page.size = 1u << 30;
	t_write_bytes(dir, "size.gfs", &page, sizeof(page));
	expect_refused("size.gfs", -EBADMSG, "header says 1073741824 bytes");
	page = good;
	page.pid = -1;
	t_write_bytes(dir, "pid.gfs", &page, sizeof(page));
	expect_refused("pid.gfs", -EBADMSG, "pid -1");
	/* a FIFO would block a reader that opened it without O_NONBLOCK */
	snprintf(fifo, sizeof(fifo), "%s/fifo.gfs", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	expect_refused("fifo.gfs", -EINVAL, "not a regular file");
	t_symlink(dir, "link.gfs", "good.gfs");
	expect_refused("link.gfs", -ELOOP, "link.gfs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(off_without_the_variable),
		cmocka_unit_test(steps_and_input_waits_round_trip),
		cmocka_unit_test(a_forked_child_has_its_own_channel),
		cmocka_unit_test(a_stale_link_is_replaced_not_followed),
		cmocka_unit_test(an_unwritable_directory_is_named),
		cmocka_unit_test(hostile_files_are_refused),
	};

	return cmocka_run_group_tests_name("stepchan", tests, setup, teardown);
}
