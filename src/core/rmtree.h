#ifndef GF_CORE_RMTREE_H
#define GF_CORE_RMTREE_H

/* gf_rmtree refuses a tree nested deeper (it keeps a directory open per
 * level); gf_tar_extract never makes one. */
#define GF_RMTREE_MAX_DEPTH 256

/* rm -rf without following symlinks and without crossing a mount point:
 * when a mount point lies inside `path`, nothing is removed and -EXDEV is
 * returned with a message naming it.  0 (also when path is absent) or
 * -errno with a message. */
int gf_rmtree(const char *path);

/* 0 when no mount point lies inside `path`, else -EXDEV with a message that
 * names the mount point as under `name` (the name the user knows `path` by:
 * it differs while a directory is moved aside). */
int gf_rmtree_check(const char *path, const char *name);

/* The same for a signal handler: only async-signal-safe system calls, no
 * allocation, no message, no depth limit (one directory open at a time, the
 * path below `path` kept in a PATH_MAX buffer on the stack).  It stops at
 * the first failure, and at a directory of another file system (st_dev),
 * leaving the rest.  0 (also when path is absent) or -errno. */
int gf_rmtree_signal_safe(const char *path);

#endif
