#ifndef GF_CORE_RMTREE_H
#define GF_CORE_RMTREE_H

/* rm -rf without following symlinks; 0 or -errno. */
int gf_rmtree(const char *path);

#endif
