/* The figures of a sample by name, for the JSON and CSV writers: one table
 * per part, so both write the same names in the same units and treat a
 * missing figure alike (docs/json-monitor.md). */
#ifndef GF_MONITOR_OUTPUT_FIELDS_H
#define GF_MONITOR_OUTPUT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gpufeed/monitor.h>

enum gf_mon_field_kind {
	GF_MF_INT,		/* int, always known */
	GF_MF_INDEX,		/* int, -1 unknown (a CPU, a node) */
	GF_MF_PID,		/* pid_t */
	GF_MF_UNSIGNED,		/* unsigned, always known */
	GF_MF_UNSIGNED_NZ,	/* unsigned, 0 unknown (clocks, temperature) */
	GF_MF_U64,		/* uint64_t, GF_MON_NONE unknown */
	GF_MF_DOUBLE,		/* double, NAN unknown; `decimals` kept */
	GF_MF_BOOL,
	GF_MF_CHARS,		/* char[], "" unknown */
	GF_MF_STRING,		/* const char *, NULL unknown */
};

struct gf_mon_field {
	const char *name;
	enum gf_mon_field_kind kind;
	size_t off;
	int decimals;		/* GF_MF_DOUBLE: 0 writes an integer */
	bool identity;		/* names the part (index, uuid, name): CSV has it in the column name */
	bool guarded;		/* known only when the uint64_t at guard is not GF_MON_NONE
				 * (throttle "" is "no reason" when the reasons were read) */
	size_t guard;
};

/* One figure read out of a part. */
struct gf_mon_value {
	enum { GF_MV_NULL, GF_MV_INT, GF_MV_UINT, GF_MV_REAL, GF_MV_BOOL, GF_MV_STRING } type;
	long long i;		/* INT, BOOL */
	unsigned long long u;	/* UINT */
	double d;		/* REAL, rounded to the field's decimals */
	const char *s;		/* STRING */
};

extern const struct gf_mon_field gf_mon_gpu_fields[], gf_mon_node_fields[], gf_mon_disk_fields[],
	gf_mon_nic_fields[], gf_mon_pagecache_fields[], gf_mon_proc_fields[], gf_mon_thread_fields[];

/* The value of field f of the part at `part` (a struct gf_mon_gpu, ...);
 * the table that holds f says which struct. */
struct gf_mon_value gf_mon_field_get(const struct gf_mon_field *f, const void *part);

/* The arguments every writer takes: -EINVAL naming func when s or f is
 * NULL or flags has a bit other than `known`. */
int gf_mon_out_args(const char *func, const struct gf_mon_sample *s, const void *f, unsigned flags, unsigned known);

/* True when the sample holds page cache figures (they are zeros when the
 * part was not sampled: struct gf_mon_sample). */
bool gf_mon_pagecache_known(const struct gf_mon_pagecache *p);

#endif
