/* gf_bind_compute on the fixture machines: the CPUs and nodes an expert
 * would bind each GPU to, read off the machines' READMEs (sockets, cores,
 * SMT, which GPU hangs off which node), not copied from the tool. */
#include "helpers.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sched.h>
#include <gpufeed/gpufeed.h>
#include "t_child.h"

static struct gf_topo *load(const char *machine, enum gf_nvml_mode nvml)
{
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t = NULL;

	o.root = t_fixture_root(machine);
	o.nvml = nvml;
	if (gf_topo_discover(&o, &t))
		fail_msg("%s: %s", machine, gf_last_error());
	return t;
}

static const char *list(const struct gf_cpuset *s)
{
	static char buf[1024];

	gf_cpuset_format_list(s, buf, sizeof(buf));
	return buf;
}

/* Every CPU allowed, as a process with no cpuset would be on that machine:
 * the fixtures' CPUs are not this machine's. */
static struct gf_cpuset all_cpus, all_mems;

static int compute(const struct gf_topo *t, const char *gpus, enum gf_bind_cpu_mode cpu, const char *reserved,
		   struct gf_binding *b)
{
	struct gf_bind_options o = GF_BIND_OPTS_INIT;
	struct gf_bind_target tg[GF_BIND_MAX_TARGETS];
	struct gf_cpuset r;
	int n = gf_bind_parse_targets(t, gpus, tg, GF_BIND_MAX_TARGETS);

	if (n < 0)
		fail_msg("%s: %s", gpus, gf_last_error());
	o.cpu = cpu;
	o.allowed_cpus = &all_cpus;
	o.allowed_mems = &all_mems;
	if (reserved) {
		assert_int_equal(gf_cpuset_parse_list(&r, reserved), 0);
		o.reserved = &r;
	}
	return gf_bind_compute(t, tg, n, &o, b);
}

static struct gf_binding b;

static void expect(const struct gf_topo *t, const char *gpus, enum gf_bind_cpu_mode cpu, const char *reserved,
		   const char *cpus, const char *mems, int threads)
{
	if (compute(t, gpus, cpu, reserved, &b))
		fail_msg("GPU %s, %s: %s", gpus, gf_bind_cpu_mode_name(cpu), gf_last_error());
	assert_string_equal(list(&b.cpus), cpus);
	assert_string_equal(list(&b.mems), mems);
	assert_int_equal(b.threads, threads);
}

static int setup(void **state)
{
	(void)state;
	gf_cpuset_parse_list(&all_cpus, "0-8191");
	gf_cpuset_parse_list(&all_mems, "0-63");
	return 0;
}

/* HGX H100: 2 x 56 cores, SMT2 (CPU n's sibling is n+112); GPUs 0-3 on
 * node 0, 4-7 on node 1; a node is a package and one L3. */
static void hgx_modes(void **state)
{
	struct gf_topo *t = load("hgx-h100-8gpu", GF_NVML_AUTO);

	(void)state;
	expect(t, "5", GF_BIND_CPU_NODE, NULL, "56-111,168-223", "1", 56);
	expect(t, "5", GF_BIND_CPU_SOCKET, NULL, "56-111,168-223", "1", 56);
	expect(t, "5", GF_BIND_CPU_L3, NULL, "56-111,168-223", "1", 56);
	/* 56 cores / 4 GPUs = 14 each, siblings with them: GPU 1 is rank 1. */
	expect(t, "1", GF_BIND_CPU_EXCLUSIVE, NULL, "14-27,126-139", "0", 14);
	expect(t, "4", GF_BIND_CPU_EXCLUSIVE, NULL, "56-69,168-181", "1", 14);
	expect(t, "7", GF_BIND_CPU_EXCLUSIVE, NULL, "98-111,210-223", "1", 14);
	/* One GPU per node, two nodes: both nodes' memory, union of CPUs. */
	expect(t, "0,4", GF_BIND_CPU_NODE, NULL, "0-223", "0-1", 112);
	/* By PCI address as well (GPU 5 is at 0000:c3:00.0). */
	expect(t, "0000:c3:00.0", GF_BIND_CPU_EXCLUSIVE, NULL, "70-83,182-195", "1", 14);
	gf_topo_free(t);
}

/* Reserved CPUs are never chosen; exclusive splits what is left. */
static void hgx_reserved_and_sharing(void **state)
{
	struct gf_topo *t = load("hgx-h100-8gpu", GF_NVML_AUTO);
	struct gf_bind_options o = GF_BIND_OPTS_INIT;
	struct gf_bind_target tg = { 5, -1 };
	int sharing[] = { 4, 5 };

	(void)state;
	expect(t, "0", GF_BIND_CPU_NODE, "0-1,112-113", "2-55,114-167", "0", 54);
	/* 54 cores left for 4 GPUs: 14, 14, 13, 13 (lowest ranks take the
	 * remainder), so GPU 1 starts at core 2+14 = 16. */
	expect(t, "1", GF_BIND_CPU_EXCLUSIVE, "0-1,112-113", "16-29,128-141", "0", 14);
	expect(t, "3", GF_BIND_CPU_EXCLUSIVE, "0-1,112-113", "43-55,155-167", "0", 13);
	/* Two GPUs said to share node 1: GPU 5 takes the upper half. */
	o.allowed_cpus = &all_cpus;
	o.allowed_mems = &all_mems;
	o.cpu = GF_BIND_CPU_EXCLUSIVE;
	o.sharing = sharing;
	o.nsharing = 2;
	assert_int_equal(gf_bind_compute(t, &tg, 1, &o, &b), 0);
	assert_string_equal(list(&b.cpus), "84-111,196-223");
	/* A GPU not among those said to share its node. */
	tg.gpu = 6;
	assert_int_equal(gf_bind_compute(t, &tg, 1, &o, &b), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "GPU 6"));
	gf_topo_free(t);
}

/* The allowed CPUs miss the GPU's node: -EXDEV naming both sets. */
static void allowed_misses_node(void **state)
{
	struct gf_topo *t = load("hgx-h100-8gpu", GF_NVML_AUTO);
	struct gf_bind_options o = GF_BIND_OPTS_INIT;
	struct gf_bind_target tg = { 5, -1 };
	struct gf_cpuset allowed, mems;

	(void)state;
	gf_cpuset_parse_list(&allowed, "0-55");
	gf_cpuset_parse_list(&mems, "0-1");
	o.allowed_cpus = &allowed;
	o.allowed_mems = &mems;
	for (int cpu = GF_BIND_CPU_NODE; cpu <= GF_BIND_CPU_L3; cpu++) {
		o.cpu = (enum gf_bind_cpu_mode)cpu;
		assert_int_equal(gf_bind_compute(t, &tg, 1, &o, &b), -EXDEV);
		if (!strstr(gf_last_error(), "56-111,168-223") || !strstr(gf_last_error(), "0-55"))
			fail_msg("%s: %s", gf_bind_cpu_mode_name(o.cpu), gf_last_error());
	}
	/* Memory: node 1 not in Mems_allowed. */
	o.cpu = GF_BIND_CPU_NONE;
	gf_cpuset_parse_list(&mems, "0");
	assert_int_equal(gf_bind_compute(t, &tg, 1, &o, &b), -EXDEV);
	assert_non_null(strstr(gf_last_error(), "Mems_allowed 0"));
	/* Reserved CPUs taking the whole node count the same. */
	o.cpu = GF_BIND_CPU_NODE;
	o.allowed_cpus = &all_cpus;
	o.allowed_mems = &all_mems;
	o.reserved = &allowed;	/* 0-55: all of node 0's first threads */
	tg.gpu = 0;
	assert_int_equal(gf_bind_compute(t, &tg, 1, &o, &b), 0);
	assert_string_equal(list(&b.cpus), "112-167");
	gf_topo_free(t);
}

/* allowed_from_model: a recording's binding as it would be there, whatever
 * this process may use (a preview: run/launch --dry-run --root). */
static void allowed_from_model(void **state)
{
	struct gf_topo *t = load("hgx-h100-8gpu", GF_NVML_AUTO);
	struct gf_bind_options o = GF_BIND_OPTS_INIT;
	struct gf_bind_target tg = { 5, -1 };

	(void)state;
	o.allowed_from_model = true;
	assert_int_equal(gf_bind_compute(t, &tg, 1, &o, &b), 0);
	assert_string_equal(list(&b.cpus), "56-111,168-223");
	assert_string_equal(list(&b.mems), "1");
	assert_non_null(strstr(b.reason, "as recorded"));
	/* the recorded process's own limits are the model's too */
	gf_cpuset_parse_list(&t->cpus.allowed, "0-55");
	assert_int_equal(gf_bind_compute(t, &tg, 1, &o, &b), -EXDEV);
	if (!strstr(gf_last_error(), "recorded") || !strstr(gf_last_error(), "(0-55)"))
		fail_msg("%s", gf_last_error());
	gf_cpuset_parse_list(&t->cpus.allowed, "0-223");
	gf_cpuset_parse_list(&t->numa.mems_allowed, "0");
	o.cpu = GF_BIND_CPU_NONE;
	assert_int_equal(gf_bind_compute(t, &tg, 1, &o, &b), -EXDEV);
	assert_non_null(strstr(gf_last_error(), "Mems_allowed 0"));
	/* explicit allowed sets still win */
	o.cpu = GF_BIND_CPU_NODE;
	o.allowed_cpus = &all_cpus;
	o.allowed_mems = &all_mems;
	assert_int_equal(gf_bind_compute(t, &tg, 1, &o, &b), 0);
	gf_topo_free(t);
}

/* Dual Ice Lake, 8 A100 PCIe, no NVML: 2 x 32 cores, SMT2 (sibling n+64),
 * GPUs 0-3 on node 0 and 4-7 on node 1, two per PCIe switch. */
static void dual_pcie_switch(void **state)
{
	struct gf_topo *t = load("dual-8gpu-pcie-switch", GF_NVML_AUTO);

	(void)state;
	assert_int_equal(t->ngpus, 8);
	expect(t, "2", GF_BIND_CPU_NODE, NULL, "0-31,64-95", "0", 32);
	expect(t, "2", GF_BIND_CPU_EXCLUSIVE, NULL, "16-23,80-87", "0", 8);
	expect(t, "6", GF_BIND_CPU_EXCLUSIVE, NULL, "48-55,112-119", "1", 8);
	/* Without NVML no UUID is lost: /proc/driver/nvidia gives it. */
	assert_true(!strncmp(b.visible_devices, "GPU-", 4));
	gf_topo_free(t);
}

/* 4 x L40S on dual EPYC 9354: 32 cores in 4 L3 groups (8 cores each) per
 * socket, SMT2 (sibling n+64); GPUs 0-1 on node 0, 2-3 on node 1. */
static void l40s_l3(void **state)
{
	struct gf_topo *t = load("l40s-4gpu-224", GF_NVML_AUTO);

	(void)state;
	/* GPU k of a node takes L3 group k of the node (mod 4). */
	expect(t, "0", GF_BIND_CPU_L3, NULL, "0-7,64-71", "0", 8);
	expect(t, "1", GF_BIND_CPU_L3, NULL, "8-15,72-79", "0", 8);
	expect(t, "3", GF_BIND_CPU_L3, NULL, "40-47,104-111", "1", 8);
	assert_non_null(strstr(b.reason, "rank 1 takes group 1"));
	expect(t, "1", GF_BIND_CPU_EXCLUSIVE, NULL, "16-31,80-95", "0", 16);
	expect(t, "2", GF_BIND_CPU_SOCKET, NULL, "32-63,96-127", "1", 32);
	gf_topo_free(t);
}

/* The 4 x H200 VM: one node, 64 CPUs, sysfs numa_node -1 everywhere. */
static void h200_vm_single_node(void **state)
{
	struct gf_topo *t = load("h200x4-vm", GF_NVML_OFF);

	(void)state;
	assert_int_equal(t->gpus[2].numa_node, 0);	/* the single-node rule */
	expect(t, "2", GF_BIND_CPU_NODE, NULL, "0-63", "0", 64);
	expect(t, "2", GF_BIND_CPU_EXCLUSIVE, NULL, "32-47", "0", 16);
	gf_topo_free(t);
}

/* A GPU whose node is unknown on a two-node machine: -ENODEV, not node 0. */
static void unknown_node(void **state)
{
	struct gf_topo *t = load("dual-8gpu-pcie-switch", GF_NVML_AUTO);
	struct gf_bind_options o = GF_BIND_OPTS_INIT;
	struct gf_bind_target tg = { 5, -1 };

	(void)state;
	t->gpus[5].numa_node = -1;
	o.allowed_cpus = &all_cpus;
	o.allowed_mems = &all_mems;
	assert_int_equal(gf_bind_compute(t, &tg, 1, &o, &b), -ENODEV);
	assert_non_null(strstr(gf_last_error(), "not guessing node 0"));
	o.mem = GF_BIND_MEM_NONE;
	o.cpu = GF_BIND_CPU_NONE;
	assert_int_equal(gf_bind_compute(t, &tg, 1, &o, &b), 0);
	gf_topo_free(t);
}

/* ci-2gpu: 2 CPUs, one node, GPU1 in MIG mode with GI 1 and GI 2. */
static void ci_targets_and_mig(void **state)
{
	struct gf_topo *t = load("ci-2gpu", GF_NVML_AUTO);
	struct gf_bind_target tg[4];
	char mig[96];

	(void)state;
	expect(t, "1", GF_BIND_CPU_EXCLUSIVE, NULL, "1", "0", 1);
	expect(t, "0", GF_BIND_CPU_EXCLUSIVE, NULL, "0", "0", 1);
	assert_string_equal(b.visible_devices, t->gpus[0].uuid);
	assert_int_equal(gf_bind_parse_targets(t, "1:2:0", tg, 4), 1);
	assert_int_equal(tg[0].gpu, 1);
	assert_int_equal(t->gpus[1].mig[tg[0].mig].gpu_instance, 2);
	snprintf(mig, sizeof(mig), "%.12s", t->gpus[1].mig[0].uuid);	/* a unique prefix */
	assert_int_equal(gf_bind_parse_targets(t, mig, tg, 4), 1);
	assert_int_equal(tg[0].mig, 0);
	/* MIG instances share their GPU's CPUs; CUDA sees them by MIG UUID. */
	expect(t, "1:1:0,1:2:0", GF_BIND_CPU_EXCLUSIVE, NULL, "1", "0", 1);
	assert_non_null(strstr(b.visible_devices, t->gpus[1].mig[0].uuid));
	assert_non_null(strstr(b.visible_devices, t->gpus[1].mig[1].uuid));
	assert_int_equal(gf_bind_parse_targets(t, "00:07.0,GPU-9cc0", tg, 4), 2);
	assert_int_equal(tg[0].gpu, 1);
	assert_int_equal(tg[1].gpu, 0);
	gf_topo_free(t);
}

static void target_errors(void **state)
{
	struct gf_topo *t = load("ci-2gpu", GF_NVML_AUTO);
	struct gf_bind_target tg[2];

	(void)state;
	assert_int_equal(gf_bind_parse_targets(t, "0,7", tg, 2), -ENOENT);
	assert_non_null(strstr(gf_last_error(), "'7'"));
	assert_int_equal(gf_bind_parse_targets(t, "1:5:0", tg, 2), -ENOENT);
	assert_non_null(strstr(gf_last_error(), "GI 5"));
	assert_int_equal(gf_bind_parse_targets(t, "MIG-ffff", tg, 2), -ENOENT);
	assert_int_equal(gf_bind_parse_targets(t, "0,0", tg, 2), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "already listed"));
	assert_int_equal(gf_bind_parse_targets(t, "0,,1", tg, 2), -EINVAL);
	assert_int_equal(gf_bind_parse_targets(t, "0,1,1:1:0", tg, 2), -E2BIG);
	gf_topo_free(t);
}

/* The environment a bound process gets; --keep-nccl-affinity's flag. */
static void environment(void **state)
{
	struct gf_topo *t = load("ci-2gpu", GF_NVML_AUTO);

	(void)state;
	expect(t, "1", GF_BIND_CPU_NODE, NULL, "0-1", "0", 2);
	unsetenv("NCCL_IGNORE_CPU_AFFINITY");
	assert_int_equal(gf_bind_setenv(&b, GF_BIND_ENV_KEEP_NCCL_AFFINITY), 0);
	assert_null(getenv("NCCL_IGNORE_CPU_AFFINITY"));
	assert_string_equal(getenv("CUDA_VISIBLE_DEVICES"), t->gpus[1].uuid);
	assert_string_equal(getenv("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
	assert_string_equal(getenv("OMP_NUM_THREADS"), "2");
	assert_int_equal(gf_bind_setenv(&b, 0), 0);
	assert_string_equal(getenv("NCCL_IGNORE_CPU_AFFINITY"), "1");
	gf_topo_free(t);
}

static void names_and_options(void **state)
{
	struct gf_topo *t = load("ci-2gpu", GF_NVML_AUTO);
	struct gf_bind_options zeroed;
	struct gf_bind_target tg = { 0, -1 };
	enum gf_bind_cpu_mode m;
	enum gf_bind_mem_policy p;

	(void)state;
	for (int i = GF_BIND_CPU_NODE; i <= GF_BIND_CPU_NONE; i++) {
		assert_int_equal(gf_bind_cpu_mode_parse(gf_bind_cpu_mode_name((enum gf_bind_cpu_mode)i), &m), 0);
		assert_int_equal((int)m, i);
	}
	for (int i = GF_BIND_MEM_BIND; i <= GF_BIND_MEM_NONE; i++) {
		assert_int_equal(gf_bind_mem_policy_parse(gf_bind_mem_policy_name((enum gf_bind_mem_policy)i), &p), 0);
		assert_int_equal((int)p, i);
	}
	assert_int_equal(gf_bind_cpu_mode_parse("numa", &m), -EINVAL);
	memset(&zeroed, 0, sizeof(zeroed));
	assert_int_equal(gf_bind_compute(t, &tg, 1, &zeroed, &b), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "GF_BIND_OPTS_INIT"));
	gf_topo_free(t);
}

/* gf_bind_gpu, the one call a worker makes after fork, binds this process
 * for real: in a child, from the ci-2gpu model (GPUs on this machine's CPUs
 * 0 and 1), GPU1's exclusive share is CPU 1, its memory bound to node 0. */
static int bind_gpu_child(void *arg, int wfd)
{
	struct gf_bind_options o = GF_BIND_OPTS_INIT;
	cpu_set_t set;
	FILE *f = fdopen(wfd, "w");
	int ret;

	(void)arg;
	o.cpu = GF_BIND_CPU_EXCLUSIVE;
	ret = gf_bind_gpu("1", T_MACHINE(.root = t_fixture_root("ci-2gpu")), &o);
	if (!f)
		return 2;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 3;
	fprintf(f, "ret=%d count=%d cpu1=%d visible=%s omp=%s err=%s", ret, CPU_COUNT(&set), CPU_ISSET(1, &set),
		getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "-",
		getenv("OMP_NUM_THREADS") ? getenv("OMP_NUM_THREADS") : "-", ret < 0 ? gf_last_error() : "");
	fclose(f);
	return 0;
}

static void bind_gpu_for_real(void **state)
{
	char out[1024];
	cpu_set_t set;

	(void)state;
	if (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(0, &set) || !CPU_ISSET(1, &set))
		skip();		/* the fixture's CPUs 0 and 1 must be ours */
	assert_int_equal(t_fork_collect(bind_gpu_child, NULL, out, sizeof(out)), 0);
	assert_string_equal(out, "ret=0 count=1 cpu1=1 visible=GPU-1534934e-76f8-da66-5b5b-f2c93bca9271 omp=1 err=");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hgx_modes),
		cmocka_unit_test(hgx_reserved_and_sharing),
		cmocka_unit_test(allowed_misses_node),
		cmocka_unit_test(allowed_from_model),
		cmocka_unit_test(dual_pcie_switch),
		cmocka_unit_test(l40s_l3),
		cmocka_unit_test(h200_vm_single_node),
		cmocka_unit_test(unknown_node),
		cmocka_unit_test(ci_targets_and_mig),
		cmocka_unit_test(target_errors),
		cmocka_unit_test(environment),
		cmocka_unit_test(names_and_options),
		cmocka_unit_test(bind_gpu_for_real),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
