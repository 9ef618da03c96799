/* The resident windows (loader_internal.h, docs/loader.md "Reads"): a
 * window's records this rank needs are read once, with large sequential
 * requests, into one of GF_LOADER_WINDOWS buffers; the batches drawn from
 * the window gather their samples from it.
 *
 * A window buffer is taken for a batch at its claim, in batch order, and
 * pinned until the batch is filled; it is given to another window only
 * when nothing pins it and neither the batch being claimed nor the next
 * needs it: batches are claimed in position order, so a window before the
 * first window of the batch being claimed is never needed again in this
 * run.  set_epoch and load_state drop what was read (loader.h: they
 * discard what was prefetched).  A batch takes
 * both its windows at once or waits with none: the batches holding
 * buffers are earlier ones, which have all they need, so they finish and
 * the buffers come free. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "loader/loader_internal.h"
#include "loader/plan.h"

int gf_loader_windows_open(struct gf_loader *l)
{
	struct gf_buf_opts bo = GF_BUF_OPTS_INIT;
	uint64_t asked = (uint64_t)l->o.window_blocks * l->o.block_bytes, bytes, items;
	int rc;

	if (l->o.block_bytes && asked / l->o.block_bytes != l->o.window_blocks)
		asked = UINT64_MAX;
	if (asked > GF_LOADER_WINDOW_BYTES_MAX)
		return gf_arg_error("gf_loader_open", "window_blocks %u x block_bytes %zu is more than the %llu bytes "
				    "a window buffer may hold (two are resident): lower block_bytes or window_blocks",
				    l->o.window_blocks, l->o.block_bytes,
				    (unsigned long long)GF_LOADER_WINDOW_BYTES_MAX);
	/* Large fixed-size records whose places keep O_DIRECT's alignment in
	 * the slot (or buffered reads) skip the window: read into the slot. */
	l->direct = l->info.record_size >= GF_LOADER_DIRECT_MIN && !l->o.transform &&
		    (l->o.buffered || (l->info.align >= l->align && l->info.record_size % l->align == 0));
	if (l->direct)
		return 0;
	/* What a window's plan may need: each block's records' aligned spans
	 * at most block_max_span (blocks.c).  Far above the window's bytes
	 * only for records much smaller than the alignment: those keep
	 * per-batch reads. */
	bytes = l->block_max_span * l->o.window_blocks;
	items = l->block_max_samples * l->o.window_blocks;
	if (!l->block_max_span || bytes / l->o.window_blocks != l->block_max_span ||
	    bytes > GF_LOADER_WINDOW_BYTES_MAX || bytes > 2 * asked + 2 * l->align * l->o.window_blocks ||
	    items > UINT32_MAX / 2)
		return 0;
	l->win_bytes = (size_t)bytes;
	l->win_items = (unsigned)items;
	bo.size = l->win_bytes;
	bo.numa_node = l->node;
	for (unsigned i = 0; i < GF_LOADER_WINDOWS; i++) {
		struct gf_loader_window *w = &l->win[i];

		if ((rc = gf_buf_alloc(&bo, &w->buf)))
			return gf_error(rc, "loader: a window buffer of %zu bytes: %s", l->win_bytes, gf_last_error());
		w->samples = calloc(items, sizeof(*w->samples));
		w->items = calloc(items, sizeof(*w->items));
		w->order = calloc(items, sizeof(*w->order));
		w->reads = calloc(items, sizeof(*w->reads));
		w->sort = calloc(2 * items, sizeof(*w->sort));
		if (!w->samples || !w->items || !w->order || !w->reads || !w->sort)
			return gf_error(-ENOMEM, "loader: out of memory");
	}
	l->windowed = true;
	return 0;
}

void gf_loader_windows_close(struct gf_loader *l)
{
	for (unsigned i = 0; i < GF_LOADER_WINDOWS; i++) {
		struct gf_loader_window *w = &l->win[i];

		gf_buf_free(w->buf);
		free(w->samples);
		free(w->items);
		free(w->order);
		free(w->reads);
		free(w->sort);
		memset(w, 0, sizeof(*w));
	}
	l->windowed = false;
	l->direct = false;
}

static struct gf_loader_window *resident(struct gf_loader *l, uint64_t index)
{
	for (unsigned i = 0; i < GF_LOADER_WINDOWS; i++)
		if ((l->win[i].state == GF_WINDOW_LOADING || l->win[i].state == GF_WINDOW_READY) &&
		    l->win[i].gen == l->gen && l->win[i].index == index)
			return &l->win[i];
	return NULL;
}

/* A buffer other than `taken` that neither the batch being claimed nor
 * the one after needs (first: the batch's first window): an earlier
 * window is never needed again in this run; a later one (left by a
 * load_state back in the epoch) can be read again. */
static struct gf_loader_window *spare(struct gf_loader *l, uint64_t first, const struct gf_loader_window *taken)
{
	for (unsigned i = 0; i < GF_LOADER_WINDOWS; i++) {
		struct gf_loader_window *w = &l->win[i];

		if (w == taken || w->pins)
			continue;
		if (w->state == GF_WINDOW_EMPTY || w->state == GF_WINDOW_FAILED || w->gen != l->gen ||
		    w->index < first || w->index > first + 1)
			return w;
	}
	return NULL;
}

/* Under l->mu: w becomes window index (positions [first, end)), to be
 * read by the caller; this rank's samples in it listed. */
static void assign(struct gf_loader *l, struct gf_loader_window *w, uint64_t index, uint64_t first, uint64_t end)
{
	uint64_t W = l->o.world_size, q = gf_loader_rank_phase(l);
	uint64_t i0, n, len = gf_order_global_len(l->order);

	/* The drop policy cuts the epoch's last positions: not this rank's.
	 * This rank's positions are start + rank + i * W, so after a resume
	 * at a start that is not a multiple of W they are the ones = q mod W,
	 * not = rank. */
	gf_plan_rank_positions(first, end < len ? end : len, (unsigned)q, l->o.world_size, &i0, &n);

	w->state = GF_WINDOW_LOADING;
	w->gen = l->gen;
	w->index = index;
	w->first = first;
	w->end = end;
	w->rank_first = i0;
	w->n = (unsigned)n;
	w->nreads = 0;
	for (unsigned i = 0; i < w->n; i++)
		w->samples[i] = gf_order_at(l->order, q + (i0 + i) * W);
}

int gf_loader_window_acquire_locked(struct gf_loader *l, uint64_t p0, uint64_t p1,
				    struct gf_loader_window *got[2], bool load[2])
{
	uint64_t idx[2], first[2], end[2];
	struct gf_loader_window *w[2] = { NULL, NULL };
	unsigned n;

	got[0] = got[1] = NULL;
	load[0] = load[1] = false;
	/* The pad (positions past the samples) wraps to the epoch's start. */
	if (!l->windowed || p1 >= l->info.samples)
		return 0;
	if (gf_order_window(l->order, p0, &idx[0], &first[0], &end[0]) ||
	    gf_order_window(l->order, p1, &idx[1], &first[1], &end[1]))
		return 0;
	if (idx[1] - idx[0] > 1)
		return 0;
	n = idx[1] == idx[0] ? 1 : 2;
	for (unsigned i = 0; i < n; i++)
		w[i] = resident(l, idx[i]);
	for (unsigned i = 0; i < n; i++) {
		if (w[i])
			continue;
		if (!(w[i] = spare(l, idx[0], w[1 - i])))
			return -EAGAIN;
		load[i] = true;
	}
	for (unsigned i = 0; i < n; i++) {
		if (load[i])
			assign(l, w[i], idx[i], first[i], end[i]);
		w[i]->pins++;
		got[i] = w[i];
	}
	return 1;
}

int gf_loader_window_prefetch_locked(struct gf_loader *l, struct gf_loader_window **got)
{
	uint64_t W = l->o.world_size, p0, end, idx, idx0, first, wend;
	uint64_t len = gf_order_global_len(l->order);

	*got = NULL;
	if (!l->windowed || l->failed || l->next_fill >= l->nbatches)
		return 0;
	/* One window read ahead at a time: two at once share the disk, and
	 * the one needed first would be ready later. */
	for (unsigned i = 0; i < GF_LOADER_WINDOWS; i++)
		if (l->win[i].state == GF_WINDOW_LOADING && l->win[i].gen == l->gen)
			return 0;
	p0 = l->start + l->o.rank + l->next_fill * l->o.batch_size * W;
	/* The run's last position of this rank, plus one. */
	end = l->start + l->o.rank + (l->rank_count - 1) * W + 1;
	if (end > l->info.samples)
		end = l->info.samples;
	if (end > len)
		end = len;
	if (p0 >= end || gf_order_window(l->order, p0, &idx, &first, &wend))
		return 0;
	idx0 = idx;
	/* The next batch's window, else the one after it. */
	for (unsigned k = 0; k < 2; k++) {
		struct gf_loader_window *w;

		if (k) {
			if (wend >= end || gf_order_window(l->order, wend, &idx, &first, &wend))
				return 0;
		}
		if (resident(l, idx))
			continue;
		if (!(w = spare(l, idx0, NULL)))
			return 0;
		assign(l, w, idx, first, wend);
		w->pins++;
		*got = w;
		return 1;
	}
	return 0;
}
