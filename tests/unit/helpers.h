/* Shared by the unit tests: temp directories, file writing, fixture paths. */
#ifndef GF_TEST_HELPERS_H
#define GF_TEST_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* A fresh directory under $TMPDIR; removed by t_rmtree. */
char *t_mkdtemp(void);
void t_rmtree(const char *dir);
/* Write text to dir/rel, creating parent directories. */
void t_write(const char *dir, const char *rel, const char *text);
void t_write_bytes(const char *dir, const char *rel, const void *data, size_t len);
void t_symlink(const char *dir, const char *rel, const char *target);
/* Whole file or NULL. */
char *t_read(const char *path);
/* tests/fixtures/machines/<name>/root, from $GPUFEED_SRC (default "."). */
const char *t_fixture_root(const char *name);
const char *t_src_path(const char *rel);
/* Copy a directory tree (symlinks kept), its files as hard links: change
 * a file of the copy only by replacing it (t_write does). */
void t_copytree(const char *from, const char *to);
/* The same with files of its own: where the code under test writes into
 * the copy (tune and revert write a recording's value files). */
void t_copytree_bytes(const char *from, const char *to);

/* The machine's options as a compound literal, for an options struct's
 * machine field in the same block: T_MACHINE(.root = dir, .nvml = OFF). */
#define T_MACHINE(...) \
	(&(struct gf_topo_options){ .struct_size = sizeof(struct gf_topo_options), __VA_ARGS__ })

/* This machine's model, without NVML (free it with gf_topo_free). */
struct gf_topo;
struct gf_topo *t_live_model(void);

/* Points the vendor libraries at the stand-ins tests/run.sh names (the build
 * under test's: GPUFEED_FAKE_CUDA, _NVML, _CUFILE), else build/'s, and
 * clears every stand-in scenario and the locality override a test may have
 * left set. */
void t_use_fakes(void);

/* The stand-in libcuda's live allocations and registrations (its test
 * hook); -1 when it is not loaded (GPUFEED_CUDA_LIBRARY names it). */
int t_fake_cuda_live(void);

#endif
