/* `bench io-gpu` as a runner target: the file (ours, created, or the
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

#include <gpufeed/parse.h>
#include "bench/io_gpu_bench.h"
#include "core/error.h"

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

int gf_bench_io_gpu_check(const struct gf_bench_io_gpu_opts *o, const char *file)
{
	bool want[GF_XFER_PATHS];
	int rc;

	if (!o)
		return gf_error(-EINVAL, "bench io-gpu: no options");
	if (!file || !*file)
		return gf_error(-EINVAL, "bench io-gpu: no FILE");
	if ((rc = parse_paths(o->paths, want)))
		return rc;
	if (o->chunk && (o->chunk % 4096 || o->chunk > (1ull << 30)))
		return gf_error(-EINVAL, "--chunk: %llu bytes is not a multiple of 4K up to 1G",
				(unsigned long long)o->chunk);
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
	o.numa_node = b->numa_node;
	o.model = b->topo;
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

/* The staging node: --numa-node, which must be a node of the model, or the
 * GPU's own there, as xfer finds it (-1 when the model does not know it). */
static int staging_node(struct gf_bench_io_gpu *b)
{
	const struct gf_topo *t = b->topo;
	int n;

	b->numa_node = -1;
	if (b->o.numa_node >= 0) {
		for (int i = 0; i < t->numa.nnodes; i++)
			if (t->numa.node[i].id == b->o.numa_node)
				b->numa_node = b->o.numa_node;
		if (b->numa_node < 0)
			return gf_error(-ENODEV, "--numa-node %d: no such NUMA node in %s (%d node%s)", b->o.numa_node,
					t->machine.source, t->numa.nnodes, t->numa.nnodes == 1 ? "" : "s");
	} else if ((n = gf_topo_pci_node(t, b->pci)) >= 0) {
		b->numa_node = n;
	}
	return 0;
}

int gf_bench_io_gpu_run(const struct gf_bench_io_gpu_opts *opts, const char *file, const struct gf_bench_env *env,
			struct gf_bench_io_gpu **out)
{
	struct gf_runner_opts ro = { .name = "gpufeed bench io-gpu" };
	struct gf_xfer_opts xo = GF_XFER_OPTS_INIT;
	bool want[GF_XFER_PATHS];
	struct gf_xfer *base = NULL;
	struct gf_bench_io_gpu *b;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !env || !env->model)
		return gf_error(-EINVAL, "bench io-gpu: no %s", !out ? "place for the results" : "machine model");
	if ((rc = gf_bench_io_gpu_check(opts, file)))
		return rc;
	if (!(b = calloc(1, sizeof(*b))))
		return gf_error(-ENOMEM, "bench io-gpu: out of memory");
	b->o = *opts;
	b->o.paths = NULL;
	b->fd = -1;
	b->topo = env->model;
	snprintf(b->file, sizeof(b->file), "%s", file);
	parse_paths(opts->paths, want);
	b->o.repeats = opts->repeats ? opts->repeats : opts->quick ? 1 : 3;
	b->pts[b->npoints++].kind = GF_IOG_DISK;
	b->pts[b->npoints++].kind = GF_IOG_H2D;
	for (unsigned p = 0; p < GF_XFER_PATHS; p++)
		if (want[p])
			b->pts[b->npoints++] = (struct gf_iog_point){ .kind = GF_IOG_PATH, .path = (enum gf_xfer_path)p };
	/* The GPU and the node first: no file is created for a machine that
	 * cannot run. */
	xo.gpu = (int)opts->gpu;
	xo.path = GF_XFER_NAIVE;
	xo.model = b->topo;	/* its staging is not used: the points' are */
	if ((rc = gf_xfer_open(&xo, &base)))
		goto out;
	snprintf(b->pci, sizeof(b->pci), "%s", gf_xfer_gpu_pci(base));
	if ((rc = staging_node(b)) || (rc = open_file(b)) || (rc = gf_xfer_dev_alloc(base, b->bytes, &b->dev)))
		goto out;
	b->base = base;
	ro.repeats = b->o.repeats;
	gf_bench_env_runner(env, &ro);
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
	free(b);
}

/* ---- the target, as the frame sees it ---- */

GF_BENCH_RESULTS_DEFINE(gf_bench_io_gpu, struct gf_bench_io_gpu)

static void iog_init(void *opts)
{
	*(struct gf_bench_io_gpu_opts *)opts = (struct gf_bench_io_gpu_opts){ .numa_node = -1 };
}

static int iog_set_node(void *opts, const char *value)
{
	uint64_t n;

	if (gf_parse_count(value, 0, 1023, &n))
		return gf_error(-EINVAL, "--numa-node: '%s' is not a node number", value);
	((struct gf_bench_io_gpu_opts *)opts)->numa_node = (int)n;
	return 0;
}

static int iog_check(const void *opts, const char *operand)
{
	return gf_bench_io_gpu_check(opts, operand);
}

static int iog_run(const void *opts, const char *operand, const struct gf_bench_env *env, void **res)
{
	return gf_bench_io_gpu_run(opts, operand, env, (struct gf_bench_io_gpu **)res);
}

static const struct gf_bench_opt_def iog_opts[] = {
	GF_BENCH_COUNT("gpu", "G", "the GPU, by NVML index (default 0)", struct gf_bench_io_gpu_opts, gpu, 0, 1023),
	GF_BENCH_TEXT("path", "LIST", "transfer paths: bounce,gds,naive (default all)", struct gf_bench_io_gpu_opts,
		      paths),
	GF_BENCH_SIZE("size", "SIZE", "bytes of a file we create (default 1G, --quick 256M);\n"
		      "of an existing file, read at most this many", struct gf_bench_io_gpu_opts, size, 1, 0),
	GF_BENCH_SIZE("chunk", "SIZE", "staging buffer and cuFile request size (default 8M)",
		      struct gf_bench_io_gpu_opts, chunk, 4096, 1ull << 30),
	GF_BENCH_COUNT("depth", "N", "staging buffers: 1, 2 (default) or 3", struct gf_bench_io_gpu_opts, depth, 1,
		       GF_XFER_DEPTH_MAX),
	GF_BENCH_COUNT("reads", "N", "O_DIRECT reads in flight per chunk (default 4)", struct gf_bench_io_gpu_opts,
		       reads, 1, 16),
	GF_BENCH_CUSTOM("numa-node", "N", "staging memory's node (default: the GPU's, from\nthe machine model)",
			GF_BENCH_OPT_COUNT, iog_set_node),
	GF_BENCH_COUNT("repeats", "N", "samples per figure, each cold (default 3, --quick 1)",
		       struct gf_bench_io_gpu_opts, repeats, 1, GF_BENCH_IO_GPU_REPEATS_MAX),
	GF_BENCH_FLAG("quick", "256 MiB file, 1 sample", struct gf_bench_io_gpu_opts, quick),
	GF_BENCH_OPTS_END,
};

const struct gf_bench_def gf_bench_io_gpu_def = {
	.pub = {
		.name = "io-gpu",
		.summary = "storage to GPU memory: bounce, GPUDirect Storage, naive",
		.description =
			"Moves FILE (created, filled and removed when absent) to GPU memory by each\n"
			"transfer path of gpufeed's xfer library and reports GB/s and CPU seconds per\n"
			"GB: bounce (io_uring O_DIRECT into pinned staging, pipelined copies), gds\n"
			"(cuFile; compatibility mode without nvidia-fs, labelled) and naive (read()\n"
			"into pageable memory, then a copy).  Beside them, measured in the same run:\n"
			"the disk's O_DIRECT sequential read rate and the pinned host-to-device copy\n"
			"rate; each path's ratio to the slower of the two.  Every sample is cold (the\n"
			"file's cached pages are dropped first); the first and last 64 MiB on the GPU\n"
			"are compared with the file after each path's first sample.  Staging memory\n"
			"goes to the GPU's NUMA node from the machine model (--root: a recording's).\n",
		.operand = "FILE",
		.schema = GF_BENCH_IO_GPU_SCHEMA,
		.exits = { "", "a failed path or byte check, or a path faster than the\n"
			   "disk's O_DIRECT rate (a cache served it)",
			   "", "FILE cannot be read or created; writing the output failed; Ctrl-C",
			   "no CUDA driver (libcuda.so.1) or NVML, no GPU G, or\n"
			   "--numa-node names a node this machine lacks" },
		.footer = "How it measures and its JSON: docs/bench-io-gpu.md; the library: docs/xfer.md.\n",
	},
	.opts = iog_opts,
	.opts_size = sizeof(struct gf_bench_io_gpu_opts),
	.init = iog_init,
	.check = iog_check,
	.run = iog_run,
	GF_BENCH_RESULTS(gf_bench_io_gpu),
};
