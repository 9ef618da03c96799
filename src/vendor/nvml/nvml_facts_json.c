/* nvml.json: the NVML facts of a recording (schema gpufeed-nvml-facts/1). */
#include <errno.h>
#include <stdarg.h>
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
#include "vendor/nvml/nvml_facts.h"

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
	for (int i = 0; i < f->nwarnings; i++)
		free(f->warnings[i]);
	free(f->warnings);
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

/* A value that parses but cannot be true: kept as a warning (memory
 * permitting), and the caller takes the value as unknown. */
GF_PRINTF(2, 3) static void facts_warn(struct gf_nvml_facts *f, const char *fmt, ...)
{
	char *msg = NULL, **nw;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	nw = realloc(f->warnings, (size_t)(f->nwarnings + 1) * sizeof(*nw));
	if (!nw) {
		free(msg);
		return;
	}
	f->warnings = nw;
	f->warnings[f->nwarnings++] = msg;
}

/* An optional integer that must lie in [lo, hi] (or be `unknown`): out of
 * range, it is reported and left at `unknown`. */
static void jr_int_range(struct gf_jr *jr, struct gf_nvml_facts *f, json_t *o, const char *where,
			 const char *key, int *out, int lo, int hi, int unknown)
{
	int v;

	if (!gf_jr_int(jr, o, where, key, &v))
		return;
	if (v == unknown || (v >= lo && v <= hi)) {
		*out = v;
		return;
	}
	facts_warn(f, "%s: %s%s%s: %d is out of range (%d to %d): taken as unknown", jr->file, where,
		   *where ? "." : "", key, v, lo, hi);
	*out = unknown;
}

/* A PCIe link width as NVML reports it. */
static void jr_width(struct gf_jr *jr, struct gf_nvml_facts *f, json_t *o, const char *where,
		     const char *key, int *out)
{
	int v;

	if (!gf_jr_int(jr, o, where, key, &v))
		return;
	if (v == -1 || v == 0 || v == 1 || v == 2 || v == 4 || v == 8 || v == 12 || v == 16 || v == 32) {
		*out = v;
		return;
	}
	facts_warn(f, "%s: %s.%s: %d is not a PCIe link width: taken as unknown", jr->file, where, key, v);
	*out = -1;
}

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

static void read_links(struct gf_jr *jr, struct gf_nvml_facts *f, json_t *arr, const char *where,
		       struct gf_nvml_gpu *g)
{
	size_t n = json_array_size(arr);

	if (!n)
		return;
	if (n > GF_NVML_MAX_LINKS) {
		facts_warn(f, "%s: %s.nvlinks: %zu links, more than NVML's %d: the GPU's NVLinks are taken as unknown",
			   jr->file, where, n, GF_NVML_MAX_LINKS);
		g->links_unknown = true;
		return;
	}
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
		jr_int_range(jr, f, lj, w, "link", &l->link, 0, GF_NVML_MAX_LINKS - 1, (int)i);
		gf_jr_bool(jr, lj, w, "active", &active);
		l->active = active;
		/* 0 is NVML's "invalid", which the writer leaves out. */
		if (gf_jr_int(jr, lj, w, "version", &l->version) &&
		    (l->version < 1 || l->version > GF_NVLINK_VERSION_MAX)) {
			facts_warn(f, "%s: %s.version: %d is not an NVLink version (1 to %d): taken as unknown",
				   jr->file, w, l->version, GF_NVLINK_VERSION_MAX);
			l->version = 0;
		}
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

static void read_gpu(struct gf_jr *jr, struct gf_nvml_facts *f, json_t *gj, int pos, struct gf_nvml_gpu *g)
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
	/* /dev/nvidia0 to /dev/nvidia254 (255 is nvidiactl). */
	jr_int_range(jr, f, gj, w, "minor", &g->minor, 0, 254, -1);
	if (gf_jr_ll(jr, gj, w, "memory_total_bytes", &mem)) {
		if (mem > 0)
			g->memory_bytes = (unsigned long long)mem;
		else
			facts_warn(f, "%s: %s.memory_total_bytes: %lld is not a memory size: taken as unknown",
				   jr->file, w, mem);
	}
	jr_int_range(jr, f, gj, w, "numa_node_id", &g->numa_node_id, 0, GF_CPUSET_MAX - 1, -1);
	jr_cpuset(jr, gj, w, "cpu_affinity", &g->cpu_affinity, &g->cpu_affinity_known);
	jr_cpuset(jr, gj, w, "memory_affinity", &g->memory_affinity, &g->memory_affinity_known);
	if ((o = gf_jr_object(jr, gj, w, "pcie"))) {
		char wp[48];

		snprintf(wp, sizeof(wp), "%s.pcie", w);
		jr_int_range(jr, f, o, wp, "cur_gen", &g->pcie_cur_gen, 1, 7, -1);
		jr_width(jr, f, o, wp, "cur_width", &g->pcie_cur_width);
		jr_int_range(jr, f, o, wp, "max_gen", &g->pcie_max_gen, 1, 7, -1);
		jr_width(jr, f, o, wp, "max_width", &g->pcie_max_width);
	}
	read_links(jr, f, gf_jr_array(jr, gj, w, "nvlinks"), w, g);
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

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* A pair naming an index no GPU has answers nothing: reported, dropped. */
static void drop_stray_pairs(struct gf_jr *jr, struct gf_nvml_facts *f)
{
	int kept = 0, *idx;

	if (jr->err || !f->npairs)
		return;
	idx = malloc((size_t)(f->ngpus ? f->ngpus : 1) * sizeof(*idx));
	if (!idx) {
		jr->err = gf_error(-ENOMEM, "%s: out of memory", jr->file);
		return;
	}
	for (int k = 0; k < f->ngpus; k++)
		idx[k] = f->gpus[k].index;
	qsort(idx, (size_t)f->ngpus, sizeof(*idx), cmp_int);
	for (int i = 0; i < f->npairs; i++) {
		const struct gf_nvml_pair *p = &f->pairs[i];

		if (p->a != p->b && bsearch(&p->a, idx, (size_t)f->ngpus, sizeof(*idx), cmp_int) &&
		    bsearch(&p->b, idx, (size_t)f->ngpus, sizeof(*idx), cmp_int))
			f->pairs[kept++] = *p;
		else
			facts_warn(f, "%s: pairs[%d]: GPUs %d and %d are not two of the GPUs listed: ignored",
				   jr->file, i, p->a, p->b);
	}
	f->npairs = kept;
	free(idx);
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
	/* 1000 * major + 10 * minor: CUDA 2.0 (2000) onwards. */
	jr_int_range(&jr, f, root, "", "cuda_driver_version", &f->cuda_driver_version, 2000, 999999, 0);
	gpus = gf_jr_array(&jr, root, "", "gpus");
	/* The checks below compare GPUs pairwise. */
	if (json_array_size(gpus) > GF_NVML_MAX_GPUS) {
		jr.err = gf_error(-EBADMSG, "%s: gpus: %zu GPUs, more than the %d gpufeed takes from one machine",
				  path, json_array_size(gpus), GF_NVML_MAX_GPUS);
		goto out;
	}
	if (gpus && json_array_size(gpus)) {
		f->gpus = calloc(json_array_size(gpus), sizeof(*f->gpus));
		if (!f->gpus) {
			jr.err = gf_error(-ENOMEM, "%s: out of memory", path);
			goto out;
		}
		for (size_t i = 0; i < json_array_size(gpus) && !jr.err; i++)
			read_gpu(&jr, f, json_array_get(gpus, i), (int)i, &f->gpus[f->ngpus++]);
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
	drop_stray_pairs(&jr, f);
out:
	json_decref(root);
	if (jr.err) {
		gf_nvml_facts_free(f);
		return jr.err;
	}
	*out = f;
	return 0;
}
