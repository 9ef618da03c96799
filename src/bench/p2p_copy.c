/* `bench p2p`'s timed copies, the way nvbandwidth times its
 * device_to_device_* and device_local_copy testcases (memcpy.cpp,
 * MemcpyOperation::doMemcpyCore, v0.8): per sample, block the stream with
 * a spin kernel, queue WARMUP_COUNT (4) copies, the start event, loopCount
 * copies and the end event behind it, let the stream go, and divide the
 * bytes of one copy x loops by the events' time (bytes counted once).
 * The copy is issued on the stream of the GPU whose context nvbandwidth
 * picks: the destination's for read (PREFER_DST_CONTEXT: it pulls from
 * its peer), the source's for write (it pushes).
 *
 * Bidirectional: the reverse copy runs on a second stream, on the GPU that
 * issues it.  nvbandwidth releases both streams with one host latch and
 * has the second wait on the first one's start event before its own timed
 * copies; here one spin on the measured stream and an event behind it
 * that the second stream waits on give the one release (two equal spins
 * end microseconds apart: bench/results/2026-11-23-h100-h2d-vs-
 * nvbandwidth), and the second stream then waits on the start event as
 * nvbandwidth's does.  Both copies are the buffer size (nvbandwidth's
 * d2d bidirectional testcases copy size each way, unlike its host ones). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gpu_bench.h"
#include "bench/p2p_bench.h"
#include "core/error.h"
#include "mem/mem.h"

#define CU(g, call, what) gf_cuda_check((g)->dev.ops, (call), (what))

int gf_p2p_gpu_setup(struct gf_p2p_gpu *g)
{
	const struct gf_cuda_ops *o = g->dev.ops;
	int rc;

	if ((rc = gf_cuda_dev_make_current(&g->dev)))
		return rc;
	if ((rc = gf_gpu_spin_load(&g->dev, GF_P2P_SPIN_MS, &g->spin, &g->spin_cycles)))
		return rc;
	g->spin_loaded = true;
	if ((rc = gf_cuda_kernel_load(o, "copy", "gf_copy", &g->copy)))
		return rc;
	g->copy_loaded = true;
	if ((rc = gf_cuda_kernel_load(o, "chase", "gf_chase", &g->chase)))
		return rc;
	g->chase_loaded = true;
	for (int i = 0; i < 2; i++)
		if ((rc = CU(g, o->stream_create(&g->s[i], GF_CU_STREAM_NON_BLOCKING), "cuStreamCreate")) ||
		    (rc = CU(g, o->event_create(&g->start[i], GF_CU_EVENT_DEFAULT), "cuEventCreate")) ||
		    (rc = CU(g, o->event_create(&g->end[i], GF_CU_EVENT_DEFAULT), "cuEventCreate")))
			return rc;
	return CU(g, o->event_create(&g->go, GF_CU_EVENT_DISABLE_TIMING), "cuEventCreate");
}

void gf_p2p_gpu_teardown(struct gf_p2p_gpu *g)
{
	const struct gf_cuda_ops *o = g->dev.ops;

	if (!g->open)
		return;
	gf_cuda_dev_make_current(&g->dev);
	for (int i = 0; i < 2; i++) {
		if (g->s[i])
			o->stream_destroy(g->s[i]);
		if (g->start[i])
			o->event_destroy(g->start[i]);
		if (g->end[i])
			o->event_destroy(g->end[i]);
	}
	if (g->go)
		o->event_destroy(g->go);
	if (g->spin_loaded)
		gf_cuda_kernel_unload(o, &g->spin);
	if (g->copy_loaded)
		gf_cuda_kernel_unload(o, &g->copy);
	if (g->chase_loaded)
		gf_cuda_kernel_unload(o, &g->chase);
	gf_cuda_dev_close(&g->dev);
	g->open = false;
}

unsigned gf_p2p_issuer(const struct gf_p2p_point *pt)
{
	return pt->test == GF_P2P_WRITE || pt->test == GF_P2P_BIDIR_WRITE ? pt->src : pt->dst;
}

/* The reverse copy (dst -> src) is issued the same way: by its
 * destination (src) for read, by its source (dst) for write. */
static unsigned reverse_issuer(const struct gf_p2p_point *pt)
{
	return pt->test == GF_P2P_BIDIR_READ ? pt->src : pt->dst;
}

static void free_on(struct gf_p2p_gpu *g, gf_cu_deviceptr *d)
{
	gf_mem_dev_free(&g->dev, *d);
	*d = 0;
}

void gf_p2p_bufs_free(struct gf_bench_p2p *p)
{
	struct gf_p2p_bufs *b = &p->bufs;

	if (!b->live)
		return;
	free_on(&p->gpus[b->src], &b->a);
	free_on(&p->gpus[b->src], &b->d);
	free_on(&p->gpus[b->dst], &b->b);
	free_on(&p->gpus[b->dst], &b->c);
	free(b->host);
	memset(b, 0, sizeof(*b));
}

static int alloc_on(struct gf_p2p_gpu *g, gf_cu_deviceptr *d, size_t n)
{
	char what[32];

	snprintf(what, sizeof(what), "GPU %u's copies", g->index);
	return gf_mem_dev_alloc(&g->dev, n, what, d);
}

int gf_p2p_bufs_for(struct gf_bench_p2p *p, const struct gf_p2p_point *pt)
{
	struct gf_p2p_bufs *b = &p->bufs;
	size_t n = (size_t)pt->size;
	int rc;

	if (b->live && b->src == pt->src && b->dst == pt->dst && b->size == pt->size)
		return 0;
	gf_p2p_bufs_free(p);
	*b = (struct gf_p2p_bufs){ .src = pt->src, .dst = pt->dst, .size = pt->size, .live = true };
	/* The reverse pair only where a bidirectional point can use it. */
	if ((rc = alloc_on(&p->gpus[pt->src], &b->a, n)) || (rc = alloc_on(&p->gpus[pt->dst], &b->b, n)) ||
	    (pt->src != pt->dst && ((rc = alloc_on(&p->gpus[pt->dst], &b->c, n)) ||
				    (rc = alloc_on(&p->gpus[pt->src], &b->d, n))))) {
		gf_p2p_bufs_free(p);
		return rc;
	}
	if (!(b->host = malloc(n))) {
		gf_p2p_bufs_free(p);
		return gf_error(-ENOMEM, "bench p2p: %zu bytes of host memory for the byte check", n);
	}
	return 0;
}

/* One copy of n bytes from GPU `from` to GPU `to`, issued on stream s of
 * GPU `by` (current). */
static int copy(struct gf_bench_p2p *p, enum gf_p2p_copy kind, unsigned by, unsigned from, unsigned to,
		gf_cu_deviceptr dst, gf_cu_deviceptr src, size_t n, gf_cu_stream s)
{
	struct gf_p2p_gpu *g = &p->gpus[by];
	const struct gf_cuda_ops *o = g->dev.ops;

	if (kind == GF_P2P_SM) {
		unsigned long long bytes = n;
		void *args[] = { &dst, &src, &bytes };
		unsigned blocks = g->dev.sm_count > 0 ? (unsigned)g->dev.sm_count : 1;

		/* nvbandwidth's grid for its copy kernel: a block of 512
		 * threads per SM (copyKernel, kernels.cu). */
		return CU(g, o->launch_kernel(g->copy.fn, blocks, 1, 1, GF_P2P_SM_THREADS, 1, 1, 0, s, args, NULL),
			  "cuLaunchKernel gf_copy");
	}
	if (from == to)
		return CU(g, o->memcpy_dtod_async(dst, src, n, s), "cuMemcpyDtoDAsync");
	return CU(g, o->memcpy_peer_async(dst, p->gpus[to].dev.ctx, src, p->gpus[from].dev.ctx, n, s),
		  "cuMemcpyPeerAsync");
}

static int current(struct gf_bench_p2p *p, unsigned gi)
{
	return gf_cuda_dev_make_current(&p->gpus[gi].dev);
}

/* Source `from` gets the pattern, destination `to` zeros. */
static int seed_one(struct gf_bench_p2p *p, unsigned sg, gf_cu_deviceptr from, unsigned dg, gf_cu_deviceptr to,
		    size_t n, uint64_t seed)
{
	struct gf_p2p_gpu *s = &p->gpus[sg], *d = &p->gpus[dg];
	uint64_t *w = p->bufs.host;
	int rc;

	gf_gpu_pattern_fill(w, n, seed);
	if ((rc = current(p, sg)) || (rc = CU(s, s->dev.ops->memcpy_htod_async(from, w, n, s->s[0]), "cuMemcpyHtoDAsync")) ||
	    (rc = CU(s, s->dev.ops->stream_synchronize(s->s[0]), "cuStreamSynchronize")) || (rc = current(p, dg)) ||
	    (rc = CU(d, d->dev.ops->memset_d8_async(to, 0, n, d->s[0]), "cuMemsetD8Async")))
		return rc;
	return CU(d, d->dev.ops->stream_synchronize(d->s[0]), "cuStreamSynchronize");
}

/* Destination `to` on GPU dg holds the pattern. */
static int check_one(struct gf_bench_p2p *p, unsigned dg, gf_cu_deviceptr to, size_t n, uint64_t seed,
		     const char *which)
{
	struct gf_p2p_gpu *d = &p->gpus[dg];
	int rc;

	memset(p->bufs.host, 0, n);
	if ((rc = current(p, dg)) || (rc = CU(d, d->dev.ops->memcpy_dtoh_async(p->bufs.host, to, n, d->s[0]), "cuMemcpyDtoHAsync")) ||
	    (rc = CU(d, d->dev.ops->stream_synchronize(d->s[0]), "cuStreamSynchronize")))
		return rc;
	return gf_gpu_pattern_check(p->bufs.host, n, seed, which);
}

/* Queues one sample: spin, warm-up copies, start, loops copies, end; the
 * reverse stream of a bidirectional point starts when the spin ends and
 * times its copies from the measured stream's start, as nvbandwidth. */
static int queue(struct gf_bench_p2p *p, const struct gf_p2p_point *pt)
{
	struct gf_p2p_bufs *b = &p->bufs;
	unsigned i0 = gf_p2p_issuer(pt), i1 = reverse_issuer(pt);
	struct gf_p2p_gpu *g0 = &p->gpus[i0], *g1 = &p->gpus[i1];
	bool bidir = gf_p2p_bidir(pt->test);
	size_t n = (size_t)pt->size;
	int rc;

	if ((rc = current(p, i0)) || (rc = gf_gpu_spin(&g0->dev, &g0->spin, &g0->spin_cycles, g0->s[0])))
		return rc;
	if (bidir && ((rc = CU(g0, g0->dev.ops->event_record(g0->go, g0->s[0]), "cuEventRecord")) ||
		      (rc = current(p, i1)) ||
		      (rc = CU(g1, g1->dev.ops->stream_wait_event(g1->s[1], g0->go, 0), "cuStreamWaitEvent"))))
		return rc;
	for (unsigned k = 0; !rc && bidir && k < GF_P2P_WARMUP_COPIES; k++)
		rc = copy(p, pt->copy, i1, pt->dst, pt->src, b->d, b->c, n, g1->s[1]);
	if (!rc)
		rc = current(p, i0);
	for (unsigned k = 0; !rc && k < GF_P2P_WARMUP_COPIES; k++)
		rc = copy(p, pt->copy, i0, pt->src, pt->dst, b->b, b->a, n, g0->s[0]);
	if (!rc)
		rc = CU(g0, g0->dev.ops->event_record(g0->start[0], g0->s[0]), "cuEventRecord");
	for (unsigned k = 0; !rc && k < p->o.loops; k++)
		rc = copy(p, pt->copy, i0, pt->src, pt->dst, b->b, b->a, n, g0->s[0]);
	if (!rc)
		rc = CU(g0, g0->dev.ops->event_record(g0->end[0], g0->s[0]), "cuEventRecord");
	if (rc || !bidir)
		return rc;
	if ((rc = current(p, i1)) ||
	    (rc = CU(g1, g1->dev.ops->stream_wait_event(g1->s[1], g0->start[0], 0), "cuStreamWaitEvent")) ||
	    (rc = CU(g1, g1->dev.ops->event_record(g1->start[1], g1->s[1]), "cuEventRecord")))
		return rc;
	for (unsigned k = 0; !rc && k < p->o.loops; k++)
		rc = copy(p, pt->copy, i1, pt->dst, pt->src, b->d, b->c, n, g1->s[1]);
	return rc ? rc : CU(g1, g1->dev.ops->event_record(g1->end[1], g1->s[1]), "cuEventRecord");
}

int gf_p2p_sample(struct gf_bench_p2p *p, struct gf_p2p_point *pt, double *gbs)
{
	struct gf_p2p_bufs *b = &p->bufs;
	unsigned i0 = gf_p2p_issuer(pt), i1 = reverse_issuer(pt);
	struct gf_p2p_gpu *g0 = &p->gpus[i0], *g1 = &p->gpus[i1];
	bool bidir = gf_p2p_bidir(pt->test);
	uint64_t seed = 0x5eed0000u + 2 * (uint64_t)(pt - p->points);
	size_t n = (size_t)pt->size;
	float ms = 0;
	int rc = 0, r;

	if (!pt->verified && ((rc = seed_one(p, pt->src, b->a, pt->dst, b->b, n, seed)) ||
			      (bidir && (rc = seed_one(p, pt->dst, b->c, pt->src, b->d, n, seed + 1)))))
		return rc;
	rc = queue(p, pt);
	/* Always drain both streams, even after a failed call. */
	if (!(r = current(p, i0)))
		r = CU(g0, g0->dev.ops->stream_synchronize(g0->s[0]), "cuStreamSynchronize");
	rc = rc ? rc : r;
	if (bidir && !(r = current(p, i1)))
		r = CU(g1, g1->dev.ops->stream_synchronize(g1->s[1]), "cuStreamSynchronize");
	rc = rc ? rc : r;
	if (!rc && !(rc = current(p, i0)))
		rc = CU(g0, g0->dev.ops->event_elapsed_time(&ms, g0->start[0], g0->end[0]), "cuEventElapsedTime");
	if (rc)
		return rc;
	if (!pt->verified) {
		if ((rc = check_one(p, pt->dst, b->b, n, seed, "the measured copy")) ||
		    (bidir && (rc = check_one(p, pt->src, b->d, n, seed + 1, "the reverse copy"))))
			return rc;
		pt->verified = true;
	}
	if (ms <= 0)
		return gf_error(-EIO, "the events measured %.6f ms for %u copies", (double)ms, p->o.loops);
	*gbs = (double)pt->size * p->o.loops / ((double)ms * 1e-3) / 1e9;
	return 0;
}
