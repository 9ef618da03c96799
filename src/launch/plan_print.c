/* The plan of a bound launch in words (`gpufeed launch --dry-run`) and as
 * JSON (--json, docs/json-launch.md), each rank's binding as bind prints it
 * (embedded whole, a gpufeed-run/1 document, in the JSON). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpufeed/launch.h>
#include "core/error.h"
#include "core/json_stamp.h"
#include "launch/child.h"
#include "launch/plan.h"

static void print_indented(const char *text, FILE *f)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		fprintf(f, "  %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* Rank local's binding as bind prints it (JSON or words), in a new string. */
static int binding_text(const struct gf_launch_plan *p, int local, bool json, char **out)
{
	size_t len = 0;
	FILE *ms = open_memstream(out, &len);
	int ret;

	if (!ms)
		return gf_error(-ENOMEM, "launch: no memory for rank %d's binding", local);
	ret = json ? gf_bind_write_json(p->t, &p->b[local], p->o.env_flags, p->argv, ms) :
		     gf_bind_print(p->t, &p->b[local], p->o.env_flags, ms);
	if (fclose(ms) && !ret)
		ret = gf_error(-ENOMEM, "launch: no memory for rank %d's binding", local);
	return ret;
}

/* A rank's variables at its first start: the world's, the supervisor's. */
static int rank_env(const struct gf_launch_plan *p, int local, struct gf_launch_env *env)
{
	int n = gf_launch_world_env(&p->w, local, env);

	if (n < 0)
		return n;
	return n + gf_launch_restart_env(0, p->o.max_restarts, env + n);
}

GF_API int gf_launch_plan_print(const struct gf_launch_plan *p, FILE *f)
{
	const struct gf_launch_world *w;
	int ret = 0;

	if (!p || !f)
		return GF_NULL_ARG(!p ? "p" : "f");
	w = &p->w;
	fprintf(f, "world:   %d node%s (%s), node rank %d (%s), %d per node, world size %d\n", w->nnodes,
		w->nnodes == 1 ? "" : "s", w->nnodes_from, w->node_rank, w->node_rank_from, w->nproc,
		w->nnodes * w->nproc);
	fprintf(f, "master:  %s (%s):%d (%s)\n", w->master_addr, w->master_addr_from, w->master_port,
		w->master_port_from);
	fprintf(f, "run:     id %s, restarts up to %d\ncommand:", w->run_id, p->o.max_restarts);
	for (int i = 0; p->argv[i]; i++)
		fprintf(f, " %s", p->argv[i]);
	fprintf(f, "\n");
	for (int i = 0; i < w->nproc && !ret; i++) {
		struct gf_launch_env env[GF_LAUNCH_NENV + GF_LAUNCH_NRESTART_ENV];
		int n = rank_env(p, i, env);
		char *text = NULL;

		fprintf(f, "rank %d (local %d):\n  rank env:", w->node_rank * w->nproc + i, i);
		for (int k = 0; k < n; k++)
			fprintf(f, " %s=%s", env[k].name, env[k].value);
		fprintf(f, "\n");
		if (!p->b)
			continue;
		if (!(ret = binding_text(p, i, false, &text)))
			print_indented(text, f);
		free(text);
	}
	if (!ret && ferror(f))
		ret = gf_error(-EIO, "writing the launch plan failed");
	return ret;
}

static json_t *world_json(const struct gf_launch_world *w, int max_restarts)
{
	json_t *o = json_object(), *from = json_object();

	json_object_set_new(o, "nnodes", json_integer(w->nnodes));
	json_object_set_new(o, "node_rank", json_integer(w->node_rank));
	json_object_set_new(o, "nproc_per_node", json_integer(w->nproc));
	json_object_set_new(o, "world_size", json_integer((json_int_t)w->nnodes * w->nproc));
	json_object_set_new(o, "master_addr", json_string(w->master_addr));
	json_object_set_new(o, "master_port", json_integer(w->master_port));
	json_object_set_new(o, "run_id", json_string(w->run_id));
	json_object_set_new(o, "max_restarts", json_integer(max_restarts));
	json_object_set_new(from, "nnodes", json_string(w->nnodes_from ? w->nnodes_from : "?"));
	json_object_set_new(from, "node_rank", json_string(w->node_rank_from ? w->node_rank_from : "?"));
	json_object_set_new(from, "master_addr", json_string(w->master_addr_from ? w->master_addr_from : "?"));
	json_object_set_new(from, "master_port", json_string(w->master_port_from ? w->master_port_from : "?"));
	json_object_set_new(o, "from", from);
	return o;
}

static int rank_json(const struct gf_launch_plan *p, int local, json_t **out)
{
	const struct gf_launch_world *w = &p->w;
	struct gf_launch_env env[GF_LAUNCH_NENV + GF_LAUNCH_NRESTART_ENV];
	int n = rank_env(p, local, env), ret;
	json_t *o, *e, *b = NULL;
	json_error_t jerr;
	char *text = NULL;

	if (n < 0)
		return n;
	if (p->b) {
		if ((ret = binding_text(p, local, true, &text))) {
			free(text);
			return ret;
		}
		b = json_loads(text, 0, &jerr);
		free(text);
		if (!b)
			return gf_error(-EINVAL, "launch: rank %d's binding is not JSON: %s", local, jerr.text);
	}
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

GF_API int gf_launch_plan_write_json(const struct gf_launch_plan *p, FILE *f)
{
	json_t *root, *cmd, *ranks;
	int ret;

	if (!p || !f)
		return GF_NULL_ARG(!p ? "p" : "f");
	root = json_object();
	if ((ret = gf_json_stamp(root, GF_LAUNCH_SCHEMA))) {
		json_decref(root);
		return ret;
	}
	cmd = json_array();
	ranks = json_array();
	json_object_set_new(root, "world", world_json(&p->w, p->o.max_restarts));
	for (int i = 0; p->argv[i]; i++)
		json_array_append_new(cmd, json_string(p->argv[i]));
	json_object_set_new(root, "command", cmd);
	json_object_set_new(root, "ranks", ranks);
	for (int i = 0; i < p->w.nproc; i++) {
		json_t *r;

		if ((ret = rank_json(p, i, &r))) {
			json_decref(root);
			return ret;
		}
		json_array_append_new(ranks, r);
	}
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) || fputc('\n', f) == EOF;
	json_decref(root);
	return ret ? gf_error(-EIO, "writing the launch plan failed") : 0;
}
