/* The copy to the GPU: one stream per loader on which each filled slot's
 * payload goes to the slot's device memory (cuMemcpyHtoDAsync from pinned
 * memory, as xfer's bounce path), an event after it.  The consumer's
 * stream waits on that event (gf_batch_wait_stream); when the batch's last
 * reference goes (gf_loader_release, or the deleter of a DLPack tensor that
 * outlived it) an event on the consumer's stream is recorded, and the copy
 * stream waits on it before it writes that slot's device memory again, so
 * a batch's bytes never change under work the consumer queued on them
 * while it held the batch or a tensor of it.  Before an I/O
 * thread writes a slot's host memory again it waits for the slot's last
 * copy (its event), which also times it for copy_ns. */
#include <errno.h>
#include <stdio.h>

#include "core/error.h"
#include "loader/loader_internal.h"

static int cu(struct gf_loader *l, gf_cu_result r, const char *call)
{
	char what[256];

	if (r == GF_CUDA_SUCCESS)
		return 0;
	snprintf(what, sizeof(what), "loader: %s (GPU %s)", call, l->gpu.dev.pci);
	return gf_cuda_check(l->gpu.cu, r, what);
}

int gf_loader_gpu_open(struct gf_loader *l)
{
	struct gf_loader_gpu *g = &l->gpu;
	int rc;

	if (l->o.gpu < 0)
		return 0;
	if ((rc = gf_cuda_dev_open_nvml((unsigned)l->o.gpu, &g->dev)))
		return rc;
	g->on = true;
	g->cu = g->dev.ops;
	if ((rc = pthread_mutex_init(&g->mu, NULL)))
		return gf_error(-rc, "loader: a mutex: %s", gf_last_error());
	g->mu_init = true;
	return cu(l, g->cu->stream_create(&g->stream, GF_CU_STREAM_NON_BLOCKING), "cuStreamCreate");
}

void gf_loader_gpu_close(struct gf_loader *l)
{
	struct gf_loader_gpu *g = &l->gpu;

	if (!g->on)
		return;
	if (!gf_cuda_dev_make_current(&g->dev) && g->stream) {
		g->cu->stream_synchronize(g->stream);
		g->cu->stream_destroy(g->stream);
	}
	g->stream = NULL;
	if (g->mu_init)
		pthread_mutex_destroy(&g->mu);
	g->mu_init = false;
	gf_cuda_dev_close(&g->dev);
	g->on = false;
}

int gf_loader_gpu_slot_open(struct gf_loader *l, struct gf_loader_slot *s)
{
	const struct gf_cuda_ops *c = l->gpu.cu;
	int rc;

	if ((rc = gf_devbuf_alloc((unsigned)l->o.gpu, l->slot_bytes ? l->slot_bytes : 1, &s->dev)))
		return gf_error(rc, "loader: slot %u: %s", s->idx, gf_last_error());
	if ((rc = gf_cuda_dev_make_current(&l->gpu.dev)) ||
	    (rc = cu(l, c->event_create(&s->copy_start, 0), "cuEventCreate")) ||
	    (rc = cu(l, c->event_create(&s->copy_done, 0), "cuEventCreate")) ||
	    (rc = cu(l, c->event_create(&s->released, GF_CU_EVENT_DISABLE_TIMING), "cuEventCreate")))
		return rc;
	s->batch.dev = s->dev->ptr;
	s->batch.stream = l->gpu.stream;
	return 0;
}

void gf_loader_gpu_slot_close(struct gf_loader *l, struct gf_loader_slot *s)
{
	const struct gf_cuda_ops *c = l->gpu.cu;

	if (!gf_cuda_dev_make_current(&l->gpu.dev)) {
		if (s->copy_pending)
			c->event_synchronize(s->copy_done);
		if (s->copy_start)
			c->event_destroy(s->copy_start);
		if (s->copy_done)
			c->event_destroy(s->copy_done);
		if (s->released)
			c->event_destroy(s->released);
	}
	s->copy_start = s->copy_done = s->released = NULL;
	s->copy_pending = s->release_pending = false;
	gf_devbuf_free(s->dev);	/* a tensor's reference keeps it */
	s->dev = NULL;
}

int gf_loader_gpu_thread(struct gf_loader *l)
{
	return l->gpu.on ? gf_cuda_dev_make_current(&l->gpu.dev) : 0;
}

int gf_loader_gpu_host_free(struct gf_loader *l, struct gf_loader_slot *s)
{
	const struct gf_cuda_ops *c = l->gpu.cu;
	float ms = 0;
	int rc;

	if (!l->gpu.on || !s->copy_pending)
		return 0;
	s->copy_pending = false;
	if ((rc = cu(l, c->event_synchronize(s->copy_done), "cuEventSynchronize")))
		return rc;
	if (c->event_elapsed_time(&ms, s->copy_start, s->copy_done) == GF_CUDA_SUCCESS && ms > 0)
		gf_loader_count(&l->c_copy_ns, (uint64_t)((double)ms * 1e6));
	return 0;
}

int gf_loader_gpu_copy(struct gf_loader *l, struct gf_loader_slot *s)
{
	struct gf_loader_gpu *g = &l->gpu;
	int rc = 0;

	if (!g->on)
		return 0;
	pthread_mutex_lock(&g->mu);
	if (s->release_pending)
		rc = cu(l, g->cu->stream_wait_event(g->stream, s->released, 0), "cuStreamWaitEvent");
	s->release_pending = false;
	if (!rc)
		rc = cu(l, g->cu->event_record(s->copy_start, g->stream), "cuEventRecord");
	if (!rc && s->batch.bytes)
		rc = cu(l, g->cu->memcpy_htod_async(s->dev->ptr, s->host->data, s->batch.bytes, g->stream),
			"cuMemcpyHtoDAsync");
	if (!rc)
		rc = cu(l, g->cu->event_record(s->copy_done, g->stream), "cuEventRecord");
	s->copy_pending = !rc;
	pthread_mutex_unlock(&g->mu);
	return rc;
}

int gf_loader_gpu_release(struct gf_loader *l, struct gf_loader_slot *s)
{
	struct gf_loader_gpu *g = &l->gpu;
	int rc;

	if (!g->on)
		return 0;
	/* A tensor's deleter runs on any thread: make the context current. */
	rc = gf_cuda_dev_make_current(&g->dev);
	if (!rc)
		rc = cu(l, g->cu->event_record(s->released, s->has_consumer_stream ? s->consumer_stream : g->stream),
			"cuEventRecord");
	s->release_pending = !rc;
	s->has_consumer_stream = false;
	s->consumer_stream = NULL;
	return rc;
}

int gf_batch_wait_stream(struct gf_batch *b, void *stream)
{
	struct gf_loader_slot *s = gf_loader_slot_of(b);
	struct gf_loader *l;
	int rc;

	if (!b)
		return GF_NULL_ARG("b");
	if (!s)
		return gf_arg_error(__func__, "b is not a batch of an open loader");
	l = s->l;
	if (!l->gpu.on)
		return 0;
	/* Under the lock: the last reference may go on another thread (a
	 * tensor's deleter), which reads the stream remembered here. */
	pthread_mutex_lock(&l->mu);
	if (s->state != GF_SLOT_HELD || !s->consumer)
		rc = gf_arg_error(__func__, "b was released already");
	else if (!(rc = gf_cuda_dev_make_current(&l->gpu.dev)) &&
		 !(rc = cu(l, l->gpu.cu->stream_wait_event(stream, s->copy_done, 0), "cuStreamWaitEvent"))) {
		s->has_consumer_stream = true;
		s->consumer_stream = stream;
	}
	pthread_mutex_unlock(&l->mu);
	return rc;
}
