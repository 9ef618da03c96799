/* `bench io` output: the documented JSON (docs/bench-io.md) and the
 * human table. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include "bench/io_opts.h"
#include <gpufeed/gpufeed.h>
#include "bench/io_bench.h"
#include "bench/output.h"
#include "bench/stats.h"
#include "core/error.h"
#include "core/json_read.h"
#include "core/json_stamp.h"
#include "core/strutil.h"
#include "topo/render.h"

/* Buffered writes have no cold or warm: call them "buffered". */
static const char *cache_label(const struct gf_bench_point *p)
{
	if (gf_bench_mode_writes(p->mode) && p->cache == GF_CACHE_COLD)
		return "buffered";
	return gf_bench_cache_name(p->cache);
}

/* What a point asked for. */
static void put_setup(json_t *o, const struct gf_bench_point *p)
{
	json_object_set_new(o, "mode", json_string(gf_bench_mode_name(p->mode)));
	json_object_set_new(o, "bs", json_integer((json_int_t)p->bs));
	json_object_set_new(o, "qd", json_integer(p->qd));
	json_object_set_new(o, "threads", json_integer(p->threads));
	json_object_set_new(o, "direct", json_boolean(p->cache == GF_CACHE_DIRECT));
	json_object_set_new(o, "cache", json_string(cache_label(p)));
	json_object_set_new(o, "engine", json_string(gf_io_backend_name(p->engine)));
	json_object_set_new(o, "sqpoll", json_boolean(p->sqpoll));
	json_object_set_new(o, "duration_s", gf_bench_jnum(p->duration_s));
}

/* What one run (or the point's figure) measured. */
static void put_measures(json_t *o, const struct gf_bench_result *r)
{
	json_t *samples = json_array();

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

/* A point: its setup, its figure, how many runs were asked for, the
 * summary of the runs' GB/s (gf_bench_json_point) and each run. */
static void put_point(json_t *o, const struct gf_bench_result *fig, const struct gf_bench_result *runs, unsigned nruns,
		      unsigned repeats, const struct gf_runner_point *rp)
{
	json_t *arr = json_array();

	put_setup(o, &fig->p);
	put_measures(o, fig);
	json_object_set_new(o, "repeats", json_integer(repeats));
	json_object_set_new(o, "summary", gf_bench_json_point(rp, "GB/s"));
	for (unsigned k = 0; k < nruns; k++) {
		json_t *run = json_object();
		put_measures(run, &runs[k]);
		json_array_append_new(arr, run);
	}
	json_object_set_new(o, "runs", arr);
}

static json_t *target_json(const struct gf_bench_io_file *t)
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

static void put_target(json_t *root, const struct gf_bench_io_file *t)
{
	json_t *o = target_json(t);

	json_object_set(root, "machine", json_object_get(o, "machine"));
	json_object_del(o, "machine");
	json_object_set(root, "placement", json_object_get(o, "placement"));
	json_object_del(o, "placement");
	json_object_set_new(root, "target", o);
}

int gf_bench__write_json(const struct gf_bench_io_file *t, const struct gf_bench_result *figures,
			 const struct gf_bench_result *runs, const unsigned *nruns, unsigned repeats,
			 const struct gf_runner_point *points, unsigned n, bool single, FILE *f)
{
	json_t *root = json_object(), *arr = json_array();

	gf_json_stamp(root, GF_BENCH_IO_SCHEMA);
	for (unsigned i = 0; i < n; i++) {
		json_t *o = json_object();
		put_point(o, &figures[i], &runs[(size_t)i * repeats], nruns[i], repeats, &points[i]);
		if (single && n == 1)
			json_object_update(root, o);
		json_array_append_new(arr, o);
	}
	put_target(root, t);
	json_object_set_new(root, "points", arr);
	return gf_json_dump(root, f);
}

/* Results made elsewhere (a binding, a replay): each point one run, its
 * own figure. */
int gf_bench_io_write_json(const struct gf_bench_io_file *t, const struct gf_bench_result *r, unsigned n,
			   bool single, FILE *f)
{
	struct gf_runner_point *pts;
	unsigned *nruns;
	int rc = 0;

	if (!t || !r || !f)
		return gf_error(-EINVAL, "bench io: gf_bench_io_write_json: NULL argument");
	pts = calloc(n ? n : 1, sizeof(*pts));
	nruns = calloc(n ? n : 1, sizeof(*nruns));
	for (unsigned i = 0; pts && nruns && i < n && !rc; i++) {
		nruns[i] = 1;
		pts[i].status = r[i].status;
		gf_strlcpy(pts[i].error, r[i].error, sizeof(pts[i].error));
		pts[i].samples = (double *)&r[i].gb_per_s;	/* read only */
		pts[i].nsamples = r[i].status ? 0 : 1;
		rc = gf_stats_compute(pts[i].samples, pts[i].nsamples, &pts[i].stats);
	}
	if (!pts || !nruns || rc)
		rc = gf_error(-ENOMEM, "bench io: out of memory");
	else
		rc = gf_bench__write_json(t, r, r, nruns, 1, pts, n, single, f);
	free(pts);
	free(nruns);
	return rc;
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

int gf_bench_io_print(const struct gf_bench_io_file *t, const struct gf_bench_result *r, unsigned n, FILE *f)
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
