/* gpufeed config labels: GFD's names, valid label values. */
#include "emit_fixture.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit_internal.h"

/* Kubernetes: empty, or <= 63 of [A-Za-z0-9._-] beginning and ending
 * with an alphanumeric. */
static bool valid_value(const char *v, size_t n)
{
	if (!n)
		return true;
	if (n > 63 || !isalnum((unsigned char)v[0]) || !isalnum((unsigned char)v[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)v[i]) && !strchr("._-", v[i]))
			return false;
	return true;
}

static void test_sanitize(void **state)
{
	static const char *const in[] = {
		"NVIDIA H100 80GB HBM3", "--a--", "", "   ", "ü-name", "a/b:c", "x.y_z-1",
		"0123456789012345678901234567890123456789012345678901234567890123456789",
		"0123456789012345678901234567890123456789012345678901234567890-.-x",
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		size_t n = gf_emit_label_value(in[i], buf, sizeof(buf));

		assert_int_equal(n, strlen(buf));
		if (!valid_value(buf, n))
			fail_msg("'%s' -> '%s' is not a label value", in[i], buf);
	}
	gf_emit_label_value("x.y_z-1", buf, sizeof(buf));
	assert_string_equal(buf, "x.y_z-1");
	gf_emit_label_value("a/b:c", buf, sizeof(buf));
	assert_string_equal(buf, "a-b-c");
	gf_emit_label_value("--a--", buf, sizeof(buf));
	assert_string_equal(buf, "a");
}

static void check_machine(const char *machine)
{
	struct gf_topo *t = efx_load(machine, NULL);
	char *text, *v;
	int ret, lines = 0;

	text = efx_run(gf_emit_labels, t, NULL, &ret);
	assert_int_equal(ret, 0);
	for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t len = strcspn(line, "\n");
		char *eq = memchr(line, '=', len);

		assert_non_null(eq);
		if (!valid_value(eq + 1, len - (size_t)(eq + 1 - line)))
			fail_msg("%s: %.*s", machine, (int)len, line);
		lines++;
	}
	assert_true(lines >= 6);
	v = efx_value(text, "nvidia.com/gpu.count");
	assert_int_equal(atoi(v), t->ngpus);
	free(v);
	v = efx_value(text, "gpufeed.io/nvswitch");
	assert_string_equal(v, t->nvswitch ? "true" : "false");
	free(v);
	free(text);
	gf_topo_free(t);
}

static void test_fixtures(void **state)
{
	(void)state;
	check_machine("hgx-h100-8gpu");
	check_machine("dual-8gpu-pcie-switch");
	check_machine("l40s-4gpu-224");
	check_machine("h200x4-vm");
}

static void test_values(void **state)
{
	struct gf_topo *t = efx_load("hgx-h100-8gpu", NULL);
	struct gf_emit_options o = GF_EMIT_OPTS_INIT;
	char *text, *v;
	int ret;

	(void)state;
	text = efx_run(gf_emit_labels, t, NULL, &ret);
	v = efx_value(text, "nvidia.com/gpu.product");
	assert_string_equal(v, "NVIDIA-H100-80GB-HBM3");
	free(v);
	v = efx_value(text, "gpufeed.io/gpus-per-numa");
	assert_string_equal(v, "4");
	free(v);
	v = efx_value(text, "gpufeed.io/nvlink");
	assert_string_equal(v, "NV18");
	free(v);
	v = efx_value(text, "nvidia.com/gpu.family");
	assert_string_equal(v, "hopper");
	free(v);
	free(text);
	o.label_format = GF_EMIT_LABELS_YAML;
	o.node_name = "gpu-node-17.example.com";
	text = efx_run(gf_emit_labels, t, &o, &ret);
	assert_int_equal(ret, 0);
	assert_non_null(strstr(text, "kind: NodeFeature\n"));
	assert_non_null(strstr(text, "nfd.node.kubernetes.io/node-name: \"gpu-node-17.example.com\""));
	assert_non_null(strstr(text, "    \"nvidia.com/gpu.count\": \"8\"\n"));
	free(text);
	gf_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sanitize),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
