/* A sample as the terminal table of `gpufeed watch` (docs/watch.md): one
 * row per GPU under a two-line header of names and units, as nvidia-smi
 * dmon prints it, then compact rows for the host's NUMA nodes, disks, NICs,
 * the page cache and the process watched.  Every line is built in a buffer
 * of GF_MON_PRINT_WIDTH columns, so none can be wider; a figure the sample
 * lacks is "-". */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <gpufeed/cpuset.h>
#include <gpufeed/monitor_output.h>
#include "core/error.h"
#include "monitor/output_fields.h"

/* ---- one line, at most GF_MON_PRINT_WIDTH columns ---- */

struct line {
	char buf[GF_MON_PRINT_WIDTH + 1];
	size_t len;
};

static void add(struct line *l, const char *fmt, ...) GF_PRINTF(2, 3);
static void add(struct line *l, const char *fmt, ...)
{
	size_t room = sizeof(l->buf) - l->len;
	va_list ap;
	int n;

	if (room <= 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n < room ? (size_t)n : room - 1;
}

struct out {
	FILE *f;
	int lines;
};

static void emit(struct out *o, struct line *l)
{
	while (l->len && l->buf[l->len - 1] == ' ')
		l->len--;
	l->buf[l->len] = '\0';
	fputs(l->buf, o->f);
	fputc('\n', o->f);
	o->lines++;
	l->len = 0;
}

/* ---- figures as short strings; "-" when the sample lacks them ---- */

typedef char fig[24];

static bool known(double x)
{
	return isfinite(x);
}

/* About 3 significant figures, whole numbers from 100 on: 0.12, 1.23,
 * 12.3, 123, 12345. */
static const char *num(fig b, double x)
{
	if (!known(x))
		return "-";
	if (fabs(x) < 9.995)
		snprintf(b, sizeof(fig), "%.2f", x);
	else if (fabs(x) < 99.95)
		snprintf(b, sizeof(fig), "%.1f", x);
	else
		snprintf(b, sizeof(fig), "%.0f", x);
	return b;
}

/* A fraction 0..1 as a whole percentage; past 999 (a limit the model got
 * wrong) ">999". */
static const char *pct(fig b, double frac)
{
	if (!known(frac))
		return "-";
	if (frac * 100 >= 999.5)
		return ">999";
	snprintf(b, sizeof(fig), "%.0f", frac * 100);
	return b;
}

/* "34%" in the host rows, which have no units line. */
static const char *pct_sign(fig b, double frac)
{
	fig p;

	if (!known(frac))
		return "-";
	snprintf(b, sizeof(fig), "%s%%", pct(p, frac));
	return b;
}

/* The busier direction as a fraction of a one-direction limit. */
static double pct_frac(double rx, double tx, double limit)
{
	double busier = !known(rx) ? tx : !known(tx) ? rx : rx > tx ? rx : tx;

	if (!known(busier) || !known(limit) || limit <= 0)
		return NAN;
	return busier / limit;
}

static const char *gbps(fig b, double bps)
{
	return num(b, known(bps) ? bps / 1e9 : NAN);
}

static const char *mbps(fig b, double bps)
{
	return num(b, known(bps) ? bps / 1e6 : NAN);
}

static bool count_known(uint64_t v)
{
	return v != GF_MON_NONE;
}

static const char *gib(fig b, uint64_t bytes)
{
	return num(b, count_known(bytes) ? (double)bytes / (1ull << 30) : NAN);
}

/* Bytes with a binary unit: 512K, 3.2M, 80.1G. */
static const char *bytes_h(fig b, uint64_t v)
{
	static const char units[] = "KMGTP";
	double x = (double)v / 1024;
	int u = 0;

	if (!count_known(v))
		return "-";
	if (!v)
		return "0";
	while (x >= 1000 && u < 4)
		x /= 1024, u++;
	num(b, x);
	strncat(b, (char[]){ units[u], '\0' }, sizeof(fig) - strlen(b) - 1);
	return b;
}

/* A count in at most 5 characters: 12, 1234, 12k, 3.4M. */
static const char *count(fig b, uint64_t v)
{
	if (!count_known(v))
		return "-";
	if (v < 10000)
		snprintf(b, sizeof(fig), "%llu", (unsigned long long)v);
	else if (v < 1000000)
		snprintf(b, sizeof(fig), "%.0fk", (double)v / 1e3);
	else
		snprintf(b, sizeof(fig), "%.1fM", (double)v / 1e6);
	return b;
}

static const char *mhz(fig b, unsigned v)
{
	if (!v)
		return "-";
	snprintf(b, sizeof(fig), "%u", v);
	return b;
}

/* ---- the GPU table ---- */

/* Throttle reasons by their NVML bit (nvml.h, nvmlClocksEventReason*), in
 * a few letters each so several fit the column. */
static const struct {
	uint64_t bit;
	const char *abbr;
} reasons[] = {
	{ 0x4, "pwr" },		/* SwPowerCap */
	{ 0x8, "hw" },		/* HwSlowdown */
	{ 0x40, "hwth" },	/* HwThermalSlowdown */
	{ 0x20, "swth" },	/* SwThermalSlowdown */
	{ 0x80, "brake" },	/* HwPowerBrakeSlowdown */
	{ 0x2, "app" },		/* ApplicationsClocksSetting */
	{ 0x10, "sync" },	/* SyncBoost */
	{ 0x100, "disp" },	/* DisplayClockSetting */
	{ 0x1, "idle" },	/* GpuIdle */
};

#define THROTTLE_WIDTH 10

/* The active reasons, the ones that cost speed first, cut to the column
 * with "+N" for those left out. */
static const char *throttle(fig b, uint64_t bits)
{
	int left = 0;
	size_t len = 0;

	if (!count_known(bits))
		return "-";
	if (!bits)
		return "none";
	b[0] = '\0';
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]) + 1; i++) {
		bool other = i == sizeof(reasons) / sizeof(reasons[0]);
		uint64_t all = 0;
		const char *name;

		for (size_t k = 0; other && k < sizeof(reasons) / sizeof(reasons[0]); k++)
			all |= reasons[k].bit;
		if (other ? !(bits & ~all) : !(bits & reasons[i].bit))
			continue;
		name = other ? "other" : reasons[i].abbr;
		/* Keep room for "+N" behind the names that fit. */
		if (len + (len ? 1 : 0) + strlen(name) <= THROTTLE_WIDTH - 2 && !left)
			len += (size_t)snprintf(b + len, sizeof(fig) - len, "%s%s", len ? "," : "", name);
		else
			left++;
	}
	if (left)
		snprintf(b + len, sizeof(fig) - len, "+%d", left);
	return b;
}

struct col {
	const char *name, *unit;
	int width;
	bool left;
};

static const struct col gpu_cols[] = {
	{ "#gpu", "#idx", 4, false },
	{ "sm", "%", 3, false },	{ "occ", "%", 3, false },	{ "tc", "%", 3, false },
	{ "mem", "GiB", 5, false },
	{ "pcirx", "GB/s", 5, false }, { "pcitx", "GB/s", 5, false }, { "pcie", "%lim", 4, false },
	{ "nvlrx", "GB/s", 5, false }, { "nvltx", "GB/s", 5, false }, { "nvl", "%lim", 4, false },
	{ "pwr/lim", "W", 9, false },
	{ "sm/mem", "MHz", 9, false },
	{ "throttle", "", THROTTLE_WIDTH, true },
	{ "xid", "last", 4, false },
	{ "ecc", "cor/unc", 7, false },
};

#define NCOLS (sizeof(gpu_cols) / sizeof(gpu_cols[0]))

static void cells(struct out *o, const char *const *v)
{
	struct line l = { .len = 0 };

	for (size_t i = 0; i < NCOLS; i++)
		add(&l, gpu_cols[i].left ? "%s%-*s" : "%s%*s", i ? " " : "", gpu_cols[i].width, v[i]);
	emit(o, &l);
}

static void gpu_header(struct out *o)
{
	const char *v[NCOLS];

	for (size_t i = 0; i < NCOLS; i++)
		v[i] = gpu_cols[i].name;
	cells(o, v);
	for (size_t i = 0; i < NCOLS; i++)
		v[i] = gpu_cols[i].unit;
	cells(o, v);
}

/* "a/b", each "-" when unknown, "-" when both are; "a" alone when both do
 * not fit. */
static const char *pair(fig b, const char *x, const char *y, int width)
{
	if (!strcmp(x, "-") && !strcmp(y, "-"))
		return "-";
	if (snprintf(b, sizeof(fig), "%s/%s", x, y) > width)
		snprintf(b, sizeof(fig), "%s", x);
	return b;
}

static void gpu_row(struct out *o, const struct gf_mon_gpu *g)
{
	fig f[20], pw, pl, sc, mc, ec, eu;
	const char *v[NCOLS];
	int n = 0;

	snprintf(f[0], sizeof(fig), "%d", g->index);
	v[n++] = f[0];
	v[n++] = pct(f[1], g->sm_active);
	v[n++] = pct(f[2], g->sm_occupancy);
	v[n++] = pct(f[3], g->tensor_active);
	v[n++] = gib(f[4], g->mem_used);
	v[n++] = gbps(f[5], g->pcie_rx_bps);
	v[n++] = gbps(f[6], g->pcie_tx_bps);
	v[n++] = pct(f[7], pct_frac(g->pcie_rx_bps, g->pcie_tx_bps, g->pcie_limit_bps));
	v[n++] = gbps(f[8], g->nvlink_rx_bps);
	v[n++] = gbps(f[9], g->nvlink_tx_bps);
	v[n++] = pct(f[10], pct_frac(g->nvlink_rx_bps, g->nvlink_tx_bps, g->nvlink_limit_bps));
	v[n++] = pair(f[11], known(g->power_w) ? (snprintf(pw, sizeof(pw), "%.0f", g->power_w), pw) : "-",
		      known(g->power_limit_w) ? (snprintf(pl, sizeof(pl), "%.0f", g->power_limit_w), pl) : "-",
		      gpu_cols[11].width);
	v[n++] = pair(f[12], mhz(sc, g->sm_clock_mhz), mhz(mc, g->mem_clock_mhz), gpu_cols[12].width);
	v[n++] = throttle(f[13], g->throttle_reasons);
	if (!count_known(g->xid_events))
		v[n++] = "-";
	else if (!g->xid_events)
		v[n++] = "none";
	else
		v[n++] = count(f[14], g->last_xid);
	v[n++] = pair(f[15], count(ec, g->ecc_corrected), count(eu, g->ecc_uncorrected), gpu_cols[15].width);
	cells(o, v);
}

/* ---- host rows: a label, then named figures ---- */

#define LABEL "%-14.14s"

static void node_row(struct out *o, const struct gf_mon_node *n)
{
	struct line l = { .len = 0 };
	char label[32];
	fig a, b, c, d;

	snprintf(label, sizeof(label), "node%d", n->node);
	add(&l, " " LABEL " cpu %5s  iowait %5s  mem free %6s of %6s GiB", label, pct_sign(a, n->cpu_busy),
	    pct_sign(b, n->cpu_iowait), gib(c, n->mem_free), gib(d, n->mem_total));
	emit(o, &l);
}

static void disk_row(struct out *o, const struct gf_mon_disk *d)
{
	struct line l = { .len = 0 };
	fig a, b, c, q, p, lim;

	add(&l, " " LABEL " read %6s  write %6s MB/s  util %5s  queue %5s", d->name, mbps(a, d->read_bps),
	    mbps(b, d->write_bps), pct_sign(c, d->busy), num(q, d->queue));
	if (known(d->limit_bps))
		add(&l, "  %5s of %s GB/s", pct_sign(p, pct_frac(d->read_bps, d->write_bps, d->limit_bps)),
		    gbps(lim, d->limit_bps));
	emit(o, &l);
}

static void nic_row(struct out *o, const struct gf_mon_nic *n)
{
	struct line l = { .len = 0 };
	fig a, b, p, lim;

	add(&l, " " LABEL " rx %6s  tx %6s MB/s", n->name, mbps(a, n->rx_bps), mbps(b, n->tx_bps));
	if (known(n->limit_bps))
		add(&l, "  %5s of %s GB/s", pct_sign(p, pct_frac(n->rx_bps, n->tx_bps, n->limit_bps)),
		    gbps(lim, n->limit_bps));
	if (n->rdma)
		add(&l, "  (RDMA port)");
	emit(o, &l);
}

static void pagecache_row(struct out *o, const struct gf_mon_pagecache *p)
{
	struct line l = { .len = 0 };
	fig a, b, c, d;

	add(&l, " " LABEL " cached %6s  dirty %6s  writeback %6s  available %6s", "pagecache", bytes_h(a, p->cached),
	    bytes_h(b, p->dirty), bytes_h(c, p->writeback), bytes_h(d, p->mem_available));
	emit(o, &l);
}

/* ---- the process ---- */

static void proc_gpus(struct out *o, const struct gf_mon_sample *s, const char *label)
{
	struct line l = { .len = 0 };
	bool any = false;

	for (unsigned i = 0; s->gpus && i < s->ngpus; i++) {
		const struct gf_mon_gpu *g = &s->gpus[i];
		char item[64];
		fig a, b;

		/* The GPUs it uses: a GPU where it has no memory and ran nothing
		 * (both measured as 0, or unknown) is left out. */
		if (!(known(g->proc_sm_share) && g->proc_sm_share > 0) &&
		    !(count_known(g->proc_mem_used) && g->proc_mem_used > 0))
			continue;
		snprintf(item, sizeof(item), "  gpu%d sm %s mem %s GiB", g->index, pct_sign(a, g->proc_sm_share),
			 gib(b, g->proc_mem_used));
		if (!l.len)
			add(&l, " " LABEL " gpus", label);
		else if (l.len + strlen(item) > GF_MON_PRINT_WIDTH) {
			emit(o, &l);
			add(&l, " " LABEL " gpus", label);
		}
		add(&l, "%s", item);
		any = true;
	}
	if (any)
		emit(o, &l);
}

/* Where its threads last ran: the CPUs and their nodes. */
static void proc_placement(struct out *o, const struct gf_mon_proc *p, const char *label)
{
	struct gf_cpuset cpus, nodes;
	struct line l = { .len = 0 };
	char cl[256], nl[128];

	gf_cpuset_zero(&cpus);
	gf_cpuset_zero(&nodes);
	for (unsigned i = 0; p->threads && i < p->nthreads; i++) {
		if (p->threads[i].last_cpu >= 0)
			gf_cpuset_set(&cpus, p->threads[i].last_cpu);
		if (p->threads[i].node >= 0)
			gf_cpuset_set(&nodes, p->threads[i].node);
	}
	if (gf_cpuset_empty(&cpus))
		return;
	gf_cpuset_format_list(&cpus, cl, sizeof(cl));
	gf_cpuset_format_list(&nodes, nl, sizeof(nl));
	add(&l, " " LABEL " threads ran on node %s, CPUs %s", label, nl[0] ? nl : "-", cl);
	if (l.len == GF_MON_PRINT_WIDTH)
		memcpy(l.buf + GF_MON_PRINT_WIDTH - 3, "...", 3);
	emit(o, &l);
}

/* The busiest threads (the sampler sorts them), at most this many. */
#define THREAD_ROWS 4

static void proc_rows(struct out *o, const struct gf_mon_sample *s)
{
	const struct gf_mon_proc *p = s->proc;
	struct line l = { .len = 0 };
	char label[32];
	fig a, b, c, d, e, g;

	snprintf(label, sizeof(label), "pid %d", (int)p->pid);
	if (!p->alive) {
		add(&l, " " LABEL " has exited; its last figures:", label);
		emit(o, &l);
	}
	add(&l, " " LABEL " cpus busy %5s  runq %5s  rss %6s  procs %u  threads %u", label, num(a, p->cpu),
	    num(b, p->runq_wait), bytes_h(c, p->rss), p->nprocs, p->nthreads);
	if (known(p->cgroup_throttled))
		add(&l, "  cgroup throttled %s", pct_sign(d, p->cgroup_throttled));
	emit(o, &l);
	add(&l, " " LABEL " read %6s  write %6s  any read %6s MB/s  faults/s major %s minor %s", label,
	    mbps(a, p->read_bps), mbps(b, p->write_bps), mbps(c, p->rchar_bps), num(d, p->major_faults_per_s),
	    num(e, p->minor_faults_per_s));
	emit(o, &l);
	proc_gpus(o, s, label);
	proc_placement(o, p, label);
	for (unsigned i = 0; p->threads && i < p->nthreads && i < THREAD_ROWS; i++) {
		const struct gf_mon_thread *t = &p->threads[i];
		char tl[32];

		snprintf(tl, sizeof(tl), "tid %d", (int)t->tid);
		add(&l, " " LABEL " %-15.15s cpu %5s  runq %5s  on CPU %s node %s", tl, t->comm, pct_sign(a, t->cpu),
		    pct_sign(b, t->runq_wait), t->last_cpu >= 0 ? (snprintf(c, sizeof(c), "%d", t->last_cpu), c) : "-",
		    t->node >= 0 ? (snprintf(g, sizeof(g), "%d", t->node), g) : "-");
		emit(o, &l);
	}
}

/* ---- the sample ---- */

static void time_line(struct out *o, const struct gf_mon_sample *s)
{
	struct line l = { .len = 0 };
	time_t secs = (time_t)s->t;
	struct tm tm;
	char when[32] = "-";

	if (known(s->t) && s->t > 0 && localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	add(&l, "# %s", when);
	if (s->hostname[0])
		add(&l, "  %s", s->hostname);
	if (known(s->interval_s) && s->interval_s > 0)
		add(&l, "  over %.2f s", s->interval_s);
	else
		add(&l, "  levels only: no rates without a previous sample");
	emit(o, &l);
}

int gf_mon_sample_print(const struct gf_mon_sample *s, FILE *f, unsigned flags)
{
	struct out o = { .f = f };
	int ret = gf_mon_out_args(__func__, s, f, flags, GF_MON_OUT_HEADER);

	if (ret)
		return ret;
	if ((flags & GF_MON_OUT_HEADER) && s->ngpus && s->gpus)
		gpu_header(&o);
	time_line(&o, s);
	if (!s->ngpus && s->gpu_why) {
		struct line l = { .len = 0 };

		add(&l, "# no GPU figures: %s", s->gpu_why);
		emit(&o, &l);
	}
	for (unsigned i = 0; s->gpus && i < s->ngpus; i++)
		gpu_row(&o, &s->gpus[i]);
	for (unsigned i = 0; s->nodes && i < s->nnodes; i++)
		node_row(&o, &s->nodes[i]);
	for (unsigned i = 0; s->disks && i < s->ndisks; i++)
		disk_row(&o, &s->disks[i]);
	for (unsigned i = 0; s->nics && i < s->nnics; i++)
		nic_row(&o, &s->nics[i]);
	if (gf_mon_pagecache_known(&s->pagecache))
		pagecache_row(&o, &s->pagecache);
	if (s->proc)
		proc_rows(&o, s);
	if (ferror(f))
		return gf_error(-EIO, "monitor table: write failed");
	return o.lines;
}
