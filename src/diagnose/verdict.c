/* The verdict: where the run's time went (input, communication, compute,
 * host), each part's share, what it would gain if that part were free, and
 * gpufeed's features that address it.  docs/diagnose.md explains the rules;
 * the numbers here are the ones it names. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "diagnose/verdict.h"

/* A second part within this ratio of the first makes a mixed verdict. */
#define MIXED_RATIO 0.8
/* The straggler: its input share at least this, and twice the others'. */
#define STRAGGLER_MIN 0.2
/* Host-to-GPU traffic above this share of the link marks the copy as the input's part. */
#define H2D_BUSY 0.5

static const char *const part_names[GF_DIAG_NPARTS] = { "input", "communication", "compute", "host" };
static const char *const wait_names[GF_DW_N] = { "disk", "pipe", "gpu", "sleep", "sync", "other" };

const char *gf_diag_part_name(enum gf_diag_part p)
{
	return (unsigned)p < GF_DIAG_NPARTS ? part_names[p] : "?";
}

const char *gf_diag_wait_name(enum gf_diag_wait w)
{
	return (unsigned)w < GF_DW_N ? wait_names[w] : "?";
}

const char *gf_diag_check_categories(const struct gf_diag_verdict *v)
{
	if (!v->known)
		return NULL;
	switch (v->bound) {
	case GF_DIAG_INPUT:
		return !strcmp(v->input_kind, "disk") ? "storage" : !strcmp(v->input_kind, "h2d") ? "pcie" : "cpu";
	case GF_DIAG_COMM:
		return "nccl,pcie";
	case GF_DIAG_COMPUTE:
		return "gpu";
	case GF_DIAG_HOST:
		return !strcmp(v->host_kind, "contention") || !strcmp(v->host_kind, "cpu") ? "cpu" : NULL;
	default:
		return NULL;
	}
}

void gf_diag_acc_init(struct gf_diag_acc *a)
{
	memset(a, 0, sizeof(*a));
	a->disk_limit_bps = NAN;
}

static void add_known(double v, double dt, double *sum, double *t)
{
	if (!isnan(v)) {
		*sum += v * dt;
		*t += dt;
	}
}

int gf_diag_acc_add(struct gf_diag_acc *a, const struct gf_diag_tick *t)
{
	if (t->nranks > GF_DIAG_MAX_RANKS)
		return gf_error(-EINVAL, "diagnose: a sample with %u ranks (at most %d)", t->nranks, GF_DIAG_MAX_RANKS);
	if (!(t->dt > 0) || !isfinite(t->dt))
		return gf_error(-EINVAL, "diagnose: a sample at t=%.3f with interval %g s", t->t, t->dt);
	if (t->nranks > a->nranks)
		a->nranks = t->nranks;
	a->nticks++;
	a->t += t->dt;
	for (unsigned i = 0; i < t->nranks; i++) {
		const struct gf_diag_rank_tick *r = &t->rank[i];
		struct gf_diag_rank_acc *s = &a->rank[i];
		double dt = t->dt;

		s->pid = r->pid;
		if (r->gone)
			continue;
		s->t += dt;
		s->run += r->run * dt;
		s->runq += r->runq * dt;
		for (int k = 0; k < GF_DW_N; k++)
			s->wait[k] += r->wait[k] * dt;
		s->cpu_s += isnan(r->cpu) ? 0 : r->cpu * dt;
		s->children_cpu_s += isnan(r->children_cpu) ? 0 : r->children_cpu * dt;
		s->read_b += isnan(r->read_bps) ? 0 : r->read_bps * dt;
		s->rchar_b += isnan(r->rchar_bps) ? 0 : r->rchar_bps * dt;
		s->majflt += isnan(r->majflt_ps) ? 0 : r->majflt_ps * dt;
		add_known(r->throttled, dt, &s->throttled_s, &s->throttled_t);
		add_known(r->gpu_active, dt, &s->gpu_s, &s->gpu_t);
		add_known(r->pcie_rx_frac, dt, &s->pcie_rx_s, &s->pcie_t);
		add_known(r->link_frac, dt, &s->link_s, &s->link_t);
		s->steps += r->steps;
		s->step_s += r->step_s;
		if (r->steps && r->step_s / (double)r->steps > s->step_max_s)
			s->step_max_s = r->step_s / (double)r->steps;
		s->input_wait_s += r->input_wait_s;
		s->input_bytes += r->input_bytes;
	}
	if (t->disk[0]) {
		snprintf(a->disk, sizeof(a->disk), "%s", t->disk);
		add_known(t->disk_busy, t->dt, &a->disk_busy_s, &a->disk_t);
		a->disk_read_b += isnan(t->disk_read_bps) ? 0 : t->disk_read_bps * t->dt;
		if (!isnan(t->disk_limit_bps))
			a->disk_limit_bps = t->disk_limit_bps;
	}
	if (a->nseries < GF_DIAG_MAX_SERIES && t->nranks && !t->rank[0].gone) {
		if (!a->nseries)
			a->series_dt = t->dt;
		a->series[a->nseries++] = t->rank[0].gpu_active;
	}
	return 0;
}

double gf_diag_infer_period(const double *x, unsigned n, double dt)
{
	double mean = 0, var = 0, best = 0.5;
	unsigned lag_best = 0;

	if (n < 6)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		if (isnan(x[i]))
			return 0;
		mean += x[i];
	}
	mean /= n;
	for (unsigned i = 0; i < n; i++)
		var += (x[i] - mean) * (x[i] - mean);
	if (var <= 1e-9 * n)
		return 0;	/* flat: no period to see */
	/* the first lag whose correlation peaks above 0.5: a multiple of the
	 * period correlates as well, and the shortest is the step */
	for (unsigned lag = 2; lag <= n / 3; lag++) {
		double c = 0;

		for (unsigned i = 0; i + lag < n; i++)
			c += (x[i] - mean) * (x[i + lag] - mean);
		c = c / var * (double)n / (double)(n - lag);
		if (c > best + 1e-9) {
			best = c;
			lag_best = lag;
		} else if (lag_best && c < best - 0.1) {
			break;
		}
	}
	return lag_best * dt;
}

/* One rank's parts, fractions of its observed time. */
struct rank_parts {
	double frac[GF_DIAG_NPARTS];
	double input_disk, input_pipe, input_loader, h2d;
	double host_run, host_runq, host_sleep, host_sync, host_other;
	bool gpu;
};

static void rank_parts(const struct gf_diag_rank_acc *s, struct rank_parts *p)
{
	double T = s->t, loader = s->input_wait_s, sync = s->wait[GF_DW_SYNC];
	double input, host, gpu_wait, total;

	memset(p, 0, sizeof(*p));
	if (T <= 0)
		return;
	/* the loader's wait is a condition variable: a futex, counted as sync */
	if (loader > sync)
		loader = sync;
	sync -= loader;
	p->input_disk = s->wait[GF_DW_DISK];
	p->input_pipe = s->wait[GF_DW_PIPE];
	p->input_loader = loader;
	p->host_run = s->run;
	p->host_runq = s->runq;
	p->host_sleep = s->wait[GF_DW_SLEEP];
	p->host_sync = sync;
	p->host_other = s->wait[GF_DW_OTHER];
	input = p->input_disk + p->input_pipe + p->input_loader;
	host = p->host_run + p->host_runq + p->host_sleep + p->host_sync + p->host_other;
	gpu_wait = s->wait[GF_DW_GPU];
	total = input + host + gpu_wait;
	if (total <= 0)
		total = 1;
	p->gpu = s->gpu_t > 0;
	if (p->gpu) {
		double busy = s->gpu_s / s->gpu_t, comm = s->link_t > 0 ? s->link_s / s->link_t : 0;
		double idle, ih = input + host;

		busy = busy < 0 ? 0 : busy > 1 ? 1 : busy;
		comm = comm > busy ? busy : comm < 0 ? 0 : comm;
		idle = 1 - busy;
		p->frac[GF_DIAG_COMM] = comm;
		p->frac[GF_DIAG_COMPUTE] = busy - comm;
		/* the GPU's idle time goes to what the host did meanwhile */
		p->frac[GF_DIAG_INPUT] = ih > 0 ? idle * input / ih : 0;
		p->frac[GF_DIAG_HOST] = ih > 0 ? idle * host / ih : idle;
		p->h2d = s->pcie_t > 0 ? s->pcie_rx_s / s->pcie_t : 0;
	} else {
		p->frac[GF_DIAG_INPUT] = input / total;
		p->frac[GF_DIAG_HOST] = host / total;
		p->frac[GF_DIAG_COMPUTE] = gpu_wait / total;
	}
}

static int argmax(const double *v, int n, int skip)
{
	int best = -1;

	for (int i = 0; i < n; i++)
		if (i != skip && (best < 0 || v[i] > v[best] + 1e-12))
			best = i;
	return best;
}

#define MB 1e6

static void explain_input(const struct gf_diag_acc *a, const struct rank_parts *p, const struct gf_diag_rank_acc *s,
			  struct gf_diag_verdict *v)
{
	double parts[] = { p->input_disk, p->input_pipe, p->input_loader };
	char *why = v->why[GF_DIAG_INPUT], *fix = v->fix[GF_DIAG_INPUT];
	size_t wl = sizeof(v->why[0]), fl = sizeof(v->fix[0]);
	int which = argmax(parts, 3, -1);
	double T = s->t;

	v->input_kind = p->gpu && p->h2d >= H2D_BUSY ? "h2d" : which == 0 ? "disk" : which == 1 ? "pipe" : "loader";
	if (p->gpu && p->h2d >= H2D_BUSY) {
		snprintf(why, wl, "host-to-GPU copy: PCIe at %.0f%% of the link's limit while the GPU waited",
			 100 * p->h2d);
		snprintf(fix, fl, "pinned memory for the copies (the loader's pinned slots); gpufeed bench h2d "
			 "measures the link; gpufeed check (category pcie) reports a link below its speed");
		return;
	}
	if (which == 0) {
		int n = snprintf(why, wl, "disk: the step thread blocked reading files %.0f%% of the time, "
				 "%.1f MB/s from storage, %.1f MB/s read in all", 100 * p->input_disk / T,
				 s->read_b / T / MB, s->rchar_b / T / MB);

		if (s->majflt / T >= 10 && n > 0 && (size_t)n < wl)
			n += snprintf(why + n, wl - (size_t)n, ", %.0f major page faults/s (a mapped file)",
				      s->majflt / T);
		if (a->disk[0] && a->disk_t > 0 && n > 0 && (size_t)n < wl)
			snprintf(why + n, wl - (size_t)n, "; %s %.0f%% busy%s", a->disk, 100 * a->disk_busy_s / a->disk_t,
				 isnan(a->disk_limit_bps) ? "" : " of its link");
		snprintf(fix, fl, "gpufeed bench io --direct gives the disk's O_DIRECT rate; gpufeed pack and "
			 "gpufeed's loader read at it (io_uring, O_DIRECT, prefetch); gpufeed check "
			 "(category storage) reports the disk's queue and read-ahead settings");
	} else if (which == 1) {
		double workers = s->children_cpu_s / T;

		snprintf(why, wl, "another process: the step thread blocked reading a pipe or socket %.0f%% of "
			 "the time (its child processes busy %.1f CPUs%s)", 100 * p->input_pipe / T, workers,
			 workers >= 0.9 ? ": CPU decode" : "");
		snprintf(fix, fl, "more loader workers or cheaper decoding, or gpufeed's loader in the process; "
			 "gpufeed run --gpu N binds the job and its workers to the GPU's CPUs");
	} else {
		snprintf(why, wl, "loader: the consumer waited %.0f%% of the time in gf_loader_next (%.1f MB/s "
			 "delivered)", 100 * p->input_loader / T, (double)s->input_bytes / T / MB);
		snprintf(fix, fl, "more loader threads or a deeper prefetch (docs/loader.md); gpufeed bench loader "
			 "measures the loader alone on the same dataset");
	}
}

static void explain_host(const struct rank_parts *p, const struct gf_diag_rank_acc *s, struct gf_diag_verdict *v)
{
	double parts[] = { p->host_run, p->host_runq, p->host_sleep, p->host_sync, p->host_other };
	char *why = v->why[GF_DIAG_HOST], *fix = v->fix[GF_DIAG_HOST];
	size_t wl = sizeof(v->why[0]), fl = sizeof(v->fix[0]);
	int which = argmax(parts, 5, -1);
	double T = s->t, thr = s->throttled_t > 0 ? s->throttled_s / s->throttled_t : 0;

	v->host_kind = thr >= 0.1 || which == 1 ? "contention"
		       : which == 0		 ? "cpu"
		       : which == 2		 ? "sleep"
		       : which == 4		 ? "other"
						 : "sync";
	if (thr >= 0.1 || which == 1) {
		snprintf(why, wl, "CPU contention: the step thread runnable but waiting for a CPU %.0f%% of the "
			 "time; its cgroup throttled %.0f%%", 100 * p->host_runq / T, 100 * thr);
		snprintf(fix, fl, "gpufeed run --gpu N --cpu node gives the job its GPU's CPUs alone; gpufeed check "
			 "(category cpu) reports the governor, isolation and the cgroup's CPU quota");
	} else if (which == 0) {
		snprintf(why, wl, "the job's own CPU work: the step thread on a CPU %.0f%% of the time (Python, "
			 "the host side of each step, kernel launches)", 100 * p->host_run / T);
		snprintf(fix, fl, "fewer, larger kernels (CUDA graphs, a larger batch) cut launch overhead; "
			 "gpufeed verify PID checks that its threads sit next to the GPU");
	} else if (which == 2) {
		snprintf(why, wl, "sleeping: the step thread slept or polled %.0f%% of the time", 100 * p->host_sleep / T);
		snprintf(fix, fl, "a sleep or a poll in the step loop (a timer, a logger, a barrier): the "
			 "job's code, not the machine");
	} else if (which == 4) {
		snprintf(why, wl, "blocked in another system call %.0f%% of the time (writing to a pipe or a "
			 "terminal, waiting for a child, a device other than a GPU)", 100 * p->host_other / T);
		snprintf(fix, fl, "what the job's step thread does besides its step: its output, a child process; "
			 "not the machine");
	} else {
		snprintf(why, wl, "waiting for its other threads (a queue, a lock, the GIL) %.0f%% of the time",
			 100 * p->host_sync / T);
		snprintf(fix, fl, "a thread of its own holds the step back: a queue fed too slowly or the GIL; "
			 "gpufeed's loader releases the GIL while it reads");
	}
}

static void explain_gpu(const struct rank_parts *p, const struct gf_diag_rank_acc *s, struct gf_diag_verdict *v)
{
	size_t wl = sizeof(v->why[0]), fl = sizeof(v->fix[0]);

	if (p->gpu)
		snprintf(v->why[GF_DIAG_COMPUTE], wl, "the GPU computing %.0f%% of the time (SM activity)",
			 100 * p->frac[GF_DIAG_COMPUTE]);
	else
		snprintf(v->why[GF_DIAG_COMPUTE], wl, "the step thread waiting for a GPU %.0f%% of the time "
			 "(no GPU counters for the job)", 100 * s->wait[GF_DW_GPU] / s->t);
	snprintf(v->fix[GF_DIAG_COMPUTE], fl, "the GPU is the limit: faster kernels (mixed precision, fused "
		 "operations); nothing on the host side to gain");
	snprintf(v->why[GF_DIAG_COMM], wl, "GPU-to-GPU traffic at %.0f%% of the link's limit",
		 100 * (s->link_t > 0 ? s->link_s / s->link_t : 0));
	snprintf(v->fix[GF_DIAG_COMM], fl, "gpufeed nccl log on the job's NCCL log names the transport NCCL chose "
		 "against the machine's best; gpufeed nccl check and gpufeed bench coll measure the links");
}

static void steps(const struct gf_diag_acc *a, struct gf_diag_verdict *v)
{
	const struct gf_diag_rank_acc *s = &a->rank[0];
	double period;

	v->step_source = "none";
	if (s->steps) {
		v->step_source = "markers";
		v->steps = s->steps;
		v->step_mean_s = s->step_s / (double)s->steps;
		v->step_max_s = s->step_max_s;
	} else if ((period = gf_diag_infer_period(a->series, a->nseries, a->series_dt)) > 0) {
		v->step_source = "gpu-period";
		v->step_mean_s = period;
		v->steps = (uint64_t)(a->t / period);
	}
}

static void straggler(const struct gf_diag_acc *a, struct gf_diag_verdict *v)
{
	double in, sum = 0, most = -1;
	struct rank_parts p;
	unsigned n = 0;
	int worst = -1;

	v->straggler = -1;
	for (unsigned i = 0; i < a->nranks; i++) {
		if (a->rank[i].t <= 0)
			continue;
		rank_parts(&a->rank[i], &p);
		in = p.frac[GF_DIAG_INPUT];
		sum += in;
		n++;
		if (in > most) {
			most = in;
			worst = (int)i;
		}
	}
	if (n < 2)
		return;
	v->others_input = (sum - most) / (n - 1);
	if (most >= STRAGGLER_MIN && most >= 2 * v->others_input) {
		v->straggler = worst;
		v->straggler_input = most;
	}
}

/* The rank (with samples) where part p takes the largest share. */
static unsigned worst_rank(const struct gf_diag_acc *a, enum gf_diag_part p)
{
	struct rank_parts r;
	unsigned best = 0;
	double most = -1;

	for (unsigned i = 0; i < a->nranks; i++) {
		if (a->rank[i].t <= 0)
			continue;
		rank_parts(&a->rank[i], &r);
		if (r.frac[p] > most) {
			most = r.frac[p];
			best = i;
		}
	}
	return best;
}

void gf_diag_classify(const struct gf_diag_acc *a, struct gf_diag_verdict *v)
{
	struct rank_parts p, r;
	unsigned sampled = 0;
	int first, second;

	memset(v, 0, sizeof(*v));
	v->straggler = -1;
	v->t = a->t;
	v->nranks = a->nranks;
	v->step_source = "none";
	/* the job's parts: the mean over the ranks that were sampled (one
	 * gone before its first interval has none) */
	memset(&p, 0, sizeof(p));
	for (unsigned i = 0; i < a->nranks; i++) {
		if (a->rank[i].t <= 0)
			continue;
		rank_parts(&a->rank[i], &r);
		for (int k = 0; k < GF_DIAG_NPARTS; k++)
			p.frac[k] += r.frac[k];
		p.gpu |= r.gpu;
		sampled++;
	}
	if (!sampled)
		return;
	for (int k = 0; k < GF_DIAG_NPARTS; k++)
		p.frac[k] /= sampled;
	v->known = true;
	v->gpu = p.gpu;
	for (int k = 0; k < GF_DIAG_NPARTS; k++) {
		v->frac[k] = p.frac[k];
		v->speedup[k] = p.frac[k] >= 0.99 ? 100 : 1 / (1 - p.frac[k]);
	}
	straggler(a, v);
	/* each part is explained from the rank where it is largest (the
	 * straggler, for input) */
	rank_parts(&a->rank[worst_rank(a, GF_DIAG_INPUT)], &r);
	explain_input(a, &r, &a->rank[worst_rank(a, GF_DIAG_INPUT)], v);
	rank_parts(&a->rank[worst_rank(a, GF_DIAG_HOST)], &r);
	explain_host(&r, &a->rank[worst_rank(a, GF_DIAG_HOST)], v);
	rank_parts(&a->rank[worst_rank(a, GF_DIAG_COMPUTE)], &r);
	explain_gpu(&r, &a->rank[worst_rank(a, GF_DIAG_COMPUTE)], v);
	first = argmax(v->frac, GF_DIAG_NPARTS, -1);
	second = argmax(v->frac, GF_DIAG_NPARTS, first);
	/* a straggler's input stall is everyone's: the job is input-bound even
	 * when the other ranks spend the time in collectives */
	if (v->straggler >= 0 && first == GF_DIAG_COMM) {
		second = first;
		first = GF_DIAG_INPUT;
	}
	v->bound = (enum gf_diag_part)first;
	v->second = (enum gf_diag_part)second;
	v->mixed = v->frac[second] >= 0.25 && v->frac[second] >= MIXED_RATIO * v->frac[first];
	steps(a, v);
}
