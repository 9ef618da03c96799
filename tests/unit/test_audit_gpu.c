/* GPU and NVIDIA stack checks (src/audit/checks_gpu.c): each one made to
 * pass, and to warn/fail or be na, on the hgx-h100-8gpu (bare metal, 4
 * NVSwitches, driver 535 / CUDA 12.2) and h200x4-vm (a VM, NVSwitches
 * hidden, driver 580 / CUDA 13.0) fixtures, with nvml.json edited. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include <gpufeed/record.h>
#include "audit_fixture.h"
#include "audit/audit_internal.h"

/* ---- nvml.json editing ---- */

static json_t *load_nvml(struct afx *fx)
{
	char path[4096], *text;
	json_t *root;

	snprintf(path, sizeof(path), "%s/nvml.json", fx->dir);
	text = t_read(path);
	assert_non_null(text);
	root = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(root);
	return root;
}

static void save_nvml(struct afx *fx, json_t *root)
{
	char *text = json_dumps(root, JSON_INDENT(1));

	assert_non_null(text);
	afx_put(fx, "/nvml.json", text);
	free(text);
	json_decref(root);
}

/* Set (value != NULL, stolen) or delete (NULL) gpus[gpu].key, where key is
 * "a" or "a.b". */
static void set_gpu(struct afx *fx, int gpu, const char *key, json_t *value)
{
	json_t *root = load_nvml(fx);
	json_t *g = json_array_get(json_object_get(root, "gpus"), (size_t)gpu);
	char first[64];
	const char *dot = strchr(key, '.');

	assert_non_null(g);
	if (dot) {
		snprintf(first, sizeof(first), "%.*s", (int)(dot - key), key);
		g = json_object_get(g, first);
		assert_non_null(g);
		key = dot + 1;
	}
	if (value)
		json_object_set_new(g, key, value);
	else
		json_object_del(g, key);
	save_nvml(fx, root);
}

static void set_top(struct afx *fx, const char *key, json_t *value)
{
	json_t *root = load_nvml(fx);

	json_object_set_new(root, key, value);
	save_nvml(fx, root);
}

static const char *const *env1(const char *kv)
{
	static const char *e[2];

	e[0] = kv;
	e[1] = NULL;
	return e;
}

/* ---- gpu.nouveau ---- */

static void test_nouveau(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;
	char link[4096];

	(void)state;
	afx_expect(fx, "gpu.nouveau", "", GF_CHECK_PASS);
	/* Loaded, bound to nothing: still a failure (it competes at probe). */
	afx_put(fx, "/sys/module/nouveau/refcnt", "0\n");
	r = afx_expect(fx, "gpu.nouveau", "", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "nouveau loaded (not bound)");
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	afx_rm(fx, "/sys/module/nouveau");
	/* GPU0 driven by nouveau (the driver link is all the model reads). */
	snprintf(link, sizeof(link), "%s/sys/devices/pci0000:18/0000:18:01.0/0000:19:00.0/0000:1a:00.0/0000:1b:00.0/driver",
		 fx->dir);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("../../../../../../bus/pci/drivers/nouveau", link), 0);
	r = afx_expect(fx, "gpu.nouveau", "", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "nouveau drives 1 NVIDIA device (0000:1b:00.0)");
	afx_free(fx);
	/* No NVIDIA device at all: na. */
	fx = afx_new("ci-vm");
	afx_expect(fx, "gpu.nouveau", "", GF_CHECK_NA);
	afx_free(fx);
}

/* ---- gpu.devnodes ---- */

static const char manifest_head[] = "{\"schema\": \"gpufeed-recording/2\", \"source\": \"live\", \"dev_nodes\": [";

static void put_nodes(struct afx *fx, const char *nodes)
{
	char text[1024];

	snprintf(text, sizeof(text), "%s%s]}\n", manifest_head, nodes);
	afx_put(fx, "/" GF_RECORD_MANIFEST, text);
}

static void test_devnodes(void **state)
{
	struct afx *fx = afx_new("h200x4-vm");
	const struct gf_check_result *r;

	(void)state;
	r = afx_expect(fx, "gpu.devnodes", "", GF_CHECK_PASS);
	assert_string_equal(r->source, GF_RECORD_MANIFEST " dev_nodes");
	put_nodes(fx, "\"nvidia0\", \"nvidia1\", \"nvidia2\", \"nvidiactl\", \"nvidia-uvm\"");
	r = afx_expect(fx, "gpu.devnodes", "", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "missing: nvidia3");
	/* Only nvidia-uvm: nvidia-modprobe makes it at the first CUDA call. */
	put_nodes(fx, "\"nvidia0\", \"nvidia1\", \"nvidia2\", \"nvidia3\", \"nvidiactl\"");
	r = afx_expect(fx, "gpu.devnodes", "", GF_CHECK_WARN);
	assert_string_equal(r->observed, "missing: nvidia-uvm");
	put_nodes(fx, "\"nvidia0\", \"nvidia1\", \"nvidia2\", \"nvidia3\"");
	r = afx_expect(fx, "gpu.devnodes", "", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "missing: nvidiactl nvidia-uvm");
	afx_free(fx);
	/* A recording without the list: na, never a pass. */
	fx = afx_new("hgx-h100-8gpu");
	afx_expect(fx, "gpu.devnodes", "", GF_CHECK_NA);
	afx_free(fx);
}

/* ---- gpu.persistence ---- */

static void test_persistence(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	r = afx_expect(fx, "gpu.persistence", "GPU3", GF_CHECK_PASS);
	assert_string_equal(r->note, "");
	set_gpu(fx, 3, "persistence_mode", json_false());
	r = afx_expect(fx, "gpu.persistence", "GPU3", GF_CHECK_WARN);
	assert_string_equal(r->observed, "disabled");
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	assert_non_null(strstr(r->fix, "nvidia-persistenced"));
	afx_expect(fx, "gpu.persistence", "GPU2", GF_CHECK_PASS);
	/* On, with the process list recorded and no daemon: legacy -pm 1. */
	afx_put(fx, "/proc/1/comm", "systemd\n");
	r = afx_expect(fx, "gpu.persistence", "GPU2", GF_CHECK_PASS);
	assert_non_null(strstr(r->note, "legacy"));
	afx_put(fx, "/proc/812/comm", "nvidia-persiste\n");
	r = afx_expect(fx, "gpu.persistence", "GPU2", GF_CHECK_PASS);
	assert_string_equal(r->note, "");
	set_gpu(fx, 3, "persistence_mode", NULL);
	afx_expect(fx, "gpu.persistence", "GPU3", GF_CHECK_NA);
	/* No nvml.json at all: one na saying why. */
	afx_rm(fx, "/nvml.json");
	r = afx_expect(fx, "gpu.persistence", "", GF_CHECK_NA);
	assert_non_null(strstr(r->note, "nvml.json"));
	afx_free(fx);
}

/* ---- gpu.ecc ---- */

static void test_ecc(void **state)
{
	struct afx *fx = afx_new("h200x4-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "gpu.ecc", "GPU0", GF_CHECK_PASS);
	set_gpu(fx, 0, "ecc.pending", json_false());
	r = afx_expect(fx, "gpu.ecc", "GPU0", GF_CHECK_WARN);
	assert_string_equal(r->observed, "current on, pending off");
	assert_non_null(strstr(r->note, "reset"));
	set_gpu(fx, 0, "ecc.current", json_false());
	r = afx_expect(fx, "gpu.ecc", "GPU0", GF_CHECK_WARN);
	assert_string_equal(r->observed, "current off, pending off");
	assert_non_null(strstr(r->fix, "-e 1"));
	set_gpu(fx, 0, "ecc", NULL);
	afx_expect(fx, "gpu.ecc", "GPU0", GF_CHECK_NA);
	afx_expect(fx, "gpu.ecc", "GPU1", GF_CHECK_PASS);
	afx_free(fx);
}

/* ---- gpu.row-remap ---- */

static void test_row_remap(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");

	(void)state;
	afx_expect(fx, "gpu.row-remap", "GPU1", GF_CHECK_PASS);
	set_gpu(fx, 1, "remapped_rows.pending", json_true());
	afx_expect(fx, "gpu.row-remap", "GPU1", GF_CHECK_FAIL);
	set_gpu(fx, 1, "remapped_rows.pending", json_false());
	set_gpu(fx, 1, "remapped_rows.failure", json_true());
	afx_expect(fx, "gpu.row-remap", "GPU1", GF_CHECK_FAIL);
	set_gpu(fx, 1, "remapped_rows.failure", json_false());
	/* Azure's line: more than 512 uncorrectable remaps. */
	set_gpu(fx, 1, "remapped_rows.uncorrectable", json_integer(512));
	afx_expect(fx, "gpu.row-remap", "GPU1", GF_CHECK_PASS);
	set_gpu(fx, 1, "remapped_rows.uncorrectable", json_integer(513));
	afx_expect(fx, "gpu.row-remap", "GPU1", GF_CHECK_FAIL);
	set_gpu(fx, 1, "remapped_rows", NULL);
	afx_expect(fx, "gpu.row-remap", "GPU1", GF_CHECK_NA);
	afx_free(fx);
}

/* ---- gpu.retired-pages ---- */

static void test_retired_pages(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");

	(void)state;
	afx_expect(fx, "gpu.retired-pages", "GPU7", GF_CHECK_PASS);
	set_gpu(fx, 7, "retired_pages_pending", json_true());
	afx_expect(fx, "gpu.retired-pages", "GPU7", GF_CHECK_FAIL);
	afx_free(fx);
	/* The H200 recording has no such field (NOT_SUPPORTED): na. */
	fx = afx_new("h200x4-vm");
	afx_expect(fx, "gpu.retired-pages", "GPU0", GF_CHECK_NA);
	afx_free(fx);
}

/* ---- gpu.clock-events ---- */

static void test_clock_events(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	r = afx_expect(fx, "gpu.clock-events", "GPU0", GF_CHECK_PASS);
	assert_string_equal(r->observed, "0x1 (idle)");
	/* Application clocks and the software power cap are normal. */
	set_gpu(fx, 0, "clocks_event_reasons", json_integer(0x6));
	afx_expect(fx, "gpu.clock-events", "GPU0", GF_CHECK_PASS);
	set_gpu(fx, 0, "clocks_event_reasons", json_integer(0x20));
	r = afx_expect(fx, "gpu.clock-events", "GPU0", GF_CHECK_WARN);
	assert_string_equal(r->observed, "0x20 (sw-thermal)");
	set_gpu(fx, 0, "clocks_event_reasons", json_integer(0x48));
	r = afx_expect(fx, "gpu.clock-events", "GPU0", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "0x48 (hw-slowdown hw-thermal)");
	set_gpu(fx, 0, "clocks_event_reasons", json_integer(0x80));
	afx_expect(fx, "gpu.clock-events", "GPU0", GF_CHECK_FAIL);
	set_gpu(fx, 0, "clocks_event_reasons", NULL);
	afx_expect(fx, "gpu.clock-events", "GPU0", GF_CHECK_NA);
	afx_free(fx);
}

/* ---- gpu.power-limit ---- */

static void test_power_limit(void **state)
{
	struct afx *fx = afx_new("h200x4-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "gpu.power-limit", "GPU2", GF_CHECK_PASS);
	set_gpu(fx, 2, "power_limit_mw.enforced", json_integer(500000));
	r = afx_expect(fx, "gpu.power-limit", "GPU2", GF_CHECK_WARN);
	assert_string_equal(r->observed, "500 W enforced");
	assert_string_equal(r->expected, ">= 700 W (default)");
	assert_string_equal(r->note, "capped at 71% of the default");
	set_gpu(fx, 2, "power_limit_mw", NULL);
	afx_expect(fx, "gpu.power-limit", "GPU2", GF_CHECK_NA);
	afx_free(fx);
}

/* ---- gpu.mig ---- */

static void test_mig(void **state)
{
	struct afx *fx = afx_new("h200x4-vm");
	const struct gf_check_result *r;
	json_t *inst = json_pack("[{s:s, s:i, s:i, s:I}]", "uuid", "MIG-0d5b6f63-3f8b-5d2a-9b1e-aa00c0ffee00",
				 "gpu_instance", 1, "compute_instance", 0, "memory_total_bytes", (json_int_t)71 << 30);

	(void)state;
	afx_expect(fx, "gpu.mig", "GPU1", GF_CHECK_PASS);
	/* Pending differs from current: the layout changes at the next reset. */
	set_gpu(fx, 1, "mig.pending", json_true());
	r = afx_expect(fx, "gpu.mig", "GPU1", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "current disabled, pending enabled");
	fx->profile = GF_PROFILE_INFERENCE;
	afx_expect(fx, "gpu.mig", "GPU1", GF_CHECK_FAIL);
	/* Enabled with instances: inference as declared, training a warning. */
	set_gpu(fx, 1, "mig.current", json_true());
	set_gpu(fx, 1, "mig.instances", inst);
	afx_expect(fx, "gpu.mig", "GPU1", GF_CHECK_PASS);
	fx->profile = GF_PROFILE_TRAINING;
	afx_expect(fx, "gpu.mig", "GPU1", GF_CHECK_WARN);
	/* Enabled without any instance: nothing to run on, even for inference. */
	fx->profile = GF_PROFILE_INFERENCE;
	set_gpu(fx, 1, "mig.instances", json_array());
	r = afx_expect(fx, "gpu.mig", "GPU1", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "no instances"));
	set_gpu(fx, 1, "mig", NULL);
	afx_expect(fx, "gpu.mig", "GPU1", GF_CHECK_NA);
	afx_free(fx);
}

/* ---- gpu.compute-mode ---- */

static void test_compute_mode(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");

	(void)state;
	afx_expect(fx, "gpu.compute-mode", "GPU4", GF_CHECK_PASS);
	set_gpu(fx, 4, "compute_mode", json_string("exclusive_process"));
	afx_expect(fx, "gpu.compute-mode", "GPU4", GF_CHECK_WARN);
	fx->profile = GF_PROFILE_INFERENCE;
	afx_expect(fx, "gpu.compute-mode", "GPU4", GF_CHECK_PASS);
	set_gpu(fx, 4, "compute_mode", json_string("prohibited"));
	afx_expect(fx, "gpu.compute-mode", "GPU4", GF_CHECK_FAIL);
	set_gpu(fx, 4, "compute_mode", NULL);
	afx_expect(fx, "gpu.compute-mode", "GPU4", GF_CHECK_NA);
	afx_free(fx);
}

/* ---- gpu.mps ---- */

static void test_mps(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	/* No process list in the recording: na, not "no daemon". */
	afx_expect(fx, "gpu.mps", "", GF_CHECK_NA);
	afx_put(fx, "/proc/1/comm", "systemd\n");
	afx_put(fx, "/proc/900/comm", "bash\n");
	r = afx_expect(fx, "gpu.mps", "", GF_CHECK_PASS);
	assert_string_equal(r->observed, "no MPS daemon");
	/* comm is cut to 15 characters: nvidia-cuda-mps-control. */
	afx_put(fx, "/proc/4000/comm", "nvidia-cuda-mps\n");
	r = afx_expect(fx, "gpu.mps", "", GF_CHECK_WARN);
	assert_string_equal(r->observed, "1 MPS process running");
	fx->profile = GF_PROFILE_INFERENCE;
	afx_expect(fx, "gpu.mps", "", GF_CHECK_PASS);
	afx_free(fx);
}

/* ---- gpu.driver-cuda ---- */

static void test_driver_cuda(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	/* Driver 535.161.08 (CUDA 12.2); no runtime found: na. */
	afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_NA);
	afx_put(fx, "/usr/local/cuda/version.json", "{\"cuda\": {\"name\": \"CUDA SDK\", \"version\": \"12.2.2\"}}\n");
	r = afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_PASS);
	assert_string_equal(r->observed, "driver 535.161.08, CUDA runtime 12.2");
	assert_non_null(strstr(r->source, "version.json"));
	/* A newer 12.x runs under minor-version compatibility. */
	afx_put(fx, "/usr/local/cuda/version.json", "{\"cuda\": {\"version\": \"12.4.1\"}}\n");
	r = afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "CUDA 12.2"));
	/* A real version.json lists every component: several kB. */
	{
		char big[8192];
		int n = snprintf(big, sizeof(big), "{\"cuda\": {\"version\": \"12.2.140\"}, \"pad\": \"");

		memset(big + n, 'x', 6000);
		snprintf(big + n + 6000, sizeof(big) - n - 6000, "\"}\n");
		afx_put(fx, "/usr/local/cuda/version.json", big);
		afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_PASS);
	}
	afx_rm(fx, "/usr/local/cuda/version.json");
	/* The runtime library's name: 13.x needs 580. */
	afx_put(fx, "/usr/lib/x86_64-linux-gnu/libcudart.so.12.1.105", "");
	afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_PASS);
	afx_put(fx, "/usr/local/cuda/lib64/libcudart.so.13.0.48", "");
	r = afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_FAIL);
	assert_string_equal(r->expected, "driver >= 580 for CUDA 13.x");
	assert_non_null(strstr(r->source, "libcudart.so.13.0.48"));
	/* cuda-compat lets a data-center GPU run it: a warning. */
	afx_put(fx, "/usr/local/cuda/compat/libcuda.so.1", "");
	afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_WARN);
	afx_rm(fx, "/usr/local/cuda");
	afx_rm(fx, "/usr/lib/x86_64-linux-gnu");
	/* A container image's NVIDIA_REQUIRE_CUDA. */
	fx->env = env1("NVIDIA_REQUIRE_CUDA=cuda>=13.0 brand=tesla,driver>=535,driver<536");
	r = afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "driver 535.161.08, CUDA runtime 13.0");
	fx->env = env1("CUDA_VERSION=11.8.0");
	afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_PASS);
	afx_free(fx);
	/* The H200 VM: driver 580 with a CUDA 13 runtime. */
	fx = afx_new("h200x4-vm");
	afx_put(fx, "/usr/local/cuda/lib64/libcudart.so.13", "");
	afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_PASS);
	/* The same runtime on a 575 driver (CUDA 12.9). */
	set_top(fx, "driver_version", json_string("575.57.08"));
	set_top(fx, "cuda_driver_version", json_integer(12090));
	r = afx_expect(fx, "gpu.driver-cuda", "", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "driver 575.57.08, CUDA runtime 13.0");
	afx_free(fx);
}

/* ---- gpu.fabric-manager ---- */

static void test_fabric_manager(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	/* Four NVSwitches on bare metal: every GPU registered; the daemon
	 * cannot be seen (no process list). */
	afx_expect(fx, "gpu.fabric-manager", "", GF_CHECK_NA);
	afx_expect(fx, "gpu.fabric-manager", "GPU6", GF_CHECK_PASS);
	afx_put(fx, "/proc/1/comm", "systemd\n");
	r = afx_expect(fx, "gpu.fabric-manager", "", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "nv-fabricmanager not running");
	afx_put(fx, "/proc/2210/comm", "nv-fabricmanage\n");
	afx_expect(fx, "gpu.fabric-manager", "", GF_CHECK_PASS);
	set_gpu(fx, 6, "fabric.state", json_string("in_progress"));
	afx_expect(fx, "gpu.fabric-manager", "GPU6", GF_CHECK_FAIL);
	set_gpu(fx, 6, "fabric.state", json_string("completed"));
	set_gpu(fx, 6, "fabric.status", json_integer(3));
	afx_expect(fx, "gpu.fabric-manager", "GPU6", GF_CHECK_FAIL);
	afx_free(fx);
	/* A VM with its NVSwitches hidden: na, unless a GPU failed to join. */
	fx = afx_new("h200x4-vm");
	r = afx_expect(fx, "gpu.fabric-manager", "", GF_CHECK_NA);
	assert_non_null(strstr(r->note, "VM"));
	set_gpu(fx, 1, "fabric.state", json_string("not_started"));
	afx_expect(fx, "gpu.fabric-manager", "GPU1", GF_CHECK_WARN);
	afx_free(fx);
	/* PCIe GPUs: no NVSwitch. */
	fx = afx_new("l40s-4gpu-224");
	afx_expect(fx, "gpu.fabric-manager", "", GF_CHECK_NA);
	afx_free(fx);
}

/* ---- gpu.nvlink ---- */

static void test_nvlink(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;
	json_t *root, *link;

	(void)state;
	r = afx_expect(fx, "gpu.nvlink", "GPU5", GF_CHECK_PASS);
	assert_string_equal(r->observed, "18 of 18 links active");
	root = load_nvml(fx);
	link = json_array_get(json_object_get(json_array_get(json_object_get(root, "gpus"), 5), "nvlinks"), 3);
	assert_non_null(link);
	json_object_set_new(link, "active", json_false());
	save_nvml(fx, root);
	r = afx_expect(fx, "gpu.nvlink", "GPU5", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "17 of 18 links active");
	afx_expect(fx, "gpu.nvlink", "GPU4", GF_CHECK_PASS);
	afx_free(fx);
	fx = afx_new("l40s-4gpu-224");
	afx_expect(fx, "gpu.nvlink", "", GF_CHECK_NA);
	afx_free(fx);
}

/* ---- gpu.env ---- */

static void test_env(void **state)
{
	struct afx *fx = afx_new("h200x4-vm");
	const struct gf_check_result *r;
	static const char *const two[] = { "CUDA_INJECTION64_PATH=/opt/tool/libinject.so", "NCCL_DEBUG=INFO",
					   "CUDA_LAUNCH_BLOCKING=1", NULL };

	(void)state;
	r = afx_expect(fx, "gpu.env", "", GF_CHECK_PASS);
	assert_string_equal(r->observed, "none set");
	fx->env = env1("CUDA_LAUNCH_BLOCKING=0");
	afx_expect(fx, "gpu.env", "", GF_CHECK_PASS);
	fx->env = two;
	r = afx_expect(fx, "gpu.env", "", GF_CHECK_WARN);
	/* CUDA_LAUNCH_BLOCKING is nccl.cuda-debug's, not counted twice. */
	assert_string_equal(r->observed, "CUDA_INJECTION64_PATH=/opt/tool/libinject.so");
	assert_string_equal(r->fix, "unset CUDA_INJECTION64_PATH");
	fx->env = env1("CUDA_PROFILE=1");
	afx_expect(fx, "gpu.env", "", GF_CHECK_WARN);
	afx_free(fx);
}

/* ---- everywhere ---- */

/* No GPU here (the CI machine): every GPU check is na, none fails. */
static void test_live_without_gpu(void **state)
{
	struct gf_audit_options o = GF_AUDIT_OPTS_INIT;
	struct gf_audit *a = NULL;

	(void)state;
	o.only = "gpu";
	assert_int_equal(gf_audit_run(&o, &a), 0);
	assert_true(a->nresults >= 15);
	if (!a->gpus)
		for (int i = 0; i < a->nresults; i++)
			if (a->results[i].status != GF_CHECK_NA)
				fail_msg("%s: %s (%s)", a->results[i].check->id,
					 gf_check_status_name(a->results[i].status), a->results[i].note);
	gf_audit_free(a);
}

/* The fixtures as recorded: no false failure and no warning. */
static void test_fixtures_clean(void **state)
{
	static const char *const machines[] = { "hgx-h100-8gpu", "h200x4-vm", "l40s-4gpu-224",
						"dual-8gpu-pcie-switch", "ci-vm", NULL };

	(void)state;
	for (int m = 0; machines[m]; m++) {
		struct gf_audit_options o = GF_AUDIT_OPTS_INIT;
		struct gf_audit *a = NULL;
		static const char *const no_env[] = { NULL };

		o.machine = T_MACHINE(.root = t_fixture_root(machines[m]));
		o.only = "gpu";
		o.env = no_env;
		assert_int_equal(gf_audit_run(&o, &a), 0);
		if (gf_audit_worst(a) > GF_CHECK_NA)
			fail_msg("%s: worst %s", machines[m], gf_check_status_name(gf_audit_worst(a)));
		gf_audit_free(a);
	}
}

/* record keeps what these checks read: init's comm and the daemons',
 * libcudart's name (not its bytes), the toolkit's version.json. */
static void test_record_keeps_gpu_inputs(void **state)
{
	struct gf_record_options o = GF_RECORD_OPTS_INIT;
	struct afx *fx = afx_new("hgx-h100-8gpu");
	char *out = t_mkdtemp(), dest[4096], path[4096];
	struct stat st;
	struct afx rec = { 0 };

	(void)state;
	afx_put(fx, "/proc/1/comm", "systemd\n");
	afx_put(fx, "/proc/4000/comm", "nvidia-cuda-mps\n");
	afx_put(fx, "/proc/4001/comm", "bash\n");
	afx_put(fx, "/usr/local/cuda/version.json", "{\"cuda\": {\"version\": \"12.4.1\"}}\n");
	afx_put(fx, "/usr/lib/x86_64-linux-gnu/libcudart.so.12.4.127", "\177ELF not really a library\n");
	t_symlink(fx->dir, "usr/lib/x86_64-linux-gnu/libcudart.so.12", "libcudart.so.12.4.127");
	afx_put(fx, "/usr/lib/x86_64-linux-gnu/libc.so.6", "libc\n");
	snprintf(dest, sizeof(dest), "%s/rec", out);
	o.machine = T_MACHINE(.root = fx->dir);
	assert_int_equal(gf_record(dest, &o, NULL), 0);
	snprintf(path, sizeof(path), "%s/proc/4000/comm", dest);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/proc/1/comm", dest);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/proc/4001/comm", dest);
	assert_int_equal(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/usr/lib/x86_64-linux-gnu/libcudart.so.12.4.127", dest);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	snprintf(path, sizeof(path), "%s/usr/lib/x86_64-linux-gnu/libcudart.so.12", dest);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	snprintf(path, sizeof(path), "%s/usr/lib/x86_64-linux-gnu/libc.so.6", dest);
	assert_int_equal(stat(path, &st), -1);
	/* The checks read the recording as they read the source. */
	rec.dir = dest;
	afx_expect(&rec, "gpu.mps", "", GF_CHECK_WARN);
	afx_expect(&rec, "gpu.driver-cuda", "", GF_CHECK_WARN);
	gf_audit_free(rec.last);
	t_rmtree(out);
	free(out);
	afx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nouveau),
		cmocka_unit_test(test_devnodes),
		cmocka_unit_test(test_persistence),
		cmocka_unit_test(test_ecc),
		cmocka_unit_test(test_row_remap),
		cmocka_unit_test(test_retired_pages),
		cmocka_unit_test(test_clock_events),
		cmocka_unit_test(test_power_limit),
		cmocka_unit_test(test_mig),
		cmocka_unit_test(test_compute_mode),
		cmocka_unit_test(test_mps),
		cmocka_unit_test(test_driver_cuda),
		cmocka_unit_test(test_fabric_manager),
		cmocka_unit_test(test_nvlink),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_live_without_gpu),
		cmocka_unit_test(test_fixtures_clean),
		cmocka_unit_test(test_record_keeps_gpu_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
