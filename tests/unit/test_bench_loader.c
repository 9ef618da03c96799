/* `bench loader` through the bench frame (gpufeed/bench.h): its usage
 * errors, a dataset that is not there (the run's error, naming it), and on
 * a small fixed-size dataset made with gf_pack the JSON's shape and the
 * consistency of its figures: every sample's bytes are its samples times
 * the record size, an epoch is the loader's count of samples, the raw
 * samples are there and the figures are computed from them.  Checks
 * behaviour, not speed. */
#include "helpers.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <gpufeed/bench.h>
#include <gpufeed/dataset.h>
#include <gpufeed/error.h>
#include <gpufeed/topo.h>

#define RECORD 4096u
#define RECORDS 300u

static char *dir;
static char ds[4096];
static struct gf_topo *model;

static int setup(void **state)
{
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	char flat[4096];
	const char *in[] = { flat };
	unsigned char *data;

	(void)state;
	dir = t_mkdtemp();
	data = malloc((size_t)RECORD * RECORDS);
	if (!data)
		return -1;
	for (size_t i = 0; i < (size_t)RECORD * RECORDS; i++)
		data[i] = (unsigned char)(i * 2654435761u >> 13);
	t_write_bytes(dir, "flat.bin", data, (size_t)RECORD * RECORDS);
	free(data);
	snprintf(flat, sizeof(flat), "%s/flat.bin", dir);
	snprintf(ds, sizeof(ds), "%s/ds", dir);
	po.input = GF_PACK_RECORDS;
	po.record_size = RECORD;
	po.shard_bytes = 512u << 10;	/* several shards */
	if (gf_pack(in, 1, ds, &po, NULL))
		return -1;
	model = t_live_model();
	return model ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	gf_topo_free(model);
	t_rmtree(dir);
	free(dir);
	return 0;
}

static struct gf_bench *new_loader(const char *dataset)
{
	struct gf_bench *b = NULL;

	assert_int_equal(gf_bench_new("loader", &b), 0);
	if (dataset)
		assert_int_equal(gf_bench_set_operand(b, dataset), 0);
	return b;
}

static json_t *run_json(struct gf_bench *b)
{
	struct gf_bench_run_opts ro = GF_BENCH_RUN_OPTS_INIT;
	json_error_t jerr;
	char *text = NULL;
	size_t len = 0;
	json_t *j;
	FILE *f;

	ro.model = model;
	assert_int_equal(gf_bench_check(b), 0);
	if (gf_bench_run(b, &ro))
		fail_msg("bench loader: %s", gf_last_error());
	f = open_memstream(&text, &len);
	assert_int_equal(gf_bench_write_json(b, f), 0);
	fclose(f);
	j = json_loads(text, 0, &jerr);
	if (!j)
		fail_msg("the JSON does not parse: %s", jerr.text);
	free(text);
	return j;
}

static json_int_t jint(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		fail_msg("'%s' is not an integer", key);
	return json_integer_value(v);
}

static double jreal(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		fail_msg("'%s' is not a number", key);
	return json_number_value(v);
}

static void test_usage(void **state)
{
	struct gf_bench *b = new_loader(NULL);

	(void)state;
	assert_int_equal(gf_bench_check(b), -EINVAL);	/* no DATASET */
	assert_non_null(strstr(gf_last_error(), "DATASET"));
	assert_int_equal(gf_bench_set_operand(b, ds), 0);
	assert_int_equal(gf_bench_check(b), 0);
	assert_int_equal(gf_bench_set(b, "gpu", "first"), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--gpu: 'first'"));
	assert_int_equal(gf_bench_set(b, "gpu", "host"), 0);
	assert_int_equal(gf_bench_set(b, "gpu", "1"), 0);
	assert_int_equal(gf_bench_set(b, "samples", "0"), -EINVAL);
	assert_int_equal(gf_bench_set(b, "seed", "-1"), -EINVAL);
	assert_int_equal(gf_bench_set(b, "slots", "1"), -ERANGE);
	assert_int_equal(gf_bench_set(b, "batch-size", "0"), -ERANGE);
	assert_int_equal(gf_bench_set(b, "cold", NULL), 0);
	assert_int_equal(gf_bench_set(b, "warm", NULL), 0);
	assert_int_equal(gf_bench_check(b), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--cold and --warm"));
	gf_bench_free(b);

	b = new_loader(ds);
	assert_int_equal(gf_bench_set(b, "samples", "10"), 0);
	assert_int_equal(gf_bench_set(b, "epochs", "2"), 0);
	assert_int_equal(gf_bench_check(b), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--samples and --epochs"));
	gf_bench_free(b);
}

/* A dataset that is not there: the run fails with the loader's error,
 * which names it; nothing to print. */
static void test_missing_dataset(void **state)
{
	struct gf_bench_run_opts ro = GF_BENCH_RUN_OPTS_INIT;
	char missing[4200];
	struct gf_bench *b;

	(void)state;
	snprintf(missing, sizeof(missing), "%s/no-such-dataset", dir);
	b = new_loader(missing);
	ro.model = model;
	assert_int_equal(gf_bench_check(b), 0);
	assert_int_equal(gf_bench_run(b, &ro), -ENOENT);
	assert_non_null(strstr(gf_last_error(), "no-such-dataset"));
	assert_false(gf_bench_has_results(b));
	gf_bench_free(b);
}

/* The figures of each sample from its raw counts, and the counts from
 * the dataset. */
static void check_runs(json_t *j, unsigned repeats, json_int_t want_samples)
{
	json_t *runs = json_object_get(j, "runs"), *figs = json_object_get(j, "figures");
	const char *keys[] = { "samples_per_s", "gb_per_s", "cpu_s_per_gb", "wait_percent" };

	assert_int_equal(json_array_size(runs), repeats);
	for (unsigned k = 0; k < 4; k++) {
		json_t *p = json_object_get(figs, keys[k]);

		assert_string_equal(json_string_value(json_object_get(p, "status")), "ok");
		assert_int_equal(jint(p, "n"), repeats);
		assert_int_equal(json_array_size(json_object_get(p, "samples")), repeats);
		assert_true(jreal(p, "min") <= jreal(p, "median") && jreal(p, "median") <= jreal(p, "max"));
	}
	for (unsigned i = 0; i < repeats; i++) {
		json_t *r = json_array_get(runs, i);
		double s = jreal(r, "seconds"), gb = (double)jint(r, "bytes") / 1e9;
		double sps = json_number_value(json_array_get(json_object_get(json_object_get(figs, "samples_per_s"),
									       "samples"), i));
		double gbs = json_number_value(json_array_get(json_object_get(json_object_get(figs, "gb_per_s"),
									       "samples"), i));

		assert_int_equal(jint(r, "samples"), want_samples);
		assert_int_equal(jint(r, "bytes"), jint(r, "samples") * (json_int_t)RECORD);
		assert_true(jint(r, "batches") > 0);
		assert_true(s > 0);
		assert_true(jreal(r, "wait_s") >= 0 && jreal(r, "wait_s") <= s * 1.001);
		assert_true(jreal(r, "cpu_user_s") >= 0 && jreal(r, "cpu_sys_s") >= 0);
		assert_true(jint(r, "pss_bytes") > 0 && jint(r, "rss_bytes") > 0);
		/* The JSON keeps six significant digits and three decimals:
		 * compare within that. */
		assert_true(fabs(sps - (double)jint(r, "samples") / s) <= 0.0005 + 2e-5 * sps);
		assert_true(fabs(gbs - gb / s) <= 0.0005 + 2e-5 * gbs);
	}
}

static void test_warm_epochs(void **state)
{
	struct gf_bench *b = new_loader(ds);
	json_t *j, *d, *c, *m;

	(void)state;
	assert_int_equal(gf_bench_set(b, "warm", NULL), 0);
	assert_int_equal(gf_bench_set(b, "batch-size", "64"), 0);
	assert_int_equal(gf_bench_set(b, "repeats", "2"), 0);
	assert_int_equal(gf_bench_set(b, "epochs", "2"), 0);
	assert_int_equal(gf_bench_set(b, "block", "64K"), 0);
	assert_int_equal(gf_bench_set(b, "seed", "7"), 0);
	j = run_json(b);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), "gpufeed-bench-loader/1");
	d = json_object_get(j, "dataset");
	assert_int_equal(jint(d, "samples"), RECORDS);
	assert_int_equal(jint(d, "record_size"), RECORD);
	assert_true(jint(d, "shards") > 1);
	assert_int_equal(jint(d, "samples_per_epoch"), RECORDS);	/* one rank: every sample */
	c = json_object_get(j, "config");
	assert_string_equal(json_string_value(json_object_get(c, "cache")), "warm");
	assert_string_equal(json_string_value(json_object_get(c, "reads")), "buffered");
	assert_string_equal(json_string_value(json_object_get(c, "gpu")), "host");
	assert_int_equal(jint(c, "seed"), 7);
	assert_int_equal(jint(c, "epochs"), 2);
	check_runs(j, 2, 2 * RECORDS);
	m = json_object_get(j, "memory");
	assert_true(jint(m, "peak_rss_bytes") >= jint(m, "rss_before_open_bytes"));
	assert_true(jint(m, "peak_pss_bytes") > 0);
	assert_int_equal(jint(j, "findings"), 0);
	assert_int_equal(json_array_size(json_object_get(j, "flags")), 0);
	assert_int_equal(gf_bench_outcome(b), GF_BENCH_CLEAN);
	json_decref(j);
	gf_bench_free(b);
}

/* Cold, with a sample limit: the last batch takes it past the limit, to
 * the next multiple of the batch size. */
static void test_cold_sample_limit(void **state)
{
	struct gf_bench *b = new_loader(ds);
	json_t *j, *c;

	(void)state;
	assert_int_equal(gf_bench_set(b, "batch-size", "64"), 0);
	assert_int_equal(gf_bench_set(b, "repeats", "1"), 0);
	assert_int_equal(gf_bench_set(b, "samples", "100"), 0);
	j = run_json(b);
	c = json_object_get(j, "config");
	assert_string_equal(json_string_value(json_object_get(c, "cache")), "cold");
	assert_string_equal(json_string_value(json_object_get(c, "reads")), "O_DIRECT");
	assert_int_equal(jint(c, "sample_limit"), 100);
	check_runs(j, 1, 128);
	assert_int_equal(jint(j, "findings"), 0);
	json_decref(j);
	gf_bench_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_missing_dataset),
		cmocka_unit_test(test_warm_epochs),
		cmocka_unit_test(test_cold_sample_limit),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
