/* JSON of a check run (docs/json-check.md, schema gpufeed-check/1). */
#include <errno.h>
#include <stdio.h>
#include <jansson.h>

#include "core/json_stamp.h"
#include "topo/render.h"
#include "audit/audit_internal.h"
#include "audit/audit_render.h"

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *result_json(const struct gf_check_result *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_string(r->check->id));
	json_object_set_new(o, "category", json_string(r->check->category));
	json_object_set_new(o, "title", json_string(r->check->title));
	json_object_set_new(o, "subject", str_or_null(r->subject));
	json_object_set_new(o, "status", json_string(gf_check_status_name(r->status)));
	json_object_set_new(o, "observed", str_or_null(r->observed));
	json_object_set_new(o, "expected", str_or_null(r->expected));
	json_object_set_new(o, "source", str_or_null(r->source));
	json_object_set_new(o, "note", str_or_null(r->note));
	json_object_set_new(o, "why", json_string(r->check->why));
	json_object_set_new(o, "fix", str_or_null(r->fix));
	json_object_set_new(o, "persist", str_or_null(r->persist));
	json_object_set_new(o, "fix_class", json_string(gf_fix_class_name(r->fix_class)));
	if (r->fix_class == GF_FIX_SAFE || r->fix_class == GF_FIX_NAMED) {
		json_t *act = json_object();

		json_object_set_new(act, "path", json_string(r->path));
		json_object_set_new(act, "value", json_string(r->value));
		json_object_set_new(act, "persist_file", str_or_null(r->persist_file));
		json_object_set_new(act, "persist_line", str_or_null(r->persist_line));
		json_object_set_new(o, "action", act);
	}
	return o;
}

static json_t *counts_json(const struct gf_audit *a)
{
	json_t *counts = json_object();

	for (int s = 0; s < GF_CHECK_NSTATUS; s++)
		json_object_set_new(counts, gf_check_status_name((enum gf_check_status)s), json_integer(a->counts[s]));
	return counts;
}

json_t *gf_audit_json_summary(const struct gf_audit *a, int max)
{
	json_t *o = json_object(), *worst = json_array();
	int n = 0;

	json_object_set_new(o, "schema", json_string(GF_CHECK_SCHEMA));
	json_object_set_new(o, "profile", json_string(gf_profile_name(a->profile)));
	json_object_set_new(o, "counts", counts_json(a));
	for (int s = GF_CHECK_FAIL; s >= GF_CHECK_WARN && n < max; s--)
		for (int i = 0; i < a->nresults && n < max; i++)
			if ((int)a->results[i].status == s) {
				json_array_append_new(worst, result_json(&a->results[i]));
				n++;
			}
	json_object_set_new(o, "worst", worst);
	return o;
}

int gf_audit_write_json(const struct gf_audit *a, FILE *f)
{
	json_t *root, *list;
	int ret;

	if (!a || !f)
		return GF_NULL_ARG(!a ? "a" : "f");
	root = json_object();
	if (!root)
		return -ENOMEM;
	if ((ret = gf_json_stamp(root, GF_CHECK_SCHEMA))) {
		json_decref(root);
		return ret;
	}
	json_object_set_new(root, "source", json_string(a->source));
	json_object_set_new(root, "hostname", json_string(a->hostname));
	json_object_set_new(root, "profile", json_string(gf_profile_name(a->profile)));
	json_object_set_new(root, "live", json_boolean(a->live));
	json_object_set_new(root, "container", json_boolean(a->container));
	json_object_set_new(root, "container_kind", str_or_null(a->container_kind));
	json_object_set_new(root, "privileged", json_boolean(a->privileged));
	json_object_set_new(root, "gpus", json_boolean(a->gpus));
	json_object_set_new(root, "worst", json_string(gf_check_status_name(gf_audit_worst(a))));
	json_object_set_new(root, "counts", counts_json(a));
	list = json_array();
	for (int i = 0; i < a->nresults; i++)
		json_array_append_new(list, result_json(&a->results[i]));
	json_object_set_new(root, "results", list);
	return gf_json_dump(root, f);
}
