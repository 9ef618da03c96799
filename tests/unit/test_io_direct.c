/* O_DIRECT: alignment from the file, the tail of a file whose size is not
 * a multiple of the block, unaligned requests through the buffered twin,
 * ramfs refusing O_DIRECT (a note, or an error when required), tmpfs
 * taking it, an O_DIRECT refusal at I/O time; both back ends, on disk,
 * tmpfs and ramfs. */
#include "test_io_util.h"

#include <sys/mman.h>
#include <time.h>

#define BLK 4096u
#define FSIZE (5 * BLK + 1000)	/* not a multiple of any block size */

static uint64_t down(uint64_t v, uint64_t a)
{
	return v / a * a;
}

static uint64_t up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static struct gf_buf *aligned_buf(size_t size, size_t align)
{
	struct gf_buf_opts o = { .struct_size = sizeof(struct gf_buf_opts),
		.size = size, .align = align, .numa_node = -1 };
	struct gf_buf *b = NULL;

	assert_int_equal(gf_buf_alloc(&o, &b), 0);
	return b;
}

/* Whether the page of path at off is in the page cache. */
static bool resident(const char *path, uint64_t off)
{
	unsigned char vec = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	assert_true(fd >= 0);
	p = mmap(NULL, BLK, PROT_READ, MAP_SHARED, fd, (off_t)down(off, BLK));
	assert_true(p != MAP_FAILED);
	assert_int_equal(mincore(p, BLK, &vec), 0);
	munmap(p, BLK);
	close(fd);
	return vec & 1;
}

static void evict(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fdatasync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
}

/* gf_io_poll alone must see every completion, also the ones the kernel
 * finishes later (O_DIRECT on a disk), in a loop that makes no other
 * system call. */
static void poll_all(struct gf_io *io, unsigned want)
{
	struct timespec t0, t1;
	unsigned done = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (done < want) {
		int n = gf_io_poll(io);

		assert_true(n >= 0);
		done += (unsigned)n;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 10) {
			print_message("gf_io_poll: %u of %u completions after 10 s\n", done, want);
			fail();
		}
	}
	assert_int_equal(done, want);
}

/* What each file system does with GF_FILE_DIRECT at open. */
static void direct_open(struct t_fs *fs)
{
	struct gf_io *io;

	t_make_file(fs, "d.bin", FSIZE, 1);
	T_FOR_EACH_BACKEND(fs, io, "O_DIRECT open", 0, 0, 0) {
		const struct gf_file_info *in;
		struct gf_file *f;
		int rc;

		t_log_start();
		assert_int_equal(gf_file_open(io, t_path(fs, "d.bin"), GF_FILE_DIRECT, 0, &f), 0);
		in = gf_file_info(f);
		assert_int_equal(in->size, FSIZE);
		assert_false(in->block_device);
		if (fs->kind == T_RAMFS) {
			assert_false(in->direct);
			assert_int_equal(in->mem_align, 1);
			assert_int_equal(in->offset_align, 1);
			/* The fact, and a warning of subsystem io saying it. */
			assert_true(in->direct_refused);
			assert_string_equal(in->fs_type, "ramfs");
			{
				char want[PATH_MAX + 100];

				snprintf(want, sizeof(want), "io:warning: %s: O_DIRECT refused by ramfs; using the page cache\n",
					 t_path(fs, "d.bin"));
				assert_string_equal(t_log_text, want);
			}
			/* Filtered out below warnings: the fact stays. */
			gf_log_set_level(GF_LOG_IO, GF_LOG_ERROR);
			t_log_text[0] = '\0';
			assert_int_equal(gf_file_close(f), 0);
			assert_int_equal(gf_file_open(io, t_path(fs, "d.bin"), GF_FILE_DIRECT, 0, &f), 0);
			assert_true(gf_file_info(f)->direct_refused);
			assert_string_equal(t_log_text, "");
			gf_log_set_level(GF_LOG_IO, GF_LOG_WARN);
			/* Required: an error naming the file. */
			rc = gf_file_open(io, t_path(fs, "d.bin"), GF_FILE_DIRECT_REQUIRED, 0, &f);
			assert_int_equal(rc, -EINVAL);
			assert_null(f);
			assert_true(t_contains(gf_last_error(), t_path(fs, "d.bin")));
			assert_true(t_contains(gf_last_error(), "O_DIRECT"));
			/* A new file: created once, even with O_EXCL. */
			rc = gf_file_open(io, t_path(fs, "new.bin"), GF_FILE_WRITE | GF_FILE_CREATE |
					  GF_FILE_EXCL | GF_FILE_DIRECT, 0600, &f);
			if (rc)
				print_message("%s\n", gf_last_error());
			assert_int_equal(rc, 0);
			assert_false(gf_file_info(f)->direct);
			assert_int_equal(gf_io_write(io, f, "abc", 3, 0), 3);
			assert_int_equal(gf_file_close(f), 0);
			assert_int_equal(unlink(t_path(fs, "new.bin")), 0);
			/* Required on a new file: the error, and no file left. */
			rc = gf_file_open(io, t_path(fs, "new.bin"), GF_FILE_WRITE | GF_FILE_CREATE |
					  GF_FILE_EXCL | GF_FILE_DIRECT_REQUIRED, 0600, &f);
			assert_int_equal(rc, -EINVAL);
			assert_int_equal(access(t_path(fs, "new.bin"), F_OK), -1);
		} else {
			/* tmpfs takes O_DIRECT since Linux 6.6. */
			assert_true(in->direct);
			assert_false(in->direct_refused);
			assert_string_equal(in->fs_type, fs->kind == T_TMPFS ? "tmpfs" : in->fs_type);
			assert_string_equal(t_log_text, "");
			assert_true(pow2(in->mem_align));
			assert_true(pow2(in->offset_align));
			assert_true(in->offset_align <= 65536);
			if (fs->kind == T_DISK)
				assert_true(in->offset_align >= 512);
			assert_int_equal(fcntl(gf_file_fd(f), F_GETFL) & O_DIRECT, O_DIRECT);
			assert_int_equal(gf_file_close(f), 0);
			assert_int_equal(gf_file_open(io, t_path(fs, "d.bin"), GF_FILE_DIRECT_REQUIRED, 0, &f), 0);
			assert_true(gf_file_info(f)->direct);
			/* With O_EXCL on a new file. */
			assert_int_equal(gf_file_open(io, t_path(fs, "new.bin"), GF_FILE_WRITE | GF_FILE_CREATE |
						      GF_FILE_EXCL | GF_FILE_DIRECT, 0600, &f), 0);
			assert_true(gf_file_info(f)->direct);
			assert_int_equal(unlink(t_path(fs, "new.bin")), 0);
		}
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(direct_open);

/* Aligned reads (direct), the tail, unaligned reads (buffered twin). */
static void direct_reads(struct t_fs *fs)
{
	struct gf_io *io;

	t_make_file(fs, "d.bin", FSIZE, 2);
	T_FOR_EACH_BACKEND(fs, io, "O_DIRECT reads", 0, 0, 0) {
		const struct gf_file_info *in;
		struct gf_io_req req = { .op = GF_IO_READ };
		struct gf_io_req *p = &req;
		struct gf_file *f;
		struct gf_buf *b, *whole;
		uint64_t tail, ma, oa;
		size_t len;

		if (fs->kind == T_DISK)
			evict(t_path(fs, "d.bin"));
		assert_int_equal(gf_file_open(io, t_path(fs, "d.bin"), GF_FILE_DIRECT, 0, &f), 0);
		in = gf_file_info(f);
		ma = in->mem_align;
		oa = in->offset_align;
		b = aligned_buf(FSIZE + 2 * BLK, ma);

		/* Everything but the partial last block, in one aligned read. */
		memset(b->data, 0, b->size);
		assert_int_equal(gf_io_read(io, f, b->data, down(FSIZE, oa), 0), (ssize_t)down(FSIZE, oa));
		t_check(b->data, down(FSIZE, oa), 0, 2);
		if (in->direct && fs->kind == T_DISK)
			assert_false(resident(t_path(fs, "d.bin"), 0));	/* bypassed the cache */

		/* Aligned blocks in one batch, completed by polling only. */
		{
			struct gf_io_req r[5], *rp[5];

			if (fs->kind == T_DISK)
				evict(t_path(fs, "d.bin"));
			memset(b->data, 0, b->size);
			for (unsigned i = 0; i < 5; i++) {
				r[i] = (struct gf_io_req){ .op = GF_IO_READ, .file = f,
							   .buf = (char *)b->data + i * BLK, .len = BLK,
							   .off = (uint64_t)i * BLK };
				rp[i] = &r[i];
			}
			assert_int_equal(gf_io_submit(io, rp, 5), 5);
			poll_all(io, 5);
			for (unsigned i = 0; i < 5; i++)
				assert_int_equal(r[i].res, BLK);
			t_check(b->data, 5 * BLK, 0, 2);
		}

		/* The file's own alignment, finer than a page where it is. */
		assert_int_equal(gf_io_read(io, f, (char *)b->data + ma, oa, oa), (ssize_t)oa);
		t_check((char *)b->data + ma, oa, oa, 2);

		/* The tail: one aligned request that stops at EOF. */
		tail = down(FSIZE, oa);
		req = (struct gf_io_req){ .op = GF_IO_READ, .file = f, .buf = b->data,
					  .len = up(FSIZE, oa) - tail + oa, .off = tail };
		memset(b->data, 0, b->size);
		assert_int_equal(gf_io_submit(io, &p, 1), 1);
		assert_int_equal(gf_io_wait(io, 1, -1), 1);
		assert_int_equal(req.res, (ssize_t)(FSIZE - tail));
		assert_true(req.res < (ssize_t)req.len);
		assert_true(req.eof);
		t_check(b->data, FSIZE - tail, tail, 2);
		/* At EOF: nothing, eof. */
		req.off = up(FSIZE, oa);
		assert_int_equal(gf_io_submit(io, &p, 1), 1);
		assert_int_equal(gf_io_wait(io, 1, -1), 1);
		assert_int_equal(req.res, 0);
		assert_true(req.eof);

		/* Unaligned buffer, offset, length: through the page cache. */
		assert_int_equal(gf_io_read(io, f, (char *)b->data + 1, 1001, 3 * BLK + 3), 1001);
		t_check((char *)b->data + 1, 1001, 3 * BLK + 3, 2);
		if (fs->kind == T_DISK)
			assert_true(resident(t_path(fs, "d.bin"), 3 * BLK + 3));
		assert_int_equal(gf_io_read(io, f, b->data, oa + 1, 0), (ssize_t)oa + 1);	/* length */
		t_check(b->data, oa + 1, 0, 2);
		assert_int_equal(gf_io_read(io, f, b->data, oa, 1), (ssize_t)oa);	/* offset */
		t_check(b->data, oa, 1, 2);
		if (ma > 1) {
			assert_int_equal(gf_io_read(io, f, (char *)b->data + 1, oa, 0), (ssize_t)oa);	/* buffer */
			t_check((char *)b->data + 1, oa, 0, 2);
		}
		/* Unaligned across EOF. */
		assert_int_equal(gf_io_read(io, f, (char *)b->data + 3, 5000, FSIZE - 7), 7);
		t_check((char *)b->data + 3, 7, FSIZE - 7, 2);

		/* The whole file, direct, chunked: exact size. */
		assert_int_equal(gf_io_read_file(io, t_path(fs, "d.bin"), GF_FILE_DIRECT, -1, 8192, &whole,
						 &len), 0);
		assert_int_equal(len, FSIZE);
		assert_int_equal((uintptr_t)whole->data % ma, 0);
		t_check(whole->data, len, 0, 2);
		gf_buf_free(whole);
		gf_buf_free(b);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(direct_reads);

/* Aligned and unaligned writes on a direct file, completed by polling. */
static void direct_writes(struct t_fs *fs)
{
	enum { N = 16 };
	struct gf_io *io;

	T_FOR_EACH_BACKEND(fs, io, "O_DIRECT writes", 0, 0, 0) {
		struct gf_io_req req[N + 1], *p[N + 1];
		struct gf_file *f;
		struct gf_buf *b;
		uint64_t oa;

		assert_int_equal(gf_file_open(io, t_path(fs, "w.bin"), GF_FILE_WRITE | GF_FILE_CREATE |
					      GF_FILE_TRUNC | GF_FILE_DIRECT, 0, &f), 0);
		oa = gf_file_info(f)->offset_align;
		b = aligned_buf(N * BLK + BLK, gf_file_info(f)->mem_align);
		t_fill(b->data, N * BLK, 0, 3);
		/* N aligned blocks and one unaligned piece past them. */
		for (unsigned i = 0; i < N; i++) {
			req[i] = (struct gf_io_req){ .op = GF_IO_WRITE, .file = f,
						     .buf = (char *)b->data + i * BLK, .len = BLK,
						     .off = (uint64_t)i * BLK };
			p[i] = &req[i];
		}
		t_fill((char *)b->data + N * BLK + 1, 999, N * BLK, 3);
		req[N] = (struct gf_io_req){ .op = GF_IO_WRITE, .file = f, .buf = (char *)b->data + N * BLK + 1,
					     .len = 999, .off = N * BLK };
		p[N] = &req[N];
		assert_int_equal(gf_io_submit(io, p, N + 1), N + 1);
		poll_all(io, N + 1);
		for (unsigned i = 0; i <= N; i++)
			assert_int_equal(req[i].res, (ssize_t)req[i].len);
		/* An odd-sized rewrite of the middle, aligned on the left. */
		assert_int_equal(gf_io_write(io, f, (char *)b->data + oa, oa + 5, oa), (ssize_t)oa + 5);
		assert_int_equal(gf_file_close(f), 0);
		t_check_file(t_path(fs, "w.bin"), N * BLK + 999, 3);
		gf_buf_free(b);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(direct_writes);

/* A file system that takes O_DIRECT at open and refuses it at I/O time
 * (EINVAL, injected here): the engine goes through the page cache, for
 * every request in flight, unless O_DIRECT was required. */
static void refused_later(struct t_fs *fs)
{
	enum { N = 4 };
	struct gf_io *io;

	t_make_file(fs, "d.bin", N * BLK, 4);
	T_FOR_EACH_BACKEND(fs, io, "O_DIRECT refused at I/O time", 0, 0, 0) {
		struct gf_io_fault einval = { .op = GF_IO_READ, .err = -EINVAL, .cut = -1 };
		struct gf_io_req req[N], *p[N];
		struct gf_file *f;
		struct gf_buf *b;

		gf_io_fault_clear();
		t_log_start();
		assert_int_equal(gf_file_open(io, t_path(fs, "d.bin"), GF_FILE_DIRECT, 0, &f), 0);
		if (!gf_file_info(f)->direct) {
			assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
			continue;	/* ramfs: never direct */
		}
		b = aligned_buf(N * BLK, gf_file_info(f)->mem_align);
		/* The first issue of each request, whatever the order. */
		einval.count = 1;
		einval.len = 1;
		for (unsigned i = 0; i < N; i++) {
			einval.off = (uint64_t)i * BLK;
			assert_int_equal(gf_io_fault_add(&einval), 0);
		}
		for (unsigned i = 0; i < N; i++) {
			req[i] = (struct gf_io_req){ .op = GF_IO_READ, .file = f, .buf = (char *)b->data + i * BLK,
						     .len = BLK, .off = (uint64_t)i * BLK };
			p[i] = &req[i];
		}
		/* All in flight before the first refusal comes back. */
		assert_int_equal(gf_io_submit(io, p, N), N);
		assert_int_equal(gf_io_wait(io, N, -1), N);
		for (unsigned i = 0; i < N; i++)
			assert_int_equal(req[i].res, BLK);
		t_check(b->data, N * BLK, 0, 4);
		assert_int_equal(gf_io_fault_fired(), N);
		assert_false(gf_file_info(f)->direct);
		assert_true(gf_file_info(f)->direct_refused);
		/* Said once, by the first refusal. */
		assert_true(t_contains(t_log_text, "O_DIRECT I/O refused (EINVAL) on "));
		assert_null(strstr(strstr(t_log_text, "refused") + 1, "refused"));
		assert_int_equal(gf_file_info(f)->offset_align, 1);
		/* Still reads and writes, now buffered. */
		gf_io_fault_clear();
		assert_int_equal(gf_io_read(io, f, (char *)b->data + 1, 100, 5), 100);
		t_check((char *)b->data + 1, 100, 5, 4);
		assert_int_equal(gf_file_close(f), 0);

		/* Required: the refusal is the result. */
		assert_int_equal(gf_file_open(io, t_path(fs, "d.bin"), GF_FILE_DIRECT_REQUIRED, 0, &f), 0);
		einval.off = 0;
		assert_int_equal(gf_io_fault_add(&einval), 0);
		assert_int_equal(gf_io_read(io, f, b->data, BLK, 0), -EINVAL);
		assert_true(t_contains(gf_last_error(), "d.bin"));
		assert_true(gf_file_info(f)->direct);
		assert_int_equal(gf_io_read(io, f, b->data, BLK, 0), BLK);
		gf_io_fault_clear();
		gf_buf_free(b);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(refused_later);

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_FS_CASES(direct_open),
		T_FS_CASES(direct_reads),
		T_FS_CASES(direct_writes),
		T_FS_CASES(refused_later),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
