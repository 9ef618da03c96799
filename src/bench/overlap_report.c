/* `bench overlap` output: per bucket size the four times, the time the
 * overlap saved and the overlap fraction (text), and the JSON
 * (gpufeed-bench-overlap/1, docs/bench-overlap.md) with every iteration's
 * time. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include <jansson.h>
#include "bench/output.h"
#include "bench/overlap_bench.h"
#include "core/error.h"
#include "core/json_stamp.h"
#include "topo/render.h"

unsigned gf_bench_overlap_findings(const struct gf_bench_overlap *b)
{
	unsigned n = 0;

	for (unsigned i = 0; b && i < b->npoints; i++)
		n += b->res[i].status != 0;
	return n;
}

/* The median of config c's mode m, NAN when that figure failed. */
static double median(const struct gf_bench_overlap *b, unsigned c, enum gf_overlap_mode m)
{
	const struct gf_runner_point *r = &b->res[c * GF_OVERLAP_MODES + m];

	return r->status ? NAN : r->stats.median;
}

static double fraction_of(const struct gf_bench_overlap *b, unsigned c)
{
	return gf_overlap_fraction(median(b, c, GF_OVERLAP_SERIAL), median(b, c, GF_OVERLAP_OVERLAPPED),
				   median(b, c, GF_OVERLAP_COMPUTE), median(b, c, GF_OVERLAP_COMM));
}

static void bucket_name(const struct gf_bench_overlap *b, unsigned c, char *buf, size_t size)
{
	if (b->sizes[c] == GF_OVERLAP_ALL)
		snprintf(buf, size, "all");
	else
		gf_fmt_bytes(b->sizes[c], buf, size);
}

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : gf_bench_jnum(v);
}

static json_t *config_json(const struct gf_bench_overlap *b, unsigned c)
{
	json_t *o = json_object(), *fig = json_object();
	double serial = median(b, c, GF_OVERLAP_SERIAL), over = median(b, c, GF_OVERLAP_OVERLAPPED);
	char name[32];

	bucket_name(b, c, name, sizeof(name));
	json_object_set_new(o, "bucket", json_string(name));
	json_object_set_new(o, "bucket_bytes", json_integer((json_int_t)b->plans[c].bucket_bytes));
	json_object_set_new(o, "buckets", json_integer(b->plans[c].nbuckets));
	for (int m = 0; m < GF_OVERLAP_MODES; m++)
		json_object_set_new(fig, gf_overlap_mode_name((enum gf_overlap_mode)m),
				    gf_bench_json_point(&b->res[c * GF_OVERLAP_MODES + (unsigned)m], "ms"));
	json_object_set_new(o, "figures", fig);
	json_object_set_new(o, "saved_ms", num_or_null(serial - over));
	json_object_set_new(o, "overlap_fraction", num_or_null(fraction_of(b, c)));
	return o;
}

static json_t *gpus_json(const struct gf_bench_overlap *b)
{
	json_t *a = json_array();

	for (int i = 0; i < b->ngpus; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "pci", json_string(b->pcis[i]));
		json_object_set_new(o, "spin_cycles_per_ms", gf_bench_jnum(b->cycles_per_ms[i]));
		json_object_set_new(o, "spin_calibrated", json_boolean(b->calibrated[i]));
		json_array_append_new(a, o);
	}
	return a;
}

int gf_bench_overlap_write_json(const struct gf_bench_overlap *b, FILE *f)
{
	json_t *root, *cfg, *run, *cs;

	if (!b || !f)
		return gf_error(-EINVAL, "bench overlap: gf_bench_overlap_write_json: NULL argument");
	root = json_object();
	gf_json_stamp(root, GF_BENCH_OVERLAP_SCHEMA);
	json_object_set_new(root, "machine", gf_bench_json_topology(b->topo));
	cfg = json_object();
	json_object_set_new(cfg, "grad_bytes", json_integer((json_int_t)b->o.grad_bytes));
	json_object_set_new(cfg, "dtype", json_string("float32"));
	json_object_set_new(cfg, "op", json_string("sum"));
	json_object_set_new(cfg, "buckets", json_string(b->o.buckets));
	json_object_set_new(cfg, "compute_ms", json_integer(b->o.compute_ms));
	json_object_set_new(cfg, "compute_blocks", json_integer(b->o.compute_blocks));
	json_object_set_new(cfg, "repeats", json_integer(b->o.repeats));
	json_object_set_new(cfg, "warmup", json_integer(b->o.warmup));
	json_object_set_new(cfg, "timeout_s", gf_bench_jnum(b->o.timeout_s));
	json_object_set_new(cfg, "quick", json_boolean(b->o.quick));
	json_object_set_new(root, "config", cfg);
	run = json_object();
	json_object_set_new(run, "launcher", json_string(b->launcher));
	json_object_set_new(run, "nranks", json_integer(b->nranks));
	json_object_set_new(run, "rank", json_integer(b->rank));
	json_object_set_new(run, "nccl_version", json_string(b->nccl_version));
	json_object_set_new(run, "gpu_name", json_string(b->gpu_name));
	json_object_set_new(run, "gpus", gpus_json(b));
	json_object_set_new(root, "run", run);
	json_object_set_new(root, "conventions",
			    json_string("each sample is one iteration in ms between CUDA events on the training "
					"stream, the slowest GPU's and rank's; compute = the spin kernels alone, comm = "
					"the bucket all-reduces alone, serial = compute then all-reduces on one stream, "
					"overlap = bucket i's all-reduce on a second stream after bucket i's compute "
					"(PyTorch DDP's reducer); overlap_fraction = (serial - overlap) / "
					"min(compute, comm) of the medians"));
	cs = json_array();
	for (unsigned c = 0; c < b->nconfigs; c++)
		json_array_append_new(cs, config_json(b, c));
	json_object_set_new(root, "configs", cs);
	json_object_set_new(root, "findings", json_integer(gf_bench_overlap_findings(b)));
	return gf_json_dump(root, f);
}

static void cell(FILE *f, double v)
{
	if (isnan(v))
		fprintf(f, " %9s", "failed");
	else
		fprintf(f, " %9.2f", v);
}

int gf_bench_overlap_print(const struct gf_bench_overlap *b, FILE *f)
{
	char grad[32];

	if (!b || !f)
		return gf_error(-EINVAL, "bench overlap: gf_bench_overlap_print: NULL argument");
	gf_fmt_bytes(b->o.grad_bytes, grad, sizeof(grad));
	fprintf(f, "%s: %d rank%s (%s), %d GPU%s here, %s, NCCL %s\n", b->topo->machine.hostname, b->nranks,
		b->nranks == 1 ? "" : "s", b->launcher, b->ngpus, b->ngpus == 1 ? "" : "s",
		b->gpu_name[0] ? b->gpu_name : "(unnamed GPU)", b->nccl_version);
	fprintf(f, "%s of float32 gradients all-reduced (sum) per iteration, %u ms of compute (%u spin block%s "
		"per bucket); median of %u iterations after %u dropped, ms\n", grad, b->o.compute_ms,
		b->o.compute_blocks, b->o.compute_blocks == 1 ? "" : "s", b->o.repeats, b->o.warmup);
	fprintf(f, "\n  %-9s %7s %9s %9s %9s %9s %9s %9s\n", "bucket", "buckets", "compute", "comm", "serial",
		"overlap", "saved", "fraction");
	for (unsigned c = 0; c < b->nconfigs; c++) {
		double serial = median(b, c, GF_OVERLAP_SERIAL), over = median(b, c, GF_OVERLAP_OVERLAPPED);
		double frac = fraction_of(b, c);
		char name[32];

		bucket_name(b, c, name, sizeof(name));
		fprintf(f, "  %-9s %7u", name, b->plans[c].nbuckets);
		for (int m = 0; m < GF_OVERLAP_MODES; m++)
			cell(f, median(b, c, (enum gf_overlap_mode)m));
		cell(f, serial - over);
		if (isnan(frac))
			fprintf(f, " %9s\n", "-");
		else
			fprintf(f, " %9.2f\n", frac);
	}
	for (unsigned i = 0; i < b->npoints; i++)
		if (b->res[i].status) {
			char name[32];

			bucket_name(b, b->points[i].config, name, sizeof(name));
			fprintf(f, "error: %s, bucket %s: %s\n", gf_overlap_mode_name(b->points[i].mode), name,
				b->res[i].error);
		}
	for (int i = 0; i < b->ngpus; i++)
		if (!b->calibrated[i]) {
			fprintf(f, "note: the spin kernel could not be timed on every GPU (under 0.5 ms for %u ms "
				"of cycles): compute follows the stated clock rate\n", GF_OVERLAP_CALIBRATE_MS);
			break;
		}
	fprintf(f, "fraction = (serial - overlap) / min(compute, comm): 1 = the shorter phase hidden entirely, "
		"0 = nothing hidden\n");
	return ferror(f) ? -EIO : 0;
}
