/* The one dlopen pattern (src/core/dl.c), on the stand-in
 * tests/fakes/fake_dltest.c: required, optional and renamed symbols, an
 * absent library, a file that is not a library, a missing required symbol,
 * the override variables, a library's own search after the soname, and
 * one load shared by racing threads. */
#include "helpers.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/error.h>
#include "core/dl.h"

struct dltest_ops {
	int (*add)(int, int);
	int (*renamed)(void);
	int (*absent)(void);
};

static char fake_path[4096];

static int find_fake(void **state)
{
	const char *build = getenv("BUILD");

	(void)state;
	snprintf(fake_path, sizeof(fake_path), "%s/fakes/libgpufeed-dltest.so.1", build ? build : "build");
	return 0;
}

static const struct gf_dl_sym good_syms[] = {
	GF_DL_REQUIRED(struct dltest_ops, add, "dltest_add_v2"),
	GF_DL_RENAMED(struct dltest_ops, renamed, "dltest_new_name", "dltest_old_name"),
	GF_DL_OPTIONAL(struct dltest_ops, absent, "dltest_missing"),
};

/* Required symbols listed after ones that resolve: the table must still
 * come back empty. */
static const struct gf_dl_sym strict_syms[] = {
	GF_DL_REQUIRED(struct dltest_ops, add, "dltest_add_v2"),
	GF_DL_REQUIRED(struct dltest_ops, absent, "dltest_missing"),
};

static void resolves_required_optional_and_renamed(void **state)
{
	struct dltest_ops ops = { 0 };
	struct gf_dl_lib lib = GF_DL_LIB_INIT("DLTEST", fake_path, GF_DL_NO_OVERRIDE, good_syms, &ops, NULL);

	(void)state;
	assert_int_equal(gf_dl_load(&lib), 0);
	assert_non_null(ops.add);
	assert_int_equal(ops.add(2, 3), 5);
	assert_non_null(ops.renamed);	/* found under its old name */
	assert_int_equal(ops.renamed(), 42);
	assert_null(ops.absent);	/* optional: NULL means "not supported" */
	assert_string_equal(gf_dl_why(&lib), "");
	assert_string_equal(gf_dl_path(&lib), fake_path);
	gf_dl_unload(&lib);
	assert_null(ops.add);
	assert_string_equal(gf_dl_path(&lib), "");
}

static void absent_library_is_named(void **state)
{
	struct dltest_ops ops = { 0 };
	struct gf_dl_lib lib = GF_DL_LIB_INIT("DLTEST", "/nonexistent/libgpufeed-dltest.so.1", GF_DL_NO_OVERRIDE,
					      good_syms, &ops, NULL);

	(void)state;
	assert_int_equal(gf_dl_load(&lib), -ENOSYS);
	assert_string_equal(gf_last_error(), "DLTEST not available: /nonexistent/libgpufeed-dltest.so.1 not found");
	assert_string_equal(gf_dl_why(&lib), "/nonexistent/libgpufeed-dltest.so.1 not found");
	assert_null(ops.add);
	gf_dl_unload(&lib);
}

/* Not "not found": dlopen's own words say what is wrong with the file. */
static void file_that_is_not_a_library(void **state)
{
	struct dltest_ops ops = { 0 };
	char path[4096];
	struct gf_dl_lib lib = GF_DL_LIB_INIT("DLTEST", path, GF_DL_NO_OVERRIDE, good_syms, &ops, NULL);

	(void)state;
	snprintf(path, sizeof(path), "%s", t_src_path("docs/environment.md"));
	assert_int_equal(gf_dl_load(&lib), -ENOSYS);
	assert_non_null(strstr(gf_last_error(), "DLTEST not available: "));
	assert_non_null(strstr(gf_last_error(), "environment.md"));
	assert_null(strstr(gf_last_error(), "not found"));
	gf_dl_unload(&lib);
}

static void missing_required_symbol_is_named(void **state)
{
	struct dltest_ops ops = { 0 };
	struct gf_dl_lib lib = GF_DL_LIB_INIT("DLTEST", fake_path, GF_DL_NO_OVERRIDE, strict_syms, &ops,
					      "library too old?");
	char want[4200];

	(void)state;
	assert_int_equal(gf_dl_load(&lib), -ENOSYS);
	snprintf(want, sizeof(want), "DLTEST not available: %s lacks dltest_missing (library too old?)", fake_path);
	assert_string_equal(gf_last_error(), want);
	/* All or nothing: dltest_add_v2 resolved before the failure, yet the
	 * table stays empty. */
	assert_null(ops.add);
	assert_null(ops.absent);
	gf_dl_unload(&lib);
}

/* The registered override wins over the soname, and is read once. */
static void override_variable_read_at_first_load(void **state)
{
	struct dltest_ops ops = { 0 };
	struct gf_dl_lib lib = GF_DL_LIB_INIT("DLTEST", "libgpufeed-no-such.so.1", GF_ENV_NVML_LIBRARY,
					      good_syms, &ops, NULL);

	(void)state;
	setenv("GPUFEED_NVML_LIBRARY", fake_path, 1);
	assert_int_equal(gf_dl_load(&lib), 0);
	assert_int_equal(ops.add(1, 1), 2);
	/* Idempotent: a later change of the variable changes nothing. */
	setenv("GPUFEED_NVML_LIBRARY", "/nonexistent.so", 1);
	assert_int_equal(gf_dl_load(&lib), 0);
	assert_string_equal(gf_dl_path(&lib), fake_path);
	/* Until the result is forgotten: a wrong override is then named with
	 * its variable ... */
	gf_dl_unload(&lib);
	assert_int_equal(gf_dl_load(&lib), -ENOSYS);
	assert_string_equal(gf_last_error(), "DLTEST not available: GPUFEED_NVML_LIBRARY=/nonexistent.so not found");
	/* ... and without one the soname applies. */
	unsetenv("GPUFEED_NVML_LIBRARY");
	gf_dl_unload(&lib);
	assert_int_equal(gf_dl_load(&lib), -ENOSYS);
	assert_string_equal(gf_last_error(), "DLTEST not available: libgpufeed-no-such.so.1 not found");
	gf_dl_unload(&lib);
}

/* A library's own search after the soname (NCCL's PyTorch copy): here the
 * stand-in, or nothing with the places it looked. */
static int search_finds;
static int count_searches;

static int search_fake(char *path, size_t size, char *looked, size_t lsize)
{
	count_searches++;
	if (search_finds) {
		snprintf(path, size, "%s", fake_path);
		return 0;
	}
	snprintf(looked, lsize, "nothing under /x, /y");
	return -ENOENT;
}

/* Two override variables, the first winning, then the soname, then the
 * search, which is not asked when a variable is set. */
static void second_override_and_search(void **state)
{
	struct dltest_ops ops = { 0 };
	struct gf_dl_lib lib = GF_DL_LIB_INIT_SEARCH("DLTEST", "libgpufeed-no-such.so.1", GF_ENV_NVML_LIBRARY,
						     GF_ENV_CUDA_LIBRARY, search_fake, good_syms, &ops, NULL);

	(void)state;
	unsetenv("GPUFEED_NVML_LIBRARY");
	setenv("GPUFEED_CUDA_LIBRARY", "/nonexistent-b.so", 1);
	assert_int_equal(gf_dl_load(&lib), -ENOSYS);
	assert_string_equal(gf_dl_why(&lib), "GPUFEED_CUDA_LIBRARY=/nonexistent-b.so not found");
	gf_dl_unload(&lib);
	setenv("GPUFEED_NVML_LIBRARY", fake_path, 1);
	assert_int_equal(gf_dl_load(&lib), 0);
	assert_string_equal(gf_dl_path(&lib), fake_path);
	assert_int_equal(count_searches, 0);
	gf_dl_unload(&lib);
	unsetenv("GPUFEED_NVML_LIBRARY");
	unsetenv("GPUFEED_CUDA_LIBRARY");
	assert_int_equal(gf_dl_load(&lib), -ENOSYS);
	assert_string_equal(gf_last_error(), "DLTEST not available: libgpufeed-no-such.so.1 not found "
			    "(GPUFEED_NVML_LIBRARY, GPUFEED_CUDA_LIBRARY unset; not on the linker's path; "
			    "nothing under /x, /y)");
	assert_int_equal(count_searches, 1);
	gf_dl_unload(&lib);
	search_finds = 1;
	assert_int_equal(gf_dl_load(&lib), 0);
	assert_int_equal(ops.add(2, 3), 5);
	assert_string_equal(gf_dl_path(&lib), fake_path);
	assert_string_equal(gf_dl_why(&lib), "");
	gf_dl_unload(&lib);
	/* A soname that opens is not searched past. */
	count_searches = 0;
	lib.soname = fake_path;
	assert_int_equal(gf_dl_load(&lib), 0);
	assert_int_equal(count_searches, 0);
	gf_dl_unload(&lib);
}

#define NTHREADS 8

struct racer {
	struct gf_dl_lib *lib;
	pthread_barrier_t *start;
	int rc;
	void *add;
	char msg[512];
};

static void *race(void *arg)
{
	struct racer *r = arg;
	struct dltest_ops *ops = r->lib->table;

	pthread_barrier_wait(r->start);
	r->rc = gf_dl_load(r->lib);
	memcpy(&r->add, &ops->add, sizeof(r->add));
	snprintf(r->msg, sizeof(r->msg), "%s", gf_last_error());
	return NULL;
}

static void run_racers(struct gf_dl_lib *lib, struct racer *r)
{
	pthread_t th[NTHREADS];
	pthread_barrier_t start;

	pthread_barrier_init(&start, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++) {
		r[i] = (struct racer){ .lib = lib, .start = &start };
		assert_int_equal(pthread_create(&th[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
}

/* Threads racing to the first load all see one complete table; a failure
 * reaches every thread's own gf_last_error(). */
static void threads_share_one_load(void **state)
{
	struct dltest_ops ops = { 0 }, bad_ops = { 0 };
	struct gf_dl_lib lib = GF_DL_LIB_INIT("DLTEST", fake_path, GF_DL_NO_OVERRIDE, good_syms, &ops, NULL);
	struct gf_dl_lib bad = GF_DL_LIB_INIT("DLTEST", fake_path, GF_DL_NO_OVERRIDE, strict_syms, &bad_ops, NULL);
	struct racer r[NTHREADS];

	(void)state;
	run_racers(&lib, r);
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(r[i].rc, 0);
		assert_non_null(r[i].add);
		assert_ptr_equal(r[i].add, r[0].add);
	}
	gf_dl_unload(&lib);

	run_racers(&bad, r);
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(r[i].rc, -ENOSYS);
		assert_null(r[i].add);
		assert_non_null(strstr(r[i].msg, "lacks dltest_missing"));
	}
	gf_dl_unload(&bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(resolves_required_optional_and_renamed),
		cmocka_unit_test(absent_library_is_named),
		cmocka_unit_test(file_that_is_not_a_library),
		cmocka_unit_test(missing_required_symbol_is_named),
		cmocka_unit_test(override_variable_read_at_first_load),
		cmocka_unit_test(second_override_and_search),
		cmocka_unit_test(threads_share_one_load),
	};

	return cmocka_run_group_tests_name("dl", tests, find_fake, NULL);
}
