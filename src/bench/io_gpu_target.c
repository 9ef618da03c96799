/* `bench io --gpu` as a runner target: the file (ours, created, or the
 * caller's), the GPU memory it lands in, and the points: the disk's cold
 * O_DIRECT read and the pinned host-to-device copy (the limits), then each
 * transfer path.  Every sample starts cold: the file's cached pages are
 * dropped (posix_fadvise DONTNEED) first, which matters for the naive path
 * (the page cache's) and changes nothing for O_DIRECT. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/io_gpu_bench.h"
#include "core/error.h"
#include "core/opts.h"

#define CHECK_SPAN (64ull << 20)	/* bytes compared at the head and at the tail */

const char *gf_iog_point_name(const struct gf_bench_io_gpu *b, unsigned i)
{
	switch (b->pts[i].kind) {
	case GF_IOG_DISK: return "disk O_DIRECT read";
	case GF_IOG_H2D: return "pinned host-to-device";
	default: return gf_xfer_path_name(b->pts[i].path);
	}
}

double gf_iog_median(const struct gf_bench_io_gpu *b, enum gf_iog_kind k)
{
	for (unsigned i = 0; i < b->npoints; i++)
		if (b->pts[i].kind == k && !b->res[i].status && b->res[i].nsamples)
			return b->res[i].stats.median;
	return 0;
}

static int parse_paths(const char *text, bool want[GF_XFER_PATHS])
{
	char buf[128], *save = NULL, *tok;
	int n = 0;

	if (!text) {
		for (unsigned p = 0; p < GF_XFER_PATHS; p++)
			want[p] = true;
		return 0;
	}
	memset(want, 0, GF_XFER_PATHS * sizeof(bool));
	if (strlen(text) >= sizeof(buf))
		return gf_error(-EINVAL, "--path: '%s' is too long", text);
	strcpy(buf, text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), n++) {
		enum gf_xfer_path p;

		if (gf_xfer_path_parse(tok, &p))
			return gf_error(-EINVAL, "--path: '%s' is not a transfer path (bounce, gds or naive)", tok);
		want[p] = true;
	}
	return n ? 0 : gf_error(-EINVAL, "--path: '%s' names no path", text);
}

int gf_bench_io_gpu_check(const struct gf_bench_io_gpu_opts *o)
{
	bool want[GF_XFER_PATHS];
	int rc;

	if (!o)
		return gf_error(-EINVAL, "bench io --gpu: no options");
	if ((rc = gf_opts_check(o->struct_size, sizeof(*o), "gf_bench_io_gpu_run", "GF_BENCH_IO_GPU_OPTS_INIT")))
		return rc;
	if (!o->file || !*o->file)
		return gf_error(-EINVAL, "bench io --gpu: no file");
	if ((rc = parse_paths(o->paths, want)))
		return rc;
	if (o->chunk && (o->chunk % 4096 || o->chunk > (1ull << 30)))
		return gf_error(-EINVAL, "--chunk: %zu bytes is not a multiple of 4K up to 1G", o->chunk);
	if (o->depth > GF_XFER_DEPTH_MAX)
		return gf_error(-EINVAL, "--depth: %u: 1, 2 or 3 staging buffers", o->depth);
	if (o->reads > 16)
		return gf_error(-EINVAL, "--reads: %u: at most 16 per chunk", o->reads);
	if (o->repeats > GF_BENCH_IO_GPU_REPEATS_MAX)
		return gf_error(-EINVAL, "--repeats: at most %u", GF_BENCH_IO_GPU_REPEATS_MAX);
	return 0;
}

static unsigned char fill_byte(uint64_t i)
{
	return (unsigned char)((i * 2654435761u) >> 11 ^ i >> 20);
}

/* Creates the file of b->bytes, flushed, its pages dropped. */
static int create_file(struct gf_bench_io_gpu *b)
{
	unsigned char *blk = malloc(1 << 20);
	int fd = open(b->file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int rc = 0;

	if (fd < 0 || !blk) {
		free(blk);
		if (fd >= 0)
			close(fd);
		return gf_error(-errno, "%s: %s", b->file, strerror(errno));
	}
	b->created = true;
	for (uint64_t at = 0; at < b->bytes && !rc; at += 1 << 20) {
		size_t n = b->bytes - at < (1 << 20) ? (size_t)(b->bytes - at) : (1 << 20);

		for (size_t i = 0; i < n; i++)
			blk[i] = fill_byte(at + i);
		if (write(fd, blk, n) != (ssize_t)n)
			rc = gf_error(errno ? -errno : -ENOSPC, "%s: writing %llu bytes: %s", b->file,
				      (unsigned long long)b->bytes, strerror(errno ? errno : ENOSPC));
	}
	if (!rc && fsync(fd))
		rc = gf_error(-errno, "%s: fsync: %s", b->file, strerror(errno));
	close(fd);
	free(blk);
	return rc;
}

static int open_file(struct gf_bench_io_gpu *b)
{
	struct stat st;
	int rc;

	if (stat(b->file, &st) && errno == ENOENT) {
		b->bytes = b->o.size ? b->o.size : b->o.quick ? 256ull << 20 : 1ull << 30;
		if ((rc = create_file(b)))
			return rc;
	} else if (stat(b->file, &st)) {
		return gf_error(-errno, "%s: %s", b->file, strerror(errno));
	} else {
		b->bytes = b->o.size && b->o.size < (uint64_t)st.st_size ? b->o.size : (uint64_t)st.st_size;
		if (!b->bytes)
			return gf_error(-EINVAL, "%s: empty", b->file);
	}
	b->fd = open(b->file, O_RDONLY | O_CLOEXEC);
	return b->fd < 0 ? gf_error(-errno, "%s: %s", b->file, strerror(errno)) : 0;
}

/* Compares GPU memory with the file over [off, off + n). */
static int compare(struct gf_bench_io_gpu *b, struct gf_xfer *x, uint64_t off, size_t n, char *why, size_t size)
{
	unsigned char *g = malloc(n), *h = malloc(n);
	int bad = 0;

	if (!g || !h || gf_xfer_dtoh(x, g, b->dev + off, n) || pread(b->fd, h, n, (off_t)off) != (ssize_t)n) {
		snprintf(why, size, "FAIL: could not read back bytes at %llu: %s", (unsigned long long)off,
			 gf_last_error());
		bad = 1;
	} else if (memcmp(g, h, n)) {
		size_t i = 0;

		while (g[i] == h[i])
			i++;
		snprintf(why, size, "FAIL: byte %llu differs (GPU 0x%02x, file 0x%02x)", (unsigned long long)(off + i),
			 g[i], h[i]);
		bad = 1;
	}
	free(g);
	free(h);
	return bad;
}

static void check_bytes(struct gf_bench_io_gpu *b, struct gf_iog_point *p)
{
	uint64_t span = b->bytes < CHECK_SPAN ? b->bytes : CHECK_SPAN;

	if (compare(b, b->x, 0, (size_t)span, p->check, sizeof(p->check)) ||
	    compare(b, b->x, b->bytes - span, (size_t)span, p->check, sizeof(p->check)))
		return;
	snprintf(p->check, sizeof(p->check), "ok: the first and last %llu bytes match the file",
		 (unsigned long long)span);
	/* The pages that check read are dropped again before the next sample. */
}

static int prepare(void *ctx, unsigned i)
{
	struct gf_bench_io_gpu *b = ctx;
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;

	if (b->pts[i].kind != GF_IOG_PATH)
		return 0;
	o.gpu = (int)b->o.gpu;
	o.path = b->pts[i].path;
	o.chunk = b->o.chunk;
	o.depth = b->o.depth;
	o.reads = b->o.reads;
	o.numa_node = b->o.numa_node;
	return gf_xfer_open(&o, &b->x);
}

static void cleanup(void *ctx, unsigned i)
{
	struct gf_bench_io_gpu *b = ctx;

	(void)i;
	gf_xfer_close(b->x);
	b->x = NULL;
}

static int sample(void *ctx, unsigned i, double *value)
{
	struct gf_bench_io_gpu *b = ctx;
	struct gf_iog_point *p = &b->pts[i];
	double cpu = 0;
	bool first = !p->ncpu && p->kind == GF_IOG_PATH;
	int rc;

	/* Cold, every sample: the page cache must not serve the naive path. */
	posix_fadvise(b->fd, 0, 0, POSIX_FADV_DONTNEED);
	if (p->kind == GF_IOG_DISK) {
		rc = gf_iog_disk_sample(b, value, &cpu);
	} else if (p->kind == GF_IOG_H2D) {
		rc = gf_iog_h2d_sample(b, value, &cpu);
	} else {
		/* A path that moved nothing must not pass on the last one's bytes. */
		if (first && (rc = gf_iog_clear(b)))
			return rc;
		/* By name: each path opens the file its way (O_DIRECT or not). */
		rc = gf_xfer_read(b->x, b->file, 0, (size_t)b->bytes, b->dev, &p->st);
		*value = rc ? 0 : (double)b->bytes / p->st.wall_s / 1e9;
		cpu = p->st.cpu_user_s + p->st.cpu_sys_s;
		if (!rc && first)
			check_bytes(b, p);
	}
	if (rc)
		return rc;
	if (p->ncpu < GF_BENCH_IO_GPU_REPEATS_MAX + 1)
		p->cpu_s_per_gb[p->ncpu++] = cpu / ((double)b->bytes / 1e9);
	return 0;
}

static void label(void *ctx, unsigned i, char *buf, size_t size)
{
	snprintf(buf, size, "%s", gf_iog_point_name(ctx, i));
}

static const struct gf_bench_ops iog_ops = {
	.prepare = prepare, .sample = sample, .cleanup = cleanup, .label = label,
};

int gf_bench_io_gpu_run(const struct gf_bench_io_gpu_opts *opts, struct gf_bench_io_gpu **out)
{
	struct gf_runner_opts ro = { .name = "gpufeed bench io --gpu" };
	struct gf_xfer_opts xo = GF_XFER_OPTS_INIT;
	bool want[GF_XFER_PATHS];
	struct gf_xfer *base = NULL;
	struct gf_bench_io_gpu *b;
	int rc;

	if (!out)
		return gf_error(-EINVAL, "bench io --gpu: no place for the results");
	*out = NULL;
	if ((rc = gf_bench_io_gpu_check(opts)))
		return rc;
	if (!(b = calloc(1, sizeof(*b))))
		return gf_error(-ENOMEM, "bench io --gpu: out of memory");
	b->o = *opts;
	b->o.paths = NULL;
	b->o.file = NULL;
	b->fd = -1;
	snprintf(b->file, sizeof(b->file), "%s", opts->file);
	parse_paths(opts->paths, want);
	b->o.repeats = opts->repeats ? opts->repeats : opts->quick ? 1 : 3;
	b->pts[b->npoints++].kind = GF_IOG_DISK;
	b->pts[b->npoints++].kind = GF_IOG_H2D;
	for (unsigned p = 0; p < GF_XFER_PATHS; p++)
		if (want[p])
			b->pts[b->npoints++] = (struct gf_iog_point){ .kind = GF_IOG_PATH, .path = (enum gf_xfer_path)p };
	/* The GPU first: no file is created for a machine that cannot run. */
	xo.gpu = (int)opts->gpu;
	xo.path = GF_XFER_NAIVE;
	xo.numa_node = opts->numa_node;
	if ((rc = gf_xfer_open(&xo, &base)) || (rc = open_file(b)) || (rc = gf_xfer_dev_alloc(base, b->bytes, &b->dev)))
		goto out;
	snprintf(b->pci, sizeof(b->pci), "%s", gf_xfer_gpu_pci(base));
	b->numa_node = gf_xfer_numa_node(base);
	b->base = base;
	/* The machine summary every bench result carries; best effort: the
	 * figures stand without it. */
	{
		struct gf_topo_options to = GF_TOPO_OPTS_INIT;

		if (gf_topo_discover(&to, &b->topo))
			b->topo = NULL;
	}
	ro.repeats = b->o.repeats;
	ro.cancel = opts->cancel;
	ro.progress = opts->progress;
	ro.tty = opts->progress_tty;
	rc = gf_runner_run(&iog_ops, b, b->npoints, &ro, b->res);
out:
	if (b->dev)
		gf_xfer_dev_free(base, b->dev);
	b->dev = 0;
	b->base = NULL;
	gf_xfer_close(base);
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	if (b->created)
		unlink(b->file);
	if (rc) {
		gf_bench_io_gpu_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

int gf_iog_clear(struct gf_bench_io_gpu *b)
{
	return gf_xfer_dev_clear(b->base, b->dev, (size_t)b->bytes);
}

void gf_bench_io_gpu_free(struct gf_bench_io_gpu *b)
{
	if (!b)
		return;
	gf_runner_points_free(b->res, b->npoints);
	gf_topo_free(b->topo);
	free(b);
}
