/* `bench mem` as a runner target: the pairs of nodes and the points on
 * them, buffers bound to the memory node (and checked with move_pages),
 * calibration of each point to a sample length, and the run. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/mem_bench.h"
#include "bench/mem_chain.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/opts.h"

static const char *const kind_names[] = { "latency", "read", "write", "copy" };

const char *gf_mem_kind_name(enum gf_mem_kind k)
{
	return (unsigned)k < GF_MEM_KINDS ? kind_names[k] : "?";
}

const char *gf_mem_kind_unit(enum gf_mem_kind k)
{
	return k == GF_MEM_LATENCY ? "ns" : "GB/s";
}

int gf_bench_mem_check(const struct gf_bench_mem_opts *o)
{
	struct gf_cpuset nodes;

	if (!o)
		return gf_error(-EINVAL, "bench mem: no options");
	if (o->nodes && (gf_cpuset_parse_list(&nodes, o->nodes) || gf_cpuset_empty(&nodes)))
		return gf_error(-EINVAL, "--nodes: '%s' is not a list of node numbers (0,1 or 0-3)", o->nodes);
	if (o->size && (o->size < GF_BENCH_MEM_SIZE_MIN || o->size > GF_BENCH_MEM_SIZE_MAX))
		return gf_error(-ERANGE, "--size: %llu bytes is not from 1M to 1T", (unsigned long long)o->size);
	if (o->threads > GF_BENCH_MEM_THREADS_MAX)
		return gf_error(-ERANGE, "--threads: at most %u", GF_BENCH_MEM_THREADS_MAX);
	if (o->repeats > GF_BENCH_MEM_REPEATS_MAX)
		return gf_error(-ERANGE, "--repeats: at most %u", GF_BENCH_MEM_REPEATS_MAX);
	return 0;
}

static const struct gf_numa_node *node_by_id(const struct gf_topo *t, int id)
{
	for (int i = 0; i < t->numa.nnodes; i++)
		if (t->numa.node[i].id == id)
			return &t->numa.node[i];
	return NULL;
}

/* Rows are the chosen nodes with CPUs we may run on, columns the chosen
 * nodes we may allocate on (a memory-only node, CXL or a GPU's, is a
 * column without a row). */
static int choose_nodes(struct gf_bench_mem *m)
{
	const struct gf_topo *t = m->topo;
	struct gf_cpuset want, cpus;
	char have[128] = "";

	if (!t->numa.nnodes)
		return gf_error(-ENODEV, "bench mem: the machine model has no NUMA node");
	for (int i = 0; i < t->numa.nnodes; i++) {
		size_t l = strlen(have);
		snprintf(have + l, sizeof(have) - l, "%s%d", i ? "," : "", t->numa.node[i].id);
	}
	gf_cpuset_zero(&want);
	if (m->o.nodes)
		gf_cpuset_parse_list(&want, m->o.nodes);
	else
		for (int i = 0; i < t->numa.nnodes; i++)
			gf_cpuset_set(&want, (unsigned)t->numa.node[i].id);
	m->rows = calloc((size_t)t->numa.nnodes, sizeof(int));
	m->cols = calloc((size_t)t->numa.nnodes, sizeof(int));
	if (!m->rows || !m->cols)
		return gf_error(-ENOMEM, "bench mem: out of memory");
	for (int id = gf_cpuset_first(&want); id >= 0; id = gf_cpuset_next(&want, id)) {
		const struct gf_numa_node *nd = node_by_id(t, id);

		if (!nd)
			return gf_error(-ENODEV, "--nodes: no NUMA node %d here (nodes: %s)", id, have);
		if (t->numa.mems_allowed_known && !gf_cpuset_isset(&t->numa.mems_allowed, (unsigned)id)) {
			if (m->o.nodes)
				return gf_error(-ENODEV, "--nodes: this process may not allocate on NUMA node %d "
						"(cpuset.mems)", id);
		} else {
			m->cols[m->ncols++] = id;
		}
		gf_cpuset_and(&cpus, &nd->cpus, &t->cpus.allowed);
		if (!gf_cpuset_empty(&cpus))
			m->rows[m->nrows++] = id;
	}
	if (!m->nrows || !m->ncols)
		return gf_error(-ENODEV, "bench mem: none of the nodes has %s this process may use",
				m->nrows ? "memory" : "CPUs");
	return 0;
}

static int make_points(struct gf_bench_mem *m)
{
	unsigned k = 0;

	m->npairs = m->nrows * m->ncols;
	m->npoints = m->npairs * GF_MEM_KINDS;
	m->pairs = calloc(m->npairs, sizeof(*m->pairs));
	m->points = calloc(m->npoints, sizeof(*m->points));
	m->res = calloc(m->npoints, sizeof(*m->res));
	m->placement = calloc(m->ncols, sizeof(*m->placement));
	m->flags = calloc(m->npoints * 2 + m->ncols, sizeof(*m->flags));
	if (!m->pairs || !m->points || !m->res || !m->placement || !m->flags)
		return gf_error(-ENOMEM, "bench mem: out of memory");
	for (unsigned c = 0; c < m->ncols; c++) {
		m->placement[c] = (struct gf_mem_placement){ .node = m->cols[c], .other = -1 };
		for (unsigned r = 0; r < m->nrows; r++) {
			struct gf_mem_pair *p = &m->pairs[c * m->nrows + r];

			p->cpu_node = m->rows[r];
			p->mem_node = m->cols[c];
			p->row = (int)r;
			p->col = (int)c;
			gf_cpuset_and(&p->cpus, &node_by_id(m->topo, p->cpu_node)->cpus, &m->topo->cpus.allowed);
			p->threads = m->o.threads ? m->o.threads : gf_cpuset_count(&p->cpus);
			p->lat_cpu = gf_cpuset_first(&p->cpus);
		}
		/* A memory node's points together (its buffers are made once);
		 * the latencies first, while the chain is intact. */
		for (unsigned r = 0; r < m->nrows; r++)
			m->points[k++] = (struct gf_mem_point){ .kind = GF_MEM_LATENCY, .pair = c * m->nrows + r };
		for (unsigned r = 0; r < m->nrows; r++)
			for (int kind = GF_MEM_READ; kind < GF_MEM_KINDS; kind++)
				m->points[k++] = (struct gf_mem_point){ .kind = (enum gf_mem_kind)kind,
									.pair = c * m->nrows + r };
	}
	return 0;
}

/* Asks move_pages where GF_MEM_PAGES_CHECKED pages spread over b are. */
static void check_pages(const struct gf_buf *b, struct gf_mem_placement *pl)
{
	size_t step = b->size / GF_MEM_PAGES_CHECKED;

	for (unsigned i = 0; i < GF_MEM_PAGES_CHECKED; i++) {
		int node = gf_mem_node_of((const char *)b->data + i * step);

		pl->checked++;
		if (node == pl->node)
			pl->on_node++;
		else if (pl->other < 0)
			pl->other = node;	/* a node, or -errno (-ENOENT: not faulted in) */
	}
	pl->done = true;
}

static int alloc_on(struct gf_bench_mem *m, int node, struct gf_buf **out)
{
	struct gf_buf_opts bo = GF_BUF_OPTS_INIT;
	int rc;

	bo.size = (size_t)m->o.size;
	bo.numa_node = node;
	/* MPOL_BIND: a node out of memory fails the point rather than
	 * measuring another node's memory under this one's name. */
	bo.flags = GF_BUF_NODE_STRICT;
	if ((rc = gf_buf_alloc(&bo, out)))
		return gf_error(rc, "bench mem: %llu bytes on NUMA node %d: %s", (unsigned long long)bo.size, node,
				gf_last_error());
	return 0;
}

static void free_bufs(struct gf_bench_mem *m)
{
	gf_buf_free(m->a);
	gf_buf_free(m->b);
	m->a = m->b = NULL;
	m->buf_node = -1;
	m->chain_ok = false;
}

static int buffers_for(struct gf_bench_mem *m, const struct gf_mem_pair *pr, enum gf_mem_kind kind)
{
	struct gf_mem_placement *pl = &m->placement[pr->col];
	int rc;

	if (m->buf_node != pr->mem_node) {
		free_bufs(m);
		if ((rc = alloc_on(m, pr->mem_node, &m->a)))
			return rc;
		m->buf_node = pr->mem_node;
		check_pages(m->a, pl);
	}
	if (kind == GF_MEM_COPY && !m->b) {
		if ((rc = alloc_on(m, pr->mem_node, &m->b)))
			return rc;
		check_pages(m->b, pl);
	}
	return 0;
}

static int op_prepare(void *ctx, unsigned i)
{
	struct gf_bench_mem *m = ctx;
	struct gf_mem_point *pt = &m->points[i];
	const struct gf_mem_pair *pr = &m->pairs[pt->pair];
	double v = 0, moved;
	int rc;

	if ((rc = buffers_for(m, pr, pt->kind)))
		return rc;
	if (pt->kind == GF_MEM_LATENCY && !m->chain_ok) {
		if (!gf_mem_chain_build(m->a->data, m->a->size, GF_MEM_LINE, 0x9f3b5a17u + (unsigned)pr->mem_node))
			return gf_error(-EINVAL, "bench mem: no chain in %zu bytes", m->a->size);
		m->chain_ok = true;
	}
	if (pt->kind == GF_MEM_WRITE)
		m->chain_ok = false;	/* overwritten */
	/* Calibrate: a short run says how much work fills a sample. */
	pt->pos = m->a->data;
	pt->work = pt->kind == GF_MEM_LATENCY ? 1u << 16 : 1;
	if ((rc = gf_mem_team_run(m, pr, pt, &v)))
		return rc;
	if (pt->kind == GF_MEM_LATENCY) {
		double loads = v > 0 ? m->sample_s * 1e9 / v : 1e6;
		pt->work = loads < 65536 ? 65536 : loads > 1e9 ? 1000000000u : (uint64_t)loads;
	} else {
		moved = (double)m->a->size * (pt->kind == GF_MEM_COPY ? 2 : 1);
		double passes = v > 0 ? ceil(m->sample_s / (moved / (v * 1e9))) : 1;
		pt->work = passes < 1 ? 1 : passes > 100000 ? 100000 : (uint64_t)passes;
	}
	return 0;
}

static int op_sample(void *ctx, unsigned i, double *value)
{
	struct gf_bench_mem *m = ctx;
	struct gf_mem_point *pt = &m->points[i];

	return gf_mem_team_run(m, &m->pairs[pt->pair], pt, value);
}

static void op_label(void *ctx, unsigned i, char *buf, size_t size)
{
	struct gf_bench_mem *m = ctx;
	const struct gf_mem_point *pt = &m->points[i];
	const struct gf_mem_pair *pr = &m->pairs[pt->pair];

	snprintf(buf, size, "%s, CPU node %d, memory node %d", gf_mem_kind_name(pt->kind), pr->cpu_node,
		 pr->mem_node);
}

static const struct gf_bench_ops mem_ops = {
	.prepare = op_prepare, .sample = op_sample, .label = op_label,
};

/* A buffer must dwarf the last-level cache or the figures are the cache's:
 * the default is four times the largest one (at least 256 MiB, 64 MiB with
 * --quick), read from cpuN/cache/indexK/{level,size} of one CPU per L3
 * group of the model (every CPU of a group shares its caches' sizes), or of
 * the first CPU when the model has no L3 groups. */
static unsigned long long cache_of_cpu(struct gf_fs *fs, int cpu, int *best_level)
{
	unsigned long long best = 0;

	for (int k = 0; k < 8; k++) {
		char path[128], text[32], *end;
		long long level = 0;
		unsigned long long v;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, k);
		if (gf_fs_read_ll(fs, path, &level))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, k);
		if (gf_fs_read_str(fs, path, text, sizeof(text)) < 0)
			continue;
		v = strtoull(text, &end, 10);
		v <<= *end == 'K' ? 10 : *end == 'M' ? 20 : 0;
		if (level > *best_level || (level == *best_level && v > best))
			*best_level = (int)level, best = v;
	}
	return best;
}

unsigned long long gf_mem_llc_bytes(const struct gf_topo *t)
{
	unsigned long long best = 0;
	int best_level = 0;
	struct gf_fs fs;

	if (gf_fs_init(&fs, NULL))
		return 0;
	for (int g = 0; g < (t->cpus.nl3 ? t->cpus.nl3 : 1); g++) {
		int cpu = t->cpus.nl3 ? gf_cpuset_first(&t->cpus.l3[g]) : t->cpus.ncpu ? t->cpus.cpu[0].id : 0;
		int level = best_level;
		unsigned long long v = cache_of_cpu(&fs, cpu, &level);

		if (level > best_level || (level == best_level && v > best))
			best_level = level, best = v;
	}
	gf_fs_fini(&fs);
	return best_level >= 2 ? best : 0;
}

/* Two buffers of size on one node at a time: refused, not OOM-killed,
 * when they are more than the memory available (MemAvailable, read live:
 * the buffers are this machine's whatever model names the nodes). */
static int fits_memory(const struct gf_bench_mem *m)
{
	unsigned long long avail_kb = 0;
	char *text = NULL, *at;
	struct gf_fs fs;
	size_t len;

	if (gf_fs_init(&fs, NULL))
		return 0;
	if (gf_fs_read(&fs, "/proc/meminfo", &text, &len))
		text = NULL;	/* unknown: the allocation will say */
	gf_fs_fini(&fs);
	if (text && (at = strstr(text, "MemAvailable:")))
		sscanf(at, "MemAvailable: %llu kB", &avail_kb);
	free(text);
	if (avail_kb && 2 * m->o.size > avail_kb * 1024ull)
		return gf_error(-ENOMEM, "--size %llu MiB: its two buffers need %llu MiB on a node, and this machine has "
				"%llu MiB available (/proc/meminfo MemAvailable): give a smaller --size",
				(unsigned long long)(m->o.size >> 20), (unsigned long long)(m->o.size >> 19),
				avail_kb >> 10);
	return 0;
}

int gf_bench_mem_run(const struct gf_bench_mem_opts *opts, const struct gf_bench_env *env,
		     struct gf_bench_mem **out)
{
	struct gf_runner_opts ro = { .name = "gpufeed bench mem", .warmup = 1 };
	struct gf_bench_mem *m;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !env || !env->model)
		return gf_error(-EINVAL, "bench mem: no %s", !out ? "place for the results" : "machine model");
	if ((rc = gf_bench_mem_check(opts)))
		return rc;
	if (opts->nt && !gf_mem_have_nt())
		return gf_error(-ENOSYS, "--nt: non-temporal stores are not built for this CPU");
	m = calloc(1, sizeof(*m));
	if (!m)
		return gf_error(-ENOMEM, "bench mem: out of memory");
	m->o = *opts;
	m->o.size = opts->size ? opts->size : opts->quick ? 64ull << 20 : 256ull << 20;
	m->o.repeats = opts->repeats ? opts->repeats : opts->quick ? 3 : 5;
	m->sample_s = opts->quick ? 0.02 : 0.1;
	m->buf_node = -1;
	m->topo = env->model;
	m->llc_bytes = gf_mem_llc_bytes(m->topo);
	if (!opts->size && m->o.size < 4 * m->llc_bytes)
		m->o.size = 4 * m->llc_bytes;
	if ((rc = fits_memory(m)) || (rc = choose_nodes(m)) || (rc = make_points(m)))
		goto fail;
	ro.repeats = m->o.repeats;
	gf_bench_env_runner(env, &ro);
	rc = gf_runner_run(&mem_ops, m, m->npoints, &ro, m->res);
	free_bufs(m);
	if (rc)
		goto fail;
	gf_mem_sanity(m);
	*out = m;
	return 0;
fail:
	gf_bench_mem_free(m);
	return rc;
}

void gf_bench_mem_free(struct gf_bench_mem *m)
{
	if (!m)
		return;
	free_bufs(m);
	gf_runner_points_free(m->res, m->npoints);
	free(m->res);
	free(m->points);
	free(m->pairs);
	free(m->placement);
	free(m->flags);
	free(m->rows);
	free(m->cols);
	free(m);
}

/* ---- the target, as the frame sees it ---- */

GF_BENCH_RESULTS_DEFINE(gf_bench_mem, struct gf_bench_mem)

static int mem_check(const void *opts, const char *operand)
{
	(void)operand;
	return gf_bench_mem_check(opts);
}

static int mem_run(const void *opts, const char *operand, const struct gf_bench_env *env, void **res)
{
	(void)operand;
	return gf_bench_mem_run(opts, env, (struct gf_bench_mem **)res);
}

static const struct gf_bench_opt_def mem_opts[] = {
	GF_BENCH_FLAG("quick", "64 MiB buffers (or 4x the L3), 3 short samples per\n"
		      "figure (seconds on a small machine)", struct gf_bench_mem_opts, quick),
	GF_BENCH_TEXT("nodes", "LIST", "the NUMA nodes measured, as CPU and as memory nodes:\n"
		      "0,1 or 0-3 (default: all)", struct gf_bench_mem_opts, nodes),
	GF_BENCH_SIZE("size", "SIZE", "bytes of each buffer (default 256M or 4x the\n"
		      "largest L3, --quick 64M or 4x the L3; under 2x\n"
		      "the L3 draws a warning; two must fit in the\n"
		      "available memory)", struct gf_bench_mem_opts, size, GF_BENCH_MEM_SIZE_MIN,
		      GF_BENCH_MEM_SIZE_MAX),
	GF_BENCH_COUNT("threads", "N", "bandwidth threads per CPU node, pinned round robin\n"
		       "(default: one per allowed CPU of the node)", struct gf_bench_mem_opts, threads, 1,
		       GF_BENCH_MEM_THREADS_MAX),
	GF_BENCH_COUNT("repeats", "N", "samples per figure after a warm-up (default 5,\n--quick 3)",
		       struct gf_bench_mem_opts, repeats, 1, GF_BENCH_MEM_REPEATS_MAX),
	GF_BENCH_FLAG("nt", "non-temporal stores in write and copy (x86-64)", struct gf_bench_mem_opts, nt),
	GF_BENCH_OPTS_END,
};

const struct gf_bench_def gf_bench_mem_def = {
	.pub = {
		.name = "mem",
		.summary = "memory latency and bandwidth between NUMA nodes, like Intel MLC",
		.description =
			"Measures this machine's memory between every pair of NUMA nodes, as Intel\n"
			"MLC's latency and bandwidth matrices do: a thread on the CPUs of node i,\n"
			"memory bound to node j (MPOL_BIND, the pages' node checked with\n"
			"move_pages).  Idle latency is ns per dependent load of a pointer chain in\n"
			"random order; read, write and copy bandwidth are GB/s (1e9 bytes/s) with a\n"
			"thread per CPU of node i; copy counts bytes read + bytes written, as STREAM\n"
			"does.  Each figure is the median of --repeats samples; --json has them all.\n"
			"\n"
			"A single-node machine gets a 1x1 matrix.  Figures past a physical limit\n"
			"(over 1 TB/s) and pages found on another node are findings (exit 1);\n"
			"latencies under 30 ns or over 1 us are warnings.  The nodes come from the\n"
			"machine model (--root: a recording's); the memory measured is this\n"
			"machine's.\n",
		.schema = GF_BENCH_MEM_SCHEMA,
		.exits = { "", "pages not on the node asked for, a figure past a physical\n"
			   "limit, or a failed measurement",
			   "", "the machine model cannot be read; writing the output failed; Ctrl-C",
			   "--nodes names a node this machine lacks or this process may not\n"
			   "use; --nt on a CPU without non-temporal stores; two buffers of\n"
			   "--size are more than the memory available" },
		.footer = "How it measures and its JSON: docs/bench-mem.md, docs/json-bench-mem.md.\n",
	},
	.opts = mem_opts,
	.opts_size = sizeof(struct gf_bench_mem_opts),
	.check = mem_check,
	.run = mem_run,
	GF_BENCH_RESULTS(gf_bench_mem),
};
