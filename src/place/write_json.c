/* The plan as JSON (docs/json-plan.md, "gpufeed-plan/1"). */
#include <errno.h>
#include <stdbool.h>
#include <jansson.h>

#include "core/error.h"
#include "core/json_read.h"
#include "core/json_stamp.h"
#include "place/place_internal.h"
#include "topo/render.h"

static json_t *score_json(const struct gf_plan_score *s)
{
	json_t *o = json_object();

	for (int i = 0; i < GF_PLAN_NPARTS; i++)
		json_object_set_new(o, gf_plan_part_name((enum gf_plan_part)i), json_integer(s->part[i]));
	return o;
}

static json_t *index_array(const struct gf_topo *t, const int *gpu, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(t->gpus[gpu[i]].index));
	return a;
}

static json_t *list_json(const struct gf_cpuset *s)
{
	char buf[4096];

	gf_cpuset_format_list(s, buf, sizeof(buf));
	return gf_jstr(buf);
}

static json_t *devices_json(const struct gf_topo *t, const struct gf_plan *p)
{
	json_t *a = json_array();

	for (int i = 0; i < p->n; i++) {
		const struct gf_gpu *g = &t->gpus[p->gpu[i]];
		json_t *o = json_object();

		json_object_set_new(o, "index", json_integer(g->index));
		json_object_set_new(o, "pci", gf_jstr(g->bdf));
		json_object_set_new(o, "uuid", *g->uuid ? gf_jstr(g->uuid) : json_null());
		json_object_set_new(o, "numa_node", g->numa_node >= 0 ? json_integer(g->numa_node) : json_null());
		json_object_set_new(o, "nic", p->nic[i] >= 0 ? gf_jstr(t->nics[p->nic[i]].name) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *next_json(const struct gf_topo *t, const struct gf_plan *p)
{
	json_t *a = json_array();

	for (int i = 0; i < 2; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "size", json_integer(p->next[i].size));
		json_object_set_new(o, "gpus", index_array(t, p->next[i].gpu, p->next[i].n));
		json_object_set_new(o, "score", p->next[i].n ? score_json(&p->next[i].score) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

int plan_write_json(const struct gf_topo *t, const struct gf_plan *p, FILE *f)
{
	json_t *root = json_object(), *uuids = json_array(), *reasons = json_array();
	json_t *nics = json_array();
	int ret;

	if (!root || !uuids || !reasons || (ret = gf_json_stamp(root, GF_PLAN_SCHEMA)) == -ENOMEM) {
		json_decref(root);
		json_decref(uuids);
		json_decref(reasons);
		return gf_error(-ENOMEM, "out of memory");
	}
	if (ret) {
		json_decref(root);
		json_decref(uuids);
		json_decref(reasons);
		return ret;
	}
	for (int i = 0; i < p->n; i++)
		json_array_append_new(uuids, *t->gpus[p->gpu[i]].uuid ? gf_jstr(t->gpus[p->gpu[i]].uuid) : json_null());
	for (int i = 0; i < p->nreason; i++)
		json_array_append_new(reasons, gf_jstr(p->reason[i]));
	for (int i = 0; i < p->n; i++) {
		bool seen = p->nic[i] < 0;

		for (int j = 0; j < i && !seen; j++)
			seen = p->nic[j] == p->nic[i];
		if (!seen)
			json_array_append_new(nics, gf_jstr(t->nics[p->nic[i]].name));
	}
	json_object_set_new(root, "machine", gf_jstr(t->machine.hostname));
	json_object_set_new(root, "gpus", index_array(t, p->gpu, p->n));
	json_object_set_new(root, "uuids", uuids);
	json_object_set_new(root, "devices", devices_json(t, p));
	json_object_set_new(root, "cpus", list_json(&p->cpus));
	json_object_set_new(root, "mems", list_json(&p->mems));
	json_object_set_new(root, "nics", nics);
	json_object_set_new(root, "score", score_json(&p->score));
	json_object_set_new(root, "next", next_json(t, p));
	json_object_set_new(root, "broken_pairs", json_integer(p->broken_pairs));
	json_object_set_new(root, "free_left", index_array(t, p->rest, p->nrest));
	json_object_set_new(root, "tied", json_integer(p->tied));
	json_object_set_new(root, "sets_scored", json_integer((json_int_t)p->sets_scored));
	json_object_set_new(root, "select_ms", json_real(p->select_ms));
	json_object_set_new(root, "reason", reasons);
	return gf_json_dump(root, f);
}
