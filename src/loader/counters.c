/* The counters a caller (or the monitor) reads at any time: atomics
 * written by the threads and the consumer, read without the loader's lock. */
#include <errno.h>
#include <time.h>

#include "core/error.h"
#include "loader/loader_internal.h"

uint64_t gf_loader_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void gf_loader_count(_Atomic uint64_t *c, uint64_t v)
{
	atomic_fetch_add_explicit(c, v, memory_order_relaxed);
}

static uint64_t get(const _Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

int gf_loader_counters(const struct gf_loader *l, struct gf_loader_counters *out)
{
	if (!l || !out)
		return GF_NULL_ARG(!l ? "l" : "out");
	*out = (struct gf_loader_counters){
		.wait_ns = get(&l->c_wait_ns),
		.next_calls = get(&l->c_next_calls),
		.bytes_read = get(&l->c_bytes_read),
		.samples_delivered = get(&l->c_samples),
		.batches_delivered = get(&l->c_batches),
		.batches_ready = atomic_load_explicit(&l->c_ready, memory_order_relaxed),
		.slots_in_use = atomic_load_explicit(&l->c_in_use, memory_order_relaxed),
		.slots = l->nslots,
		.read_ns = get(&l->c_read_ns),
		.copy_ns = get(&l->c_copy_ns),
	};
	return 0;
}
