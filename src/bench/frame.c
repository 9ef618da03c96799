/* The bench frame: the list of targets, their options from their
 * command-line form, and one run around each target (gpufeed/bench.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/parse.h>
#include "bench/frame.h"
#include "core/error.h"
#include "core/opts.h"

/* `gpufeed bench --help` lists them in this order.  A new target is one
 * file with its struct gf_bench_def, and its line here. */
static const struct gf_bench_def *const targets[] = {
	&gf_bench_io_def, &gf_bench_io_gpu_def, &gf_bench_mem_def, &gf_bench_h2d_def, &gf_bench_p2p_def,
	&gf_bench_loader_def, &gf_bench_coll_def, &gf_bench_overlap_def,
};
#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

struct gf_bench {
	const struct gf_bench_def *def;
	void *opts;
	char *operand;
	char **texts;			/* the copies TEXT options point at */
	unsigned ntexts;
	bool ran;
	void *res;
	struct gf_topo *own_model;	/* discovered here: freed after res */
};

static const struct gf_bench_def *def_of(const struct gf_bench_target *t)
{
	for (unsigned i = 0; i < NTARGETS; i++)
		if (&targets[i]->pub == t)
			return targets[i];
	return NULL;
}

const struct gf_bench_target *gf_bench_target_at(unsigned i)
{
	return i < NTARGETS ? &targets[i]->pub : NULL;
}

const struct gf_bench_target *gf_bench_target_find(const char *name)
{
	char known[128] = "";

	if (!name) {
		GF_NULL_ARG("name");
		return NULL;
	}
	for (unsigned i = 0; i < NTARGETS; i++) {
		size_t l = strlen(known);

		if (!strcmp(targets[i]->pub.name, name))
			return &targets[i]->pub;
		snprintf(known + l, sizeof(known) - l, "%s%s", i ? ", " : "", targets[i]->pub.name);
	}
	gf_error(-ENOENT, "bench: no target '%s' (one of: %s)", name, known);
	return NULL;
}

const struct gf_bench_option *gf_bench_option_at(const struct gf_bench_target *t, unsigned i)
{
	const struct gf_bench_def *d;

	if (!t) {
		GF_NULL_ARG("t");
		return NULL;
	}
	if (!(d = def_of(t)))
		return NULL;
	for (unsigned k = 0; d->opts[k].pub.name; k++)
		if (k == i)
			return &d->opts[k].pub;
	return NULL;
}

int gf_bench_new(const char *target, struct gf_bench **out)
{
	const struct gf_bench_target *t;
	struct gf_bench *b;

	if (out)
		*out = NULL;
	if (!target || !out)
		return GF_NULL_ARG(!target ? "target" : "out");
	if (!(t = gf_bench_target_find(target)))
		return -ENOENT;
	if (!(b = calloc(1, sizeof(*b))) || !(b->opts = calloc(1, def_of(t)->opts_size))) {
		free(b);
		return gf_error(-ENOMEM, "bench: out of memory");
	}
	b->def = def_of(t);
	if (b->def->init)
		b->def->init(b->opts);
	*out = b;
	return 0;
}

const struct gf_bench_target *gf_bench_target_of(const struct gf_bench *b)
{
	if (!b) {
		GF_NULL_ARG("b");
		return NULL;
	}
	return &b->def->pub;
}

static int keep_text(struct gf_bench *b, const char *value, const char **slot)
{
	char **grown = realloc(b->texts, (b->ntexts + 1) * sizeof(*grown));
	char *copy = strdup(value);

	if (grown)
		b->texts = grown;
	if (!grown || !copy) {
		free(copy);
		return gf_error(-ENOMEM, "bench: out of memory");
	}
	b->texts[b->ntexts++] = copy;
	*slot = copy;
	return 0;
}

/* An option's value into the target's options, by its store. */
static int store(struct gf_bench *b, const struct gf_bench_opt_def *o, const char *value)
{
	char *field = (char *)b->opts + o->off;
	const char *name = o->pub.name;
	uint64_t n;
	double d;

	if (o->pub.kind == GF_BENCH_OPT_FLAG && value)
		return gf_error(-EINVAL, "--%s takes no value", name);
	if (o->pub.kind != GF_BENCH_OPT_FLAG && !value)
		return gf_error(-EINVAL, "--%s needs a value (%s)", name, o->pub.argh);
	/* "--gpu $UNSET" must not mean every GPU */
	if (value && !*value)
		return gf_error(-EINVAL, "--%s needs a %s (an empty one was given)", name, o->pub.argh);
	switch (o->store) {
	case GF_BENCH_STORE_BOOL:
		*(bool *)field = true;
		return 0;
	case GF_BENCH_STORE_TEXT:
		return keep_text(b, value, (const char **)(void *)field);
	case GF_BENCH_STORE_UINT:
		if (gf_parse_count(value, o->lo, o->hi, &n))
			return gf_error(-ERANGE, "--%s: '%s' is not a number from %llu to %llu", name, value,
					(unsigned long long)o->lo, (unsigned long long)o->hi);
		*(unsigned *)field = (unsigned)n;
		return 0;
	case GF_BENCH_STORE_U64:
		if (gf_parse_size(value, &n))
			return gf_error(-EINVAL, "--%s: %s", name, gf_last_error());
		if (n < o->lo || (o->hi && n > o->hi))
			return gf_error(-ERANGE, "--%s: '%s' is not a size from %llu to %llu bytes", name, value,
					(unsigned long long)o->lo, (unsigned long long)o->hi);
		*(uint64_t *)field = n;
		return 0;
	case GF_BENCH_STORE_DOUBLE:
		if (gf_parse_duration(value, &d))
			return gf_error(-EINVAL, "--%s: %s", name, gf_last_error());
		if (!(d > 0 && d <= (double)o->hi))
			return gf_error(-ERANGE, "--%s: '%s' is not a duration above 0 and up to %llu s", name,
					value, (unsigned long long)o->hi);
		*(double *)field = d;
		return 0;
	case GF_BENCH_STORE_CUSTOM:
		return o->set(b->opts, value);
	}
	return gf_error(-EINVAL, "--%s: unknown kind of option", name);
}

int gf_bench_set(struct gf_bench *b, const char *option, const char *value)
{
	if (!b || !option)
		return GF_NULL_ARG(!b ? "b" : "option");
	if (b->ran)
		return gf_error(-EBUSY, "bench %s: options are set before the run", b->def->pub.name);
	for (const struct gf_bench_opt_def *o = b->def->opts; o->pub.name; o++)
		if (!strcmp(o->pub.name, option))
			return store(b, o, value);
	return gf_error(-ENOENT, "bench %s: no option --%s", b->def->pub.name, option);
}

int gf_bench_set_operand(struct gf_bench *b, const char *value)
{
	char *copy;

	if (!b || !value)
		return GF_NULL_ARG(!b ? "b" : "value");
	if (!b->def->pub.operand)
		return gf_error(-EINVAL, "bench %s takes no operand ('%s')", b->def->pub.name, value);
	if (!*value)
		return gf_error(-EINVAL, "bench %s: %s is empty", b->def->pub.name, b->def->pub.operand);
	if (!(copy = strdup(value)))
		return gf_error(-ENOMEM, "bench: out of memory");
	free(b->operand);
	b->operand = copy;
	return 0;
}

int gf_bench_check(const struct gf_bench *b)
{
	if (!b)
		return GF_NULL_ARG("b");
	if (b->def->pub.operand && !b->operand)
		return gf_error(-EINVAL, "missing %s", b->def->pub.operand);
	return b->def->check ? b->def->check(b->opts, b->operand) : 0;
}

int gf_bench_run(struct gf_bench *b, const struct gf_bench_run_opts *opts)
{
	struct gf_bench_run_opts o = GF_BENCH_RUN_OPTS_INIT;
	struct gf_bench_env env = { 0 };
	int rc;

	if (!b)
		return GF_NULL_ARG("b");
	if (opts) {
		if ((rc = gf_opts_check(opts->struct_size, sizeof(o), "gf_bench_run", "GF_BENCH_RUN_OPTS_INIT")))
			return rc;
		gf_opts_copy(&o, sizeof(o), opts, opts->struct_size);
	}
	if (!(o.status_interval_s >= 0 && o.status_interval_s <= GF_DURATION_MAX))
		return gf_arg_error(__func__, "status_interval_s %g: 0 to %g seconds", o.status_interval_s,
				    GF_DURATION_MAX);
	if (b->ran)
		return gf_error(-EBUSY, "bench %s: already run (one run a gf_bench)", b->def->pub.name);
	if ((rc = gf_bench_check(b)))
		return rc;
	b->ran = true;
	env.model = o.model;
	if (!env.model) {
		if ((rc = gf_topo_discover(o.machine, &b->own_model)))
			return gf_error(rc, "bench %s: the machine model: %s", b->def->pub.name, gf_last_error());
		env.model = b->own_model;
	}
	env.cancel = o.cancel;
	env.progress = o.progress;
	env.progress_tty = o.progress_tty;
	env.status_interval_s = o.status_interval_s;
	rc = b->def->run(b->opts, b->operand, &env, &b->res);
	if (rc && rc != -ECANCELED && b->res) {	/* a target keeps results only when interrupted */
		b->def->free_res(b->res);
		b->res = NULL;
	}
	return rc;
}

bool gf_bench_has_results(const struct gf_bench *b)
{
	return b && b->res;
}

enum gf_bench_outcome gf_bench_outcome(const struct gf_bench *b)
{
	if (!b || !b->res)
		return GF_BENCH_FAILED;
	return b->def->outcome(b->res);
}

unsigned gf_bench_findings(const struct gf_bench *b)
{
	return b && b->res ? b->def->findings(b->res) : 0;
}

const char *gf_bench_problem(const struct gf_bench *b)
{
	if (!b) {
		GF_NULL_ARG("b");
		return NULL;
	}
	return b->res && b->def->problem ? b->def->problem(b->res) : "";
}

int gf_bench_print(const struct gf_bench *b, FILE *f)
{
	if (!b || !f)
		return GF_NULL_ARG(!b ? "b" : "f");
	if (!b->res)
		return gf_arg_error(__func__, "b has nothing measured yet");
	return b->def->print(b->res, f);
}

int gf_bench_write_json(const struct gf_bench *b, FILE *f)
{
	if (!b || !f)
		return GF_NULL_ARG(!b ? "b" : "f");
	if (!b->res)
		return gf_arg_error(__func__, "b has nothing measured yet");
	return b->def->write_json(b->res, f);
}

void gf_bench_free(struct gf_bench *b)
{
	if (!b)
		return;
	if (b->res)
		b->def->free_res(b->res);
	gf_topo_free(b->own_model);
	for (unsigned i = 0; i < b->ntexts; i++)
		free(b->texts[i]);
	free(b->texts);
	free(b->operand);
	free(b->opts);
	free(b);
}

enum gf_bench_outcome gf_bench_outcome_of(unsigned findings)
{
	return findings ? GF_BENCH_FINDINGS : GF_BENCH_CLEAN;
}

void gf_bench_env_runner(const struct gf_bench_env *env, struct gf_runner_opts *ro)
{
	ro->cancel = env->cancel;
	ro->progress = env->progress;
	ro->tty = env->progress_tty;
	ro->status_interval_s = env->status_interval_s;
}
