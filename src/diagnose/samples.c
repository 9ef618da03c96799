/* The samples file: one interval a line, as JSON, so a run recorded on a GPU
 * machine replays through the verdict anywhere (gpufeed diagnose --replay). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json_read.h"
#include "diagnose/diagnose_internal.h"

void gf_diag_note(struct gf_diagnosis *d, const char *fmt, ...)
{
	va_list ap;

	if (d->nnotes >= GF_DIAG_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(d->notes[d->nnotes++], sizeof(d->notes[0]), fmt, ap);
	va_end(ap);
}

/* NAN (unknown) is null: JSON has no NaN. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *gf_diag_tick_json(const struct gf_diag_tick *t)
{
	json_t *o = json_object(), *ranks = json_array();

	json_object_set_new(o, "t", json_real(t->t));
	json_object_set_new(o, "dt", json_real(t->dt));
	if (t->disk[0]) {
		json_object_set_new(o, "disk", gf_jstr(t->disk));
		json_object_set_new(o, "disk_busy", num(t->disk_busy));
		json_object_set_new(o, "disk_read_bps", num(t->disk_read_bps));
		json_object_set_new(o, "disk_limit_bps", num(t->disk_limit_bps));
	}
	for (unsigned i = 0; i < t->nranks; i++) {
		const struct gf_diag_rank_tick *r = &t->rank[i];
		json_t *ro = json_object(), *w = json_object();

		json_object_set_new(ro, "pid", json_integer(r->pid));
		if (r->gone) {
			json_object_set_new(ro, "gone", json_true());
			json_array_append_new(ranks, ro);
			json_decref(w);
			continue;
		}
		json_object_set_new(ro, "run", num(r->run));
		json_object_set_new(ro, "runq", num(r->runq));
		for (int k = 0; k < GF_DW_N; k++)
			json_object_set_new(w, gf_diag_wait_name((enum gf_diag_wait)k), num(r->wait[k]));
		json_object_set_new(ro, "blocked", w);
		json_object_set_new(ro, "cpu", num(r->cpu));
		json_object_set_new(ro, "children_cpu", num(r->children_cpu));
		json_object_set_new(ro, "read_bps", num(r->read_bps));
		json_object_set_new(ro, "rchar_bps", num(r->rchar_bps));
		json_object_set_new(ro, "majflt_ps", num(r->majflt_ps));
		json_object_set_new(ro, "throttled", num(r->throttled));
		json_object_set_new(ro, "gpu_active", num(r->gpu_active));
		json_object_set_new(ro, "pcie_rx_frac", num(r->pcie_rx_frac));
		json_object_set_new(ro, "link_frac", num(r->link_frac));
		json_object_set_new(ro, "steps", json_integer((json_int_t)r->steps));
		json_object_set_new(ro, "step_s", num(r->step_s));
		json_object_set_new(ro, "input_wait_s", num(r->input_wait_s));
		json_object_set_new(ro, "input_bytes", json_integer((json_int_t)r->input_bytes));
		json_array_append_new(ranks, ro);
	}
	json_object_set_new(o, "ranks", ranks);
	return o;
}

/* A number or null (NAN); anything else is an error naming the key. */
static int get(json_t *o, const char *where, const char *key, double *out, double absent)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v)) {
		*out = absent;
		return 0;
	}
	if (!json_is_number(v))
		return gf_error(-EBADMSG, "%s: \"%s\": expected a number", where, key);
	*out = json_number_value(v);
	return 0;
}

int gf_diag_tick_parse(json_t *o, const char *where, struct gf_diag_tick *t)
{
	json_t *ranks, *ro, *w;
	char rw[512];
	double v;
	size_t i;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!json_is_object(o))
		return gf_error(-EBADMSG, "%s: not a diagnose sample (a JSON object a line)", where);
	if ((ret = get(o, where, "t", &t->t, 0)) || (ret = get(o, where, "dt", &t->dt, NAN)) ||
	    (ret = get(o, where, "disk_busy", &t->disk_busy, NAN)) ||
	    (ret = get(o, where, "disk_read_bps", &t->disk_read_bps, NAN)) ||
	    (ret = get(o, where, "disk_limit_bps", &t->disk_limit_bps, NAN)))
		return ret;
	if (json_is_string(json_object_get(o, "disk")))
		snprintf(t->disk, sizeof(t->disk), "%s", json_string_value(json_object_get(o, "disk")));
	ranks = json_object_get(o, "ranks");
	if (!json_is_array(ranks))
		return gf_error(-EBADMSG, "%s: \"ranks\": expected an array", where);
	if (json_array_size(ranks) > GF_DIAG_MAX_RANKS)
		return gf_error(-EBADMSG, "%s: %zu ranks (at most %d)", where, json_array_size(ranks),
				GF_DIAG_MAX_RANKS);
	json_array_foreach(ranks, i, ro) {
		struct gf_diag_rank_tick *r = &t->rank[i];

		snprintf(rw, sizeof(rw), "%s: ranks[%zu]", where, i);
		if (!json_is_object(ro))
			return gf_error(-EBADMSG, "%s: expected an object", rw);
		if ((ret = get(ro, rw, "pid", &v, 0)))
			return ret;
		r->pid = (pid_t)v;
		if (json_is_true(json_object_get(ro, "gone"))) {
			r->gone = true;
			continue;
		}
		if ((ret = get(ro, rw, "run", &r->run, 0)) || (ret = get(ro, rw, "runq", &r->runq, 0)) ||
		    (ret = get(ro, rw, "cpu", &r->cpu, NAN)) ||
		    (ret = get(ro, rw, "children_cpu", &r->children_cpu, NAN)) ||
		    (ret = get(ro, rw, "read_bps", &r->read_bps, NAN)) ||
		    (ret = get(ro, rw, "rchar_bps", &r->rchar_bps, NAN)) ||
		    (ret = get(ro, rw, "majflt_ps", &r->majflt_ps, NAN)) ||
		    (ret = get(ro, rw, "throttled", &r->throttled, NAN)) ||
		    (ret = get(ro, rw, "gpu_active", &r->gpu_active, NAN)) ||
		    (ret = get(ro, rw, "pcie_rx_frac", &r->pcie_rx_frac, NAN)) ||
		    (ret = get(ro, rw, "link_frac", &r->link_frac, NAN)) ||
		    (ret = get(ro, rw, "step_s", &r->step_s, 0)) ||
		    (ret = get(ro, rw, "input_wait_s", &r->input_wait_s, 0)))
			return ret;
		if ((ret = get(ro, rw, "steps", &v, 0)))
			return ret;
		r->steps = v > 0 ? (uint64_t)v : 0;
		if ((ret = get(ro, rw, "input_bytes", &v, 0)))
			return ret;
		r->input_bytes = v > 0 ? (uint64_t)v : 0;
		w = json_object_get(ro, "blocked");
		for (int k = 0; w && k < GF_DW_N; k++)
			if ((ret = get(w, rw, gf_diag_wait_name((enum gf_diag_wait)k), &r->wait[k], 0)))
				return ret;
		if (r->run < 0 || r->runq < 0 || r->run + r->runq > 1.0001)
			return gf_error(-EBADMSG, "%s: run %g and runq %g are not fractions of the interval", rw,
					r->run, r->runq);
		/* The waits share the interval's rest (probe.c splits 1 - run -
		 * runq among them): a negative one would hide another. */
		v = r->run + r->runq;
		for (int k = 0; k < GF_DW_N; k++) {
			if (!(r->wait[k] >= 0) || v + r->wait[k] > 1.0001)
				return gf_error(-EBADMSG,
						"%s: blocked %s %g is not a fraction of the interval with run %g, runq %g "
						"and the other waits",
						rw, gf_diag_wait_name((enum gf_diag_wait)k), r->wait[k], r->run, r->runq);
			v += r->wait[k];
		}
	}
	t->nranks = (unsigned)json_array_size(ranks);
	return 0;
}

GF_API int gf_diagnose_replay(const char *path, struct gf_diagnosis **out)
{
	struct gf_diagnosis *d;
	struct gf_diag_tick t;
	char *line = NULL, where[4200];
	size_t cap = 0;
	unsigned lineno = 0;
	json_error_t je;
	ssize_t n;
	FILE *f;
	int ret = 0;

	if (out)
		*out = NULL;
	if (!path || !out)
		return GF_NULL_ARG(!path ? "samples" : "out");
	if (!(f = fopen(path, "re")))
		return gf_error(-errno, "%s: %s", path, strerror(errno));
	if (!(d = calloc(1, sizeof(*d)))) {
		fclose(f);
		return gf_error(-ENOMEM, "diagnose: out of memory");
	}
	gf_diag_acc_init(&d->acc);
	d->status = -1;
	d->mode = "replay";
	for (int i = 0; i < GF_DIAG_MAX_RANKS; i++)
		d->job_rank[i] = -1;
	snprintf(d->job, sizeof(d->job), "%s", path);
	while ((n = getline(&line, &cap, f)) > 0) {
		json_t *o;

		lineno++;
		if (n == 1 && line[0] == '\n')
			continue;
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		if (!(o = json_loadb(line, (size_t)n, JSON_REJECT_DUPLICATES, &je))) {
			ret = gf_error(-EBADMSG, "%s: not JSON: %s", where, je.text);
			break;
		}
		ret = gf_diag_tick_parse(o, where, &t);
		json_decref(o);
		if (ret || (ret = gf_diag_acc_add(&d->acc, &t))) {
			if (ret != -EBADMSG)
				ret = gf_error(-EBADMSG, "%s: %s", where, gf_last_error());
			break;
		}
	}
	if (!ret && ferror(f))
		ret = gf_error(-EIO, "%s: read error", path);
	free(line);
	fclose(f);
	if (ret) {
		free(d);
		return ret;
	}
	gf_diag_classify(&d->acc, &d->v);
	*out = d;
	return 0;
}
