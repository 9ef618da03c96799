/* `bench io` output: the documented JSON (docs/bench-io.md) and the
 * human table. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <gpufeed/bench.h>
#include <gpufeed/gpufeed.h>
#include "bench/output.h"
#include "core/error.h"
#include "core/json_read.h"
#include "core/json_stamp.h"
#include "topo/render.h"

/* Buffered writes have no cold or warm: call them "buffered". */
static const char *cache_label(const struct gf_bench_point *p)
{
	if (gf_bench_mode_writes(p->mode) && p->cache == GF_CACHE_COLD)
		return "buffered";
	return gf_bench_cache_name(p->cache);
}

static void put_point(json_t *o, const struct gf_bench_result *r)
{
	const struct gf_bench_point *p = &r->p;
	json_t *samples = json_array();

	json_object_set_new(o, "mode", json_string(gf_bench_mode_name(p->mode)));
	json_object_set_new(o, "bs", json_integer((json_int_t)p->bs));
	json_object_set_new(o, "qd", json_integer(p->qd));
	json_object_set_new(o, "threads", json_integer(p->threads));
	json_object_set_new(o, "direct", json_boolean(p->cache == GF_CACHE_DIRECT));
	json_object_set_new(o, "cache", json_string(cache_label(p)));
	json_object_set_new(o, "engine", json_string(gf_io_backend_name(p->engine)));
	json_object_set_new(o, "sqpoll", json_boolean(p->sqpoll));
	json_object_set_new(o, "duration_s", gf_bench_jnum(p->duration_s));
	json_object_set_new(o, "status", json_string(r->status ? "error" : "ok"));
	if (r->status)
		json_object_set_new(o, "error", gf_jstr(r->error));
	json_object_set_new(o, "engine_used", json_string(r->engine_used));
	json_object_set_new(o, "direct_used", json_boolean(r->direct_used));
	json_object_set_new(o, "note", gf_jstr(r->note));
	json_object_set_new(o, "span_bytes", json_integer((json_int_t)r->span));
	json_object_set_new(o, "redrops", json_integer(r->redrops));
	json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
	json_object_set_new(o, "ios", json_integer((json_int_t)r->ios));
	json_object_set_new(o, "seconds", gf_bench_jnum(r->seconds));
	json_object_set_new(o, "gb_per_s", gf_bench_jnum(r->gb_per_s));
	json_object_set_new(o, "iops", gf_bench_jnum(r->iops));
	json_object_set_new(o, "lat_mean_us", gf_bench_jnum(r->lat_mean_us));
	json_object_set_new(o, "lat_p50_us", gf_bench_jnum(r->lat_p50_us));
	json_object_set_new(o, "lat_p99_us", gf_bench_jnum(r->lat_p99_us));
	json_object_set_new(o, "lat_p999_us", gf_bench_jnum(r->lat_p999_us));
	json_object_set_new(o, "lat_max_us", gf_bench_jnum(r->lat_max_us));
	json_object_set_new(o, "cpu_user_s", gf_bench_jnum(r->cpu_user_s));
	json_object_set_new(o, "cpu_sys_s", gf_bench_jnum(r->cpu_sys_s));
	json_object_set_new(o, "cpu_s_per_gb", gf_bench_jnum(r->cpu_s_per_gb));
	json_object_set_new(o, "sample_interval_s", gf_bench_jnum(r->interval_s));
	/* nsamples may come from the caller: never past the array. */
	for (unsigned i = 0; i < r->nsamples && i < GF_LAT_SAMPLES_MAX; i++)
		json_array_append_new(samples, gf_bench_jnum(r->samples[i]));
	json_object_set_new(o, "samples_gb_per_s", samples);
}

static json_t *target_json(const struct gf_bench_target *t)
{
	json_t *o = json_object(), *pl = json_object(), *m = json_object();

	json_object_set_new(o, "path", gf_jstr(t->path));
	json_object_set_new(o, "kind", json_string(t->block_device ? "block-device" : "file"));
	json_object_set_new(o, "created", json_boolean(t->created));
	json_object_set_new(o, "size", json_integer((json_int_t)t->size));
	json_object_set_new(o, "fs", gf_jstr(t->fs));
	json_object_set_new(o, "device", gf_jstr(t->device));
	json_object_set_new(o, "model", gf_jstr(t->model));
	json_object_set_new(o, "pcie", gf_jstr(t->pcie));
	json_object_set_new(o, "device_numa_node", json_integer(t->device_numa_node));
	json_object_set_new(o, "direct_align", json_integer(t->direct_align));

	json_object_set_new(pl, "numa_node", json_integer(t->numa_node));
	json_object_set_new(pl, "source", json_string(t->numa_source));
	json_object_set_new(pl, "cpus", gf_jstr(t->cpus));
	json_object_set_new(pl, "buffer_node_actual", json_integer(t->buffer_node_actual));
	json_object_set_new(o, "placement", pl);

	json_object_set_new(m, "hostname", gf_jstr(t->hostname));
	json_object_set_new(m, "kernel", gf_jstr(t->kernel));
	json_object_set_new(m, "cpus", json_integer(t->ncpus));
	json_object_set_new(m, "numa_nodes", json_integer(t->nnodes));
	json_object_set_new(m, "memory_bytes", json_integer((json_int_t)t->memory_bytes));
	json_object_set_new(o, "machine", m);
	return o;
}

static void put_target(json_t *root, const struct gf_bench_target *t)
{
	json_t *o = target_json(t);

	json_object_set(root, "machine", json_object_get(o, "machine"));
	json_object_del(o, "machine");
	json_object_set(root, "placement", json_object_get(o, "placement"));
	json_object_del(o, "placement");
	json_object_set_new(root, "target", o);
}

int gf_bench_io_write_json(const struct gf_bench_target *t, const struct gf_bench_result *r, unsigned n,
			   bool single, FILE *f)
{
	json_t *root, *points;

	if (!t || !r || !f)
		return gf_error(-EINVAL, "bench io: gf_bench_io_write_json: NULL argument");
	root = json_object();
	points = json_array();

	gf_json_stamp(root, GF_BENCH_IO_SCHEMA);
	if (single && n == 1)
		put_point(root, &r[0]);
	put_target(root, t);
	for (unsigned i = 0; i < n; i++) {
		json_t *o = json_object();
		put_point(o, &r[i]);
		json_array_append_new(points, o);
	}
	json_object_set_new(root, "points", points);
	return gf_json_dump(root, f);
}

static void fmt_bs(size_t bs, char *buf, size_t size)
{
	if (bs >= (1u << 20) && bs % (1u << 20) == 0)
		snprintf(buf, size, "%zuM", bs >> 20);
	else if (bs >= 1024 && bs % 1024 == 0)
		snprintf(buf, size, "%zuK", bs >> 10);
	else
		snprintf(buf, size, "%zu", bs);
}

int gf_bench_io_print(const struct gf_bench_target *t, const struct gf_bench_result *r, unsigned n, FILE *f)
{
	char size[32], bs[16], eng[24];

	if (!t || !r || !f)
		return gf_error(-EINVAL, "bench io: gf_bench_io_print: NULL argument");

	gf_fmt_bytes(t->size, size, sizeof(size));
	fprintf(f, "%s: %s %s%s%s%s%s%s\n", t->path, t->block_device ? "block device" : "file", size,
		t->block_device ? "" : ", ", t->block_device ? "" : t->fs[0] ? t->fs : "?",
		t->device[0] ? (t->block_device ? ", disk " : " on ") : "", t->device,
		t->created ? " (created for this run, removed after)" : "");
	if (t->model[0] || t->pcie[0])
		fprintf(f, "drive: %s%s%s\n", t->model, t->model[0] && t->pcie[0] ? ", " : "", t->pcie);
	if (t->numa_node >= 0)
		fprintf(f, "placement: NUMA node %d (%s), CPUs %s, buffer pages on node %d\n", t->numa_node,
			t->numa_source, t->cpus[0] ? t->cpus : "any", t->buffer_node_actual);
	else
		fprintf(f, "placement: none (%s)\n", t->device_numa_node < 0 ? "the drive's NUMA node is unknown"
									   : "asked for none");
	fprintf(f, "\n%-9s %-8s %5s %-9s %8s %10s %10s %10s %10s %8s\n", "mode", "cache", "bs", "engine", "GB/s",
		"IOPS", "p50 us", "p99 us", "CPU s/GB", "");
	for (unsigned i = 0; i < n; i++) {
		const struct gf_bench_result *x = &r[i];
		fmt_bs(x->p.bs, bs, sizeof(bs));
		if (x->p.engine == GF_IO_PSYNC)
			snprintf(eng, sizeof(eng), "psync x%u", x->p.threads);
		else
			snprintf(eng, sizeof(eng), "uring%s q%u%s", x->p.sqpoll ? "+sq" : "", x->p.qd,
				 x->p.threads > 1 ? "x" : "");
		if (x->p.threads > 1 && x->p.engine == GF_IO_URING)
			snprintf(eng + strlen(eng), sizeof(eng) - strlen(eng), "%u", x->p.threads);
		if (x->status) {
			fprintf(f, "%-9s %-8s %5s %-9s  error: %s\n", gf_bench_mode_name(x->p.mode),
				cache_label(&x->p), bs, eng, x->error);
			continue;
		}
		fprintf(f, "%-9s %-8s %5s %-9s %8.3f %10.0f %10.1f %10.1f %10.3f %s\n",
			gf_bench_mode_name(x->p.mode), cache_label(&x->p), bs, eng, x->gb_per_s, x->iops,
			x->lat_p50_us, x->lat_p99_us, x->cpu_s_per_gb,
			x->p.cache == GF_CACHE_DIRECT && !x->direct_used ? "(buffered: see note)" : "");
	}
	for (unsigned i = 0; i < n; i++) {
		if (r[i].p.cache == GF_CACHE_COLD && !r[i].status) {
			fprintf(f, "\ncold and buffered: every byte counted came from (or reached) the device: "
				"each thread's slice\nis dropped (writes: flushed) again before a pass re-reads "
				"(rewrites) it.\n");
			break;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		if (r[i].note[0]) {
			fprintf(f, "\nnote: %s\n", r[i].note);
			break;
		}
	}
	return ferror(f) ? -EIO : 0;
}
