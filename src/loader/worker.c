/* The I/O threads: each claims the next batch of the run (in order) and a
 * free slot, and reads the batch's records on its own io_uring engine
 * (O_DIRECT unless asked otherwise) by one of three paths (docs/loader.md,
 * "Reads"): from the resident windows (window.c; read whole with large
 * requests by the thread that needs one first, or ahead by an idle one),
 * straight into the slot (large fixed-size records), or with a per-batch
 * plan (plan.c) into its own read buffer.  It lays the records out in the
 * slot in sample order (checked, transformed) and queues the slot's copy
 * to the GPU.  Slots are delivered in batch order whatever order the
 * threads finish in. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/io.h>
#include "core/affinity.h"
#include "core/error.h"
#include "core/log.h"
#include "loader/loader_internal.h"
#include "loader/plan.h"

#define QUEUE_DEPTH 64

struct gf_loader_worker {
	struct gf_loader *l;
	unsigned idx;
	pthread_t th;
	bool started;
	struct gf_io *io;
	struct gf_file **files;		/* per shard, opened when first read */
	struct gf_buf *stage;		/* the read buffer (l->stage_bytes) */
	struct gf_plan_item *items;	/* batch_size each */
	unsigned *order;
	struct gf_plan_read *reads;
	struct gf_io_req *reqs;		/* room for max_reads */
	struct gf_io_req **reqp;
	unsigned max_reads;
	const char **src;		/* batch_size: where each sample's bytes are */
	/* The batch being filled through windows (window.c). */
	struct gf_loader_window *win[2];
	bool win_load[2];
};

static int worker_open(struct gf_loader *l, struct gf_loader_worker *w)
{
	struct gf_io_opts io = GF_IO_OPTS_INIT;
	struct gf_buf_opts bo = GF_BUF_OPTS_INIT;
	size_t b = l->o.batch_size;
	int rc;

	w->l = l;
	w->files = calloc(l->nshards ? l->nshards : 1, sizeof(*w->files));
	w->items = calloc(b, sizeof(*w->items));
	w->order = calloc(b, sizeof(*w->order));
	w->reads = calloc(b, sizeof(*w->reads));
	w->max_reads = l->win_items > b ? l->win_items : (unsigned)b;
	w->reqs = calloc(w->max_reads, sizeof(*w->reqs));
	w->reqp = calloc(w->max_reads, sizeof(*w->reqp));
	w->src = calloc(b, sizeof(*w->src));
	if (!w->files || !w->items || !w->order || !w->reads || !w->reqs || !w->reqp || !w->src)
		return gf_error(-ENOMEM, "loader: out of memory");
	io.queue_depth = QUEUE_DEPTH;
	io.flags = GF_IO_BLOCK_WHEN_FULL;
	if ((rc = gf_io_open(&io, &w->io)))
		return gf_error(rc, "loader: I/O thread %u: %s", w->idx, gf_last_error());
	bo.size = l->stage_bytes ? l->stage_bytes : 1;
	bo.numa_node = l->node;
	if ((rc = gf_buf_alloc(&bo, &w->stage)))
		return gf_error(rc, "loader: I/O thread %u's read buffer: %s", w->idx, gf_last_error());
	/* A fixed buffer saves io_uring a page walk per read; without one
	 * (RLIMIT_MEMLOCK) the engine still reads into it. */
	(void)gf_io_register_buf(w->io, w->stage);
	return 0;
}

static void worker_close(struct gf_loader_worker *w)
{
	if (w->io)
		gf_io_close(w->io, GF_IO_CANCEL);	/* closes the files, unregisters stage */
	gf_buf_free(w->stage);
	free(w->files);
	free(w->items);
	free(w->order);
	free(w->reads);
	free(w->reqs);
	free(w->reqp);
	free(w->src);
	memset(w, 0, sizeof(*w));
}

static const char *shard_name(const struct gf_loader *l, unsigned shard)
{
	struct gf_shard_info si;

	return gf_dataset_shard(l->ds, shard, &si) ? "?" : si.data_path;
}

static int shard_file(struct gf_loader_worker *w, unsigned shard, struct gf_file **out)
{
	struct gf_loader *l = w->l;
	struct gf_shard_info si;
	int rc;

	if (!w->files[shard]) {
		if ((rc = gf_dataset_shard(l->ds, shard, &si)))
			return rc;
		if ((rc = gf_file_open(w->io, si.data_path, l->o.buffered ? GF_FILE_READ : GF_FILE_DIRECT, 0,
				       &w->files[shard])))
			return gf_error(rc, "loader: %s", gf_last_error());
	}
	*out = w->files[shard];
	return 0;
}

/* Runs the plan's reads[nreads] into buf and waits for all of them, even
 * when interrupted: no read may still be writing into the buffer when this
 * returns.  items[nitems] name the record a short read stops before. */
static int run_reads(struct gf_loader_worker *w, char *buf, const struct gf_plan_read *reads, unsigned nreads,
		     const struct gf_plan_item *items, unsigned nitems)
{
	struct gf_loader *l = w->l;
	uint64_t t0 = gf_loader_now_ns(), bytes = 0;
	int rc = 0, sub;

	for (unsigned i = 0; i < nreads; i++) {
		const struct gf_plan_read *r = &reads[i];
		struct gf_file *f = NULL;

		if ((rc = shard_file(w, r->shard, &f)))
			return rc;
		w->reqs[i] = (struct gf_io_req){ .op = GF_IO_READ, .file = f, .buf = buf + r->at,
						 .len = r->len, .off = r->off };
		w->reqp[i] = &w->reqs[i];
	}
	sub = nreads ? gf_io_submit(w->io, w->reqp, nreads) : 0;
	if (sub < 0)
		rc = gf_error(sub, "loader: submitting %u reads: %s", nreads, gf_last_error());
	while (gf_io_inflight(w->io))
		gf_io_wait(w->io, gf_io_inflight(w->io), 100);
	gf_loader_count(&l->c_read_ns, gf_loader_now_ns() - t0);
	for (unsigned i = 0; i < (sub > 0 ? (unsigned)sub : 0u); i++) {
		struct gf_io_req *q = &w->reqs[i];
		const struct gf_plan_read *r = &reads[i];

		if (q->res > 0)
			bytes += (uint64_t)q->res;
		if (rc)
			continue;
		if (q->res < 0)
			rc = gf_error((int)q->res, "loader: %s: read of %zu bytes at offset %llu: %s",
				      shard_name(l, r->shard), r->len, (unsigned long long)r->off,
				      strerror((int)-q->res));
		else if ((size_t)q->res < r->need) {
			/* Name the first record the read stopped short of. */
			uint64_t end = r->off + (uint64_t)q->res, roff = r->off + r->need;

			for (unsigned j = 0; j < nitems; j++)
				if (items[j].read == i && items[j].off + items[j].size > end && items[j].off < roff)
					roff = items[j].off;
			rc = gf_error(-EIO, "loader: %s: short read at offset %llu: the file ends at %llu, before the "
				      "end of the record at offset %llu (truncated shard?)", shard_name(l, r->shard),
				      (unsigned long long)r->off, (unsigned long long)end, (unsigned long long)roff);
		}
	}
	gf_loader_count(&l->c_bytes_read, bytes);
	if (!rc && sub >= 0 && (unsigned)sub < nreads)
		rc = gf_error(-EIO, "loader: %u of %u reads accepted", (unsigned)sub, nreads);
	return rc;
}

/* Lays the records (w->src, w->items) out in the slot in sample order,
 * checked and transformed. */
static int compact(struct gf_loader_worker *w, struct gf_loader_slot *s)
{
	struct gf_loader *l = w->l;
	unsigned n = s->batch.count;
	char *host = s->host->data;
	uint64_t at = 0;
	bool uniform = l->info.record_size != 0;
	int rc;

	for (unsigned j = 0; j < n; j++) {
		const struct gf_plan_item *it = &w->items[j];
		size_t len = (size_t)it->size, cap = (size_t)(it->size > l->max_sample ? it->size : l->max_sample);

		if (l->o.verify && (rc = gf_dataset_check_sample(l->ds, s->samples[j], w->src[j], len)))
			return gf_error(rc, "loader: %s: sample %llu at offset %llu: %s", shard_name(l, it->shard),
					(unsigned long long)s->samples[j], (unsigned long long)it->off, gf_last_error());
		memcpy(host + at, w->src[j], len);
		if (l->o.transform) {
			rc = l->o.transform(l->o.transform_user, s->samples[j], host + at, &len, cap);
			if (rc)
				return gf_error(rc < 0 ? rc : -ECANCELED, "loader: the transform failed sample %llu (%s, "
						"offset %llu): %d", (unsigned long long)s->samples[j],
						shard_name(l, it->shard), (unsigned long long)it->off, rc);
			if (len > cap)
				return gf_error(-EINVAL, "loader: the transform made sample %llu %zu bytes, past its "
						"room of %zu", (unsigned long long)s->samples[j], len, cap);
		}
		s->offsets[j] = at;
		at += len;
		uniform = uniform && len == l->info.record_size;
	}
	s->offsets[n] = at;
	s->batch.bytes = (size_t)at;
	s->batch.record_size = uniform ? l->info.record_size : 0;
	return 0;
}

static int fill(struct gf_loader_worker *w, struct gf_loader_slot *s)
{
	struct gf_loader *l = w->l;
	struct gf_plan_limits lim = { .align = l->align, .read_max = l->o.block_bytes, .gap_max = GF_LOADER_GAP_MAX,
				      .cap = l->stage_bytes };
	unsigned n = s->batch.count, nreads = 0;
	int rc;

	for (unsigned j = 0; j < n; j++) {
		struct gf_sample_loc at;

		if ((rc = gf_dataset_sample(l->ds, s->samples[j], &at)))
			return rc;
		w->items[j] = (struct gf_plan_item){ .shard = at.shard, .off = at.offset, .size = at.size };
	}
	if ((rc = gf_plan_build(w->items, n, &lim, w->order, w->reads, &nreads)) ||
	    (rc = run_reads(w, w->stage->data, w->reads, nreads, w->items, n)))
		return rc;
	for (unsigned j = 0; j < n; j++)
		w->src[j] = (const char *)w->stage->data + w->items[j].at;
	if ((rc = gf_loader_gpu_host_free(l, s)) || (rc = compact(w, s)))
		return rc;
	return gf_loader_gpu_copy(l, s);
}

/* Reads each record straight into its place in the slot (l->direct:
 * fixed-size records, all in flight at once), then checks them. */
static int fill_direct(struct gf_loader_worker *w, struct gf_loader_slot *s)
{
	struct gf_loader *l = w->l;
	size_t size = l->info.record_size;
	unsigned n = s->batch.count;
	int rc;

	for (unsigned j = 0; j < n; j++) {
		struct gf_sample_loc at;

		if ((rc = gf_dataset_sample(l->ds, s->samples[j], &at)))
			return rc;
		w->items[j] = (struct gf_plan_item){ .shard = at.shard, .off = at.offset, .size = at.size,
						     .at = j * size, .read = j };
		w->reads[j] = (struct gf_plan_read){ .shard = at.shard, .off = at.offset, .len = at.size,
						     .at = j * size, .need = at.size };
	}
	/* The slot's previous copy to the GPU is done before it is written. */
	if ((rc = gf_loader_gpu_host_free(l, s)) ||
	    (rc = run_reads(w, s->host->data, w->reads, n, w->items, n)))
		return rc;
	for (unsigned j = 0; j < n; j++) {
		const struct gf_plan_item *it = &w->items[j];

		if (l->o.verify &&
		    (rc = gf_dataset_check_sample(l->ds, s->samples[j], (const char *)s->host->data + it->at, size)))
			return gf_error(rc, "loader: %s: sample %llu at offset %llu: %s", shard_name(l, it->shard),
					(unsigned long long)s->samples[j], (unsigned long long)it->off, gf_last_error());
		s->offsets[j] = it->at;
	}
	s->offsets[n] = (uint64_t)n * size;
	s->batch.bytes = (size_t)n * size;
	s->batch.record_size = size;
	return gf_loader_gpu_copy(l, s);
}

/* Reads this rank's records of a window into its buffer: the records
 * sorted by place and joined into reads of up to GF_LOADER_WINDOW_READ
 * (through gaps under GF_LOADER_GAP_MAX), all in flight at once. */
static int window_read(struct gf_loader_worker *w, struct gf_loader_window *win)
{
	struct gf_loader *l = w->l;
	struct gf_plan_limits lim = { .align = l->align, .read_max = GF_LOADER_WINDOW_READ,
				      .gap_max = GF_LOADER_GAP_MAX, .cap = l->win_bytes, .scratch = win->sort };
	int rc;

	for (unsigned i = 0; i < win->n; i++) {
		struct gf_sample_loc at;

		if ((rc = gf_dataset_sample(l->ds, win->samples[i], &at)))
			return rc;
		win->items[i] = (struct gf_plan_item){ .shard = at.shard, .off = at.offset, .size = at.size };
	}
	if ((rc = gf_plan_build(win->items, win->n, &lim, win->order, win->reads, &win->nreads)))
		return rc;
	return run_reads(w, win->buf->data, win->reads, win->nreads, win->items, win->n);
}

/* Reads win (LOADING, pinned by this thread) and tells the threads
 * waiting for it. */
static int window_load(struct gf_loader_worker *w, struct gf_loader_window *win)
{
	struct gf_loader *l = w->l;
	int rc = window_read(w, win);

	pthread_mutex_lock(&l->mu);
	win->state = rc ? GF_WINDOW_FAILED : GF_WINDOW_READY;
	/* The error with its shard and offset, before a thread waiting for
	 * this window reports that it is missing. */
	if (rc && win->gen == l->gen && !l->stop)
		gf_loader_fail_locked(l, rc);
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	return rc;
}

/* Fills s from its windows (w->win, pinned at the claim): reads the ones
 * this thread was given, waits for the others, then gathers each sample. */
static int fill_windowed(struct gf_loader_worker *w, struct gf_loader_slot *s)
{
	struct gf_loader *l = w->l;
	uint64_t W = l->o.world_size, start, q;
	int rc = 0;

	for (unsigned i = 0; i < 2; i++) {
		int lr;

		if (!w->win_load[i])
			continue;
		lr = window_load(w, w->win[i]);
		if (lr && !rc)
			rc = lr;
	}
	if (rc)
		return rc;
	pthread_mutex_lock(&l->mu);
	/* start moves with set_epoch/load_state (under the lock); a fill of an
	 * older generation is dropped by the caller, so a copy taken here is
	 * the one its positions were claimed with. */
	start = l->start;
	q = gf_loader_rank_phase(l);
	for (unsigned i = 0; i < 2; i++) {
		while (w->win[i] && w->win[i]->state == GF_WINDOW_LOADING)
			pthread_cond_wait(&l->cv, &l->mu);
		if (w->win[i] && w->win[i]->state == GF_WINDOW_FAILED && !rc)
			rc = gf_error(-ECANCELED, "loader: window %llu was not read",
				      (unsigned long long)w->win[i]->index);
	}
	pthread_mutex_unlock(&l->mu);
	if (rc)
		return rc;
	for (unsigned j = 0; j < s->batch.count; j++) {
		uint64_t p = start + l->o.rank + (s->index * l->o.batch_size + j) * W;
		struct gf_loader_window *win = p < w->win[0]->end ? w->win[0] : w->win[1];
		uint64_t k = win && p >= win->first ? (p - q) / W - win->rank_first : UINT64_MAX;

		if (k >= (win ? win->n : 0) || win->samples[k] != s->samples[j])
			return gf_error(-EIO, "loader: position %llu (sample %llu) is not in its window's reads",
					(unsigned long long)p, (unsigned long long)s->samples[j]);
		w->items[j] = win->items[k];
		w->src[j] = (const char *)win->buf->data + win->items[k].at;
	}
	if ((rc = gf_loader_gpu_host_free(l, s)) || (rc = compact(w, s)))
		return rc;
	return gf_loader_gpu_copy(l, s);
}

/* Under l->mu: a free slot, or NULL. */
static struct gf_loader_slot *free_slot(struct gf_loader *l)
{
	for (unsigned i = 0; i < l->nslots; i++)
		if (l->slots[i].state == GF_SLOT_FREE)
			return &l->slots[i];
	return NULL;
}

/* Under l->mu: gives s the run's next batch and its samples. */
static void claim(struct gf_loader *l, struct gf_loader_slot *s)
{
	uint64_t k = l->next_fill++, first = k * l->o.batch_size, left = l->rank_count - first;
	unsigned n = left < l->o.batch_size ? (unsigned)left : l->o.batch_size;

	s->state = GF_SLOT_FILLING;
	s->gen = l->gen;
	s->index = k;
	s->batch.epoch = l->epoch;
	s->batch.position = l->start / l->o.world_size + first;
	s->batch.count = n;
	for (unsigned j = 0; j < n; j++) {
		uint64_t p = l->start + l->o.rank + (first + j) * l->o.world_size;

		/* Past the dataset's end (the pad): the epoch's first samples again. */
		s->samples[j] = gf_order_at(l->order, p % l->info.samples);
	}
	atomic_fetch_add_explicit(&l->c_in_use, 1, memory_order_relaxed);
}

/* Under l->mu: the windows of the run's next batch, pinned (window.c);
 * 0 for a batch read per batch, -EAGAIN to wait. */
static int acquire_windows(struct gf_loader_worker *w)
{
	struct gf_loader *l = w->l;
	uint64_t first = l->next_fill * l->o.batch_size, left = l->rank_count - first;
	uint64_t n = left < l->o.batch_size ? left : l->o.batch_size;
	uint64_t p0 = l->start + l->o.rank + first * l->o.world_size, p1 = p0 + (n - 1) * l->o.world_size;

	return gf_loader_window_acquire_locked(l, p0, p1, w->win, w->win_load);
}

/* Under l->mu: the batch's windows unpinned (they may be read again). */
static void unpin(struct gf_loader_worker *w, int windowed)
{
	for (unsigned i = 0; windowed > 0 && i < 2; i++)
		if (w->win[i])
			w->win[i]->pins--;
	w->win[0] = w->win[1] = NULL;
	w->win_load[0] = w->win_load[1] = false;
}

static void *worker_main(void *arg)
{
	struct gf_loader_worker *w = arg;
	struct gf_loader *l = w->l;
	int rc = 0;

	if (l->bind) {
		cpu_set_t set;

		gf_cpuset_to_sys(&l->cpus, &set);
		if ((rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set)))
			GF_WARN(GF_LOG_IO, "loader: I/O thread %u: not bound to NUMA node %d's CPUs: %s", w->idx,
				l->node, strerror(rc));
	}
	/* A name top and gdb show (after the binding: a thread seen by its
	 * name is bound). */
	pthread_setname_np(pthread_self(), "gf-loader-io");
	rc = gf_loader_gpu_thread(l);
	pthread_mutex_lock(&l->mu);
	if (rc)
		gf_loader_fail_locked(l, rc);
	for (;;) {
		struct gf_loader_slot *s = NULL;

		struct gf_loader_window *ahead = NULL;
		int windowed = 0;

		/* Nothing before the caller first asks (l->running).  A window
		 * the run needs next, with a buffer free for it, is read
		 * first: the disk stays busy while others gather. */
		while (!l->stop && (!l->running || (!gf_loader_window_prefetch_locked(l, &ahead) &&
		       (l->failed || l->next_fill >= l->nbatches || !(s = free_slot(l)) ||
			(windowed = acquire_windows(w)) == -EAGAIN))))
			pthread_cond_wait(&l->cv, &l->mu);
		if (ahead) {
			pthread_mutex_unlock(&l->mu);
			(void)window_load(w, ahead);
			pthread_mutex_lock(&l->mu);
			ahead->pins--;
			pthread_cond_broadcast(&l->cv);
			continue;
		}
		if (l->stop) {
			unpin(w, windowed);
			break;
		}
		claim(l, s);
		pthread_mutex_unlock(&l->mu);
		rc = windowed > 0 ? fill_windowed(w, s) : l->direct ? fill_direct(w, s) : fill(w, s);
		pthread_mutex_lock(&l->mu);
		unpin(w, windowed);
		if (s->gen != l->gen || l->stop) {
			s->state = GF_SLOT_FREE;	/* a fill of a run set_epoch or close ended */
			atomic_fetch_sub_explicit(&l->c_in_use, 1, memory_order_relaxed);
		} else if (rc) {
			gf_loader_fail_locked(l, rc);
			s->state = GF_SLOT_FREE;
			atomic_fetch_sub_explicit(&l->c_in_use, 1, memory_order_relaxed);
		} else {
			s->state = GF_SLOT_READY;
			atomic_fetch_add_explicit(&l->c_ready, 1, memory_order_relaxed);
		}
		pthread_cond_broadcast(&l->cv);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

int gf_loader_workers_start(struct gf_loader *l)
{
	int rc;

	if (!(l->workers = calloc(l->nworkers, sizeof(*l->workers))))
		return gf_error(-ENOMEM, "loader: out of memory");
	for (unsigned i = 0; i < l->nworkers; i++) {
		l->workers[i].idx = i;
		if ((rc = worker_open(l, &l->workers[i])))
			return rc;
	}
	for (unsigned i = 0; i < l->nworkers; i++) {
		if ((rc = pthread_create(&l->workers[i].th, NULL, worker_main, &l->workers[i])))
			return gf_error(-rc, "loader: starting I/O thread %u: %s", i, strerror(rc));
		l->workers[i].started = true;
	}
	return 0;
}

void gf_loader_workers_stop(struct gf_loader *l)
{
	if (!l->workers)
		return;
	pthread_mutex_lock(&l->mu);
	l->stop = true;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	for (unsigned i = 0; i < l->nworkers; i++)
		if (l->workers[i].io)
			gf_io_interrupt(l->workers[i].io);	/* a read in flight ends early */
	for (unsigned i = 0; i < l->nworkers; i++) {
		if (l->workers[i].started)
			pthread_join(l->workers[i].th, NULL);
		worker_close(&l->workers[i]);
	}
	free(l->workers);
	l->workers = NULL;
}
