/* Fault injection: the GPUFEED_IO_FAULT spec parser (good and bad
 * strings, all or nothing), what a parsed fault does to a raw result
 * (op, offset range, skip, count, cut), and the variable itself, read by
 * gf_io_open in a fresh child. */
#include "test_io_util.h"

#define R GF_IO_READ
#define W GF_IO_WRITE
#define S GF_IO_FSYNC

static int teardown(void **state)
{
	(void)state;
	gf_io_fault_clear();
	return 0;
}

static void parse_good(void **state)
{
	(void)state;
	gf_io_fault_clear();
	/* Every read, every time. */
	assert_int_equal(gf_io_fault_parse("read:eio"), 0);
	assert_int_equal(gf_io_fault_apply(R, 0, 4096), -EIO);
	assert_int_equal(gf_io_fault_apply(R, 1 << 30, 1), -EIO);
	assert_int_equal(gf_io_fault_apply(W, 0, 4096), 4096);
	assert_int_equal(gf_io_fault_apply(S, 0, 0), 0);
	assert_int_equal(gf_io_fault_fired(), 2);

	/* At one offset; at a range; a count. */
	gf_io_fault_clear();
	assert_int_equal(gf_io_fault_fired(), 0);
	assert_int_equal(gf_io_fault_parse("write:enospc@4096"), 0);
	assert_int_equal(gf_io_fault_apply(W, 4095, 10), 10);
	assert_int_equal(gf_io_fault_apply(W, 4096, 10), -ENOSPC);
	assert_int_equal(gf_io_fault_apply(W, 4097, 10), 10);
	assert_int_equal(gf_io_fault_apply(R, 4096, 10), 10);
	gf_io_fault_clear();
	assert_int_equal(gf_io_fault_parse("read:eintr@0x100000+1048576*2"), 0);
	assert_int_equal(gf_io_fault_apply(R, 1048575, 7), 7);
	assert_int_equal(gf_io_fault_apply(R, 1048576, 7), -EINTR);
	assert_int_equal(gf_io_fault_apply(R, 2097151, 7), -EINTR);
	assert_int_equal(gf_io_fault_apply(R, 1048576, 7), 7);	/* count spent */
	assert_int_equal(gf_io_fault_fired(), 2);

	/* Short: results cut, smaller ones and errors left alone. */
	gf_io_fault_clear();
	assert_int_equal(gf_io_fault_parse("any:short=4096*3"), 0);
	assert_int_equal(gf_io_fault_apply(R, 0, 65536), 4096);
	assert_int_equal(gf_io_fault_apply(W, 0, 100), 100);
	assert_int_equal(gf_io_fault_apply(R, 0, -EIO), -EIO);
	assert_int_equal(gf_io_fault_apply(W, 0, 65536), 65536);	/* spent */
	assert_int_equal(gf_io_fault_fired(), 3);

	/* Several, the first that matches fires. */
	gf_io_fault_clear();
	assert_int_equal(gf_io_fault_parse("fsync:eio*1,read:eagain@0*1,any:short=0x10"), 0);
	assert_int_equal(gf_io_fault_apply(S, 0, 0), -EIO);
	assert_int_equal(gf_io_fault_apply(S, 0, 0), 0);
	assert_int_equal(gf_io_fault_apply(R, 0, 100), -EAGAIN);
	assert_int_equal(gf_io_fault_apply(R, 0, 100), 16);
	assert_int_equal(gf_io_fault_apply(W, 8, 100), 16);
	/* An empty spec adds nothing; a trailing comma is fine. */
	gf_io_fault_clear();
	assert_int_equal(gf_io_fault_parse(""), 0);
	assert_int_equal(gf_io_fault_parse("write:eio@0,"), 0);
	assert_int_equal(gf_io_fault_apply(R, 0, 5), 5);
	assert_int_equal(gf_io_fault_apply(W, 0, 5), -EIO);
}

/* Skip: only after that many matching issues (not in the spec syntax). */
static void skip_and_count(void **state)
{
	struct gf_io_fault f = { .op = -1, .err = -EIO, .cut = -1, .off = 100, .len = 10, .skip = 2, .count = 1 };

	(void)state;
	gf_io_fault_clear();
	assert_int_equal(gf_io_fault_add(&f), 0);
	assert_int_equal(gf_io_fault_apply(R, 0, 1), 1);	/* not in range: not seen */
	assert_int_equal(gf_io_fault_apply(R, 105, 1), 1);
	assert_int_equal(gf_io_fault_apply(W, 109, 1), 1);
	assert_int_equal(gf_io_fault_apply(S, 100, 0), -EIO);
	assert_int_equal(gf_io_fault_apply(R, 100, 1), 1);
	/* At most 16. */
	gf_io_fault_clear();
	for (int i = 0; i < 16; i++)
		assert_int_equal(gf_io_fault_add(&f), 0);
	assert_int_equal(gf_io_fault_add(&f), -ENOSPC);
}

static void parse_bad(void **state)
{
	static const char *const bad[] = {
		"read", "read:", ":eio", "foo:eio", "READ:eio", "read:eio=3", "read:short",
		"read:short=", "read:short=x", "read:short=-1", "read:short=+4", "read:short= 4",
		"read:eiox", "read:ei", "read:eio@", "read:eio@x", "read:eio@-1", "read:eio@1+",
		"read:eio@1+0", "read:eio*", "read:eio*x", "read:eio*2000000", "read:eio*-1",
		"read:eio@1+2*3x", "read:eio ", " read:eio", "read:eio,,write:eio",
		"read:eio@99999999999999999999999", "read:short=4096@0*1*2",
	};
	char many[512] = "";

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gf_io_fault_clear();
		print_message("[ -- spec  ] '%s'\n", bad[i]);
		assert_int_equal(gf_io_fault_parse(bad[i]), -EINVAL);
		assert_true(t_contains(gf_last_error(), "GPUFEED_IO_FAULT"));
		/* Nothing of it stays, not even the good part before. */
		assert_int_equal(gf_io_fault_apply(R, 0, 5), 5);
		assert_int_equal(gf_io_fault_apply(W, 0, 5), 5);
		assert_int_equal(gf_io_fault_apply(S, 0, 0), 0);
	}
	/* The message shows the part that is wrong. */
	gf_io_fault_clear();
	assert_int_equal(gf_io_fault_parse("read:eio,write:bogus"), -EINVAL);
	assert_true(t_contains(gf_last_error(), "'write:bogus'"));
	assert_int_equal(gf_io_fault_apply(R, 0, 5), 5);
	/* Too long an entry. */
	memset(many, 'x', 300);
	assert_int_equal(gf_io_fault_parse(many), -EINVAL);
	/* More than 16 faults: none is added. */
	many[0] = '\0';
	for (int i = 0; i < 17; i++)
		strcat(many, "read:eio@1,");
	assert_int_equal(gf_io_fault_parse(many), -ENOSPC);
	assert_int_equal(gf_io_fault_apply(R, 1, 5), 5);
}

/* ---- the environment variable, in children that never opened an
 * engine before (it is read once per process) ---- */

struct env_case {
	const char *spec;
	const char *path;
};

static const char *env_child(void *arg)
{
	const struct env_case *ec = arg;
	struct gf_io_opts o = { .struct_size = sizeof(struct gf_io_opts),
		.backend = GF_IO_PSYNC, .sqpoll_cpu = -1, .cpu_node = -1 };
	struct gf_io *io = NULL;
	struct gf_file *f;
	char buf[16];
	int rc;

	setenv("GPUFEED_IO_FAULT", ec->spec, 1);
	rc = gf_io_open(&o, &io);
	if (!ec->path) {
		/* A bad spec: every open says so. */
		T_CHILD_CHECK(rc == -EINVAL, "open = %d", rc);
		T_CHILD_CHECK(strstr(gf_last_error(), "GPUFEED_IO_FAULT"), "message '%s'", gf_last_error());
		T_CHILD_CHECK(gf_io_open(&o, &io) == -EINVAL, "second open");
		T_CHILD_CHECK(strstr(gf_last_error(), "GPUFEED_IO_FAULT"), "message '%s'", gf_last_error());
		return NULL;
	}
	T_CHILD_CHECK(rc == 0, "open = %d (%s)", rc, gf_last_error());
	T_CHILD_CHECK(gf_file_open(io, ec->path, GF_FILE_READ, 0, &f) == 0, "%s", gf_last_error());
	rc = (int)gf_io_read(io, f, buf, 10, 0);
	T_CHILD_CHECK(rc == -EIO, "first read = %d", rc);
	rc = (int)gf_io_read(io, f, buf, 10, 0);
	T_CHILD_CHECK(rc == 10 && t_same(buf, 10, 0, 1), "second read = %d", rc);
	T_CHILD_CHECK(gf_io_fault_fired() == 1, "fired %u", gf_io_fault_fired());
	/* Read once: a second engine does not add it again. */
	T_CHILD_CHECK(gf_io_close(io, GF_IO_DRAIN) == 0, "close");
	T_CHILD_CHECK(gf_io_open(&o, &io) == 0, "reopen");
	T_CHILD_CHECK(gf_file_open(io, ec->path, GF_FILE_READ, 0, &f) == 0, "%s", gf_last_error());
	T_CHILD_CHECK(gf_io_read(io, f, buf, 10, 0) == 10, "read after reopen");
	T_CHILD_CHECK(gf_io_close(io, GF_IO_DRAIN) == 0, "close");
	return NULL;
}

static void from_env(void **state)
{
	char *dir = t_mkdtemp();
	char path[PATH_MAX];
	struct env_case good, bad = { .spec = "read:eio@zero", .path = NULL };
	uint8_t data[64];

	(void)state;
	t_fill(data, sizeof(data), 0, 1);
	t_write_bytes(dir, "e.bin", data, sizeof(data));
	snprintf(path, sizeof(path), "%s/e.bin", dir);
	good = (struct env_case){ .spec = "read:eio@0*1", .path = path };
	t_in_child(env_child, &good);
	t_in_child(env_child, &bad);
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: no engine opened in this process yet. */
		cmocka_unit_test_teardown(from_env, teardown),
		cmocka_unit_test_teardown(parse_good, teardown),
		cmocka_unit_test_teardown(skip_and_count, teardown),
		cmocka_unit_test_teardown(parse_bad, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
