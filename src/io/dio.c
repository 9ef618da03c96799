/* What O_DIRECT needs on a descriptor: alignment and the file system.
 *
 * Kept apart because it talks to <linux/stat.h> (statx with
 * STATX_DIOALIGN, newer than glibc 2.36's struct) through the raw system
 * call, which does not mix with <sys/stat.h>. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fs.h"
#include "io/file.h"

#ifndef STATX_DIOALIGN
#define STATX_DIOALIGN 0x00002000U
#endif

static long sysfs_lbs(unsigned maj, unsigned min)
{
	static const char *const fmt[] = {
		"/sys/dev/block/%u:%u/queue/logical_block_size",
		"/sys/dev/block/%u:%u/../queue/logical_block_size",	/* a partition */
	};
	struct gf_fs fs;
	long long v = 0;

	if (gf_fs_init(&fs, NULL))
		return 0;
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]) && v <= 0; i++) {
		char path[96];

		snprintf(path, sizeof(path), fmt[i], maj, min);
		if (gf_fs_read_ll(&fs, path, &v))
			v = 0;
	}
	gf_fs_fini(&fs);
	return v > 0 ? (long)v : 0;
}

static int is_pow2(unsigned long v)
{
	return v && !(v & (v - 1));
}

void gf_dio_align(int fd, uint32_t *mem_align, uint32_t *offset_align)
{
	struct statx stx;
	long pg = sysconf(_SC_PAGESIZE), lbs = 0;

	if (pg <= 0)
		pg = 4096;
	memset(&stx, 0, sizeof(stx));
	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_DIOALIGN | STATX_TYPE, &stx) == 0) {
		if ((stx.stx_mask & STATX_DIOALIGN) && is_pow2(stx.stx_dio_offset_align) &&
		    is_pow2(stx.stx_dio_mem_align)) {
			*mem_align = stx.stx_dio_mem_align;
			*offset_align = stx.stx_dio_offset_align;
			return;
		}
		if ((stx.stx_mode & S_IFMT) == S_IFBLK) {
			int v = 0;
			if (ioctl(fd, BLKSSZGET, &v) == 0 && v > 0)
				lbs = v;
		} else {
			lbs = sysfs_lbs(stx.stx_dev_major, stx.stx_dev_minor);
		}
	}
	/* Unknown (tmpfs, network file systems): the page size satisfies
	 * every Linux O_DIRECT implementation. */
	if (!is_pow2((unsigned long)lbs))
		lbs = pg;
	*mem_align = (uint32_t)lbs;
	*offset_align = (uint32_t)lbs;
}

const char *gf_fs_type_name(int fd)
{
	static const struct { unsigned long magic; const char *name; } known[] = {
		{ EXT4_SUPER_MAGIC, "ext4" }, { XFS_SUPER_MAGIC, "xfs" }, { BTRFS_SUPER_MAGIC, "btrfs" },
		{ TMPFS_MAGIC, "tmpfs" }, { RAMFS_MAGIC, "ramfs" }, { NFS_SUPER_MAGIC, "nfs" },
		{ OVERLAYFS_SUPER_MAGIC, "overlayfs" }, { 0x65735546UL, "fuse" }, { 0x2fc12fc1UL, "zfs" },
		{ 0x01021997UL, "9p" }, { BDEVFS_MAGIC, "block device" },
	};
	struct statfs s;

	if (fstatfs(fd, &s))
		return "unknown";
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if ((unsigned long)s.f_type == known[i].magic)
			return known[i].name;
	return "unknown";
}
