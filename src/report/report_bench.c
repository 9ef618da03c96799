/* The measured figures of gpufeed bench documents, read the same way for
 * every target: the rows are `points` (io, io-gpu, h2d, p2p, loader,
 * overlap), `results` (coll) or `pairs` (mem); a row's figure is its
 * summary's median (docs/bench.md, gf_bench_json_point), else coll's bus
 * bandwidth, else a plain GB/s, else each summary nested in it (mem: read,
 * write, copy, latency); its limit is `limit_gb_per_s`, or the document's
 * `limit.gb_per_s` (coll).  A row is named by the keys that tell it from
 * the others (direction, GPU, size, ...).  A new target whose rows follow
 * these conventions shows up without a line here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "core/error.h"
#include "core/fs.h"
#include "report/report_bench.h"

/* A page with more bars than this is no longer read: the rest is cut. */
#define MAX_FIGURES 5000

static const char *const row_arrays[] = { "points", "results", "pairs", NULL };

/* The keys that name a row, in the order they are written. */
static const char *const label_keys[] = {
	"test", "copy", "direction", "memory", "op", "mode", "kind", "name", "gpu", "src_gpu", "dst_gpu",
	"issued_by", "memory_gpu", "host_node", "cpu_node", "mem_node", "bs", "qd", "threads", "engine",
	"cache", "size", "bytes", NULL,
};

static bool is_size_key(const char *k)
{
	return !strcmp(k, "bs") || !strcmp(k, "size") || !strcmp(k, "bytes");
}

static void fmt_size(long long v, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%lld %s", v, units[u]);
}

static void append(char *dst, size_t size, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(dst);

	if (n < size)
		snprintf(dst + n, size - n, fmt, a, b);
}

static void row_label(json_t *e, char *buf, size_t size)
{
	buf[0] = '\0';
	for (const char *const *k = label_keys; *k; k++) {
		json_t *v = json_object_get(e, *k);
		char val[64];

		if (json_is_string(v))
			snprintf(val, sizeof(val), "%s", json_string_value(v));
		else if (json_is_integer(v) && is_size_key(*k))
			fmt_size(json_integer_value(v), val, sizeof(val));
		else if (json_is_integer(v))
			snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
		else
			continue;
		append(buf, size, buf[0] ? ", %s %s" : "%s %s", *k, val);
	}
}

static struct gf_report_figure *new_figure(struct gf_report_bench *b, json_t *e, const char *what)
{
	struct gf_report_figure *f, *grown;

	if (b->nfig >= MAX_FIGURES)
		return NULL;
	if (!(b->nfig & (b->nfig - 1))) {	/* 0, 1, 2, 4, ...: grow */
		grown = realloc(b->fig, (size_t)(b->nfig ? 2 * b->nfig : 1) * sizeof(*b->fig));
		if (!grown)
			return NULL;
		b->fig = grown;
	}
	f = &b->fig[b->nfig++];
	memset(f, 0, sizeof(*f));
	row_label(e, f->label, sizeof(f->label));
	if (what)
		append(f->label, sizeof(f->label), f->label[0] ? "%s%s" : "%.0s%s", ": ", what);
	return f;
}

/* What limits a row whose document says it once per GPU (h2d: gpus[])
 * or per GPU pair (p2p: pairs[]), not in every row. */
static json_t *limited_by_elsewhere(json_t *doc, json_t *e)
{
	json_t *gpu = json_object_get(e, "gpu"), *src = json_object_get(e, "src_gpu"), *dst = json_object_get(e, "dst_gpu");
	json_t *x;
	size_t i;

	if (json_is_integer(gpu))
		json_array_foreach(json_object_get(doc, "gpus"), i, x)
			if (json_equal(json_object_get(x, "gpu"), gpu))
				return json_object_get(x, "limited_by");
	if (json_is_integer(src) && json_is_integer(dst))
		json_array_foreach(json_object_get(doc, "pairs"), i, x) {
			json_t *g = json_object_get(x, "gpus");

			if (json_array_size(g) == 2 &&
			    ((json_equal(json_array_get(g, 0), src) && json_equal(json_array_get(g, 1), dst)) ||
			     (json_equal(json_array_get(g, 0), dst) && json_equal(json_array_get(g, 1), src))))
				return json_object_get(x, "limited_by");
		}
	return NULL;
}

/* The row's limit in GB/s, its own or the document's. */
static void set_limit(struct gf_report_figure *f, json_t *doc, json_t *e)
{
	json_t *lim = json_object_get(e, "limit_gb_per_s"), *by = json_object_get(e, "limited_by");
	json_t *dl = json_object_get(doc, "limit");

	if (strcmp(f->unit, "GB/s"))
		return;
	if (!json_is_number(lim) && json_is_object(dl)) {
		lim = json_object_get(dl, "gb_per_s");
		by = json_object_get(dl, "link");
	}
	if (json_is_number(lim) && json_number_value(lim) > 0)
		f->limit = json_number_value(lim);
	if (!json_is_string(by))
		by = limited_by_elsewhere(doc, e);
	if (json_is_string(by))
		snprintf(f->limited_by, sizeof(f->limited_by), "%s", json_string_value(by));
}

/* A summary: {"unit", "median", ...} or {"status": "error", "error"}. */
static bool summary_figure(struct gf_report_bench *b, json_t *doc, json_t *row, json_t *s, const char *what,
			   int *err)
{
	json_t *median = json_object_get(s, "median"), *unit = json_object_get(s, "unit");
	const char *status = json_string_value(json_object_get(s, "status"));
	struct gf_report_figure *f;

	if (!(status && !strcmp(status, "error")) && !(json_is_number(median) && json_is_string(unit)))
		return false;
	if (!(f = new_figure(b, row, what))) {
		*err = b->nfig >= MAX_FIGURES ? 0 : -ENOMEM;
		return true;
	}
	if (status && !strcmp(status, "error")) {
		f->failed = true;
		snprintf(f->error, sizeof(f->error), "%s",
			 json_is_string(json_object_get(s, "error")) ? json_string_value(json_object_get(s, "error"))
								     : "failed");
		return true;
	}
	f->value = json_number_value(median);
	snprintf(f->unit, sizeof(f->unit), "%s", json_string_value(unit));
	set_limit(f, doc, row);
	return true;
}

static int row_figures(struct gf_report_bench *b, json_t *doc, json_t *e)
{
	static const struct {
		const char *key, *what;
	} plain[] = { { "busbw_gb_per_s", "bus bandwidth" }, { "gb_per_s", NULL }, { "gbps", NULL } };
	const char *key;
	json_t *v;
	int err = 0;

	if (summary_figure(b, doc, e, e, NULL, &err) ||
	    summary_figure(b, doc, e, json_object_get(e, "summary"), NULL, &err))
		return err;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		struct gf_report_figure *f;

		if (!json_is_number(v = json_object_get(e, plain[i].key)))
			continue;
		if (!(f = new_figure(b, e, plain[i].what)))
			return b->nfig >= MAX_FIGURES ? 0 : -ENOMEM;
		f->value = json_number_value(v);
		snprintf(f->unit, sizeof(f->unit), "GB/s");
		set_limit(f, doc, e);
		return 0;
	}
	json_object_foreach(e, key, v)
		if (json_is_object(v) && (summary_figure(b, doc, e, v, key, &err), err))
			return err;
	return 0;
}

int gf_report_bench_read(const char *path, struct gf_report_bench *b)
{
	const char *schema, *dash, *slash;
	struct gf_fs fs;
	json_error_t je;
	json_t *doc = NULL;
	char *text = NULL;
	size_t len = 0;
	int ret;

	memset(b, 0, sizeof(*b));
	snprintf(b->file, sizeof(b->file), "%s", path);
	if ((ret = gf_fs_init(&fs, NULL)))
		return ret;
	ret = gf_fs_read(&fs, path, &text, &len);
	gf_fs_fini(&fs);
	if (ret)
		return ret;
	if (!(doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je))) {
		ret = gf_error(-EBADMSG, "%s: line %d: not JSON: %s", path, je.line, je.text);
		goto out;
	}
	schema = json_string_value(json_object_get(doc, "schema"));
	if (!schema || strncmp(schema, "gpufeed-bench-", 14) || !(slash = strchr(schema + 14, '/'))) {
		ret = gf_error(-EBADMSG, "%s: not the --json output of a gpufeed bench command (its \"schema\" is not gpufeed-bench-TARGET/N)",
			       path);
		goto out;
	}
	dash = schema + 14;
	snprintf(b->schema, sizeof(b->schema), "%s", schema);
	snprintf(b->target, sizeof(b->target), "%.*s", (int)(slash - dash), dash);
	if (json_is_string(json_object_get(json_object_get(doc, "machine"), "hostname")))
		snprintf(b->hostname, sizeof(b->hostname), "%s",
			 json_string_value(json_object_get(json_object_get(doc, "machine"), "hostname")));
	for (const char *const *a = row_arrays; *a; a++) {
		json_t *rows = json_object_get(doc, *a), *e;
		size_t i;

		json_array_foreach(rows, i, e)
			if (json_is_object(e) && (ret = row_figures(b, doc, e)))
				goto out;
	}
	ret = 0;
out:
	if (ret == -ENOMEM)
		ret = gf_error(-ENOMEM, "%s: out of memory", path);
	json_decref(doc);
	free(text);
	return ret;
}

void gf_report_bench_free(struct gf_report_bench *b)
{
	free(b->fig);
	b->fig = NULL;
	b->nfig = 0;
}
