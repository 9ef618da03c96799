/* A recording also holds what hwloc's Linux backend reads, so a user can
 * open it in lstopo (`lstopo -i DIR`, `HWLOC_FSROOT=DIR lstopo`). */
#ifndef GF_RECORD_RECORD_HWLOC_H
#define GF_RECORD_RECORD_HWLOC_H

#include "core/fs.h"

/* Reads (through fs, whose recorder copies them) the CPU, cache, NUMA,
 * PCI and OS-device files hwloc reads; absent ones are skipped.  A copy
 * that fails is the recorder's error (rec->error), which the caller checks
 * after all reading is done. */
void gf_record_hwloc(const struct gf_fs *fs);

#endif
