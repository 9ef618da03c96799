/* bench overlap on the GPUs: the communicators (coll/comm.h), per GPU the
 * gradients, the spin kernel and its calibration, and one iteration of
 * each mode queued as PyTorch DDP queues it.  Single process: every GPU,
 * the NCCL calls of a bucket in one group (ncclCommInitAll's shape);
 * multi-process: this rank's GPU, each sample the slowest rank's. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gpu_bench.h"
#include "bench/overlap_bench.h"
#include "core/error.h"


#define SPIN_THREADS 1u

static const struct gf_cuda_ops *ops_of(const struct gf_overlap_gpu *g)
{
	return g->cg->dev.ops;
}

static int cu(const struct gf_overlap_gpu *g, gf_cu_result r, const char *what)
{
	int rc = gf_cuda_check(ops_of(g), r, what);

	return rc ? gf_error(rc, "GPU %s (rank %d): %s", g->cg->dev.pci, g->cg->rank, gf_last_error()) : 0;
}

static int spin(struct gf_bench_overlap *b, struct gf_overlap_gpu *g, unsigned long long cycles)
{
	void *args[] = { &cycles };
	unsigned blocks = b->o.compute_blocks;

	return cu(g, ops_of(g)->launch_kernel(g->spin.fn, blocks, 1, 1, SPIN_THREADS, 1, 1, 0, g->cg->stream, args,
					      NULL), "cuLaunchKernel gf_spin");
}

/* A group's end under non-blocking communicators may say ncclInProgress:
 * the calls are queued once every comm says ready (NCCL's "Fault
 * Tolerance" section); gf_coll_comm_wait later bounds the work itself. */
static int nccl_done(struct gf_bench_overlap *b, gf_nccl_result r, const char *what)
{
	const struct gf_nccl_ops *n = b->comm->nccl;
	double deadline = gf_bench_now() + b->comm->timeout_s;

	if (r != GF_NCCL_IN_PROGRESS)
		return gf_nccl_check(n, NULL, r, what);
	for (int i = 0; i < b->ngpus; i++) {
		gf_nccl_result st = GF_NCCL_IN_PROGRESS;

		while (st == GF_NCCL_IN_PROGRESS) {
			if ((r = n->comm_get_async_error(b->gpus[i].cg->comm, &st)) != GF_NCCL_SUCCESS)
				return gf_nccl_check(n, b->gpus[i].cg->comm, r, what);
			if (st == GF_NCCL_IN_PROGRESS && gf_bench_now() > deadline) {
				gf_coll_comm_abort(b->comm);
				return gf_error(-ETIMEDOUT, "%s: not queued within %.0f s on GPU %s (rank %d)", what,
						b->comm->timeout_s, b->gpus[i].cg->dev.pci, b->gpus[i].cg->rank);
			}
		}
		if (st != GF_NCCL_SUCCESS)
			return gf_nccl_check(n, b->gpus[i].cg->comm, st, what);
	}
	return 0;
}

/* All-reduce of bucket k on every GPU of this process, each on its
 * stream (the training stream, or side when overlapped). */
static int all_reduce(struct gf_bench_overlap *b, const struct gf_overlap_plan *p, unsigned k, bool on_side)
{
	const struct gf_nccl_ops *n = b->comm->nccl;
	size_t count = (size_t)(gf_overlap_bucket_bytes(p, k) / GF_OVERLAP_ELEM);
	gf_nccl_result r;
	int rc = 0;

	if ((r = n->group_start()) != GF_NCCL_SUCCESS)
		return gf_nccl_check(n, NULL, r, "ncclGroupStart");
	for (int i = 0; i < b->ngpus && !rc; i++) {
		struct gf_overlap_gpu *g = &b->gpus[i];
		void *buf = (void *)(uintptr_t)(g->grad + (gf_cu_deviceptr)k * p->bucket_bytes);

		r = n->all_reduce(buf, buf, count, GF_NCCL_FLOAT32, GF_NCCL_SUM, g->cg->comm,
				  on_side ? g->side : g->cg->stream);
		if (r != GF_NCCL_SUCCESS && r != GF_NCCL_IN_PROGRESS)
			rc = gf_nccl_check(n, g->cg->comm, r, "ncclAllReduce");
	}
	r = n->group_end();
	return rc ? rc : nccl_done(b, r, "ncclAllReduce");
}

/* Queues one iteration of mode m with bucket plan p.  DDP's order: the
 * reducer launches bucket k's all-reduce on its own stream once the
 * backward has produced bucket k (an event on the compute stream), and
 * the optimizer's stream waits for every all-reduce. */
int gf_overlap_queue(struct gf_bench_overlap *b, unsigned point)
{
	const struct gf_overlap_plan *p = &b->plans[b->points[point].config];
	enum gf_overlap_mode m = b->points[point].mode;
	double ms = (double)b->o.compute_ms;
	bool compute = m != GF_OVERLAP_COMM, comm = m != GF_OVERLAP_COMPUTE, side = m == GF_OVERLAP_OVERLAPPED;
	int rc;

	for (int i = 0; i < b->ngpus; i++) {
		struct gf_overlap_gpu *g = &b->gpus[i];

		if ((rc = gf_cuda_dev_make_current(&g->cg->dev)) ||
		    (rc = cu(g, ops_of(g)->event_record(g->start, g->cg->stream), "cuEventRecord")))
			return rc;
	}
	for (unsigned k = 0; k < p->nbuckets && compute; k++) {
		for (int i = 0; i < b->ngpus; i++) {
			struct gf_overlap_gpu *g = &b->gpus[i];

			if ((rc = gf_cuda_dev_make_current(&g->cg->dev)) ||
			    (rc = spin(b, g, gf_overlap_bucket_cycles(p, k, g->cycles_per_ms, ms))))
				return rc;
			if (side && ((rc = cu(g, ops_of(g)->event_record(g->bucket_done[k], g->cg->stream),
					      "cuEventRecord")) ||
				     (rc = cu(g, ops_of(g)->stream_wait_event(g->side, g->bucket_done[k], 0),
					      "cuStreamWaitEvent"))))
				return rc;
		}
		if (side && (rc = all_reduce(b, p, k, true)))
			return rc;
	}
	for (unsigned k = 0; k < p->nbuckets && comm && !side; k++)
		if ((rc = all_reduce(b, p, k, false)))
			return rc;
	for (int i = 0; i < b->ngpus; i++) {
		struct gf_overlap_gpu *g = &b->gpus[i];

		if ((rc = gf_cuda_dev_make_current(&g->cg->dev)))
			return rc;
		if (side && ((rc = cu(g, ops_of(g)->event_record(g->comm_done, g->side), "cuEventRecord")) ||
			     (rc = cu(g, ops_of(g)->stream_wait_event(g->cg->stream, g->comm_done, 0),
				      "cuStreamWaitEvent"))))
			return rc;
		if ((rc = cu(g, ops_of(g)->event_record(g->end, g->cg->stream), "cuEventRecord")))
			return rc;
	}
	return 0;
}

/* The slowest GPU's time between its start and end events, ms. */
static int slowest_gpu_ms(struct gf_bench_overlap *b, double *ms)
{
	*ms = 0;
	for (int i = 0; i < b->ngpus; i++) {
		struct gf_overlap_gpu *g = &b->gpus[i];
		float t = 0;
		int rc;

		if ((rc = gf_cuda_dev_make_current(&g->cg->dev)) ||
		    (rc = cu(g, ops_of(g)->event_elapsed_time(&t, g->start, g->end), "cuEventElapsedTime")))
			return rc;
		if (t > *ms)
			*ms = t;
	}
	return 0;
}

/* Every rank's figure to rank 0, the slowest back to all: the iteration
 * takes as long as its slowest rank (the all-reduces wait for it). */
static int slowest_rank_ms(struct gf_bench_overlap *b, double *ms, const char *what)
{
	double all[1024], worst = *ms;
	int rc;

	if (!b->comm->ctl)
		return 0;
	if (b->nranks > 1024)
		return gf_error(-ERANGE, "bench overlap: %d ranks, at most 1024", b->nranks);
	if ((rc = gf_coll_ctl_gather(b->comm->ctl, ms, b->rank == 0 ? all : NULL, sizeof(*ms), b->comm->timeout_s,
				     what)))
		return rc;
	for (int r = 0; b->rank == 0 && r < b->nranks; r++)
		worst = all[r] > worst ? all[r] : worst;
	if ((rc = gf_coll_ctl_bcast(b->comm->ctl, &worst, sizeof(worst), b->comm->timeout_s, what)))
		return rc;
	*ms = worst;
	return 0;
}

/* A failure on this rank of a multi-process run: the others are told
 * (they would otherwise wait for this rank's figure or its all-reduces
 * until their timeout) and the communicators aborted, so the points left
 * fail at once, naming this rank, instead of each waiting out a timeout. */
static int failed_here(struct gf_bench_overlap *b, int rc)
{
	char msg[256];

	if (!b->comm->ctl)
		return rc;
	snprintf(msg, sizeof(msg), "%s", gf_last_error());
	gf_coll_ctl_abort(b->comm->ctl, msg);
	gf_coll_comm_abort(b->comm);
	return gf_error(rc, "%s", msg);
}

int gf_overlap_iteration(struct gf_bench_overlap *b, unsigned point, double *ms)
{
	const struct gf_overlap_point *pt = &b->points[point];
	const struct gf_overlap_plan *p = &b->plans[pt->config];
	char what[96];
	int rc;

	snprintf(what, sizeof(what), "%s iteration, %u bucket%s", gf_overlap_mode_name(pt->mode), p->nbuckets,
		 p->nbuckets == 1 ? "" : "s");
	if ((rc = gf_overlap_queue(b, point)) || (rc = gf_coll_comm_wait(b->comm, what)) ||
	    (rc = slowest_gpu_ms(b, ms)))
		return failed_here(b, rc);
	return slowest_rank_ms(b, ms, what);
}

/* Cycles of the spin per ms on g, timed: the clock rate the driver states
 * is the base clock, and CUDA 13 may not state it at all.  A timing too
 * short to trust (the stand-in driver's) keeps the stated rate. */
static int calibrate(struct gf_bench_overlap *b, struct gf_overlap_gpu *g)
{
	unsigned long long cycles;
	float t = 0;
	int rc;

	if ((rc = gf_gpu_spin_load(&g->cg->dev, GF_OVERLAP_CALIBRATE_MS, &g->spin, &cycles)))
		return rc;
	g->spin_loaded = true;
	g->cycles_per_ms = (double)cycles / GF_OVERLAP_CALIBRATE_MS;
	for (int pass = 0; pass < 2; pass++) {	/* the first pays for the JIT */
		if ((rc = cu(g, ops_of(g)->event_record(g->start, g->cg->stream), "cuEventRecord")) ||
		    (rc = spin(b, g, cycles)) ||
		    (rc = cu(g, ops_of(g)->event_record(g->end, g->cg->stream), "cuEventRecord")) ||
		    (rc = cu(g, ops_of(g)->event_synchronize(g->end), "cuEventSynchronize")) ||
		    (rc = cu(g, ops_of(g)->event_elapsed_time(&t, g->start, g->end), "cuEventElapsedTime")))
			return rc;
	}
	if (t >= 0.5f) {
		g->cycles_per_ms = (double)cycles / t;
		g->calibrated = true;
	}
	return 0;
}

static int gpu_setup(struct gf_bench_overlap *b, struct gf_overlap_gpu *g, unsigned max_buckets)
{
	const struct gf_cuda_ops *o = ops_of(g);
	char what[96];
	int rc;

	if ((rc = gf_cuda_dev_make_current(&g->cg->dev)))
		return rc;
	snprintf(what, sizeof(what), "cuMemAlloc %llu bytes", (unsigned long long)b->o.grad_bytes);
	if ((rc = cu(g, o->mem_alloc(&g->grad, (size_t)b->o.grad_bytes), what)) ||
	    (rc = cu(g, o->memset_d8_async(g->grad, 0, (size_t)b->o.grad_bytes, g->cg->stream), "cuMemsetD8Async")) ||
	    (rc = cu(g, o->stream_create(&g->side, GF_CU_STREAM_NON_BLOCKING), "cuStreamCreate")) ||
	    (rc = cu(g, o->event_create(&g->start, GF_CU_EVENT_DEFAULT), "cuEventCreate")) ||
	    (rc = cu(g, o->event_create(&g->end, GF_CU_EVENT_DEFAULT), "cuEventCreate")) ||
	    (rc = cu(g, o->event_create(&g->comm_done, GF_CU_EVENT_DISABLE_TIMING), "cuEventCreate")))
		return rc;
	g->bucket_done = calloc(max_buckets, sizeof(*g->bucket_done));
	if (!g->bucket_done)
		return gf_error(-ENOMEM, "bench overlap: out of memory");
	for (; g->nbucket_done < max_buckets; g->nbucket_done++)
		if ((rc = cu(g, o->event_create(&g->bucket_done[g->nbucket_done], GF_CU_EVENT_DISABLE_TIMING),
			     "cuEventCreate")))
			return rc;
	return calibrate(b, g);
}

static void gpu_teardown(struct gf_overlap_gpu *g)
{
	const struct gf_cuda_ops *o;

	if (!g->cg)
		return;
	o = ops_of(g);
	gf_cuda_dev_make_current(&g->cg->dev);
	for (unsigned k = 0; k < g->nbucket_done; k++)
		o->event_destroy(g->bucket_done[k]);
	free(g->bucket_done);
	if (g->start)
		o->event_destroy(g->start);
	if (g->end)
		o->event_destroy(g->end);
	if (g->comm_done)
		o->event_destroy(g->comm_done);
	if (g->side)
		o->stream_destroy(g->side);
	if (g->grad)
		o->mem_free(g->grad);
	if (g->spin_loaded)
		gf_cuda_kernel_unload(o, &g->spin);
	memset(g, 0, sizeof(*g));
}

/* The PCI addresses of --gpu's NVML indexes (or every GPU's). */
static int pcis_of(const char *gpus, char (**pcis)[16], int *n)
{
	struct gf_cpuset want;
	int rc;

	*n = 0;
	if ((rc = gf_gpu_bench_wanted(gpus, &want)))
		return rc;
	*pcis = calloc(gf_cpuset_count(&want) + 1, sizeof(**pcis));
	if (!*pcis)
		return gf_error(-ENOMEM, "bench overlap: out of memory");
	for (int i = gf_cpuset_first(&want); i >= 0; i = gf_cpuset_next(&want, i)) {
		struct gf_cuda_dev d;

		if ((rc = gf_gpu_bench_open((unsigned)i, &d)))
			return rc;
		snprintf((*pcis)[(*n)++], 16, "%s", d.pci);
		gf_cuda_dev_close(&d);
	}
	return 0;
}

/* A launched rank's one GPU (gf_gpu_bench_launched, as bench coll). */
static int launched_gpu(const struct gf_coll_world *w, char (**pcis)[16])
{
	int ord;

	if (!(*pcis = calloc(1, sizeof(**pcis))))
		return gf_error(-ENOMEM, "bench overlap: out of memory");
	return gf_gpu_bench_launched(w->rank, w->local_rank, (*pcis)[0], &ord);
}

int gf_overlap_open(struct gf_bench_overlap *b)
{
	struct gf_coll_world world;
	struct gf_coll_comm_opts co = { .timeout_s = b->o.timeout_s };
	const char *pci_list[64];
	char (*pcis)[16] = NULL;
	unsigned max_buckets = 0;
	int n = 0, rc;

	rc = gf_coll_world_from_env(&world);
	if (rc && rc != -ENOENT)
		return rc;
	if (rc == -ENOENT) {
		if ((rc = pcis_of(b->o.gpus, &pcis, &n)))
			goto out;
		if (n > 64) {
			rc = gf_error(-ERANGE, "--gpu: %d GPUs, at most 64", n);
			goto out;
		}
		for (int i = 0; i < n; i++)
			pci_list[i] = pcis[i];
		co.pcis = pci_list;
		co.npcis = n;
		snprintf(b->launcher, sizeof(b->launcher), "single process");
	} else {
		/* One rank, one GPU: the LOCAL_RANK'th GPU CUDA shows, or the only
		 * one where the launcher gave each rank its own
		 * (CUDA_VISIBLE_DEVICES, as gpufeed launch does), as bench coll. */
		if ((rc = launched_gpu(&world, &pcis)))
			goto out;
		pci_list[0] = pcis[0];
		co.pcis = pci_list;
		co.npcis = 1;
		co.world = &world;
		snprintf(b->launcher, sizeof(b->launcher), "%s", world.launcher);
	}
	if ((rc = gf_coll_comm_open(&co, &b->comm)))
		goto out;
	b->nranks = b->comm->nranks;
	b->ngpus = b->comm->ngpus;
	b->rank = b->comm->gpu[0].rank;
	snprintf(b->nccl_version, sizeof(b->nccl_version), "%d.%d.%d", b->comm->nccl_version / 10000,
		 b->comm->nccl_version / 100 % 100, b->comm->nccl_version % 100);
	snprintf(b->gpu_name, sizeof(b->gpu_name), "%s", b->comm->gpu[0].dev.name);
	b->gpus = calloc((size_t)b->ngpus, sizeof(*b->gpus));
	b->pcis = calloc((size_t)b->ngpus, sizeof(*b->pcis));
	b->cycles_per_ms = calloc((size_t)b->ngpus, sizeof(*b->cycles_per_ms));
	b->calibrated = calloc((size_t)b->ngpus, sizeof(*b->calibrated));
	if (!b->gpus || !b->pcis || !b->cycles_per_ms || !b->calibrated) {
		rc = gf_error(-ENOMEM, "bench overlap: out of memory");
		goto out;
	}
	for (unsigned c = 0; c < b->nconfigs; c++)
		max_buckets = b->plans[c].nbuckets > max_buckets ? b->plans[c].nbuckets : max_buckets;
	for (int i = 0; i < b->ngpus; i++) {
		b->gpus[i].cg = &b->comm->gpu[i];
		snprintf(b->pcis[i], sizeof(b->pcis[i]), "%s", b->comm->gpu[i].dev.pci);
		if ((rc = gpu_setup(b, &b->gpus[i], max_buckets)))
			goto out;
		b->cycles_per_ms[i] = b->gpus[i].cycles_per_ms;
		b->calibrated[i] = b->gpus[i].calibrated;
	}
	rc = gf_coll_comm_wait(b->comm, "setting up");
out:
	free(pcis);
	return rc;
}

void gf_overlap_close(struct gf_bench_overlap *b)
{
	for (int i = 0; b->gpus && i < b->ngpus; i++)
		gpu_teardown(&b->gpus[i]);
	free(b->gpus);
	b->gpus = NULL;
	if (b->comm)
		gf_coll_comm_close(b->comm);
	b->comm = NULL;
}
