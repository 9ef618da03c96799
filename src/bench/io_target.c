/* What `bench io` measures on: the file or device, the disk under it and
 * its NUMA node (from the machine model), the file's creation and removal,
 * and page cache control for cold and warm runs. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gpufeed/topo.h>
#include "bench/io_bench.h"
#include "core/error.h"
#include "core/opts.h"
#include "core/strutil.h"
#include "io/engine.h"
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
	const struct gf_topo *topo = b->opts.model;
	struct gf_bench_io_file *t = &b->target;

	if (!topo) {
		if (b->opts.numa_node >= 0)
			return gf_error(-ENODEV, "--numa-node %d: no machine model", b->opts.numa_node);
		return 0;	/* a caller without a model: no placement */
	}
	gf_strlcpy(t->hostname, topo->machine.hostname, sizeof(t->hostname));
	gf_strlcpy(t->kernel, topo->machine.kernel, sizeof(t->kernel));
	t->ncpus = (int)gf_cpuset_count(&topo->cpus.online);
	t->nnodes = topo->numa.nnodes;
	t->memory_bytes = topo->machine.memory_bytes;
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
		if (!known)
			return gf_error(-ENODEV, "--numa-node %d: no such NUMA node here (nodes: %s)",
					b->opts.numa_node, nodes[0] ? nodes : "none");
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
	return 0;
}

/* Lays out a new file with real data (not fallocate: reads of unwritten
 * extents never touch the disk and would flatter every read figure),
 * through the checkpoint writer: O_DIRECT, overlapped, synced, and the
 * placeholder we created is replaced only when all of it is written. */
static int layout(struct gf_bench_io *b)
{
	struct gf_io_opts o = { .struct_size = sizeof(struct gf_io_opts),
		.backend = GF_IO_AUTO, .queue_depth = 8, .cancel = b->opts.cancel };
	struct gf_ckpt_opts co = { .struct_size = sizeof(struct gf_ckpt_opts), .direct = true, .chunk = 4u << 20 };
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

/* maj:min of the device and of its partitions, for the mount table. */
static unsigned devices_of(dev_t dev, char (*out)[24], unsigned max)
{
	char path[PATH_MAX], sub[PATH_MAX + 300];
	unsigned n = 0;
	DIR *d;
	struct dirent *e;

	snprintf(out[n++], sizeof(out[0]), "%u:%u", major(dev), minor(dev));
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	d = opendir(path);
	while (d && (e = readdir(d)) && n < max) {
		char buf[32];
		FILE *f;

		snprintf(sub, sizeof(sub), "%s/%s/dev", path, e->d_name);
		f = e->d_name[0] != '.' ? fopen(sub, "r") : NULL;
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && strchr(buf, ':'))
			gf_strlcpy(out[n++], gf_strip(buf), sizeof(out[0]));
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* Where the device (or a partition of it) is mounted, from
 * /proc/self/mountinfo: "36 35 8:1 / /home rw - ext4 ..."; false if not. */
static bool mounted_at(dev_t dev, char *where, size_t size)
{
	char devs[64][24], line[4096];
	unsigned n = devices_of(dev, devs, 64);
	FILE *f = fopen("/proc/self/mountinfo", "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char mm[24], mnt[PATH_MAX];
		if (sscanf(line, "%*s %*s %23s %*s %4095s", mm, mnt) != 2)
			continue;
		for (unsigned i = 0; i < n && !found; i++) {
			if (!strcmp(mm, devs[i])) {
				gf_strlcpy(where, mnt, size);
				found = true;
			}
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* Writing a device that holds a mounted file system (or is held by
 * device-mapper, md, swap) destroys it: refused even with --force.  The
 * exclusive open is the kernel's own check (mkfs's), and holding it keeps
 * the device from being mounted while we run. */
static int claim_device(struct gf_bench_io *b, dev_t dev)
{
	char where[PATH_MAX];

	if (mounted_at(dev, where, sizeof(where)))
		return gf_error(-EBUSY, "%s: mounted on %s: writing it would destroy that file system "
				"(--force does not override this; unmount it first)", b->target.path, where);
	b->excl_fd = open(b->target.path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (b->excl_fd < 0 && errno == EBUSY)
		return gf_error(-EBUSY, "%s: in use by the system (mounted, a swap area, or held by "
				"device-mapper or md): writing it would destroy what is on it", b->target.path);
	if (b->excl_fd < 0)
		return gf_error(-errno, "%s: %s", b->target.path, strerror(errno));
	return 0;
}

/* What O_DIRECT needs of this target (statx DIOALIGN or the device's
 * block size, as the engine finds it); 0 when it is not available. */
static void direct_align(struct gf_bench_io *b)
{
	struct gf_io_opts o = GF_IO_OPTS_INIT;
	struct gf_io *io;
	struct gf_file *f;

	o.backend = GF_IO_PSYNC;
	o.queue_depth = 1;
	if (gf_io_open(&o, &io))
		return;
	if (gf_file_open(io, b->target.path, GF_FILE_DIRECT, 0, &f) == 0) {
		const struct gf_file_info *i = gf_file_info(f);
		if (i->direct)
			b->target.direct_align = i->offset_align > i->mem_align ? i->offset_align : i->mem_align;
		gf_file_close(f);
	}
	gf_io_close(io, GF_IO_DRAIN);
}

int gf_bench_io_open(const struct gf_bench_io_opts *opts, struct gf_bench_io **out)
{
	struct gf_bench_io *b;
	struct stat st;
	int rc = 0, fd;

	if (!out)
		return gf_error(-EINVAL, "bench io: gf_bench_io_open: NULL argument");
	*out = NULL;
	if (!opts)
		return gf_error(-EINVAL, "bench io: gf_bench_io_open: NULL options");
	if ((rc = gf_opts_check(opts->struct_size, offsetof(struct gf_bench_io_opts, cancel) + sizeof(opts->cancel),
				"gf_bench_io_open", "GF_BENCH_IO_OPTS_INIT")))
		return rc;
	if (!opts->path || !*opts->path)
		return gf_error(-EINVAL, "bench io: no path");
	b = calloc(1, sizeof(*b));
	if (!b)
		return gf_error(-ENOMEM, "bench io: out of memory");
	/* Fields an older caller's struct lacks keep their defaults. */
	b->opts = (struct gf_bench_io_opts)GF_BENCH_IO_OPTS_INIT;
	gf_opts_copy(&b->opts, sizeof(b->opts), opts, opts->struct_size);
	b->excl_fd = -1;
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
		if (b->target.block_device && opts->writes && (rc = claim_device(b, st.st_rdev)))
			goto fail;
		fd = open(opts->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			rc = gf_error(-errno, "%s: %s", opts->path, strerror(errno));
			goto fail;
		}
		b->target.size = (uint64_t)st.st_size;
		if (b->target.block_device) {
			struct gf_io *io;
			struct gf_file *f;
			struct gf_io_opts o = { .struct_size = sizeof(struct gf_io_opts),
						.backend = GF_IO_PSYNC, .queue_depth = 1,
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
		if (fstat(fd, &st) == 0) {
			disk_of(st.st_dev, b->target.device, sizeof(b->target.device));
			b->dev = st.st_dev;
			b->ino = st.st_ino;
		}
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
		/* The layout replaced our placeholder with the written file. */
		if (stat(opts->path, &st)) {
			rc = gf_error(-errno, "%s: %s", opts->path, strerror(errno));
			goto fail;
		}
		b->dev = st.st_dev;
		b->ino = st.st_ino;
	}
	if (!b->target.size) {
		rc = gf_error(-EINVAL, "%s: empty; nothing to read", opts->path);
		goto fail;
	}
	direct_align(b);
	*out = b;
	return 0;
fail:
	gf_bench_io_close(b);
	return rc;
}

const struct gf_bench_io_file *gf_bench_io_file(const struct gf_bench_io *b)
{
	return b ? &b->target : NULL;
}

bool gf_bench__ours(const struct gf_bench_io *b, const struct stat *st)
{
	return !b->target.created || (st->st_dev == b->dev && st->st_ino == b->ino);
}

int gf_bench_io_remove(struct gf_bench_io *b)
{
	struct stat st;

	if (!b)
		return gf_error(-EINVAL, "bench io: gf_bench_io_remove: NULL argument");
	if (!b->target.created || b->removed)
		return 0;
	b->removed = true;
	if (lstat(b->target.path, &st))
		return errno == ENOENT ? 0 : gf_error(-errno, "%s: %s", b->target.path, strerror(errno));
	if (!gf_bench__ours(b, &st))
		return gf_error(-ESTALE, "%s: no longer the file this run created (something was moved onto the "
				"path): left in place", b->target.path);
	if (unlink(b->target.path))
		return gf_error(-errno, "%s: removing it: %s", b->target.path, strerror(errno));
	return 0;
}

void gf_bench_io_close(struct gf_bench_io *b)
{
	if (!b)
		return;
	gf_bench_io_remove(b);
	if (b->excl_fd >= 0)
		close(b->excl_fd);
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

int gf_bench__warm_cache(struct gf_bench_io *b, uint64_t span, uint64_t budget_ns, uint64_t *warmed)
{
	uint64_t t0 = gf_io__now_ns();
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
		ssize_t n;

		if (b->opts.cancel && *b->opts.cancel) {
			rc = gf_error(-ECANCELED, "%s: cancelled while warming the cache", b->target.path);
			break;
		}
		if (gf_io__now_ns() - t0 >= budget_ns)
			break;	/* the point reads only what was warmed */
		n = pread(fd, buf, span - off < (1u << 20) ? (size_t)(span - off) : 1u << 20, (off_t)off);
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
	*warmed = off;
	return rc;
}
