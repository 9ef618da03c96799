/* Seeded pseudo-random numbers for shuffles that must come out the same on
 * every machine: splitmix64 to turn a key into a stream's seed, xoshiro256**
 * for the stream, Lemire's method for unbiased draws below a bound.
 *
 * splitmix64 and xoshiro256** are Vigna's public-domain generators
 * (https://prng.di.unimi.it/, "xoshiro / xoroshiro generators and the PRNG
 * shootout"); the bounded draw is D. Lemire, "Fast Random Integer
 * Generation in an Interval", ACM TOMACS 29(1), 2019. */
#ifndef GF_CORE_RAND_H
#define GF_CORE_RAND_H

#include <stdint.h>

/* splitmix64's output for state x: a bijective 64-bit mix, so distinct keys
 * give distinct seeds. */
static inline uint64_t gf_rand_mix(uint64_t x)
{
	uint64_t z = x + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* One xoshiro256** stream. */
struct gf_rand {
	uint64_t s[4];
};

/* Seeds the stream from a 64-bit key the way its authors advise: four
 * successive splitmix64 outputs from state key (never all zero). */
static inline void gf_rand_seed(struct gf_rand *r, uint64_t key)
{
	for (int i = 0; i < 4; i++) {
		r->s[i] = gf_rand_mix(key);
		key += 0x9e3779b97f4a7c15ull;
	}
}

static inline uint64_t gf_rand_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t gf_rand_next(struct gf_rand *r)
{
	uint64_t *s = r->s;
	uint64_t out = gf_rand_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = gf_rand_rotl(s[3], 45);
	return out;
}

/* Uniform in [0, n), n > 0, without modulo bias: the high half of x * n,
 * drawing again in the rare case the low half falls in the biased part. */
static inline uint64_t gf_rand_below(struct gf_rand *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)gf_rand_next(r) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t threshold = (0 - n) % n;

		while (lo < threshold) {
			m = (unsigned __int128)gf_rand_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

#endif
