/* The two limits the bounce path is held to, measured on the same file and
 * GPU with the same request sizes: the disk's cold O_DIRECT sequential read
 * (the I/O engine, depth x reads requests of chunk/reads bytes in flight,
 * as the bounce path keeps them) and the pinned host-to-device copy of the
 * same bytes in chunk-sized copies (the copy engine's rate from staging). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gpufeed/buf.h>
#include <gpufeed/io.h>
#include "bench/io_gpu_bench.h"
#include "core/error.h"
#include "mem/mem.h"
#include "vendor/cuda/cuda_device.h"

static double cpu_now(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

static size_t chunk_of(const struct gf_bench_io_gpu *b)
{
	return b->o.chunk ? b->o.chunk : GF_XFER_CHUNK_DEFAULT;
}

int gf_iog_disk_sample(struct gf_bench_io_gpu *b, double *gbs, double *cpu_s)
{
	unsigned qd = (b->o.depth ? b->o.depth : 2) * (b->o.reads ? b->o.reads : 4);
	size_t piece = chunk_of(b) / (b->o.reads ? b->o.reads : 4) / 4096 * 4096;
	struct gf_io_opts io = GF_IO_OPTS_INIT;
	struct gf_buf_opts bo = GF_BUF_OPTS_INIT;
	struct gf_io_range *r = NULL;
	struct gf_file *f = NULL;
	struct gf_buf *buf = NULL;
	struct gf_io *e = NULL;
	uint64_t n;
	double t0, c0;
	int rc;

	piece = piece ? piece : 4096;
	n = (b->bytes + piece - 1) / piece;
	io.queue_depth = qd;
	io.flags = GF_IO_BLOCK_WHEN_FULL;
	bo.size = piece * qd;
	bo.numa_node = b->numa_node;
	if ((rc = gf_io_open(&io, &e)) || (rc = gf_buf_alloc(&bo, &buf)) ||
	    (rc = gf_file_open(e, b->file, GF_FILE_DIRECT, 0, &f)))
		goto out;
	if (!gf_file_info(f)->direct) {
		rc = gf_error(-EINVAL, "%s: O_DIRECT refused by %s: no disk rate to hold the paths to", b->file,
			      gf_file_info(f)->fs_type);
		goto out;
	}
	r = calloc(n, sizeof(*r));
	if (!r) {
		rc = gf_error(-ENOMEM, "disk read: out of memory");
		goto out;
	}
	/* Requests share the ring of qd buffers: the data is not looked at. */
	for (uint64_t i = 0; i < n; i++)
		r[i] = (struct gf_io_range){ .off = i * piece, .len = piece, .buf = (char *)buf->data + (i % qd) * piece };
	c0 = cpu_now();
	t0 = gf_bench_now();
	rc = gf_io_read_ranges(e, f, r, (unsigned)n);
	*gbs = (double)b->bytes / (gf_bench_now() - t0) / 1e9;
	*cpu_s = cpu_now() - c0;
	if (rc)
		rc = gf_error(rc, "%s: O_DIRECT read: %s", b->file, gf_last_error());
out:
	free(r);
	if (f)
		gf_file_close(f);
	if (e)
		gf_io_close(e, GF_IO_CANCEL);
	gf_buf_free(buf);
	return rc;
}

int gf_iog_h2d_sample(struct gf_bench_io_gpu *b, double *gbs, double *cpu_s)
{
	struct gf_buf_opts bo = GF_BUF_OPTS_INIT;
	struct gf_cuda_dev d;
	struct gf_buf *buf = NULL;
	gf_cu_stream s = NULL;
	size_t chunk = chunk_of(b);
	double t0, c0;
	int rc;

	if ((rc = gf_cuda_dev_open_pci(b->pci, &d)))
		return rc;
	bo.size = chunk;
	bo.numa_node = b->numa_node;
	if ((rc = gf_buf_alloc(&bo, &buf)))
		goto out;
	memset(buf->data, 0x5a, chunk);
	if ((rc = gf_mem_pin(buf, &d, 0, "the staging copy")))
		goto out;
	if ((rc = gf_cuda_check(d.ops, d.ops->stream_create(&s, GF_CU_STREAM_NON_BLOCKING), "cuStreamCreate")))
		goto out;
	c0 = cpu_now();
	t0 = gf_bench_now();
	for (uint64_t at = 0; at < b->bytes && !rc; at += chunk) {
		size_t n = b->bytes - at < chunk ? (size_t)(b->bytes - at) : chunk;

		rc = gf_cuda_check(d.ops, d.ops->memcpy_htod_async(b->dev + at, buf->data, n, s), "cuMemcpyHtoDAsync");
	}
	if (!rc)
		rc = gf_cuda_check(d.ops, d.ops->stream_synchronize(s), "cuStreamSynchronize");
	*gbs = (double)b->bytes / (gf_bench_now() - t0) / 1e9;
	*cpu_s = cpu_now() - c0;
out:
	if (s)
		d.ops->stream_destroy(s);
	gf_buf_free(buf);	/* unpinned through d, before d closes */
	gf_cuda_dev_close(&d);
	return rc;
}
