/* gf_xfer: the GPU, the options, and one call that moves a file range to
 * GPU memory by the path chosen, timed and charged for CPU. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/opts.h"
#include "mem/mem.h"
#include "xfer/xfer_internal.h"

/* The first release's struct gf_xfer_opts ends with user. */
#define XFER_OPTS_V1_SIZE (offsetof(struct gf_xfer_opts, user) + sizeof(void *))
#define READS_MAX 16u
#define CHUNK_MAX (1ull << 30)

static const char *const path_names[GF_XFER_PATHS] = { "bounce", "gds", "naive" };

const char *gf_xfer_path_name(enum gf_xfer_path p)
{
	return (unsigned)p < GF_XFER_PATHS ? path_names[p] : "?";
}

int gf_xfer_path_parse(const char *name, enum gf_xfer_path *p)
{
	if (!name || !p)
		return GF_NULL_ARG(!name ? "name" : "p");
	for (unsigned i = 0; i < GF_XFER_PATHS; i++) {
		if (!strcmp(name, path_names[i])) {
			*p = (enum gf_xfer_path)i;
			return 0;
		}
	}
	return gf_error(-EINVAL, "'%s' is not a transfer path (bounce, gds or naive)", name);
}

static int check_opts(struct gf_xfer_opts *o)
{
	static const char fn[] = "gf_xfer_open";

	if ((unsigned)o->path >= GF_XFER_PATHS)
		return gf_arg_error(fn, "path %d is not bounce, gds or naive", (int)o->path);
	if (!o->chunk)
		o->chunk = GF_XFER_CHUNK_DEFAULT;
	if (o->chunk % 4096 || o->chunk > CHUNK_MAX)
		return gf_arg_error(fn, "chunk of %zu bytes is not a multiple of 4096 up to 1 GiB", o->chunk);
	if (!o->depth)
		o->depth = 2;
	if (o->depth > GF_XFER_DEPTH_MAX)
		return gf_arg_error(fn, "depth %u: 1, 2 or 3 staging buffers", o->depth);
	if (!o->reads)
		o->reads = 4;
	if (o->reads > READS_MAX)
		return gf_arg_error(fn, "reads %u per chunk: at most %u", o->reads, READS_MAX);
	if (o->gpu < -1)
		return gf_arg_error(fn, "gpu %d: an NVML index, or -1 for pci", o->gpu);
	if (o->gpu < 0 && !o->pci)
		return gf_arg_error(fn, "pci is NULL (gpu -1: pci names the GPU)");
	if (o->gpu < 0 && !*o->pci)
		return gf_arg_error(fn, "pci is empty (gpu -1: pci names the GPU)");
	if (o->numa_node < -1)
		return gf_arg_error(fn, "numa_node %d: a node, or -1 for the GPU's", o->numa_node);
	return 0;
}

/* The GPU's NUMA node for its staging memory, as the machine model has it
 * (the caller's model, else this machine's discovered with the defaults):
 * the GPU's node, else, for a device CUDA opens that the model does not call
 * a GPU (NVML hides it, or a stand-in), the node the model resolves for that
 * PCI device by the same rules; *node -1 when the model does not know it. */
static int gpu_node(const struct gf_xfer_opts *o, const char *pci, int *node)
{
	struct gf_topo *own = NULL;
	const struct gf_topo *t = o->model;
	int n, rc;

	*node = -1;
	if (!t) {
		if ((rc = gf_topo_discover(NULL, &own)))
			return gf_error(rc, "transfer: the GPU's NUMA node: %s", gf_last_error());
		t = own;
	}
	if ((n = gf_topo_pci_node(t, pci)) >= 0)
		*node = n;
	gf_topo_free(own);
	return 0;
}

static int open_path(struct gf_xfer *x)
{
	switch (x->o.path) {
	case GF_XFER_BOUNCE: {
		struct gf_io_opts io = GF_IO_OPTS_INIT;
		int rc = gf_xfer_slots_open(x, x->o.depth, true);

		io.queue_depth = x->o.depth * x->o.reads;
		io.flags = GF_IO_BLOCK_WHEN_FULL;
		return rc ? rc : gf_io_open(&io, &x->io);
	}
	case GF_XFER_GDS: {
		int rc = gf_xfer_gds_open(x);

		return rc ? rc : gf_xfer_slots_open(x, 1, false);
	}
	case GF_XFER_NAIVE:
		return gf_xfer_slots_open(x, 1, false);
	}
	return -EINVAL;
}

int gf_xfer_open(const struct gf_xfer_opts *opts, struct gf_xfer **out)
{
	struct gf_xfer *x;
	int rc;

	if (out)
		*out = NULL;
	if (!opts || !out)
		return GF_NULL_ARG(!opts ? "opts" : "out");
	if ((rc = gf_opts_check(opts->struct_size, XFER_OPTS_V1_SIZE, "gf_xfer_open", "GF_XFER_OPTS_INIT")))
		return rc;
	x = calloc(1, sizeof(*x));
	if (!x)
		return gf_error(-ENOMEM, "transfer: out of memory");
	x->o = (struct gf_xfer_opts)GF_XFER_OPTS_INIT;
	gf_opts_copy(&x->o, sizeof(x->o), opts, opts->struct_size);
	rc = check_opts(&x->o);
	if (!rc)
		rc = x->o.gpu >= 0 ? gf_cuda_dev_open_nvml((unsigned)x->o.gpu, &x->dev)
				   : gf_cuda_dev_open_pci(x->o.pci, &x->dev);
	if (rc) {
		free(x);
		return rc;
	}
	x->cu = x->dev.ops;
	x->numa_node = x->o.numa_node;
	rc = x->o.numa_node >= 0 ? 0 : gpu_node(&x->o, x->dev.pci, &x->numa_node);
	if (!rc)
		rc = open_path(x);
	if (rc) {
		gf_xfer_close(x);
		return rc;
	}
	*out = x;
	return 0;
}

void gf_xfer_close(struct gf_xfer *x)
{
	if (!x)
		return;
	gf_cuda_dev_make_current(&x->dev);
	if (x->io)
		gf_io_close(x->io, GF_IO_CANCEL);
	gf_xfer_slots_close(x);
	gf_xfer_gds_close(x);
	gf_cuda_dev_close(&x->dev);
	free(x);
}

static double secs(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run(struct gf_xfer *x, struct gf_xfer_job *j)
{
	struct gf_xfer_stats st = { .path = x->o.path, .numa_node = x->numa_node };
	struct rusage r0, r1;
	off_t size;
	double t0;
	int rc;

	if (!j->dev)
		return gf_error(-EINVAL, "%s: no GPU memory to read into (device pointer 0)", j->name);
	size = lseek(j->fd, 0, SEEK_END);
	if (size < 0)
		return gf_error(-errno, "%s: %s", j->name, strerror(errno));
	j->file_size = (uint64_t)size;
	if (j->off > j->file_size || j->len > j->file_size - j->off)
		return gf_error(-EINVAL, "%s: bytes %llu to %llu run past its end (%llu bytes)", j->name,
				(unsigned long long)j->off, (unsigned long long)(j->off + j->len),
				(unsigned long long)j->file_size);
	if ((rc = gf_cuda_dev_make_current(&x->dev)))
		return rc;
	j->st = &st;
	getrusage(RUSAGE_SELF, &r0);
	t0 = now();
	switch (x->o.path) {
	case GF_XFER_BOUNCE: rc = j->len ? gf_xfer_bounce(x, j) : 0; break;
	case GF_XFER_GDS: rc = j->len ? gf_xfer_gds(x, j) : 0; break;
	case GF_XFER_NAIVE: rc = j->len ? gf_xfer_naive(x, j) : 0; break;
	}
	st.wall_s = now() - t0;
	getrusage(RUSAGE_SELF, &r1);
	st.cpu_user_s = secs(r1.ru_utime) - secs(r0.ru_utime);
	st.cpu_sys_s = secs(r1.ru_stime) - secs(r0.ru_stime);
	if (!rc)
		st.bytes = j->len;
	if (!st.api)
		st.api = x->o.path == GF_XFER_NAIVE ? "read" : "";
	st.compat_mode = x->compat;
	if (j->st_out)
		*j->st_out = st;
	return rc;
}

int gf_xfer_read_fd(struct gf_xfer *x, int fd, const char *name, uint64_t off, size_t len, uint64_t dev,
		    struct gf_xfer_stats *st)
{
	struct gf_xfer_job j = { .fd = fd, .name = name ? name : "file", .off = off, .len = len, .dev = dev,
				 .st_out = st };

	if (!x)
		return GF_NULL_ARG("x");
	if (fd < 0)
		return gf_error(-EBADF, "%s: not an open descriptor (%d)", j.name, fd);
	return run(x, &j);
}

int gf_xfer_read(struct gf_xfer *x, const char *path, uint64_t off, size_t len, uint64_t dev,
		 struct gf_xfer_stats *st)
{
	int fd = -1, rc;

	if (!x || !path)
		return GF_NULL_ARG(!x ? "x" : "path");
	if (!*path)
		return gf_error(-EINVAL, "transfer: no file (empty path)");
	/* bounce and gds read around the page cache; naive is the page
	 * cache's path by definition.  A file system without O_DIRECT
	 * (tmpfs before 6.6) still works, buffered. */
	if (x->o.path != GF_XFER_NAIVE)
		fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gf_error(-errno, "%s: %s", path, strerror(errno));
	rc = gf_xfer_read_fd(x, fd, path, off, len, dev, st);
	close(fd);
	return rc;
}

int gf_xfer_dev_alloc(struct gf_xfer *x, size_t len, uint64_t *dev)
{
	gf_cu_deviceptr p = 0;
	int rc;

	if (!x || !dev)
		return GF_NULL_ARG(!x ? "x" : "dev");
	*dev = 0;
	if (!len)
		return gf_arg_error(__func__, "len must be > 0");
	if ((rc = gf_mem_dev_alloc(&x->dev, len, "a transfer", &p)))
		return rc;
	*dev = p;
	return 0;
}

int gf_xfer_dev_free(struct gf_xfer *x, uint64_t dev)
{
	if (!x)
		return GF_NULL_ARG("x");
	gf_mem_dev_free(&x->dev, dev);
	return 0;
}

int gf_xfer_dtoh(struct gf_xfer *x, void *dst, uint64_t dev, size_t len)
{
	gf_cu_stream s;
	int rc;

	if (!x || (!dst && len))
		return GF_NULL_ARG(!x ? "x" : "dst");
	if ((rc = gf_cuda_dev_make_current(&x->dev)))
		return rc;
	if ((rc = gf_xfer_cu(x, x->cu->stream_create(&s, GF_CU_STREAM_NON_BLOCKING), "cuStreamCreate", "copy back")))
		return rc;
	rc = gf_xfer_cu(x, x->cu->memcpy_dtoh_async(dst, dev, len, s), "cuMemcpyDtoHAsync", "copy back");
	if (!rc)
		rc = gf_xfer_cu(x, x->cu->stream_synchronize(s), "cuStreamSynchronize", "copy back");
	x->cu->stream_destroy(s);
	return rc;
}

int gf_xfer_dev_clear(struct gf_xfer *x, uint64_t dev, size_t len)
{
	gf_cu_stream s;
	int rc;

	if (!x)
		return GF_NULL_ARG("x");
	if ((rc = gf_cuda_dev_make_current(&x->dev)))
		return rc;
	if ((rc = gf_xfer_cu(x, x->cu->stream_create(&s, GF_CU_STREAM_NON_BLOCKING), "cuStreamCreate", "clear")))
		return rc;
	rc = gf_xfer_cu(x, x->cu->memset_d8_async(dev, 0, len, s), "cuMemsetD8Async", "clear");
	if (!rc)
		rc = gf_xfer_cu(x, x->cu->stream_synchronize(s), "cuStreamSynchronize", "clear");
	x->cu->stream_destroy(s);
	return rc;
}

const char *gf_xfer_gpu_pci(const struct gf_xfer *x)
{
	if (!x) {
		GF_NULL_ARG("x");
		return NULL;
	}
	return x->dev.pci;
}

int gf_xfer_numa_node(const struct gf_xfer *x)
{
	if (!x)
		return GF_NULL_ARG("x");
	return x->numa_node;
}
