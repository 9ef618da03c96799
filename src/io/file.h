/* Files of the engine: opening with O_DIRECT where it works, alignment,
 * the buffered twin descriptor for unaligned requests. */
#ifndef GF_IO_FILE_H
#define GF_IO_FILE_H

#include <stdint.h>
#include "io/engine.h"

/* Every GF_FILE_* flag: others are refused, never silently ignored. */
#define GF_FILE__FLAGS \
	(GF_FILE_WRITE | GF_FILE_CREATE | GF_FILE_TRUNC | GF_FILE_EXCL | GF_FILE_DIRECT | GF_FILE_DIRECT_REQUIRED)

/* The file's descriptor without O_DIRECT (opened on first use). */
int gf_file__buffered_fd(struct gf_file *f);
/* Stop using O_DIRECT on f (direct_refused), saying why on the channel. */
void gf_file__drop_direct(struct gf_file *f, const char *why);
/* Buffer and offset alignment O_DIRECT needs on fd: statx STATX_DIOALIGN,
 * else the device's logical block size, else the page size. */
void gf_dio_align(int fd, uint32_t *mem_align, uint32_t *offset_align);
/* "ext4", "tmpfs", "ramfs", ... or "unknown" for the file system of fd. */
const char *gf_fs_type_name(int fd);

#endif
