/* The environment registry: accessors, messages that name the variable,
 * and docs/environment.md equal to the table.
 *
 * `test_env --markdown` prints the table's rows for docs/environment.md. */
#include "helpers.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/env.h>
#include <gpufeed/error.h>
#include "core/env_registry.h"
#include "core/json_stamp.h"

#define BEGIN_MARK "<!-- registry: begin (tests/unit/test_env.c checks it) -->"
#define END_MARK "<!-- registry: end -->"

static const char *type_word(enum gf_env_type t)
{
	switch (t) {
	case GF_ENV_STRING: return "text";
	case GF_ENV_PATH: return "path";
	case GF_ENV_INT: return "integer";
	case GF_ENV_FLAG: return "flag";
	}
	return "?";
}

/* The table as docs/environment.md shows it, header included. */
static char *render_table(void)
{
	size_t cap = 8192, len = 0;
	char *out = malloc(cap);

	assert_non_null(out);
	len += (size_t)snprintf(out + len, cap - len,
				"| variable | type | when unset | read by | meaning |\n|---|---|---|---|---|\n");
	for (int i = 0; i < gf_env_count(); i++) {
		const struct gf_env_info *e = gf_env_info((enum gf_env_var)i);

		assert_non_null(e);
		len += (size_t)snprintf(out + len, cap - len, "| `%s` | %s | %s | %s | %s |\n", e->name,
					type_word(e->type), e->default_text, e->subsystem, e->help);
		assert_true(len < cap);
	}
	return out;
}

static void registry_rows_are_complete(void **state)
{
	(void)state;
	assert_true(gf_env_count() >= 6);
	for (int i = 0; i < gf_env_count(); i++) {
		const struct gf_env_info *e = gf_env_info((enum gf_env_var)i);

		assert_non_null(e);
		assert_true(e->name && *e->name && e->help && *e->help);
		assert_true(e->default_text && *e->default_text && e->subsystem && *e->subsystem);
		/* One line each: the doc table has one row per variable. */
		assert_null(strchr(e->help, '\n'));
		assert_null(strchr(e->help, '|'));
		for (int j = 0; j < i; j++)
			assert_string_not_equal(e->name, gf_env_info((enum gf_env_var)j)->name);
		if (e->type == GF_ENV_INT)
			assert_true(e->min <= e->max);
	}
	assert_string_equal(gf_env_name(GF_ENV_NVML_LIBRARY), "GPUFEED_NVML_LIBRARY");
	assert_string_equal(gf_env_name(GF_ENV_SOURCE_DATE_EPOCH), "SOURCE_DATE_EPOCH");
}

static void unregistered_ids_are_refused(void **state)
{
	long long v = 7;
	enum gf_env_var bogus = (enum gf_env_var)gf_env_count();

	(void)state;
	assert_null(gf_env_info(bogus));
	assert_null(gf_env_info((enum gf_env_var)-1));
	assert_string_equal(gf_env_name(bogus), "?");
	assert_null(gf_env_str(bogus));
	assert_false(gf_env_flag(bogus));
	assert_int_equal(gf_env_int(bogus, &v), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "not a registered variable"));
	/* The right accessor for the type, or a refusal. */
	assert_int_equal(gf_env_int(GF_ENV_NVML_LIBRARY, &v), -EINVAL);
	assert_false(gf_env_flag(GF_ENV_NVML_LIBRARY));
	assert_int_equal(v, 7);
}

static void strings_and_flags(void **state)
{
	(void)state;
	unsetenv("GPUFEED_NVML_LIBRARY");
	assert_null(gf_env_str(GF_ENV_NVML_LIBRARY));
	setenv("GPUFEED_NVML_LIBRARY", "", 1);
	assert_null(gf_env_str(GF_ENV_NVML_LIBRARY));	/* empty is unset */
	setenv("GPUFEED_NVML_LIBRARY", "/opt/x/libnvidia-ml.so.1", 1);
	assert_string_equal(gf_env_str(GF_ENV_NVML_LIBRARY), "/opt/x/libnvidia-ml.so.1");
	unsetenv("GPUFEED_NVML_LIBRARY");

	unsetenv("NO_COLOR");
	assert_false(gf_env_flag(GF_ENV_NO_COLOR));
	setenv("NO_COLOR", "", 1);
	assert_false(gf_env_flag(GF_ENV_NO_COLOR));
	setenv("NO_COLOR", "0", 1);	/* no-color.org: any value but "" */
	assert_true(gf_env_flag(GF_ENV_NO_COLOR));
	unsetenv("NO_COLOR");
}

static void integers_name_the_variable(void **state)
{
	long long v = -5;

	(void)state;
	unsetenv("SOURCE_DATE_EPOCH");
	assert_int_equal(gf_env_int(GF_ENV_SOURCE_DATE_EPOCH, &v), 0);
	assert_int_equal(v, -5);
	setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
	assert_int_equal(gf_env_int(GF_ENV_SOURCE_DATE_EPOCH, &v), 1);
	assert_int_equal(v, 1700000000LL);
	setenv("SOURCE_DATE_EPOCH", "soon", 1);
	assert_int_equal(gf_env_int(GF_ENV_SOURCE_DATE_EPOCH, &v), -EINVAL);
	assert_string_equal(gf_last_error(), "SOURCE_DATE_EPOCH: not an integer: 'soon'");
	setenv("SOURCE_DATE_EPOCH", "-1", 1);
	assert_int_equal(gf_env_int(GF_ENV_SOURCE_DATE_EPOCH, &v), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "SOURCE_DATE_EPOCH: -1 is out of range"));
	setenv("SOURCE_DATE_EPOCH", "99999999999999999999", 1);
	assert_int_equal(gf_env_int(GF_ENV_SOURCE_DATE_EPOCH, &v), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "SOURCE_DATE_EPOCH"));
	assert_int_equal(v, 1700000000LL);
	unsetenv("SOURCE_DATE_EPOCH");
}

/* A JSON document's head takes SOURCE_DATE_EPOCH, and a bad one is an
 * error naming it instead of a silently wrong date. */
static void json_stamp_uses_the_registry(void **state)
{
	char when[32];
	json_t *o = json_object();

	(void)state;
	setenv("SOURCE_DATE_EPOCH", "86400", 1);
	assert_int_equal(gf_json_timestamp(when, sizeof(when)), 0);
	assert_string_equal(when, "1970-01-02T00:00:00Z");
	assert_int_equal(gf_json_stamp(o, "gpufeed-test/1"), 0);
	assert_string_equal(json_string_value(json_object_get(o, "generated_at")), "1970-01-02T00:00:00Z");
	setenv("SOURCE_DATE_EPOCH", "1e9", 1);
	assert_int_equal(gf_json_stamp(o, "gpufeed-test/1"), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "SOURCE_DATE_EPOCH"));
	unsetenv("SOURCE_DATE_EPOCH");
	json_decref(o);
}

/* docs/environment.md lists exactly the registry, row for row. */
static void doc_equals_registry(void **state)
{
	const char *path = t_src_path("docs/environment.md");
	char *doc = t_read(path), *want = render_table(), *begin, *end;

	(void)state;
	if (!doc)
		fail_msg("cannot read %s", path);
	begin = strstr(doc, BEGIN_MARK);
	end = begin ? strstr(begin, END_MARK) : NULL;
	if (!begin || !end)
		fail_msg("%s lacks the markers '%s' ... '%s'", path, BEGIN_MARK, END_MARK);
	begin += strlen(BEGIN_MARK);
	while (*begin == '\n')
		begin++;
	*end = '\0';
	if (strcmp(begin, want)) {
		print_message("docs/environment.md has:\n%s\nthe registry (src/core/env.c) says:\n%s"
			      "(regenerate: build/tests/test_env --markdown)\n", begin, want);
		fail_msg("docs/environment.md differs from the registry");
	}
	free(doc);
	free(want);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_rows_are_complete),
		cmocka_unit_test(unregistered_ids_are_refused),
		cmocka_unit_test(strings_and_flags),
		cmocka_unit_test(integers_name_the_variable),
		cmocka_unit_test(json_stamp_uses_the_registry),
		cmocka_unit_test(doc_equals_registry),
	};

	if (argc == 2 && !strcmp(argv[1], "--markdown")) {
		char *t = render_table();

		fputs(t, stdout);
		free(t);
		return 0;
	}
	return cmocka_run_group_tests_name("env", tests, NULL, NULL);
}
