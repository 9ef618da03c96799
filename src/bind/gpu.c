/* gf_bind_gpu: the whole binding in one call, for a worker re-asserting it
 * after fork or spawn. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bind/bind_internal.h"
#include "core/error.h"

/* NVML is asked only for MIG instances (only it knows them): sysfs and
 * /proc/driver/nvidia give the index, UUID, node and CPUs of whole GPUs,
 * and loading NVML costs a worker tens of milliseconds. */
static enum gf_nvml_mode nvml_for(const char *list)
{
	return strstr(list, "MIG-") || strstr(list, "mig-") || (strchr(list, ':') && !strchr(list, '.')) ?
		       GF_NVML_AUTO : GF_NVML_OFF;
}

GF_API int gf_bind_gpu(const char *list, const struct gf_topo_options *machine, const struct gf_bind_options *opts)
{
	struct gf_topo_options to = GF_TOPO_OPTS_INIT;
	struct gf_bind_target tg[GF_BIND_MAX_TARGETS];
	struct gf_bind_options o;
	struct gf_binding *b = NULL;
	struct gf_topo *t = NULL;
	int n, ret;

	if (!list)
		return GF_NULL_ARG("list");
	/* Refused before the machine is read: a worker's start-up pays for
	 * discovery only with options that can be used. */
	if ((ret = gf_bind_opts_load(opts, __func__, &o)))
		return ret;
	to.nvml = nvml_for(list);
	if ((ret = gf_topo_discover(machine ? machine : &to, &t)))
		return ret;
	if (!t->ngpus) {
		ret = gf_error(-ENODEV, "no NVIDIA GPU in %s: nothing to bind to", t->machine.source);
	} else if ((n = gf_bind_parse_targets(t, list, tg, GF_BIND_MAX_TARGETS)) < 0) {
		ret = n;
	} else if (!(b = malloc(sizeof(*b)))) {
		ret = gf_error(-ENOMEM, "out of memory");
	} else if (!(ret = gf_bind_compute(t, tg, n, opts, b)) && (ret = gf_bind_apply(b, opts)) >= 0) {
		int warned = ret;

		ret = gf_bind_setenv(b, 0);
		if (!ret)
			ret = warned;
	}
	free(b);
	gf_topo_free(t);
	return ret;
}
