/* Bad arguments to the I/O engine and the buffer allocator: offsets and
 * lengths past the largest file offset (both back ends refuse them the
 * same way, before any system call), and NULL for every pointer argument
 * of every public function in io.h and buf.h (-EINVAL with a message, or
 * nothing for the free/close functions; never a crash, also under ASan). */
#include "test_io_util.h"
#include "mem/host.h"

#include <stdint.h>

#define SIZE 8192

/* An -EINVAL with a message naming what was wrong. */
static void check_einval(long long rc, const char *needle)
{
	assert_int_equal(rc, -EINVAL);
	assert_true(t_contains(gf_last_error(), needle));
}

/* io_uring read an offset of UINT64_MAX as -1, "the file position":
 * writes landed there and reads returned offset 0's data, where psync
 * said -EINVAL.  Both must refuse it, and any offset + length past
 * 2^63-1, without touching the file. */
static void offset_overflow(struct t_fs *fs)
{
	static const struct { uint64_t off; size_t len; } bad[] = {
		{ UINT64_MAX, 4096 },
		{ UINT64_MAX, 0 },
		{ (uint64_t)INT64_MAX + 1, 1 },
		{ (uint64_t)INT64_MAX, 1 },
		{ (uint64_t)INT64_MAX - 100, 4096 },
		{ 0, (size_t)INT64_MAX + 1 },
	};
	uint8_t *buf = malloc(SIZE);
	struct gf_io *io;

	assert_non_null(buf);
	t_make_file(fs, "o.bin", SIZE, 3);
	T_FOR_EACH_BACKEND(fs, io, "offset overflow", 0, 0, 0) {
		struct gf_file *f;

		assert_int_equal(gf_file_open(io, t_path(fs, "o.bin"), GF_FILE_WRITE, 0, &f), 0);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			struct gf_io_req req = { .op = GF_IO_READ, .file = f, .buf = buf,
						 .len = bad[i].len, .off = bad[i].off };
			struct gf_io_req *p = &req;

			print_message("offset %llu length %zu\n", (unsigned long long)bad[i].off, bad[i].len);
			if (bad[i].len <= SIZE) {
				memset(buf, 0xee, SIZE);
				check_einval(gf_io_read(io, f, buf, bad[i].len, bad[i].off), "offset");
				check_einval(gf_io_write(io, f, buf, bad[i].len, bad[i].off), "offset");
			}
			check_einval(gf_io_submit(io, &p, 1), "offset");
			assert_false(req.done);
			req.op = GF_IO_WRITE;
			check_einval(gf_io_submit(io, &p, 1), "offset");
			assert_int_equal(gf_io_inflight(io), 0);
			{
				struct gf_io_range r[2] = {
					{ .off = 0, .len = 100, .buf = buf },
					{ .off = bad[i].off, .len = bad[i].len, .buf = buf + 100 },
				};
				check_einval(gf_io_read_ranges(io, f, r, 2), "offset");
			}
		}
		/* An fsync has no offset: whatever the field holds. */
		{
			struct gf_io_req req = { .op = GF_IO_FSYNC, .file = f, .off = UINT64_MAX };
			struct gf_io_req *p = &req;

			assert_int_equal(gf_io_submit(io, &p, 1), 1);
			assert_int_equal(gf_io_wait(io, 1, -1), 1);
			assert_int_equal(req.res, 0);
		}
		/* The largest offset that is valid still works. */
		assert_int_equal(gf_io_read(io, f, buf, 0, (uint64_t)INT64_MAX), 0);
		assert_int_equal(gf_file_close(f), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
		/* Nothing was written anywhere. */
		t_check_file(t_path(fs, "o.bin"), SIZE, 3);
	}
	free(buf);
}
T_FS_TESTS(offset_overflow);

/* NULL for each pointer argument of each public function. */
static void null_arguments(void **state)
{
	struct gf_io_opts o = GF_IO_OPTS_INIT;
	struct gf_buf_opts bo = GF_BUF_OPTS_INIT;
	struct gf_io *io = NULL;
	struct gf_file *f = NULL;
	struct gf_buf *b = NULL, *got = NULL;	/* got: out argument of calls that fail */
	struct gf_ckpt *c = NULL;
	struct gf_io_range r = { .len = 1 };
	struct gf_io_req *reqs[1] = { NULL };
	size_t len = 0;
	char *dir = t_mkdtemp(), path[PATH_MAX];
	uint8_t byte = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/n.bin", dir);
	t_write(dir, "n.bin", "some bytes");
	o.backend = GF_IO_PSYNC;

	/* buf.h */
	check_einval(gf_buf_alloc(NULL, &got), "gf_buf_alloc: opts is NULL");
	bo.size = 4096;
	check_einval(gf_buf_alloc(&bo, NULL), "gf_buf_alloc: out is NULL");
	gf_buf_free(NULL);
	check_einval(gf_mem_node_of(NULL), "gf_mem_node_of: addr is NULL");
	check_einval(gf_memlock_limit(NULL, NULL), "gf_memlock_limit: soft and hard are both NULL");

	/* engines */
	check_einval(gf_io_open(&o, NULL), "gf_io_open: out is NULL");
	assert_int_equal(gf_io_open(NULL, &io), 0);	/* NULL options: the defaults */
	assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	assert_int_equal(gf_io_open(&o, &io), 0);
	assert_int_equal(gf_io_close(NULL, GF_IO_DRAIN), 0);
	assert_int_equal(gf_io_backend_of(NULL), GF_IO_AUTO);
	assert_int_equal(gf_io_inflight(NULL), 0);
	gf_io_interrupt(NULL);
	gf_io_interrupt_clear(NULL);
	check_einval(gf_io_fallback_error(NULL), "gf_io_fallback_error: io is NULL");
	check_einval(gf_io_async_error(NULL), "gf_io_async_error: io is NULL");
	assert_int_equal(gf_buf_alloc(&bo, &b), 0);
	check_einval(gf_io_register_buf(NULL, b), "gf_io_register_buf: io is NULL");
	check_einval(gf_io_register_buf(io, NULL), "gf_io_register_buf: b is NULL");
	check_einval(gf_io_unregister_buf(NULL, b), "gf_io_unregister_buf: io is NULL");
	check_einval(gf_io_unregister_buf(io, NULL), "gf_io_unregister_buf: b is NULL");

	/* files */
	check_einval(gf_file_open(NULL, path, 0, 0, &f), "gf_file_open: io is NULL");
	check_einval(gf_file_open(io, NULL, 0, 0, &f), "gf_file_open: path is NULL");
	check_einval(gf_file_open(io, path, 0, 0, NULL), "gf_file_open: out is NULL");
	check_einval(gf_file_from_fd(NULL, 0, 0, &f), "gf_file_from_fd: io is NULL");
	check_einval(gf_file_from_fd(io, 0, 0, NULL), "gf_file_from_fd: out is NULL");
	assert_null(gf_file_info(NULL));
	check_einval(gf_file_fd(NULL), "gf_file_fd: f is NULL");
	assert_int_equal(gf_file_close(NULL), 0);
	assert_int_equal(gf_file_open(io, path, 0, 0, &f), 0);

	/* requests */
	check_einval(gf_io_submit(NULL, reqs, 1), "gf_io_submit: io is NULL");
	check_einval(gf_io_submit(io, NULL, 1), "gf_io_submit: reqs is NULL");
	check_einval(gf_io_submit(io, reqs, 1), "gf_io_submit: reqs[0] is NULL");
	check_einval(gf_io_poll(NULL), "gf_io_poll: io is NULL");
	check_einval(gf_io_wait(NULL, 1, 0), "gf_io_wait: io is NULL");
	check_einval(gf_io_cancel(NULL, NULL), "gf_io_cancel: io is NULL");
	check_einval(gf_io_cancel(io, NULL), "gf_io_cancel: req is NULL");

	/* synchronous helpers */
	check_einval(gf_io_read(NULL, f, &byte, 1, 0), "gf_io_read: io is NULL");
	check_einval(gf_io_read(io, NULL, &byte, 1, 0), "gf_io_read: f is NULL");
	check_einval(gf_io_read(io, f, NULL, 1, 0), "gf_io_read: buf is NULL");
	check_einval(gf_io_write(NULL, f, &byte, 1, 0), "gf_io_write: io is NULL");
	check_einval(gf_io_write(io, NULL, &byte, 1, 0), "gf_io_write: f is NULL");
	check_einval(gf_io_read_ranges(NULL, f, &r, 1), "gf_io_read_ranges: io is NULL");
	check_einval(gf_io_read_ranges(io, NULL, &r, 1), "gf_io_read_ranges: f is NULL");
	check_einval(gf_io_read_ranges(io, f, NULL, 1), "gf_io_read_ranges: r is NULL");
	assert_int_equal(gf_io_read_ranges(io, f, NULL, 0), 0);
	check_einval(gf_io_read_file(NULL, path, 0, -1, 0, &got, &len), "gf_io_read_file: io is NULL");
	check_einval(gf_io_read_file(io, NULL, 0, -1, 0, &got, &len), "gf_io_read_file: path is NULL");
	check_einval(gf_io_read_file(io, path, 0, -1, 0, NULL, &len), "gf_io_read_file: out is NULL");
	check_einval(gf_io_read_file(io, path, 0, -1, 0, &got, NULL), "gf_io_read_file: len is NULL");

	/* checkpoints */
	check_einval(gf_ckpt_open(NULL, path, NULL, &c), "gf_ckpt_open: io is NULL");
	check_einval(gf_ckpt_open(io, NULL, NULL, &c), "gf_ckpt_open: path is NULL");
	check_einval(gf_ckpt_open(io, path, NULL, NULL), "gf_ckpt_open: out is NULL");
	check_einval(gf_ckpt_write(NULL, &byte, 1), "gf_ckpt_write: c is NULL");
	check_einval(gf_ckpt_commit(NULL), "gf_ckpt_commit: c is NULL");
	gf_ckpt_abort(NULL);
	assert_int_equal(gf_ckpt_open(io, path, NULL, &c), 0);
	check_einval(gf_ckpt_write(c, NULL, 1), "gf_ckpt_write: data is NULL");
	assert_int_equal(gf_ckpt_write(c, NULL, 0), 0);
	gf_ckpt_abort(c);
	check_einval(gf_io_write_file_atomic(NULL, path, &byte, 1, NULL), "gf_io_write_file_atomic: io is NULL");
	check_einval(gf_io_write_file_atomic(io, NULL, &byte, 1, NULL), "gf_io_write_file_atomic: path is NULL");
	check_einval(gf_io_write_file_atomic(io, path, NULL, 1, NULL), "gf_io_write_file_atomic: data is NULL");

	/* The file is as it was. */
	{
		char *text = t_read(path);
		assert_string_equal(text, "some bytes");
		free(text);
	}
	assert_int_equal(gf_file_close(f), 0);
	assert_int_equal(gf_io_unregister_buf(io, b), -ENOENT);
	gf_buf_free(b);
	assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	t_rmtree(dir);
	free(dir);
}

/* Options structs carry their size (include/gpufeed/common.h): a zeroed
 * one is refused with a message naming the initializer; one from a newer
 * header (larger) is read up to what this release knows. */
static void versioned_options(void **state)
{
	struct gf_io_opts zero_io = { 0 };
	struct gf_buf_opts zero_buf = { .size = 4096 };
	struct gf_ckpt_opts zero_ckpt = { 0 };
	struct { struct gf_io_opts o; char newer_fields[32]; } big = { .o = GF_IO_OPTS_INIT };
	struct gf_io *io = NULL;
	struct gf_buf *b = NULL;
	struct gf_ckpt *c = NULL;
	char *dir = t_mkdtemp(), path[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/v.bin", dir);
	check_einval(gf_io_open(&zero_io, &io), "GF_IO_OPTS_INIT");
	assert_null(io);
	check_einval(gf_buf_alloc(&zero_buf, &b), "GF_BUF_OPTS_INIT");
	assert_null(b);
	zero_io.struct_size = 8;	/* smaller than any release's */
	check_einval(gf_io_open(&zero_io, &io), "GF_IO_OPTS_INIT");

	memset(big.newer_fields, 0xff, sizeof(big.newer_fields));
	big.o.struct_size = sizeof(big);
	big.o.backend = GF_IO_PSYNC;
	big.o.queue_depth = 4;
	assert_int_equal(gf_io_open(&big.o, &io), 0);
	assert_int_equal(gf_io_backend_of(io), GF_IO_PSYNC);
	check_einval(gf_ckpt_open(io, path, &zero_ckpt, &c), "GF_CKPT_OPTS_INIT");
	assert_null(c);
	assert_int_equal(gf_io_write_file_atomic(io, path, "x", 1, NULL), 0);
	assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_FS_CASES(offset_overflow),
		cmocka_unit_test(null_arguments),
		cmocka_unit_test(versioned_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
