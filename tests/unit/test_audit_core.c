/* The audit framework: catalogue, statuses, read failures, containers,
 * outputs.  Each category's checks have their own test_audit_<cat>.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>

#include "audit_fixture.h"
#include "audit/audit_internal.h"
#include "audit/catalog.h"

static void test_catalogue_ids_unique_and_described(void **state)
{
	(void)state;
	assert_true(gf_check_count() > 0);
	for (int i = 0; i < gf_check_count(); i++) {
		const struct gf_check_info *c = gf_check_info_at(i);

		assert_non_null(c->id);
		assert_non_null(c->why);
		assert_true(strlen(c->title) > 0 && strlen(c->why) > 0 && strlen(c->source) > 0);
		assert_true(strlen(c->training) > 0 && strlen(c->inference) > 0);
		assert_ptr_equal(gf_check_find(c->id), c);
		/* "<category>.<name>" keeps ids and categories apart for --only. */
		assert_true(strchr(c->id, '.') != NULL);
		for (int j = 0; j < i; j++)
			if (!strcmp(gf_check_info_at(j)->id, c->id))
				fail_msg("check id %s twice", c->id);
	}
	assert_null(gf_check_info_at(gf_check_count()));
	assert_null(gf_check_find("no.such-check"));
}

static void test_status_and_profile_words(void **state)
{
	enum gf_check_status s;
	enum gf_profile p;

	(void)state;
	for (int i = 0; i < GF_CHECK_NSTATUS; i++) {
		assert_int_equal(gf_check_status_parse(gf_check_status_name((enum gf_check_status)i), &s), 0);
		assert_int_equal(s, i);
	}
	assert_int_equal(gf_check_status_parse("bad", &s), -EINVAL);
	assert_int_equal(gf_profile_parse("inference", &p), 0);
	assert_int_equal(p, GF_PROFILE_INFERENCE);
	assert_int_equal(gf_profile_parse("Training", &p), -EINVAL);
	/* The order --fail-on relies on. */
	assert_true(GF_CHECK_PASS < GF_CHECK_NA && GF_CHECK_NA < GF_CHECK_NEEDS_ROOT &&
		    GF_CHECK_NEEDS_ROOT < GF_CHECK_WARN && GF_CHECK_WARN < GF_CHECK_ERROR &&
		    GF_CHECK_ERROR < GF_CHECK_FAIL);
}

static void test_read_failures_never_pass(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_put(fx, "/proc/sys/vm/swappiness", "60\n");
	r = afx_expect(fx, "mem.swappiness", "", GF_CHECK_WARN);
	assert_string_equal(r->observed, "60");
	assert_int_equal(r->fix_class, GF_FIX_SAFE);
	assert_string_equal(r->path, "/proc/sys/vm/swappiness");
	assert_string_equal(r->value, "10");
	afx_put(fx, "/proc/sys/vm/swappiness", "10\n");
	afx_expect(fx, "mem.swappiness", "", GF_CHECK_PASS);
	/* Absent: na.  Malformed: error.  Neither is a pass. */
	afx_rm(fx, "/proc/sys/vm/swappiness");
	afx_expect(fx, "mem.swappiness", "", GF_CHECK_NA);
	afx_put(fx, "/proc/sys/vm/swappiness", "lots\n");
	r = afx_expect(fx, "mem.swappiness", "", GF_CHECK_ERROR);
	assert_non_null(strstr(r->note, "swappiness"));
	afx_free(fx);
}

static void test_only_and_unknown_names(void **state)
{
	struct gf_audit_options o = GF_AUDIT_OPTS_INIT;
	struct gf_audit *a = NULL;
	struct afx *fx = afx_new("ci-vm");

	(void)state;
	o.machine = T_MACHINE(.root = fx->dir);
	o.only = "no-such-category";
	assert_int_equal(gf_audit_run(&o, &a), -EINVAL);
	assert_null(a);
	assert_non_null(strstr(gf_last_error(), "no-such-category"));
	o.only = "memory";
	assert_int_equal(gf_audit_run(&o, &a), 0);
	for (int i = 0; i < a->nresults; i++)
		assert_string_equal(a->results[i].check->category, "memory");
	assert_true(a->nresults > 0);
	gf_audit_free(a);
	/* A struct zeroed by hand is refused. */
	memset(&o, 0, sizeof(o));
	assert_int_equal(gf_audit_run(&o, &a), -EINVAL);
	afx_free(fx);
}

static void test_container_detection(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	struct gf_audit_options o = GF_AUDIT_OPTS_INIT;
	struct gf_audit *a = NULL;

	(void)state;
	o.machine = T_MACHINE(.root = fx->dir);
	o.only = "memory";
	/* /.dockerenv on a real disk with devtmpfs /dev: a VM made from an
	 * image (the CI machine), not a container. */
	afx_put(fx, "/.dockerenv", "\n");
	afx_put(fx, "/proc/self/mountinfo",
		"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
		"24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw\n");
	assert_int_equal(gf_audit_run(&o, &a), 0);
	assert_false(a->container);
	gf_audit_free(a);
	/* The same file with an overlay root: Docker. */
	afx_put(fx, "/proc/self/mountinfo",
		"600 500 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/x\n"
		"601 600 0:51 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k\n");
	assert_int_equal(gf_audit_run(&o, &a), 0);
	assert_true(a->container);
	assert_string_equal(a->container_kind, "docker");
	gf_audit_free(a);
	/* A cgroup path naming kubepods: Kubernetes, whatever else. */
	afx_rm(fx, "/.dockerenv");
	afx_put(fx, "/proc/1/cgroup", "0::/kubepods.slice/kubepods-burstable.slice/cri-containerd-ab.scope\n");
	assert_int_equal(gf_audit_run(&o, &a), 0);
	assert_true(a->container);
	assert_string_equal(a->container_kind, "kubernetes");
	gf_audit_free(a);
	afx_free(fx);
}

static void test_outputs(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	struct gf_audit_options o = GF_AUDIT_OPTS_INIT;
	struct gf_audit *a = NULL;
	char *buf = NULL, path[4200];
	size_t len = 0;
	FILE *f;
	json_t *j;

	(void)state;
	afx_put(fx, "/proc/sys/vm/swappiness", "60\n");
	o.machine = T_MACHINE(.root = fx->dir);
	assert_int_equal(gf_audit_run(&o, &a), 0);
	assert_int_equal(gf_audit_worst(a) >= GF_CHECK_WARN, 1);
	f = open_memstream(&buf, &len);
	assert_int_equal(gf_audit_write_json(a, f), 0);
	fclose(f);
	j = json_loads(buf, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), GF_CHECK_SCHEMA);
	assert_int_equal(json_array_size(json_object_get(j, "results")), (size_t)a->nresults);
	json_decref(j);
	free(buf);
	f = open_memstream(&buf, &len);
	assert_int_equal(gf_audit_print(a, f, 0), 0);
	fclose(f);
	assert_non_null(strstr(buf, "mem.swappiness"));
	assert_null(strstr(buf, "\033["));
	free(buf);
	snprintf(path, sizeof(path), "%s/out.prom", fx->dir);
	assert_int_equal(gf_audit_save_prom(a, path), 0);
	buf = t_read(path);
	assert_non_null(strstr(buf, "gpufeed_check_result{id=\"mem.swappiness\",category=\"memory\",subject=\"\","
				    "status=\"warn\""));
	assert_non_null(strstr(buf, "# TYPE gpufeed_check_results gauge"));
	free(buf);
	gf_audit_free(a);
	afx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue_ids_unique_and_described),
		cmocka_unit_test(test_status_and_profile_words),
		cmocka_unit_test(test_read_failures_never_pass),
		cmocka_unit_test(test_only_and_unknown_names),
		cmocka_unit_test(test_container_detection),
		cmocka_unit_test(test_outputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
