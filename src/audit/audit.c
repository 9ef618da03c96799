/* gf_audit_run: the context every check reads through, then each check of
 * the catalogue in turn. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include <gpufeed/record.h>
#include "core/opts.h"
#include "core/strutil.h"
#include "audit/audit_internal.h"
#include "audit/audit_record.h"
#include "audit/catalog.h"
#include "topo/render.h"

extern char **environ;

const char *gf_check_status_name(enum gf_check_status s)
{
	static const char *const names[GF_CHECK_NSTATUS] = { "pass", "na", "needs-root", "warn", "error", "fail" };

	return (unsigned)s < GF_CHECK_NSTATUS ? names[s] : "?";
}

int gf_check_status_parse(const char *word, enum gf_check_status *out)
{
	if (!word || !out)
		return GF_NULL_ARG(!word ? "word" : "out");
	for (int s = 0; s < GF_CHECK_NSTATUS; s++)
		if (!strcmp(word, gf_check_status_name((enum gf_check_status)s))) {
			*out = (enum gf_check_status)s;
			return 0;
		}
	return gf_error(-EINVAL, "'%s' is not a check status (pass, na, needs-root, warn, error, fail)", word);
}

const char *gf_profile_name(enum gf_profile p)
{
	return p == GF_PROFILE_INFERENCE ? "inference" : p == GF_PROFILE_TRAINING ? "training" : "?";
}

int gf_profile_parse(const char *word, enum gf_profile *out)
{
	if (!word || !out)
		return GF_NULL_ARG(!word ? "word" : "out");
	if (!strcmp(word, "training"))
		*out = GF_PROFILE_TRAINING;
	else if (!strcmp(word, "inference"))
		*out = GF_PROFILE_INFERENCE;
	else
		return gf_error(-EINVAL, "'%s' is not a profile (training, inference)", word);
	return 0;
}

const char *gf_fix_class_name(enum gf_fix_class c)
{
	switch (c) {
	case GF_FIX_NONE: return "none";
	case GF_FIX_SAFE: return "safe";
	case GF_FIX_ADVICE: return "advice";
	case GF_FIX_NAMED: return "named";
	}
	return "?";
}

/* --only: every token names a check id or a category. */
static int check_only(const char *only)
{
	char buf[1024], *save = NULL;

	if (!only)
		return 0;
	if (strlen(only) >= sizeof(buf))
		return gf_error(-EINVAL, "--only: list too long");
	gf_strlcpy(buf, only, sizeof(buf));
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool found = false;

		for (int i = 0; i < gf_check_def_count() && !found; i++) {
			const struct gf_check_info *c = &gf_check_def_at(i)->info;

			found = !strcmp(c->id, tok) || !strcmp(c->category, tok);
		}
		if (!found)
			return gf_error(-EINVAL, "no check or category named '%s' (gpufeed check --list)", tok);
	}
	return 0;
}

static bool selected(const char *only, const struct gf_check_info *c)
{
	const char *p = only;
	size_t n;

	if (!only)
		return true;
	while (*p) {
		n = strcspn(p, ",");
		if ((n == strlen(c->id) && !strncmp(p, c->id, n)) ||
		    (n == strlen(c->category) && !strncmp(p, c->category, n)))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* What the recording's manifest says about the recording process: its euid
 * and the environment variables record kept (NCCL_*, CUDA_*, ...). */
struct manifest_facts {
	bool have_euid;
	long long euid;
	char **env;		/* NULL-terminated, owned */
};

static void read_manifest(struct gf_audit_ctx *c, struct manifest_facts *m)
{
	char *data = NULL;
	size_t len;
	json_t *root, *env, *v;
	const char *key;
	size_t n = 0;

	if (gf_fs_read(&c->fs, "/" GF_RECORD_MANIFEST, &data, &len))
		return;
	root = json_loadb(data, len, 0, NULL);
	free(data);
	if (!json_is_object(root)) {
		json_decref(root);
		return;
	}
	if (json_is_integer(json_object_get(root, "euid"))) {
		m->have_euid = true;
		m->euid = json_integer_value(json_object_get(root, "euid"));
	}
	env = json_object_get(root, "environ");
	if (json_is_object(env) && (m->env = calloc(json_object_size(env) + 1, sizeof(char *)))) {
		json_object_foreach(env, key, v) {
			char *kv;

			if (!json_is_string(v) || !key[0] || strchr(key, '='))
				continue;
			if (asprintf(&kv, "%s=%s", key, json_string_value(v)) < 0)
				break;
			m->env[n++] = kv;
		}
	}
	json_decref(root);
}

static void free_env(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

static int load_nvml(struct gf_audit_ctx *c, const struct gf_topo_options *to, struct gf_nvml_facts **facts)
{
	char *data = NULL;
	size_t len;
	int ret;

	if (to->nvml == GF_NVML_OFF) {
		gf_strlcpy(c->nvml_why, "NVML not used (--nvml=off)", sizeof(c->nvml_why));
		return 0;
	}
	if (c->live) {
		ret = gf_nvml_collect(GF_NVML_FULL, facts, c->nvml_why, sizeof(c->nvml_why));
		return ret == -ENOSYS || ret == -ENODEV ? 0 : ret;
	}
	ret = gf_fs_read(&c->fs, "/nvml.json", &data, &len);
	if (ret == -ENOENT) {
		gf_strlcpy(c->nvml_why, "the recording has no nvml.json", sizeof(c->nvml_why));
		return 0;
	}
	if (ret)
		return ret;
	ret = gf_nvml_facts_parse(data, len, "nvml.json", facts);
	free(data);
	return ret;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void run_one(struct gf_audit_ctx *c, const struct gf_check_def *d)
{
	int before = c->a->nresults;
	struct gf_check_result *r;

	c->cur = d;
	if ((d->info.flags & GF_CHECK_HOST_ONLY) && c->container) {
		audit_na(audit_result(c, ""), "host-only check: this runs inside a container (%s)",
			 c->a->container_kind[0] ? c->a->container_kind : "detected");
		return;
	}
	if ((d->info.flags & GF_CHECK_NEEDS_GPU) && !c->a->gpus) {
		audit_na(audit_result(c, ""), "no NVIDIA GPU here");
		return;
	}
	d->run(c);
	if (c->a->nresults == before && (r = audit_result(c, "")))
		audit_na(r, "nothing to check here");
	/* What a check copied from the machine (a recording's values, an
	 * interface name) never reaches a terminal as escape sequences. */
	for (int i = before; i < c->a->nresults; i++) {
		r = &c->a->results[i];
		gf_sanitize_text(r->subject);
		gf_sanitize_text(r->observed);
		gf_sanitize_text(r->expected);
		gf_sanitize_text(r->note);
		gf_sanitize_text(r->source);
	}
}

/* What every run shares once the model, the file system and NVML are there:
 * the container, the privileges and the environment, then the checks. */
static void run_checks(struct gf_audit_ctx *c, const struct gf_audit_options *o, double t0)
{
	static const char *const no_env[] = { NULL };
	struct gf_audit *a = c->a;
	struct manifest_facts m = { 0 };

	gf_strlcpy(a->source, c->t->machine.source, sizeof(a->source));
	gf_strlcpy(a->hostname, c->t->machine.hostname, sizeof(a->hostname));
	a->gpus = c->t->ngpus > 0;
	a->container = c->container = gf_audit_detect_container(&c->fs, a->container_kind, sizeof(a->container_kind));
	if (c->live) {
		a->privileged = geteuid() == 0;
	} else {
		read_manifest(c, &m);
		a->privileged = !m.have_euid || m.euid == 0;
	}
	c->privileged = a->privileged;
	c->env = o->env ? o->env : c->live ? (const char *const *)environ : m.env ? (const char *const *)m.env : no_env;

	for (int i = 0; i < gf_check_def_count(); i++) {
		const struct gf_check_def *d = gf_check_def_at(i);

		if (selected(o->only, &d->info))
			run_one(c, d);
	}
	for (int i = 0; i < a->nresults; i++)
		a->counts[a->results[i].status]++;
	a->elapsed_ms = now_ms() - t0;
	free_env(m.env);
}

int gf_audit_run(const struct gf_audit_options *opts, struct gf_audit **out)
{
	struct gf_audit_options o = GF_AUDIT_OPTS_INIT;
	struct gf_topo_options to = GF_TOPO_OPTS_INIT;
	struct gf_audit_ctx c = { 0 };
	struct gf_nvml_facts *facts = NULL;
	struct gf_topo *t = NULL;
	struct gf_audit *a;
	double t0 = now_ms();
	int ret;

	if (!out)
		return GF_NULL_ARG("out");
	*out = NULL;
	if (opts) {
		if ((ret = gf_opts_check(opts->struct_size, sizeof(o), "gf_audit_run", "GF_AUDIT_OPTS_INIT")))
			return ret;
		gf_opts_copy(&o, sizeof(o), opts, opts->struct_size);
	}
	if (o.profile != GF_PROFILE_TRAINING && o.profile != GF_PROFILE_INFERENCE)
		return gf_arg_error(__func__, "profile %d is not a gf_profile", (int)o.profile);
	if ((ret = check_only(o.only)))
		return ret;
	if (!(a = calloc(1, sizeof(*a))))
		return gf_error(-ENOMEM, "out of memory");
	c.a = a;
	c.profile = a->profile = o.profile;
	if ((ret = gf_topo_options_copy(o.machine, &to)))
		goto out;
	if (o.model)
		c.t = o.model;
	else if ((ret = gf_topo_discover(&to, &t)))
		goto out;
	else
		c.t = t;
	if ((ret = gf_fs_init(&c.fs, to.root)))
		goto out;
	c.live = a->live = gf_fs_live(&c.fs);
	if ((ret = load_nvml(&c, &to, &facts)))
		goto out_fs;
	c.nvml = facts;
	run_checks(&c, &o, t0);
out_fs:
	gf_fs_fini(&c.fs);
out:
	gf_nvml_facts_free(facts);
	gf_topo_free(t);
	if (ret) {
		gf_audit_free(a);
		return ret;
	}
	*out = a;
	return 0;
}

int gf_audit_run_on(const struct gf_fs *fs, const struct gf_topo *model, const struct gf_nvml_facts *facts,
		    const char *nvml_why, enum gf_profile profile, struct gf_audit **out)
{
	struct gf_audit_options o = GF_AUDIT_OPTS_INIT;
	struct gf_audit_ctx c = { 0 };
	double t0 = now_ms();

	*out = NULL;
	if (!(c.a = calloc(1, sizeof(*c.a))))
		return gf_error(-ENOMEM, "out of memory");
	o.profile = c.profile = c.a->profile = profile;
	c.t = model;
	c.fs = *fs;		/* a copy that shares the caller's, never released here */
	c.live = c.a->live = gf_fs_live(fs);
	c.nvml = facts;
	gf_strlcpy(c.nvml_why, nvml_why ? nvml_why : "", sizeof(c.nvml_why));
	run_checks(&c, &o, t0);
	*out = c.a;
	return 0;
}

void gf_audit_free(struct gf_audit *a)
{
	if (!a)
		return;
	for (int i = 0; i < a->nresults; i++)
		audit_drop_fix(&a->results[i]);
	free(a->results);
	free(a);
}

enum gf_check_status gf_audit_worst(const struct gf_audit *a)
{
	enum gf_check_status w = GF_CHECK_PASS;

	if (!a)
		return GF_CHECK_ERROR;	/* nothing was checked: never a pass */
	for (int i = 0; i < a->nresults; i++)
		if (a->results[i].status > w)
			w = a->results[i].status;
	return w;
}

int gf_audit_count_at_least(const struct gf_audit *a, enum gf_check_status level)
{
	int n = 0;

	if (!a)
		return GF_NULL_ARG("a");
	if ((unsigned)level >= GF_CHECK_NSTATUS)
		return gf_arg_error(__func__, "level %d is not a gf_check_status", (int)level);
	for (int i = 0; i < a->nresults; i++)
		n += a->results[i].status >= level;
	return n;
}
