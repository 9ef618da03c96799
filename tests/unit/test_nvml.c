/* The NVML layer: dlopen, every query through the ops table (against the
 * stand-in library), and nvml.json both ways. */
#include "helpers.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/error.h>
#include "vendor/nvml/nvml.h"
#include "vendor/nvml/nvml_facts.h"

static int use_fake(void **state)
{
	const char *lib = getenv("GPUFEED_FAKE_NVML");

	(void)state;
	if (!lib)
		lib = "build/fakes/libnvidia-ml.so.1";
	setenv("GPUFEED_NVML_LIBRARY", lib, 1);
	unsetenv("FAKE_NVML_SCENARIO");
	/* NVML is loaded once per process: forget a previous test's library. */
	gf_nvml_unload();
	return 0;
}

static void collects_topology(void **state)
{
	struct gf_nvml_facts *f;
	char why[200] = "", buf[64];

	(void)state;
	assert_int_equal(gf_nvml_collect(GF_NVML_TOPOLOGY, &f, why, sizeof(why)), 0);
	assert_string_equal(f->driver_version, "580.159.04");
	assert_int_equal(f->cuda_driver_version, 13000);
	assert_int_equal(f->ngpus, 4);
	for (int i = 0; i < 4; i++) {
		const struct gf_nvml_gpu *g = &f->gpus[i];

		assert_int_equal(g->index, i);
		snprintf(buf, sizeof(buf), "0000:00:%02x.0", 6 + i);
		assert_string_equal(g->pci, buf);	/* NVML's 00000000:00:06.0, normalised */
		assert_string_equal(g->name, "NVIDIA H200");
		assert_int_equal(g->nlinks, 18);
		assert_true(g->links[17].active);
		assert_int_equal(g->links[0].version, 6);
		assert_string_equal(g->links[0].remote_type, "switch");
		assert_string_equal(g->links[5].remote_pci, "0000:81:00.0");
		assert_true(g->cpu_affinity_known);
		gf_cpuset_format_list(&g->cpu_affinity, buf, sizeof(buf));
		assert_string_equal(buf, "0-63");
		assert_true(g->memory_affinity_known);
		assert_int_equal(gf_cpuset_first(&g->memory_affinity), 0);
		assert_int_equal(g->numa_node_id, -1);	/* NOT_SUPPORTED stays unknown */
		assert_int_equal(g->pcie_max_gen, 5);
		assert_int_equal(g->mig_current, 0);
		/* Audit state is not asked for in topology detail. */
		assert_int_equal(g->persistence_mode, -1);
		assert_false(g->fabric_known);
	}
	assert_int_equal(f->gpus[2].minor, 3);
	assert_int_equal(f->gpus[3].minor, 2);
	assert_int_equal(f->npairs, 6);
	assert_string_equal(f->pairs[0].common_ancestor, "PHB");
	assert_string_equal(f->pairs[0].p2p_read, "");
	gf_nvml_facts_free(f);
}

static void collects_audit_state(void **state)
{
	struct gf_nvml_facts *f;
	char why[200];

	(void)state;
	assert_int_equal(gf_nvml_collect(GF_NVML_FULL, &f, why, sizeof(why)), 0);
	assert_int_equal(f->gpus[0].persistence_mode, 1);
	assert_string_equal(f->gpus[0].compute_mode, "default");
	assert_int_equal(f->gpus[0].ecc_current, 1);
	assert_int_equal(f->gpus[3].remap_correctable, 2);
	assert_int_equal(f->gpus[0].retired_pages_pending, -1);
	assert_int_equal(f->gpus[0].clocks_event_reasons, 1);
	assert_int_equal(f->gpus[0].power_default_mw, 700000);
	assert_int_equal(f->gpus[0].power_min_mw, 200000);
	/* The fake knows fabric info v2 only: the v3 call fails, v2 answers. */
	assert_true(f->gpus[0].fabric_known);
	assert_string_equal(f->gpus[0].fabric_state, "completed");
	assert_int_equal(f->gpus[0].fabric_clique, 7);
	assert_string_equal(f->gpus[0].fabric_cluster_uuid, "abababab-abab-abab-abab-abababababab");
	assert_string_equal(f->pairs[5].p2p_nvlink, "ok");
	gf_nvml_facts_free(f);
}

static void scenarios(void **state)
{
	struct gf_nvml_facts *f;
	char why[200] = "";

	(void)state;
	setenv("FAKE_NVML_SCENARIO", "init_fail", 1);
	assert_int_equal(gf_nvml_collect(GF_NVML_TOPOLOGY, &f, why, sizeof(why)), -ENODEV);
	assert_null(f);
	assert_non_null(strstr(why, "Driver Not Loaded"));
	assert_non_null(strstr(gf_last_error(), "NVML not available"));

	setenv("FAKE_NVML_SCENARIO", "lost_gpu", 1);
	assert_int_equal(gf_nvml_collect(GF_NVML_TOPOLOGY, &f, why, sizeof(why)), 0);
	assert_int_equal(f->ngpus, 3);
	assert_int_equal(f->gpus[2].index, 3);	/* indices keep NVML's numbering */
	assert_int_equal(f->npairs, 3);
	assert_int_equal(f->pairs[2].a, 1);
	assert_int_equal(f->pairs[2].b, 3);
	gf_nvml_facts_free(f);

	setenv("FAKE_NVML_SCENARIO", "mig", 1);
	assert_int_equal(gf_nvml_collect(GF_NVML_TOPOLOGY, &f, why, sizeof(why)), 0);
	assert_int_equal(f->gpus[0].mig_current, 1);
	assert_int_equal(f->gpus[0].nmig, 2);
	assert_string_equal(f->gpus[0].mig[1].uuid, "MIG-00000000-0000-0000-0000-000000000001");
	assert_int_equal(f->gpus[0].mig[1].gpu_instance, 2);
	assert_int_equal(f->gpus[1].nmig, 0);
	gf_nvml_facts_free(f);
	unsetenv("FAKE_NVML_SCENARIO");
}

static void missing_library(void **state)
{
	struct gf_nvml_facts *f;
	char why[200] = "";

	(void)state;
	setenv("GPUFEED_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	gf_nvml_unload();
	assert_int_equal(gf_nvml_collect(GF_NVML_TOPOLOGY, &f, why, sizeof(why)), -ENOSYS);
	assert_null(f);
	assert_string_equal(why, "GPUFEED_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 not found");
	assert_string_equal(gf_last_error(), "NVML not available: GPUFEED_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 not found");
	/* Asked again: the same answer, without a second dlopen. */
	assert_int_equal(gf_nvml_collect(GF_NVML_TOPOLOGY, &f, why, sizeof(why)), -ENOSYS);
	assert_string_equal(gf_last_error(), "NVML not available: GPUFEED_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 not found");
	use_fake(NULL);
}

/* A library that is there but is not NVML (or an NVML older than R450):
 * not available, and the message names the first symbol it lacks. */
static void library_lacking_a_required_symbol(void **state)
{
	struct gf_nvml_facts *f;
	char why[200] = "";

	(void)state;
	setenv("GPUFEED_NVML_LIBRARY", "libm.so.6", 1);
	gf_nvml_unload();
	assert_int_equal(gf_nvml_collect(GF_NVML_TOPOLOGY, &f, why, sizeof(why)), -ENOSYS);
	assert_null(f);
	assert_string_equal(why, "GPUFEED_NVML_LIBRARY=libm.so.6 lacks nvmlInit_v2 (driver older than R450?)");
	assert_string_equal(gf_last_error(), "NVML not available: GPUFEED_NVML_LIBRARY=libm.so.6 lacks nvmlInit_v2 "
					       "(driver older than R450?)");
	use_fake(NULL);
}

/* Loaded once: the override is read at the first load only. */
static void loaded_once_per_process(void **state)
{
	struct gf_nvml_facts *f;
	char why[200] = "";

	(void)state;
	assert_int_equal(gf_nvml_collect(GF_NVML_TOPOLOGY, &f, why, sizeof(why)), 0);
	gf_nvml_facts_free(f);
	assert_string_equal(gf_nvml_library(), getenv("GPUFEED_NVML_LIBRARY"));
	setenv("GPUFEED_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	assert_int_equal(gf_nvml_collect(GF_NVML_TOPOLOGY, &f, why, sizeof(why)), 0);
	assert_int_equal(f->ngpus, 4);
	gf_nvml_facts_free(f);
	use_fake(NULL);
}

static void json_roundtrip(void **state)
{
	struct gf_nvml_facts *f, *g;
	char *dir = t_mkdtemp(), path[PATH_MAX], why[200];

	(void)state;
	setenv("FAKE_NVML_SCENARIO", "mig", 1);
	assert_int_equal(gf_nvml_collect(GF_NVML_FULL, &f, why, sizeof(why)), 0);
	unsetenv("FAKE_NVML_SCENARIO");
	snprintf(path, sizeof(path), "%s/nvml.json", dir);
	assert_int_equal(gf_nvml_facts_save(f, path), 0);
	assert_int_equal(gf_nvml_facts_load(path, &g), 0);
	assert_int_equal(g->ngpus, f->ngpus);
	assert_int_equal(g->npairs, f->npairs);
	assert_string_equal(g->driver_version, f->driver_version);
	for (int i = 0; i < f->ngpus; i++) {
		const struct gf_nvml_gpu *a = &f->gpus[i], *b = &g->gpus[i];

		assert_string_equal(a->pci, b->pci);
		assert_string_equal(a->uuid, b->uuid);
		assert_int_equal(a->minor, b->minor);
		assert_int_equal(a->memory_bytes, b->memory_bytes);
		assert_true(gf_cpuset_equal(&a->cpu_affinity, &b->cpu_affinity));
		assert_int_equal(a->nlinks, b->nlinks);
		for (int k = 0; k < a->nlinks; k++) {
			assert_int_equal(a->links[k].active, b->links[k].active);
			assert_string_equal(a->links[k].remote_pci, b->links[k].remote_pci);
		}
		assert_int_equal(a->nmig, b->nmig);
		assert_int_equal(a->ecc_pending, b->ecc_pending);
		assert_int_equal(a->remap_correctable, b->remap_correctable);
		assert_int_equal(a->power_max_mw, b->power_max_mw);
		assert_string_equal(a->fabric_cluster_uuid, b->fabric_cluster_uuid);
		assert_int_equal(a->numa_node_id, b->numa_node_id);
	}
	gf_nvml_facts_free(f);
	gf_nvml_facts_free(g);
	t_rmtree(dir);
	free(dir);
}

static void expect_load_error(const char *dir, const char *text, const char *needle)
{
	char path[PATH_MAX];
	struct gf_nvml_facts *f;

	t_write(dir, "nvml.json", text);
	snprintf(path, sizeof(path), "%s/nvml.json", dir);
	assert_int_not_equal(gf_nvml_facts_load(path, &f), 0);
	assert_null(f);
	assert_non_null(strstr(gf_last_error(), "nvml.json"));
	if (!strstr(gf_last_error(), needle))
		fail_msg("error '%s' lacks '%s'", gf_last_error(), needle);
}

static void json_errors(void **state)
{
	char *dir = t_mkdtemp(), path[PATH_MAX];
	struct gf_nvml_facts *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/nvml.json", dir);
	assert_int_equal(gf_nvml_facts_load(path, &f), -ENOENT);
	expect_load_error(dir, "", "nvml.json");
	expect_load_error(dir, "{\"schema\": \"gpufeed-nvml-facts/1\", \"gpus\": [", "nvml.json:1");
	expect_load_error(dir, "[]", "expected a JSON object");
	expect_load_error(dir, "{\"schema\": \"other/9\"}", "schema 'other/9'");
	expect_load_error(dir, "{\"schema\": \"gpufeed-nvml-facts/1\", \"gpus\": {}}", "gpus: expected an array");
	expect_load_error(dir, "{\"schema\": \"gpufeed-nvml-facts/1\", \"gpus\": [{\"pci\": 7}]}",
			  "gpus[0].pci: expected a string");
	expect_load_error(dir, "{\"schema\": \"gpufeed-nvml-facts/1\", \"gpus\": [{\"pci\": \"GPU0\"}]}",
			  "not a PCI address: 'GPU0'");
	expect_load_error(dir, "{\"schema\": \"gpufeed-nvml-facts/1\", \"gpus\": [{\"name\": \"x\"}]}",
			  "gpus[0].pci: missing");
	expect_load_error(dir, "{\"schema\": \"gpufeed-nvml-facts/1\", \"gpus\": [{\"pci\": \"0000:00:06.0\", "
			       "\"cpu_affinity\": \"0-x\"}]}", "not a CPU list");
	expect_load_error(dir, "{\"schema\": \"gpufeed-nvml-facts/1\", \"gpus\": [{\"pci\": \"0000:00:06.0\", "
			       "\"nvlinks\": [{\"active\": 1}]}]}", "nvlinks[0].active: expected true or false");
	expect_load_error(dir, "{\"schema\": \"gpufeed-nvml-facts/1\", \"pairs\": [{\"a\": 0}]}",
			  "pairs[0]: needs GPU indices");
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(collects_topology),
		cmocka_unit_test(collects_audit_state),
		cmocka_unit_test(scenarios),
		cmocka_unit_test(missing_library),
		cmocka_unit_test(library_lacking_a_required_symbol),
		cmocka_unit_test(loaded_once_per_process),
		cmocka_unit_test(json_roundtrip),
		cmocka_unit_test(json_errors),
	};

	return cmocka_run_group_tests_name("nvml", tests, use_fake, NULL);
}
