/* `bench h2d`'s timed copies, the way nvbandwidth times its CE testcases
 * (memcpy.cpp, MemcpyOperation::doMemcpyCore, v0.8): per sample, block each
 * stream with a spin kernel, queue WARMUP_COUNT (4) copies and then the
 * start event, loopCount copies and the end event behind it, let the
 * stream go, and divide bytes by the events' time.  The spin hides the
 * cost of queueing: the copies run back to back at the engine's pace.
 * nvbandwidth spins on a host latch it releases after queueing; gf_spin
 * spins a fixed GF_H2D_SPIN_MS instead, far longer than queueing takes,
 * which also lets a pageable copy (the driver stages it with the CPU and
 * may not return until the stream reaches it) run behind it.
 *
 * Both directions at once need one release for both streams, as the latch
 * gives nvbandwidth: one spin on the measured stream and an event after
 * it that the interfering stream waits on.  Two spins of equal length, one
 * per stream, end microseconds apart, and the measured copies then run
 * their first part alone (3% fast on an H100, bench/results/
 * 2026-11-23-h100-h2d-vs-nvbandwidth). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gpu_bench.h"
#include "bench/h2d_bench.h"
#include "core/error.h"
#include "mem/mem.h"

#define CU(g, call, what) gf_cuda_check((g)->dev.ops, (call), (what))

int gf_h2d_gpu_setup(struct gf_h2d_gpu *g)
{
	const struct gf_cuda_ops *o = g->dev.ops;
	int rc;

	if ((rc = gf_cuda_dev_make_current(&g->dev)))
		return rc;
	if ((rc = gf_gpu_spin_load(&g->dev, GF_H2D_SPIN_MS, &g->spin, &g->spin_cycles)))
		return rc;
	g->spin_loaded = true;
	for (int i = 0; i < 2; i++)
		if ((rc = CU(g, o->stream_create(&g->s[i], GF_CU_STREAM_NON_BLOCKING), "cuStreamCreate")))
			return rc;
	if ((rc = CU(g, o->event_create(&g->start, GF_CU_EVENT_DEFAULT), "cuEventCreate")) ||
	    (rc = CU(g, o->event_create(&g->end, GF_CU_EVENT_DEFAULT), "cuEventCreate")) ||
	    (rc = CU(g, o->event_create(&g->go, GF_CU_EVENT_DISABLE_TIMING), "cuEventCreate")))
		return rc;
	return 0;
}

void gf_h2d_gpu_teardown(struct gf_h2d_gpu *g)
{
	const struct gf_cuda_ops *o = g->dev.ops;

	if (!g->open)
		return;
	gf_cuda_dev_make_current(&g->dev);
	for (int i = 0; i < 2; i++)
		if (g->s[i])
			o->stream_destroy(g->s[i]);
	if (g->start)
		o->event_destroy(g->start);
	if (g->end)
		o->event_destroy(g->end);
	if (g->go)
		o->event_destroy(g->go);
	if (g->spin_loaded)
		gf_cuda_kernel_unload(o, &g->spin);
	gf_cuda_dev_close(&g->dev);
	g->open = false;
}

/* Host memory on the node (MPOL_BIND: a node out of memory fails the point
 * rather than lending another node's), registered with the driver for
 * pinned: the I/O engine's own buffers, which O_DIRECT reads can fill. */
static int host_alloc(struct gf_h2d_gpu *g, size_t size, int node, bool pinned, struct gf_buf **b)
{
	struct gf_buf_opts bo = GF_BUF_OPTS_INIT;
	int rc;

	bo.size = size;
	bo.numa_node = node;
	bo.flags = GF_BUF_NODE_STRICT;
	if ((rc = gf_buf_alloc(&bo, b)))
		return gf_error(rc, "%zu bytes on NUMA node %d: %s", size, node, gf_last_error());
	return pinned ? gf_mem_pin(*b, &g->dev, GF_CU_MEMHOSTREGISTER_PORTABLE, "the copies") : 0;
}

void gf_h2d_bufs_free(struct gf_bench_h2d *h)
{
	struct gf_h2d_bufs *b = &h->bufs;
	struct gf_h2d_gpu *g = &h->gpus[b->gpu];

	if (!b->live)
		return;
	/* Before their GPU closes: unpinned and freed through it. */
	gf_mem_dev_free(&g->dev, b->da);
	gf_mem_dev_free(&g->dev, b->db);
	gf_buf_free(b->ha);
	gf_buf_free(b->hb);
	memset(b, 0, sizeof(*b));
}

int gf_h2d_bufs_for(struct gf_bench_h2d *h, const struct gf_h2d_point *pt)
{
	struct gf_h2d_bufs *b = &h->bufs;
	struct gf_h2d_gpu *g = &h->gpus[pt->gpu];
	size_t sz = (size_t)pt->size;
	bool pinned = pt->mem == GF_H2D_PINNED;
	int rc;

	if (b->live && b->gpu == pt->gpu && b->node == pt->node && b->size == pt->size && b->mem == pt->mem)
		return 0;
	gf_h2d_bufs_free(h);
	*b = (struct gf_h2d_bufs){ .gpu = pt->gpu, .node = pt->node, .size = pt->size, .mem = pt->mem,
				   .live = true };
	if ((rc = host_alloc(g, sz, pt->node, pinned, &b->ha)) || (rc = host_alloc(g, 2 * sz, pt->node, pinned, &b->hb)) ||
	    (rc = gf_mem_dev_alloc(&g->dev, sz, "the copies", &b->da)) ||
	    (rc = gf_mem_dev_alloc(&g->dev, 2 * sz, "the copies", &b->db))) {
		gf_h2d_bufs_free(h);
		return rc;
	}
	return 0;
}

void gf_h2d_ibufs_free(struct gf_h2d_gpu *g)
{
	for (int k = 0; k < 2; k++) {
		gf_mem_dev_free(&g->dev, g->id[k]);
		gf_buf_free(g->ih[k]);
		g->ih[k] = NULL;
		g->id[k] = 0;
	}
	g->isize = 0;
}

/* Every other GPU's interfering buffers: twice the point's size, pinned,
 * on that GPU's own node (nvbandwidth's HostBuffer(size * 2,
 * interferenceDeviceId)); one pair per direction for bidirectional. */
int gf_h2d_ibufs_for(struct gf_bench_h2d *h, const struct gf_h2d_point *pt)
{
	size_t sz = 2 * (size_t)pt->size;

	for (unsigned j = 0; j < h->ngpus; j++) {
		struct gf_h2d_gpu *g = &h->gpus[j];
		int rc = 0;

		if (j == pt->gpu || g->isize == sz)
			continue;
		gf_h2d_ibufs_free(g);
		g->isize = sz;
		for (int k = 0; !rc && k < 2; k++)
			if (!(rc = host_alloc(g, sz, g->inode, true, &g->ih[k])))
				rc = gf_mem_dev_alloc(&g->dev, sz, "the other GPUs' copies", &g->id[k]);
		if (rc) {
			gf_h2d_ibufs_free(g);
			return rc;
		}
	}
	return 0;
}

static int copy(struct gf_h2d_gpu *g, bool htod, void *host, gf_cu_deviceptr dev, size_t n, gf_cu_stream s)
{
	const struct gf_cuda_ops *o = g->dev.ops;

	return htod ? CU(g, o->memcpy_htod_async(dev, host, n, s), "cuMemcpyHtoDAsync")
		    : CU(g, o->memcpy_dtoh_async(host, dev, n, s), "cuMemcpyDtoHAsync");
}

/* Before the timed copies of a point's first sample: the source holds the
 * pattern, the destination does not. */
static int seed_pattern(struct gf_bench_h2d *h, struct gf_h2d_gpu *g, const struct gf_h2d_point *pt, uint64_t seed)
{
	struct gf_h2d_bufs *b = &h->bufs;
	size_t n = (size_t)pt->size;
	int rc;

	gf_gpu_pattern_fill(b->ha->data, n, seed);
	if (gf_h2d_dir_htod(pt->dir))
		rc = CU(g, g->dev.ops->memset_d8_async(b->da, 0, n, g->s[0]), "cuMemsetD8Async");
	else
		rc = copy(g, true, b->ha->data, b->da, n, g->s[0]);
	if (!rc)
		rc = CU(g, g->dev.ops->stream_synchronize(g->s[0]), "cuStreamSynchronize");
	if (!rc && !gf_h2d_dir_htod(pt->dir))
		memset(b->ha->data, 0, n);
	return rc;
}

/* After them: the destination holds the pattern (host to device: read back
 * into host b). */
static int check_pattern(struct gf_bench_h2d *h, struct gf_h2d_gpu *g, const struct gf_h2d_point *pt, uint64_t seed)
{
	struct gf_h2d_bufs *b = &h->bufs;
	size_t n = (size_t)pt->size;
	int rc = 0;

	if (gf_h2d_dir_htod(pt->dir)) {
		memset(b->hb->data, 0, n);
		rc = copy(g, false, b->hb->data, b->da, n, g->s[0]);
		if (!rc)
			rc = CU(g, g->dev.ops->stream_synchronize(g->s[0]), "cuStreamSynchronize");
	}
	return rc ? rc : gf_gpu_pattern_check(gf_h2d_dir_htod(pt->dir) ? b->hb->data : b->ha->data, n, seed, NULL);
}

/* The other GPUs' copies of an ALL point: behind the measured GPU's spin
 * (their streams wait on its go event: an event of one device's context
 * may be waited on by another's stream), the same direction (and the other
 * way too, bidirectional) with twice the bytes, warm-up and timed copies
 * alike, so they run all through the measured copies. */
static int queue_interference(struct gf_bench_h2d *h, const struct gf_h2d_point *pt)
{
	struct gf_h2d_gpu *m = &h->gpus[pt->gpu];
	bool htod = gf_h2d_dir_htod(pt->dir), bidir = gf_h2d_dir_bidir(pt->dir);
	int rc = 0;

	for (unsigned j = 0; !rc && j < h->ngpus; j++) {
		struct gf_h2d_gpu *g = &h->gpus[j];
		int ways = bidir ? 2 : 1;

		if (j == pt->gpu)
			continue;
		rc = gf_cuda_dev_make_current(&g->dev);
		for (int k = 0; !rc && k < ways; k++)
			rc = CU(g, g->dev.ops->stream_wait_event(g->s[k], m->go, 0), "cuStreamWaitEvent");
		for (unsigned i = 0; !rc && i < GF_H2D_WARMUP_COPIES + h->o.loops; i++)
			for (int k = 0; !rc && k < ways; k++)
				rc = copy(g, k ? !htod : htod, g->ih[k]->data, g->id[k], (size_t)g->isize, g->s[k]);
	}
	if (!rc)
		rc = gf_cuda_dev_make_current(&m->dev);
	return rc;
}

/* Queues one sample: spin, warm-up copies, start, loops copies, end; the
 * interfering streams (the other direction, the other GPUs) start when the
 * spin ends. */
static int queue(struct gf_bench_h2d *h, struct gf_h2d_gpu *g, const struct gf_h2d_point *pt)
{
	struct gf_h2d_bufs *b = &h->bufs;
	bool htod = gf_h2d_dir_htod(pt->dir), bidir = gf_h2d_dir_bidir(pt->dir), all = gf_h2d_dir_all(pt->dir);
	size_t n = (size_t)pt->size;
	int rc = gf_gpu_spin(&g->dev, &g->spin, &g->spin_cycles, g->s[0]);

	if (!rc && (bidir || all))
		rc = CU(g, g->dev.ops->event_record(g->go, g->s[0]), "cuEventRecord");
	if (!rc && bidir)
		rc = CU(g, g->dev.ops->stream_wait_event(g->s[1], g->go, 0), "cuStreamWaitEvent");
	if (!rc && all)
		rc = queue_interference(h, pt);
	for (unsigned i = 0; !rc && i < GF_H2D_WARMUP_COPIES; i++) {
		rc = copy(g, htod, b->ha->data, b->da, n, g->s[0]);
		if (!rc && bidir)
			rc = copy(g, !htod, b->hb->data, b->db, 2 * n, g->s[1]);
	}
	if (!rc)
		rc = CU(g, g->dev.ops->event_record(g->start, g->s[0]), "cuEventRecord");
	for (unsigned i = 0; !rc && i < h->o.loops; i++) {
		rc = copy(g, htod, b->ha->data, b->da, n, g->s[0]);
		/* The other direction, twice the bytes, so it is still running
		 * when the measured copies end (nvbandwidth's HostToDeviceBidirCE). */
		if (!rc && bidir)
			rc = copy(g, !htod, b->hb->data, b->db, 2 * n, g->s[1]);
	}
	if (!rc)
		rc = CU(g, g->dev.ops->event_record(g->end, g->s[0]), "cuEventRecord");
	return rc;
}

/* Waits for every stream a sample may have used, even after a failed
 * call, and leaves the measured GPU current; the first error wins. */
static int drain(struct gf_bench_h2d *h, const struct gf_h2d_point *pt, int rc)
{
	bool all = gf_h2d_dir_all(pt->dir);

	for (unsigned j = 0; j < h->ngpus; j++) {
		struct gf_h2d_gpu *g = &h->gpus[j];

		if (j != pt->gpu && !all)
			continue;
		gf_cuda_dev_make_current(&g->dev);
		for (int i = 0; i < 2; i++) {
			int r = CU(g, g->dev.ops->stream_synchronize(g->s[i]), "cuStreamSynchronize");
			rc = rc ? rc : r;
		}
	}
	gf_cuda_dev_make_current(&h->gpus[pt->gpu].dev);
	return rc;
}

int gf_h2d_sample(struct gf_bench_h2d *h, struct gf_h2d_point *pt, double *gbs)
{
	struct gf_h2d_gpu *g = &h->gpus[pt->gpu];
	const struct gf_cuda_ops *o = g->dev.ops;
	uint64_t seed = 0x5eed0000u + (uint64_t)(pt - h->points);
	float ms = 0;
	int rc;

	if ((rc = gf_cuda_dev_make_current(&g->dev)))
		return rc;
	if (!pt->verified && (rc = seed_pattern(h, g, pt, seed)))
		return rc;
	rc = drain(h, pt, queue(h, g, pt));
	if (!rc)
		rc = CU(g, o->event_elapsed_time(&ms, g->start, g->end), "cuEventElapsedTime");
	if (rc)
		return rc;
	if (!pt->verified) {
		if ((rc = check_pattern(h, g, pt, seed)))
			return rc;
		pt->verified = true;
	}
	if (ms <= 0)
		return gf_error(-EIO, "the events measured %.6f ms for %u copies", (double)ms, h->o.loops);
	*gbs = (double)pt->size * h->o.loops / ((double)ms * 1e-3) / 1e9;
	return 0;
}
