/* A sample as one CSV row (RFC 4180), the header row from the same walk
 * over the field tables, so a header and its rows always agree. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <gpufeed/monitor_output.h>
#include "core/error.h"
#include "monitor/output_fields.h"

/* One pass over the sample: the header's names or a row's values. */
struct csv {
	FILE *f;
	bool header;
	bool first;		/* no comma before the first field */
};

/* s quoted when it holds a comma, a quote or a line break (RFC 4180 §2.6). */
static void put_text(struct csv *c, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, c->f);
		return;
	}
	fputc('"', c->f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', c->f);
		fputc(*s, c->f);
	}
	fputc('"', c->f);
}

static void sep(struct csv *c)
{
	if (!c->first)
		fputc(',', c->f);
	c->first = false;
}

static void put_value(struct csv *c, struct gf_mon_value v)
{
	switch (v.type) {
	case GF_MV_INT:
		fprintf(c->f, "%lld", v.i);
		break;
	case GF_MV_UINT:
		fprintf(c->f, "%llu", v.u);
		break;
	case GF_MV_REAL:
		fprintf(c->f, "%.15g", v.d);
		break;
	case GF_MV_BOOL:
		fputs(v.i ? "true" : "false", c->f);
		break;
	case GF_MV_STRING:
		put_text(c, v.s);
		break;
	case GF_MV_NULL:
		break;
	}
}

/* The fields of one part; prefix names it ("gpu0", "disk.nvme0n1"). */
static void part(struct csv *c, const char *prefix, const struct gf_mon_field *fields, const void *p)
{
	char name[160];

	for (const struct gf_mon_field *f = fields; f->name; f++) {
		if (f->identity)
			continue;
		sep(c);
		if (c->header) {
			snprintf(name, sizeof(name), "%s.%s", prefix, f->name);
			put_text(c, name);
		} else {
			put_value(c, gf_mon_field_get(f, p));
		}
	}
}

static void time_field(struct csv *c, const char *name, double x, int decimals)
{
	struct gf_mon_field f = { name, GF_MF_DOUBLE, 0, decimals, false, false, 0 };

	sep(c);
	if (c->header)
		fputs(name, c->f);
	else
		put_value(c, gf_mon_field_get(&f, &x));
}

static void walk(struct csv *c, const struct gf_mon_sample *s)
{
	char prefix[96];

	c->first = true;
	time_field(c, "t", s->t, 3);
	time_field(c, "interval_s", s->interval_s, 4);
	for (unsigned i = 0; s->gpus && i < s->ngpus; i++) {
		snprintf(prefix, sizeof(prefix), "gpu%d", s->gpus[i].index);
		part(c, prefix, gf_mon_gpu_fields, &s->gpus[i]);
	}
	for (unsigned i = 0; s->nodes && i < s->nnodes; i++) {
		snprintf(prefix, sizeof(prefix), "node%d", s->nodes[i].node);
		part(c, prefix, gf_mon_node_fields, &s->nodes[i]);
	}
	for (unsigned i = 0; s->disks && i < s->ndisks; i++) {
		snprintf(prefix, sizeof(prefix), "disk.%s", s->disks[i].name);
		part(c, prefix, gf_mon_disk_fields, &s->disks[i]);
	}
	for (unsigned i = 0; s->nics && i < s->nnics; i++) {
		snprintf(prefix, sizeof(prefix), "%s.%s", s->nics[i].rdma ? "rdma" : "nic", s->nics[i].name);
		part(c, prefix, gf_mon_nic_fields, &s->nics[i]);
	}
	if (gf_mon_pagecache_known(&s->pagecache))
		part(c, "pagecache", gf_mon_pagecache_fields, &s->pagecache);
	if (s->proc)
		part(c, "proc", gf_mon_proc_fields, s->proc);
	fputc('\n', c->f);
}

int gf_mon_sample_write_csv(const struct gf_mon_sample *s, FILE *f, unsigned flags)
{
	struct csv c = { .f = f };
	int ret = gf_mon_out_args(__func__, s, f, flags, GF_MON_OUT_HEADER);

	if (ret)
		return ret;
	if (flags & GF_MON_OUT_HEADER) {
		c.header = true;
		walk(&c, s);
		c.header = false;
	}
	walk(&c, s);
	if (ferror(f))
		return gf_error(-EIO, "monitor CSV: write failed");
	return 0;
}
