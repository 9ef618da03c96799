/* A batch as DLPack tensors (gf_batch_dlpack): the payload, viewed by a
 * tensor of src/mem (which keeps the buffer's memory), wrapped in one that
 * also holds the batch's slot and the loader, so the slot is not refilled
 * while a framework still reads it and the tensor stays valid after
 * gf_loader_close; the offsets, a small tensor with its own copy. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/dlpack.h>
#include "core/error.h"
#include "loader/loader_internal.h"

struct payload_tensor {
	struct gf_dl_managed_tensor t;	/* first: the deleter gets &t */
	struct gf_dl_managed_tensor *inner;
	struct gf_loader_slot *slot;
};

static void payload_delete(struct gf_dl_managed_tensor *self)
{
	struct payload_tensor *p = (struct payload_tensor *)self;
	struct gf_loader *l;
	int rc;

	if (!p)
		return;
	l = p->slot->l;
	pthread_mutex_lock(&l->mu);
	/* No caller to tell: a failed release event fails the run, so the
	 * next gf_loader_next reports it and no slot is refilled before. */
	if ((rc = gf_loader_slot_unref_locked(l, p->slot)))
		gf_loader_fail_locked(l, rc);
	pthread_mutex_unlock(&l->mu);
	p->inner->deleter(p->inner);
	free(p);
	gf_loader_unref(l);
}

struct offsets_tensor {
	struct gf_dl_managed_tensor t;
	int64_t shape[1];
	int64_t v[];
};

static void offsets_delete(struct gf_dl_managed_tensor *self)
{
	free(self);
}

static int offsets_tensor(const struct gf_loader_slot *s, struct gf_dl_managed_tensor **out)
{
	unsigned n = s->batch.count + 1;
	struct offsets_tensor *o = calloc(1, sizeof(*o) + n * sizeof(int64_t));

	if (!o)
		return gf_error(-ENOMEM, "gf_batch_dlpack: out of memory");
	for (unsigned i = 0; i < n; i++)
		o->v[i] = (int64_t)s->offsets[i];
	o->shape[0] = n;
	o->t.dl_tensor = (struct gf_dl_tensor){ .data = o->v, .device = { GF_DL_CPU, 0 }, .ndim = 1,
						 .dtype = GF_DL_DTYPE(GF_DL_INT, 64), .shape = o->shape };
	o->t.manager_ctx = o;
	o->t.deleter = offsets_delete;
	*out = &o->t;
	return 0;
}

/* Under l->mu: the payload tensor, holding the slot and the loader. */
static int payload_tensor(struct gf_loader_slot *s, struct gf_dl_managed_tensor **out)
{
	struct gf_loader *l = s->l;
	const struct gf_batch *b = &s->batch;
	int64_t shape[2] = { b->count, (int64_t)b->record_size };
	int ndim = b->record_size ? 2 : 1;
	struct payload_tensor *p;
	int rc;

	if (!b->bytes)
		return gf_error(-EINVAL, "gf_batch_dlpack: the batch's payload is empty (every sample 0 bytes)");
	if (ndim == 1)
		shape[0] = (int64_t)b->bytes;
	if (!(p = calloc(1, sizeof(*p))))
		return gf_error(-ENOMEM, "gf_batch_dlpack: out of memory");
	rc = l->gpu.on ? gf_devbuf_dlpack(s->dev, 0, GF_DL_DTYPE(GF_DL_UINT, 8), ndim, shape, &p->inner)
		       : gf_buf_dlpack(s->host, 0, GF_DL_DTYPE(GF_DL_UINT, 8), ndim, shape, &p->inner);
	if (rc) {
		free(p);
		return rc;
	}
	p->t.dl_tensor = p->inner->dl_tensor;
	p->t.manager_ctx = p;
	p->t.deleter = payload_delete;
	p->slot = s;
	s->refs++;
	gf_loader_ref(l);
	*out = &p->t;
	return 0;
}

int gf_batch_dlpack(struct gf_batch *b, struct gf_dl_managed_tensor **data_out,
		    struct gf_dl_managed_tensor **offsets_out)
{
	struct gf_loader_slot *s;
	struct gf_loader *l;
	int rc;

	if (data_out)
		*data_out = NULL;
	if (offsets_out)
		*offsets_out = NULL;
	if (!b || !data_out)
		return GF_NULL_ARG(!b ? "b" : "data_out");
	if (!(s = gf_loader_slot_of(b)))
		return gf_arg_error(__func__, "b is not a batch of an open loader");
	l = s->l;
	pthread_mutex_lock(&l->mu);
	if (s->state != GF_SLOT_HELD || !s->consumer)
		rc = gf_arg_error(__func__, "b was released already");
	else if (!(rc = payload_tensor(s, data_out)) && offsets_out && (rc = offsets_tensor(s, offsets_out))) {
		struct gf_dl_managed_tensor *t = *data_out;

		*data_out = NULL;
		pthread_mutex_unlock(&l->mu);
		t->deleter(t);	/* takes the lock */
		return rc;
	}
	pthread_mutex_unlock(&l->mu);
	return rc;
}
