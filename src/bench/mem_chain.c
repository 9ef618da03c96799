/* The latency test's pointer chain (see mem_chain.h). */
#include "bench/mem_chain.h"

/* splitmix64: a full-period generator, good enough to shuffle with. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Unbiased draw from [0, n) (Lemire's multiply-shift with rejection). */
static size_t below(uint64_t *s, size_t n)
{
	uint64_t x = next_rand(s);
	unsigned __int128 m = (unsigned __int128)x * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t t = (0 - (uint64_t)n) % n;
		while (lo < t) {
			x = next_rand(s);
			m = (unsigned __int128)x * n;
			lo = (uint64_t)m;
		}
	}
	return (size_t)(m >> 64);
}

size_t gf_mem_chain_build(void *buf, size_t len, size_t stride, uint64_t seed)
{
	char *base = buf;
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
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = below(&seed, i);	/* j < i: Sattolo, not Fisher-Yates */
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
