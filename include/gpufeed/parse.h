/* Strict parsing of the numbers a user types: sizes, counts, durations.
 * One implementation for the CLI, the library and bindings, so "--size ' -1'"
 * means the same (an error) everywhere.
 *
 * All three take the whole string: no sign, no leading or trailing
 * whitespace, no junk after the number.  They return 0, or -EINVAL (not a
 * number of that kind) / -ERANGE (too large, or outside the bounds) with a
 * message naming the input in gf_last_error(); *v is left alone on error. */
#ifndef GPUFEED_PARSE_H
#define GPUFEED_PARSE_H

#include <stdint.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes: digits, then an optional unit, case-insensitive: B; K, M, G, T and
 * KiB, MiB, GiB, TiB (powers of 2); KB, MB, GB, TB (powers of 10).
 * "4K", "1MiB", "16m", "4096".  Overflow of 64 bits is -ERANGE. */
GF_API int gf_parse_size(const char *s, uint64_t *v);

/* A whole number in [lo, hi]: digits only. */
GF_API int gf_parse_count(const char *s, uint64_t lo, uint64_t hi, uint64_t *v);

/* Seconds: a decimal number ("2", "0.25", ".5") and an optional unit:
 * s, ms, us, m (minutes), h.  "2s", "500ms", "1m", "1.5".  No exponent, no
 * nan or inf.  At most GF_DURATION_MAX seconds; 0 is valid here (callers
 * that need more than 0 say so). */
#define GF_DURATION_MAX 31536000.0	/* one year */
GF_API int gf_parse_duration(const char *s, double *seconds);

#ifdef __cplusplus
}
#endif
#endif
