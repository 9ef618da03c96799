/* gf_topo_discover(): run the discovery steps over one root, then derive the
 * matrix, the paths and the findings.  Also the small shared helpers. */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpufeed/env.h>
#include <gpufeed/gpufeed.h>
#include "core/log.h"
#include "core/opts.h"
#include "core/pciaddr.h"
#include "core/strutil.h"
#include "topo/discover.h"
#include "topo/render.h"
#include "topo/topo_internal.h"

GF_API const char *gf_source_name(enum gf_source s)
{
	switch (s) {
	case GF_SRC_SYSFS:       return "sysfs";
	case GF_SRC_NVML:        return "nvml";
	case GF_SRC_SINGLE_NODE: return "single-node";
	case GF_SRC_OVERRIDE:    return "override";
	case GF_SRC_PROCFS:      return "procfs";
	case GF_SRC_PCI_ORDER:   return "pci-order";
	case GF_SRC_NODE_CPUS:   return "node-cpus";
	case GF_SRC_UNKNOWN:     return "unknown";
	}
	return "?";
}

GF_API const char *gf_pci_kind_name(enum gf_pci_kind k)
{
	static const char *names[] = { "other", "bridge", "gpu", "nvswitch", "nic", "nvme", "storage" };

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

GF_API const char *gf_severity_name(enum gf_severity s)
{
	return s == GF_SEV_ERROR ? "error" : s == GF_SEV_WARN ? "warning" : s == GF_SEV_INFO ? "info" : "?";
}

void *gf_push(void *arr_ptr, int *n, size_t sz)
{
	void **arr = arr_ptr;
	char *na;

	/* Grow geometrically: capacity is the next power of two >= n+1. */
	if ((*n & (*n - 1)) == 0) {
		size_t cap = *n ? (size_t)*n * 2 : 4;

		na = realloc(*arr, cap * sz);
		if (!na)
			return NULL;
		*arr = na;
	}
	na = (char *)*arr + (size_t)*n * sz;
	memset(na, 0, sz);
	(*n)++;
	return na;
}

/* FNV-1a: the warnings are short texts. */
static size_t warn_hash(const char *s)
{
	size_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot of msg in the table: its own, or the empty one where it goes. */
static size_t warn_find(const struct gf_ctx *c, const char *msg)
{
	size_t i = warn_hash(msg) & (c->warn_cap - 1);

	while (c->warn_slot[i] && strcmp(c->t->warnings[c->warn_slot[i] - 1], msg))
		i = (i + 1) & (c->warn_cap - 1);
	return i;
}

/* Keeps the table at most half full, so that a lookup stays short. */
static int warn_grow(struct gf_ctx *c)
{
	size_t need = (size_t)c->t->nwarnings + 1, cap = 64;
	int *slot;

	if (need <= c->warn_cap / 2)
		return 0;
	while (need > cap / 2)
		cap *= 2;
	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	free(c->warn_slot);
	c->warn_slot = slot;
	c->warn_cap = cap;
	for (int w = 0; w < c->t->nwarnings; w++)	/* warnings kept before: all distinct */
		c->warn_slot[warn_find(c, c->t->warnings[w])] = w + 1;
	return 0;
}

void gf_warn_fini(struct gf_ctx *c)
{
	free(c->warn_slot);
	c->warn_slot = NULL;
	c->warn_cap = 0;
}

void gf_warn(struct gf_ctx *c, const char *fmt, ...)
{
	struct gf_topo *t = c->t;
	char **slot;
	size_t at;
	va_list ap;
	char *msg = NULL;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	gf_sanitize_text(msg);	/* it may quote a file's content; it reaches a terminal */
	/* The same file can be read twice (shared helpers); say it once. */
	if (warn_grow(c)) {
		free(msg);
		return;
	}
	at = warn_find(c, msg);
	if (c->warn_slot[at]) {
		free(msg);
		return;
	}
	slot = gf_push(&t->warnings, &t->nwarnings, sizeof(*slot));
	if (!slot) {
		free(msg);
		return;
	}
	*slot = msg;
	c->warn_slot[at] = t->nwarnings;
}

void gf_warn_last(struct gf_ctx *c)
{
	gf_warn(c, "%s", gf_last_error());
}

int gf_probe(struct gf_ctx *c, const char *path, struct stat *st)
{
	struct stat local;
	int ret = gf_fs_probe(&c->fs, path, st ? st : &local);

	if (ret == 0)
		return 1;
	if (ret == -ENOENT)
		return 0;
	gf_warn_last(c);
	return ret;
}

int gf_finding(struct gf_topo *t, enum gf_severity sev, const char *id, const char *subject,
	       const char *fmt, ...)
{
	struct gf_finding *f = gf_push(&t->findings, &t->nfindings, sizeof(*f));
	va_list ap;

	if (!f)
		return -ENOMEM;
	f->severity = sev;
	gf_strlcpy(f->id, id, sizeof(f->id));
	gf_strlcpy(f->subject, subject, sizeof(f->subject));
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof(f->message), fmt, ap);
	va_end(ap);
	return 0;
}

int gf_nvml_facts_read(const struct gf_fs *fs, struct gf_nvml_facts **facts)
{
	char real[PATH_MAX], *data;
	size_t len;
	int ret;

	*facts = NULL;
	ret = gf_fs_read(fs, "/nvml.json", &data, &len);
	if (ret)
		return ret;
	gf_fs_real(fs, "/nvml.json", real, sizeof(real));
	ret = gf_nvml_facts_parse(data, len, real, facts);
	free(data);
	return ret;
}

/* Errors that mean "the kernel has no value here", not bad input.  sysfs
 * answers EINVAL, EIO, ENODEV or EOPNOTSUPP for attributes a device does
 * not implement (the speed of a link that is down).  Permission errors are
 * not among them: they are reported.  Nor is EAGAIN: fs has retried it
 * already, so one that still comes back is a read that failed. */
static bool no_value(int err)
{
	return err == -ENOENT || err == -ENODEV || err == -ENXIO || err == -EINVAL ||
	       err == -EOPNOTSUPP || err == -ENOTDIR || err == -EIO || err == -EBUSY;
}

int gf_read_opt(struct gf_ctx *c, const char *path, char **data, size_t *len)
{
	int ret = gf_fs_read(&c->fs, path, data, len);

	if (ret && !no_value(ret))
		gf_warn_last(c);
	return ret;
}

int gf_read_opt_ll(struct gf_ctx *c, const char *path, long long *v)
{
	int ret = gf_fs_read_ll(&c->fs, path, v);

	if (ret && !no_value(ret))
		gf_warn_last(c);
	return ret;
}

int gf_read_opt_str(struct gf_ctx *c, const char *path, char *buf, size_t size)
{
	int ret = gf_fs_read_str(&c->fs, path, buf, size);

	if (ret && !no_value(ret))
		gf_warn_last(c);
	return ret;
}

/* A CPU or node list file: at most GF_CPULIST_MAX_TEXT bytes (a longer
 * file is no kernel list, and parsing it is work nobody asked for). */
static int read_list(struct gf_ctx *c, const char *path, struct gf_cpuset *s)
{
	char real[PATH_MAX], msg[512], *buf;
	int ret;

	gf_cpuset_zero(s);
	buf = malloc(GF_CPULIST_MAX_TEXT);
	if (!buf)
		return gf_error(-ENOMEM, "out of memory");
	gf_fs_real(&c->fs, path, real, sizeof(real));
	ret = gf_fs_read_str(&c->fs, path, buf, GF_CPULIST_MAX_TEXT);
	if (ret == -EOVERFLOW) {
		ret = gf_error(-EBADMSG, "%s: longer than any CPU list (%d bytes at most): ignored", real,
			       GF_CPULIST_MAX_TEXT - 1);
		gf_warn_last(c);
	} else if (ret) {
		if (!no_value(ret))
			gf_warn_last(c);
	} else if ((ret = gf_cpuset_parse_list(s, buf))) {
		gf_strlcpy(msg, gf_last_error(), sizeof(msg));
		ret = gf_error(-EBADMSG, "%s: %s", real, msg);
		gf_warn_last(c);
	}
	free(buf);
	if (ret)
		gf_cpuset_zero(s);
	return ret;
}

int gf_read_opt_nodelist(struct gf_ctx *c, const char *path, struct gf_cpuset *s)
{
	return read_list(c, path, s);
}

int gf_read_opt_cpulist(struct gf_ctx *c, const char *path, struct gf_cpuset *s)
{
	const struct gf_cpus *cp = &c->t->cpus;
	struct gf_cpuset absent;
	char real[PATH_MAX], list[80], possible[80];
	int ret = read_list(c, path, s);

	/* Once the machine's CPUs are known, a list naming others is wrong. */
	if (ret || !cp->ncpu)
		return ret;
	gf_cpuset_andnot(&absent, s, &cp->possible);
	if (gf_cpuset_empty(&absent))
		return 0;
	gf_fs_real(&c->fs, path, real, sizeof(real));
	gf_cpuset_format_short(&absent, list, sizeof(list));
	gf_cpuset_format_short(&cp->possible, possible, sizeof(possible));
	gf_error(-EBADMSG, "%s: names CPUs %s, which this machine does not have (possible CPUs: %s): ignored",
		 real, list, possible);
	gf_warn_last(c);
	gf_cpuset_zero(s);
	return -EBADMSG;
}

int gf_numa_index(const struct gf_topo *t, int node)
{
	for (int i = 0; i < t->numa.nnodes; i++)
		if (t->numa.node[i].id == node)
			return i;
	return -1;
}

static int load_facts(struct gf_ctx *c, enum gf_nvml_mode mode)
{
	struct gf_topo *t = c->t;
	char why[200] = "";
	int ret;

	if (mode == GF_NVML_OFF) {
		gf_strlcpy(t->machine.nvml_note, "NVML not used (--nvml=off)", sizeof(t->machine.nvml_note));
		GF_INFO(GF_LOG_VENDOR, "%s", t->machine.nvml_note);
		return 0;
	}
	if (gf_fs_live(&c->fs)) {
		ret = gf_nvml_collect(GF_NVML_TOPOLOGY, &c->facts, why, sizeof(why));
	} else {
		ret = gf_nvml_facts_read(&c->fs, &c->facts);
		if (ret == -ENOENT)
			snprintf(why, sizeof(why), "the recording has no nvml.json");
		else if (ret)
			return ret;	/* a malformed nvml.json is an input error */
	}
	if (ret) {
		snprintf(t->machine.nvml_note, sizeof(t->machine.nvml_note), "NVML not available: %s", why);
		/* machine.nvml_note keeps it for the JSON field; the channel says it
		 * when it happens, as every other diagnostic. */
		GF_INFO(GF_LOG_VENDOR, "%s", t->machine.nvml_note);
		if (mode == GF_NVML_REQUIRE)
			return gf_error(-ENOSYS, "%s", t->machine.nvml_note);
		return 0;
	}
	t->machine.nvml = true;
	return 0;
}

int gf_topo_discover_ctx(struct gf_ctx *c, struct gf_topo **out)
{
	int (*steps[])(struct gf_ctx *) = {
		gf_discover_machine, gf_discover_cpus, gf_discover_numa, gf_discover_pci,
		gf_discover_gpus, gf_discover_nics, gf_discover_blocks, gf_build_matrix,
		gf_build_paths, gf_build_findings,
	};
	int ret = 0;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && !ret; i++) {
		if ((steps[i] == gf_discover_blocks && (c->t->omitted & GF_TOPO_OMIT_STORAGE)) ||
		    (steps[i] == gf_build_findings && c->t->omitted))
			continue;
		ret = steps[i](c);
	}
	free(c->self_status);
	c->self_status = NULL;
	gf_warn_fini(c);
	if (ret) {
		gf_topo_free(c->t);
		c->t = NULL;
		return ret;
	}
	*out = c->t;
	return 0;
}

/* gf_topo_options_copy for the public function func, which messages name. */
static int options_copy(const struct gf_topo_options *in, struct gf_topo_options *out, const char *func)
{
	static const struct gf_topo_options defaults = GF_TOPO_OPTS_INIT;
	int ret;

	if (!out)
		return gf_arg_error(func, "out is NULL");
	*out = defaults;
	if (!in)
		return 0;
	/* Read what the caller's struct holds; the rest keeps its default. */
	ret = gf_opts_check(in->struct_size, offsetof(struct gf_topo_options, pci_locality) + sizeof(in->pci_locality),
			    func, "GF_TOPO_OPTS_INIT");
	if (ret)
		return ret;
	if ((unsigned)in->nvml > GF_NVML_REQUIRE)
		return gf_arg_error(func, "nvml %d is not a gf_nvml_mode", (int)in->nvml);
	out->root = in->root;
	out->nvml = in->nvml;
	out->pci_locality = in->pci_locality;
	/* A caller built before `omit` existed reads the whole model. */
	if (in->struct_size >= offsetof(struct gf_topo_options, omit) + sizeof(in->omit))
		out->omit = in->omit;
	if (out->omit & ~(unsigned)(GF_TOPO_OMIT_CPU_DETAIL | GF_TOPO_OMIT_STORAGE))
		return gf_arg_error(func, "omit: unknown flags 0x%x", out->omit);
	return 0;
}

int gf_topo_discover_fs(const struct gf_fs *fs, struct gf_nvml_facts *facts, const char *nvml_note,
			struct gf_topo **out)
{
	struct gf_ctx c = { 0 };
	int ret;

	*out = NULL;
	if (!(c.t = calloc(1, sizeof(*c.t))))
		return gf_error(-ENOMEM, "out of memory");
	c.fs = *fs;		/* a copy that shares the caller's, never released here */
	c.facts = facts;
	c.t->machine.nvml = facts != NULL;
	gf_strlcpy(c.t->machine.nvml_note, nvml_note ? nvml_note : "", sizeof(c.t->machine.nvml_note));
	gf_strlcpy(c.t->machine.source, gf_fs_live(fs) ? "this machine" : fs->root, sizeof(c.t->machine.source));
	ret = gf_topo_discover_ctx(&c, out);
	gf_warn_fini(&c);
	return ret;
}

GF_API int gf_topo_options_copy(const struct gf_topo_options *in, struct gf_topo_options *out)
{
	return options_copy(in, out, __func__);
}

GF_API int gf_topo_discover(const struct gf_topo_options *opts, struct gf_topo **out)
{
	struct gf_topo_options o;
	struct gf_ctx c = { 0 };
	int ret;

	if (!out)
		return GF_NULL_ARG("out");
	*out = NULL;
	if ((ret = options_copy(opts, &o, __func__)))
		return ret;
	if ((ret = gf_fs_init(&c.fs, o.root)))
		return ret;
	c.t = calloc(1, sizeof(*c.t));
	if (!c.t) {
		gf_warn_fini(&c);
		gf_fs_fini(&c.fs);
		return gf_error(-ENOMEM, "out of memory");
	}
	if (o.pci_locality)
		ret = gf_locality_parse(&c.locality, o.pci_locality, "--pci-locality");
	else if (gf_env_str(GF_ENV_PCI_LOCALITY))
		ret = gf_locality_parse(&c.locality, gf_env_str(GF_ENV_PCI_LOCALITY), gf_env_name(GF_ENV_PCI_LOCALITY));
	if (ret) {
		gf_topo_free(c.t);
		gf_warn_fini(&c);
		gf_fs_fini(&c.fs);
		return ret;
	}
	c.t->omitted = o.omit;
	gf_strlcpy(c.t->machine.source, gf_fs_live(&c.fs) ? "this machine" : c.fs.root,
		   sizeof(c.t->machine.source));
	ret = load_facts(&c, o.nvml);
	if (ret) {
		gf_topo_free(c.t);
		gf_warn_fini(&c);
		gf_fs_fini(&c.fs);
		return ret;
	}
	ret = gf_topo_discover_ctx(&c, out);
	gf_nvml_facts_free(c.facts);
	gf_warn_fini(&c);
	gf_fs_fini(&c.fs);
	return ret;
}

GF_API void gf_topo_free(struct gf_topo *t)
{
	if (!t)
		return;
	free(t->cpus.cpu);
	free(t->cpus.l3);
	for (int i = 0; i < t->numa.nnodes; i++)
		free(t->numa.node[i].distance);
	free(t->numa.node);
	free(t->pci);
	free(t->host_bridges);
	for (int i = 0; i < t->ngpus; i++)
		free(t->gpus[i].mig);
	free(t->gpus);
	free(t->nics);
	free(t->netifs);
	free(t->blocks);
	free(t->matrix.dev);
	free(t->matrix.link);
	free(t->matrix.nvml_pcie);
	free(t->paths);
	free(t->findings);
	for (int i = 0; i < t->nwarnings; i++)
		free(t->warnings[i]);
	free(t->warnings);
	free(t);
}

GF_API int gf_topo_pci_node(const struct gf_topo *t, const char *pci)
{
	char bdf[16];

	if (!t || !pci)
		return GF_NULL_ARG(!t ? "t" : "pci");
	if (!gf_pci_normalize(pci, bdf, sizeof(bdf)))
		return gf_arg_error(__func__, "pci '%s' is not a PCI address", pci);
	for (int i = 0; i < t->ngpus; i++)
		if (!strcmp(t->gpus[i].bdf, bdf))
			return t->gpus[i].numa_node;
	for (int i = 0; i < t->npci; i++)
		if (!strcmp(t->pci[i].bdf, bdf))
			return t->pci[i].local_node;
	return gf_error(-ENOENT, "PCI node: no device %s in the machine model", bdf);
}

GF_API int gf_topo_find_gpu(const struct gf_topo *t, const char *spec)
{
	char bdf[16];
	long long idx;
	int found = -1;

	if (!t || !spec)
		return GF_NULL_ARG(!t ? "t" : "spec");
	if (!*spec)
		return gf_error(-EINVAL, "empty GPU name");
	if (gf_parse_ll(spec, &idx) == 0) {
		for (int i = 0; i < t->ngpus; i++)
			if (t->gpus[i].index == idx)
				return i;
		return gf_error(-ENOENT, "GPU %s: no GPU with that index (have %d)", spec, t->ngpus);
	}
	if (gf_pci_normalize(spec, bdf, sizeof(bdf))) {
		for (int i = 0; i < t->ngpus; i++)
			if (!strcmp(t->gpus[i].bdf, bdf))
				return i;
		return gf_error(-ENOENT, "GPU %s: no GPU at that PCI address", spec);
	}
	for (int i = 0; i < t->ngpus; i++) {
		const char *u = t->gpus[i].uuid;

		if (!*u || strncasecmp(u, spec, strlen(spec)))
			continue;
		if (strlen(u) == strlen(spec))
			return i;
		if (found >= 0)
			return gf_error(-EINVAL, "GPU %s: ambiguous UUID prefix", spec);
		found = i;
	}
	if (found >= 0)
		return found;
	return gf_error(-ENOENT, "GPU %s: not an index, UUID or PCI address of a GPU here", spec);
}
