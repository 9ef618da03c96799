/* Storage to GPU memory (src/xfer/) through the stand-in libcuda (device
 * memory is host memory behind made-up addresses: copying it back with
 * DtoH shows what arrived) and the stand-in libcufile (compatibility mode:
 * pread plus the stand-in's HtoD copy).  Each path, each depth, sizes and
 * offsets that are not multiples of the chunk or of 4096, and failures in
 * the middle of the pipeline, after which nothing may stay allocated. */
#include "helpers.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include <gpufeed/io.h>
#include <gpufeed/topo.h>
#include <gpufeed/xfer.h>
#include "io/fault.h"
#include "vendor/cuda/cuda.h"
#include "vendor/cufile/cufile.h"

#define CHUNK (64u << 10)

static char *dir;
static char file[600];
static unsigned char *pattern;
static size_t file_len;

/* The stand-ins, no scenario left over, no planted I/O fault. */
static void env_fakes(void)
{
	t_use_fakes();
	gf_io_fault_clear();
}

/* A file of len bytes of a pattern no shift of itself matches. */
static void make_file(size_t len)
{
	int fd;

	free(pattern);
	pattern = malloc(len ? len : 1);
	assert_non_null(pattern);
	for (size_t i = 0; i < len; i++)
		pattern[i] = (unsigned char)((i * 2654435761u) >> 11 ^ i >> 16);
	snprintf(file, sizeof(file), "%s/data.bin", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, pattern, len), (ssize_t)len);
	close(fd);
	file_len = len;
}

static int setup(void **state)
{
	(void)state;
	env_fakes();
	dir = t_mkdtemp();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t_rmtree(dir);
	free(dir);
	free(pattern);
	pattern = NULL;
	gf_io_fault_clear();
	return 0;
}

struct hook_log {
	unsigned calls, fail_at;
	uint64_t next_off;	/* chunks come in file order, back to back */
	bool in_order;
	struct gf_xfer *x;	/* set: each chunk must be in GPU memory... */
	bool landed;		/* ...when its hook runs (gds) */
};

static int hook(void *user, void *stream, uint64_t dev, size_t len, uint64_t file_off)
{
	struct hook_log *l = user;

	if (!stream || file_off != l->next_off)
		l->in_order = false;
	if (l->x) {
		unsigned char *b = malloc(len);

		if (!b || gf_xfer_dtoh(l->x, b, dev, len) || memcmp(b, pattern + file_off, len))
			l->landed = false;
		free(b);
	}
	l->next_off = file_off + len;
	if (++l->calls == l->fail_at)
		return -ECANCELED;
	return 0;
}

/* Moves [off, off + len) by path/depth and checks every byte on the GPU. */
static void move_and_check(enum gf_xfer_path path, unsigned depth, size_t chunk, uint64_t off, size_t len)
{
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct hook_log log = { .next_off = off, .in_order = true };
	struct gf_xfer_stats st;
	struct gf_xfer *x;
	unsigned char *back = malloc(len + 64);
	uint64_t dev;

	o.path = path;
	o.depth = depth;
	o.chunk = chunk;
	o.reads = 3;
	o.on_chunk = hook;
	o.user = &log;
	assert_non_null(back);
	assert_int_equal(gf_xfer_open(&o, &x), 0);
	/* 64 bytes more, to see that nothing lands past the range. */
	assert_int_equal(gf_xfer_dev_alloc(x, len + 64, &dev), 0);
	memset(back, 0xa5, len + 64);
	assert_int_equal(gf_xfer_dtoh(x, back, dev, len + 64), 0);	/* calloc'd: zeros */
	assert_int_equal(gf_xfer_read(x, file, off, len, dev, &st), 0);
	assert_int_equal(gf_xfer_dtoh(x, back, dev, len + 64), 0);
	assert_memory_equal(back, pattern + off, len);
	for (size_t i = len; i < len + 64; i++)
		assert_int_equal(back[i], 0);
	assert_int_equal(st.bytes, len);
	assert_int_equal(st.path, path);
	assert_int_equal(st.chunks, log.calls);
	assert_true(log.in_order);
	assert_int_equal(log.next_off, off + len);
	assert_true(st.wall_s >= 0 && st.cpu_user_s >= 0 && st.cpu_sys_s >= 0);
	if (path == GF_XFER_GDS) {
		assert_true(st.compat_mode);
		assert_string_equal(st.api, "cuFileBatchIO");
	}
	assert_int_equal(gf_xfer_dev_free(x, dev), 0);
	gf_xfer_close(x);
	assert_int_equal(t_fake_cuda_live(), 0);
	free(back);
}

static void each_path_each_depth(void **state)
{
	/* 5 chunks and a tail of 4096 + 1000 bytes: neither a multiple of the
	 * chunk nor of the block. */
	size_t len = 5 * CHUNK + 5096;

	(void)state;
	make_file(len);
	for (unsigned p = 0; p < GF_XFER_PATHS; p++)
		for (unsigned d = 1; d <= GF_XFER_DEPTH_MAX; d++)
			move_and_check((enum gf_xfer_path)p, d, CHUNK, 0, len);
}

static void odd_ranges(void **state)
{
	static const struct { uint64_t off; size_t len; } r[] = {
		{ 0, 1 }, { 1, 4095 }, { 4095, 2 }, { 4096, CHUNK }, { 100, 3 * CHUNK + 17 },
		{ 5 * CHUNK + 5095, 1 }, { 7, 5 * CHUNK + 5089 },
	};

	(void)state;
	make_file(5 * CHUNK + 5096);
	for (unsigned p = 0; p < GF_XFER_PATHS; p++)
		for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
			move_and_check((enum gf_xfer_path)p, 2 + (unsigned)(i % 2), CHUNK, r[i].off, r[i].len);
}

static void gds_without_batch(void **state)
{
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct gf_xfer_stats st;
	struct gf_xfer *x;
	size_t len = 3 * CHUNK + 123;
	unsigned char *back = malloc(len);
	uint64_t dev;

	(void)state;
	make_file(len);
	setenv("FAKE_CUFILE_SCENARIO", "no_batch", 1);
	o.path = GF_XFER_GDS;
	o.chunk = CHUNK;
	assert_int_equal(gf_xfer_open(&o, &x), 0);
	assert_int_equal(gf_xfer_dev_alloc(x, len, &dev), 0);
	assert_int_equal(gf_xfer_read(x, file, 0, len, dev, &st), 0);
	assert_string_equal(st.api, "cuFileRead");
	assert_true(st.compat_mode);
	assert_int_equal(st.chunks, 4);
	assert_int_equal(gf_xfer_dtoh(x, back, dev, len), 0);
	assert_memory_equal(back, pattern, len);
	gf_xfer_dev_free(x, dev);
	gf_xfer_close(x);
	free(back);
}

/* Opens path p, runs a read that must fail with want, checks the message
 * names `names`, and that the transfer still works afterwards. */
static void fails(enum gf_xfer_path p, unsigned depth, int want, const char *names)
{
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct gf_xfer *x;
	uint64_t dev;
	int rc;

	o.path = p;
	o.depth = depth;
	o.chunk = CHUNK;
	assert_int_equal(gf_xfer_open(&o, &x), 0);
	assert_int_equal(gf_xfer_dev_alloc(x, file_len, &dev), 0);
	rc = gf_xfer_read(x, file, 0, file_len, dev, NULL);
	if (rc != want || !strstr(gf_last_error(), names))
		fail_msg("%s depth %u: %d '%s', wanted %d naming '%s'", gf_xfer_path_name(p), depth, rc,
			 gf_last_error(), want, names);
	gf_xfer_dev_free(x, dev);
	gf_xfer_close(x);
	assert_int_equal(t_fake_cuda_live(), 0);
}

static void read_errors_mid_pipeline(void **state)
{
	struct gf_io_fault eio = { .op = GF_IO_READ, .off = 3 * CHUNK, .len = CHUNK, .err = -EIO };

	(void)state;
	make_file(6 * CHUNK + 1);
	for (unsigned d = 1; d <= GF_XFER_DEPTH_MAX; d++) {
		assert_int_equal(gf_io_fault_add(&eio), 0);
		fails(GF_XFER_BOUNCE, d, -EIO, "data.bin: read of");
		gf_io_fault_clear();
	}
	setenv("FAKE_CUFILE_FAIL_READ", "3", 1);
	fails(GF_XFER_GDS, 2, -EIO, "data.bin: cuFile batch read");
	setenv("FAKE_CUFILE_SCENARIO", "no_batch", 1);
	setenv("FAKE_CUFILE_FAIL_READ", "3", 1);
	fails(GF_XFER_GDS, 2, -EIO, "data.bin: cuFileRead of");
}

/* The gds path with depth 1 x reads 4 = 4 chunks in flight: waves of 2 on
 * each of two batch handles (4 on one, when only one), each chunk to
 * hook(log), `bytes` of GPU memory at *dev; the stand-in libcufile's
 * FAKE_CUFILE_LOG in the test's directory. */
static struct gf_xfer *gds_in_waves(struct hook_log *log, size_t bytes, uint64_t *dev)
{
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct gf_xfer *x;
	char logf[700];

	snprintf(logf, sizeof(logf), "%s/cufile.log", dir);
	setenv("FAKE_CUFILE_LOG", logf, 1);
	o.path = GF_XFER_GDS;
	o.depth = 1;
	o.reads = 4;
	o.chunk = CHUNK;
	o.on_chunk = hook;
	o.user = log;
	assert_int_equal(gf_xfer_open(&o, &x), 0);
	assert_int_equal(gf_xfer_dev_alloc(x, bytes, dev), 0);
	return x;
}

/* FAKE_CUFILE_LOG's line of the last driver session (written at
 * cuFileDriverClose); the log is emptied for the next. */
static void cufile_log(char *line, size_t size)
{
	FILE *f = fopen(getenv("FAKE_CUFILE_LOG"), "r");

	line[0] = 0;
	if (f) {
		if (!fgets(line, (int)size, f))
			line[0] = 0;
		fclose(f);
	}
	unlink(getenv("FAKE_CUFILE_LOG"));
}

/* A file of 10 chunks in waves of depth 1 x reads 2 = 2 entries: 5 waves.
 * Both batch handles hold a wave at once; every byte is there, each chunk
 * reaches the hook once, in file order, after its read has landed (the
 * stand-in runs a wave's reads only as GetStatus collects them).  Where
 * the second handle is refused, one runs the same waves back to back. */
static void gds_batch_pipelined(void **state)
{
	static const struct { const char *scenario, *log; } runs[] = {
		{ "", "batch: handles 2 refused 0 waves 5 in_flight 2 destroyed_pending 0 busy_submits 0\n" },
		{ "one_batch", "batch: handles 1 refused 1 waves 3 in_flight 1 destroyed_pending 0 busy_submits 0\n" },
	};
	size_t len = 9 * CHUNK + 1000;
	unsigned char *back = malloc(len + 64);
	char line[200];

	(void)state;
	assert_non_null(back);
	make_file(len);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct hook_log log = { .in_order = true, .landed = true };
		struct gf_xfer_stats st;
		struct gf_xfer *x;
		uint64_t dev;

		setenv("FAKE_CUFILE_SCENARIO", runs[i].scenario, 1);
		x = gds_in_waves(&log, len + 64, &dev);
		log.x = x;
		assert_int_equal(gf_xfer_read(x, file, 0, len, dev, &st), 0);
		assert_string_equal(st.api, "cuFileBatchIO");
		assert_int_equal(st.chunks, 10);
		assert_int_equal(log.calls, 10);
		assert_true(log.in_order);
		assert_int_equal(log.next_off, len);
		assert_true(log.landed);
		assert_int_equal(gf_xfer_dtoh(x, back, dev, len + 64), 0);
		assert_memory_equal(back, pattern, len);
		for (size_t k = len; k < len + 64; k++)
			assert_int_equal(back[k], 0);
		assert_int_equal(gf_xfer_dev_free(x, dev), 0);
		gf_xfer_close(x);
		assert_int_equal(t_fake_cuda_live(), 0);
		cufile_log(line, sizeof(line));
		assert_string_equal(line, runs[i].log);
	}
	free(back);
}

/* A wave fails (a bad entry, a refused submit, the hook, the library
 * giving back an entry it was not given or one twice) while the other
 * handle's wave is still in flight: the first error, naming the file and
 * the offset, and that wave waited for before the handles are destroyed
 * (the stand-in counts entries a Destroy dropped), nothing left allocated. */
static void gds_error_with_a_wave_in_flight(void **state)
{
	static const struct {
		const char *env, *val;
		unsigned hook_fails, calls;
		int want;
		const char *names;
		int waves, in_flight;	/* submitted; most at once */
	} c[] = {
		/* wave 2, on the second handle; wave 3 on the first */
		{ "FAKE_CUFILE_FAIL_READ", "3", 0, 2, -EIO,
		  "data.bin: cuFile batch read of 65536 bytes at offset 131072: status 0x40, Input/output error", 3, 2 },
		/* wave 1; wave 2 on the second handle */
		{ "FAKE_CUFILE_FAIL_READ", "1", 0, 0, -EIO, "data.bin: cuFile batch read of 65536 bytes at offset 0:", 2, 2 },
		/* wave 3's submit; wave 2 in flight */
		{ "FAKE_CUFILE_FAIL_SUBMIT", "3", 0, 2, -EIO,
		  "data.bin: wave of 2 chunks at offset 262144: cuFileBatchIOSubmit: CU_FILE_NVFS_DRIVER_ERROR (5010)", 2, 2 },
		/* the second handle's first submit; wave 1 in flight */
		{ "FAKE_CUFILE_FAIL_SUBMIT", "2", 0, 0, -EIO, "data.bin: wave of 2 chunks at offset 131072", 1, 1 },
		/* the hook of wave 2's first chunk; wave 3 in flight */
		{ NULL, NULL, 3, 3, -ECANCELED, "data.bin: chunk at offset 131072: the consumer's hook returned", 3, 2 },
		/* wave 2's entries come back with a cookie never submitted, then
		 * with one cookie twice; wave 3 in flight */
		{ "FAKE_CUFILE_SCENARIO", "bad_cookie", 0, 2, -EPROTO,
		  "data.bin: wave of 2 chunks at offset 131072: cuFileBatchIOGetStatus gave back entry 1000 that was not "
		  "submitted", 3, 2 },
		{ "FAKE_CUFILE_SCENARIO", "twice_cookie", 0, 2, -EPROTO,
		  "data.bin: wave of 2 chunks at offset 131072: cuFileBatchIOGetStatus gave back entry 0 twice", 3, 2 },
	};
	char line[200], want[200];

	(void)state;
	make_file(9 * CHUNK + 1000);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct hook_log log = { .fail_at = c[i].hook_fails };
		struct gf_xfer *x;
		uint64_t dev;
		int rc;

		if (c[i].env)
			setenv(c[i].env, c[i].val, 1);
		x = gds_in_waves(&log, file_len, &dev);
		rc = gf_xfer_read(x, file, 0, file_len, dev, NULL);
		if (rc != c[i].want || !strstr(gf_last_error(), c[i].names))
			fail_msg("case %zu: %d '%s', wanted %d naming '%s'", i, rc, gf_last_error(), c[i].want,
				 c[i].names);
		assert_int_equal(log.calls, c[i].calls);
		gf_xfer_dev_free(x, dev);
		gf_xfer_close(x);
		assert_int_equal(t_fake_cuda_live(), 0);
		cufile_log(line, sizeof(line));
		snprintf(want, sizeof(want), "batch: handles 2 refused 0 waves %d in_flight %d destroyed_pending 0 "
			 "busy_submits 0\n", c[i].waves, c[i].in_flight);
		assert_string_equal(line, want);
		if (c[i].env)
			unsetenv(c[i].env);
	}
}

static void copy_and_hook_failures(void **state)
{
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct hook_log log = { .fail_at = 3 };
	struct gf_xfer *x;
	uint64_t dev;

	(void)state;
	make_file(6 * CHUNK + 1);
	setenv("FAKE_CUDA_FAIL", "cuMemcpyHtoDAsync_v2", 1);
	for (unsigned d = 1; d <= GF_XFER_DEPTH_MAX; d++)
		fails(GF_XFER_BOUNCE, d, -EIO, "cuMemcpyHtoDAsync (staging to GPU, GPU 0000:00:06.0)");
	fails(GF_XFER_NAIVE, 1, -EIO, "cuMemcpyHtoDAsync (pageable copy");
	unsetenv("FAKE_CUDA_FAIL");
	/* The consumer stops it at the third chunk, reads of later ones in flight. */
	for (unsigned p = 0; p < GF_XFER_PATHS; p++) {
		o.path = (enum gf_xfer_path)p;
		o.depth = 3;
		o.chunk = CHUNK;
		o.on_chunk = hook;
		o.user = &log;
		log.calls = 0;
		log.next_off = 0;
		assert_int_equal(gf_xfer_open(&o, &x), 0);
		assert_int_equal(gf_xfer_dev_alloc(x, file_len, &dev), 0);
		assert_int_equal(gf_xfer_read(x, file, 0, file_len, dev, NULL), -ECANCELED);
		assert_non_null(strstr(gf_last_error(), "data.bin: chunk at offset 131072: the consumer's hook returned"));
		assert_int_equal(log.calls, 3);
		gf_xfer_dev_free(x, dev);
		gf_xfer_close(x);
		assert_int_equal(t_fake_cuda_live(), 0);
	}
}

static void open_failures_leave_nothing(void **state)
{
	static const char *const fail[] = { "cuMemHostRegister_v2", "cuStreamCreate" };
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct gf_xfer *x = (struct gf_xfer *)&o;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		setenv("FAKE_CUDA_FAIL", fail[i], 1);
		o.depth = 3;
		assert_int_not_equal(gf_xfer_open(&o, &x), 0);
		assert_null(x);
		assert_non_null(strstr(gf_last_error(), i ? "cuStreamCreate (staging" : "cuMemHostRegister 8388608 bytes of the staging pool through 0000:"));
		assert_int_equal(t_fake_cuda_live(), 0);
	}
	unsetenv("FAKE_CUDA_FAIL");
	setenv("FAKE_CUFILE_SCENARIO", "no_driver", 1);
	o.path = GF_XFER_GDS;
	assert_int_equal(gf_xfer_open(&o, &x), -ENODEV);
	assert_string_equal(gf_last_error(), "cuFileDriverOpen: CU_FILE_DRIVER_NOT_INITIALIZED (5001)");
	unsetenv("FAKE_CUFILE_SCENARIO");
	setenv("GPUFEED_CUFILE_LIBRARY", "/nonexistent/libcufile.so.0", 1);
	gf_cufile_unload();
	assert_int_equal(gf_xfer_open(&o, &x), -ENOSYS);
	assert_non_null(strstr(gf_last_error(), "cuFile not available"));
	gf_cufile_unload();
	env_fakes();
	setenv("GPUFEED_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
	gf_cuda_unload();
	o.path = GF_XFER_BOUNCE;
	assert_int_equal(gf_xfer_open(&o, &x), -ENOSYS);
	assert_non_null(strstr(gf_last_error(), "libcuda.so.1"));
	gf_cuda_unload();
	env_fakes();
	setenv("FAKE_CUDA_SCENARIO", "no_device", 1);
	assert_int_equal(gf_xfer_open(&o, &x), -ENODEV);
	unsetenv("FAKE_CUDA_SCENARIO");
	o.depth = 4;
	assert_int_equal(gf_xfer_open(&o, &x), -EINVAL);
	assert_string_equal(gf_last_error(), "gf_xfer_open: depth 4: 1, 2 or 3 staging buffers");
	o.depth = 2;
	o.chunk = 1000;
	assert_int_equal(gf_xfer_open(&o, &x), -EINVAL);
}

static void bad_inputs_name_the_file(void **state)
{
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct gf_xfer *x;
	char missing[700];
	uint64_t dev;

	(void)state;
	make_file(10000);
	snprintf(missing, sizeof(missing), "%s/missing.bin", dir);
	for (unsigned p = 0; p < GF_XFER_PATHS; p++) {
		o.path = (enum gf_xfer_path)p;
		assert_int_equal(gf_xfer_open(&o, &x), 0);
		assert_int_equal(gf_xfer_dev_alloc(x, 20000, &dev), 0);
		assert_int_equal(gf_xfer_read(x, missing, 0, 10, dev, NULL), -ENOENT);
		assert_non_null(strstr(gf_last_error(), "missing.bin: No such file or directory"));
		assert_int_equal(gf_xfer_read(x, file, 5000, 5001, dev, NULL), -EINVAL);
		assert_non_null(strstr(gf_last_error(), "data.bin: bytes 5000 to 10001 run past its end (10000 bytes)"));
		assert_int_equal(gf_xfer_read(x, file, 0, 10, 0, NULL), -EINVAL);
		assert_int_equal(gf_xfer_read_fd(x, -1, "shard", 0, 10, dev, NULL), -EBADF);
		assert_int_equal(gf_xfer_read(x, file, 0, 0, dev, NULL), 0);
		gf_xfer_dev_free(x, dev);
		gf_xfer_close(x);
	}
	assert_int_equal(t_fake_cuda_live(), 0);
}

static void short_file_mid_pipeline(void **state)
{
	/* The engine sees end of file where the file was longer at the
	 * check: a short read, named, not a silent hole in GPU memory. */
	struct gf_io_fault cut = { .op = GF_IO_READ, .off = 2 * CHUNK, .len = 1, .cut = 0 };

	(void)state;
	make_file(4 * CHUNK);
	assert_int_equal(gf_io_fault_add(&cut), 0);
	fails(GF_XFER_BOUNCE, 2, -EIO, "data.bin: short read: 0 of");
}

static void path_names(void **state)
{
	enum gf_xfer_path p;

	(void)state;
	assert_int_equal(gf_xfer_path_parse("gds", &p), 0);
	assert_int_equal(p, GF_XFER_GDS);
	assert_string_equal(gf_xfer_path_name(GF_XFER_NAIVE), "naive");
	assert_int_equal(gf_xfer_path_parse("dma", &p), -EINVAL);
	assert_string_equal(gf_last_error(), "'dma' is not a transfer path (bounce, gds or naive)");
}

/* Host memory to the GPU and back through the staging pool: every byte
 * there and back, lengths that are not multiples of the chunk, each depth;
 * the chunks reach the hook in order; a failed copy half way releases all;
 * a transfer without the pool says so. */
static void host_round_trip(void **state)
{
	size_t len = 4 * CHUNK + 777;
	unsigned char *src = malloc(len), *back = malloc(len + 64);

	(void)state;
	assert_non_null(src);
	assert_non_null(back);
	for (size_t i = 0; i < len; i++)
		src[i] = (unsigned char)(i * 131u + (i >> 9));
	for (unsigned d = 1; d <= GF_XFER_DEPTH_MAX; d++) {
		struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
		struct hook_log log = { .in_order = true };
		struct gf_xfer *x;
		uint64_t dev;

		o.depth = d;
		o.chunk = CHUNK;
		o.on_chunk = hook;
		o.user = &log;
		assert_int_equal(gf_xfer_open(&o, &x), 0);
		assert_int_equal(gf_xfer_dev_alloc(x, len + 64, &dev), 0);
		assert_int_equal(gf_xfer_copy_to_gpu(x, src, len, dev), 0);
		assert_int_equal(log.calls, 5);
		assert_true(log.in_order);
		memset(back, 0x5a, len + 64);
		assert_int_equal(gf_xfer_dtoh(x, back, dev, len + 64), 0);	/* unstaged: what is there */
		assert_memory_equal(back, src, len);
		for (size_t i = len; i < len + 64; i++)
			assert_int_equal(back[i], 0);
		memset(back, 0x5a, len + 64);
		assert_int_equal(gf_xfer_copy_from_gpu(x, dev, back, len), 0);
		assert_memory_equal(back, src, len);
		for (size_t i = len; i < len + 64; i++)
			assert_int_equal(back[i], 0x5a);	/* nothing written past len */
		assert_int_equal(gf_xfer_dev_free(x, dev), 0);
		gf_xfer_close(x);
		assert_int_equal(t_fake_cuda_live(), 0);
	}
	/* The consumer's hook refusing the third chunk of a host copy: its
	 * error, named as the copy's, nothing left. */
	{
		struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
		struct hook_log log = { .fail_at = 3 };
		struct gf_xfer *x;
		uint64_t dev;

		o.chunk = CHUNK;
		o.on_chunk = hook;
		o.user = &log;
		assert_int_equal(gf_xfer_open(&o, &x), 0);
		assert_int_equal(gf_xfer_dev_alloc(x, len, &dev), 0);
		assert_int_equal(gf_xfer_copy_to_gpu(x, src, len, dev), -ECANCELED);
		assert_non_null(strstr(gf_last_error(), "copy to GPU: chunk at offset 131072: the consumer's hook returned"));
		assert_int_equal(log.calls, 3);
		assert_int_equal(gf_xfer_dev_free(x, dev), 0);
		gf_xfer_close(x);
		assert_int_equal(t_fake_cuda_live(), 0);
	}
	/* A device-to-host copy failing half way: the error, nothing left. */
	{
		struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
		struct gf_xfer *x;
		uint64_t dev;

		o.chunk = CHUNK;
		assert_int_equal(gf_xfer_open(&o, &x), 0);
		assert_int_equal(gf_xfer_dev_alloc(x, len, &dev), 0);
		setenv("FAKE_CUDA_FAIL", "cuMemcpyDtoHAsync_v2=2", 1);
		assert_int_equal(gf_xfer_copy_from_gpu(x, dev, back, len), -ENOMEM);
		assert_non_null(strstr(gf_last_error(), "cuMemcpyDtoHAsync"));
		unsetenv("FAKE_CUDA_FAIL");
		assert_int_equal(gf_xfer_dev_free(x, dev), 0);
		gf_xfer_close(x);
		assert_int_equal(t_fake_cuda_live(), 0);
	}
	/* The naive path has no pinned pool to stage through. */
	{
		struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
		struct gf_xfer *x;

		o.path = GF_XFER_NAIVE;
		assert_int_equal(gf_xfer_open(&o, &x), 0);
		assert_int_equal(gf_xfer_copy_to_gpu(x, src, len, 1), -EINVAL);
		assert_non_null(strstr(gf_last_error(), "needs the staging pool of the bounce path"));
		gf_xfer_close(x);
	}
	free(src);
	free(back);
}

/* The staging node is the machine model's (docs/xfer.md): on the 4 x H200
 * VM sysfs says -1 for every GPU and the model says node 0 (NVML's memory
 * affinity), as `gpufeed topo` shows, where xfer used to read sysfs and
 * stage unplaced.  Whatever the model holds is what xfer takes; numa_node
 * wins over it; with no model, this machine's (which has no GPU at that
 * address: -1).  The fake CUDA puts its GPUs at the VM's addresses. */
static void staging_node_from_the_model(void **state)
{
	struct gf_topo_options to = GF_TOPO_OPTS_INIT;
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct gf_topo *vm = NULL;
	char sysfs[4096], *text;
	struct gf_xfer *x;

	(void)state;
	to.root = t_fixture_root("h200x4-vm");
	assert_int_equal(gf_topo_discover(&to, &vm), 0);
	snprintf(sysfs, sizeof(sysfs), "%s/sys/bus/pci/devices/0000:00:06.0/numa_node", to.root);
	text = t_read(sysfs);
	assert_string_equal(text, "-1\n");
	free(text);
	setenv("FAKE_CUDA_PCI", "0000:00:06.0,0000:00:07.0", 1);
	o.gpu = -1;
	o.pci = "0000:00:06.0";
	o.chunk = CHUNK;
	/* No model: this machine's, which lacks the GPU. */
	assert_int_equal(gf_xfer_open(&o, &x), 0);
	assert_int_equal(gf_xfer_numa_node(x), -1);
	gf_xfer_close(x);
	/* The VM's model: node 0, where its sysfs says -1. */
	o.model = vm;
	assert_int_equal(gf_xfer_open(&o, &x), 0);
	assert_int_equal(gf_xfer_numa_node(x), 0);
	gf_xfer_close(x);
	/* What the model holds, not a value of its own. */
	vm->gpus[gf_topo_find_gpu(vm, "0000:00:06.0")].numa_node = 1;
	assert_int_equal(gf_xfer_open(&o, &x), 0);
	assert_int_equal(gf_xfer_numa_node(x), 1);
	gf_xfer_close(x);
	/* numa_node over the model. */
	o.numa_node = 0;
	assert_int_equal(gf_xfer_open(&o, &x), 0);
	assert_int_equal(gf_xfer_numa_node(x), 0);
	gf_xfer_close(x);
	/* A device CUDA opens that the model does not call a GPU (NVML hides
	 * it, or a stand-in as in tests/numa): the node the model resolves for
	 * that PCI device. */
	{
		int nic = vm->nics[0].pci;

		setenv("FAKE_CUDA_PCI", vm->pci[nic].bdf, 1);
		o.pci = vm->pci[nic].bdf;
		o.numa_node = -1;
		assert_int_equal(gf_xfer_open(&o, &x), 0);
		assert_int_equal(gf_xfer_numa_node(x), 0);	/* the VM's one node */
		gf_xfer_close(x);
		vm->pci[nic].local_node = 1;
		assert_int_equal(gf_xfer_open(&o, &x), 0);
		assert_int_equal(gf_xfer_numa_node(x), 1);
		gf_xfer_close(x);
	}
	/* A device the model lacks: unknown. */
	setenv("FAKE_CUDA_PCI", "0000:ee:00.0", 1);
	o.pci = "0000:ee:00.0";
	o.numa_node = -1;
	assert_int_equal(gf_xfer_open(&o, &x), 0);
	assert_int_equal(gf_xfer_numa_node(x), -1);
	gf_xfer_close(x);
	assert_int_equal(t_fake_cuda_live(), 0);
	unsetenv("FAKE_CUDA_PCI");
	gf_topo_free(vm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(each_path_each_depth, setup, teardown),
		cmocka_unit_test_setup_teardown(host_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(odd_ranges, setup, teardown),
		cmocka_unit_test_setup_teardown(gds_without_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(gds_batch_pipelined, setup, teardown),
		cmocka_unit_test_setup_teardown(gds_error_with_a_wave_in_flight, setup, teardown),
		cmocka_unit_test_setup_teardown(read_errors_mid_pipeline, setup, teardown),
		cmocka_unit_test_setup_teardown(copy_and_hook_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(open_failures_leave_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_inputs_name_the_file, setup, teardown),
		cmocka_unit_test_setup_teardown(short_file_mid_pipeline, setup, teardown),
		cmocka_unit_test_setup_teardown(path_names, setup, teardown),
		cmocka_unit_test_setup_teardown(staging_node_from_the_model, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
