/* PCI addresses ("domain:bus:device.function"). */
#ifndef GF_CORE_PCIADDR_H
#define GF_CORE_PCIADDR_H

#include <stdbool.h>
#include <stddef.h>

struct gf_pciaddr {
	unsigned domain, bus, dev, fn;
};

/* Accepts "0000:18:00.0", NVML's "00000000:18:00.0" and the short
 * "18:00.0" (domain 0); hex, either case. */
bool gf_pciaddr_parse(const char *s, struct gf_pciaddr *a);
/* Canonical sysfs form "0000:18:00.0". */
void gf_pciaddr_format(const struct gf_pciaddr *a, char *buf, size_t size);
/* parse + format; false (and "" in out) when s is not a PCI address. */
bool gf_pci_normalize(const char *s, char *out, size_t size);
/* Up to maxdigits hex digits at *p (advanced); false when there are none or
 * more follow. */
bool gf_hex_field(const char **p, unsigned maxdigits, unsigned *out);
int gf_pciaddr_cmp(const struct gf_pciaddr *a, const struct gf_pciaddr *b);

#endif
