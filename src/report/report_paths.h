/* The report's grouped path table (report_paths.c). */
#ifndef GF_REPORT_PATHS_H
#define GF_REPORT_PATHS_H

#include <stdio.h>
#include <gpufeed/topo.h>

/* Per group of GPUs whose paths are the same: host memory, slowest peer,
 * nearest NIC, nearest NVMe.  0, or -1 out of memory. */
int gf_report_print_paths(const struct gf_topo *t, FILE *f);

#endif
