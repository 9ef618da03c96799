/* The bench frame (gpufeed/bench.h): the targets as the library describes
 * them, options from their command-line form, the operand, one run with
 * the machine model given or discovered, and its refusals. */
#include "helpers.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/bench.h>
#include <gpufeed/error.h>
#include <gpufeed/topo.h>

static void test_targets(void **state)
{
	static const char *const names[] = { "io", "io-gpu", "mem", "h2d", "p2p", "loader", "coll", "overlap" };
	const struct gf_bench_target *t;
	unsigned i;

	(void)state;
	for (i = 0; (t = gf_bench_target_at(i)); i++) {
		assert_true(i < 8);
		assert_string_equal(t->name, names[i]);
		assert_non_null(t->summary);
		assert_non_null(t->description);
		assert_non_null(strstr(t->schema, "gpufeed-bench-"));
		assert_non_null(t->footer);
		assert_non_null(t->exits[0]);	/* every target can succeed */
		assert_ptr_equal(gf_bench_target_find(names[i]), t);
		assert_non_null(gf_bench_option_at(t, 0));
	}
	assert_int_equal(i, 8);
	assert_null(gf_bench_target_find("kv"));
	assert_non_null(strstr(gf_last_error(), "no target 'kv' (one of: io, io-gpu, mem, h2d, p2p, loader, coll, overlap)"));
	assert_null(gf_bench_target_find(NULL));
	assert_null(gf_bench_option_at(NULL, 0));
	/* Operands: bench io's PATH, bench io-gpu's FILE, bench loader's DATASET,
	 * none for the others. */
	assert_string_equal(gf_bench_target_find("io")->operand, "PATH");
	assert_string_equal(gf_bench_target_find("io-gpu")->operand, "FILE");
	assert_string_equal(gf_bench_target_find("loader")->operand, "DATASET");
	assert_null(gf_bench_target_find("h2d")->operand);
}

/* Each option is described for a caller that builds a command line: a
 * name, help, and a value name exactly when it takes a value. */
static void test_option_descriptions(void **state)
{
	const struct gf_bench_target *t;

	(void)state;
	for (unsigned i = 0; (t = gf_bench_target_at(i)); i++) {
		const struct gf_bench_option *o;
		unsigned n;

		for (n = 0; (o = gf_bench_option_at(t, n)); n++) {
			assert_non_null(o->name);
			assert_non_null(o->help);
			assert_true((o->kind == GF_BENCH_OPT_FLAG) == (o->argh == NULL));
			for (unsigned k = 0; k < n; k++)
				assert_string_not_equal(gf_bench_option_at(t, k)->name, o->name);
		}
		assert_true(n > 0);
	}
}

static void test_set_refusals(void **state)
{
	struct gf_bench *b = (void *)1;

	(void)state;
	assert_int_equal(gf_bench_new(NULL, &b), -EINVAL);
	assert_null(b);
	assert_int_equal(gf_bench_new("nope", &b), -ENOENT);
	assert_int_equal(gf_bench_new("mem", NULL), -EINVAL);
	assert_int_equal(gf_bench_new("mem", &b), 0);
	assert_string_equal(gf_bench_target_of(b)->name, "mem");
	assert_int_equal(gf_bench_set(b, "gpu", "0"), -ENOENT);
	assert_non_null(strstr(gf_last_error(), "bench mem: no option --gpu"));
	assert_int_equal(gf_bench_set(b, "quick", "yes"), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--quick takes no value"));
	assert_int_equal(gf_bench_set(b, "repeats", NULL), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--repeats needs a value (N)"));
	assert_int_equal(gf_bench_set(b, "nodes", ""), -EINVAL);
	assert_int_equal(gf_bench_set(b, "repeats", "0"), -ERANGE);
	assert_non_null(strstr(gf_last_error(), "--repeats: '0' is not a number from 1 to 1000"));
	assert_int_equal(gf_bench_set(b, "repeats", " 3"), -ERANGE);
	assert_int_equal(gf_bench_set(b, "size", "12 parsecs"), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--size: "));
	assert_int_equal(gf_bench_set(b, "size", "4K"), -ERANGE);
	assert_int_equal(gf_bench_set(b, "size", "64M"), 0);
	assert_int_equal(gf_bench_set(b, "repeats", "3"), 0);
	assert_int_equal(gf_bench_set(NULL, "quick", NULL), -EINVAL);
	assert_int_equal(gf_bench_set(b, NULL, NULL), -EINVAL);
	/* mem takes no operand. */
	assert_int_equal(gf_bench_set_operand(b, "/tmp"), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "bench mem takes no operand"));
	/* Nothing measured yet: nothing to print. */
	assert_false(gf_bench_has_results(b));
	assert_int_equal(gf_bench_print(b, stdout), -EINVAL);
	assert_int_equal(gf_bench_write_json(b, stdout), -EINVAL);
	assert_int_equal(gf_bench_outcome(b), GF_BENCH_FAILED);
	assert_string_equal(gf_bench_problem(b), "");
	gf_bench_free(b);
	gf_bench_free(NULL);
}

/* bench io: the operand is required, the plan's rules are the check's, a
 * custom option says what it wants. */
static void test_io_checks(void **state)
{
	struct gf_bench *b;

	(void)state;
	assert_int_equal(gf_bench_new("io", &b), 0);
	assert_int_equal(gf_bench_check(b), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "missing PATH"));
	assert_int_equal(gf_bench_set_operand(b, ""), -EINVAL);
	assert_int_equal(gf_bench_set_operand(b, "/nonexistent-dir/f"), 0);
	assert_int_equal(gf_bench_check(b), 0);
	assert_int_equal(gf_bench_set(b, "mode", "sideways"), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--mode"));
	assert_int_equal(gf_bench_set(b, "mode", "randread"), 0);
	assert_int_equal(gf_bench_set(b, "warm", NULL), 0);
	assert_int_equal(gf_bench_set(b, "direct", NULL), 0);
	assert_int_equal(gf_bench_check(b), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--warm applies to buffered reads"));
	assert_int_equal(gf_bench_set(b, "duration", "0"), -ERANGE);
	assert_int_equal(gf_bench_set(b, "numa-node", "seven"), -EINVAL);
	assert_int_equal(gf_bench_set(b, "numa-node", "none"), 0);
	gf_bench_free(b);
}

/* One run with the caller's model: results, their JSON, and no second run
 * or later option. */
static void test_run_with_a_model(void **state)
{
	struct gf_bench_run_opts ro = GF_BENCH_RUN_OPTS_INIT;
	struct gf_topo *t = t_live_model();
	struct gf_bench *b;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	ro.model = t;
	assert_int_equal(gf_bench_new("mem", &b), 0);
	assert_int_equal(gf_bench_set(b, "nodes", "0"), 0);
	assert_int_equal(gf_bench_set(b, "size", "4M"), 0);
	assert_int_equal(gf_bench_set(b, "repeats", "1"), 0);
	assert_int_equal(gf_bench_set(b, "threads", "1"), 0);
	assert_int_equal(gf_bench_set(b, "quick", NULL), 0);
	assert_int_equal(gf_bench_run(b, &ro), 0);
	assert_true(gf_bench_has_results(b));
	assert_int_equal(gf_bench_findings(b), 0);
	assert_int_equal(gf_bench_outcome(b), GF_BENCH_CLEAN);
	f = open_memstream(&text, &len);
	assert_int_equal(gf_bench_write_json(b, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "\"schema\": \"gpufeed-bench-mem/1\""));
	free(text);
	assert_int_equal(gf_bench_run(b, &ro), -EBUSY);
	assert_int_equal(gf_bench_set(b, "repeats", "2"), -EBUSY);
	gf_bench_free(b);	/* the caller's model stays the caller's */
	assert_true(t->numa.nnodes >= 1);
	gf_topo_free(t);
}

/* The model discovered from the caller's machine options: a recording
 * that is not there is the run's error, naming it; options not made with
 * the initializer are refused. */
static void test_run_machine_options(void **state)
{
	struct gf_bench_run_opts ro = GF_BENCH_RUN_OPTS_INIT;
	struct gf_topo_options to = GF_TOPO_OPTS_INIT;
	struct gf_bench *b;

	(void)state;
	assert_int_equal(gf_bench_new("mem", &b), 0);
	to.root = "/nonexistent/recording";
	ro.machine = &to;
	assert_true(gf_bench_run(b, &ro) < 0);
	assert_non_null(strstr(gf_last_error(), "bench mem: the machine model: "));
	assert_non_null(strstr(gf_last_error(), "/nonexistent/recording"));
	assert_false(gf_bench_has_results(b));
	gf_bench_free(b);
	assert_int_equal(gf_bench_new("mem", &b), 0);
	ro.struct_size = 0;
	assert_int_equal(gf_bench_run(b, &ro), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "GF_BENCH_RUN_OPTS_INIT"));
	assert_int_equal(gf_bench_run(NULL, NULL), -EINVAL);
	gf_bench_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_option_descriptions),
		cmocka_unit_test(test_set_refusals),
		cmocka_unit_test(test_io_checks),
		cmocka_unit_test(test_run_with_a_model),
		cmocka_unit_test(test_run_machine_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
