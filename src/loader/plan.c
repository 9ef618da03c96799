/* The read plan of one batch (plan.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/error.h"
#include "loader/plan.h"

static uint64_t down(uint64_t v, size_t a)
{
	return v / a * a;
}

static uint64_t up(uint64_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

static uint64_t span_of(const struct gf_plan_item *it, size_t a)
{
	return up(it->off + it->size, a) - down(it->off, a);
}

size_t gf_plan_cap(size_t n, uint64_t max_size, size_t align)
{
	uint64_t per;

	if (!align || max_size > UINT64_MAX - 2 * (uint64_t)align)
		return SIZE_MAX;
	/* An unaligned start and end each cost up to align - 1 more. */
	per = up(max_size, align) + align;
	if (n && per > SIZE_MAX / n)
		return SIZE_MAX;
	return (size_t)(per * n);
}

/* qsort has no context argument: the items being sorted, per thread. */
static _Thread_local const struct gf_plan_item *sorting;

static int by_place(const void *a, const void *b)
{
	const struct gf_plan_item *x = &sorting[*(const unsigned *)a], *y = &sorting[*(const unsigned *)b];

	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return *(const unsigned *)a < *(const unsigned *)b ? -1 : *(const unsigned *)a > *(const unsigned *)b;
}

static unsigned bits_of(uint64_t v)
{
	unsigned b = 0;

	while (v) {
		b++;
		v >>= 1;
	}
	return b;
}

/* Sorts order[] as by_place does, through keys of (shard, offset, index)
 * relative to their minima in one uint64 (keys[2n]: an LSD radix sort, 8
 * bits a pass, over the bits that vary).  false when they do not fit 64
 * bits: qsort then. */
static bool radix_by_place(const struct gf_plan_item *items, unsigned n, uint64_t *keys, unsigned *order)
{
	uint64_t smin = UINT64_MAX, smax = 0, omin = UINT64_MAX, omax = 0, *a = keys, *b = keys + n;
	unsigned ib = bits_of(n ? n - 1 : 0), ob, sb, total;

	for (unsigned i = 0; i < n; i++) {
		smin = items[i].shard < smin ? items[i].shard : smin;
		smax = items[i].shard > smax ? items[i].shard : smax;
		omin = items[i].off < omin ? items[i].off : omin;
		omax = items[i].off > omax ? items[i].off : omax;
	}
	if (!n)
		return true;
	ob = bits_of(omax - omin);
	sb = bits_of(smax - smin);
	total = ib + ob + sb;
	if (total > 64)
		return false;
	for (unsigned i = 0; i < n; i++) {
		uint64_t k = (uint64_t)i;

		if (ob)
			k |= (items[i].off - omin) << ib;
		if (sb)
			k |= ((uint64_t)items[i].shard - smin) << (ib + ob);
		a[i] = k;
	}
	for (unsigned shift = 0; shift < total; shift += 8) {
		size_t count[257] = { 0 };
		uint64_t *t;

		for (unsigned i = 0; i < n; i++)
			count[((a[i] >> shift) & 0xff) + 1]++;
		for (unsigned d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (unsigned i = 0; i < n; i++)
			b[count[(a[i] >> shift) & 0xff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	for (unsigned i = 0; i < n; i++)
		order[i] = (unsigned)(ib ? a[i] & ((UINT64_C(1) << ib) - 1) : 0);
	return true;
}

int gf_plan_build(struct gf_plan_item *items, unsigned n, const struct gf_plan_limits *lim, unsigned *order,
		  struct gf_plan_read *reads, unsigned *nreads)
{
	size_t a = lim->align ? lim->align : 1;
	uint64_t rest = 0, used = 0;
	struct gf_plan_read *cur = NULL;
	unsigned nr = 0;

	*nreads = 0;
	for (unsigned i = 0; i < n; i++) {
		order[i] = i;
		rest += span_of(&items[i], a);
	}
	if (rest > lim->cap)
		return gf_error(-EINVAL, "loader: a batch's records need %llu bytes of reads, more than the %zu of the "
				"read buffer", (unsigned long long)rest, lim->cap);
	if (!lim->scratch || !radix_by_place(items, n, lim->scratch, order)) {
		sorting = items;
		qsort(order, n, sizeof(*order), by_place);
		sorting = NULL;
	}
	for (unsigned k = 0; k < n; k++) {
		struct gf_plan_item *it = &items[order[k]];
		uint64_t s = down(it->off, a), e = up(it->off + it->size, a), span = e - s;
		bool join = false;

		rest -= span;
		if (cur && cur->shard == it->shard) {
			uint64_t cend = cur->off + cur->len;
			uint64_t grown = e > cend ? e - cur->off : cur->len;

			if (grown <= lim->read_max || e <= cend) {
				if (s <= cend)
					join = true;	/* touching or overlapping */
				else if (s - cend < lim->gap_max && used + (e - cend) + rest <= lim->cap)
					join = true;	/* a small gap, read through */
			}
		}
		if (join) {
			uint64_t cend = cur->off + cur->len;

			if (e > cend) {
				used += e - cend;
				cur->len = (size_t)(e - cur->off);
			}
		} else {
			cur = &reads[nr];
			*cur = (struct gf_plan_read){ .shard = it->shard, .off = s, .len = (size_t)span,
						      .at = (size_t)used };
			used += span;
			nr++;
		}
		it->read = (unsigned)(cur - reads);
		it->at = cur->at + (size_t)(it->off - cur->off);
		if (it->off + it->size - cur->off > cur->need)
			cur->need = (size_t)(it->off + it->size - cur->off);
	}
	*nreads = nr;
	return 0;
}

void gf_plan_rank_positions(uint64_t first, uint64_t end, unsigned rank, unsigned world, uint64_t *i0,
			    uint64_t *n)
{
	uint64_t a = first > rank ? (first - rank + world - 1) / world : 0;
	uint64_t b = end > rank ? (end - rank + world - 1) / world : 0;

	*i0 = a;
	*n = b > a ? b - a : 0;
}
