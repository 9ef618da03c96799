/* The short report at the end of the job, and the same as JSON
 * (docs/json-diagnose.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "core/atomic.h"
#include "core/error.h"
#include "core/json_read.h"
#include "core/json_stamp.h"
#include "diagnose/diagnose_internal.h"

static const char *const bound_words[GF_DIAG_NPARTS] = { "input-bound", "communication-bound", "compute-bound",
							  "host-bound" };

static void job_end(const struct gf_diagnosis *d, char *buf, size_t size)
{
	if (d->status < 0)
		snprintf(buf, size, "%s", !strcmp(d->mode, "attach") ? "attached (not diagnose's child)" : "replayed");
	else if (WIFEXITED(d->status))
		snprintf(buf, size, "exited %d", WEXITSTATUS(d->status));
	else if (WIFSIGNALED(d->status))
		snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(d->status), strsignal(WTERMSIG(d->status)));
	else
		snprintf(buf, size, "status %d", d->status);
}

static void steps_line(const struct gf_diag_verdict *v, char *buf, size_t size)
{
	if (!strcmp(v->step_source, "markers"))
		snprintf(buf, size, "%llu steps from markers, %.3f s mean (longest interval's mean %.3f s)",
			 (unsigned long long)v->steps, v->step_mean_s, v->step_max_s);
	else if (!strcmp(v->step_source, "gpu-period"))
		snprintf(buf, size, "no markers; the GPU's activity repeats every %.2f s (about %llu steps)",
			 v->step_mean_s, (unsigned long long)v->steps);
	else
		snprintf(buf, size, "no step boundaries (no gf_step()/gpufeed.step() markers, no periodic GPU activity)");
}

GF_API int gf_diagnose_print(const struct gf_diagnosis *d, FILE *f)
{
	const struct gf_diag_verdict *v;
	enum gf_diag_part order[GF_DIAG_NPARTS];
	char buf[256];

	if (!d || !f)
		return GF_NULL_ARG(!d ? "d" : "f");
	v = &d->v;
	fprintf(f, "gpufeed diagnose: %s (%s)\n", d->job, d->mode);
	fprintf(f, "  observed %.1f s, %u rank%s", v->t, v->nranks, v->nranks == 1 ? "" : "s");
	if (d->pid > 0)
		fprintf(f, ", first process %d", (int)d->pid);
	fprintf(f, "\n");
	steps_line(v, buf, sizeof(buf));
	fprintf(f, "  steps: %s\n", buf);
	if (!v->known) {
		fprintf(f, "verdict: none: the job ended before one interval was sampled\n");
	} else {
		fprintf(f, "verdict: %s", bound_words[v->bound]);
		if (v->mixed)
			fprintf(f, ", mixed with %s", gf_diag_part_name(v->second));
		fprintf(f, " (%s %.0f%% of the time)\n", gf_diag_part_name(v->bound), 100 * v->frac[v->bound]);
		/* the parts, largest first */
		for (int i = 0; i < GF_DIAG_NPARTS; i++)
			order[i] = (enum gf_diag_part)i;
		for (int i = 1; i < GF_DIAG_NPARTS; i++)
			for (int j = i; j > 0 && v->frac[order[j]] > v->frac[order[j - 1]]; j--) {
				enum gf_diag_part t = order[j];

				order[j] = order[j - 1];
				order[j - 1] = t;
			}
		for (int i = 0; i < GF_DIAG_NPARTS; i++) {
			enum gf_diag_part p = order[i];

			if (v->frac[p] < 0.005 && i)
				continue;
			fprintf(f, "  %-13s %3.0f%%  if free: %.2fx\n", gf_diag_part_name(p), 100 * v->frac[p],
				v->speedup[p]);
			if (v->frac[p] >= 0.05) {
				fprintf(f, "      %s\n", v->why[p]);
				fprintf(f, "      fix: %s\n", v->fix[p]);
			}
		}
		if (v->straggler >= 0)
			fprintf(f, "  straggler: %s %d (pid %d) waits for input %.0f%% of the time against %.0f%% for "
				"the others: its stall is the others' wait in collectives\n",
				d->job_rank[v->straggler] >= 0 ? "rank" : "sampled rank",
				d->job_rank[v->straggler] >= 0 ? d->job_rank[v->straggler] : v->straggler,
				(int)d->acc.rank[v->straggler].pid, 100 * v->straggler_input, 100 * v->others_input);
	}
	fprintf(f, "  GPU: %s\n", v->gpu ? (d->gpu_source ? d->gpu_source : "yes")
				       : "no figures for the job's GPUs (it has no /dev/nvidia* open, or no NVML)");
	if (d->nccl_files) {
		fprintf(f, "  NCCL: %u log file%s, %s\n", d->nccl_files, d->nccl_files == 1 ? "" : "s",
			d->nccl_clean ? "every pair on the best transport the machine allows" : "findings:");
		for (unsigned i = 0; i < d->nnccl; i++)
			fprintf(f, "      %s\n", d->nccl[i]);
	}
	if (d->check_categories[0]) {
		fprintf(f, "  gpufeed check --only %s: %u result%s at warn or worse\n", d->check_categories,
			d->ncheck_results, d->ncheck_results == 1 ? "" : "s");
		for (unsigned i = 0; i < d->ncheck_results && i < GF_DIAG_MAX_NCCL; i++)
			fprintf(f, "      %s\n", d->checks[i]);
	}
	for (unsigned i = 0; i < d->nnotes; i++)
		fprintf(f, "  note: %s\n", d->notes[i]);
	job_end(d, buf, sizeof(buf));
	fprintf(f, "  job: %s\n", buf);
	if (strcmp(d->mode, "replay"))
		fprintf(f, "  diagnose's own cost: %.2f s of CPU over %.1f s (%.2f%% of one CPU)\n", d->self_cpu_s,
			v->t, v->t > 0 ? 100 * d->self_cpu_s / v->t : 0.0);
	return ferror(f) ? gf_error(-EIO, "diagnose: writing the report failed") : 0;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

GF_API int gf_diagnose_write_json(const struct gf_diagnosis *d, FILE *f)
{
	const struct gf_diag_verdict *v;
	json_t *o, *parts, *notes, *nccl, *job;
	int ret;

	if (!d || !f)
		return GF_NULL_ARG(!d ? "d" : "f");
	v = &d->v;
	o = json_object();
	if ((ret = gf_json_stamp(o, GF_DIAGNOSE_SCHEMA))) {
		json_decref(o);
		return ret;
	}
	job = json_object();
	json_object_set_new(job, "command", gf_jstr(d->job));
	json_object_set_new(job, "mode", json_string(d->mode));
	if (d->pid > 0)
		json_object_set_new(job, "pid", json_integer(d->pid));
	if (d->status >= 0 && WIFEXITED(d->status))
		json_object_set_new(job, "exit_code", json_integer(WEXITSTATUS(d->status)));
	else if (d->status >= 0 && WIFSIGNALED(d->status))
		json_object_set_new(job, "signal", json_integer(WTERMSIG(d->status)));
	json_object_set_new(o, "job", job);
	json_object_set_new(o, "observed_s", json_real(v->t));
	json_object_set_new(o, "ranks", json_integer(v->nranks));
	json_object_set_new(o, "steps", json_pack("{s:s, s:I, s:o, s:o}", "source", v->step_source, "count",
						  (json_int_t)v->steps, "mean_s",
						  v->step_source[0] == 'n' ? json_null() : num(v->step_mean_s),
						  "max_s", strcmp(v->step_source, "markers") ? json_null()
											      : num(v->step_max_s)));
	json_object_set_new(o, "known", json_boolean(v->known));
	json_object_set_new(o, "bound", v->known ? json_string(gf_diag_part_name(v->bound)) : json_null());
	json_object_set_new(o, "mixed_with", v->known && v->mixed ? json_string(gf_diag_part_name(v->second))
								  : json_null());
	json_object_set_new(o, "gpu", json_boolean(v->gpu));
	parts = json_object();
	for (int p = 0; v->known && p < GF_DIAG_NPARTS; p++)
		json_object_set_new(parts, gf_diag_part_name((enum gf_diag_part)p),
				    json_pack("{s:o, s:o, s:s, s:s}", "fraction", num(v->frac[p]), "speedup_if_free",
					      num(v->speedup[p]), "why", v->why[p], "fix", v->fix[p]));
	json_object_set_new(o, "parts", parts);
	json_object_set_new(o, "straggler", v->straggler < 0 ? json_null()
					     : json_pack("{s:i, s:o, s:i, s:o, s:o}", "index", v->straggler, "rank",
							 d->job_rank[v->straggler] >= 0
								 ? json_integer(d->job_rank[v->straggler])
								 : json_null(), "pid",
							 (int)d->acc.rank[v->straggler].pid, "input_fraction",
							 num(v->straggler_input), "others_input_fraction",
							 num(v->others_input)));
	nccl = json_array();
	for (unsigned i = 0; i < d->nnccl; i++)
		json_array_append_new(nccl, gf_jstr(d->nccl[i]));
	json_object_set_new(o, "nccl", json_pack("{s:I, s:b, s:o}", "log_files", (json_int_t)d->nccl_files, "clean",
						 d->nccl_files && d->nccl_clean, "findings", nccl));
	if (d->check_categories[0]) {
		json_t *checks = json_array();

		for (unsigned i = 0; i < d->ncheck_results && i < GF_DIAG_MAX_NCCL; i++)
			json_array_append_new(checks, gf_jstr(d->checks[i]));
		json_object_set_new(o, "checks", json_pack("{s:s, s:I, s:o}", "only", d->check_categories, "count",
							   (json_int_t)d->ncheck_results, "results", checks));
	} else {
		json_object_set_new(o, "checks", json_null());
	}
	notes = json_array();
	for (unsigned i = 0; i < d->nnotes; i++)
		json_array_append_new(notes, gf_jstr(d->notes[i]));
	json_object_set_new(o, "notes", notes);
	if (strcmp(d->mode, "replay"))
		json_object_set_new(o, "overhead", json_pack("{s:o, s:I}", "cpu_s", num(d->self_cpu_s), "samples_bytes",
							     (json_int_t)d->samples_bytes));
	ret = json_dumpf(o, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(4));
	json_decref(o);
	if (ret || fputc('\n', f) == EOF || ferror(f))
		return gf_error(-EIO, "diagnose: writing the JSON failed");
	return 0;
}

struct save_arg {
	const struct gf_diagnosis *d;
	bool json;
};

static int save_fn(FILE *f, void *arg)
{
	const struct save_arg *a = arg;

	return a->json ? gf_diagnose_write_json(a->d, f) : gf_diagnose_print(a->d, f);
}

GF_API int gf_diagnose_save(const struct gf_diagnosis *d, const char *path, bool json)
{
	struct save_arg a = { d, json };

	if (!d || !path)
		return GF_NULL_ARG(!d ? "d" : "path");
	return gf_atomic_write(path, save_fn, &a);
}
