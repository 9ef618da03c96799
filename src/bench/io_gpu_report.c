/* bench io-gpu's output: the table (each figure, its spread, CPU seconds
 * per GB, the bounce path's ratio to the slower limit), the JSON with every
 * sample (schema gpufeed-bench-io-gpu/1), and the findings. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/io_gpu_bench.h"
#include "bench/output.h"
#include "bench/stats.h"
#include "core/error.h"
#include "core/json_stamp.h"
#include "topo/render.h"

/* A path above the disk's O_DIRECT rate by more than this is reading a
 * cache, not the disk. */
#define OVER_DISK 1.10

static double limit_of(const struct gf_bench_io_gpu *b)
{
	double d = gf_iog_median(b, GF_IOG_DISK), h = gf_iog_median(b, GF_IOG_H2D);

	return d > 0 && h > 0 ? fmin(d, h) : 0;
}

/* cuFile absent is "unavailable", not a failure of this machine's data path. */
static bool unavailable(const struct gf_bench_io_gpu *b, unsigned i)
{
	return b->pts[i].kind == GF_IOG_PATH && b->res[i].status == -ENOSYS;
}

/* Every sample of the path above every sample of the disk, by the margin:
 * noise does not do that, a cache does. */
static bool over_disk(const struct gf_bench_io_gpu *b, unsigned i)
{
	double d = 0;

	for (unsigned k = 0; k < b->npoints; k++)
		if (b->pts[k].kind == GF_IOG_DISK && !b->res[k].status && b->res[k].nsamples)
			d = b->res[k].stats.max;
	return b->pts[i].kind == GF_IOG_PATH && !b->res[i].status && d > 0 && b->res[i].stats.min > d * OVER_DISK;
}

unsigned gf_bench_io_gpu_findings(const struct gf_bench_io_gpu *b)
{
	unsigned n = 0;

	for (unsigned i = 0; b && i < b->npoints; i++) {
		n += b->res[i].status && !unavailable(b, i);
		n += over_disk(b, i);
		n += b->pts[i].check[0] == 'F';
	}
	return n;
}

static double cpu_median(const struct gf_iog_point *p)
{
	struct gf_stats st;

	if (!p->ncpu)
		return NAN;
	gf_stats_compute(p->cpu_s_per_gb, p->ncpu, &st);
	return st.median;
}

int gf_bench_io_gpu_print(const struct gf_bench_io_gpu *b, FILE *f)
{
	double lim = limit_of(b);

	if (!b || !f)
		return gf_error(-EINVAL, "bench io-gpu: print: NULL argument");
	fprintf(f, "Storage to GPU %s (NVML %u): %s, %llu bytes%s; staging on NUMA node %d\n", b->pci, b->o.gpu,
		b->file, (unsigned long long)b->bytes, b->created ? " (created for the run)" : "", b->numa_node);
	fprintf(f, "every sample cold: the file's cached pages dropped first (posix_fadvise DONTNEED); %u samples\n\n",
		b->o.repeats);
	fprintf(f, "%-22s %9s %17s %9s %8s  %s\n", "figure", "GB/s", "min-max", "CPU s/GB", "of limit", "notes");
	for (unsigned i = 0; i < b->npoints; i++) {
		const struct gf_iog_point *p = &b->pts[i];
		const struct gf_runner_point *r = &b->res[i];
		char range[40], pct[16] = "";

		if (r->status) {
			fprintf(f, "%-22s %9s %17s %9s %8s  %s: %s\n", gf_iog_point_name(b, i), "-", "-", "-", "-",
				unavailable(b, i) ? "unavailable" : "FAILED", r->error);
			continue;
		}
		snprintf(range, sizeof(range), "%.2f-%.2f", r->stats.min, r->stats.max);
		if (p->kind == GF_IOG_PATH && lim > 0)
			snprintf(pct, sizeof(pct), "%.2fx", r->stats.median / lim);
		fprintf(f, "%-22s %9.2f %17s %9.3f %8s  ", gf_iog_point_name(b, i), r->stats.median, range,
			cpu_median(p), pct);
		if (p->kind == GF_IOG_PATH)
			fprintf(f, "%s%s%s; %s", p->st.api, p->st.direct ? ", O_DIRECT" : "",
				p->st.compat_mode ? ", cuFile compatibility mode (no nvidia-fs)" : "", p->check);
		if (over_disk(b, i))
			fprintf(f, "; ABOVE the disk's O_DIRECT rate: a cache served it");
		fputc('\n', f);
	}
	if (lim > 0)
		fprintf(f, "\nlimit = min(disk O_DIRECT %.2f, pinned host-to-device %.2f) = %.2f GB/s\n",
			gf_iog_median(b, GF_IOG_DISK), gf_iog_median(b, GF_IOG_H2D), lim);
	return ferror(f) ? -EIO : 0;
}

static json_t *point_json(const struct gf_bench_io_gpu *b, unsigned i)
{
	const struct gf_iog_point *p = &b->pts[i];
	json_t *o = json_object(), *cpu = json_array();
	static const char *const kinds[] = { "disk_odirect_read", "pinned_htod", "path" };
	double lim = limit_of(b);

	json_object_set_new(o, "name", json_string(gf_iog_point_name(b, i)));
	json_object_set_new(o, "kind", json_string(kinds[p->kind]));
	json_object_set_new(o, "gbs", gf_bench_json_point(&b->res[i], "GB/s"));
	for (unsigned k = 0; k < p->ncpu; k++)
		json_array_append_new(cpu, gf_bench_jnum(p->cpu_s_per_gb[k]));
	json_object_set_new(o, "cpu_s_per_gb", cpu);
	if (p->kind == GF_IOG_PATH) {
		json_object_set_new(o, "path", json_string(gf_xfer_path_name(p->path)));
		json_object_set_new(o, "unavailable", json_boolean(unavailable(b, i)));
		if (!b->res[i].status) {
			json_object_set_new(o, "api", json_string(p->st.api));
			json_object_set_new(o, "direct", json_boolean(p->st.direct));
			json_object_set_new(o, "compat_mode", json_boolean(p->st.compat_mode));
			json_object_set_new(o, "check", json_string(p->check));
			json_object_set_new(o, "ratio_to_limit",
					    lim > 0 ? gf_bench_jnum(b->res[i].stats.median / lim) : json_null());
			json_object_set_new(o, "above_disk", json_boolean(over_disk(b, i)));
		}
	}
	return o;
}

int gf_bench_io_gpu_write_json(const struct gf_bench_io_gpu *b, FILE *f)
{
	json_t *root, *cfg, *pts;
	double lim;

	if (!b || !f)
		return gf_error(-EINVAL, "bench io-gpu: write_json: NULL argument");
	lim = limit_of(b);
	root = json_object();
	gf_json_stamp(root, GF_BENCH_IO_GPU_SCHEMA);
	json_object_set_new(root, "machine", b->topo ? gf_bench_json_topology(b->topo) : json_null());
	cfg = json_object();
	json_object_set_new(cfg, "gpu", json_integer(b->o.gpu));
	json_object_set_new(cfg, "pci", json_string(b->pci));
	json_object_set_new(cfg, "staging_numa_node", json_integer(b->numa_node));
	json_object_set_new(cfg, "file", json_string(b->file));
	json_object_set_new(cfg, "bytes", json_integer((json_int_t)b->bytes));
	json_object_set_new(cfg, "file_created", json_boolean(b->created));
	json_object_set_new(cfg, "chunk", json_integer((json_int_t)(b->o.chunk ? b->o.chunk : GF_XFER_CHUNK_DEFAULT)));
	json_object_set_new(cfg, "depth", json_integer(b->o.depth ? b->o.depth : 2));
	json_object_set_new(cfg, "reads_per_chunk", json_integer(b->o.reads ? b->o.reads : 4));
	json_object_set_new(cfg, "repeats", json_integer(b->o.repeats));
	json_object_set_new(cfg, "cache", json_string("dropped before every sample (posix_fadvise POSIX_FADV_DONTNEED)"));
	json_object_set_new(root, "config", cfg);
	json_object_set_new(root, "conventions",
			    json_string("GB/s = the file's bytes / wall seconds of one whole transfer (1 GB = 1e9 "
					"bytes); CPU s/GB = getrusage(RUSAGE_SELF) user+sys over the transfer per GB; "
					"limit = min(disk O_DIRECT read, pinned host-to-device copy) medians"));
	pts = json_array();
	for (unsigned i = 0; i < b->npoints; i++)
		json_array_append_new(pts, point_json(b, i));
	json_object_set_new(root, "points", pts);
	json_object_set_new(root, "limit_gbs", lim > 0 ? gf_bench_jnum(lim) : json_null());
	json_object_set_new(root, "findings", json_integer(gf_bench_io_gpu_findings(b)));
	return gf_json_dump(root, f);
}
