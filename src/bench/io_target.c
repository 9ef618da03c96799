/* What `bench io` measures on: the file or device, the disk under it and
 * its NUMA node (from the machine model), the file's creation and removal,
 * and page cache control for cold and warm runs. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gpufeed/topo.h>
#include "bench/io_bench.h"
#include "core/error.h"
#include "core/strutil.h"
#include "io/file.h"

/* The whole disk under a file or partition: "vda" for /dev/vda1. */
static void disk_of(dev_t dev, char *name, size_t size)
{
	char link[64], real[PATH_MAX], part[PATH_MAX + 16];
	char *base;

	name[0] = '\0';
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(link, real))
		return;
	snprintf(part, sizeof(part), "%s/partition", real);
	if (access(part, F_OK) == 0)
		*strrchr(real, '/') = '\0';
	base = strrchr(real, '/');
	gf_strlcpy(name, base ? base + 1 : real, size);
}

static int from_model(struct gf_bench_io *b)
{
	struct gf_topo_options to = { .struct_size = sizeof(to), .nvml = GF_NVML_OFF, .root = b->opts.root,
				      .pci_locality = b->opts.pci_locality };
	struct gf_bench_target *t = &b->target;
	struct gf_topo *topo = NULL;

	if (gf_topo_discover(&to, &topo)) {
		if (b->opts.numa_node >= 0)
			return gf_error(-ENODEV, "--numa-node %d: the machine model is not available: %s",
					b->opts.numa_node, gf_last_error());
		return 0;	/* automatic placement is a nicety: run without it */
	}
	gf_strlcpy(t->hostname, topo->machine.hostname, sizeof(t->hostname));
	gf_strlcpy(t->kernel, topo->machine.kernel, sizeof(t->kernel));
	t->ncpus = (int)gf_cpuset_count(&topo->cpus.online);
	t->nnodes = topo->numa.nnodes;
	t->mem_bytes = topo->machine.memory_bytes;
	for (int i = 0; i < topo->nblocks; i++) {
		const struct gf_block *blk = &topo->blocks[i];
		if (strcmp(blk->name, t->device))
			continue;
		gf_strlcpy(t->model, blk->model, sizeof(t->model));
		t->device_numa_node = blk->numa_node;
		if (blk->pci >= 0) {
			const struct gf_pcie_link *l = &topo->pci[blk->pci].link;
			if (l->cur_gts > 0 && l->cur_width > 0)
				snprintf(t->pcie, sizeof(t->pcie), "PCIe %.1f GT/s x%d", l->cur_gts, l->cur_width);
		}
	}
	if (b->opts.numa_node >= 0) {
		bool known = false;
		char nodes[64] = "";
		for (int i = 0; i < topo->numa.nnodes; i++) {
			size_t l = strlen(nodes);
			known |= topo->numa.node[i].id == b->opts.numa_node;
			snprintf(nodes + l, sizeof(nodes) - l, "%s%d", i ? "," : "", topo->numa.node[i].id);
		}
		if (!known) {
			int n = b->opts.numa_node;
			gf_topo_free(topo);
			return gf_error(-ENODEV, "--numa-node %d: no such NUMA node here (nodes: %s)", n,
					nodes[0] ? nodes : "none");
		}
		t->numa_node = b->opts.numa_node;
		gf_strlcpy(t->numa_source, "option", sizeof(t->numa_source));
	} else if (b->opts.numa_node == -1 && t->device_numa_node >= 0) {
		t->numa_node = t->device_numa_node;
		gf_strlcpy(t->numa_source, "drive", sizeof(t->numa_source));
	}
	for (int i = 0; i < topo->numa.nnodes && t->numa_node >= 0; i++) {
		struct gf_cpuset cpus;
		if (topo->numa.node[i].id != t->numa_node)
			continue;
		gf_cpuset_and(&cpus, &topo->numa.node[i].cpus, &topo->cpus.allowed);
		b->cpus = cpus;
		b->have_cpus = !gf_cpuset_empty(&cpus);
		gf_cpuset_format_list(&cpus, t->cpus, sizeof(t->cpus));
	}
	gf_topo_free(topo);
	return 0;
}

/* Lays out a new file with real data (not fallocate: reads of unwritten
 * extents never touch the disk and would flatter every read figure),
 * through the checkpoint writer: O_DIRECT, overlapped, synced, and the
 * placeholder we created is replaced only when all of it is written. */
static int layout(struct gf_bench_io *b)
{
	struct gf_io_opts o = { .backend = GF_IO_AUTO, .queue_depth = 8 };
	struct gf_ckpt_opts co = { .direct = true, .chunk = 4u << 20 };
	const size_t pattern = 8u << 20;
	uint64_t off = 0, size = b->target.size;
	struct gf_ckpt *c = NULL;
	struct gf_io *io = NULL;
	void *data = malloc(pattern);
	int rc;

	if (!data)
		return gf_error(-ENOMEM, "bench io: out of memory");
	gf_bench__fill(data, pattern, 0x9e3779b97f4a7c15ull);
	rc = gf_io_open(&o, &io);
	if (!rc)
		rc = gf_ckpt_open(io, b->target.path, &co, &c);
	while (!rc && off < size) {
		size_t n = size - off < pattern ? (size_t)(size - off) : pattern;

		if (b->opts.cancel && *b->opts.cancel)
			rc = gf_error(-ECANCELED, "%s: cancelled while laying out", b->target.path);
		else
			rc = gf_ckpt_write(c, data, n);
		off += n;
	}
	if (c) {
		if (rc)
			gf_ckpt_abort(c);
		else
			rc = gf_ckpt_commit(c);
	}
	if (io)
		gf_io_close(io, GF_IO_DRAIN);
	free(data);
	return rc;
}

int gf_bench_io_open(const struct gf_bench_io_opts *opts, struct gf_bench_io **out)
{
	struct gf_bench_io *b;
	struct stat st;
	int rc = 0, fd;

	*out = NULL;
	if (!opts || !opts->path || !*opts->path)
		return gf_error(-EINVAL, "bench io: no path");
	b = calloc(1, sizeof(*b));
	if (!b)
		return gf_error(-ENOMEM, "bench io: out of memory");
	b->opts = *opts;
	b->target.numa_node = -1;
	b->target.device_numa_node = -1;
	b->target.buffer_node_actual = -1;
	gf_strlcpy(b->target.numa_source, "none", sizeof(b->target.numa_source));
	if (strlen(opts->path) >= sizeof(b->target.path)) {
		free(b);
		return gf_error(-ENAMETOOLONG, "bench io: path too long");
	}
	gf_strlcpy(b->target.path, opts->path, sizeof(b->target.path));

	if (stat(opts->path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			rc = gf_error(-EISDIR, "%s: a directory; give a file to create inside it", opts->path);
		else if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
			rc = gf_error(-EINVAL, "%s: not a regular file or a block device", opts->path);
		else if (opts->writes && !opts->force)
			rc = gf_error(-EEXIST, "%s: exists, and writing would destroy its contents; "
				      "add --force to allow it, or give a new file name", opts->path);
		if (rc)
			goto fail;
		b->target.block_device = S_ISBLK(st.st_mode);
		fd = open(opts->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			rc = gf_error(-errno, "%s: %s", opts->path, strerror(errno));
			goto fail;
		}
		b->target.size = (uint64_t)st.st_size;
		if (b->target.block_device) {
			struct gf_io *io;
			struct gf_file *f;
			struct gf_io_opts o = { .backend = GF_IO_PSYNC, .queue_depth = 1,
						.sqpoll_cpu = -1, .cpu_node = -1 };
			if (gf_io_open(&o, &io) == 0) {
				if (gf_file_from_fd(io, fd, 0, &f) == 0)
					b->target.size = gf_file_info(f)->size;
				gf_io_close(io, GF_IO_DRAIN);
			}
		}
		/* For a device node, statfs names /dev's file system: useless. */
		gf_strlcpy(b->target.fs, b->target.block_device ? "block device" : gf_fs_type_name(fd),
			   sizeof(b->target.fs));
		close(fd);
		disk_of(b->target.block_device ? st.st_rdev : st.st_dev, b->target.device,
			sizeof(b->target.device));
	} else if (errno == ENOENT) {
		b->target.size = opts->size ? opts->size : 1ull << 30;
		fd = open(opts->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			rc = gf_error(-errno, "%s: creating the test file: %s", opts->path, strerror(errno));
			goto fail;
		}
		b->target.created = true;
		if (fstat(fd, &st) == 0)
			disk_of(st.st_dev, b->target.device, sizeof(b->target.device));
		gf_strlcpy(b->target.fs, gf_fs_type_name(fd), sizeof(b->target.fs));
		close(fd);
	} else {
		rc = gf_error(-errno, "%s: %s", opts->path, strerror(errno));
		goto fail;
	}
	rc = from_model(b);
	if (rc)
		goto fail;
	if (b->target.created) {
		rc = layout(b);
		if (rc)
			goto fail;
	}
	if (!b->target.size) {
		rc = gf_error(-EINVAL, "%s: empty; nothing to read", opts->path);
		goto fail;
	}
	*out = b;
	return 0;
fail:
	gf_bench_io_close(b);
	return rc;
}

const struct gf_bench_target *gf_bench_io_target(const struct gf_bench_io *b)
{
	return &b->target;
}

void gf_bench_io_close(struct gf_bench_io *b)
{
	if (!b)
		return;
	if (b->target.created)
		unlink(b->target.path);
	free(b);
}

int gf_bench__drop_cache(struct gf_bench_io *b)
{
	int fd = open(b->target.path, O_RDONLY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return gf_error(-errno, "%s: %s", b->target.path, strerror(errno));
	/* Written pages must be clean before they can be dropped. */
	if (fdatasync(fd) && errno != EINVAL)
		rc = gf_error(-errno, "%s: fdatasync: %s", b->target.path, strerror(errno));
	if (!rc && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		rc = gf_error(-EIO, "%s: posix_fadvise(DONTNEED) failed", b->target.path);
	close(fd);
	return rc;
}

int gf_bench__warm_cache(struct gf_bench_io *b, uint64_t span)
{
	int fd = open(b->target.path, O_RDONLY | O_CLOEXEC);
	char *buf;
	uint64_t off = 0;
	int rc = 0;

	if (fd < 0)
		return gf_error(-errno, "%s: %s", b->target.path, strerror(errno));
	buf = malloc(1u << 20);
	if (!buf) {
		close(fd);
		return gf_error(-ENOMEM, "out of memory");
	}
	while (off < span) {
		ssize_t n = pread(fd, buf, 1u << 20, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = gf_error(-errno, "%s: warming the cache: %s", b->target.path, strerror(errno));
			break;
		}
		if (!n)
			break;
		off += (uint64_t)n;
	}
	free(buf);
	close(fd);
	return rc;
}
