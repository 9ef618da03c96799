/* The fixed pool of batch buffers: `slots` of them, allocated at open on
 * the node and reused for the whole run, so memory does not grow with
 * epochs, threads or prefetch depth.  A delivered slot is held by the
 * consumer and by each DLPack tensor made from its batch; the last of
 * them gives it back to the threads.  The loader itself is counted the
 * same way: a tensor may outlive gf_loader_close. */
#include <errno.h>
#include <stdlib.h>

#include "core/error.h"
#include "loader/loader_internal.h"

static int slot_open(struct gf_loader *l, struct gf_loader_slot *s)
{
	struct gf_buf_opts bo = GF_BUF_OPTS_INIT;
	int rc;

	s->l = l;
	s->offsets = calloc((size_t)l->o.batch_size + 1, sizeof(*s->offsets));
	s->samples = calloc(l->o.batch_size, sizeof(*s->samples));
	if (!s->offsets || !s->samples)
		return gf_error(-ENOMEM, "loader: out of memory");
	bo.size = l->slot_bytes ? l->slot_bytes : 1;
	bo.numa_node = l->node;
	if (l->gpu.on) {
		/* Registered through a device of its own, so the memory can
		 * outlive the loader inside a tensor. */
		bo.flags |= GF_BUF_PINNED;
		bo.gpu = (unsigned)l->o.gpu;
	}
	if ((rc = gf_buf_alloc(&bo, &s->host)))
		return gf_error(rc, "loader: slot %u of %zu bytes: %s", s->idx, bo.size, gf_last_error());
	s->batch.host = s->host->data;
	s->batch.offsets = s->offsets;
	s->batch.samples = s->samples;
	return l->gpu.on ? gf_loader_gpu_slot_open(l, s) : 0;
}

int gf_loader_slots_open(struct gf_loader *l)
{
	int rc = 0;

	if (!(l->slots = calloc(l->nslots, sizeof(*l->slots))))
		return gf_error(-ENOMEM, "loader: out of memory");
	for (unsigned i = 0; i < l->nslots && !rc; i++) {
		l->slots[i].idx = i;
		rc = slot_open(l, &l->slots[i]);
	}
	return rc;
}

void gf_loader_slots_close(struct gf_loader *l)
{
	for (unsigned i = 0; l->slots && i < l->nslots; i++) {
		struct gf_loader_slot *s = &l->slots[i];

		if (l->gpu.on)
			gf_loader_gpu_slot_close(l, s);
		gf_buf_free(s->host);	/* a tensor's reference keeps it */
		s->host = NULL;
	}
}

/* The loaders alive, so a batch pointer is looked up before it is read:
 * one that no loader handed out (or whose loader is closed) is refused,
 * not followed. */
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static struct gf_loader *live;

void gf_loader_live_add(struct gf_loader *l)
{
	pthread_mutex_lock(&live_mu);
	l->live_next = live;
	live = l;
	pthread_mutex_unlock(&live_mu);
}

void gf_loader_live_remove(struct gf_loader *l)
{
	pthread_mutex_lock(&live_mu);
	for (struct gf_loader **p = &live; *p; p = &(*p)->live_next)
		if (*p == l) {
			*p = l->live_next;
			break;
		}
	pthread_mutex_unlock(&live_mu);
}

struct gf_loader_slot *gf_loader_slot_of(struct gf_batch *b)
{
	uintptr_t p = (uintptr_t)b;
	struct gf_loader_slot *found = NULL;

	pthread_mutex_lock(&live_mu);
	for (struct gf_loader *l = live; l && !found; l = l->live_next) {
		uintptr_t first = (uintptr_t)l->slots, end = (uintptr_t)(l->slots + l->nslots);

		if (p >= first && p < end && (p - first) % sizeof(*l->slots) == 0)
			found = (struct gf_loader_slot *)b;
	}
	pthread_mutex_unlock(&live_mu);
	return found;
}

int gf_loader_slot_unref_locked(struct gf_loader *l, struct gf_loader_slot *s)
{
	int rc = 0;

	if (!s->refs || --s->refs)
		return 0;
	/* Closed, the slot is never filled again and its GPU side is gone:
	 * nothing to wait for. */
	if (!l->closed)
		rc = gf_loader_gpu_release(l, s);
	s->state = GF_SLOT_FREE;
	atomic_fetch_sub_explicit(&l->c_in_use, 1, memory_order_relaxed);
	pthread_cond_broadcast(&l->cv);
	return rc;
}

void gf_loader_ref(struct gf_loader *l)
{
	atomic_fetch_add(&l->refs, 1);
}

void gf_loader_unref(struct gf_loader *l)
{
	if (atomic_fetch_sub(&l->refs, 1) != 1)
		return;
	for (unsigned i = 0; l->slots && i < l->nslots; i++) {
		free(l->slots[i].offsets);
		free(l->slots[i].samples);
	}
	free(l->slots);
	pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->mu);
	free(l);
}
