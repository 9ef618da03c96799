/* Errors and odd results: short transfers (fault "cut"), end of file,
 * EINTR/EAGAIN retried, EIO on read, write and fsync, ENOSPC on a full
 * tmpfs (and injected elsewhere); both back ends, on disk, tmpfs, ramfs. */
#include "test_io_util.h"

#define MiB (1u << 20)

static void add_fault(int op, int err, long long cut, uint64_t off, uint64_t len, unsigned count)
{
	struct gf_io_fault f = { .op = op, .err = err, .cut = cut, .off = off, .len = len, .count = count };

	assert_int_equal(gf_io_fault_add(&f), 0);
}

static ssize_t fsync_req(struct gf_io *io, struct gf_file *f)
{
	struct gf_io_req req = { .op = GF_IO_FSYNC, .file = f };
	struct gf_io_req *p = &req;

	assert_int_equal(gf_io_submit(io, &p, 1), 1);
	assert_int_equal(gf_io_wait(io, 1, -1), 1);
	assert_true(req.done);
	return req.res;
}

/* Every issue comes back short: the engine moves the rest itself. */
static void short_transfers(struct t_fs *fs)
{
	const size_t size = MiB + 5;
	uint8_t *buf = malloc(size + 1);
	struct gf_io *io;

	assert_non_null(buf);
	t_make_file(fs, "s.bin", size, 1);
	T_FOR_EACH_BACKEND(fs, io, "short transfers", 0, 0, 0) {
		struct gf_file *f, *d;
		struct gf_buf *b;
		size_t len;

		assert_int_equal(gf_file_open(io, t_path(fs, "s.bin"), GF_FILE_WRITE, 0, &f), 0);
		/* Reads cut to a page each time. */
		gf_io_fault_clear();
		add_fault(GF_IO_READ, 0, 4096, 0, 0, 0);
		memset(buf, 0, size);
		assert_int_equal(gf_io_read(io, f, buf, size, 0), (ssize_t)size);
		t_check(buf, size, 0, 1);
		assert_true(gf_io_fault_fired() >= size / 4096);
		/* Cut to odd sizes a few times, then whole. */
		gf_io_fault_clear();
		add_fault(GF_IO_READ, 0, 1, 0, 0, 3);
		add_fault(GF_IO_READ, 0, 777, 0, 0, 5);
		memset(buf, 0, size);
		assert_int_equal(gf_io_read(io, f, buf + 1, 300000, 12345), 300000);
		t_check(buf + 1, 300000, 12345, 1);
		assert_int_equal(gf_io_fault_fired(), 8);
		/* The whole file in chunks, each cut. */
		gf_io_fault_clear();
		add_fault(GF_IO_READ, 0, 100000, 0, 0, 0);
		assert_int_equal(gf_io_read_file(io, t_path(fs, "s.bin"), 0, -1, 256 * 1024, &b, &len), 0);
		assert_int_equal(len, size);
		t_check(b->data, len, 0, 1);
		gf_buf_free(b);
		/* An O_DIRECT read cut to an unaligned size: the rest goes
		 * through the page cache. */
		gf_io_fault_clear();
		add_fault(GF_IO_READ, 0, 1000, 0, 0, 2);
		assert_int_equal(gf_io_read_file(io, t_path(fs, "s.bin"), GF_FILE_DIRECT, -1, 0, &b, &len), 0);
		assert_int_equal(len, size);
		t_check(b->data, len, 0, 1);
		assert_int_equal(gf_io_fault_fired(), 2);
		gf_buf_free(b);
		/* Writes cut: the file still gets every byte. */
		gf_io_fault_clear();
		add_fault(GF_IO_WRITE, 0, 1000, 0, 0, 0);
		t_fill(buf, 65536, 0, 2);
		assert_int_equal(gf_io_write(io, f, buf, 65536, 0), 65536);
		assert_true(gf_io_fault_fired() >= 65);
		gf_io_fault_clear();
		assert_int_equal(gf_io_read(io, f, buf, 65536, 0), 65536);
		t_check(buf, 65536, 0, 2);
		/* An O_DIRECT write cut short twice: the rest goes out
		 * through the page cache, the file gets every byte. */
		assert_int_equal(gf_file_open(io, t_path(fs, "s.bin"), GF_FILE_WRITE | GF_FILE_DIRECT, 0, &d), 0);
		{
			struct gf_buf_opts bo = { .struct_size = sizeof(struct gf_buf_opts),
				.size = 65536, .align = gf_file_info(d)->mem_align,
						  .numa_node = -1 };

			assert_int_equal(gf_buf_alloc(&bo, &b), 0);
		}
		t_fill(b->data, 65536, 0, 1);	/* the first pattern back */
		gf_io_fault_clear();
		add_fault(GF_IO_WRITE, 0, 1000, 0, 0, 2);
		assert_int_equal(gf_io_write(io, d, b->data, 65536, 0), 65536);
		assert_int_equal(gf_io_fault_fired(), 2);
		gf_io_fault_clear();
		gf_buf_free(b);
		t_check_file(t_path(fs, "s.bin"), size, 1);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(buf);
}
T_FS_TESTS(short_transfers);

/* End of file: short only there, eof set only there; also after cuts. */
static void end_of_file(struct t_fs *fs)
{
	const size_t size = 3 * 4096 + 17;
	struct gf_io *io;
	uint8_t buf[16384], other[4][128];

	t_make_file(fs, "e.bin", size, 3);
	T_FOR_EACH_BACKEND(fs, io, "end of file", 0, 0, 0) {
		const struct { uint64_t off; size_t len; ssize_t res; bool eof; } c[] = {
			{ 0, size, (ssize_t)size, false },
			{ 0, size + 1, (ssize_t)size, true },
			{ size - 10, 100, 10, true },
			{ size, 100, 0, true },
			{ size + 4096, 1, 0, true },
			{ 4096, 0, 0, false },
		};
		struct gf_io_req req[6], *p[6];
		struct gf_file *f;

		assert_int_equal(gf_file_open(io, t_path(fs, "e.bin"), GF_FILE_READ, 0, &f), 0);
		for (int round = 0; round < 2; round++) {
			gf_io_fault_clear();
			if (round)	/* the same with every issue cut short */
				add_fault(GF_IO_READ, 0, 1001, 0, 0, 0);
			for (unsigned i = 0; i < 6; i++) {
				req[i] = (struct gf_io_req){ .op = GF_IO_READ, .file = f,
							     .buf = i < 2 ? buf : other[i - 2],
							     .len = c[i].len, .off = c[i].off };
				p[i] = &req[i];
			}
			assert_int_equal(gf_io_submit(io, p, 1), 1);
			assert_int_equal(gf_io_wait(io, 1, -1), 1);
			assert_int_equal(req[0].res, (ssize_t)size);
			assert_false(req[0].eof);
			t_check(buf, size, 0, 3);
			assert_int_equal(gf_io_submit(io, p + 1, 5), 5);
			assert_int_equal(gf_io_wait(io, 5, -1), 5);
			for (unsigned i = 0; i < 6; i++) {
				assert_int_equal(req[i].res, c[i].res);
				assert_int_equal(req[i].eof, c[i].eof);
			}
			t_check(req[2].buf, 10, size - 10, 3);
		}
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(end_of_file);

/* EINTR and EAGAIN are retried by the engine: the caller sees success. */
static void interrupted(struct t_fs *fs)
{
	const int errs[] = { -EINTR, -EAGAIN };
	uint8_t *buf = malloc(MiB);
	struct gf_io *io;

	assert_non_null(buf);
	t_make_file(fs, "i.bin", MiB, 4);
	T_FOR_EACH_BACKEND(fs, io, "EINTR/EAGAIN", 0, 0, 0) {
		struct gf_file *f;

		assert_int_equal(gf_file_open(io, t_path(fs, "i.bin"), GF_FILE_WRITE, 0, &f), 0);
		for (unsigned e = 0; e < 2; e++) {
			gf_io_fault_clear();
			add_fault(GF_IO_READ, errs[e], -1, 0, 0, 3);
			memset(buf, 0, MiB);
			assert_int_equal(gf_io_read(io, f, buf, MiB, 0), MiB);
			t_check(buf, MiB, 0, 4);
			assert_int_equal(gf_io_fault_fired(), 3);

			gf_io_fault_clear();
			add_fault(GF_IO_WRITE, errs[e], -1, 0, 0, 2);
			assert_int_equal(gf_io_write(io, f, buf + 100, 5000, 100), 5000);
			assert_int_equal(gf_io_fault_fired(), 2);

			gf_io_fault_clear();
			add_fault(GF_IO_FSYNC, errs[e], -1, 0, 0, 2);
			assert_int_equal(fsync_req(io, f), 0);
			assert_int_equal(gf_io_fault_fired(), 2);

			/* Mixed with short reads, on ranges. */
			gf_io_fault_clear();
			add_fault(GF_IO_READ, errs[e], -1, 0, 0, 4);
			add_fault(GF_IO_READ, 0, 4000, 0, 0, 10);
			{
				struct gf_io_range r[3] = {
					{ .off = 0, .len = 65536, .buf = buf },
					{ .off = 500000, .len = 100000, .buf = buf + 65536 },
					{ .off = MiB - 10, .len = 100, .buf = buf + 200000 },
				};
				assert_int_equal(gf_io_read_ranges(io, f, r, 3), 0);
				assert_int_equal(r[0].res, 65536);
				assert_int_equal(r[1].res, 100000);
				assert_int_equal(r[2].res, 10);
				t_check(r[0].buf, 65536, 0, 4);
				t_check(r[1].buf, 100000, 500000, 4);
				t_check(r[2].buf, 10, MiB - 10, 4);
			}
			assert_int_equal(gf_io_fault_fired(), 14);
		}
		gf_io_fault_clear();
		t_check_file(t_path(fs, "i.bin"), MiB, 4);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(buf);
}
T_FS_TESTS(interrupted);

/* EIO on read, write, fsync: the request fails as a whole, with a message. */
static void io_errors(struct t_fs *fs)
{
	uint8_t *buf = malloc(2 * MiB);
	struct gf_io *io;

	assert_non_null(buf);
	t_make_file(fs, "x.bin", 2 * MiB, 5);
	T_FOR_EACH_BACKEND(fs, io, "EIO", 0, 0, 0) {
		struct gf_buf dummy, *b = &dummy;
		struct gf_file *f;
		size_t len = 1;

		assert_int_equal(gf_file_open(io, t_path(fs, "x.bin"), GF_FILE_WRITE, 0, &f), 0);
		gf_io_fault_clear();
		add_fault(GF_IO_READ, -EIO, -1, 0, 0, 1);
		assert_int_equal(gf_io_read(io, f, buf, 4096, 0), -EIO);
		assert_true(t_contains(gf_last_error(), "x.bin"));
		assert_true(t_contains(gf_last_error(), strerror(EIO)));
		assert_int_equal(gf_io_read(io, f, buf, 4096, 0), 4096);	/* once only */

		/* After part of it moved: still a failure, not a short count. */
		gf_io_fault_clear();
		add_fault(GF_IO_READ, 0, 8192, 0, 0, 1);
		add_fault(GF_IO_READ, -EIO, -1, 8192, 1, 1);
		assert_int_equal(gf_io_read(io, f, buf, 65536, 0), -EIO);

		gf_io_fault_clear();
		add_fault(GF_IO_WRITE, -EIO, -1, 0, 0, 1);
		assert_int_equal(gf_io_write(io, f, buf, 100, 0), -EIO);
		assert_true(t_contains(gf_last_error(), "write"));

		gf_io_fault_clear();
		add_fault(GF_IO_FSYNC, -EIO, -1, 0, 0, 1);
		assert_int_equal(fsync_req(io, f), -EIO);
		assert_int_equal(fsync_req(io, f), 0);

		/* Whole file: EIO at 1 MiB fails it, and nothing is handed out. */
		gf_io_fault_clear();
		add_fault(GF_IO_READ, -EIO, -1, MiB, 1, 0);
		assert_int_equal(gf_io_read_file(io, t_path(fs, "x.bin"), 0, -1, 256 * 1024, &b, &len), -EIO);
		assert_null(b);
		assert_int_equal(len, 0);
		assert_true(t_contains(gf_last_error(), "x.bin"));

		/* Ranges: the bad one says so, the others still have data. */
		{
			struct gf_io_range r[3] = {
				{ .off = 0, .len = 4096, .buf = buf },
				{ .off = MiB, .len = 4096, .buf = buf + 4096 },
				{ .off = 3 * 4096, .len = 4096, .buf = buf + 8192 },
			};
			assert_int_equal(gf_io_read_ranges(io, f, r, 3), -EIO);
			assert_int_equal(r[0].res, 4096);
			assert_int_equal(r[1].res, -EIO);
			assert_int_equal(r[2].res, 4096);
			t_check(r[2].buf, 4096, 3 * 4096, 5);
		}
		/* Any op, by offset, from the parsed form. */
		gf_io_fault_clear();
		assert_int_equal(gf_io_fault_parse("any:eio@4096*1"), 0);
		assert_int_equal(gf_io_read(io, f, buf, 4096, 0), 4096);
		assert_int_equal(gf_io_read(io, f, buf, 4096, 4096), -EIO);
		gf_io_fault_clear();
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	t_check_file(t_path(fs, "x.bin"), 2 * MiB, 5);
	free(buf);
}
T_FS_TESTS(io_errors);

/* ENOSPC: for real on a 1 MiB tmpfs, injected on the others.  A big
 * write fails; a checkpoint fails, leaving the previous file and no
 * temp file. */
static void no_space(struct t_fs *fs)
{
	const size_t size = 4 * MiB;
	uint8_t *buf = malloc(size);
	struct gf_io *io;

	assert_non_null(buf);
	t_fill(buf, size, 0, 6);
	t_write(fs->base, "ck.bin", "previous");
	T_FOR_EACH_BACKEND(fs, io, "ENOSPC", 0, 0, 0) {
		struct gf_ckpt_opts o = { .struct_size = sizeof(struct gf_ckpt_opts), .dirty_limit = MiB };
		struct gf_ckpt *c;
		struct gf_file *f;

		gf_io_fault_clear();
		if (fs->kind != T_TMPFS)
			add_fault(GF_IO_WRITE, -ENOSPC, -1, 0, 0, 0);
		assert_int_equal(gf_file_open(io, t_path(fs, "big.bin"), GF_FILE_WRITE | GF_FILE_CREATE, 0, &f), 0);
		assert_int_equal(gf_io_write(io, f, buf, size, 0), -ENOSPC);
		assert_true(t_contains(gf_last_error(), "big.bin"));
		assert_int_equal(gf_file_close(f), 0);
		assert_int_equal(unlink(t_path(fs, "big.bin")), 0);

		for (int direct = 0; direct < 2; direct++) {
			o.direct = direct;
			assert_int_equal(gf_io_write_file_atomic(io, t_path(fs, "ck.bin"), buf, size, &o), -ENOSPC);
			assert_true(t_contains(gf_last_error(), "ck.bin"));
			t_check_kept(fs, "ck.bin", "previous");
			/* Step by step: the write or the commit says ENOSPC. */
			assert_int_equal(gf_ckpt_open(io, t_path(fs, "ck.bin"), &o, &c), 0);
			assert_int_equal(t_count_names(fs->base, ".tmp-"), 1);
			{
				int rc = gf_ckpt_write(c, buf, size);
				assert_true(rc == 0 || rc == -ENOSPC);
				assert_int_equal(gf_ckpt_commit(c), -ENOSPC);
			}
			t_check_kept(fs, "ck.bin", "previous");
		}
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(buf);
}
T_FS_TESTS_SIZED(no_space, "1m");

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_FS_CASES(short_transfers),
		T_FS_CASES(end_of_file),
		T_FS_CASES(interrupted),
		T_FS_CASES(io_errors),
		T_FS_CASES(no_space),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
