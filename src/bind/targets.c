/* "0,GPU-8f1c...,0000:3b:00.0,MIG-...,1:2:0" -> binding targets. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bind/bind_internal.h"
#include "core/error.h"
#include "core/strutil.h"

/* "G:GI:CI" with three decimal fields; a PCI address has hex and a dot. */
static bool mig_triple(const char *s, long long v[3])
{
	char buf[64], *save = NULL, *f;
	int n = 0;

	if (gf_strlcpy(buf, s, sizeof(buf)) >= sizeof(buf) || strchr(s, '.'))
		return false;
	for (f = strtok_r(buf, ":", &save); f; f = strtok_r(NULL, ":", &save))
		if (n == 3 || gf_parse_ll(f, &v[n++]) || v[n - 1] < 0)
			return false;
	return n == 3 && s[strlen(s) - 1] != ':';
}

static int find_mig_uuid(const struct gf_topo *t, const char *spec, struct gf_bind_target *out)
{
	int found = 0;

	for (int g = 0; g < t->ngpus; g++)
		for (int m = 0; m < t->gpus[g].nmig; m++) {
			const char *u = t->gpus[g].mig[m].uuid;

			if (!*u || strncasecmp(u, spec, strlen(spec)))
				continue;
			if (strlen(u) == strlen(spec)) {
				*out = (struct gf_bind_target){ g, m };
				return 0;
			}
			if (found++)
				return gf_error(-EINVAL, "MIG UUID prefix '%s' names more than one instance", spec);
			*out = (struct gf_bind_target){ g, m };
		}
	if (found)
		return 0;
	return gf_error(-ENOENT, "no MIG instance with UUID '%s' here%s", spec,
			t->machine.nvml ? "" : " (MIG instances come from NVML, which was not used)");
}

static int find_mig_triple(const struct gf_topo *t, const char *spec, const long long v[3],
			   struct gf_bind_target *out)
{
	char idx[24];
	int g;

	snprintf(idx, sizeof(idx), "%lld", v[0]);
	if ((g = gf_topo_find_gpu(t, idx)) < 0)
		return g;
	for (int m = 0; m < t->gpus[g].nmig; m++)
		if (t->gpus[g].mig[m].gpu_instance == v[1] && t->gpus[g].mig[m].compute_instance == v[2]) {
			*out = (struct gf_bind_target){ g, m };
			return 0;
		}
	return gf_error(-ENOENT, "'%s': GPU %lld has no MIG instance GI %lld CI %lld (%d instance%s%s)", spec,
			v[0], v[1], v[2], t->gpus[g].nmig, t->gpus[g].nmig == 1 ? "" : "s",
			t->machine.nvml ? "" : "; MIG instances come from NVML, which was not used");
}

static int parse_one(const struct gf_topo *t, const char *spec, struct gf_bind_target *out)
{
	long long v[3];
	int g;

	if (!strncasecmp(spec, "MIG-", 4))
		return find_mig_uuid(t, spec, out);
	if (mig_triple(spec, v))
		return find_mig_triple(t, spec, v, out);
	if ((g = gf_topo_find_gpu(t, spec)) < 0)
		return g;
	*out = (struct gf_bind_target){ g, -1 };
	return 0;
}

GF_API int gf_bind_parse_targets(const struct gf_topo *t, const char *list, struct gf_bind_target *out, int max)
{
	char *copy, *rest;
	int n = 0, ret = 0;

	if (!t || !list || !out)
		return GF_NULL_ARG(!t ? "t" : !list ? "list" : "out");
	if (max <= 0)
		return gf_arg_error(__func__, "max %d leaves no room", max);
	if (!*list)
		return gf_error(-EINVAL, "empty GPU list");
	if (!(copy = strdup(list)))
		return gf_error(-ENOMEM, "out of memory");
	rest = copy;
	/* strsep, not strtok: "0,,1" has an empty entry to refuse. */
	for (char *e = strsep(&rest, ","); e && !ret; e = strsep(&rest, ",")) {
		struct gf_bind_target tg;
		char why[400];

		e = gf_strip(e);
		if (!*e) {
			ret = gf_error(-EINVAL, "GPU list '%s': an empty entry", list);
		} else if (n == max) {
			ret = gf_error(-E2BIG, "GPU list '%s': more than %d entries", list, max);
		} else if ((ret = parse_one(t, e, &tg)) < 0) {
			gf_strlcpy(why, gf_last_error(), sizeof(why));
			gf_error(ret, "GPU list entry '%s': %s", e, why);
		} else {
			for (int i = 0; i < n && !ret; i++)
				if (out[i].gpu == tg.gpu && out[i].mig == tg.mig)
					ret = gf_error(-EINVAL, "GPU list entry '%s': names a GPU already listed", e);
			out[n++] = tg;
		}
	}
	free(copy);
	if (!ret && !n)
		return gf_error(-EINVAL, "GPU list '%s' names no GPU", list);
	return ret ? ret : n;
}
