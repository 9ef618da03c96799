/* The findings and verdict shared by the Flight Recorder and RAS readers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nccl/verdict.h"

int gf_nccl_verdict_init(struct gf_nccl_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (!(v->findings = json_array()))
		return gf_error(-ENOMEM, "out of memory");
	return 0;
}

void gf_nccl_verdict_fini(struct gf_nccl_verdict *v)
{
	json_decref(v->findings);
	v->findings = NULL;
}

static void note_missing(struct gf_nccl_verdict *v, int rank)
{
	int n = v->nmissing < 64 ? v->nmissing : 64, i;

	for (i = 0; i < n; i++)
		if (v->missing[i] == rank)
			return;
	v->nmissing++;
	for (i = n; i > 0 && v->missing[i - 1] > rank; i--)
		if (i < 64)
			v->missing[i] = v->missing[i - 1];
	if (i < 64)
		v->missing[i] = rank;
}

int gf_nccl_verdict_add(struct gf_nccl_verdict *v, const char *kind, const int *ranks, int nranks,
			bool missing, const char *fmt, ...)
{
	char msg[1024];
	json_t *f, *r;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!(r = json_array()))
		return gf_error(-ENOMEM, "out of memory");
	for (int i = 0; i < nranks; i++) {
		json_array_append_new(r, json_integer(ranks[i]));
		if (missing)
			note_missing(v, ranks[i]);
	}
	f = json_pack("{s:s, s:o, s:b, s:s}", "kind", kind, "ranks", r, "missing", missing, "message", msg);
	if (!f || json_array_append_new(v->findings, f))
		return gf_error(-ENOMEM, "out of memory");
	return 0;
}

int gf_nccl_verdict_missing(const struct gf_nccl_verdict *v, int *ranks, int max, const char *func)
{
	if (max < 0 || (max > 0 && !ranks))
		return gf_arg_error(func, "ranks is NULL or max %d is negative", max);
	for (int i = 0; i < v->nmissing && i < max && i < 64; i++)
		ranks[i] = v->missing[i];
	return v->nmissing;
}

static void verdict_line(const struct gf_nccl_verdict *v, char *buf, size_t size)
{
	size_t n;

	if (!json_array_size(v->findings)) {
		snprintf(buf, size, "all ranks agree");
		return;
	}
	if (!v->nmissing) {
		snprintf(buf, size, "the ranks disagree (%zu finding%s), no rank is missing from a collective",
			 json_array_size(v->findings), json_array_size(v->findings) == 1 ? "" : "s");
		return;
	}
	n = (size_t)snprintf(buf, size, "rank%s", v->nmissing == 1 ? "" : "s");
	for (int i = 0; i < v->nmissing && i < 64 && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s %d", i ? "," : "", v->missing[i]);
	if (n < size)
		snprintf(buf + n, size - n, " did not enter a collective the others entered: %s",
			 v->nmissing == 1 ? "the straggler, or hung or dead before it" :
			 "stragglers, or hung or dead before it");
}

void gf_nccl_verdict_print(const struct gf_nccl_verdict *v, FILE *f)
{
	char line[1024];
	json_t *x;
	size_t i;

	json_array_foreach(v->findings, i, x)
		fprintf(f, "%s: %s\n", json_string_value(json_object_get(x, "kind")),
			json_string_value(json_object_get(x, "message")));
	verdict_line(v, line, sizeof(line));
	fprintf(f, "verdict: %s\n", line);
}

int gf_nccl_verdict_json(const struct gf_nccl_verdict *v, json_t *obj)
{
	char line[1024];
	json_t *m = json_array(), *verdict;

	if (!m)
		return gf_error(-ENOMEM, "out of memory");
	for (int i = 0; i < v->nmissing && i < 64; i++)
		json_array_append_new(m, json_integer(v->missing[i]));
	verdict_line(v, line, sizeof(line));
	verdict = json_pack("{s:b, s:o, s:s}", "agree", json_array_size(v->findings) == 0, "missing_ranks", m,
			    "message", line);
	if (!verdict || json_object_set(obj, "findings", v->findings) || json_object_set_new(obj, "verdict", verdict))
		return gf_error(-ENOMEM, "out of memory");
	return 0;
}

int gf_nccl_verdict_write(const struct gf_nccl_verdict *v, json_t *obj, FILE *f)
{
	int ret;

	if (!obj)
		return gf_error(-ENOMEM, "out of memory");
	if ((ret = gf_nccl_verdict_json(v, obj)) == 0 && (json_dumpf(obj, f, JSON_INDENT(2)) || fputc('\n', f) == EOF))
		ret = gf_error(-EIO, "writing the JSON report failed");
	json_decref(obj);
	return ret;
}
