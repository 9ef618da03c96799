#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <limits.h>
#include <gpufeed/record.h>

#include "audit_fixture.h"

static struct afx *afx_make(const char *machine, void (*copy)(const char *, const char *))
{
	struct afx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->dir = t_mkdtemp();
	if (machine && machine[0]) {
		copy(t_fixture_root(machine), fx->dir);
	} else {
		/* The least a machine needs to be discovered. */
		t_write(fx->dir, "sys/devices/system/cpu/online", "0\n");
		t_write(fx->dir, "sys/devices/system/cpu/possible", "0\n");
		t_write(fx->dir, "proc/meminfo", "MemTotal:       16384000 kB\n");
	}
	return fx;
}

struct afx *afx_new(const char *machine)
{
	return afx_make(machine, t_copytree);
}

struct afx *afx_new_owned(const char *machine)
{
	return afx_make(machine, t_copytree_bytes);
}

void afx_free(struct afx *fx)
{
	if (!fx)
		return;
	gf_audit_free(fx->last);
	t_rmtree(fx->dir);
	free(fx->dir);
	free(fx);
}

void afx_put(struct afx *fx, const char *path, const char *text)
{
	char full[4096];

	while (*path == '/')
		path++;
	snprintf(full, sizeof(full), "%s/%s", fx->dir, path);
	unlink(full);	/* a link in the copy is replaced, not written through */
	t_write(fx->dir, path, text);
}

void afx_rm(struct afx *fx, const char *path)
{
	char full[4096];

	while (*path == '/')
		path++;
	snprintf(full, sizeof(full), "%s/%s", fx->dir, path);
	if (unlink(full) && errno == EISDIR)
		t_rmtree(full);
	else if (errno == EISDIR || errno == EPERM)
		t_rmtree(full);
}

const struct gf_check_result *afx_run(struct afx *fx, const char *id, const char *subject)
{
	struct gf_audit_options o = GF_AUDIT_OPTS_INIT;
	static const char *const no_env[] = { NULL };
	int ret;

	gf_audit_free(fx->last);
	fx->last = NULL;
	o.machine = T_MACHINE(.root = fx->dir);
	o.only = id;
	o.profile = fx->profile;
	o.env = fx->env ? fx->env : no_env;
	ret = gf_audit_run(&o, &fx->last);
	if (ret)
		fail_msg("gf_audit_run(%s) on %s: %d %s", id, fx->dir, ret, gf_last_error());
	for (int i = 0; i < fx->last->nresults; i++) {
		const struct gf_check_result *r = &fx->last->results[i];

		if (!strcmp(r->check->id, id) && (!subject || !strcmp(r->subject, subject)))
			return r;
	}
	fail_msg("%s: no result for subject '%s'", id, subject ? subject : "(any)");
	return NULL;
}

const struct gf_check_result *afx_expect(struct afx *fx, const char *id, const char *subject,
					 enum gf_check_status want)
{
	const struct gf_check_result *r = afx_run(fx, id, subject);

	if (r->status != want)
		fail_msg("%s%s%s: status %s, want %s (observed '%s', expected '%s', note '%s')", id,
			 r->subject[0] ? " " : "", r->subject, gf_check_status_name(r->status),
			 gf_check_status_name(want), r->observed, r->expected, r->note);
	return r;
}

/* Every check of fx's machine, under its profile and environment. */
static struct gf_audit *afx_run_all(struct afx *fx)
{
	struct gf_audit_options o = GF_AUDIT_OPTS_INIT;
	static const char *const no_env[] = { NULL };
	struct gf_audit *a = NULL;

	o.machine = T_MACHINE(.root = fx->dir);
	o.profile = fx->profile;
	o.env = fx->env ? fx->env : no_env;
	if (gf_audit_run(&o, &a))
		fail_msg("gf_audit_run on %s: %s", fx->dir, gf_last_error());
	return a;
}

void afx_same_results(struct afx *fx, struct afx *rec)
{
	struct gf_audit *a = afx_run_all(fx), *b = afx_run_all(rec);

	for (int i = 0; i < a->nresults && i < b->nresults; i++) {
		const struct gf_check_result *x = &a->results[i], *y = &b->results[i];

		if (strcmp(x->check->id, y->check->id) || strcmp(x->subject, y->subject) || x->status != y->status)
			fail_msg("%s %s: %s on %s, but %s %s: %s on %s (note '%s')", x->check->id, x->subject,
				 gf_check_status_name(x->status), fx->dir, y->check->id, y->subject,
				 gf_check_status_name(y->status), rec->dir, y->note);
	}
	if (a->nresults != b->nresults)
		fail_msg("%d results on %s, %d on %s", a->nresults, fx->dir, b->nresults, rec->dir);
	gf_audit_free(a);
	gf_audit_free(b);
}

void afx_record_keeps(struct afx *fx, const char *const *ids, size_t n, enum gf_check_status want)
{
	struct gf_record_options o = GF_RECORD_OPTS_INIT;
	struct afx rec = { .profile = fx->profile, .env = fx->env };
	char *top = t_mkdtemp(), target[PATH_MAX];

	snprintf(target, sizeof(target), "%s/rec", top);
	o.machine = T_MACHINE(.root = fx->dir);
	assert_int_equal(gf_record(target, &o, NULL), 0);
	rec.dir = target;
	for (size_t i = 0; i < n; i++) {
		enum gf_check_status got = afx_run(fx, ids[i], "")->status;

		if (got != want)
			fail_msg("%s: %s on the planted machine, want %s", ids[i], gf_check_status_name(got),
				 gf_check_status_name(want));
		afx_expect(&rec, ids[i], "", want);
	}
	afx_same_results(fx, &rec);
	gf_audit_free(rec.last);
	t_rmtree(top);
	free(top);
}
