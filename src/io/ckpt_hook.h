/* A seam for the tests: the race of the checkpoint's final swap made
 * deterministic (as topo/record_hook.h does for recordings). */
#ifndef GF_IO_CKPT_HOOK_H
#define GF_IO_CKPT_HOOK_H

#include <stdbool.h>

/* When set, gf_ckpt_commit calls it with the target path once the data is
 * synced, just before the swap (what another process could do at that
 * moment, the hook does).  NULL outside tests. */
extern void (*gf_ckpt_before_swap)(const char *path);

/* When true, the swap behaves as on a file system without RENAME_NOREPLACE
 * / RENAME_EXCHANGE (EINVAL), so the fallback is tested. */
extern bool gf_ckpt_no_rename_flags;

#endif
