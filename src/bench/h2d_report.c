/* `bench h2d` output: a table per GPU (text), the documented JSON
 * (docs/json-bench-h2d.md), and each figure held against its path's
 * theoretical limit from the machine model. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <gpufeed/cpuset.h>
#include "bench/h2d_bench.h"
#include "bench/output.h"
#include "core/error.h"
#include "core/json_stamp.h"
#include "topo/render.h"

static void flag(struct gf_bench_h2d *h, unsigned point, bool error, const char *fmt, double a, double b)
{
	struct gf_h2d_flag *f = &h->flags[h->nflags++];

	f->point = point;
	f->error = error;
	snprintf(f->message, sizeof(f->message), fmt, a, b);
}

/* A copy cannot beat the link it crosses: a figure above the limit is a
 * measurement bug (timing, bytes not moved), not a fast machine. */
void gf_h2d_sanity(struct gf_bench_h2d *h)
{
	for (unsigned i = 0; i < h->npoints; i++) {
		const struct gf_runner_point *r = &h->res[i];
		double lim = h->gpus[h->points[i].gpu].limit_gb_per_s;

		if (!r->status && lim > 0 && r->stats.median > lim)
			flag(h, i, true, "%.2f GB/s is above the path's theoretical %.2f GB/s: a measurement error",
			     r->stats.median, lim);
	}
}

unsigned gf_bench_h2d_findings(const struct gf_bench_h2d *h)
{
	unsigned n = 0;

	if (!h)
		return 0;
	for (unsigned i = 0; i < h->npoints; i++)
		n += h->res[i].status != 0;
	for (unsigned i = 0; i < h->nflags; i++)
		n += h->flags[i].error;
	return n;
}

static double percent(const struct gf_bench_h2d *h, unsigned i)
{
	double lim = h->gpus[h->points[i].gpu].limit_gb_per_s;

	return lim > 0 && !h->res[i].status ? 100.0 * h->res[i].stats.median / lim : NAN;
}

static json_t *point_json(const struct gf_bench_h2d *h, unsigned i)
{
	const struct gf_h2d_point *pt = &h->points[i];
	const struct gf_h2d_gpu *g = &h->gpus[pt->gpu];
	json_t *o = gf_bench_json_point(&h->res[i], "GB/s");
	double pct = percent(h, i);

	json_object_set_new(o, "gpu", json_integer(g->index));
	json_object_set_new(o, "pci", json_string(g->dev.pci));
	json_object_set_new(o, "direction", json_string(gf_h2d_dir_name(pt->dir)));
	json_object_set_new(o, "memory", json_string(gf_h2d_mem_name(pt->mem)));
	json_object_set_new(o, "host_node", json_integer(pt->node));
	json_object_set_new(o, "bytes", json_integer((json_int_t)pt->size));
	json_object_set_new(o, "verified", json_boolean(pt->verified));
	json_object_set_new(o, "limit_gb_per_s", g->limit_gb_per_s > 0 ? gf_bench_jnum(g->limit_gb_per_s) : json_null());
	json_object_set_new(o, "percent_of_limit", isnan(pct) ? json_null() : gf_bench_jnum(pct));
	return o;
}

static json_t *gpus_json(const struct gf_bench_h2d *h)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < h->ngpus; i++) {
		const struct gf_h2d_gpu *g = &h->gpus[i];
		json_t *o = json_object();

		json_object_set_new(o, "gpu", json_integer(g->index));
		json_object_set_new(o, "pci", json_string(g->dev.pci));
		json_object_set_new(o, "name", json_string(g->dev.name));
		json_object_set_new(o, "cuda_ordinal", json_integer(g->dev.ordinal));
		json_object_set_new(o, "copy_engines", json_integer(g->dev.async_engines));
		json_object_set_new(o, "numa_node", g->topo_gpu >= 0 ? json_integer(h->topo->gpus[g->topo_gpu].numa_node)
									: json_null());
		json_object_set_new(o, "limit_gb_per_s",
				    g->limit_gb_per_s > 0 ? gf_bench_jnum(g->limit_gb_per_s) : json_null());
		json_object_set_new(o, "limited_by", json_string(g->limit_text));
		if (g->topo_gpu >= 0) {
			struct gf_cpuset cpus;
			char list[1024];

			gf_cpuset_and(&cpus, &h->topo->gpus[g->topo_gpu].cpus, &h->topo->cpus.allowed);
			gf_cpuset_format_list(&cpus, list, sizeof(list));
			json_object_set_new(o, "copy_cpus", json_string(list));
		} else {
			json_object_set_new(o, "copy_cpus", json_null());
		}
		json_array_append_new(a, o);
	}
	return a;
}

/* The sum over GPUs of the ALL direction d's medians at size: what the
 * machine moves with every GPU copying (nvbandwidth prints it as SUM).
 * NAN when a GPU's point failed or none ran. */
static double all_sum(const struct gf_bench_h2d *h, enum gf_h2d_dir d, uint64_t size, unsigned *ngpus)
{
	double sum = 0;

	*ngpus = 0;
	for (unsigned i = 0; i < h->npoints; i++) {
		if (h->points[i].dir != d || h->points[i].size != size)
			continue;
		if (h->res[i].status)
			return NAN;
		sum += h->res[i].stats.median;
		(*ngpus)++;
	}
	return *ngpus ? sum : NAN;
}

/* The figures measured, by direction name (--direction or its default). */
static json_t *directions_json(const struct gf_bench_h2d *h)
{
	json_t *a = json_array();

	for (int d = 0; d < GF_H2D_DIRS; d++)
		if (h->dirs & (1u << d))
			json_array_append_new(a, json_string(gf_h2d_dir_name((enum gf_h2d_dir)d)));
	return a;
}

static json_t *sums_json(const struct gf_bench_h2d *h)
{
	json_t *a = json_array();

	for (unsigned si = 0; h->o.all_at_once && si < h->nsizes; si++)
		for (int d = GF_H2D_PER_GPU_DIRS; d < GF_H2D_DIRS; d++) {
			unsigned n;
			double sum = all_sum(h, (enum gf_h2d_dir)d, h->sizes[si], &n);
			json_t *o;

			if (!(h->dirs & (1u << d)))
				continue;
			o = json_object();

			json_object_set_new(o, "direction", json_string(gf_h2d_dir_name((enum gf_h2d_dir)d)));
			json_object_set_new(o, "bytes", json_integer((json_int_t)h->sizes[si]));
			json_object_set_new(o, "gpus", json_integer(n));
			json_object_set_new(o, "sum_gb_per_s", isnan(sum) ? json_null() : gf_bench_jnum(sum));
			json_array_append_new(a, o);
		}
	return a;
}

int gf_bench_h2d_write_json(const struct gf_bench_h2d *h, FILE *f)
{
	json_t *root, *cfg, *sizes, *pts, *flags;

	if (!h || !f)
		return gf_error(-EINVAL, "bench h2d: gf_bench_h2d_write_json: NULL argument");
	root = json_object();
	gf_json_stamp(root, GF_BENCH_H2D_SCHEMA);
	json_object_set_new(root, "machine", gf_bench_json_topology(h->topo));
	cfg = json_object();
	sizes = json_array();
	for (unsigned i = 0; i < h->nsizes; i++)
		json_array_append_new(sizes, json_integer((json_int_t)h->sizes[i]));
	json_object_set_new(cfg, "sizes", sizes);
	json_object_set_new(cfg, "repeats", json_integer(h->o.repeats));
	json_object_set_new(cfg, "warmup_samples", json_integer(1));
	json_object_set_new(cfg, "loops", json_integer(h->o.loops));
	json_object_set_new(cfg, "warmup_copies", json_integer(GF_H2D_WARMUP_COPIES));
	json_object_set_new(cfg, "spin_ms", json_integer(GF_H2D_SPIN_MS));
	json_object_set_new(cfg, "pageable", json_boolean(h->o.pageable));
	json_object_set_new(cfg, "quick", json_boolean(h->o.quick));
	json_object_set_new(cfg, "all_at_once", json_boolean(h->o.all_at_once));
	json_object_set_new(cfg, "directions", directions_json(h));
	json_object_set_new(root, "config", cfg);
	json_object_set_new(root, "conventions",
			    json_string("GB/s = bytes of one copy x loops / the time between CUDA events around the "
					"loops, 1 GB = 1e9 bytes, bytes counted once (nvbandwidth's CE convention); "
					"bidirectional figures are the named direction while the other runs at once; "
					"*_all figures are one GPU while every other GPU copies twice the bytes the same "
					"way at once (and both ways, bidirectional), nvbandwidth's host_to_all and "
					"all_to_host"));
	json_object_set_new(root, "gpus", gpus_json(h));
	pts = json_array();
	for (unsigned i = 0; i < h->npoints; i++)
		json_array_append_new(pts, point_json(h, i));
	json_object_set_new(root, "points", pts);
	json_object_set_new(root, "all_at_once_sums", sums_json(h));
	flags = json_array();
	for (unsigned i = 0; i < h->nflags; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "level", json_string(h->flags[i].error ? "error" : "warning"));
		json_object_set_new(o, "point", json_integer(h->flags[i].point));
		json_object_set_new(o, "message", json_string(h->flags[i].message));
		json_array_append_new(flags, o);
	}
	json_object_set_new(root, "flags", flags);
	json_object_set_new(root, "findings", json_integer(gf_bench_h2d_findings(h)));
	return gf_json_dump(root, f);
}

static void print_point(const struct gf_bench_h2d *h, unsigned i, FILE *f)
{
	const struct gf_h2d_point *pt = &h->points[i];
	const struct gf_runner_point *r = &h->res[i];
	double pct = percent(h, i);
	char size[32], lim[32] = "-", pc[16] = "-";

	gf_fmt_bytes(pt->size, size, sizeof(size));
	if (h->gpus[pt->gpu].limit_gb_per_s > 0)
		snprintf(lim, sizeof(lim), "%.2f", h->gpus[pt->gpu].limit_gb_per_s);
	if (!isnan(pct))
		snprintf(pc, sizeof(pc), "%.1f%%", pct);
	if (r->status)
		fprintf(f, "  %-29s %-8s node %-3d %9s  failed: %s\n", gf_h2d_dir_name(pt->dir),
			gf_h2d_mem_name(pt->mem), pt->node, size, r->error);
	else
		fprintf(f, "  %-29s %-8s node %-3d %9s %9.2f %9s %7s %7.1f%%\n", gf_h2d_dir_name(pt->dir),
			gf_h2d_mem_name(pt->mem), pt->node, size, r->stats.median, lim, pc,
			r->stats.median > 0 ? 100 * r->stats.iqr / r->stats.median : 0.0);
}

int gf_bench_h2d_print(const struct gf_bench_h2d *h, FILE *f)
{
	if (!h || !f)
		return gf_error(-EINVAL, "bench h2d: gf_bench_h2d_print: NULL argument");
	fprintf(f, "%s: %d NUMA node%s; copies %u per sample after %u warm-up copies, behind a spin kernel, timed "
		"with CUDA events; median of %u samples\n", h->topo->machine.hostname, h->topo->numa.nnodes,
		h->topo->numa.nnodes == 1 ? "" : "s", h->o.loops, GF_H2D_WARMUP_COPIES, h->o.repeats);
	for (unsigned gi = 0; gi < h->ngpus; gi++) {
		const struct gf_h2d_gpu *g = &h->gpus[gi];

		fprintf(f, "\nGPU %u %s (%s): limit %s%s\n", g->index, g->dev.name[0] ? g->dev.name : "(unnamed)",
			g->dev.pci, g->limit_gb_per_s > 0 ? "" : "unknown: ", g->limit_text);
		fprintf(f, "  %-29s %-8s %-8s %9s %9s %9s %7s %8s\n", "direction", "memory", "host", "size",
			"GB/s", "limit", "%limit", "IQR");
		for (unsigned i = 0; i < h->npoints; i++)
			if (h->points[i].gpu == gi)
				print_point(h, i, f);
	}
	for (unsigned si = 0; h->o.all_at_once && si < h->nsizes; si++) {
		char size[32];

		gf_fmt_bytes(h->sizes[si], size, sizeof(size));
		fprintf(f, "\nAll GPUs at once, %s per copy (sum of the GPUs' medians):\n", size);
		for (int d = GF_H2D_PER_GPU_DIRS; d < GF_H2D_DIRS; d++) {
			unsigned n;
			double sum = all_sum(h, (enum gf_h2d_dir)d, h->sizes[si], &n);

			if (!(h->dirs & (1u << d)))
				continue;
			if (isnan(sum))
				fprintf(f, "  %-29s %9s\n", gf_h2d_dir_name((enum gf_h2d_dir)d), "failed");
			else
				fprintf(f, "  %-29s %9.2f GB/s over %u GPU%s\n", gf_h2d_dir_name((enum gf_h2d_dir)d),
					sum, n, n == 1 ? "" : "s");
		}
	}
	for (unsigned i = 0; i < h->nflags; i++)
		fprintf(f, "%s: GPU %u, %s, %s, node %d: %s\n", h->flags[i].error ? "error" : "warning",
			h->gpus[h->points[h->flags[i].point].gpu].index, gf_h2d_dir_name(h->points[h->flags[i].point].dir),
			gf_h2d_mem_name(h->points[h->flags[i].point].mem), h->points[h->flags[i].point].node,
			h->flags[i].message);
	fprintf(f, "bytes counted once, 1 GB = 1e9 bytes; bidirectional rows: that direction while the other "
		"runs at once (nvbandwidth's convention); each point's bytes checked once\n");
	return ferror(f) ? -EIO : 0;
}
