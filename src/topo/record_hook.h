/* A seam for the tests: the races of the final swap made deterministic. */
#ifndef GF_TOPO_RECORD_HOOK_H
#define GF_TOPO_RECORD_HOOK_H

/* When set, gf_record calls it with DIR once the recording is complete in
 * its temp directory, just before swapping it into DIR (what another
 * process could do at that moment, the hook does).  NULL outside tests. */
extern void (*gf_record_before_swap)(const char *dir);

#endif
