/* Opening files for the engine: O_DIRECT where it works, alignment,
 * registration, the buffered twin for unaligned requests. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/log.h"
#include "io/file.h"

static int open_flags(unsigned flags)
{
	int o = O_CLOEXEC | ((flags & GF_FILE_WRITE) ? O_RDWR : O_RDONLY);

	if (flags & GF_FILE_CREATE)
		o |= O_CREAT;
	if (flags & GF_FILE_TRUNC)
		o |= O_TRUNC;
	if (flags & GF_FILE_EXCL)
		o |= O_EXCL;
	return o;
}

void gf_file__drop_direct(struct gf_file *f, const char *why)
{
	f->info.direct = false;
	f->info.direct_refused = true;
	f->info.mem_align = f->info.offset_align = 1;
	GF_WARN(GF_LOG_IO, "%s: %s on %s; using the page cache", f->path, why, f->info.fs_type);
	/* Route everything through the buffered twin from now on. */
	if (f->fd_buffered < 0)
		gf_file__buffered_fd(f);
	if (f->fd_buffered >= 0) {
		if (f->fd_slot >= 0 && f->io->ops->file_unregister)
			f->io->ops->file_unregister(f->io, f->fd_slot);
		f->fd_slot = -1;
		/* Keep f->fd for closing; issues read fd, so swap them. */
		int tmp = f->fd;
		f->fd = f->fd_buffered;
		f->fd_buffered = tmp;
		f->fd_swapped = true;
	}
}

int gf_file__buffered_fd(struct gf_file *f)
{
	char link[64];
	int fd;

	if (f->fd_buffered >= 0 && !f->fd_swapped)
		return f->fd_buffered;
	if (f->fd_swapped)
		return f->fd;
	/* Reopen through /proc: works for paths gone since and for
	 * descriptors we were handed. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", f->fd);
	fd = open(link, open_flags(f->flags & GF_FILE_WRITE));
	if (fd < 0)
		return gf_error(-errno, "%s: opening without O_DIRECT for an unaligned request: %s",
				f->path, strerror(errno));
	f->fd_buffered = fd;
	return fd;
}

static int setup(struct gf_io *io, int fd, bool owns, unsigned flags, const char *name,
		 bool direct_refused, struct gf_file **out)
{
	struct gf_file *f;
	struct stat st;
	int fl;

	if (fstat(fd, &st))
		return gf_error(-errno, "%s: %s", name, strerror(errno));
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return gf_error(-EINVAL, "%s: not a regular file or a block device", name);
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(name))) {
		free(f);
		return gf_error(-ENOMEM, "%s: out of memory", name);
	}
	f->io = io;
	f->fd = fd;
	f->fd_buffered = -1;
	f->fd_slot = -1;
	f->owns_fd = owns;
	f->flags = flags;
	f->info.block_device = S_ISBLK(st.st_mode);
	f->info.size = (uint64_t)st.st_size;
	if (f->info.block_device) {
		uint64_t sz = 0;
		if (ioctl(fd, BLKGETSIZE64, &sz) == 0)
			f->info.size = sz;
	}
	fl = fcntl(fd, F_GETFL);
	f->info.direct = fl >= 0 && (fl & O_DIRECT);
	if (f->info.direct)
		gf_dio_align(fd, &f->info.mem_align, &f->info.offset_align);
	else
		f->info.mem_align = f->info.offset_align = 1;
	f->info.fs_type = f->info.block_device ? "block device" : gf_fs_type_name(fd);
	f->info.direct_refused = direct_refused;
	if (direct_refused)
		GF_WARN(GF_LOG_IO, "%s: O_DIRECT refused by %s; using the page cache", name, f->info.fs_type);
	if (io->ops->file_register) {
		int slot = io->ops->file_register(io, fd);
		f->fd_slot = slot >= 0 ? slot : -1;	/* no slot: plain fd, still works */
	}
	f->next = io->files;
	io->files = f;
	*out = f;
	return 0;
}

int gf_file_open(struct gf_io *io, const char *path, unsigned flags, mode_t mode, struct gf_file **out)
{
	bool direct = flags & (GF_FILE_DIRECT | GF_FILE_DIRECT_REQUIRED);
	bool existed = true;
	bool refused = false;
	int fd, rc;

	if (out)
		*out = NULL;
	if (!io || !path || !out)
		return GF_NULL_ARG(!io ? "io" : !path ? "path" : "out");
	if (!*path)
		return gf_error(-EINVAL, "open: empty path");
	if (flags & ~GF_FILE__FLAGS)
		return gf_arg_error(__func__, "flags 0x%x: unknown bits 0x%x", flags, flags & ~GF_FILE__FLAGS);
	/* Linux creates the file before it checks O_DIRECT (ramfs refuses
	 * it after O_CREAT did its work): know whether the file was there. */
	if (direct && (flags & GF_FILE_CREATE))
		existed = !(flags & GF_FILE_EXCL) && access(path, F_OK) == 0;
	fd = open(path, open_flags(flags) | (direct ? O_DIRECT : 0), mode ? mode : 0644);
	if (fd < 0 && errno == EINVAL && direct) {
		bool created = !existed && access(path, F_OK) == 0;

		if (flags & GF_FILE_DIRECT_REQUIRED) {
			if (created)
				unlink(path);
			return gf_error(-EINVAL, "%s: O_DIRECT refused by the file system", path);
		}
		/* Without O_EXCL when the refused open created the file. */
		fd = open(path, open_flags(created ? flags & ~GF_FILE_EXCL : flags), mode ? mode : 0644);
		refused = fd >= 0;
	}
	if (fd < 0)
		return gf_error(-errno, "%s: %s", path, strerror(errno));
	rc = setup(io, fd, true, flags, path, refused, out);
	if (rc)
		close(fd);
	return rc;
}

int gf_file_from_fd(struct gf_io *io, int fd, unsigned flags, struct gf_file **out)
{
	char name[32];

	if (out)
		*out = NULL;
	if (!io || !out)
		return GF_NULL_ARG(!io ? "io" : "out");
	if (flags & ~GF_FILE__FLAGS)
		return gf_arg_error(__func__, "flags 0x%x: unknown bits 0x%x", flags, flags & ~GF_FILE__FLAGS);
	snprintf(name, sizeof(name), "fd %d", fd);
	return setup(io, fd, false, flags, name, false, out);
}

const struct gf_file_info *gf_file_info(const struct gf_file *f)
{
	if (!f) {
		GF_NULL_ARG("f");
		return NULL;
	}
	return &f->info;
}

int gf_file_fd(const struct gf_file *f)
{
	if (!f)
		return GF_NULL_ARG("f");
	return f->fd_swapped ? f->fd_buffered : f->fd;
}

int gf_file_close(struct gf_file *f)
{
	struct gf_file **pp;

	if (!f)
		return 0;
	if (f->inflight)
		return gf_error(-EBUSY, "%s: %u requests in flight", f->path, f->inflight);
	for (pp = &f->io->files; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	if (f->fd_slot >= 0 && f->io->ops->file_unregister)
		f->io->ops->file_unregister(f->io, f->fd_slot);
	if (f->fd_swapped) {
		/* fd is our twin, fd_buffered the caller's original. */
		close(f->fd);
		if (f->owns_fd)
			close(f->fd_buffered);
	} else {
		if (f->fd_buffered >= 0)
			close(f->fd_buffered);
		if (f->owns_fd)
			close(f->fd);
	}
	free(f->path);
	free(f);
	return 0;
}
