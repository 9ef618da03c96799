/* The monitor's sample written out: the terminal table `gpufeed watch`
 * prints (docs/watch.md), one JSON object a line (docs/json-monitor.md) and
 * CSV, for watch, the exporter and diagnose alike:
 *
 *   const struct gf_mon_sample *s;
 *   gf_monitor_sample(m, &s);
 *   gf_mon_sample_write_json(s, stdout);         (one line)
 *
 * Every writer prints a figure the sample does not have (NAN, GF_MON_NONE,
 * a clock or temperature of 0) as missing: "-" in the table, null in JSON,
 * an empty field in CSV; never as 0, which is a measurement. */
#ifndef GPUFEED_MONITOR_OUTPUT_H
#define GPUFEED_MONITOR_OUTPUT_H

#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/monitor.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The "schema" member of every JSON line. */
#define GF_MON_SCHEMA "gpufeed-monitor/1"

/* The widest line gf_mon_sample_print writes, in columns. */
#define GF_MON_PRINT_WIDTH 100

/* Flags of gf_mon_sample_print and gf_mon_sample_write_csv. */
#define GF_MON_OUT_HEADER 0x1u	/* the column header first (print: the GPU table's
				 * two lines, names and units; CSV: the header row) */

/* One sample as text lines of at most GF_MON_PRINT_WIDTH columns: a line
 * with the time and the interval, one row per GPU (SM activity, occupancy,
 * tensor and DRAM activity, memory used, PCIe and NVLink rx/tx in GB/s and
 * the busier direction as a percentage of the model's limit, power and its
 * limit, SM and memory clocks, temperature, throttle reasons, the last XID,
 * ECC counts), then one compact row per NUMA node, disk, NIC, the page cache
 * and, with a process, its share: its CPUs and run-queue wait, I/O, its
 * GPUs' share, the nodes and CPUs its threads ran on and its busiest
 * threads.  A long name or reason is cut to its column.  With
 * GF_MON_OUT_HEADER the GPU table's header comes first (callers repeat it
 * every screenful, as nvidia-smi dmon does).  Returns the number of lines
 * written (>= 0), -EINVAL for s or f NULL or an unknown flag, -EIO when
 * writing failed. */
GF_API int gf_mon_sample_print(const struct gf_mon_sample *s, FILE *f, unsigned flags);

/* One sample as one JSON object on one line (docs/json-monitor.md,
 * "schema": GF_MON_SCHEMA): the fields of struct gf_mon_sample and its
 * parts under their C names, in their units (bytes, bytes/s, fractions
 * 0..1); a missing figure is null.  0, -EINVAL for s or f NULL, -ENOMEM,
 * -EIO when writing failed. */
GF_API int gf_mon_sample_write_json(const struct gf_mon_sample *s, FILE *f);

/* One sample as one CSV row (RFC 4180), one column per figure: t,
 * interval_s, then gpuN.<field> for each GPU by index, nodeN.<field>,
 * disk.NAME.<field>, nic.NAME.<field>, pagecache.<field> and, with a
 * process, proc.<field> (docs/json-monitor.md: the same names and units as
 * JSON; the process's threads are not in CSV).  The columns depend on the
 * sample's GPUs, nodes, disks and NICs, which stay the same for one
 * monitor, so a header written from the first sample fits every row.
 * GF_MON_OUT_HEADER writes the header row first.  A missing figure is an
 * empty field.  0, -EINVAL for s or f NULL or an unknown flag, -EIO when
 * writing failed. */
GF_API int gf_mon_sample_write_csv(const struct gf_mon_sample *s, FILE *f, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif
