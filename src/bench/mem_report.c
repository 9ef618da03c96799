/* `bench mem` output: the matrices (text), the documented JSON
 * (docs/json-bench-mem.md), and the figures held against physical limits. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include "bench/mem_bench.h"
#include "bench/output.h"
#include "core/error.h"
#include "core/json_read.h"
#include "core/json_stamp.h"
#include "topo/render.h"

/* Limits a figure cannot pass on real hardware.  DRAM idle latency is 60
 * to 150 ns local and up to ~400 ns across sockets (research note, section
 * 5); under 30 ns a chain is being served from a cache, over 1 us something
 * else (an emulator, swapping, a loaded host) is measured.  No CPU socket
 * has 1 TB/s of memory: 12-channel DDR5-6400 is 614 GB/s, HBM2e Xeon Max
 * about 1 TB/s at its wire rate. */
#define LAT_LOW_NS 30.0
#define LAT_HIGH_NS 1000.0
#define LAT_IMPOSSIBLE_NS 1.0
#define BW_IMPOSSIBLE_GBS 1000.0

static void flag(struct gf_bench_mem *m, unsigned point, bool error, const char *fmt, double v)
{
	struct gf_mem_flag *f = &m->flags[m->nflags++];

	f->point = point;
	f->error = error;
	snprintf(f->message, sizeof(f->message), fmt, v);
}

void gf_mem_sanity(struct gf_bench_mem *m)
{
	if (m->npoints && m->llc_bytes && m->o.size < 2 * m->llc_bytes)
		flag(m, 0, false, "the buffers are less than twice the %.0f MiB last-level cache: the figures are "
		     "partly the cache's, not memory's (leave --size out)", (double)m->llc_bytes / (1 << 20));
	for (unsigned i = 0; i < m->npoints; i++) {
		const struct gf_runner_point *r = &m->res[i];
		double v = r->stats.median;

		if (r->status)
			continue;
		if (m->points[i].kind == GF_MEM_LATENCY) {
			if (v < LAT_IMPOSSIBLE_NS)
				flag(m, i, true, "%.1f ns per dependent load is faster than any cache: not measured", v);
			else if (v < LAT_LOW_NS)
				flag(m, i, false, "%.1f ns is below DRAM latency (> 30 ns): the chain may fit in a cache "
				     "(--size)", v);
			else if (v > LAT_HIGH_NS)
				flag(m, i, false, "%.0f ns is above 1 us: an emulator, a loaded host or swapping, not "
				     "DRAM alone", v);
		} else if (v > BW_IMPOSSIBLE_GBS) {
			flag(m, i, true, "%.0f GB/s is above any CPU socket's memory (12-channel DDR5-6400: 614 GB/s)",
			     v);
		}
	}
}

unsigned gf_bench_mem_findings(const struct gf_bench_mem *m)
{
	unsigned n = 0;

	if (!m)
		return 0;
	for (unsigned c = 0; c < m->ncols; c++)
		n += m->placement[c].done && m->placement[c].on_node < m->placement[c].checked;
	for (unsigned i = 0; i < m->npoints; i++)
		n += m->res[i].status != 0;
	for (unsigned i = 0; i < m->nflags; i++)
		n += m->flags[i].error;
	return n;
}

static const struct gf_runner_point *point_of(const struct gf_bench_mem *m, unsigned pair, enum gf_mem_kind k,
					      unsigned *idx)
{
	for (unsigned i = 0; i < m->npoints; i++) {
		if (m->points[i].pair == pair && m->points[i].kind == k) {
			if (idx)
				*idx = i;
			return &m->res[i];
		}
	}
	return NULL;
}

static const char *const conventions[GF_MEM_KINDS] = {
	"ns per load of a pointer chain: one thread, each load's address from the one before, "
	"64-byte lines in a random cyclic order over the whole buffer (prefetchers defeated)",
	"bytes read per second by all threads together, 1 GB = 1e9 bytes",
	"bytes written per second (stores; a normal store also reads the line first, "
	"traffic not counted; --nt: non-temporal stores, no read)",
	"bytes read + bytes written per second, each byte copied counted twice (STREAM's "
	"convention: 'copy' moves 16 bytes per 8-byte element)",
};

static json_t *pair_json(const struct gf_bench_mem *m, unsigned p)
{
	const struct gf_mem_pair *pr = &m->pairs[p];
	const struct gf_mem_placement *pl = &m->placement[pr->col];
	json_t *o = json_object(), *place = json_object();
	char cpus[1024];

	gf_cpuset_format_list(&pr->cpus, cpus, sizeof(cpus));
	json_object_set_new(o, "cpu_node", json_integer(pr->cpu_node));
	json_object_set_new(o, "mem_node", json_integer(pr->mem_node));
	json_object_set_new(o, "cpus", json_string(cpus));
	json_object_set_new(o, "threads", json_integer(pr->threads));
	json_object_set_new(o, "latency_cpu", json_integer(pr->lat_cpu));
	json_object_set_new(place, "pages_checked", json_integer(pl->checked));
	json_object_set_new(place, "pages_on_node", json_integer(pl->on_node));
	json_object_set_new(place, "other_node", json_integer(pl->other));
	json_object_set_new(place, "verified", json_boolean(pl->done && pl->on_node == pl->checked));
	json_object_set_new(o, "placement", place);
	for (int k = 0; k < GF_MEM_KINDS; k++) {
		const struct gf_runner_point *r = point_of(m, p, (enum gf_mem_kind)k, NULL);
		json_object_set_new(o, gf_mem_kind_name((enum gf_mem_kind)k),
				    gf_bench_json_point(r, gf_mem_kind_unit((enum gf_mem_kind)k)));
	}
	return o;
}

/* Medians by [row][col]; NAN where the point failed. */
static void matrix_of(const struct gf_bench_mem *m, enum gf_mem_kind k, double *cells)
{
	for (unsigned p = 0; p < m->npairs; p++) {
		const struct gf_mem_pair *pr = &m->pairs[p];
		const struct gf_runner_point *r = point_of(m, p, k, NULL);
		cells[(unsigned)pr->row * m->ncols + (unsigned)pr->col] = r->status ? NAN : r->stats.median;
	}
}

static const char *const matrix_keys[GF_MEM_KINDS] = { "latency_ns", "read_gb_per_s", "write_gb_per_s",
							"copy_gb_per_s" };

int gf_bench_mem_write_json(const struct gf_bench_mem *m, FILE *f)
{
	json_t *root, *cfg, *conv, *mats, *pairs, *flags, *rows, *cols;
	double cells[64 * 64];

	if (!m || !f)
		return gf_error(-EINVAL, "bench mem: gf_bench_mem_write_json: NULL argument");
	root = json_object();
	gf_json_stamp(root, GF_BENCH_MEM_SCHEMA);
	json_object_set_new(root, "machine", gf_bench_json_topology(m->topo));
	cfg = json_object();
	json_object_set_new(cfg, "buffer_bytes", json_integer((json_int_t)m->o.size));
	json_object_set_new(cfg, "line_bytes", json_integer(GF_MEM_LINE));
	json_object_set_new(cfg, "repeats", json_integer(m->o.repeats));
	json_object_set_new(cfg, "warmup", json_integer(1));
	json_object_set_new(cfg, "sample_s", gf_bench_jnum(m->sample_s));
	json_object_set_new(cfg, "threads", m->o.threads ? json_integer(m->o.threads) : json_string("node"));
	json_object_set_new(cfg, "nt", json_boolean(m->o.nt));
	json_object_set_new(cfg, "quick", json_boolean(m->o.quick));
	json_object_set_new(root, "config", cfg);
	conv = json_object();
	for (int k = 0; k < GF_MEM_KINDS; k++)
		json_object_set_new(conv, gf_mem_kind_name((enum gf_mem_kind)k), json_string(conventions[k]));
	json_object_set_new(root, "conventions", conv);
	rows = json_array();
	cols = json_array();
	for (unsigned r = 0; r < m->nrows; r++)
		json_array_append_new(rows, json_integer(m->rows[r]));
	for (unsigned c = 0; c < m->ncols; c++)
		json_array_append_new(cols, json_integer(m->cols[c]));
	json_object_set_new(root, "cpu_nodes", rows);
	json_object_set_new(root, "mem_nodes", cols);
	mats = json_object();
	for (int k = 0; k < GF_MEM_KINDS && m->npairs <= 64 * 64; k++) {
		json_t *mat = json_array();
		matrix_of(m, (enum gf_mem_kind)k, cells);
		for (unsigned r = 0; r < m->nrows; r++) {
			json_t *row = json_array();
			for (unsigned c = 0; c < m->ncols; c++) {
				double v = cells[r * m->ncols + c];
				json_array_append_new(row, isnan(v) ? json_null() : gf_bench_jnum(v));
			}
			json_array_append_new(mat, row);
		}
		json_object_set_new(mats, matrix_keys[k], mat);
	}
	json_object_set_new(root, "matrices", mats);
	pairs = json_array();
	for (unsigned p = 0; p < m->npairs; p++)
		json_array_append_new(pairs, pair_json(m, p));
	json_object_set_new(root, "pairs", pairs);
	flags = json_array();
	for (unsigned i = 0; i < m->nflags; i++) {
		const struct gf_mem_flag *fl = &m->flags[i];
		const struct gf_mem_pair *pr = &m->pairs[m->points[fl->point].pair];
		json_t *o = json_object();
		json_object_set_new(o, "level", json_string(fl->error ? "error" : "warning"));
		json_object_set_new(o, "test", json_string(gf_mem_kind_name(m->points[fl->point].kind)));
		json_object_set_new(o, "cpu_node", json_integer(pr->cpu_node));
		json_object_set_new(o, "mem_node", json_integer(pr->mem_node));
		json_object_set_new(o, "message", json_string(fl->message));
		json_array_append_new(flags, o);
	}
	json_object_set_new(root, "flags", flags);
	json_object_set_new(root, "findings", json_integer(gf_bench_mem_findings(m)));
	return gf_json_dump(root, f);
}

static const char *const titles[GF_MEM_KINDS] = {
	"Idle latency, ns per dependent load (median)",
	"Read bandwidth, GB/s (median)",
	"Write bandwidth, GB/s (median)",
	"Copy bandwidth, GB/s, read + write bytes (median)",
};

int gf_bench_mem_print(const struct gf_bench_mem *m, FILE *f)
{
	char rl[64][24], cl[64][24], size[32], cpus[256];
	const char *rows[64], *cols[64];
	double cells[64 * 64], worst = 0;

	if (!m || !f)
		return gf_error(-EINVAL, "bench mem: gf_bench_mem_print: NULL argument");
	if (m->nrows > 64 || m->ncols > 64)
		return gf_error(-E2BIG, "bench mem: more than 64 nodes: use --json");
	gf_fmt_bytes(m->o.size, size, sizeof(size));
	fprintf(f, "%s: %s, %d NUMA node%s%s\n", m->topo->machine.hostname,
		m->topo->cpus.model[0] ? m->topo->cpus.model : "CPU model unknown", m->topo->numa.nnodes,
		m->topo->numa.nnodes == 1 ? "" : "s", m->topo->machine.hypervisor ? " (a virtual machine)" : "");
	fprintf(f, "buffers: %s on each memory node (MPOL_BIND), %u sample%s per figure after 1 warm-up, %s stores\n",
		size, m->o.repeats, m->o.repeats == 1 ? "" : "s", m->o.nt ? "non-temporal" : "normal");
	for (unsigned r = 0; r < m->nrows; r++) {
		snprintf(rl[r], sizeof(rl[r]), "cpu node %d", m->rows[r]);
		rows[r] = rl[r];
	}
	for (unsigned c = 0; c < m->ncols; c++) {
		snprintf(cl[c], sizeof(cl[c]), "mem %d", m->cols[c]);
		cols[c] = cl[c];
	}
	for (int k = 0; k < GF_MEM_KINDS; k++) {
		fputc('\n', f);
		matrix_of(m, (enum gf_mem_kind)k, cells);
		gf_bench_print_matrix(f, titles[k], "", rows, m->nrows, cols, m->ncols, cells,
				      k == GF_MEM_LATENCY ? "%.1f" : "%.2f");
	}
	fputc('\n', f);
	for (unsigned r = 0; r < m->nrows; r++) {
		const struct gf_mem_pair *pr = &m->pairs[r];
		gf_cpuset_format_list(&pr->cpus, cpus, sizeof(cpus));
		fprintf(f, "cpu node %d: CPUs %s, %u bandwidth thread%s, latency on CPU %d\n", pr->cpu_node, cpus,
			pr->threads, pr->threads == 1 ? "" : "s", pr->lat_cpu);
	}
	for (unsigned c = 0; c < m->ncols; c++) {
		const struct gf_mem_placement *pl = &m->placement[c];
		if (!pl->done)
			fprintf(f, "mem node %d: pages not checked (no buffer was made)\n", pl->node);
		else if (pl->on_node == pl->checked)
			fprintf(f, "mem node %d: %u of %u pages checked are on node %d (move_pages)\n", pl->node,
				pl->on_node, pl->checked, pl->node);
		else
			fprintf(f, "mem node %d: WRONG PLACEMENT: only %u of %u pages checked are on node %d "
				"(others on %d)\n", pl->node, pl->on_node, pl->checked, pl->node, pl->other);
	}
	for (unsigned i = 0; i < m->npoints; i++) {
		const struct gf_runner_point *r = &m->res[i];
		if (r->status)
			fprintf(f, "%s, cpu node %d, mem node %d: failed: %s\n", gf_mem_kind_name(m->points[i].kind),
				m->pairs[m->points[i].pair].cpu_node, m->pairs[m->points[i].pair].mem_node, r->error);
		else if (r->stats.median > 0 && r->stats.iqr / r->stats.median > worst)
			worst = r->stats.iqr / r->stats.median;
	}
	fprintf(f, "spread: the largest IQR is %.1f%% of its median (--json has every sample)\n", worst * 100);
	for (unsigned i = 0; i < m->nflags; i++) {
		const struct gf_mem_flag *fl = &m->flags[i];
		const struct gf_mem_pair *pr = &m->pairs[m->points[fl->point].pair];
		fprintf(f, "%s: %s, cpu node %d, mem node %d: %s\n", fl->error ? "error" : "warning",
			gf_mem_kind_name(m->points[fl->point].kind), pr->cpu_node, pr->mem_node, fl->message);
	}
	fprintf(f, "copy counts bytes read + bytes written (STREAM); MLC and nvbandwidth differ: docs/bench-mem.md\n");
	return ferror(f) ? -EIO : 0;
}
