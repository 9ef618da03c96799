/* gpufeed verify --json: schema gpufeed-verify/1, docs/json-verify.md.
 * Unknown values are null. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/json_read.h"
#include "core/json_stamp.h"
#include "topo/render.h"
#include "verify/verify_internal.h"

static json_t *jset(const struct gf_cpuset *s)
{
	char buf[16384];

	gf_cpuset_format_list(s, buf, sizeof(buf));
	return gf_jstr(buf);
}

static json_t *jprocess(const struct gf_verify *v)
{
	json_t *o = json_object(), *th = json_array();

	json_object_set_new(o, "pid", json_integer(v->pid));
	json_object_set_new(o, "comm", gf_jstr(v->comm));
	json_object_set_new(o, "source", gf_jstr(v->proc_source));
	json_object_set_new(o, "cpus_allowed", jset(&v->cpus_allowed));
	json_object_set_new(o, "mems_allowed", v->mems_allowed_known ? jset(&v->mems_allowed) : json_null());
	json_object_set_new(o, "memory_policy", v->policy[0] ? gf_jstr(v->policy) : json_null());
	json_object_set_new(o, "memory_policy_mixed", json_boolean(v->policy_mixed));
	json_object_set_new(o, "cuda_visible_devices",
			    v->cuda_visible_set ? gf_jstr(v->cuda_visible) : json_null());
	json_object_set_new(o, "environ_read", json_boolean(v->environ_known));
	for (int i = 0; i < v->nthreads; i++) {
		const struct gf_verify_thread *t = &v->threads[i];

		json_array_append_new(th, json_pack("{s:i, s:o, s:o, s:o, s:b}", "tid", t->tid, "comm",
						    gf_jstr(t->comm), "cpu",
						    t->cpu >= 0 ? json_integer(t->cpu) : json_null(), "node",
						    t->node >= 0 ? json_integer(t->node) : json_null(), "local", t->local));
	}
	json_object_set_new(o, "threads", th);
	json_object_set_new(o, "threads_vanished", json_integer(v->threads_vanished));
	return o;
}

static json_t *jgpus(const struct gf_verify *v)
{
	json_t *a = json_array();

	for (int i = 0; i < v->ngpus; i++) {
		const struct gf_verify_gpu *e = &v->gpus[i];
		const struct gf_gpu *g = &v->topo->gpus[e->gpu];
		json_t *o = json_object();

		json_object_set_new(o, "index", json_integer(g->index));
		json_object_set_new(o, "uuid", g->uuid[0] ? gf_jstr(g->uuid) : json_null());
		json_object_set_new(o, "bdf", gf_jstr(g->bdf));
		json_object_set_new(o, "minor", g->minor >= 0 ? json_integer(g->minor) : json_null());
		json_object_set_new(o, "numa_node", g->numa_node >= 0 ? json_integer(g->numa_node) : json_null());
		json_object_set_new(o, "cpus", jset(&g->cpus));
		json_object_set_new(o, "source", gf_jstr(gf_verify_gpu_source_name(e->source)));
		json_object_set_new(o, "open", json_boolean(e->open));
		json_object_set_new(o, "visible", e->visible < 0 ? json_null() : json_boolean(e->visible));
		json_object_set_new(o, "mig", e->mig_gi < 0 ? json_null() :
				    json_pack("{s:i, s:o}", "gi", e->mig_gi, "ci",
					      e->mig_ci >= 0 ? json_integer(e->mig_ci) : json_null()));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *jnodes(const struct gf_verify *v)
{
	json_t *a = json_array();

	for (int i = 0; i < v->nnodes; i++) {
		const struct gf_verify_node *n = &v->nodes[i];

		json_array_append_new(a, json_pack("{s:i, s:o, s:i, s:I, s:I}", "node", n->node, "local",
						   v->ngpus ? json_boolean(n->local) : json_null(), "threads",
						   n->threads, "bytes", (json_int_t)n->bytes, "private_bytes",
						   (json_int_t)n->private_bytes));
	}
	return a;
}

static json_t *jfindings(const struct gf_verify *v)
{
	json_t *a = json_array();

	for (int i = 0; i < v->nfindings; i++) {
		const struct gf_finding *f = &v->findings[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o}", "id", f->id, "severity",
						   gf_severity_name(f->severity), "subject", gf_jstr(f->subject),
						   "message", gf_jstr(f->message)));
	}
	return a;
}

GF_API int gf_verify_write_json(const struct gf_verify *v, FILE *f)
{
	json_t *root;
	const char *result;

	if (!v || !f)
		return GF_NULL_ARG(!v ? "v" : "f");
	if (!(root = json_object()) || gf_json_stamp(root, GF_VERIFY_SCHEMA)) {
		json_decref(root);
		return gf_error(-ENOMEM, "out of memory");
	}
	result = !v->ngpus ? "no-gpu" : gf_verify_finding_count(v, GF_SEV_WARN) ? "mismatch" : "local";
	json_object_set_new(root, "result", gf_jstr(result));
	json_object_set_new(root, "model", gf_jstr(v->topo->machine.source));
	json_object_set_new(root, "single_node", json_boolean(v->single_node));
	json_object_set_new(root, "process", jprocess(v));
	json_object_set_new(root, "gpus", jgpus(v));
	json_object_set_new(root, "local_cpus", v->ngpus ? jset(&v->local_cpus) : json_null());
	json_object_set_new(root, "local_nodes", v->ngpus ? jset(&v->local_nodes) : json_null());
	json_object_set_new(root, "memory",
			    json_pack("{s:b, s:I, s:I, s:f}", "numa_maps", v->numa_maps_known, "bytes",
				      (json_int_t)v->bytes, "private_bytes", (json_int_t)v->private_bytes,
				      "off_node_percent", v->off_node_pct));
	json_object_set_new(root, "nodes", jnodes(v));
	json_object_set_new(root, "findings", jfindings(v));
	return gf_json_dump(root, f);
}
