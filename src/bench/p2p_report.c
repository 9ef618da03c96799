/* `bench p2p` output: one matrix per test and copy kind (rows: the GPU the
 * bytes come from, columns: the GPU they go to), the local copies, the
 * latency matrix, the documented JSON (docs/json-bench-p2p.md), and each
 * figure held against its path's theoretical limit from the machine model. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include "bench/output.h"
#include "bench/p2p_bench.h"
#include "core/error.h"
#include "core/json_stamp.h"
#include "topo/render.h"

static double limit(const struct gf_bench_p2p *p, const struct gf_p2p_point *pt)
{
	return pt->test == GF_P2P_LATENCY ? 0 : p->pairs[pt->src * p->ngpus + pt->dst].limit_gb_per_s;
}

/* A copy cannot beat the link it crosses: a figure above the limit is a
 * measurement bug (timing, bytes not moved), not a fast machine. */
void gf_p2p_sanity(struct gf_bench_p2p *p)
{
	for (unsigned i = 0; i < p->npoints; i++) {
		const struct gf_runner_point *r = &p->res[i];
		double lim = limit(p, &p->points[i]);
		struct gf_p2p_flag *f;

		if (r->status || lim <= 0 || r->stats.median <= lim)
			continue;
		f = &p->flags[p->nflags++];
		f->point = i;
		f->error = true;
		snprintf(f->message, sizeof(f->message),
			 "%.2f GB/s is above the path's theoretical %.2f GB/s: a measurement error", r->stats.median, lim);
	}
}

unsigned gf_bench_p2p_findings(const struct gf_bench_p2p *p)
{
	unsigned n = 0;

	if (!p)
		return 0;
	for (unsigned i = 0; i < p->npoints; i++)
		n += p->res[i].status != 0;
	for (unsigned i = 0; i < p->nflags; i++)
		n += p->flags[i].error;
	return n;
}

static double percent(const struct gf_bench_p2p *p, unsigned i)
{
	double lim = limit(p, &p->points[i]);

	return lim > 0 && !p->res[i].status ? 100.0 * p->res[i].stats.median / lim : NAN;
}

static json_t *jnum_or_null(double v)
{
	return isnan(v) || v <= 0 ? json_null() : gf_bench_jnum(v);
}

static json_t *point_json(const struct gf_bench_p2p *p, unsigned i)
{
	const struct gf_p2p_point *pt = &p->points[i];
	bool lat = pt->test == GF_P2P_LATENCY;
	json_t *o = gf_bench_json_point(&p->res[i], lat ? "ns" : "GB/s");
	unsigned row, col;
	const char *nvbw = gf_p2p_nvbw_name(pt, &row, &col);

	json_object_set_new(o, "test", json_string(gf_p2p_test_name(pt->test)));
	json_object_set_new(o, "copy", lat ? json_null() : json_string(gf_p2p_copy_name(pt->copy)));
	if (lat) {
		json_object_set_new(o, "gpu", json_integer(p->gpus[pt->dst].index));
		json_object_set_new(o, "memory_gpu", json_integer(p->gpus[pt->src].index));
		json_object_set_new(o, "loads", json_integer((json_int_t)p->hops));
	} else {
		json_object_set_new(o, "src_gpu", json_integer(p->gpus[pt->src].index));
		json_object_set_new(o, "dst_gpu", json_integer(p->gpus[pt->dst].index));
		json_object_set_new(o, "issued_by", json_integer(p->gpus[gf_p2p_issuer(pt)].index));
	}
	json_object_set_new(o, "bytes", json_integer((json_int_t)pt->size));
	json_object_set_new(o, "verified", json_boolean(pt->verified));
	json_object_set_new(o, "limit_gb_per_s", jnum_or_null(limit(p, pt)));
	json_object_set_new(o, "percent_of_limit", jnum_or_null(percent(p, i)));
	if (nvbw) {
		json_t *n = json_object();

		json_object_set_new(n, "testcase", json_string(nvbw));
		json_object_set_new(n, "row", json_integer(pt->test == GF_P2P_LOCAL ? 0 : p->gpus[row].index));
		json_object_set_new(n, "column", json_integer(p->gpus[col].index));
		json_object_set_new(o, "nvbandwidth", n);
	} else {
		json_object_set_new(o, "nvbandwidth", json_null());
	}
	return o;
}

static json_t *gpus_json(const struct gf_bench_p2p *p)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < p->ngpus; i++) {
		const struct gf_p2p_gpu *g = &p->gpus[i];
		json_t *o = json_object();

		json_object_set_new(o, "gpu", json_integer(g->index));
		json_object_set_new(o, "pci", json_string(g->dev.pci));
		json_object_set_new(o, "name", json_string(g->dev.name));
		json_object_set_new(o, "cuda_ordinal", json_integer(g->dev.ordinal));
		json_object_set_new(o, "sm_count", json_integer(g->dev.sm_count));
		json_object_set_new(o, "copy_engines", json_integer(g->dev.async_engines));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *pairs_json(const struct gf_bench_p2p *p)
{
	json_t *a = json_array();

	for (unsigned x = 0; x < p->ngpus; x++)
		for (unsigned y = x + 1; y < p->ngpus; y++) {
			const struct gf_p2p_pair *pr = &p->pairs[x * p->ngpus + y];
			json_t *o = json_object();

			json_object_set_new(o, "gpus", json_pack("[II]", (json_int_t)p->gpus[x].index,
								 (json_int_t)p->gpus[y].index));
			json_object_set_new(o, "peer_access", json_boolean(pr->peer));
			json_object_set_new(o, "link", pr->link[0] ? json_string(pr->link) : json_null());
			json_object_set_new(o, "limit_gb_per_s", jnum_or_null(pr->limit_gb_per_s));
			json_object_set_new(o, "limited_by", json_string(pr->limit_text));
			json_array_append_new(a, o);
		}
	return a;
}

static json_t *names_json(const bool *want, unsigned n, const char *(*name)(int))
{
	json_t *a = json_array();

	for (unsigned i = 0; i < n; i++)
		if (want[i])
			json_array_append_new(a, json_string(name((int)i)));
	return a;
}

static const char *test_name_i(int i) { return gf_p2p_test_name((enum gf_p2p_test)i); }
static const char *copy_name_i(int i) { return gf_p2p_copy_name((enum gf_p2p_copy)i); }

int gf_bench_p2p_write_json(const struct gf_bench_p2p *p, FILE *f)
{
	json_t *root, *cfg, *sizes, *pts, *flags;

	if (!p || !f)
		return gf_error(-EINVAL, "bench p2p: gf_bench_p2p_write_json: NULL argument");
	root = json_object();
	gf_json_stamp(root, GF_BENCH_P2P_SCHEMA);
	json_object_set_new(root, "machine", gf_bench_json_topology(p->topo));
	cfg = json_object();
	sizes = json_array();
	for (unsigned i = 0; i < p->nsizes; i++)
		json_array_append_new(sizes, json_integer((json_int_t)p->sizes[i]));
	json_object_set_new(cfg, "sizes", sizes);
	json_object_set_new(cfg, "tests", names_json(p->tests, GF_P2P_TESTS, test_name_i));
	json_object_set_new(cfg, "copies", names_json(p->copies, GF_P2P_COPIES, copy_name_i));
	json_object_set_new(cfg, "repeats", json_integer(p->o.repeats));
	json_object_set_new(cfg, "warmup_samples", json_integer(1));
	json_object_set_new(cfg, "loops", json_integer(p->o.loops));
	json_object_set_new(cfg, "warmup_copies", json_integer(GF_P2P_WARMUP_COPIES));
	json_object_set_new(cfg, "spin_ms", json_integer(GF_P2P_SPIN_MS));
	json_object_set_new(cfg, "sm_threads_per_block", json_integer(GF_P2P_SM_THREADS));
	json_object_set_new(cfg, "latency_bytes", json_integer(GF_P2P_CHASE_BYTES));
	json_object_set_new(cfg, "latency_stride_bytes", json_integer(GF_P2P_CHASE_STRIDE * 8));
	json_object_set_new(cfg, "latency_loads", json_integer((json_int_t)p->hops));
	json_object_set_new(cfg, "quick", json_boolean(p->o.quick));
	json_object_set_new(root, "config", cfg);
	json_object_set_new(root, "conventions",
			    json_string("GB/s = bytes of one copy x loops / the time between CUDA events around the "
					"loops, 1 GB = 1e9 bytes, bytes counted once (nvbandwidth's convention; a local "
					"copy reads and writes twice that); bidirectional figures are the named copy "
					"while the reverse runs at once; latency is ns per dependent load"));
	json_object_set_new(root, "gpus", gpus_json(p));
	json_object_set_new(root, "pairs", pairs_json(p));
	pts = json_array();
	for (unsigned i = 0; i < p->npoints; i++)
		json_array_append_new(pts, point_json(p, i));
	json_object_set_new(root, "points", pts);
	flags = json_array();
	for (unsigned i = 0; i < p->nflags; i++)
		json_array_append_new(flags, json_pack("{s:s, s:I, s:s}", "level", p->flags[i].error ? "error" : "warning",
						       "point", (json_int_t)p->flags[i].point, "message",
						       p->flags[i].message));
	json_object_set_new(root, "flags", flags);
	json_object_set_new(root, "findings", json_integer(gf_bench_p2p_findings(p)));
	return gf_json_dump(root, f);
}

/* The point of (test, copy, src, dst, size), -1 when none ran there. */
static int find(const struct gf_bench_p2p *p, enum gf_p2p_test t, enum gf_p2p_copy c, unsigned s, unsigned d,
		uint64_t size)
{
	for (unsigned i = 0; i < p->npoints; i++) {
		const struct gf_p2p_point *pt = &p->points[i];

		if (pt->test == t && (t == GF_P2P_LATENCY || (pt->copy == c && pt->size == size)) && pt->src == s &&
		    pt->dst == d)
			return (int)i;
	}
	return -1;
}

static double cell(const struct gf_bench_p2p *p, int i, bool pct)
{
	if (i < 0 || p->res[i].status)
		return NAN;
	return pct ? percent(p, (unsigned)i) : p->res[i].stats.median;
}

static void matrix(const struct gf_bench_p2p *p, FILE *f, enum gf_p2p_test t, enum gf_p2p_copy c, uint64_t size,
		   const char *const *names, double *cells)
{
	unsigned n = p->ngpus, row, col;
	bool any_limit = false;
	char title[256], sz[32];
	struct gf_p2p_point probe = { .test = t, .copy = c };
	const char *nv = gf_p2p_nvbw_name(&probe, &row, &col);

	gf_fmt_bytes(size, sz, sizeof(sz));
	for (int pct = 0; pct < 2; pct++) {
		for (unsigned s = 0; s < n; s++)
			for (unsigned d = 0; d < n; d++) {
				int i = s == d ? -1 : find(p, t, c, s, d, size);

				cells[s * n + d] = cell(p, i, pct);
				any_limit |= !pct && i >= 0 && limit(p, &p->points[i]) > 0;
			}
		if (pct && !any_limit)
			break;
		snprintf(title, sizeof(title), "\n%s %s, %s: %s (nvbandwidth %s); issued by the %s GPU", gf_p2p_test_name(t),
			 gf_p2p_copy_name(c), sz, pct ? "% of the path's limit" : "GB/s", nv,
			 t == GF_P2P_READ || t == GF_P2P_BIDIR_READ ? "destination" : "source");
		gf_bench_print_matrix(f, title, "from\\to", names, n, names, n, cells, pct ? "%.1f%%" : "%.2f");
	}
}

static void print_matrices(const struct gf_bench_p2p *p, FILE *f, const char *const *names, double *cells)
{
	unsigned n = p->ngpus;

	for (unsigned si = 0; si < p->nsizes && n > 1; si++)
		for (int t = 0; t < GF_P2P_LOCAL; t++)
			for (int c = 0; c < GF_P2P_COPIES; c++)
				if (p->tests[t] && p->copies[c])
					matrix(p, f, (enum gf_p2p_test)t, (enum gf_p2p_copy)c, p->sizes[si], names, cells);
	for (unsigned si = 0; si < p->nsizes && p->tests[GF_P2P_LOCAL]; si++) {
		static const char *const rows[] = { "ce", "sm" };
		char title[160], sz[32];

		for (int c = 0; c < GF_P2P_COPIES; c++)
			for (unsigned g = 0; g < n; g++)
				cells[c * n + g] = p->copies[c] ? cell(p, find(p, GF_P2P_LOCAL, (enum gf_p2p_copy)c, g, g,
									      p->sizes[si]), false)
								: NAN;
		gf_fmt_bytes(p->sizes[si], sz, sizeof(sz));
		snprintf(title, sizeof(title), "\nlocal copy within each GPU, %s: GB/s, bytes counted once "
			 "(ce: nvbandwidth device_local_copy)", sz);
		gf_bench_print_matrix(f, title, "copy", rows, 2, names, n, cells, "%.2f");
	}
	if (p->tests[GF_P2P_LATENCY]) {
		for (unsigned r = 0; r < n; r++)
			for (unsigned m = 0; m < n; m++)
				cells[r * n + m] = cell(p, find(p, GF_P2P_LATENCY, GF_P2P_SM, m, r, 0), false);
		gf_bench_print_matrix(f, "\nlatency: ns per dependent load by the row GPU in the column GPU's memory "
				      "(nvbandwidth device_to_device_latency_sm off the diagonal; the diagonal's 2 MiB "
				      "chain fits in the GPU's L2)", "run\\mem", names, n, names, n, cells, "%.1f");
	}
}

int gf_bench_p2p_print(const struct gf_bench_p2p *p, FILE *f)
{
	unsigned n;
	char (*labels)[16];
	const char **names;
	double *cells;

	if (!p || !f)
		return gf_error(-EINVAL, "bench p2p: gf_bench_p2p_print: NULL argument");
	n = p->ngpus;
	labels = calloc(n, sizeof(*labels));
	names = calloc(n, sizeof(*names));
	cells = calloc((size_t)n * n + 2 * n, sizeof(*cells));
	if (!labels || !names || !cells) {
		free(labels), free(names), free(cells);
		return gf_error(-ENOMEM, "bench p2p: out of memory");
	}
	for (unsigned g = 0; g < n; g++) {
		snprintf(labels[g], sizeof(labels[g]), "GPU%u", p->gpus[g].index);
		names[g] = labels[g];
	}
	fprintf(f, "%s: %u GPU%s; copies %u per sample after %u warm-up copies, behind a spin kernel, timed with "
		"CUDA events; median of %u samples\n", p->topo->machine.hostname, n, n == 1 ? "" : "s", p->o.loops,
		GF_P2P_WARMUP_COPIES, p->o.repeats);
	for (unsigned g = 0; g < n; g++)
		fprintf(f, "GPU %u %s (%s): %d SMs, %d copy engines\n", p->gpus[g].index,
			p->gpus[g].dev.name[0] ? p->gpus[g].dev.name : "(unnamed)", p->gpus[g].dev.pci,
			p->gpus[g].dev.sm_count, p->gpus[g].dev.async_engines);
	for (unsigned x = 0; x < n; x++)
		for (unsigned y = x + 1; y < n; y++) {
			const struct gf_p2p_pair *pr = &p->pairs[x * n + y];

			if (!pr->peer)
				fprintf(f, "GPU %u <-> GPU %u: n/a: no peer access (cuDeviceCanAccessPeer 0): not measured\n",
					p->gpus[x].index, p->gpus[y].index);
			else
				fprintf(f, "GPU %u <-> GPU %u: %s%slimit %s%s\n", p->gpus[x].index, p->gpus[y].index,
					pr->link, pr->link[0] ? ", " : "", pr->limit_gb_per_s > 0 ? "" : "unknown: ",
					pr->limit_text);
		}
	if (n == 1)
		fprintf(f, "One GPU: no peer pairs, so no GPU x GPU matrices; the diagonal runs (local copies, CE "
			"and SM, and local latency), the CE one comparable with nvbandwidth's device_local_copy\n");
	print_matrices(p, f, names, cells);
	for (unsigned i = 0; i < p->npoints; i++)
		if (p->res[i].status) {
			char label[128];

			gf_p2p_label(p, i, label, sizeof(label));
			fprintf(f, "failed: %s: %s\n", label, p->res[i].error);
		}
	for (unsigned i = 0; i < p->nflags; i++) {
		char label[128];

		gf_p2p_label(p, p->flags[i].point, label, sizeof(label));
		fprintf(f, "%s: %s: %s\n", p->flags[i].error ? "error" : "warning", label, p->flags[i].message);
	}
	fprintf(f, "\nbytes counted once, 1 GB = 1e9 bytes; read: the destination GPU pulls, write: the source GPU "
		"pushes; bidir: that copy while the reverse runs at once (nvbandwidth's read1/write1); '-': not "
		"measured; each point's bytes checked once\n");
	free(labels), free(names), free(cells);
	return ferror(f) ? -EIO : 0;
}
