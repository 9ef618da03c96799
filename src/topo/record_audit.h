#ifndef GF_TOPO_RECORD_AUDIT_H
#define GF_TOPO_RECORD_AUDIT_H

#include <gpufeed/topo.h>

struct gf_recorder;
struct gf_fs;

/* Copies what the audit and the config emitters read beyond discovery:
 * without it, check and config on a recording would differ from live. */
void gf_record_audit_files(struct gf_recorder *rec, const struct gf_fs *fs, const struct gf_topo *t);

#endif
