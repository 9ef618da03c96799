/* gpufeed config slurm: Cores= are the GPU's node's cores in Slurm's
 * numbering, Links= a symmetric matrix with -1 on the diagonal. */
#include "emit_fixture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit_internal.h"

#define MAXG 16

/* The Links= rows and Cores= lists of every Name=gpu line. */
struct gres {
	int n;
	int links[MAXG][MAXG];
	char cores[MAXG][128];
	char file[MAXG][32];
};

static void parse(const char *text, struct gres *g)
{
	memset(g, 0, sizeof(*g));
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p;
		int k = 0;

		if (strncmp(line, "Name=gpu ", 9))
			continue;
		assert_true(g->n < MAXG);
		if ((p = strstr(line, "Cores=")) && p < strchr(line, '\n'))
			snprintf(g->cores[g->n], sizeof(g->cores[0]), "%.*s", (int)strcspn(p + 6, " \n"), p + 6);
		p = strstr(line, "File=");
		snprintf(g->file[g->n], sizeof(g->file[0]), "%.*s", (int)strcspn(p + 5, " \n"), p + 5);
		if ((p = strstr(line, "Links=")) && p < strchr(line, '\n'))
			for (p += 6; k < MAXG; k++) {
				char *end;

				g->links[g->n][k] = (int)strtol(p, &end, 10);
				if (*end != ',')
					break;
				p = end + 1;
			}
		g->n++;
	}
}

static void check_machine(const char *machine)
{
	struct gf_topo *t = efx_load(machine, NULL);
	struct emit_cores c;
	struct gres g;
	char *text;
	int ret;

	text = efx_run(gf_emit_slurm, t, NULL, &ret);
	assert_int_equal(ret, 0);
	parse(text, &g);
	assert_int_equal(g.n, t->ngpus);
	assert_non_null(strstr(text, "AutoDetect=off\n"));
	assert_int_equal(emit_cores_build(t, &c), 0);
	for (int i = 0; i < g.n; i++) {
		struct gf_cpuset listed, cpus, node_cpus;
		const struct gf_numa_node *node = emit_node(t, t->gpus[i].numa_node);

		/* Cores= lists exactly the cores of the GPU's node: their CPUs
		 * make up the node's CPU set. */
		assert_int_equal(gf_cpuset_parse_list(&listed, g.cores[i]), 0);
		gf_cpuset_zero(&cpus);
		for (int k = gf_cpuset_first(&listed); k >= 0; k = gf_cpuset_next(&listed, k)) {
			assert_true(k < c.n);
			gf_cpuset_or(&cpus, &cpus, &c.core[k].cpus);
		}
		assert_non_null(node);
		node_cpus = node->cpus;
		if (!gf_cpuset_equal(&cpus, &node_cpus))
			fail_msg("%s GPU %d: Cores=%s is not node %d's cores", machine, i, g.cores[i], node->id);
		for (int j = 0; j < g.n; j++) {
			if (i == j)
				assert_int_equal(g.links[i][j], -1);
			else
				assert_int_equal(g.links[i][j], g.links[j][i]);
			assert_true(g.links[i][j] >= -1);
		}
		assert_true(t->gpus[i].minor < 0 || atoi(g.file[i] + strlen("/dev/nvidia")) == t->gpus[i].minor);
	}
	emit_cores_free(&c);
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

/* The HGX's NVSwitch: 18 links to every peer; under AutoDetect=nvml the
 * plugin counts 0 through a switch, and the lines say the same. */
static void test_links_values(void **state)
{
	struct gf_topo *t = efx_load("hgx-h100-8gpu", NULL);
	struct gf_emit_options o = GF_EMIT_OPTS_INIT;
	struct gres g;
	char *text;
	int ret;

	(void)state;
	text = efx_run(gf_emit_slurm, t, NULL, &ret);
	parse(text, &g);
	assert_int_equal(g.links[0][7], 18);
	assert_non_null(strstr(text, "Gres=gpu:h100:8"));
	assert_non_null(strstr(text, "Sockets=2 CoresPerSocket=56 ThreadsPerCore=2"));
	free(text);
	o.autodetect = "nvml";
	text = efx_run(gf_emit_slurm, t, &o, &ret);
	parse(text, &g);
	assert_int_equal(g.links[0][7], 0);
	assert_int_equal(g.links[3][3], -1);
	assert_non_null(strstr(text, "AutoDetect=nvml\n"));
	free(text);
	o.autodetect = "nvidia";
	text = efx_run(gf_emit_slurm, t, &o, &ret);
	assert_null(strstr(text, "Links=-1"));
	assert_non_null(strstr(text, "Cores=0-55\n"));
	free(text);
	gf_topo_free(t);
}

static void test_abstract_core_order(void **state)
{
	struct gf_topo *t = efx_load("hgx-h100-8gpu", NULL);
	struct emit_cores c;

	(void)state;
	assert_int_equal(emit_cores_build(t, &c), 0);
	assert_int_equal(c.n, 112);
	/* Core L#56 is the first core of package 1: CPUs 56 and 168. */
	assert_int_equal(c.core[56].first, 56);
	assert_true(gf_cpuset_isset(&c.core[56].cpus, 168));
	for (int i = 1; i < c.n; i++)
		assert_true(c.core[i].first > c.core[i - 1].first);
	emit_cores_free(&c);
	gf_topo_free(t);
}

static void test_errors(void **state)
{
	struct gf_topo *t = efx_load("ci-vm", NULL), *h = efx_load("l40s-4gpu-224", NULL);
	struct gf_emit_options o = GF_EMIT_OPTS_INIT;
	char *text;
	int ret;

	(void)state;
	free(efx_run(gf_emit_slurm, t, NULL, &ret));
	assert_int_equal(ret, -ENODEV);
	o.gpu_type = "l40s:48gb";
	free(efx_run(gf_emit_slurm, h, &o, &ret));
	assert_int_equal(ret, -EINVAL);
	o.gpu_type = NULL;
	o.autodetect = "full";
	free(efx_run(gf_emit_slurm, h, &o, &ret));
	assert_int_equal(ret, -EINVAL);
	o.autodetect = NULL;
	text = efx_run(gf_emit_slurm, h, &o, &ret);
	assert_non_null(strstr(text, "Type=l40s "));
	free(text);
	gf_topo_free(t);
	gf_topo_free(h);
}

static void test_gpu_names(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(emit_gpu_sm("NVIDIA H100 80GB HBM3"), 90);
	assert_int_equal(emit_gpu_sm("NVIDIA A100-SXM4-80GB"), 80);
	assert_int_equal(emit_gpu_sm("NVIDIA A10"), 86);
	assert_int_equal(emit_gpu_sm("NVIDIA L40S"), 89);
	assert_int_equal(emit_gpu_sm("NVIDIA L4"), 89);
	assert_int_equal(emit_gpu_sm("Tesla V100-SXM2-16GB"), 70);
	assert_int_equal(emit_gpu_sm("NVIDIA Mystery 9000"), 0);
	emit_gpu_short("NVIDIA A100-SXM4-80GB", buf, sizeof(buf));
	assert_string_equal(buf, "a100");
	emit_gpu_short("Tesla V100-SXM2-16GB", buf, sizeof(buf));
	assert_string_equal(buf, "v100");
	emit_gpu_short("", buf, sizeof(buf));
	assert_string_equal(buf, "gpu");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_links_values),
		cmocka_unit_test(test_abstract_core_order),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_gpu_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
