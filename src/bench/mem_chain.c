/* The latency test's pointer chain (see mem_chain.h). */
#include "bench/mem_chain.h"

#include "core/rand.h"

size_t gf_mem_chain_build(void *buf, size_t len, size_t stride, uint64_t seed)
{
	char *base = buf;
	struct gf_rand r;
	size_t lines;

	if (!buf || !stride || stride % sizeof(void *))
		return 0;
	lines = len / stride;
	if (lines < 2)
		return 0;
	/* In place, no index array: each line first holds its successor's
	 * index (identity), Sattolo's shuffle makes that one n-cycle, then
	 * indices become addresses.  A 256 MiB buffer needs no 32 MiB more. */
	for (size_t i = 0; i < lines; i++)
		*(uintptr_t *)(base + i * stride) = i;
	gf_rand_seed(&r, seed);
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = (size_t)gf_rand_below(&r, i);	/* j < i: Sattolo, not Fisher-Yates */
		uintptr_t *a = (uintptr_t *)(base + i * stride), *b = (uintptr_t *)(base + j * stride);
		uintptr_t t = *a;
		*a = *b;
		*b = t;
	}
	for (size_t i = 0; i < lines; i++) {
		uintptr_t *p = (uintptr_t *)(base + i * stride);
		*p = (uintptr_t)(base + *p * stride);
	}
	return lines;
}

void *gf_mem_chain_walk(void *start, uint64_t loads)
{
	void *volatile *p = start;

	/* Eight loads per turn keep the loop's own cost out of the figure. */
	while (loads >= 8) {
		p = (void *volatile *)*p; p = (void *volatile *)*p;
		p = (void *volatile *)*p; p = (void *volatile *)*p;
		p = (void *volatile *)*p; p = (void *volatile *)*p;
		p = (void *volatile *)*p; p = (void *volatile *)*p;
		loads -= 8;
	}
	while (loads--)
		p = (void *volatile *)*p;
	return (void *)p;
}
