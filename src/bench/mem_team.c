/* `bench mem`'s kernels and the team of pinned threads that runs them.
 *
 * Kernels are written with SSE2 intrinsics on x86-64 (every x86-64 has
 * them) so that the compiler cannot turn a store or copy loop into a call
 * to memset or memcpy, whose large-size paths switch to non-temporal
 * stores by themselves: the write and copy figures would then measure
 * glibc's choice, not the one asked for. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "bench/mem_bench.h"
#include "bench/mem_chain.h"
#include "core/error.h"

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define HAVE_SSE2 1
#else
#define HAVE_SSE2 0
#endif

bool gf_mem_have_nt(void)
{
	return HAVE_SSE2;
}

static uint64_t k_read(const char *p, size_t len)
{
#if HAVE_SSE2
	__m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;

	for (size_t i = 0; i + 64 <= len; i += 64) {
		s0 = _mm_xor_si128(s0, _mm_load_si128((const __m128i *)(p + i)));
		s1 = _mm_xor_si128(s1, _mm_load_si128((const __m128i *)(p + i + 16)));
		s2 = _mm_xor_si128(s2, _mm_load_si128((const __m128i *)(p + i + 32)));
		s3 = _mm_xor_si128(s3, _mm_load_si128((const __m128i *)(p + i + 48)));
	}
	s0 = _mm_xor_si128(_mm_xor_si128(s0, s1), _mm_xor_si128(s2, s3));
	return (uint64_t)_mm_cvtsi128_si64(s0) ^ (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(s0, s0));
#else
	const uint64_t *q = (const uint64_t *)p;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;

	for (size_t i = 0; i + 4 <= len / 8; i += 4) {
		s0 ^= q[i];
		s1 ^= q[i + 1];
		s2 ^= q[i + 2];
		s3 ^= q[i + 3];
	}
	return s0 ^ s1 ^ s2 ^ s3;
#endif
}

#if HAVE_SSE2
/* One 64-byte line: four 16-byte stores, non-temporal or not. */
static inline void store_line(char *p, __m128i a, __m128i b, __m128i c, __m128i d, bool nt)
{
	if (nt) {
		_mm_stream_si128((__m128i *)p, a);
		_mm_stream_si128((__m128i *)(p + 16), b);
		_mm_stream_si128((__m128i *)(p + 32), c);
		_mm_stream_si128((__m128i *)(p + 48), d);
	} else {
		_mm_store_si128((__m128i *)p, a);
		_mm_store_si128((__m128i *)(p + 16), b);
		_mm_store_si128((__m128i *)(p + 32), c);
		_mm_store_si128((__m128i *)(p + 48), d);
	}
}
#endif

static void k_write(char *p, size_t len, uint64_t v, bool nt)
{
#if HAVE_SSE2
	__m128i x = _mm_set1_epi64x((long long)v);

	for (size_t i = 0; i + 64 <= len; i += 64)
		store_line(p + i, x, x, x, x, nt);
	if (nt)
		_mm_sfence();
#else
	/* i ^ v: not a constant, so never a memset. */
	uint64_t *q = (uint64_t *)p;

	(void)nt;
	for (size_t i = 0; i < len / 8; i++)
		q[i] = i ^ v;
#endif
}

static void k_copy(char *d, const char *s, size_t len, bool nt)
{
#if HAVE_SSE2
	for (size_t i = 0; i + 64 <= len; i += 64) {
		__m128i a = _mm_load_si128((const __m128i *)(s + i));
		__m128i b = _mm_load_si128((const __m128i *)(s + i + 16));
		__m128i c = _mm_load_si128((const __m128i *)(s + i + 32));
		__m128i e = _mm_load_si128((const __m128i *)(s + i + 48));
		store_line(d + i, a, b, c, e, nt);
	}
	if (nt)
		_mm_sfence();
#else
	/* ^ i: not a plain copy, so never a memcpy. */
	uint64_t *q = (uint64_t *)d;
	const uint64_t *r = (const uint64_t *)s;

	(void)nt;
	for (size_t i = 0; i < len / 8; i++)
		q[i] = r[i] ^ i;
#endif
}

/* The start line: workers pin themselves and wait; the caller lets them go
 * once all are ready, or calls it off when one could not be started. */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned ready;
	int state;			/* 0 wait, 1 go, -1 called off */
};

struct worker {
	pthread_t th;
	struct gate *gate;
	int cpu;
	enum gf_mem_kind kind;
	char *src, *dst;		/* dst: write and copy */
	size_t len;
	uint64_t work;			/* loads or passes */
	bool nt;
	void *pos;
	uint64_t sink;
	double t0, t1;
	int err;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((unsigned)w->cpu, &set);
	struct gate *g = w->gate;
	int state;

	w->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_mutex_lock(&g->mu);
	g->ready++;
	pthread_cond_broadcast(&g->cv);
	while (!g->state)
		pthread_cond_wait(&g->cv, &g->mu);
	state = g->state;
	pthread_mutex_unlock(&g->mu);
	if (w->err || state < 0)
		return NULL;
	w->t0 = gf_bench_now();
	switch (w->kind) {
	case GF_MEM_LATENCY:
		w->pos = gf_mem_chain_walk(w->pos, w->work);
		break;
	case GF_MEM_READ:
		for (uint64_t k = 0; k < w->work; k++)
			w->sink ^= k_read(w->src, w->len);
		break;
	case GF_MEM_WRITE:
		for (uint64_t k = 0; k < w->work; k++)
			k_write(w->dst, w->len, k, w->nt);
		break;
	default:
		for (uint64_t k = 0; k < w->work; k++)
			k_copy(w->dst, w->src, w->len, w->nt);
		break;
	}
	w->t1 = gf_bench_now();
	return NULL;
}

/* The k-th CPU of set, round robin (more threads than CPUs share them). */
static int nth_cpu(const struct gf_cpuset *set, unsigned k)
{
	unsigned n = gf_cpuset_count(set), i = 0;
	int c;

	if (!n)
		return -1;
	k %= n;
	for (c = gf_cpuset_first(set); c >= 0; c = gf_cpuset_next(set, c))
		if (i++ == k)
			break;
	return c;
}

static int run_team(struct worker *w, unsigned n)
{
	struct gate g = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
	unsigned started = 0;
	int rc = 0;

	for (unsigned i = 0; i < n; i++) {
		w[i].gate = &g;
		if ((rc = pthread_create(&w[i].th, NULL, work, &w[i])))
			break;
		started++;
	}
	pthread_mutex_lock(&g.mu);
	while (!rc && g.ready < n)
		pthread_cond_wait(&g.cv, &g.mu);
	g.state = rc ? -1 : 1;
	pthread_cond_broadcast(&g.cv);
	pthread_mutex_unlock(&g.mu);
	for (unsigned i = 0; i < started; i++)
		pthread_join(w[i].th, NULL);
	pthread_cond_destroy(&g.cv);
	pthread_mutex_destroy(&g.mu);
	if (rc)
		return gf_error(-rc, "bench mem: starting thread %u of %u: %s", started + 1, n, strerror(rc));
	for (unsigned i = 0; i < n; i++)
		if (w[i].err)
			return gf_error(-w[i].err, "bench mem: pinning a thread to CPU %d: %s", w[i].cpu,
					strerror(w[i].err));
	return 0;
}

int gf_mem_team_run(struct gf_bench_mem *m, const struct gf_mem_pair *pr, struct gf_mem_point *pt, double *value)
{
	unsigned n = pt->kind == GF_MEM_LATENCY ? 1 : pr->threads;
	size_t slice = (m->a->size / n) & ~(size_t)63;
	struct worker *w = calloc(n, sizeof(*w));
	double t0 = 0, t1 = 0, bytes = 0;
	volatile uint64_t sink = 0;
	int rc;

	if (!w)
		return gf_error(-ENOMEM, "bench mem: out of memory");
	if (!slice) {
		free(w);
		return gf_error(-EINVAL, "bench mem: %zu bytes cannot be split between %u threads", m->a->size, n);
	}
	for (unsigned i = 0; i < n; i++) {
		char *a = (char *)m->a->data + i * slice, *b = m->b ? (char *)m->b->data + i * slice : NULL;

		w[i].cpu = pt->kind == GF_MEM_LATENCY ? pr->lat_cpu : nth_cpu(&pr->cpus, i);
		w[i].kind = pt->kind;
		w[i].work = pt->work;
		w[i].nt = m->o.nt;
		w[i].len = slice;
		w[i].pos = pt->pos;
		/* copy reads a and writes b; write writes a. */
		w[i].src = a;
		w[i].dst = pt->kind == GF_MEM_COPY ? b : a;
	}
	rc = run_team(w, n);
	if (!rc) {
		t0 = w[0].t0;
		t1 = w[0].t1;
		for (unsigned i = 0; i < n; i++) {
			t0 = w[i].t0 < t0 ? w[i].t0 : t0;
			t1 = w[i].t1 > t1 ? w[i].t1 : t1;
			sink ^= w[i].sink;
			/* copy: bytes read + bytes written, as STREAM counts. */
			bytes += (double)w[i].len * (double)w[i].work * (pt->kind == GF_MEM_COPY ? 2 : 1);
		}
		if (pt->kind == GF_MEM_LATENCY) {
			pt->pos = w[0].pos;
			*value = (t1 - t0) * 1e9 / (double)pt->work;
		} else {
			*value = t1 > t0 ? bytes / (t1 - t0) / 1e9 : 0;
		}
	}
	(void)sink;
	free(w);
	return rc;
}
