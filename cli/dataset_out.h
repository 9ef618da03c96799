/* What pack and inspect print in common: byte counts for people, and JSON
 * strings (paths and names can hold any byte). */
#ifndef GF_CLI_DATASET_OUT_H
#define GF_CLI_DATASET_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "4.0 KiB", "1.5 GiB", "17 B". */
const char *gf_cli_bytes(uint64_t v, char *buf, size_t size);
/* s as a JSON string, quotes included: control bytes escaped, UTF-8 kept,
 * any other byte U+FFFD, so the output parses whatever the name holds. */
void gf_cli_json_str(FILE *f, const char *s, size_t len);

#endif
