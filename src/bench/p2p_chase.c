/* `bench p2p`'s latency: one thread on GPU run follows a chain of
 * pointers in GPU mem's memory, each load waiting for the one before, as
 * nvbandwidth's device_to_device_latency_sm (kernels.cu ptrChasingKernel,
 * testcase.cpp latencyHelper, v0.8): a 2 MiB buffer, word i pointing at
 * word i + 16 (one 128-byte line per hop, wrapping), 1M loads per sample
 * (--quick 100k); the events around the kernel over the loads is the
 * figure, in ns.  nvbandwidth splits the loads over one launch per SM; one
 * launch here (gf_chase), so the launch costs less per load.
 *
 * The check: gf_chase stores where the chain ended, which must be the
 * word hops x 16 words along it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/p2p_bench.h"
#include "core/error.h"
#include "mem/mem.h"

#define CU(g, call, what) gf_cuda_check((g)->dev.ops, (call), (what))
#define CHASE_WORDS (GF_P2P_CHASE_BYTES / 8u)

void gf_p2p_chain_free(struct gf_bench_p2p *p)
{
	struct gf_p2p_chain *c = &p->chain;
	struct gf_p2p_gpu *m = &p->gpus[c->mem], *r = &p->gpus[c->run];

	if (!c->live)
		return;
	gf_mem_dev_free(&m->dev, c->base);
	gf_mem_dev_free(&r->dev, c->out);
	memset(c, 0, sizeof(*c));
}

int gf_p2p_chain_for(struct gf_bench_p2p *p, const struct gf_p2p_point *pt)
{
	struct gf_p2p_chain *c = &p->chain;
	struct gf_p2p_gpu *m = &p->gpus[pt->src], *r = &p->gpus[pt->dst];
	const struct gf_cuda_ops *o = m->dev.ops;
	uint64_t *w;
	int rc;

	if (c->live && c->mem == pt->src && c->run == pt->dst)
		return 0;
	gf_p2p_chain_free(p);
	*c = (struct gf_p2p_chain){ .mem = pt->src, .run = pt->dst, .live = true };
	if (!(w = malloc(GF_P2P_CHASE_BYTES)))
		return gf_error(-ENOMEM, "bench p2p: out of memory");
	if ((rc = gf_mem_dev_alloc(&m->dev, GF_P2P_CHASE_BYTES, "the latency chain", &c->base)))
		goto out;
	for (size_t i = 0; i < CHASE_WORDS; i++)
		w[i] = c->base + ((i + GF_P2P_CHASE_STRIDE) % CHASE_WORDS) * 8u;
	if ((rc = CU(m, o->memcpy_htod_async(c->base, w, GF_P2P_CHASE_BYTES, m->s[0]), "cuMemcpyHtoDAsync")) ||
	    (rc = CU(m, o->stream_synchronize(m->s[0]), "cuStreamSynchronize")) ||
	    (rc = gf_mem_dev_alloc(&r->dev, 8, "the chase's result", &c->out)))
		goto out;
	rc = 0;
out:
	free(w);
	if (rc)
		gf_p2p_chain_free(p);
	return rc;
}

int gf_p2p_chase(struct gf_bench_p2p *p, struct gf_p2p_point *pt, double *ns)
{
	struct gf_p2p_chain *c = &p->chain;
	struct gf_p2p_gpu *r = &p->gpus[pt->dst];
	const struct gf_cuda_ops *o = r->dev.ops;
	unsigned long long hops = p->hops;
	gf_cu_deviceptr start = c->base, out = c->out;
	void *args[] = { &start, &hops, &out };
	uint64_t end = 0, want;
	float ms = 0;
	int rc, r2;

	if ((rc = gf_cuda_dev_make_current(&r->dev)))
		return rc;
	if (!pt->verified && ((rc = CU(r, o->memset_d8_async(out, 0, 8, r->s[0]), "cuMemsetD8Async"))))
		return rc;
	if (!(rc = CU(r, o->event_record(r->start[0], r->s[0]), "cuEventRecord")) &&
	    !(rc = CU(r, o->launch_kernel(r->chase.fn, 1, 1, 1, 1, 1, 1, 0, r->s[0], args, NULL), "cuLaunchKernel gf_chase")))
		rc = CU(r, o->event_record(r->end[0], r->s[0]), "cuEventRecord");
	r2 = CU(r, o->stream_synchronize(r->s[0]), "cuStreamSynchronize");
	rc = rc ? rc : r2;
	if (!rc)
		rc = CU(r, o->event_elapsed_time(&ms, r->start[0], r->end[0]), "cuEventElapsedTime");
	if (rc)
		return rc;
	if (!pt->verified) {
		if ((rc = CU(r, o->memcpy_dtoh_async(&end, out, 8, r->s[0]), "cuMemcpyDtoHAsync")) ||
		    (rc = CU(r, o->stream_synchronize(r->s[0]), "cuStreamSynchronize")))
			return rc;
		want = c->base + (hops * GF_P2P_CHASE_STRIDE % CHASE_WORDS) * 8u;
		if (end != want)
			return gf_error(-EIO, "the chase ended at 0x%llx after %llu loads, not at 0x%llx",
					(unsigned long long)end, hops, (unsigned long long)want);
		pt->verified = true;
	}
	if (ms <= 0)
		return gf_error(-EIO, "the events measured %.6f ms for %llu loads", (double)ms, hops);
	*ns = (double)ms * 1e6 / (double)hops;
	return 0;
}
