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

#endif
