/* Files we create appear whole or not at all: write a temp file beside the
 * target, fsync, rename. */
#ifndef GF_CORE_ATOMIC_H
#define GF_CORE_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

/* A new temp file beside path (path.tmp-XXXXXX, its name in tmp): the fd,
 * or -errno with a message naming path. */
int gf_atomic_tmp(const char *path, char *tmp, size_t size);

/* Calls fn(f, arg) on a temp file in path's directory; renames it to path
 * when fn returns 0 and every write succeeded.  A path that is not a
 * regular file follows <gpufeed/outfile.h>: a character device or a FIFO
 * is written in place, a symlink followed, anything else refused.  0 or
 * -errno (message names path). */
int gf_atomic_write(const char *path, int (*fn)(FILE *f, void *arg), void *arg);

#endif
