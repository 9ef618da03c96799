/* The flattened catalogue, private to src/audit. */
#ifndef GF_AUDIT_CATALOG_H
#define GF_AUDIT_CATALOG_H

#include "audit/audit_internal.h"

int gf_check_def_count(void);
const struct gf_check_def *gf_check_def_at(int i);
/* The check with this id (NULL when none has it; with a message when id
 * is NULL). */
const struct gf_check_info *gf_check_find(const char *id);
/* "Memory and OS" for "memory". */
const char *gf_check_category_title(const char *category);

#endif
