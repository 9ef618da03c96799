/* A binding in words (gpufeed run -v / --dry-run) and as JSON
 * (docs/json-run.md). */
#include <errno.h>
#include <stdio.h>

#include <jansson.h>

#include "bind/bind_internal.h"
#include "core/error.h"
#include "core/json_stamp.h"
#include "topo/render.h"

static void target_name(const struct gf_topo *t, const struct gf_bind_target *tg, char *buf, size_t size)
{
	const struct gf_gpu *g = &t->gpus[tg->gpu];

	if (tg->mig >= 0)
		snprintf(buf, size, "GPU %d MIG GI %d CI %d (%s)", g->index, g->mig[tg->mig].gpu_instance,
			 g->mig[tg->mig].compute_instance, g->mig[tg->mig].uuid);
	else
		snprintf(buf, size, "GPU %d (%s%s%s)", g->index, g->bdf, g->uuid[0] ? ", " : "", g->uuid);
}

GF_API int gf_bind_print(const struct gf_topo *t, const struct gf_binding *b, unsigned env_flags, FILE *f)
{
	struct gf_bind_env env[GF_BIND_NENV];
	char buf[512];
	int n, ret;

	if (!t || !b || !f)
		return GF_NULL_ARG(!t ? "t" : !b ? "b" : "f");
	if ((ret = gf_bind_binding_check(t, b, __func__)))
		return ret;
	for (int i = 0; i < b->ntargets; i++) {
		target_name(t, &b->target[i], buf, sizeof(buf));
		fprintf(f, "%-8s%s, NUMA node %d\n", i ? "" : "gpus:", buf, gf_bind_gpu_node(t, b->target[i].gpu));
	}
	gf_cpuset_format_list(&b->cpus, buf, sizeof(buf));
	fprintf(f, "%-8s%s (%s)\n", "cpus:", b->cpu_mode == GF_BIND_CPU_NONE ? "as they are" : buf,
		gf_bind_cpu_mode_name(b->cpu_mode));
	gf_cpuset_format_list(&b->mems, buf, sizeof(buf));
	fprintf(f, "%-8s%s (%s)\n", "mems:", b->mem_policy == GF_BIND_MEM_NONE ? "as they are" : buf,
		gf_bind_mem_policy_name(b->mem_policy));
	n = gf_bind_env_list(b, env_flags, env);
	for (int i = 0; i < n; i++)
		fprintf(f, "%-8s%s=%s\n", i ? "" : "env:", env[i].name, env[i].value);
	fprintf(f, "%-8s%s\n", "why:", b->reason);
	return ferror(f) ? gf_error(-EIO, "writing the binding failed") : 0;
}

static json_t *targets_json(const struct gf_topo *t, const struct gf_binding *b)
{
	json_t *a = json_array();

	for (int i = 0; i < b->ntargets; i++) {
		const struct gf_gpu *g = &t->gpus[b->target[i].gpu];
		json_t *o = json_object();

		json_object_set_new(o, "index", json_integer(g->index));
		json_object_set_new(o, "pci", json_string(g->bdf));
		json_object_set_new(o, "uuid", g->uuid[0] ? json_string(g->uuid) : json_null());
		json_object_set_new(o, "numa_node", json_integer(gf_bind_gpu_node(t, b->target[i].gpu)));
		if (b->target[i].mig >= 0) {
			const struct gf_mig_instance *m = &g->mig[b->target[i].mig];
			json_t *mj = json_object();

			json_object_set_new(mj, "uuid", json_string(m->uuid));
			json_object_set_new(mj, "gpu_instance", json_integer(m->gpu_instance));
			json_object_set_new(mj, "compute_instance", json_integer(m->compute_instance));
			json_object_set_new(o, "mig", mj);
		} else {
			json_object_set_new(o, "mig", json_null());
		}
		json_array_append_new(a, o);
	}
	return a;
}

GF_API int gf_bind_write_json(const struct gf_topo *t, const struct gf_binding *b, unsigned env_flags,
			      char *const *argv, FILE *f)
{
	struct gf_bind_env env[GF_BIND_NENV];
	json_t *root, *e, *cmd;
	char buf[4096];
	int n, ret;

	if (!t || !b || !f)
		return GF_NULL_ARG(!t ? "t" : !b ? "b" : "f");
	if ((ret = gf_bind_binding_check(t, b, __func__)))
		return ret;
	root = json_object();
	e = json_object();
	cmd = json_array();
	if ((ret = gf_json_stamp(root, GF_BIND_RUN_SCHEMA))) {
		json_decref(root), json_decref(e), json_decref(cmd);
		return ret;
	}
	json_object_set_new(root, "machine", json_string(t->machine.source));
	json_object_set_new(root, "targets", targets_json(t, b));
	json_object_set_new(root, "cpu_mode", json_string(gf_bind_cpu_mode_name(b->cpu_mode)));
	gf_cpuset_format_list(&b->cpus, buf, sizeof(buf));
	json_object_set_new(root, "cpus", b->cpu_mode == GF_BIND_CPU_NONE ? json_null() : json_string(buf));
	json_object_set_new(root, "mem_policy", json_string(gf_bind_mem_policy_name(b->mem_policy)));
	gf_cpuset_format_list(&b->mems, buf, sizeof(buf));
	json_object_set_new(root, "mems", b->mem_policy == GF_BIND_MEM_NONE ? json_null() : json_string(buf));
	json_object_set_new(root, "threads", json_integer(b->threads));
	n = gf_bind_env_list(b, env_flags, env);
	for (int i = 0; i < n; i++)
		json_object_set_new(e, env[i].name, json_string(env[i].value));
	json_object_set_new(root, "env", e);
	for (int i = 0; argv && argv[i]; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	json_object_set_new(root, "command", cmd);
	json_object_set_new(root, "reason", json_string(b->reason));
	return gf_json_dump(root, f);
}
