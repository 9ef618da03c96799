/* A seam for the tests: the races of the final swap made deterministic. */
#ifndef GF_RECORD_RECORD_HOOK_H
#define GF_RECORD_RECORD_HOOK_H

#include <stdbool.h>

/* When set, gf_record calls it with DIR once the recording is complete in
 * its temp directory, just before swapping it into DIR (what another
 * process could do at that moment, the hook does).  NULL outside tests. */
extern void (*gf_record_before_swap)(const char *dir);

/* When true, the final rename behaves as on a file system without
 * RENAME_NOREPLACE / RENAME_EXCHANGE (EINVAL), so the fallback is tested. */
extern bool gf_record_no_rename_flags;

#endif
