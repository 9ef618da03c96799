/* Private to src/audit: the kernel command line (/proc/cmdline) as the
 * memory and CPU checks read it. */
#ifndef GF_AUDIT_CMDLINE_H
#define GF_AUDIT_CMDLINE_H

#include <stddef.h>

struct gf_audit_ctx;

/* The value of `key` on the kernel command line ("" for a bare flag).  The
 * last occurrence wins, as it does for the kernel; arguments after " -- "
 * belong to init and are ignored.  1 found, 0 not there, -errno when
 * /proc/cmdline cannot be read. */
int audit_cmdline_param(struct gf_audit_ctx *c, const char *key, char *val, size_t size);

#endif
