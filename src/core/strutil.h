/* Small string helpers. */
#ifndef GF_CORE_STRUTIL_H
#define GF_CORE_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>

char *gf_rstrip(char *s);
char *gf_lstrip(char *s);
static inline char *gf_strip(char *s) { return gf_lstrip(gf_rstrip(s)); }
/* Copies at most size-1 bytes, always terminates; returns strlen(src). */
size_t gf_strlcpy(char *dst, const char *src, size_t size);
bool gf_starts_with(const char *s, const char *prefix);
/* Whole string is one integer (decimal or 0x-hex, optional sign). */
int gf_parse_ll(const char *s, long long *v);
/* In "Key:<spaces>value" text (procfs, /proc/driver/nvidia), the trimmed
 * value of the first line whose key is `key`; false if none. */
bool gf_kv_find(const char *text, const char *key, char *out, size_t size);

#endif
