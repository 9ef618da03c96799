/* gf_plan_compute: the free GPUs as slots, the search, then what the set
 * needs around it (NICs, CPUs, memory nodes) and why it was chosen. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/dnsname.h"
#include "core/error.h"
#include "core/opts.h"
#include "place/place_internal.h"

GF_API const char *gf_plan_part_name(enum gf_plan_part p)
{
	static const char *const names[GF_PLAN_NPARTS] = {
		[GF_PLAN_FABRIC_GAPS] = "fabric_gaps",	 [GF_PLAN_FABRIC_MISSING] = "fabric_missing_links",
		[GF_PLAN_PCIE_WORST] = "pcie_worst",	 [GF_PLAN_PCIE_SUM] = "pcie_sum",
		[GF_PLAN_NUMA_NODES] = "numa_nodes",	 [GF_PLAN_RAIL_SHARED] = "rail_shared",
		[GF_PLAN_RAIL_DISTANCE] = "rail_distance",
	};
	return (unsigned)p < GF_PLAN_NPARTS ? names[p] : "?";
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The GPUs' local CPUs that this process (or the recording's) may use, and
 * their memory nodes. */
static void fill_binding(const struct gf_topo *t, struct gf_plan *p)
{
	struct gf_cpuset all;

	gf_cpuset_zero(&all);
	gf_cpuset_zero(&p->mems);
	for (int i = 0; i < p->n; i++) {
		const struct gf_gpu *g = &t->gpus[p->gpu[i]];

		gf_cpuset_or(&all, &all, &g->cpus);
		if (g->numa_node >= 0)
			gf_cpuset_set(&p->mems, (unsigned)g->numa_node);
	}
	gf_cpuset_and(&p->cpus, &all, &t->cpus.allowed);
	/* A model that knows no allowed set (no affinity read) keeps the
	 * local CPUs as they are rather than an empty list. */
	if (gf_cpuset_empty(&t->cpus.allowed))
		p->cpus = all;
	p->mems_subset = !gf_cpuset_empty(&p->mems) && (int)gf_cpuset_count(&p->mems) < t->numa.nnodes;
}

static int check_opts(const struct gf_topo *t, const struct gf_plan_options *o, int nfree)
{
	if (!t->ngpus)
		return gf_error(-ENODEV, "the model has no NVIDIA GPU: nothing to place");
	if (o->ngpus < 1)
		return gf_error(-EINVAL, "asked for %d GPUs: at least 1", o->ngpus);
	if (o->ngpus > nfree)
		return gf_error(-ERANGE, "asked for %d GPUs but %d %s free (of %d on the machine)", o->ngpus, nfree,
				nfree == 1 ? "is" : "are", t->ngpus);
	return 0;
}

static int fill_set(const struct plan_model *m, struct gf_plan *p, const int *set)
{
	p->gpu = calloc((size_t)p->n, sizeof(int));
	p->nic = calloc((size_t)p->n, sizeof(int));
	p->rest = calloc((size_t)m->nf + 1, sizeof(int));
	if (!p->gpu || !p->nic || !p->rest)
		return gf_error(-ENOMEM, "out of memory");
	for (int i = 0; i < p->n; i++) {
		p->gpu[i] = m->gpu[set[i]];
		p->nic[i] = m->nic[set[i]];
	}
	for (int i = 0, j = 0; i < m->nf; i++) {
		while (j < p->n && set[j] < i)
			j++;
		if (j >= p->n || set[j] != i)
			p->rest[p->nrest++] = m->gpu[i];
	}
	return 0;
}

static int compute(const struct gf_topo *t, const struct gf_plan_options *o, struct gf_plan *p)
{
	struct plan_model m;
	int set[GF_PLAN_MAX_FREE], ret;
	uint64_t mask, chosen = 0;
	bool decided = false;
	double t0 = now_ms();

	if ((ret = plan_model_init(&m, t, o->free, o->nfree)))
		return ret;
	if ((ret = check_opts(t, o, m.nf))) {
		plan_model_free(&m);
		return ret;
	}
	mask = m.nf == 64 ? ~0ull : (1ull << m.nf) - 1;
	p->n = o->ngpus;
	plan_search(&m, mask, p->n, set, &p->score, p, &decided);
	for (int i = 0; i < p->n; i++)
		chosen |= 1ull << set[i];
	plan_lookahead(&m, mask, chosen, p->next, &p->broken_pairs);
	p->select_ms = now_ms() - t0;
	ret = fill_set(&m, p, set);
	if (!ret) {
		fill_binding(t, p);
		ret = plan_explain(&m, p, decided);
	}
	plan_model_free(&m);
	return ret;
}

GF_API int gf_plan_compute(const struct gf_topo *t, const struct gf_plan_options *opts, struct gf_plan **out)
{
	struct gf_plan_options o = GF_PLAN_OPTS_INIT;
	struct gf_plan *p;
	int ret;

	if (!t || !opts || !out)
		return GF_NULL_ARG(!t ? "t" : !opts ? "opts" : "out");
	*out = NULL;
	if ((ret = gf_opts_check(opts->struct_size, sizeof(o), "gf_plan_compute", "GF_PLAN_OPTS_INIT")))
		return ret;
	gf_opts_copy(&o, sizeof(o), opts, opts->struct_size);
	if (o.ngpus < 1)
		return gf_arg_error(__func__, "ngpus %d: at least 1", o.ngpus);
	if (o.nfree < 0 || (o.nfree && !o.free))
		return gf_arg_error(__func__, "nfree %d without a free list", o.nfree);
	for (int i = 0; o.free && i < o.nfree; i++)
		if (o.free[i] < 0 || o.free[i] >= t->ngpus)
			return gf_arg_error(__func__, "free[%d] %d is not a position in the model's %d GPUs", i,
					    o.free[i], t->ngpus);
	if (!(p = calloc(1, sizeof(*p))))
		return gf_error(-ENOMEM, "out of memory");
	if ((ret = compute(t, &o, p))) {
		gf_plan_free(p);
		return ret;
	}
	*out = p;
	return 0;
}

GF_API void gf_plan_free(struct gf_plan *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nreason; i++)
		free(p->reason[i]);
	free(p->reason);
	free(p->gpu);
	free(p->nic);
	free(p->rest);
	free(p);
}

GF_API int gf_plan_format_parse(const char *s, enum gf_plan_format *out)
{
	static const char *const names[] = { "text", "json", "docker", "env", "k8s", "k8s-plugin" };

	if (!s || !out)
		return GF_NULL_ARG(!s ? "s" : "out");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum gf_plan_format)i;
			return 0;
		}
	return gf_error(-EINVAL, "format '%s' is not text, json, docker, env, k8s or k8s-plugin", s);
}

/* The Pod's name and the claim's (NAME-gpus) are DNS subdomains (RFC 1123),
 * or the API server refuses the objects. */
static int plan_check_name(const char *name)
{
	if (name && (!gf_dns_subdomain(name) || strlen(name) + strlen("-gpus") > 253))
		return gf_error(-EINVAL, "name '%s': not a valid object name (RFC 1123 subdomain: lower-case "
					 "letters, digits, '-' and '.', a letter or digit at each end, at most 248 "
					 "characters so that NAME-gpus fits 253)", name);
	return 0;
}

GF_API int gf_plan_write(const struct gf_topo *t, const struct gf_plan *p, enum gf_plan_format fmt,
			 const struct gf_plan_write_options *opts, FILE *f)
{
	struct gf_plan_write_options o = GF_PLAN_WRITE_OPTS_INIT;
	int ret;

	if (!t || !p || !f)
		return GF_NULL_ARG(!t ? "t" : !p ? "p" : "f");
	if ((unsigned)fmt > GF_PLAN_K8S_PLUGIN)
		return gf_arg_error(__func__, "fmt %d is not a gf_plan_format", (int)fmt);
	if (opts) {
		if ((ret = gf_opts_check(opts->struct_size, sizeof(o), "gf_plan_write", "GF_PLAN_WRITE_OPTS_INIT")))
			return ret;
		gf_opts_copy(&o, sizeof(o), opts, opts->struct_size);
	}
	if ((ret = plan_check_name(o.name)))
		return ret;
	switch (fmt) {
	case GF_PLAN_TEXT:
		return plan_write_text(t, p, f);
	case GF_PLAN_JSON:
		return plan_write_json(t, p, f);
	case GF_PLAN_DOCKER:
		return plan_write_docker(t, p, &o, f);
	case GF_PLAN_ENV:
		return plan_write_env(t, p, f);
	case GF_PLAN_K8S:
	case GF_PLAN_K8S_PLUGIN:
		return plan_write_k8s(t, p, &o, fmt == GF_PLAN_K8S, f);
	}
	return gf_error(-EINVAL, "gf_plan_write: unknown format %d", (int)fmt);
}
