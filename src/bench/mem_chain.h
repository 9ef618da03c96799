/* The pointer chain of the idle-latency test: every line (stride bytes)
 * of a buffer holds the address of the next line to load, in a random
 * order that visits each line exactly once before it comes back (one
 * cycle, Sattolo's algorithm).  Each load depends on the one before, so
 * the time per load is the memory's latency; the random order defeats the
 * hardware prefetchers, which follow strides, not permutations. */
#ifndef GF_BENCH_MEM_CHAIN_H
#define GF_BENCH_MEM_CHAIN_H

#include <stddef.h>
#include <stdint.h>

/* Builds the chain over the first lines = len / stride lines of buf (stride
 * a multiple of sizeof(void *), lines >= 2) from seed.  Returns lines, or 0
 * when len holds fewer than 2 lines or stride is unusable. */
size_t gf_mem_chain_build(void *buf, size_t len, size_t stride, uint64_t seed);

/* Follows the chain from start for loads loads; returns where it stopped
 * (the caller keeps it, so the loads cannot be optimised away). */
void *gf_mem_chain_walk(void *start, uint64_t loads);

#endif
