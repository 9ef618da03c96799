#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pciaddr.h"

bool gf_hex_field(const char **p, unsigned maxdigits, unsigned *out)
{
	unsigned v = 0, n = 0;

	while (isxdigit((unsigned char)**p) && n < maxdigits) {
		char c = (char)tolower((unsigned char)**p);

		v = v * 16 + (unsigned)(isdigit((unsigned char)c) ? c - '0' : c - 'a' + 10);
		(*p)++;
		n++;
	}
	*out = v;
	return n > 0 && !isxdigit((unsigned char)**p);
}

bool gf_pciaddr_parse(const char *s, struct gf_pciaddr *a)
{
	const char *p = s;
	unsigned f1, f2;

	memset(a, 0, sizeof(*a));
	if (!gf_hex_field(&p, 8, &f1) || *p++ != ':')
		return false;
	if (!gf_hex_field(&p, 2, &f2))
		return false;
	if (*p == ':') {		/* domain:bus:dev.fn */
		p++;
		a->domain = f1;
		a->bus = f2;
		if (!gf_hex_field(&p, 2, &a->dev))
			return false;
	} else {			/* bus:dev.fn */
		if (f1 > 0xff)
			return false;
		a->bus = f1;
		a->dev = f2;
	}
	if (*p++ != '.' || !gf_hex_field(&p, 1, &a->fn) || *p)
		return false;
	return a->bus <= 0xff && a->dev <= 0x1f && a->fn <= 7;
}

void gf_pciaddr_format(const struct gf_pciaddr *a, char *buf, size_t size)
{
	snprintf(buf, size, "%04x:%02x:%02x.%x", a->domain, a->bus, a->dev, a->fn);
}

bool gf_pci_normalize(const char *s, char *out, size_t size)
{
	struct gf_pciaddr a;

	if (!gf_pciaddr_parse(s, &a)) {
		if (size)
			out[0] = '\0';
		return false;
	}
	gf_pciaddr_format(&a, out, size);
	return true;
}

int gf_pciaddr_cmp(const struct gf_pciaddr *a, const struct gf_pciaddr *b)
{
	if (a->domain != b->domain)
		return a->domain < b->domain ? -1 : 1;
	if (a->bus != b->bus)
		return a->bus < b->bus ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	return 0;
}
