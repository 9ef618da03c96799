/* The loader's entry points (include/gpufeed/loader.h): open and close,
 * the consumer's side of the pipeline (next, release), the epoch and the
 * run's position (state, load_state).  The threads are worker.c's, the
 * slots slot.c's, the GPU copy copy.c's, the order order.c's. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/topo.h>
#include "core/error.h"
#include "core/opts.h"
#include "core/stepchan.h"
#include "loader/loader_internal.h"
#include "loader/plan.h"

#define LOADER_OPTS_V1_SIZE (offsetof(struct gf_loader_opts, transform_user) + sizeof(void *))
#define QUALITY_POSITIONS_MAX (1u << 20)

const char *gf_loader_uneven_name(enum gf_loader_uneven u)
{
	switch (u) {
	case GF_LOADER_PAD:
		return "pad";
	case GF_LOADER_DROP:
		return "drop";
	}
	return "?";
}

void gf_loader_fail_locked(struct gf_loader *l, int err)
{
	if (l->failed)
		return;
	l->failed = true;
	l->err = err < 0 ? err : -EIO;
	snprintf(l->errmsg, sizeof(l->errmsg), "%s", gf_last_error());
	pthread_cond_broadcast(&l->cv);
}

/* This rank's samples from global position start to the epoch's end:
 * every rank the same count.  The order's length is already padded up or
 * cut down to a multiple of the world size (loader.h, the pad or drop
 * policy), so from start 0 that is length / W; after a resume at a start
 * that is not a multiple of W, the last (length - start) mod W positions
 * are left out rather than asked of a position the epoch does not have. */
static uint64_t rank_count(const struct gf_loader *l, uint64_t start)
{
	uint64_t len = gf_order_global_len(l->order);

	return (len > start ? len - start : 0) / l->o.world_size;
}

static uint64_t batches_of(const struct gf_loader *l, uint64_t samples)
{
	uint64_t b = l->o.batch_size;

	return l->o.drop_last ? samples / b : (samples + b - 1) / b;
}

static int build_order(struct gf_loader *l, uint64_t epoch, struct gf_order **out)
{
	struct gf_order_params p = {
		.samples = l->info.samples,
		.nblocks = l->nblocks,
		.block_first = l->block_first,
		.block_shard = l->block_shard,
		.window_blocks = l->o.window_blocks,
		.seed = l->o.seed,
		.epoch = epoch,
		.world_size = l->o.world_size,
		.shuffle = l->o.shuffle,
		.uneven = l->o.uneven,
	};

	return gf_order_build(&p, out);
}

/* Under l->mu: the run restarts at (epoch, global position start); what
 * was prefetched is dropped, fills in flight are dropped when they end. */
static int restart_locked(struct gf_loader *l, uint64_t epoch, uint64_t start)
{
	struct gf_order *o = NULL;
	int rc;

	if (!l->order || epoch != l->epoch) {
		if ((rc = build_order(l, epoch, &o)))
			return rc;
		gf_order_free(l->order);
		l->order = o;
	}
	l->epoch = epoch;
	l->running = true;
	l->gen++;
	l->failed = false;
	l->err = 0;
	l->errmsg[0] = '\0';
	l->start = start;
	l->rank_count = rank_count(l, start);
	l->nbatches = batches_of(l, l->rank_count);
	l->next_fill = 0;
	l->delivered = 0;
	for (unsigned i = 0; l->slots && i < l->nslots; i++) {
		if (l->slots[i].state != GF_SLOT_READY)
			continue;
		l->slots[i].state = GF_SLOT_FREE;
		atomic_fetch_sub_explicit(&l->c_ready, 1, memory_order_relaxed);
		atomic_fetch_sub_explicit(&l->c_in_use, 1, memory_order_relaxed);
	}
	pthread_cond_broadcast(&l->cv);
	return 0;
}

static int check_opts(struct gf_loader_opts *o)
{
	const char *fn = "gf_loader_open";

	if (!o->batch_size)
		return gf_arg_error(fn, "batch_size 0: at least one sample per batch");
	if (!o->world_size)
		return gf_arg_error(fn, "world_size 0: at least one rank");
	if (o->rank >= o->world_size)
		return gf_arg_error(fn, "rank %u: not below world_size %u", o->rank, o->world_size);
	if ((unsigned)o->uneven > GF_LOADER_DROP)
		return gf_arg_error(fn, "uneven %d: GF_LOADER_PAD or GF_LOADER_DROP", (int)o->uneven);
	if (o->gpu < -1)
		return gf_arg_error(fn, "gpu %d: an NVML index, or -1 for host memory", o->gpu);
	if (o->numa_node < -1)
		return gf_arg_error(fn, "numa_node %d: a node, or -1 for the GPU's", o->numa_node);
	if (!o->slots)
		o->slots = 4;
	if (o->slots < 2)
		return gf_arg_error(fn, "slots %u: at least 2 (one filling while the consumer holds one)", o->slots);
	if (!o->threads)
		o->threads = 2;
	if (!o->block_bytes)
		o->block_bytes = GF_LOADER_BLOCK_DEFAULT;
	if (!o->window_blocks)
		o->window_blocks = GF_LOADER_WINDOW_DEFAULT;
	return 0;
}

/* The node's CPUs the threads run on: the model's (which may be a
 * recording's or the caller's), within what this process may use now. */
static void node_cpus(struct gf_loader *l, const struct gf_topo *t)
{
	struct gf_cpuset mine;
	cpu_set_t set;

	gf_cpuset_zero(&mine);
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			gf_cpuset_set(&mine, (unsigned)c);
	for (int i = 0; i < t->numa.nnodes; i++) {
		if (t->numa.node[i].id != l->node)
			continue;
		gf_cpuset_and(&l->cpus, &t->numa.node[i].cpus, &mine);
		l->bind = !gf_cpuset_empty(&l->cpus);
	}
}

/* The node of the buffers and threads: the caller's, else the GPU's in
 * the model (the caller's, else this machine's), none without a GPU. */
static int place(struct gf_loader *l)
{
	const struct gf_topo *t = l->o.model;
	struct gf_topo *own = NULL;
	int rc, n;

	l->node = l->o.numa_node;
	if (l->node < 0 && !l->gpu.on)
		return 0;
	if (!t) {
		if ((rc = gf_topo_discover(NULL, &own)))
			return gf_error(rc, "loader: the GPU's NUMA node: %s", gf_last_error());
		t = own;
	}
	if (l->node < 0 && (n = gf_topo_pci_node(t, l->gpu.dev.pci)) >= 0)
		l->node = n;
	if (l->node >= 0)
		node_cpus(l, t);
	gf_topo_free(own);
	return 0;
}

/* The slots hold the largest batch; each thread's read buffer its worst
 * read plan (plan.h). */
static int sizes(struct gf_loader *l)
{
	uint64_t b = l->o.batch_size;

	l->align = l->o.buffered ? 1 : (l->info.align > 4096 ? l->info.align : 4096);
	l->max_sample = l->info.max_size;
	if (l->max_sample && b > SIZE_MAX / l->max_sample)
		return gf_arg_error("gf_loader_open", "batch_size %u: a batch of records up to %llu bytes cannot fit a "
				    "slot", l->o.batch_size, (unsigned long long)l->max_sample);
	l->slot_bytes = (size_t)(b * l->max_sample);
	l->stage_bytes = gf_plan_cap(l->o.batch_size, l->max_sample, l->align);
	if (l->stage_bytes == SIZE_MAX)
		return gf_arg_error("gf_loader_open", "batch_size %u: the reads of a batch of records up to %llu bytes "
				    "cannot fit a buffer", l->o.batch_size, (unsigned long long)l->max_sample);
	return 0;
}

int gf_loader_open(const char *dataset, const struct gf_loader_opts *opts, struct gf_loader **out)
{
	struct gf_loader *l;
	int rc;

	if (out)
		*out = NULL;
	if (!dataset || !opts || !out)
		return GF_NULL_ARG(!dataset ? "dataset" : !opts ? "opts" : "out");
	if ((rc = gf_opts_check(opts->struct_size, LOADER_OPTS_V1_SIZE, "gf_loader_open", "GF_LOADER_OPTS_INIT")))
		return rc;
	if (!(l = calloc(1, sizeof(*l))))
		return gf_error(-ENOMEM, "loader: out of memory");
	l->o = (struct gf_loader_opts)GF_LOADER_OPTS_INIT;
	gf_opts_copy(&l->o, sizeof(l->o), opts, opts->struct_size);
	atomic_init(&l->refs, 1);
	l->node = -1;
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cv, NULL);
	if ((rc = check_opts(&l->o)) || (rc = gf_dataset_open(dataset, &l->ds)) ||
	    (rc = gf_dataset_info(l->ds, &l->info)))
		goto fail;
	if (!l->info.samples) {
		rc = gf_error(-EINVAL, "loader: %s holds no samples", dataset);
		goto fail;
	}
	l->nshards = l->info.shards;
	l->nslots = l->o.slots;
	l->nworkers = l->o.threads;
	if ((rc = sizes(l)) || (rc = gf_loader_blocks_cut(l)) || (rc = gf_loader_gpu_open(l)) || (rc = place(l)) ||
	    (rc = gf_loader_windows_open(l)))
		goto fail;
	pthread_mutex_lock(&l->mu);
	rc = restart_locked(l, 0, 0);
	l->running = false;
	pthread_mutex_unlock(&l->mu);
	if (rc || (rc = gf_loader_slots_open(l)) || (rc = gf_loader_workers_start(l)))
		goto fail;
	gf_loader_live_add(l);
	*out = l;
	return 0;
fail:
	gf_loader_close(l);
	return rc;
}

void gf_loader_close(struct gf_loader *l)
{
	if (!l)
		return;
	gf_loader_live_remove(l);
	gf_loader_workers_stop(l);
	pthread_mutex_lock(&l->mu);
	l->closed = true;
	pthread_mutex_unlock(&l->mu);
	gf_loader_slots_close(l);
	gf_loader_windows_close(l);
	gf_loader_gpu_close(l);
	gf_order_free(l->order);
	l->order = NULL;
	gf_dataset_close(l->ds);
	l->ds = NULL;
	free(l->block_first);
	free(l->block_shard);
	l->block_first = NULL;
	l->block_shard = NULL;
	gf_loader_unref(l);
}

/* Under l->mu: the slot holding the next batch when it is ready. */
static struct gf_loader_slot *ready_slot(struct gf_loader *l, unsigned *held)
{
	*held = 0;
	for (unsigned i = 0; i < l->nslots; i++) {
		struct gf_loader_slot *s = &l->slots[i];

		*held += s->state == GF_SLOT_HELD;
		if (s->state == GF_SLOT_READY && s->gen == l->gen && s->index == l->delivered)
			return s;
	}
	return NULL;
}

int gf_loader_next(struct gf_loader *l, struct gf_batch **out)
{
	struct gf_loader_slot *s = NULL;
	uint64_t t0 = gf_loader_now_ns();
	unsigned held;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!l || !out)
		return GF_NULL_ARG(!l ? "l" : "out");
	gf_loader_count(&l->c_next_calls, 1);
	pthread_mutex_lock(&l->mu);
	if (!l->running) {
		l->running = true;
		pthread_cond_broadcast(&l->cv);
	}
	for (;;) {
		if (l->failed) {
			rc = gf_error(l->err, "%s", l->errmsg);
			break;
		}
		if (l->delivered >= l->nbatches) {
			rc = 1;
			break;
		}
		if ((s = ready_slot(l, &held)))
			break;
		if (held == l->nslots) {
			rc = gf_error(-ENOBUFS, "gf_loader_next: all %u slots are held by batches not released (or "
				      "their DLPack tensors): release one first", l->nslots);
			break;
		}
		pthread_cond_wait(&l->cv, &l->mu);
	}
	if (s) {
		s->state = GF_SLOT_HELD;
		s->refs = 1;
		s->consumer = true;
		l->delivered++;
		atomic_fetch_sub_explicit(&l->c_ready, 1, memory_order_relaxed);
		gf_loader_count(&l->c_batches, 1);
		gf_loader_count(&l->c_samples, s->batch.count);
		*out = &s->batch;
	}
	pthread_mutex_unlock(&l->mu);
	t0 = gf_loader_now_ns() - t0;
	gf_loader_count(&l->c_wait_ns, t0);
	/* what gpufeed diagnose reads as the job's input wait */
	if (s)
		gf_stepchan_input(t0, s->batch.bytes);
	return rc;
}

int gf_loader_release(struct gf_loader *l, struct gf_batch *b)
{
	struct gf_loader_slot *s;
	int rc = 0;

	if (!l || !b)
		return GF_NULL_ARG(!l ? "l" : "b");
	if (!(s = gf_loader_slot_of(b)) || s->l != l)
		return gf_arg_error(__func__, "b is not a batch of this loader");
	pthread_mutex_lock(&l->mu);
	if (s->state != GF_SLOT_HELD || !s->consumer) {
		pthread_mutex_unlock(&l->mu);
		return gf_arg_error(__func__, "b was released already");
	}
	s->consumer = false;
	/* A failed release event leaves nothing to keep the slot from being
	 * refilled while the consumer's stream may still read it: the run
	 * fails, as when the last reference is a DLPack tensor's (dlpack.c). */
	if ((rc = gf_loader_slot_unref_locked(l, s)))
		gf_loader_fail_locked(l, rc);
	pthread_mutex_unlock(&l->mu);
	return rc;
}

int gf_loader_set_epoch(struct gf_loader *l, uint64_t epoch)
{
	int rc;

	if (!l)
		return GF_NULL_ARG("l");
	pthread_mutex_lock(&l->mu);
	rc = restart_locked(l, epoch, 0);
	pthread_mutex_unlock(&l->mu);
	return rc;
}

uint64_t gf_loader_samples(const struct gf_loader *l)
{
	if (!l) {
		GF_NULL_ARG("l");
		return 0;
	}
	return rank_count(l, 0);
}

uint64_t gf_loader_batches(const struct gf_loader *l)
{
	if (!l) {
		GF_NULL_ARG("l");
		return 0;
	}
	return batches_of(l, rank_count(l, 0));
}

int gf_loader_state(const struct gf_loader *l, struct gf_loader_state *out)
{
	struct gf_loader *m = (struct gf_loader *)l;	/* the lock, not the state */
	uint64_t done;

	if (!l || !out)
		return GF_NULL_ARG(!l ? "l" : "out");
	pthread_mutex_lock(&m->mu);
	done = l->delivered * l->o.batch_size;
	if (done > l->rank_count)
		done = l->rank_count;
	*out = (struct gf_loader_state){ .seed = l->o.seed, .epoch = l->epoch,
					 .position = l->start + done * l->o.world_size,
					 .world_size = l->o.world_size, .batch_size = l->o.batch_size };
	pthread_mutex_unlock(&m->mu);
	return 0;
}

int gf_loader_load_state(struct gf_loader *l, const struct gf_loader_state *state)
{
	int rc;

	if (!l || !state)
		return GF_NULL_ARG(!l ? "l" : "state");
	if (state->seed != l->o.seed)
		return gf_arg_error(__func__, "state's seed %llu is not the loader's %llu",
				    (unsigned long long)state->seed, (unsigned long long)l->o.seed);
	pthread_mutex_lock(&l->mu);
	rc = restart_locked(l, state->epoch, state->position);
	pthread_mutex_unlock(&l->mu);
	return rc;
}

int gf_loader_shuffle_quality(const struct gf_loader *l, double *score, double *full)
{
	struct gf_loader *m = (struct gf_loader *)l;	/* the order's window cache */
	int rc;

	if (!l || !score || !full)
		return GF_NULL_ARG(!l ? "l" : !score ? "score" : "full");
	pthread_mutex_lock(&m->mu);
	rc = gf_order_quality(m->order, l->o.batch_size, QUALITY_POSITIONS_MAX, score, full);
	pthread_mutex_unlock(&m->mu);
	return rc;
}
