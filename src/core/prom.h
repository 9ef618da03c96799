/* The Prometheus text exposition format, written once for every metric
 * gpufeed writes: the audit's node_exporter textfile (check --prom) today,
 * the exporter next.  A metric family is its HELP and TYPE lines, then its
 * samples; label values are escaped as the format asks (\\, \" and \n) so a
 * string from a recording cannot end a label or a line.
 * https://prometheus.io/docs/instrumenting/exposition_formats/ */
#ifndef GF_CORE_PROM_H
#define GF_CORE_PROM_H

#include <stdio.h>

/* "# HELP name help" and "# TYPE name type" (gauge, counter...). */
void gf_prom_family(FILE *f, const char *name, const char *type, const char *help);
/* One sample: name{k1="v1",...} value.  labels is NULL or pairs of key and
 * value ended by a NULL key; a NULL value is written as "".  NaN and the
 * infinities as the format spells them, whole numbers without a fraction. */
void gf_prom_sample(FILE *f, const char *name, const char *const *labels, double value);

#endif
