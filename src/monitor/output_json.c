/* A sample as one JSON object on one line (docs/json-monitor.md): the
 * shape of struct gf_mon_sample, each figure under its C name, null when
 * the sample does not have it. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include <gpufeed/monitor_output.h>
#include "core/error.h"
#include "core/json_read.h"
#include "monitor/output_fields.h"

static json_t *jvalue(struct gf_mon_value v)
{
	switch (v.type) {
	case GF_MV_INT:
		return json_integer(v.i);
	case GF_MV_UINT:
		/* jansson's integers are signed 64 bits: a count past that is
		 * not a count any counter reaches, so it is written as a real. */
		return v.u <= (unsigned long long)LLONG_MAX ? json_integer((json_int_t)v.u)
								    : json_real((double)v.u);
	case GF_MV_REAL:
		if (v.d == trunc(v.d) && fabs(v.d) < 9e15)
			return json_integer((json_int_t)v.d);
		return json_real(v.d);
	case GF_MV_BOOL:
		return json_boolean(v.i);
	case GF_MV_STRING:
		return gf_jstr(v.s);
	case GF_MV_NULL:
		break;
	}
	return json_null();
}

/* json_object_set_new, remembering a failure (out of memory): a line is
 * written whole or not at all. */
static void set(json_t *o, const char *key, json_t *v, bool *bad)
{
	if (json_object_set_new(o, key, v))	/* frees v when it fails, o NULL included */
		*bad = true;
}

static json_t *jpart(const struct gf_mon_field *fields, const void *part, bool *bad)
{
	json_t *o = json_object();

	for (const struct gf_mon_field *f = fields; o && f->name; f++)
		set(o, f->name, jvalue(gf_mon_field_get(f, part)), bad);
	if (!o)
		*bad = true;
	return o;
}

/* n parts of `size` bytes from `base`. */
static json_t *jparts(const struct gf_mon_field *fields, const void *base, unsigned n, size_t size, bool *bad)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < n; i++)
		if (json_array_append_new(a, jpart(fields, (const char *)base + i * size, bad)))
			*bad = true;
	if (!a)
		*bad = true;
	return a;
}

static json_t *jproc(const struct gf_mon_proc *p, bool *bad)
{
	json_t *o;

	if (!p)
		return json_null();
	o = jpart(gf_mon_proc_fields, p, bad);
	set(o, "threads",
	    jparts(gf_mon_thread_fields, p->threads, p->threads ? p->nthreads : 0, sizeof(*p->threads), bad), bad);
	return o;
}

static json_t *jtime(double x, int decimals)
{
	struct gf_mon_field f = { "t", GF_MF_DOUBLE, 0, decimals, false, false, 0 };

	return jvalue(gf_mon_field_get(&f, &x));
}

int gf_mon_sample_write_json(const struct gf_mon_sample *s, FILE *f)
{
	bool bad = false;
	json_t *o;
	int ret = 0;

	if ((ret = gf_mon_out_args(__func__, s, f, 0, 0)))
		return ret;
	o = json_object();
	if (!o)
		return gf_error(-ENOMEM, "monitor JSON: out of memory");
	set(o, "schema", json_string(GF_MON_SCHEMA), &bad);
	set(o, "t", jtime(s->t, 3), &bad);
	set(o, "interval_s", jtime(s->interval_s, 4), &bad);
	set(o, "hostname", gf_jstr(s->hostname), &bad);
	set(o, "gpu_why", s->gpu_why ? gf_jstr(s->gpu_why) : json_null(), &bad);
	set(o, "gpus", jparts(gf_mon_gpu_fields, s->gpus, s->gpus ? s->ngpus : 0, sizeof(*s->gpus), &bad), &bad);
	set(o, "nodes", jparts(gf_mon_node_fields, s->nodes, s->nodes ? s->nnodes : 0, sizeof(*s->nodes), &bad),
	    &bad);
	set(o, "disks", jparts(gf_mon_disk_fields, s->disks, s->disks ? s->ndisks : 0, sizeof(*s->disks), &bad),
	    &bad);
	set(o, "nics", jparts(gf_mon_nic_fields, s->nics, s->nics ? s->nnics : 0, sizeof(*s->nics), &bad), &bad);
	set(o, "pagecache",
	    gf_mon_pagecache_known(&s->pagecache) ? jpart(gf_mon_pagecache_fields, &s->pagecache, &bad) : json_null(),
	    &bad);
	set(o, "proc", jproc(s->proc, &bad), &bad);
	if (bad) {
		json_decref(o);
		return gf_error(-ENOMEM, "monitor JSON: out of memory");
	}
	/* One line: JSON Lines (jsonlines.org), so `jq -c`, `tail -f` and a
	 * line-by-line reader each see one sample a line. */
	if (json_dumpf(o, f, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) || fputc('\n', f) == EOF ||
	    ferror(f))
		ret = gf_error(-EIO, "monitor JSON: write failed");
	json_decref(o);
	return ret;
}
