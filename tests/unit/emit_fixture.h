/* Shared by the config writer tests (test_emit_*.c): a fixture's model and
 * one writer's output as a string. */
#ifndef GF_TEST_EMIT_FIXTURE_H
#define GF_TEST_EMIT_FIXTURE_H

#include <gpufeed/gpufeed.h>
#include "helpers.h"

typedef int efx_writer(const struct gf_topo *t, const struct gf_emit_options *o, FILE *f);

/* The model of tests/fixtures/machines/NAME (locality: --pci-locality). */
struct gf_topo *efx_load(const char *machine, const char *locality);
/* What `write` writes for it (o NULL: the defaults);
 * *ret gets the writer's return.  Free the string. */
char *efx_run(efx_writer *write, const struct gf_topo *t, struct gf_emit_options *o, int *ret);
/* The text after "key: " or "key=" on the first line that starts with it
 * (leading spaces skipped), up to the end of the line; NULL absent. */
char *efx_value(const char *text, const char *key);
/* Number of occurrences of needle. */
int efx_count(const char *text, const char *needle);

#endif
