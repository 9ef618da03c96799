/* gpufeed config nccl-topo: the tree NCCL would build from sysfs, in the
 * attributes NCCL's loader reads (src/graph/topo.cc, xml.cc). */
#include "emit_fixture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char *topo_xml(const char *machine, const char *locality, struct gf_emit_options *o, struct gf_topo **tp)
{
	struct gf_topo *t = efx_load(machine, locality);
	char *text;
	int ret;

	text = efx_run(gf_emit_nccl_topo, t, o, &ret);
	assert_int_equal(ret, 0);
	*tp = t;
	return text;
}

/* The <cpu ...> element that encloses position p. */
static int enclosing_numaid(const char *text, const char *p)
{
	const char *cpu = NULL;

	for (const char *q = text; (q = strstr(q, "<cpu numaid=\"")) && q < p; q++)
		cpu = q;
	assert_non_null(cpu);
	return atoi(cpu + strlen("<cpu numaid=\""));
}

static void check_gpus(const char *machine, const char *locality)
{
	struct gf_topo *t;
	char *text = topo_xml(machine, locality, NULL, &t), needle[64];

	assert_int_equal(efx_count(text, "<gpu "), t->ngpus);
	assert_int_equal(efx_count(text, "<system version=\"1\">"), 1);
	assert_null(strstr(text, "<?xml"));	/* NCCL's parser does not take it */
	assert_null(strchr(text, '\t'));	/* nor tabs between elements */
	for (int g = 0; g < t->ngpus; g++) {
		const char *p;

		snprintf(needle, sizeof(needle), "<pci busid=\"%s\"", t->gpus[g].bdf);
		p = strstr(text, needle);
		assert_non_null(p);
		assert_int_equal(enclosing_numaid(text, p), t->gpus[g].numa_node);
		snprintf(needle, sizeof(needle), "<gpu dev=\"%d\" sm=\"", t->gpus[g].index);
		assert_non_null(strstr(p, needle));
	}
	free(text);
	gf_topo_free(t);
}

static void test_gpus_under_their_node(void **state)
{
	(void)state;
	check_gpus("hgx-h100-8gpu", NULL);
	check_gpus("dual-8gpu-pcie-switch", NULL);
	check_gpus("l40s-4gpu-224", NULL);
	check_gpus("h200x4-vm", NULL);
	/* A VM whose GPUs the operator places on node 0 by hand. */
	check_gpus("h200x4-vm", "0000:00:06.0=0");
}

/* dual-8gpu-pcie-switch: GPUs 0 and 1 behind one switch (PIX), written as
 * that switch's upstream port with both GPUs inside it. */
static void test_switch_nesting(void **state)
{
	struct gf_topo *t;
	char *text = topo_xml("dual-8gpu-pcie-switch", NULL, NULL, &t), *gpu0, *gpu1, *sw;

	(void)state;
	gpu0 = strstr(text, "<pci busid=\"0000:18:00.0\"");
	gpu1 = strstr(text, "<pci busid=\"0000:19:00.0\"");
	assert_non_null(gpu0);
	assert_non_null(gpu1);
	/* The nearest <pci ... class="0x0604..."> opened before GPU 0 is
	 * the switch, and no </pci> of it closes before GPU 1. */
	sw = NULL;
	for (char *q = text; (q = strstr(q, "class=\"0x0604")) && q < gpu0; q++)
		sw = q;
	assert_non_null(sw);
	assert_true(efx_count(sw, "</pci>") - efx_count(gpu1, "</pci>") == 1);	/* GPU 0's own */
	assert_int_equal(efx_count(text, "<nvlink"), 0);	/* PCIe cards: no NVLink */
	free(text);
	gf_topo_free(t);
}

static void test_nvswitch_and_nics(void **state)
{
	struct gf_topo *t;
	char *text = topo_xml("hgx-h100-8gpu", NULL, NULL, &t);

	(void)state;
	assert_int_equal(efx_count(text, "count=\"18\" tclass=\"0x068000\""), 8);
	assert_int_equal(efx_count(text, "<net name=\"mlx5_"), 10);
	/* The two storage ports share one <nic> under function 0. */
	assert_non_null(strstr(text, "<net name=\"mlx5_8\" dev=\"0\" speed=\"200000\"/>\n"
				     "        <net name=\"mlx5_9\""));
	assert_null(strstr(text, "busid=\"0000:02:00.1\""));
	/* Broadcom PEX switches carry their subsystem ids (NCCL flattens them). */
	assert_non_null(strstr(text, "vendor=\"0x1000\" device=\"0xc030\" subsystem_vendor=\"0x1000\""));
	free(text);
	gf_topo_free(t);
}

static void test_affinity_is_node_cpus(void **state)
{
	struct gf_topo *t;
	char *text = topo_xml("l40s-4gpu-224", NULL, NULL, &t);

	(void)state;
	for (int i = 0; i < t->numa.nnodes; i++) {
		char needle[48], *p, mask[256];
		struct gf_cpuset s;

		snprintf(needle, sizeof(needle), "<cpu numaid=\"%d\" affinity=\"", t->numa.node[i].id);
		p = strstr(text, needle);
		assert_non_null(p);
		p += strlen(needle);
		snprintf(mask, sizeof(mask), "%.*s", (int)strcspn(p, "\""), p);
		assert_int_equal(gf_cpuset_parse_mask(&s, mask), 0);
		assert_true(gf_cpuset_equal(&s, &t->numa.node[i].cpus));
	}
	assert_non_null(strstr(text, "vendor=\"AuthenticAMD\" familyid=\"25\" modelid=\"17\""));
	free(text);
	gf_topo_free(t);
}

static void test_skeleton(void **state)
{
	struct gf_emit_options o = GF_EMIT_OPTS_INIT;
	struct gf_topo *t;
	char *text;

	(void)state;
	o.skeleton = true;
	text = topo_xml("hgx-h100-8gpu", NULL, &o, &t);
	assert_null(strstr(text, "<gpu"));
	assert_null(strstr(text, "<nic"));
	assert_non_null(strstr(text, "<pci busid=\"0000:1b:00.0\""));
	free(text);
	gf_topo_free(t);
}

static void test_no_gpu(void **state)
{
	struct gf_topo *t = efx_load("ci-vm", NULL);
	int ret;

	(void)state;
	free(efx_run(gf_emit_nccl_topo, t, NULL, &ret));
	assert_int_equal(ret, -ENODEV);
	gf_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpus_under_their_node),
		cmocka_unit_test(test_switch_nesting),
		cmocka_unit_test(test_nvswitch_and_nics),
		cmocka_unit_test(test_affinity_is_node_cpus),
		cmocka_unit_test(test_skeleton),
		cmocka_unit_test(test_no_gpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
