/* CPU (and NUMA node) sets: a fixed-size bitmap with the kernel's list and
 * mask text formats ("0-31,64-95", "ffffffff,00000000"). */
#ifndef GPUFEED_CPUSET_H
#define GPUFEED_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Linux's largest x86 NR_CPUS; larger ids are rejected with -ERANGE. */
#define GF_CPUSET_MAX 8192

struct gf_cpuset {
	uint64_t w[GF_CPUSET_MAX / 64];
};

/* Empty the set; add or remove one CPU (a cpu at or past GF_CPUSET_MAX, or
 * a NULL set, changes nothing). */
GF_API void gf_cpuset_zero(struct gf_cpuset *s);
GF_API void gf_cpuset_set(struct gf_cpuset *s, unsigned cpu);
GF_API void gf_cpuset_clear(struct gf_cpuset *s, unsigned cpu);
/* Membership, the number of members, no members, the same members.  A NULL
 * set answers false (and count 0): it is no set, so not an empty one. */
GF_API bool gf_cpuset_isset(const struct gf_cpuset *s, unsigned cpu);
GF_API unsigned gf_cpuset_count(const struct gf_cpuset *s);
GF_API bool gf_cpuset_empty(const struct gf_cpuset *s);
GF_API bool gf_cpuset_equal(const struct gf_cpuset *a, const struct gf_cpuset *b);
/* dst = a & b, a | b, a & ~b (dst may alias a or b; a NULL anywhere leaves
 * dst as it was). */
GF_API void gf_cpuset_and(struct gf_cpuset *dst, const struct gf_cpuset *a, const struct gf_cpuset *b);
GF_API void gf_cpuset_or(struct gf_cpuset *dst, const struct gf_cpuset *a, const struct gf_cpuset *b);
GF_API void gf_cpuset_andnot(struct gf_cpuset *dst, const struct gf_cpuset *a, const struct gf_cpuset *b);
/* First member, or next member after prev (a negative prev: the first);
 * -1 when there is none or s is NULL. */
GF_API int gf_cpuset_first(const struct gf_cpuset *s);
GF_API int gf_cpuset_next(const struct gf_cpuset *s, int prev);
/* "0-3,8,10-11" (whitespace around is ignored; "" is the empty set): 0,
 * -EINVAL (not a list, or s or text NULL) or -ERANGE (an id past
 * GF_CPUSET_MAX). */
GF_API int gf_cpuset_parse_list(struct gf_cpuset *s, const char *text);
/* Kernel hex mask "00000000,ffffffff" (32-bit words, most significant first). */
GF_API int gf_cpuset_parse_mask(struct gf_cpuset *s, const char *text);
/* Writes the list form; returns the length it needs (like snprintf: buf
 * NULL or size 0 writes nothing).  A NULL set is the empty list. */
GF_API size_t gf_cpuset_format_list(const struct gf_cpuset *s, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
