/* Output pieces every bench target shares: numbers as JSON, a point's
 * samples with their median and spread, the topology summary, and the
 * human matrix (rows = CPU nodes or source devices, columns = memory nodes
 * or destinations, as MLC and nvbandwidth print them). */
#ifndef GF_BENCH_OUTPUT_H
#define GF_BENCH_OUTPUT_H

#include <stdio.h>
#include <jansson.h>
#include <gpufeed/topo.h>

#include "bench/runner.h"

/* A number rounded to three decimals (readable diffs); non-finite as 0. */
json_t *gf_bench_jnum(double v);

/* {"unit", "n", "median", "min", "max", "q1", "q3", "iqr", "mean",
 * "samples": [...]} for a point that ran; {"status": "error", "error"}
 * for one that failed. */
json_t *gf_bench_json_point(const struct gf_runner_point *p, const char *unit);

/* {"hostname", "kernel", "cpu_model", "cpus", "numa_nodes",
 * "memory_bytes", "hypervisor", "nodes": [{"node", "cpus",
 * "memory_bytes", "distance": [...]}]} from the machine model. */
json_t *gf_bench_json_topology(const struct gf_topo *t);

/* A matrix: title, then a header of column labels and one row per row
 * label; cells[r * ncols + c] printed with fmt ("%.1f"), NAN as "-". */
void gf_bench_print_matrix(FILE *f, const char *title, const char *corner, const char *const *rows,
			   unsigned nrows, const char *const *cols, unsigned ncols, const double *cells,
			   const char *fmt);

#endif
