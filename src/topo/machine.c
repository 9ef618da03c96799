/* Machine summary: host name, kernel, DMI, memory, NVIDIA driver. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "topo/topo_internal.h"

/* First token of the first line that looks like a version ("580.159.04"). */
static void driver_version_from_proc(const char *text, char *out, size_t size)
{
	char line[512];
	const char *nl = strchr(text, '\n');
	size_t len = nl ? (size_t)(nl - text) : strlen(text);
	char *save = NULL;

	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	memcpy(line, text, len);
	line[len] = '\0';
	for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		int dots = 0;
		bool ok = isdigit((unsigned char)tok[0]);

		for (char *p = tok; *p && ok; p++) {
			if (*p == '.')
				dots++;
			else if (!isdigit((unsigned char)*p))
				ok = false;
		}
		if (ok && dots >= 1) {
			gf_strlcpy(out, tok, size);
			return;
		}
	}
}

bool gf_meminfo_bytes(const char *value, unsigned long long *bytes)
{
	char buf[64];
	size_t n = strcspn(value, "\n");
	long long kb;

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, value, n);
	buf[n] = '\0';
	gf_rstrip(buf);
	n = strlen(buf);
	if (n < 3 || strcmp(buf + n - 3, " kB"))
		return false;
	buf[n - 3] = '\0';
	/* JSON carries it as a signed 64-bit integer. */
	if (gf_parse_ll(gf_strip(buf), &kb) || kb <= 0 || kb > LLONG_MAX / 1024)
		return false;
	*bytes = (unsigned long long)kb * 1024;
	return true;
}

int gf_discover_machine(struct gf_ctx *c)
{
	struct gf_machine *m = &c->t->machine;
	char *text;
	char buf[64];

	gf_read_opt_str(c, "/proc/sys/kernel/hostname", m->hostname, sizeof(m->hostname));
	gf_read_opt_str(c, "/proc/sys/kernel/osrelease", m->kernel, sizeof(m->kernel));
	gf_read_opt_str(c, "/sys/class/dmi/id/sys_vendor", m->vendor, sizeof(m->vendor));
	gf_read_opt_str(c, "/sys/class/dmi/id/product_name", m->product, sizeof(m->product));
	if (gf_read_opt(c, "/proc/meminfo", &text, NULL) == 0) {
		/* "MemTotal:       25276510 kB" */
		if (!gf_kv_find(text, "MemTotal", buf, sizeof(buf)))
			gf_warn(c, "%s/proc/meminfo: no MemTotal line", c->fs.root);
		else if (!gf_meminfo_bytes(buf, &m->memory_bytes))
			gf_warn(c, "%s/proc/meminfo: MemTotal: '%s' is not a size in kB: memory unknown", c->fs.root,
				buf);
		free(text);
	}
	if (c->facts) {
		gf_strlcpy(m->driver_version, c->facts->driver_version, sizeof(m->driver_version));
		m->cuda_driver_version = c->facts->cuda_driver_version;
	}
	if (!m->driver_version[0] && gf_read_opt(c, "/proc/driver/nvidia/version", &text, NULL) == 0) {
		driver_version_from_proc(text, m->driver_version, sizeof(m->driver_version));
		free(text);
	}
	return 0;
}
