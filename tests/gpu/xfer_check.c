/* Storage to GPU memory on a real GPU, through the public API only: write a
 * file of a pattern (a size that is a multiple of neither the chunk nor
 * 4096), move it to GPU memory by each path (bounce, gds, naive), copy it
 * back and compare every byte; one line per path.  gds without libcufile
 * is a skip line, not a failure.  Built with the tests (static, like the
 * CLI), run on a GPU machine by tests/gpu/run-gpu-tests.sh.
 *   xfer_check [NVML_INDEX [DIR [MIB]]]   DIR for the file (default "."),
 *                                          MIB its size (default 256)
 *   exit 0 all held, 1 a mismatch or a failed path, 77 no CUDA or no GPU */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/gpufeed.h>

static unsigned char byte_at(size_t i)
{
	return (unsigned char)((i * 2654435761u) >> 11 ^ i >> 16);
}

static int write_file(const char *path, size_t len)
{
	unsigned char *b = malloc(1 << 20);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	size_t at = 0;

	if (!b || fd < 0) {
		fprintf(stderr, "xfer_check: %s: %s\n", path, strerror(errno));
		free(b);
		return -1;
	}
	while (at < len) {
		size_t n = len - at < (1 << 20) ? len - at : (1 << 20);

		for (size_t i = 0; i < n; i++)
			b[i] = byte_at(at + i);
		if (write(fd, b, n) != (ssize_t)n) {
			fprintf(stderr, "xfer_check: writing %s: %s\n", path, strerror(errno));
			close(fd);
			free(b);
			return -1;
		}
		at += n;
	}
	fsync(fd);
	/* The naive path would otherwise read the page cache this filled. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	free(b);
	return 0;
}

/* 0 held, 1 failed, 77 unavailable (no GPU / no libcuda), 2 skipped. */
static int check_path(int gpu, enum gf_xfer_path p, const char *path, size_t len, unsigned char *back)
{
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct gf_xfer_stats st;
	struct gf_xfer *x;
	uint64_t dev;
	size_t bad = 0, first = 0;
	int rc;

	o.gpu = gpu;
	o.path = p;
	rc = gf_xfer_open(&o, &x);
	if (rc == -ENOSYS && p == GF_XFER_GDS && strstr(gf_last_error(), "cuFile")) {
		printf("skip %-6s %s\n", gf_xfer_path_name(p), gf_last_error());
		return 2;
	}
	if (rc == -ENOSYS || rc == -ENODEV) {
		printf("skip %-6s %s\n", gf_xfer_path_name(p), gf_last_error());
		return 77;
	}
	if (rc) {
		printf("FAIL %-6s open: %s\n", gf_xfer_path_name(p), gf_last_error());
		return 1;
	}
	if ((rc = gf_xfer_dev_alloc(x, len, &dev)) == 0) {
		rc = gf_xfer_read(x, path, 0, len, dev, &st);
		memset(back, 0, len);
		if (!rc)
			rc = gf_xfer_dtoh(x, back, dev, len);
		gf_xfer_dev_free(x, dev);
	}
	if (rc) {
		printf("FAIL %-6s %s\n", gf_xfer_path_name(p), gf_last_error());
		gf_xfer_close(x);
		return 1;
	}
	for (size_t i = 0; i < len; i++) {
		if (back[i] != byte_at(i) && !bad++)
			first = i;
	}
	printf("%s %-6s %zu bytes to GPU %s: %s, %.3f s (%.2f GB/s), CPU %.3f s, api %s%s%s, staging node %d\n",
	       bad ? "FAIL" : "ok  ", gf_xfer_path_name(p), len, gf_xfer_gpu_pci(x),
	       bad ? "MISMATCH" : "every byte matches", st.wall_s, st.wall_s > 0 ? (double)len / st.wall_s / 1e9 : 0,
	       st.cpu_user_s + st.cpu_sys_s, st.api, st.direct ? ", O_DIRECT" : "",
	       st.compat_mode ? ", compatibility mode (no nvidia-fs)" : "", st.numa_node);
	if (bad)
		printf("     %zu bytes differ, the first at offset %zu\n", bad, first);
	gf_xfer_close(x);
	return bad ? 1 : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Pageable host memory to the GPU and back through the staging pool
 * (gf_xfer_copy_to_gpu / gf_xfer_copy_from_gpu), every byte compared. */
static int check_host_copies(int gpu, size_t len, unsigned char *back)
{
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	unsigned char *src = malloc(len);
	struct gf_xfer *x = NULL;
	double t0, t1, t2;
	size_t bad = 0;
	uint64_t dev = 0;
	int rc;

	o.gpu = gpu;
	o.depth = 3;
	if (!src)
		return 1;
	for (size_t i = 0; i < len; i++)
		src[i] = byte_at(i);
	memset(back, 0, len);
	rc = gf_xfer_open(&o, &x);
	if (!rc)
		rc = gf_xfer_dev_alloc(x, len, &dev);
	t0 = now_s();
	if (!rc)
		rc = gf_xfer_copy_to_gpu(x, src, len, dev);
	t1 = now_s();
	if (!rc)
		rc = gf_xfer_copy_from_gpu(x, dev, back, len);
	t2 = now_s();
	if (rc) {
		printf("FAIL host   %s\n", gf_last_error());
	} else {
		for (size_t i = 0; i < len; i++)
			bad += back[i] != src[i];
		printf("%s host   %zu pageable bytes to GPU and back through the staging pool: %s, to %.2f GB/s, "
		       "back %.2f GB/s\n", bad ? "FAIL" : "ok  ", len, bad ? "MISMATCH" : "every byte matches",
		       (double)len / (t1 - t0) / 1e9, (double)len / (t2 - t1) / 1e9);
	}
	if (dev)
		gf_xfer_dev_free(x, dev);
	gf_xfer_close(x);
	free(src);
	return rc || bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	int gpu = argc > 1 ? atoi(argv[1]) : 0;
	const char *dir = argc > 2 ? argv[2] : ".";
	size_t len = (argc > 3 ? (size_t)atol(argv[3]) : 256) << 20;
	char path[4096];
	unsigned char *back;
	int fail = 0, unavailable = 0;

	/* Neither a multiple of the chunk nor of 4096: the tail path runs. */
	len += 4096 + 1234;
	snprintf(path, sizeof(path), "%s/gpufeed-xfer-check.%d.bin", dir, (int)getpid());
	back = malloc(len);
	if (!back || write_file(path, len)) {
		free(back);
		return 1;
	}
	for (unsigned p = 0; p < GF_XFER_PATHS; p++) {
		int rc = check_path(gpu, (enum gf_xfer_path)p, path, len, back);

		fail |= rc == 1;
		unavailable |= rc == 77;
		if (rc == 77)
			break;
	}
	if (!unavailable)
		fail |= check_host_copies(gpu, len, back);
	unlink(path);
	free(back);
	return fail ? 1 : unavailable ? 77 : 0;
}
