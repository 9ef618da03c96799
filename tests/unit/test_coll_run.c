/* bench coll's arithmetic against nccl-tests': the sizes a -b/-e/-f/-i
 * sweep walks, each collective's element counts (GetCollByteCount, the
 * per-rank block rounded down to 16 bytes), and algbw/busbw from a row's
 * time, checked on the rows nccl-tests 2.19.6 wrote with -J on 2 x H200
 * (tests/fixtures/nccl/h200x2/ncclt-ar.json): its time gives back its
 * alg_bw and bus_bw, its size gives back its count. */
#include "helpers.h"
#include <errno.h>
#include <math.h>
#include <string.h>

#include <jansson.h>
#include <gpufeed/error.h>
#include "coll/run.h"

static void sizes(void **state)
{
	uint64_t s[32];
	unsigned n;

	(void)state;
	n = gf_coll_sizes(1 << 20, 64 << 20, 4, 0, s, 32);
	assert_int_equal(n, 4);
	assert_true(s[0] == 1 << 20 && s[1] == 4 << 20 && s[2] == 16 << 20 && s[3] == 64 << 20);
	/* -b 1M -e 4G -f 2: 13 sizes, the last 4 GiB */
	n = gf_coll_sizes(1 << 20, 4ull << 30, 2, 0, s, 32);
	assert_int_equal(n, 13);
	assert_true(s[12] == 4ull << 30);
	/* -i: a step in bytes, the last size kept only while <= max */
	n = gf_coll_sizes(1 << 20, (7 << 20) / 2, 1, 1 << 20, s, 32);
	assert_int_equal(n, 3);
	assert_true(s[2] == 3 << 20);
	/* more sizes than room: counted, not written past max_n */
	assert_int_equal(gf_coll_sizes(8, 8 << 10, 2, 0, s, 2), 11);
	assert_int_equal(gf_coll_sizes(8, 64, 1, 0, s, 2), 0);
}

static void counts(void **state)
{
	struct gf_coll_counts c;

	(void)state;
	gf_coll_counts_of(GF_COLL_ALL_REDUCE, 1 << 20, 4, 2, &c);
	assert_true(c.send == 262144 && c.recv == 262144 && c.param == 262144);
	/* all_gather: the param count is one rank's block */
	gf_coll_counts_of(GF_COLL_ALL_GATHER, 1 << 20, 4, 4, &c);
	assert_true(c.param == 65536 && c.send == 65536 && c.recv == 262144 && c.send_inplace_off == 65536);
	assert_true(gf_coll_row_bytes(&c, 4) == 1 << 20);
	/* a block rounded down to 16 bytes: 1000 B of float over 3 ranks is
	 * 83 elements each, 80 after rounding */
	gf_coll_counts_of(GF_COLL_ALL_GATHER, 1000, 4, 3, &c);
	assert_true(c.param == 80 && c.recv == 240);
	assert_true(gf_coll_row_bytes(&c, 4) == 960);
	gf_coll_counts_of(GF_COLL_REDUCE_SCATTER, 1 << 20, 2, 4, &c);
	assert_true(c.param == 131072 && c.send == 524288 && c.recv == 131072 && c.recv_inplace_off == 131072);
	gf_coll_counts_of(GF_COLL_ALLTOALL, 1 << 20, 8, 3, &c);
	assert_true(c.param == 43690 && c.send == 131070 && c.recv == 131070);
	gf_coll_counts_of(GF_COLL_SENDRECV, 1 << 20, 1, 8, &c);
	assert_true(c.param == 1 << 20);
}

static void bus_factors(void **state)
{
	(void)state;
	assert_true(fabs(gf_coll_bus_factor(GF_COLL_ALL_REDUCE, 4) - 1.5) < 1e-12);
	assert_true(fabs(gf_coll_bus_factor(GF_COLL_ALL_GATHER, 4) - 0.75) < 1e-12);
	assert_true(fabs(gf_coll_bus_factor(GF_COLL_REDUCE_SCATTER, 8) - 0.875) < 1e-12);
	assert_true(fabs(gf_coll_bus_factor(GF_COLL_ALLTOALL, 2) - 0.5) < 1e-12);
	assert_true(gf_coll_bus_factor(GF_COLL_BROADCAST, 4) == 1 && gf_coll_bus_factor(GF_COLL_REDUCE, 4) == 1 &&
		    gf_coll_bus_factor(GF_COLL_SENDRECV, 4) == 1);
}

static void bw_of_gathered_ops(void **state)
{
	double alg, bus;

	(void)state;
	/* all_gather over 4 ranks: 1 MiB in 100 us moves 4 x 256 KiB */
	gf_coll_bw(GF_COLL_ALL_GATHER, 65536, 4, 100e-6, 4, &alg, &bus);
	assert_true(fabs(alg - 1048576 / 100e-6 / 1e9) < 1e-9);
	assert_true(fabs(bus - alg * 0.75) < 1e-9);
	gf_coll_bw(GF_COLL_BROADCAST, 262144, 4, 100e-6, 4, &alg, &bus);
	assert_true(fabs(alg - 1048576 / 100e-6 / 1e9) < 1e-9 && alg == bus);
}

/* One nccl-tests placement's figures against ours from its time. */
static void check_placement(json_t *row, const char *placement, size_t count, int nranks)
{
	json_t *p = json_object_get(row, placement);
	double t = json_real_value(json_object_get(p, "time")), alg, bus;

	assert_non_null(p);
	gf_coll_bw(GF_COLL_ALL_REDUCE, count, 4, t * 1e-6, nranks, &alg, &bus);
	/* nccl-tests prints the time to 1e-4 us: its bw agrees to ~5 digits */
	assert_true(fabs(alg / json_real_value(json_object_get(p, "alg_bw")) - 1) < 1e-5);
	assert_true(fabs(bus / json_real_value(json_object_get(p, "bus_bw")) - 1) < 1e-5);
}

static void fixture_rows(void **state)
{
	json_error_t e;
	json_t *doc = json_load_file(t_src_path("tests/fixtures/nccl/h200x2/ncclt-ar.json"), 0, &e), *rows, *row;
	json_t *cfg;
	size_t i;
	int nranks;

	(void)state;
	assert_non_null(doc);
	cfg = json_object_get(doc, "config");
	nranks = (int)json_integer_value(json_object_get(cfg, "ngpus"));
	assert_int_equal(nranks, 2);
	rows = json_object_get(doc, "results");
	assert_true(json_array_size(rows) == 4);
	json_array_foreach(rows, i, row) {
		uint64_t size = (uint64_t)json_integer_value(json_object_get(row, "size"));
		struct gf_coll_counts c;

		assert_string_equal(json_string_value(json_object_get(row, "type")), "float");
		gf_coll_counts_of(GF_COLL_ALL_REDUCE, size, 4, nranks, &c);
		assert_true(c.param == (size_t)json_integer_value(json_object_get(row, "count")));
		assert_true(gf_coll_row_bytes(&c, 4) == size);
		check_placement(row, "out_of_place", c.param, nranks);
		check_placement(row, "in_place", c.param, nranks);
	}
	json_decref(doc);
}

static void names(void **state)
{
	enum gf_coll_op op;
	gf_nccl_datatype t;
	gf_nccl_redop r;

	(void)state;
	for (int i = 0; i < GF_COLL_OPS; i++) {
		assert_int_equal(gf_coll_op_parse(gf_coll_op_name((enum gf_coll_op)i), &op), 0);
		assert_int_equal(op, i);
	}
	assert_int_equal(gf_coll_op_parse("allreduce", &op), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "--op: 'allreduce' is not one of all_reduce, all_gather"));
	assert_int_equal(gf_coll_dtype_parse("bfloat16", &t), 0);
	assert_int_equal(t, GF_NCCL_BFLOAT16);
	assert_int_equal(gf_coll_dtype_size(t), 2);
	assert_string_equal(gf_coll_dtype_name(GF_NCCL_FLOAT32), "float");
	assert_int_equal(gf_coll_dtype_parse("fp32", &t), -EINVAL);
	assert_int_equal(gf_coll_redop_parse("avg", &r), 0);
	assert_int_equal(r, GF_NCCL_AVG);
	assert_true(gf_coll_op_reduces(GF_COLL_REDUCE_SCATTER) && !gf_coll_op_reduces(GF_COLL_ALL_GATHER));
	assert_true(gf_coll_op_rooted(GF_COLL_BROADCAST) && !gf_coll_op_rooted(GF_COLL_ALLTOALL));
}

/* The check's inputs: a product over any number of ranks is 2 (one rank of
 * each index gives 2), other ops get 1..3 varying with rank and index. */
static void pattern(void **state)
{
	(void)state;
	for (int n = 1; n <= 8; n++)
		for (size_t i = 0; i < 64; i++) {
			double prod = 1;

			for (int r = 0; r < n; r++) {
				double v = gf_coll_pattern(GF_NCCL_SUM, r, n, i, 99);

				assert_true(v >= 1 && v <= 3);
				prod *= gf_coll_pattern(GF_NCCL_PROD, r, n, i, 99);
			}
			assert_true(prod == 2);
		}
	assert_true(gf_coll_pattern(GF_NCCL_SUM, 0, 2, 0, 99) != gf_coll_pattern(GF_NCCL_SUM, 1, 2, 0, 99));
	assert_true(gf_coll_pattern(GF_NCCL_SUM, 0, 2, 0, 99) != gf_coll_pattern(GF_NCCL_SUM, 0, 2, 1, 99));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes),	 cmocka_unit_test(counts),	cmocka_unit_test(bus_factors),
		cmocka_unit_test(bw_of_gathered_ops), cmocka_unit_test(fixture_rows), cmocka_unit_test(names),
		cmocka_unit_test(pattern),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
