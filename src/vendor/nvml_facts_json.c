/* nvml.json: the NVML facts of a recording (schema gpufeed-nvml-facts/1). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "core/atomic.h"
#include "core/error.h"
#include "core/json_read.h"
#include "core/pciaddr.h"
#include "core/strutil.h"
#include "vendor/nvml_facts.h"

void gf_nvml_facts_free(struct gf_nvml_facts *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->ngpus; i++) {
		free(f->gpus[i].links);
		free(f->gpus[i].mig);
	}
	free(f->gpus);
	free(f->pairs);
	free(f);
}

/* ---- writing ---- */

static json_t *cpuset_json(const struct gf_cpuset *s)
{
	char buf[8192];

	gf_cpuset_format_list(s, buf, sizeof(buf));
	return gf_jstr(buf);
}

static json_t *gpu_json(const struct gf_nvml_gpu *g)
{
	json_t *o = json_object(), *links = json_array(), *mig = json_object(), *inst = json_array();

	json_object_set_new(o, "index", json_integer(g->index));
	json_object_set_new(o, "pci", gf_jstr(g->pci));
	gf_jw_str_known(o, "name", g->name);
	gf_jw_str_known(o, "uuid", g->uuid);
	gf_jw_ll_known(o, "minor", g->minor);
	if (g->memory_bytes)
		json_object_set_new(o, "memory_total_bytes", json_integer((json_int_t)g->memory_bytes));
	gf_jw_ll_known(o, "numa_node_id", g->numa_node_id);
	if (g->cpu_affinity_known)
		json_object_set_new(o, "cpu_affinity", cpuset_json(&g->cpu_affinity));
	if (g->memory_affinity_known)
		json_object_set_new(o, "memory_affinity", cpuset_json(&g->memory_affinity));
	if (g->pcie_cur_gen >= 0 || g->pcie_max_gen >= 0) {
		json_t *p = json_object();

		gf_jw_ll_known(p, "cur_gen", g->pcie_cur_gen);
		gf_jw_ll_known(p, "cur_width", g->pcie_cur_width);
		gf_jw_ll_known(p, "max_gen", g->pcie_max_gen);
		gf_jw_ll_known(p, "max_width", g->pcie_max_width);
		json_object_set_new(o, "pcie", p);
	}
	for (int i = 0; i < g->nlinks; i++) {
		const struct gf_nvml_link *l = &g->links[i];
		json_t *lj = json_object();

		json_object_set_new(lj, "link", json_integer(l->link));
		json_object_set_new(lj, "active", json_boolean(l->active));
		if (l->version)
			json_object_set_new(lj, "version", json_integer(l->version));
		json_object_set_new(lj, "remote_type", gf_jstr(l->remote_type));
		gf_jw_str_known(lj, "remote_pci", l->remote_pci);
		json_array_append_new(links, lj);
	}
	json_object_set_new(o, "nvlinks", links);
	gf_jw_bool_known(mig, "current", g->mig_current);
	gf_jw_bool_known(mig, "pending", g->mig_pending);
	for (int i = 0; i < g->nmig; i++) {
		json_t *mj = json_object();

		gf_jw_str_known(mj, "uuid", g->mig[i].uuid);
		gf_jw_ll_known(mj, "gpu_instance", g->mig[i].gpu_instance);
		gf_jw_ll_known(mj, "compute_instance", g->mig[i].compute_instance);
		if (g->mig[i].memory_bytes)
			json_object_set_new(mj, "memory_total_bytes",
					    json_integer((json_int_t)g->mig[i].memory_bytes));
		json_array_append_new(inst, mj);
	}
	json_object_set_new(mig, "instances", inst);
	json_object_set_new(o, "mig", mig);
	gf_jw_bool_known(o, "persistence_mode", g->persistence_mode);
	gf_jw_str_known(o, "compute_mode", g->compute_mode);
	if (g->ecc_current >= 0) {
		json_t *e = json_object();

		gf_jw_bool_known(e, "current", g->ecc_current);
		gf_jw_bool_known(e, "pending", g->ecc_pending);
		json_object_set_new(o, "ecc", e);
	}
	if (g->remap_correctable >= 0) {
		json_t *r = json_object();

		json_object_set_new(r, "correctable", json_integer(g->remap_correctable));
		json_object_set_new(r, "uncorrectable", json_integer(g->remap_uncorrectable));
		gf_jw_bool_known(r, "pending", g->remap_pending);
		gf_jw_bool_known(r, "failure", g->remap_failure);
		json_object_set_new(o, "remapped_rows", r);
	}
	gf_jw_bool_known(o, "retired_pages_pending", g->retired_pages_pending);
	gf_jw_ll_known(o, "clocks_event_reasons", g->clocks_event_reasons);
	if (g->power_current_mw >= 0 || g->power_default_mw >= 0) {
		json_t *p = json_object();

		gf_jw_ll_known(p, "current", g->power_current_mw);
		gf_jw_ll_known(p, "default", g->power_default_mw);
		gf_jw_ll_known(p, "enforced", g->power_enforced_mw);
		gf_jw_ll_known(p, "min", g->power_min_mw);
		gf_jw_ll_known(p, "max", g->power_max_mw);
		json_object_set_new(o, "power_limit_mw", p);
	}
	if (g->fabric_known) {
		json_t *fj = json_object();

		json_object_set_new(fj, "state", gf_jstr(g->fabric_state));
		gf_jw_ll_known(fj, "status", g->fabric_status);
		gf_jw_ll_known(fj, "clique_id", g->fabric_clique);
		gf_jw_str_known(fj, "cluster_uuid", g->fabric_cluster_uuid);
		gf_jw_ll_known(fj, "health_mask", g->fabric_health_mask);
		json_object_set_new(o, "fabric", fj);
	}
	return o;
}

static int dump_cb(FILE *f, void *arg)
{
	json_t *root = arg;

	if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		return -EIO;
	fputc('\n', f);
	return 0;
}

int gf_nvml_facts_save(const struct gf_nvml_facts *f, const char *path)
{
	json_t *root = json_object(), *gpus = json_array(), *pairs = json_array();
	int ret;

	json_object_set_new(root, "schema", gf_jstr(GF_NVML_FACTS_SCHEMA));
	gf_jw_str_known(root, "nvml_version", f->nvml_version);
	gf_jw_str_known(root, "driver_version", f->driver_version);
	if (f->cuda_driver_version)
		json_object_set_new(root, "cuda_driver_version", json_integer(f->cuda_driver_version));
	for (int i = 0; i < f->ngpus; i++)
		json_array_append_new(gpus, gpu_json(&f->gpus[i]));
	json_object_set_new(root, "gpus", gpus);
	for (int i = 0; i < f->npairs; i++) {
		const struct gf_nvml_pair *p = &f->pairs[i];
		json_t *pj = json_object();

		json_object_set_new(pj, "a", json_integer(p->a));
		json_object_set_new(pj, "b", json_integer(p->b));
		gf_jw_str_known(pj, "common_ancestor", p->common_ancestor);
		gf_jw_str_known(pj, "p2p_read", p->p2p_read);
		gf_jw_str_known(pj, "p2p_nvlink", p->p2p_nvlink);
		json_array_append_new(pairs, pj);
	}
	json_object_set_new(root, "pairs", pairs);
	ret = gf_atomic_write(path, dump_cb, root);
	json_decref(root);
	return ret;
}

/* ---- reading ---- */

static void jr_cpuset(struct gf_jr *jr, json_t *o, const char *where, const char *key,
		      struct gf_cpuset *s, bool *known)
{
	char buf[8192];

	if (!gf_jr_str(jr, o, where, key, buf, sizeof(buf)))
		return;
	if (gf_cpuset_parse_list(s, buf)) {
		if (!jr->err)
			jr->err = gf_error(-EBADMSG, "%s: %s.%s: not a CPU list: '%s'",
					   jr->file, where, key, buf);
		return;
	}
	*known = true;
}

static void jr_pci(struct gf_jr *jr, json_t *o, const char *where, const char *key,
		   char *out, size_t size)
{
	char buf[64] = "";

	if (!gf_jr_str(jr, o, where, key, buf, sizeof(buf)) || jr->err)
		return;
	if (!gf_pci_normalize(buf, out, size))
		jr->err = gf_error(-EBADMSG, "%s: %s.%s: not a PCI address: '%s'",
				   jr->file, where, key, buf);
}

static void read_links(struct gf_jr *jr, json_t *arr, const char *where, struct gf_nvml_gpu *g)
{
	size_t n = json_array_size(arr);

	if (!n)
		return;
	g->links = calloc(n, sizeof(*g->links));
	if (!g->links) {
		jr->err = gf_error(-ENOMEM, "%s: out of memory", jr->file);
		return;
	}
	for (size_t i = 0; i < n && !jr->err; i++) {
		struct gf_nvml_link *l = &g->links[g->nlinks++];
		json_t *lj = json_array_get(arr, i);
		char w[64];
		int active = 0;

		snprintf(w, sizeof(w), "%s.nvlinks[%zu]", where, i);
		l->link = (int)i;
		gf_strlcpy(l->remote_type, "unknown", sizeof(l->remote_type));
		gf_jr_int(jr, lj, w, "link", &l->link);
		gf_jr_bool(jr, lj, w, "active", &active);
		l->active = active;
		gf_jr_int(jr, lj, w, "version", &l->version);
		gf_jr_str(jr, lj, w, "remote_type", l->remote_type, sizeof(l->remote_type));
		jr_pci(jr, lj, w, "remote_pci", l->remote_pci, sizeof(l->remote_pci));
		if (!jr->err && !json_is_object(lj))
			jr->err = gf_error(-EBADMSG, "%s: %s: expected an object", jr->file, w);
	}
}

static void read_mig(struct gf_jr *jr, json_t *mj, const char *where, struct gf_nvml_gpu *g)
{
	char w[64];
	json_t *arr;
	size_t n;

	snprintf(w, sizeof(w), "%s.mig", where);
	gf_jr_bool(jr, mj, w, "current", &g->mig_current);
	gf_jr_bool(jr, mj, w, "pending", &g->mig_pending);
	arr = gf_jr_array(jr, mj, w, "instances");
	n = json_array_size(arr);
	if (!n || jr->err)
		return;
	g->mig = calloc(n, sizeof(*g->mig));
	if (!g->mig) {
		jr->err = gf_error(-ENOMEM, "%s: out of memory", jr->file);
		return;
	}
	for (size_t i = 0; i < n && !jr->err; i++) {
		struct gf_nvml_mig *m = &g->mig[g->nmig++];
		json_t *ij = json_array_get(arr, i);
		char wi[80];
		long long mem = 0;

		snprintf(wi, sizeof(wi), "%s.instances[%zu]", w, i);
		m->gpu_instance = m->compute_instance = -1;
		gf_jr_str(jr, ij, wi, "uuid", m->uuid, sizeof(m->uuid));
		gf_jr_int(jr, ij, wi, "gpu_instance", &m->gpu_instance);
		gf_jr_int(jr, ij, wi, "compute_instance", &m->compute_instance);
		if (gf_jr_ll(jr, ij, wi, "memory_total_bytes", &mem) && mem > 0)
			m->memory_bytes = (unsigned long long)mem;
	}
}

static void read_gpu(struct gf_jr *jr, json_t *gj, int pos, struct gf_nvml_gpu *g)
{
	char w[32];
	json_t *o;
	long long mem = 0;

	snprintf(w, sizeof(w), "gpus[%d]", pos);
	memset(g, 0, sizeof(*g));
	g->index = pos;
	g->minor = g->numa_node_id = -1;
	g->pcie_cur_gen = g->pcie_cur_width = g->pcie_max_gen = g->pcie_max_width = -1;
	g->mig_current = g->mig_pending = -1;
	g->persistence_mode = g->ecc_current = g->ecc_pending = -1;
	g->remap_correctable = g->remap_uncorrectable = -1;
	g->remap_pending = g->remap_failure = g->retired_pages_pending = -1;
	g->clocks_event_reasons = -1;
	g->power_current_mw = g->power_default_mw = g->power_enforced_mw = -1;
	g->power_min_mw = g->power_max_mw = -1;
	g->fabric_status = g->fabric_clique = g->fabric_health_mask = -1;
	if (!json_is_object(gj)) {
		jr->err = gf_error(-EBADMSG, "%s: %s: expected an object", jr->file, w);
		return;
	}
	gf_jr_int(jr, gj, w, "index", &g->index);
	jr_pci(jr, gj, w, "pci", g->pci, sizeof(g->pci));
	if (!jr->err && !g->pci[0])
		jr->err = gf_error(-EBADMSG, "%s: %s.pci: missing (every GPU needs its PCI address)",
				   jr->file, w);
	gf_jr_str(jr, gj, w, "name", g->name, sizeof(g->name));
	gf_jr_str(jr, gj, w, "uuid", g->uuid, sizeof(g->uuid));
	gf_jr_int(jr, gj, w, "minor", &g->minor);
	if (gf_jr_ll(jr, gj, w, "memory_total_bytes", &mem) && mem > 0)
		g->memory_bytes = (unsigned long long)mem;
	gf_jr_int(jr, gj, w, "numa_node_id", &g->numa_node_id);
	jr_cpuset(jr, gj, w, "cpu_affinity", &g->cpu_affinity, &g->cpu_affinity_known);
	jr_cpuset(jr, gj, w, "memory_affinity", &g->memory_affinity, &g->memory_affinity_known);
	if ((o = gf_jr_object(jr, gj, w, "pcie"))) {
		char wp[48];

		snprintf(wp, sizeof(wp), "%s.pcie", w);
		gf_jr_int(jr, o, wp, "cur_gen", &g->pcie_cur_gen);
		gf_jr_int(jr, o, wp, "cur_width", &g->pcie_cur_width);
		gf_jr_int(jr, o, wp, "max_gen", &g->pcie_max_gen);
		gf_jr_int(jr, o, wp, "max_width", &g->pcie_max_width);
	}
	read_links(jr, gf_jr_array(jr, gj, w, "nvlinks"), w, g);
	if ((o = gf_jr_object(jr, gj, w, "mig")))
		read_mig(jr, o, w, g);
	gf_jr_bool(jr, gj, w, "persistence_mode", &g->persistence_mode);
	gf_jr_str(jr, gj, w, "compute_mode", g->compute_mode, sizeof(g->compute_mode));
	if ((o = gf_jr_object(jr, gj, w, "ecc"))) {
		gf_jr_bool(jr, o, w, "current", &g->ecc_current);
		gf_jr_bool(jr, o, w, "pending", &g->ecc_pending);
	}
	if ((o = gf_jr_object(jr, gj, w, "remapped_rows"))) {
		gf_jr_ll(jr, o, w, "correctable", &g->remap_correctable);
		gf_jr_ll(jr, o, w, "uncorrectable", &g->remap_uncorrectable);
		gf_jr_bool(jr, o, w, "pending", &g->remap_pending);
		gf_jr_bool(jr, o, w, "failure", &g->remap_failure);
	}
	gf_jr_bool(jr, gj, w, "retired_pages_pending", &g->retired_pages_pending);
	gf_jr_ll(jr, gj, w, "clocks_event_reasons", &g->clocks_event_reasons);
	if ((o = gf_jr_object(jr, gj, w, "power_limit_mw"))) {
		gf_jr_ll(jr, o, w, "current", &g->power_current_mw);
		gf_jr_ll(jr, o, w, "default", &g->power_default_mw);
		gf_jr_ll(jr, o, w, "enforced", &g->power_enforced_mw);
		gf_jr_ll(jr, o, w, "min", &g->power_min_mw);
		gf_jr_ll(jr, o, w, "max", &g->power_max_mw);
	}
	if ((o = gf_jr_object(jr, gj, w, "fabric"))) {
		g->fabric_known = true;
		gf_jr_str(jr, o, w, "state", g->fabric_state, sizeof(g->fabric_state));
		gf_jr_ll(jr, o, w, "status", &g->fabric_status);
		gf_jr_ll(jr, o, w, "clique_id", &g->fabric_clique);
		gf_jr_str(jr, o, w, "cluster_uuid", g->fabric_cluster_uuid, sizeof(g->fabric_cluster_uuid));
		gf_jr_ll(jr, o, w, "health_mask", &g->fabric_health_mask);
	}
}

static void read_pairs(struct gf_jr *jr, json_t *arr, struct gf_nvml_facts *f)
{
	size_t n = json_array_size(arr);

	if (!n)
		return;
	f->pairs = calloc(n, sizeof(*f->pairs));
	if (!f->pairs) {
		jr->err = gf_error(-ENOMEM, "%s: out of memory", jr->file);
		return;
	}
	for (size_t i = 0; i < n && !jr->err; i++) {
		struct gf_nvml_pair *p = &f->pairs[f->npairs++];
		json_t *pj = json_array_get(arr, i);
		char w[32];

		snprintf(w, sizeof(w), "pairs[%zu]", i);
		p->a = p->b = -1;
		gf_jr_int(jr, pj, w, "a", &p->a);
		gf_jr_int(jr, pj, w, "b", &p->b);
		gf_jr_str(jr, pj, w, "common_ancestor", p->common_ancestor, sizeof(p->common_ancestor));
		gf_jr_str(jr, pj, w, "p2p_read", p->p2p_read, sizeof(p->p2p_read));
		gf_jr_str(jr, pj, w, "p2p_nvlink", p->p2p_nvlink, sizeof(p->p2p_nvlink));
		if (!jr->err && (p->a < 0 || p->b < 0))
			jr->err = gf_error(-EBADMSG, "%s: %s: needs GPU indices a and b", jr->file, w);
	}
}

int gf_nvml_facts_load(const char *path, struct gf_nvml_facts **out)
{
	FILE *fp;
	char *data = NULL;
	size_t cap = 0, len = 0;
	int ret;

	*out = NULL;
	fp = fopen(path, "re");
	if (!fp)
		return gf_error_errno(-errno, path);
	for (;;) {
		size_t r;

		if (len == cap) {
			char *nd = realloc(data, cap ? cap * 2 : 65536);

			if (!nd) {
				free(data);
				fclose(fp);
				return gf_error(-ENOMEM, "%s: out of memory", path);
			}
			data = nd;
			cap = cap ? cap * 2 : 65536;
		}
		r = fread(data + len, 1, cap - len, fp);
		len += r;
		if (r == 0)
			break;
	}
	ret = ferror(fp) ? gf_error_errno(-EIO, path) : gf_nvml_facts_parse(data, len, path, out);
	fclose(fp);
	free(data);
	return ret;
}

int gf_nvml_facts_parse(const char *data, size_t len, const char *path, struct gf_nvml_facts **out)
{
	struct gf_jr jr = { .file = path };
	struct gf_nvml_facts *f;
	json_error_t jerr;
	json_t *root, *gpus;
	char schema[64] = "";

	*out = NULL;
	root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return gf_error(-EBADMSG, "%s:%d: %s", path, jerr.line, jerr.text);
	f = calloc(1, sizeof(*f));
	if (!f) {
		json_decref(root);
		return gf_error(-ENOMEM, "%s: out of memory", path);
	}
	if (!json_is_object(root)) {
		jr.err = gf_error(-EBADMSG, "%s: expected a JSON object", path);
		goto out;
	}
	gf_jr_str(&jr, root, "", "schema", schema, sizeof(schema));
	if (!jr.err && strcmp(schema, GF_NVML_FACTS_SCHEMA)) {
		jr.err = gf_error(-EBADMSG, "%s: schema '%s' is not %s", path, schema,
				  GF_NVML_FACTS_SCHEMA);
		goto out;
	}
	gf_jr_str(&jr, root, "", "nvml_version", f->nvml_version, sizeof(f->nvml_version));
	gf_jr_str(&jr, root, "", "driver_version", f->driver_version, sizeof(f->driver_version));
	gf_jr_int(&jr, root, "", "cuda_driver_version", &f->cuda_driver_version);
	gpus = gf_jr_array(&jr, root, "", "gpus");
	if (gpus && json_array_size(gpus)) {
		f->gpus = calloc(json_array_size(gpus), sizeof(*f->gpus));
		if (!f->gpus) {
			jr.err = gf_error(-ENOMEM, "%s: out of memory", path);
			goto out;
		}
		for (size_t i = 0; i < json_array_size(gpus) && !jr.err; i++)
			read_gpu(&jr, json_array_get(gpus, i), (int)i, &f->gpus[f->ngpus++]);
	}
	/* One GPU per index and per PCI address, or the model would lose or
	 * double one silently. */
	for (int i = 0; i < f->ngpus && !jr.err; i++) {
		if (f->gpus[i].index < 0)
			jr.err = gf_error(-EBADMSG, "%s: gpus[%d].index: %d is negative", path, i, f->gpus[i].index);
		for (int k = 0; k < i && !jr.err; k++) {
			if (f->gpus[k].index == f->gpus[i].index)
				jr.err = gf_error(-EBADMSG, "%s: gpus[%d].index: %d is also gpus[%d]'s", path, i,
						  f->gpus[i].index, k);
			else if (!strcmp(f->gpus[k].pci, f->gpus[i].pci))
				jr.err = gf_error(-EBADMSG, "%s: gpus[%d].pci: %s is also gpus[%d]'s", path, i,
						  f->gpus[i].pci, k);
		}
	}
	read_pairs(&jr, gf_jr_array(&jr, root, "", "pairs"), f);
out:
	json_decref(root);
	if (jr.err) {
		gf_nvml_facts_free(f);
		return jr.err;
	}
	*out = f;
	return 0;
}
