/* The plan of a launch as JSON (docs/json-launch.md): what --dry-run --json
 * prints, each rank's binding embedded as the document bind wrote. */
#include <errno.h>

#include <jansson.h>

#include <gpufeed/launch.h>
#include "core/error.h"
#include "core/json_stamp.h"

static json_t *world_json(const struct gf_launch_world *w)
{
	json_t *o = json_object(), *from = json_object();

	json_object_set_new(o, "nnodes", json_integer(w->nnodes));
	json_object_set_new(o, "node_rank", json_integer(w->node_rank));
	json_object_set_new(o, "nproc_per_node", json_integer(w->nproc));
	json_object_set_new(o, "world_size", json_integer((json_int_t)w->nnodes * w->nproc));
	json_object_set_new(o, "master_addr", json_string(w->master_addr));
	json_object_set_new(o, "master_port", json_integer(w->master_port));
	json_object_set_new(from, "nnodes", json_string(w->nnodes_from ? w->nnodes_from : "?"));
	json_object_set_new(from, "node_rank", json_string(w->node_rank_from ? w->node_rank_from : "?"));
	json_object_set_new(from, "master_addr", json_string(w->master_addr_from ? w->master_addr_from : "?"));
	json_object_set_new(from, "master_port", json_string(w->master_port_from ? w->master_port_from : "?"));
	json_object_set_new(o, "from", from);
	return o;
}

static int rank_json(const struct gf_launch_world *w, int local, const char *binding, json_t **out)
{
	struct gf_launch_env env[GF_LAUNCH_NENV];
	int n = gf_launch_world_env(w, local, env);
	json_t *o, *e, *b = NULL;
	json_error_t jerr;

	if (n < 0)
		return n;
	if (binding && !(b = json_loads(binding, 0, &jerr)))
		return gf_error(-EINVAL, "launch: rank %d's binding is not JSON: %s", local, jerr.text);
	o = json_object();
	e = json_object();
	json_object_set_new(o, "rank", json_integer((json_int_t)w->node_rank * w->nproc + local));
	json_object_set_new(o, "local_rank", json_integer(local));
	for (int i = 0; i < n; i++)
		json_object_set_new(e, env[i].name, json_string(env[i].value));
	json_object_set_new(o, "env", e);
	json_object_set_new(o, "binding", b ? b : json_null());
	*out = o;
	return 0;
}

GF_API int gf_launch_write_json(const struct gf_launch_world *w, char *const *argv, const char *const *bindings,
				FILE *f)
{
	json_t *root, *cmd, *ranks;
	int ret;

	if (!w || !f)
		return gf_error(-EINVAL, "gf_launch_write_json: no world or stream");
	root = json_object();
	if ((ret = gf_json_stamp(root, GF_LAUNCH_SCHEMA))) {
		json_decref(root);
		return ret;
	}
	cmd = json_array();
	ranks = json_array();
	json_object_set_new(root, "world", world_json(w));
	for (int i = 0; argv && argv[i]; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	json_object_set_new(root, "command", cmd);
	json_object_set_new(root, "ranks", ranks);
	for (int i = 0; i < w->nproc; i++) {
		json_t *r;

		if ((ret = rank_json(w, i, bindings ? bindings[i] : NULL, &r))) {
			json_decref(root);
			return ret;
		}
		json_array_append_new(ranks, r);
	}
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) || fputc('\n', f) == EOF;
	json_decref(root);
	return ret ? gf_error(-EIO, "writing the launch plan failed") : 0;
}
