/* Which reads a batch needs: its samples' records, sorted by shard and
 * offset, coalesced into few large aligned reads.  No I/O here (worker.c
 * issues the reads); a pure function of the records' places, so it is
 * tested alone.
 *
 * Each record's aligned span is [offset rounded down, offset + size
 * rounded up) to the alignment.  Consecutive spans (sorted) join one read
 * while it stays at most read_max bytes (a single span longer than that is
 * one read of its own) and either they touch or overlap, or the gap
 * between them is under gap_max: reading through a small gap costs less
 * than a second request (fio's and FFCV's habit).  A gap is read through
 * only while the plan's bytes, counting the spans still to come at their
 * full size, stay within cap; so a plan never needs more than
 * gf_plan_cap(n, largest record, align) bytes, whatever the records. */
#ifndef GF_LOADER_PLAN_H
#define GF_LOADER_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* One record the batch needs, in the batch's sample order. */
struct gf_plan_item {
	unsigned shard;
	uint64_t off;		/* in the shard's data file */
	uint64_t size;
	/* out: where its bytes start in the read buffer */
	size_t at;
	/* out: the read that brings it */
	unsigned read;
};

/* One read: len bytes of a shard from off into the buffer at `at`. */
struct gf_plan_read {
	unsigned shard;
	uint64_t off;
	size_t len;
	size_t at;
	/* The bytes of it that records need (from off): a shorter read
	 * (end of file) is an error only when it stops before them. */
	size_t need;
};

struct gf_plan_limits {
	size_t align;		/* power of two, >= 1 */
	size_t read_max;	/* > 0 */
	size_t gap_max;		/* gaps below this are read through */
	size_t cap;		/* the read buffer's bytes */
	/* NULL, or room for 2 x n: the records are then sorted by a radix
	 * sort (a window's thousands of records in a tenth of qsort's time,
	 * time the disk would otherwise sit idle between windows). */
	uint64_t *scratch;
};

/* The read buffer a plan of n records of at most max_size bytes needs at
 * worst: each record's span read alone.  SIZE_MAX when that overflows. */
size_t gf_plan_cap(size_t n, uint64_t max_size, size_t align);

/* Plans the reads of items[n] into reads[] (room for n), sets each item's
 * at and read, and *nreads.  order[n] is scratch.  0, or -EINVAL with a
 * message when the spans do not fit lim->cap (a cap below gf_plan_cap). */
int gf_plan_build(struct gf_plan_item *items, unsigned n, const struct gf_plan_limits *lim, unsigned *order,
		  struct gf_plan_read *reads, unsigned *nreads);

/* The rank indices i of rank `rank` of `world` whose global positions
 * rank + i * world fall in [first, end): [*i0, *i0 + *n).  A window's
 * read plan is that of these positions' records (loader/window.c). */
void gf_plan_rank_positions(uint64_t first, uint64_t end, unsigned rank, unsigned world, uint64_t *i0,
			    uint64_t *n);

#endif
