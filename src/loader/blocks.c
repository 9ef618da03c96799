/* Blocks: the order's unit (loader.h, "The order"): runs of consecutive
 * records of one shard of about block_bytes, so a block is one sequential
 * stretch of a data file. */
#include <errno.h>
#include <stdlib.h>

#include "core/error.h"
#include "loader/loader_internal.h"

int gf_loader_blocks_cut(struct gf_loader *l)
{
	uint64_t n = l->info.samples, bytes = 0, count = 0, span = 0;
	size_t a = l->align ? l->align : 1;
	unsigned nb = 0, cap = 64;
	int rc;

	if (!(l->block_first = malloc((cap + 1) * sizeof(*l->block_first))) ||
	    !(l->block_shard = malloc(cap * sizeof(*l->block_shard))))
		return gf_error(-ENOMEM, "loader: out of memory");
	for (uint64_t i = 0; i < n; i++) {
		struct gf_sample_loc at;

		if ((rc = gf_dataset_sample(l->ds, i, &at)))
			return rc;
		/* A new block at a shard's start and once this one is full. */
		if (!nb || at.shard != l->block_shard[nb - 1] || bytes >= l->o.block_bytes) {
			if (nb == cap) {
				uint64_t *f;
				unsigned *s;

				if (cap > (UINT32_MAX - 1) / 2)
					return gf_error(-EINVAL, "loader: %s: more than 2^31 blocks; a larger block_bytes",
							l->info.path);
				cap *= 2;
				if (!(f = realloc(l->block_first, (cap + 1) * sizeof(*f))))
					return gf_error(-ENOMEM, "loader: out of memory");
				l->block_first = f;
				if (!(s = realloc(l->block_shard, cap * sizeof(*s))))
					return gf_error(-ENOMEM, "loader: out of memory");
				l->block_shard = s;
			}
			l->block_first[nb] = i;
			l->block_shard[nb] = at.shard;
			nb++;
			bytes = count = span = 0;
		}
		bytes += at.size;
		/* What a window's read plan needs for it (plan.h's spans). */
		span += (at.offset + at.size + a - 1) / a * a - at.offset / a * a;
		count++;
		if (span > l->block_max_span)
			l->block_max_span = span;
		if (count > l->block_max_samples)
			l->block_max_samples = count;
	}
	l->block_first[nb] = n;
	l->nblocks = nb;
	return 0;
}
