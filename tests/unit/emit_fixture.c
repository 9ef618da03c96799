/* Shared by the config writer tests (emit_fixture.h). */
#include "emit_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gf_topo *efx_load(const char *machine, const char *locality)
{
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t = NULL;

	o.root = t_fixture_root(machine);
	o.pci_locality = locality;
	if (gf_topo_discover(&o, &t))
		fail_msg("%s: %s", machine, gf_last_error());
	return t;
}

char *efx_run(efx_writer *write, const struct gf_topo *t, struct gf_emit_options *o, int *ret)
{
	struct gf_emit_options def = GF_EMIT_OPTS_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (!o)
		o = &def;
	*ret = write(t, o, f);
	fclose(f);
	return buf;
}

char *efx_value(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		while (*line == ' ')
			line++;
		if (!strncmp(line, key, n) && (line[n] == ':' || line[n] == '=')) {
			const char *v = line + n + 1;

			while (*v == ' ')
				v++;
			return strndup(v, strcspn(v, "\n"));
		}
	}
	return NULL;
}

int efx_count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}
