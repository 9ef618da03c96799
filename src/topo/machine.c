/* Machine summary: host name, kernel, DMI, memory, NVIDIA driver. */
#include <ctype.h>
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
		long long kb;

		/* "MemTotal:       25276510 kB" */
		if (gf_kv_find(text, "MemTotal", buf, sizeof(buf)) && sscanf(buf, "%lld kB", &kb) == 1 && kb > 0)
			m->memory_bytes = (unsigned long long)kb * 1024;
		else
			gf_warn(c, "%s/proc/meminfo: no MemTotal line", c->fs.root);
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
