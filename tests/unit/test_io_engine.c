/* I/O engine: whole files, lists of ranges, synchronous and asynchronous
 * reads and writes (submit / poll / wait, callbacks in the caller's
 * thread), request validation; both back ends, on disk, tmpfs and ramfs. */
#include "test_io_util.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#define MiB (1u << 20)

static void whole_file(struct t_fs *fs)
{
	const size_t size = 3 * MiB + 123;
	const size_t chunks[] = { 0, 64 * 1024 + 1, 4 * MiB };
	struct gf_io *io;

	t_make_file(fs, "whole.bin", size, 1);
	t_make_file(fs, "empty.bin", 0, 1);
	T_FOR_EACH_BACKEND(fs, io, "whole file", 0, 0, 0) {
		for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
			struct gf_buf *b = NULL;
			size_t len = 0;

			assert_int_equal(gf_io_read_file(io, t_path(fs, "whole.bin"), 0, i == 1 ? 0 : -1,
							 chunks[i], &b, &len), 0);
			assert_int_equal(len, size);
			assert_true(b->size >= size);
			t_check(b->data, len, 0, 1);
			gf_buf_free(b);
		}
		{
			struct gf_buf *b = NULL;
			size_t len = 7;

			assert_int_equal(gf_io_read_file(io, t_path(fs, "empty.bin"), 0, -1, 0, &b, &len), 0);
			assert_int_equal(len, 0);
			gf_buf_free(b);
			assert_int_equal(gf_io_read_file(io, t_path(fs, "missing.bin"), 0, -1, 0, &b, &len), -ENOENT);
			assert_null(b);
			assert_true(t_contains(gf_last_error(), "missing.bin"));
		}
		assert_int_equal(gf_io_inflight(io), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(whole_file);

/* Synchronous writes and reads through gf_io_write / gf_io_read. */
static void sync_rw(struct t_fs *fs)
{
	const size_t size = 4 * MiB + 5;
	uint8_t *src = malloc(size), *dst = malloc(size);
	struct gf_io *io;

	assert_non_null(src);
	assert_non_null(dst);
	t_fill(src, size, 0, 2);
	T_FOR_EACH_BACKEND(fs, io, "sync read/write", 0, 0, 0) {
		struct gf_file *f;

		assert_int_equal(gf_file_open(io, t_path(fs, "rw.bin"), GF_FILE_WRITE | GF_FILE_CREATE |
					      GF_FILE_TRUNC, 0600, &f), 0);
		assert_int_equal(gf_file_info(f)->size, 0);
		assert_false(gf_file_info(f)->direct);
		/* One large write, then a small one that overwrites the middle. */
		assert_int_equal(gf_io_write(io, f, src, size, 0), (ssize_t)size);
		assert_int_equal(gf_io_write(io, f, src + 4096, 100, 4096), 100);
		t_check_file(t_path(fs, "rw.bin"), size, 2);

		memset(dst, 0, size);
		assert_int_equal(gf_io_read(io, f, dst, size, 0), (ssize_t)size);
		t_check(dst, size, 0, 2);
		/* Odd offsets and lengths; a read that runs past EOF is short. */
		assert_int_equal(gf_io_read(io, f, dst + 1, 333, 77777), 333);
		t_check(dst + 1, 333, 77777, 2);
		assert_int_equal(gf_io_read(io, f, dst, 1000, size - 10), 10);
		t_check(dst, 10, size - 10, 2);
		assert_int_equal(gf_io_read(io, f, dst, 1000, size + 4096), 0);
		assert_int_equal(gf_io_read(io, f, dst, 0, 0), 0);
		assert_int_equal(gf_file_close(f), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	/* The mode asked for at creation. */
	{
		struct stat st;
		assert_int_equal(stat(t_path(fs, "rw.bin"), &st), 0);
		assert_int_equal(st.st_mode & 0777, 0600);
	}
	free(src);
	free(dst);
}
T_FS_TESTS(sync_rw);

/* Lists of ranges: more than the queue holds, overlapping, empty, past
 * and across end of file. */
static void ranges(struct t_fs *fs)
{
	const size_t size = 2 * MiB + 4097;
	enum { N = 100 };
	struct gf_io_range r[N];
	uint8_t *mem = malloc(N * 65536);
	struct gf_io *io;

	assert_non_null(mem);
	t_make_file(fs, "ranges.bin", size, 3);
	T_FOR_EACH_BACKEND(fs, io, "ranges", 8, 3, 0) {
		struct gf_file *f;

		assert_int_equal(gf_file_open(io, t_path(fs, "ranges.bin"), GF_FILE_READ, 0, &f), 0);
		assert_int_equal(gf_file_info(f)->size, size);
		for (unsigned i = 0; i < N; i++) {
			r[i].off = ((uint64_t)i * 2654435761u) % size;
			r[i].len = 1 + (i * 7919u) % 65535;
			r[i].buf = mem + (size_t)i * 65536;
			r[i].res = -12345;
		}
		r[5].len = 0;
		r[6].off = size;		/* at EOF */
		r[7].off = size + MiB;		/* past EOF */
		r[8].off = size - 100;		/* across EOF */
		r[8].len = 5000;
		r[9].off = r[10].off = 4096;	/* overlapping */
		memset(mem, 0, N * 65536);
		assert_int_equal(gf_io_read_ranges(io, f, r, N), 0);
		for (unsigned i = 0; i < N; i++) {
			size_t want = r[i].off >= size ? 0
				    : (r[i].off + r[i].len > size ? size - r[i].off : r[i].len);
			assert_int_equal(r[i].res, (ssize_t)want);
			t_check(r[i].buf, want, r[i].off, 3);
		}
		assert_int_equal(r[8].res, 100);
		/* An empty list. */
		assert_int_equal(gf_io_read_ranges(io, f, r, 0), 0);
		/* A bad range: an error, and every range has its result. */
		r[3].buf = NULL;
		r[3].len = 10;
		assert_int_equal(gf_io_read_ranges(io, f, r, 10), -EINVAL);
		assert_int_equal(r[3].res, -EINVAL);
		assert_int_equal(r[0].res, (ssize_t)r[0].len);
		assert_int_equal(gf_io_inflight(io), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(mem);
}
T_FS_TESTS(ranges);

/* ---- asynchronous ---- */

struct cb_log {
	pthread_t thread;
	unsigned calls;
	unsigned wrong_thread;
};

static void count_cb(struct gf_io_req *req)
{
	struct cb_log *log = req->user;

	log->calls++;
	if (!pthread_equal(pthread_self(), log->thread))
		log->wrong_thread++;
}

static void poll_until(struct gf_io *io, unsigned *count, unsigned want)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (*count < want) {
		int n = gf_io_poll(io);

		assert_true(n >= 0);
		if (n == 0)
			sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 20) {
			print_message("gf_io_poll: %u of %u completions after 20 s\n", *count, want);
			fail();
		}
	}
}

static void async_rw(struct t_fs *fs)
{
	enum { N = 32, LEN = 64 * 1024 + 3 };
	static struct gf_io_req req[N];
	struct gf_io_req *p[N];
	uint8_t *mem = malloc((size_t)N * LEN);
	struct gf_io *io;

	assert_non_null(mem);
	T_FOR_EACH_BACKEND(fs, io, "async", 0, 0, 0) {
		struct cb_log log = { .thread = pthread_self() };
		struct gf_io_req sync = { .op = GF_IO_FSYNC, .cb = count_cb, .user = &log };
		struct gf_io_req *sp = &sync;
		struct gf_file *f;

		assert_int_equal(gf_file_open(io, t_path(fs, "async.bin"), GF_FILE_WRITE | GF_FILE_CREATE |
					      GF_FILE_TRUNC, 0, &f), 0);
		/* Writes with callbacks, completed by gf_io_poll only. */
		t_fill(mem, (size_t)N * LEN, 0, 4);
		for (unsigned i = 0; i < N; i++) {
			memset(&req[i], 0, sizeof(req[i]));
			req[i] = (struct gf_io_req){ .op = GF_IO_WRITE, .file = f, .buf = mem + (size_t)i * LEN,
						     .len = LEN, .off = (uint64_t)i * LEN, .cb = count_cb,
						     .user = &log };
			p[i] = &req[i];
		}
		assert_int_equal(gf_io_submit(io, p, N), N);
		assert_int_equal(gf_io_inflight(io), N);
		/* No callback before the caller asks. */
		assert_int_equal(log.calls, 0);
		poll_until(io, &log.calls, N);
		assert_int_equal(log.calls, N);
		assert_int_equal(log.wrong_thread, 0);
		for (unsigned i = 0; i < N; i++) {
			assert_true(req[i].done);
			assert_int_equal(req[i].res, LEN);
			assert_false(req[i].eof);
		}
		assert_int_equal(gf_io_inflight(io), 0);
		/* fdatasync as a request. */
		sync.file = f;
		assert_int_equal(gf_io_submit(io, &sp, 1), 1);
		assert_true(gf_io_wait(io, 1, -1) >= 1);
		assert_true(sync.done);
		assert_int_equal(sync.res, 0);
		assert_int_equal(log.calls, N + 1);
		t_check_file(t_path(fs, "async.bin"), (size_t)N * LEN, 4);

		/* Reads without callbacks, in reverse, completed by gf_io_wait;
		 * the last one runs past EOF. */
		memset(mem, 0, (size_t)N * LEN);
		for (unsigned i = 0; i < N; i++) {
			unsigned j = N - 1 - i;
			req[i] = (struct gf_io_req){ .op = GF_IO_READ, .file = f, .buf = mem + (size_t)j * LEN,
						     .len = LEN, .off = (uint64_t)j * LEN };
			p[i] = &req[i];
		}
		req[0].len = LEN + 4096;
		req[0].buf = malloc(LEN + 4096);
		assert_non_null(req[0].buf);
		assert_int_equal(gf_io_submit(io, p, N), N);
		assert_int_equal(gf_io_wait(io, N, 10000), N);
		assert_int_equal(gf_io_inflight(io), 0);
		for (unsigned i = 1; i < N; i++) {
			assert_true(req[i].done);
			assert_int_equal(req[i].res, LEN);
			assert_false(req[i].eof);
		}
		assert_int_equal(req[0].res, LEN);
		assert_true(req[0].eof);
		memcpy(mem + (size_t)(N - 1) * LEN, req[0].buf, LEN);
		free(req[0].buf);
		t_check(mem, (size_t)N * LEN, 0, 4);
		assert_true(req[1].submit_ns > 0);
		/* Nothing in flight: wait and poll return at once. */
		assert_int_equal(gf_io_wait(io, 1, -1), 0);
		assert_int_equal(gf_io_wait(io, 1, 0), 0);
		assert_int_equal(gf_io_poll(io), 0);
		assert_int_equal(log.calls, N + 1);

		assert_int_equal(gf_file_close(f), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(mem);
}
T_FS_TESTS(async_rw);

/* A callback that submits the next request: the chain runs to its end
 * from gf_io_wait, always in the caller's thread. */
struct chain {
	struct gf_io *io;
	struct gf_io_req req;
	uint8_t *mem;
	unsigned left, calls;
	pthread_t thread;
	bool wrong_thread;
	uint64_t size;
};

static void chain_cb(struct gf_io_req *req)
{
	struct chain *c = req->user;
	struct gf_io_req *p = req;

	c->calls++;
	if (!pthread_equal(pthread_self(), c->thread))
		c->wrong_thread = true;
	if (req->res != 4096 || !--c->left)
		return;
	req->off += 4096;
	req->buf = c->mem + req->off;
	if (gf_io_submit(c->io, &p, 1) != 1)
		c->left = 0;
}

static void chained(struct t_fs *fs)
{
	const unsigned n = 64;
	struct gf_io *io;

	t_make_file(fs, "chain.bin", n * 4096, 5);
	T_FOR_EACH_BACKEND(fs, io, "chained callbacks", 4, 2, 0) {
		struct chain c = { .io = io, .left = n, .thread = pthread_self() };
		struct gf_io_req *p = &c.req;
		struct gf_file *f;

		c.mem = calloc(n, 4096);
		assert_non_null(c.mem);
		assert_int_equal(gf_file_open(io, t_path(fs, "chain.bin"), GF_FILE_READ, 0, &f), 0);
		c.req = (struct gf_io_req){ .op = GF_IO_READ, .file = f, .buf = c.mem, .len = 4096,
					    .cb = chain_cb, .user = &c };
		assert_int_equal(gf_io_submit(io, &p, 1), 1);
		while (gf_io_inflight(io))
			assert_true(gf_io_wait(io, 1, -1) >= 0);
		assert_int_equal(c.calls, n);
		assert_false(c.wrong_thread);
		t_check(c.mem, n * 4096, 0, 5);
		free(c.mem);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(chained);

/* Bad requests are refused with a message; files of other engines,
 * read-only files, requests already in flight. */
static void validation(struct t_fs *fs)
{
	struct gf_io *io, *other;
	uint8_t buf[4096];

	t_make_file(fs, "v.bin", 8192, 6);
	T_FOR_EACH_BACKEND(fs, io, "validation", 0, 0, 0) {
		struct gf_file *f, *g, *rw;
		struct gf_io_req req = { .op = GF_IO_WRITE, .buf = buf, .len = 10 };
		struct gf_io_req *p = &req;
		int fd;

		assert_int_equal(gf_file_open(io, t_path(fs, "v.bin"), GF_FILE_READ, 0, &f), 0);
		req.file = f;
		assert_int_equal(gf_io_submit(io, &p, 1), -EBADF);
		assert_true(t_contains(gf_last_error(), "read-only"));
		assert_int_equal(gf_io_write(io, f, buf, 10, 0), -EBADF);
		req.op = 7;
		assert_int_equal(gf_io_submit(io, &p, 1), -EINVAL);
		req.op = GF_IO_READ;
		req.buf = NULL;
		assert_int_equal(gf_io_submit(io, &p, 1), -EINVAL);
		req.file = NULL;
		req.buf = buf;
		assert_int_equal(gf_io_submit(io, &p, 1), -EINVAL);
		assert_int_equal(gf_io_submit(io, &p, 0), 0);
		assert_int_equal(gf_io_inflight(io), 0);

		/* A file of another engine. */
		other = t_io_open(GF_IO_PSYNC, 0, 1, 0);
		assert_int_equal(gf_file_open(other, t_path(fs, "v.bin"), GF_FILE_READ, 0, &g), 0);
		req.file = g;
		assert_int_equal(gf_io_submit(io, &p, 1), -EINVAL);
		assert_true(t_contains(gf_last_error(), "another engine"));
		assert_int_equal(gf_io_close(other, GF_IO_DRAIN), 0);	/* closes g */

		/* In flight: not again, and its file stays open. */
		req.file = f;
		assert_int_equal(gf_io_submit(io, &p, 1), 1);
		assert_int_equal(gf_io_submit(io, &p, 1), -EBUSY);
		assert_int_equal(gf_file_close(f), -EBUSY);
		assert_int_equal(gf_io_wait(io, 1, -1), 1);
		assert_int_equal(req.res, 10);
		t_check(buf, 10, 0, 6);
		/* Done: it may go again. */
		assert_int_equal(gf_io_submit(io, &p, 1), 1);
		assert_int_equal(gf_io_wait(io, 1, -1), 1);
		assert_int_equal(gf_file_close(f), 0);

		/* A descriptor the caller keeps owning. */
		fd = open(t_path(fs, "v.bin"), O_RDWR | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(gf_file_from_fd(io, fd, GF_FILE_WRITE, &rw), 0);
		assert_int_equal(gf_file_fd(rw), fd);
		assert_int_equal(gf_file_info(rw)->size, 8192);
		assert_int_equal(gf_io_read(io, rw, buf, 4096, 4096), 4096);
		t_check(buf, 4096, 4096, 6);
		assert_int_equal(gf_file_close(rw), 0);
		assert_int_equal(fcntl(fd, F_GETFD), FD_CLOEXEC);	/* still open */
		/* gf_io_close closes what is left, but never the caller's fd. */
		assert_int_equal(gf_file_from_fd(io, fd, GF_FILE_READ, &rw), 0);
		assert_int_equal(gf_file_open(io, t_path(fs, "v.bin"), GF_FILE_READ, 0, &f), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
		assert_int_equal(fcntl(fd, F_GETFD), FD_CLOEXEC);
		close(fd);
	}
	/* Not a regular file. */
	{
		struct gf_file *f;

		io = t_io_open(GF_IO_PSYNC, 0, 0, 0);
		assert_int_equal(gf_file_open(io, fs->base, GF_FILE_READ, 0, &f), -EINVAL);
		assert_null(f);
		assert_true(t_contains(gf_last_error(), "not a regular file"));
		assert_int_equal(gf_file_open(io, "", GF_FILE_READ, 0, &f), -EINVAL);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(validation);

/* gf_io_wait with a zero timeout takes what is ready, like a poll. */
static void wait_zero_timeout(struct t_fs *fs)
{
	struct gf_io *io;
	uint8_t buf[4096];

	t_make_file(fs, "z.bin", 4096, 7);
	T_FOR_EACH_BACKEND(fs, io, "wait, zero timeout", 0, 0, 0) {
		struct gf_io_req req = { .op = GF_IO_READ, .buf = buf, .len = 4096 };
		struct gf_io_req *p = &req;
		int rc = -ETIME;

		assert_int_equal(gf_file_open(io, t_path(fs, "z.bin"), GF_FILE_READ, 0, &req.file), 0);
		assert_int_equal(gf_io_submit(io, &p, 1), 1);
		/* Done by now or soon; a zero timeout never blocks. */
		for (int i = 0; i < 200 && rc == -ETIME; i++) {
			rc = gf_io_wait(io, 1, 0);
			if (rc == -ETIME)
				usleep(10000);
		}
		assert_int_equal(rc, 1);
		assert_int_equal(req.res, 4096);
		t_check(buf, 4096, 0, 7);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(wait_zero_timeout);

/* More files than io_uring has registered slots for: the rest use plain
 * descriptors; closing one frees its slot. */
static void many_files(struct t_fs *fs)
{
	enum { N = 70 };
	struct gf_io *io;
	uint8_t buf[64];

	t_make_file(fs, "m.bin", 64, 8);
	T_FOR_EACH_BACKEND(fs, io, "many files", 0, 0, 0) {
		struct gf_file *f[N];

		for (unsigned i = 0; i < N; i++)
			assert_int_equal(gf_file_open(io, t_path(fs, "m.bin"), GF_FILE_READ, 0, &f[i]), 0);
		for (unsigned i = 0; i < N; i += 7) {
			memset(buf, 0, sizeof(buf));
			assert_int_equal(gf_io_read(io, f[i], buf, 64, 0), 64);
			t_check(buf, 64, 0, 8);
		}
		for (unsigned i = 0; i < N; i += 2)
			assert_int_equal(gf_file_close(f[i]), 0);
		for (unsigned i = 0; i < N; i += 2)
			assert_int_equal(gf_file_open(io, t_path(fs, "m.bin"), GF_FILE_READ, 0, &f[i]), 0);
		for (unsigned i = 0; i < N; i++)
			assert_int_equal(gf_io_read(io, f[i], buf, 64, 0), 64);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);	/* closes them all */
	}
}
T_FS_TESTS(many_files);

static void names_and_options(void **state)
{
	struct gf_io_opts o = { .struct_size = sizeof(struct gf_io_opts), .queue_depth = 70000 };
	struct gf_io *io = (struct gf_io *)&o;

	(void)state;
	assert_string_equal(gf_io_backend_name(GF_IO_AUTO), "auto");
	assert_string_equal(gf_io_backend_name(GF_IO_URING), "uring");
	assert_string_equal(gf_io_backend_name(GF_IO_PSYNC), "psync");
	assert_int_equal(gf_io_open(&o, &io), -EINVAL);
	assert_null(io);
	assert_int_equal(gf_io_close(NULL, GF_IO_DRAIN), 0);
	/* Defaults: io_uring where allowed, else psync saying why. */
	t_log_start();
	assert_int_equal(gf_io_open(NULL, &io), 0);
	if (gf_io_backend_of(io) == GF_IO_URING) {
		assert_int_equal(gf_io_fallback_error(io), 0);
		assert_string_equal(t_log_text, "");
	} else {
		assert_true(gf_io_fallback_error(io) < 0);
		assert_true(t_contains(t_log_text, "io_uring"));
	}
	assert_int_equal(gf_io_close(io, GF_IO_CANCEL), 0);
	/* The deepest queue the API takes: AUTO keeps io_uring (which takes
	 * at most 32768 submission entries itself). */
	o = (struct gf_io_opts){ .struct_size = sizeof(struct gf_io_opts),
		.backend = GF_IO_AUTO, .queue_depth = 65536, .cpu_node = -1, .sqpoll_cpu = -1 };
	assert_int_equal(gf_io_open(&o, &io), 0);
	if (gf_io_backend_of(io) == GF_IO_URING)
		assert_int_equal(gf_io_fallback_error(io), 0);
	assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	/* A queue of one on psync runs in the caller's thread. */
	o = (struct gf_io_opts){ .struct_size = sizeof(struct gf_io_opts),
		.backend = GF_IO_PSYNC, .queue_depth = 1, .cpu_node = -1 };
	assert_int_equal(gf_io_open(&o, &io), 0);
	assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
}

/* Less common options: io_uring with a kernel submission thread and
 * without registered files; psync workers bound to node 0's CPUs. */
static void options(struct t_fs *fs)
{
	const struct gf_io_opts opts[] = {
		{ .struct_size = sizeof(struct gf_io_opts),
			.backend = GF_IO_URING, .flags = GF_IO_SQPOLL, .sqpoll_idle_ms = 10, .sqpoll_cpu = -1, .cpu_node = -1 },
		{ .struct_size = sizeof(struct gf_io_opts),
			.backend = GF_IO_URING, .flags = GF_IO_SQPOLL | GF_IO_SQPOLL_CPU, .sqpoll_idle_ms = 10, .sqpoll_cpu = 0, .cpu_node = -1 },
		{ .struct_size = sizeof(struct gf_io_opts),
			.backend = GF_IO_URING, .flags = GF_IO_NO_REGISTER, .sqpoll_cpu = -1, .cpu_node = -1 },
		{ .struct_size = sizeof(struct gf_io_opts),
			.backend = GF_IO_PSYNC, .flags = GF_IO_WORKER_NODE, .threads = 3, .sqpoll_cpu = -1, .cpu_node = 0 },
	};
	const size_t size = MiB + 3;

	t_make_file(fs, "o.bin", size, 10);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		struct gf_io *io;
		struct gf_buf *b;
		size_t len;
		int rc = gf_io_open(&opts[i], &io);

		t_case(fs, opts[i].backend, "options");
		if (opts[i].backend == GF_IO_URING && (rc == -EPERM || rc == -ENOSYS))
			continue;
		assert_int_equal(rc, 0);
		assert_int_equal(gf_io_read_file(io, t_path(fs, "o.bin"), 0, -1, 65536, &b, &len), 0);
		assert_int_equal(len, size);
		t_check(b->data, len, 0, 10);
		gf_buf_free(b);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(options);

/* A psync worker that cannot run where it was asked to cannot return an
 * error to anyone: it becomes the engine's asynchronous error (and a
 * warning on the channel, from the worker's thread); the engine works. */
static void worker_errors(void **state)
{
	char *dir = t_mkdtemp(), path[PATH_MAX];
	const int nodes[] = { 0, 4095 };

	(void)state;
	snprintf(path, sizeof(path), "%s/w.bin", dir);
	t_write(dir, "w.bin", "worker data");
	for (size_t i = 0; i < 2; i++) {
		struct gf_io_opts o = GF_IO_OPTS_INIT;
		struct gf_io *io;
		struct gf_buf *b;
		size_t len;

		o.backend = GF_IO_PSYNC;
		o.threads = 3;
		o.flags = GF_IO_WORKER_NODE;
		o.cpu_node = nodes[i];
		t_log_start();
		assert_int_equal(gf_io_open(&o, &io), 0);
		if (nodes[i] == 0) {
			assert_int_equal(gf_io_async_error(io), 0);
			assert_string_equal(t_log_text, "");
		} else {
			assert_int_equal(gf_io_async_error(io), -ENOENT);
			assert_true(t_contains(gf_last_error(), "NUMA node 4095"));
			assert_true(t_contains(t_log_text, "io:warning: psync worker"));
			assert_true(t_contains(t_log_text, "NUMA node 4095"));
			/* The first one stays. */
			assert_int_equal(gf_io_async_error(io), -ENOENT);
		}
		assert_int_equal(gf_io_read_file(io, path, 0, -1, 0, &b, &len), 0);
		assert_int_equal(len, 11);
		gf_buf_free(b);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	t_rmtree(dir);
	free(dir);
}

/* More requests in one batch than io_uring has submission entries. */
static void deep_queue(struct t_fs *fs)
{
	enum { N = 33000 };
	struct gf_io_req *req = calloc(N, sizeof(*req));
	struct gf_io_req **p = calloc(N, sizeof(*p));
	uint8_t *mem = malloc(N * 4);
	struct gf_io *io;

	assert_non_null(req);
	assert_non_null(p);
	assert_non_null(mem);
	t_make_file(fs, "deep.bin", 65536, 9);
	T_FOR_EACH_BACKEND(fs, io, "deep queue", 65536, 2, 0) {
		struct gf_file *f;

		assert_int_equal(gf_file_open(io, t_path(fs, "deep.bin"), GF_FILE_READ, 0, &f), 0);
		memset(mem, 0, N * 4);
		for (unsigned i = 0; i < N; i++) {
			req[i] = (struct gf_io_req){ .op = GF_IO_READ, .file = f, .buf = mem + i * 4, .len = 4,
						     .off = (i * 4u) % 65536 };
			p[i] = &req[i];
		}
		assert_int_equal(gf_io_submit(io, p, N), N);
		assert_int_equal(gf_io_inflight(io), N);
		assert_int_equal(gf_io_wait(io, N, -1), N);
		for (unsigned i = 0; i < N; i++) {
			assert_int_equal(req[i].res, 4);
			t_check(mem + i * 4, 4, req[i].off, 9);
		}
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(req);
	free(p);
	free(mem);
}
T_FS_TESTS(deep_queue);

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_and_options),
		T_FS_CASES(whole_file),
		T_FS_CASES(sync_rw),
		T_FS_CASES(ranges),
		T_FS_CASES(async_rw),
		T_FS_CASES(chained),
		T_FS_CASES(validation),
		T_FS_CASES(wait_zero_timeout),
		T_FS_CASES(many_files),
		T_FS_CASES(options),
		cmocka_unit_test(worker_errors),
		T_FS_CASES(deep_queue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
