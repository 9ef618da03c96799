/* The figures of a sample by name (output_fields.h): the JSON and CSV
 * writers walk these tables, so the two cannot name or round a figure
 * differently. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/error.h"
#include "monitor/output_fields.h"

#define F(type, field, kind, dec) { #field, kind, offsetof(type, field), dec, false, false, 0 }
#define ID(type, field, kind) { #field, kind, offsetof(type, field), 0, true, false, 0 }
#define GUARDED(type, field, kind, by) { #field, kind, offsetof(type, field), 0, false, true, offsetof(type, by) }
#define END { NULL, GF_MF_INT, 0, 0, false, false, 0 }

/* Fractions of time keep 4 decimals (0.01%), bytes and bytes/s are whole
 * numbers, rates of events 2 decimals, watts 1. */
#define FRAC 4
#define WHOLE 0
#define RATE 2

#define G(field, kind, dec) F(struct gf_mon_gpu, field, kind, dec)
const struct gf_mon_field gf_mon_gpu_fields[] = {
	ID(struct gf_mon_gpu, index, GF_MF_INT),
	ID(struct gf_mon_gpu, uuid, GF_MF_CHARS),
	ID(struct gf_mon_gpu, pci, GF_MF_CHARS),
	ID(struct gf_mon_gpu, name, GF_MF_CHARS),
	G(activity_source, GF_MF_STRING, 0),
	G(sm_active, GF_MF_DOUBLE, FRAC),
	G(sm_occupancy, GF_MF_DOUBLE, FRAC),
	G(tensor_active, GF_MF_DOUBLE, FRAC),
	G(dram_active, GF_MF_DOUBLE, FRAC),
	G(mem_used, GF_MF_U64, 0),
	G(mem_total, GF_MF_U64, 0),
	G(pcie_rx_bps, GF_MF_DOUBLE, WHOLE),
	G(pcie_tx_bps, GF_MF_DOUBLE, WHOLE),
	G(pcie_limit_bps, GF_MF_DOUBLE, WHOLE),
	G(nvlink_rx_bps, GF_MF_DOUBLE, WHOLE),
	G(nvlink_tx_bps, GF_MF_DOUBLE, WHOLE),
	G(nvlink_limit_bps, GF_MF_DOUBLE, WHOLE),
	G(power_w, GF_MF_DOUBLE, 1),
	G(power_limit_w, GF_MF_DOUBLE, 1),
	G(sm_clock_mhz, GF_MF_UNSIGNED_NZ, 0),
	G(mem_clock_mhz, GF_MF_UNSIGNED_NZ, 0),
	G(temperature_c, GF_MF_UNSIGNED_NZ, 0),
	G(throttle_reasons, GF_MF_U64, 0),
	GUARDED(struct gf_mon_gpu, throttle, GF_MF_CHARS, throttle_reasons),
	G(xid_events, GF_MF_U64, 0),
	GUARDED(struct gf_mon_gpu, last_xid, GF_MF_U64, xid_events),
	G(ecc_corrected, GF_MF_U64, 0),
	G(ecc_uncorrected, GF_MF_U64, 0),
	G(proc_sm_share, GF_MF_DOUBLE, FRAC),
	G(proc_mem_used, GF_MF_U64, 0),
	END,
};

#define N(field, kind, dec) F(struct gf_mon_node, field, kind, dec)
const struct gf_mon_field gf_mon_node_fields[] = {
	ID(struct gf_mon_node, node, GF_MF_INT),
	N(cpu_busy, GF_MF_DOUBLE, FRAC),
	N(cpu_iowait, GF_MF_DOUBLE, FRAC),
	N(mem_total, GF_MF_U64, 0),
	N(mem_free, GF_MF_U64, 0),
	END,
};

#define D(field, kind, dec) F(struct gf_mon_disk, field, kind, dec)
const struct gf_mon_field gf_mon_disk_fields[] = {
	ID(struct gf_mon_disk, name, GF_MF_CHARS),
	D(read_bps, GF_MF_DOUBLE, WHOLE),
	D(write_bps, GF_MF_DOUBLE, WHOLE),
	D(read_iops, GF_MF_DOUBLE, RATE),
	D(write_iops, GF_MF_DOUBLE, RATE),
	D(busy, GF_MF_DOUBLE, FRAC),
	D(queue, GF_MF_DOUBLE, RATE),
	D(limit_bps, GF_MF_DOUBLE, WHOLE),
	END,
};

#define C(field, kind, dec) F(struct gf_mon_nic, field, kind, dec)
const struct gf_mon_field gf_mon_nic_fields[] = {
	ID(struct gf_mon_nic, name, GF_MF_CHARS),
	ID(struct gf_mon_nic, rdma, GF_MF_BOOL),
	C(rx_bps, GF_MF_DOUBLE, WHOLE),
	C(tx_bps, GF_MF_DOUBLE, WHOLE),
	C(limit_bps, GF_MF_DOUBLE, WHOLE),
	END,
};

/* Counts, but with no "unknown" of their own: the part is written or not
 * as a whole (gf_mon_pagecache_known). */
const struct gf_mon_field gf_mon_pagecache_fields[] = {
	F(struct gf_mon_pagecache, cached, GF_MF_U64, 0),
	F(struct gf_mon_pagecache, dirty, GF_MF_U64, 0),
	F(struct gf_mon_pagecache, writeback, GF_MF_U64, 0),
	F(struct gf_mon_pagecache, mem_available, GF_MF_U64, 0),
	END,
};

#define P(field, kind, dec) F(struct gf_mon_proc, field, kind, dec)
const struct gf_mon_field gf_mon_proc_fields[] = {
	ID(struct gf_mon_proc, pid, GF_MF_PID),
	P(alive, GF_MF_BOOL, 0),
	P(nprocs, GF_MF_UNSIGNED, 0),
	P(cpu, GF_MF_DOUBLE, FRAC),
	P(runq_wait, GF_MF_DOUBLE, FRAC),
	P(read_bps, GF_MF_DOUBLE, WHOLE),
	P(write_bps, GF_MF_DOUBLE, WHOLE),
	P(rchar_bps, GF_MF_DOUBLE, WHOLE),
	P(major_faults_per_s, GF_MF_DOUBLE, RATE),
	P(minor_faults_per_s, GF_MF_DOUBLE, RATE),
	P(rss, GF_MF_U64, 0),
	P(cgroup_throttled, GF_MF_DOUBLE, FRAC),
	P(cgroup, GF_MF_CHARS, 0),
	P(nthreads, GF_MF_UNSIGNED, 0),
	END,
};

#define T(field, kind, dec) F(struct gf_mon_thread, field, kind, dec)
const struct gf_mon_field gf_mon_thread_fields[] = {
	T(tid, GF_MF_PID, 0),
	T(comm, GF_MF_CHARS, 0),
	T(cpu, GF_MF_DOUBLE, FRAC),
	T(runq_wait, GF_MF_DOUBLE, FRAC),
	T(last_cpu, GF_MF_INDEX, 0),
	T(node, GF_MF_INDEX, 0),
	END,
};

/* x rounded to `decimals` places (printed with %.15g this is the short
 * form: 0.45, not 0.45000000000000001). */
static double round_to(double x, int decimals)
{
	double scale = 1;

	for (int i = 0; i < decimals; i++)
		scale *= 10;
	return round(x * scale) / scale;
}

struct gf_mon_value gf_mon_field_get(const struct gf_mon_field *f, const void *part)
{
	const char *p = (const char *)part + f->off;
	struct gf_mon_value v = { .type = GF_MV_NULL };
	uint64_t u64;
	double d;
	int i;

	if (f->guarded) {
		memcpy(&u64, (const char *)part + f->guard, sizeof(u64));
		if (u64 == GF_MON_NONE)
			return v;
	}
	switch (f->kind) {
	case GF_MF_INT:
	case GF_MF_INDEX:
		memcpy(&i, p, sizeof(i));
		if (i < 0 && f->kind == GF_MF_INDEX)
			return v;
		v.type = GF_MV_INT, v.i = i;
		break;
	case GF_MF_PID: {
		pid_t pid;

		memcpy(&pid, p, sizeof(pid));
		v.type = GF_MV_INT, v.i = pid;
		break;
	}
	case GF_MF_UNSIGNED:
	case GF_MF_UNSIGNED_NZ: {
		unsigned un;

		memcpy(&un, p, sizeof(un));
		if (f->kind == GF_MF_UNSIGNED_NZ && !un)
			return v;
		v.type = GF_MV_UINT, v.u = un;
		break;
	}
	case GF_MF_U64:
		memcpy(&u64, p, sizeof(u64));
		if (u64 == GF_MON_NONE)
			return v;
		v.type = GF_MV_UINT, v.u = u64;
		break;
	case GF_MF_DOUBLE:
		memcpy(&d, p, sizeof(d));
		if (!isfinite(d))
			return v;
		v.type = GF_MV_REAL, v.d = round_to(d, f->decimals);
		break;
	case GF_MF_BOOL: {
		bool b;

		memcpy(&b, p, sizeof(b));
		v.type = GF_MV_BOOL, v.i = b;
		break;
	}
	case GF_MF_CHARS:
		if (!*p && !f->guarded)
			return v;
		v.type = GF_MV_STRING, v.s = p;
		break;
	case GF_MF_STRING: {
		const char *s;

		memcpy(&s, p, sizeof(s));
		if (!s)
			return v;
		v.type = GF_MV_STRING, v.s = s;
		break;
	}
	}
	return v;
}

bool gf_mon_pagecache_known(const struct gf_mon_pagecache *p)
{
	return p->cached || p->dirty || p->writeback || p->mem_available;
}

int gf_mon_out_args(const char *func, const struct gf_mon_sample *s, const void *f, unsigned flags, unsigned known)
{
	if (!s)
		return gf_arg_error(func, "s is NULL");
	if (!f)
		return gf_arg_error(func, "f is NULL");
	if (flags & ~known)
		return gf_arg_error(func, "flags 0x%x: unknown bits", flags);
	return 0;
}
