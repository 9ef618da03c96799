/* gpufeed config kubelet on the recorded machines: reserved CPUs are whole
 * cores away from the GPUs when the machine allows it, and the Topology
 * Manager policy follows the rules docs/config.md states. */
#include "emit_fixture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit_internal.h"

/* Every SMT sibling of a reserved CPU is reserved too. */
static void assert_whole_cores(const struct gf_topo *t, const struct gf_cpuset *r)
{
	for (int i = 0; i < t->cpus.ncpu; i++) {
		const struct gf_cpu *a = &t->cpus.cpu[i];

		if (!gf_cpuset_isset(r, (unsigned)a->id))
			continue;
		for (int j = 0; j < t->cpus.ncpu; j++) {
			const struct gf_cpu *b = &t->cpus.cpu[j];

			if (b->package == a->package && b->die == a->die && b->core == a->core &&
			    !gf_cpuset_isset(r, (unsigned)b->id))
				fail_msg("CPU %d reserved without its sibling %d", a->id, b->id);
		}
	}
}

static struct gf_cpuset gpu_local(const struct gf_topo *t)
{
	struct gf_cpuset s;

	gf_cpuset_zero(&s);
	for (int g = 0; g < t->ngpus; g++)
		gf_cpuset_or(&s, &s, &t->gpus[g].cpus);
	return s;
}

static void test_reserved_whole_cores(void **state)
{
	static const char *const machines[] = { "hgx-h100-8gpu", "dual-8gpu-pcie-switch", "l40s-4gpu-224", "h200x4-vm" };

	(void)state;
	for (size_t m = 0; m < sizeof(machines) / sizeof(machines[0]); m++) {
		struct gf_topo *t = efx_load(machines[m], NULL);
		struct gf_cpuset r;

		assert_int_equal(gf_emit_reserved_cpus(t, 3, &r), 0);
		assert_int_equal(gf_cpuset_count(&r), 3 * t->cpus.threads_per_core);
		assert_whole_cores(t, &r);
		gf_topo_free(t);
	}
}

/* With every GPU on node 0 (locality override), node 1's cores are not
 * GPU-local: the reservation goes there. */
static void test_reserved_away_from_gpus(void **state)
{
	struct gf_topo *t = efx_load("dual-8gpu-pcie-switch", "0000:9b=0;0000:9c=0;0000:ba=0;0000:bb=0");
	struct gf_cpuset r, local = gpu_local(t), both;
	struct gf_cpuset expect;

	(void)state;
	assert_int_equal(gf_emit_reserved_cpus(t, 2, &r), 0);
	gf_cpuset_and(&both, &r, &local);
	assert_true(gf_cpuset_empty(&both));
	/* Node 1 is CPUs 32-63,96-127: its lowest two cores with siblings. */
	gf_cpuset_parse_list(&expect, "32-33,96-97");
	assert_true(gf_cpuset_equal(&r, &expect));
	gf_topo_free(t);
}

static void test_reserved_limits(void **state)
{
	struct gf_topo *t = efx_load("h200x4-vm", NULL);
	struct gf_cpuset r;

	(void)state;
	assert_int_equal(gf_emit_reserved_cpus(t, 0, &r), -EINVAL);
	/* The machine has no core left for pods: not the caller's mistake. */
	assert_int_equal(gf_emit_reserved_cpus(t, t->cpus.ncpu, &r), -ENODEV);
	assert_int_equal(gf_emit_reserved_cpus(t, t->cpus.ncpu - 1, &r), 0);
	gf_topo_free(t);
}

/* What the kubelet leaves to pods: every CPU but the reserved cores, and
 * MemTotal less the three reservations; the static CPU manager with no
 * reserved CPU is refused, as the kubelet refuses it. */
static void test_allocatable(void **state)
{
	struct gf_topo *t = efx_load("hgx-h100-8gpu", NULL);
	struct gf_emit_options o = GF_EMIT_OPTS_INIT;
	struct gf_emit_allocatable a;
	struct gf_cpuset r, both;
	char *text;
	int ret;

	(void)state;
	assert_int_equal(gf_emit_allocatable(t, NULL, &a), 0);
	assert_int_equal(gf_emit_reserved_cpus(t, GF_EMIT_RESERVE_DEFAULT, &r), 0);
	assert_int_equal(gf_cpuset_count(&a.cpus), (unsigned)t->cpus.ncpu - gf_cpuset_count(&r));
	gf_cpuset_and(&both, &a.cpus, &r);
	assert_true(gf_cpuset_empty(&both));
	/* 2015 GiB: kubeReserved 1024+819+819+6881+38649 MiB (GKE's steps),
	 * systemReserved 1024, evictionHard 100. */
	assert_int_equal(t->machine.memory_bytes - a.memory_bytes, (48192ull + 1024 + 100) << 20);
	assert_false(a.nodes_short);
	o.reserve_cores = 0;
	assert_int_equal(gf_emit_allocatable(t, &o, &a), -EINVAL);
	text = efx_run(gf_emit_kubelet, t, &o, &ret);
	assert_int_equal(ret, -EINVAL);
	assert_string_equal(text, "");
	free(text);
	gf_topo_free(t);
	/* The 4x H200 VM: its node's meminfo accounts 5 GiB of 504. */
	t = efx_load("h200x4-vm", NULL);
	assert_int_equal(gf_emit_allocatable(t, NULL, &a), 0);
	assert_true(a.nodes_short);
	assert_true(a.memory_bytes > 480ull << 30);
	gf_topo_free(t);
}

static char *policy_of(const char *machine, struct gf_emit_options *o, char **text)
{
	struct gf_topo *t = efx_load(machine, NULL);
	int ret;

	*text = efx_run(gf_emit_kubelet, t, o, &ret);
	assert_int_equal(ret, 0);
	gf_topo_free(t);
	return efx_value(*text, "topologyManagerPolicy");
}

static void expect_policy(const char *machine, int max_pod, const char *want)
{
	struct gf_emit_options o = GF_EMIT_OPTS_INIT;
	char *text, *p;

	o.max_gpus_per_pod = max_pod;
	p = policy_of(machine, &o, &text);
	assert_non_null(p);
	if (strcmp(p, want))
		fail_msg("%s: policy %s, wanted %s", machine, p, want);
	free(p);
	free(text);
}

static void test_policy_choice(void **state)
{
	(void)state;
	/* One NUMA node: nothing can be refused. */
	expect_policy("h200x4-vm", 0, "single-numa-node");
	/* Two nodes, pods of any size: the p5.48xlarge livelock. */
	expect_policy("hgx-h100-8gpu", 0, "best-effort");
	expect_policy("l40s-4gpu-224", 4, "best-effort");
	/* One GPU per pod: a free GPU always has cores on its node. */
	expect_policy("hgx-h100-8gpu", 1, "single-numa-node");
	expect_policy("dual-8gpu-pcie-switch", 1, "single-numa-node");
}

static void test_livelock_warned(void **state)
{
	struct gf_emit_options o = GF_EMIT_OPTS_INIT;
	char *text, *p;

	(void)state;
	o.tm_policy = "single-numa-node";
	o.tm_scope = "pod";
	p = policy_of("hgx-h100-8gpu", &o, &text);
	assert_string_equal(p, "single-numa-node");
	assert_non_null(strstr(text, "ci-infra#696"));
	assert_non_null(strstr(text, "topologyManagerScope: pod"));
	free(p);
	free(text);
}

static void test_bad_options(void **state)
{
	struct gf_topo *t = efx_load("h200x4-vm", NULL);
	struct gf_emit_options o = GF_EMIT_OPTS_INIT, zero;
	char *text;
	int ret;

	(void)state;
	o.tm_policy = "strict";
	free(efx_run(gf_emit_kubelet, t, &o, &ret));
	assert_int_equal(ret, -EINVAL);
	o.tm_policy = NULL;
	o.tm_scope = "node";
	free(efx_run(gf_emit_kubelet, t, &o, &ret));
	assert_int_equal(ret, -EINVAL);
	memset(&zero, 0, sizeof(zero));
	text = NULL;
	{
		FILE *f = open_memstream(&text, &(size_t){ 0 });

		assert_int_equal(gf_emit_kubelet(t, &zero, f), -EINVAL);
		fclose(f);
	}
	free(text);
	gf_topo_free(t);
}

static unsigned long long mib(const char *text, const char *key)
{
	char *v = efx_value(text, key);
	unsigned long long n;

	assert_non_null(v);
	n = strtoull(v + (*v == '"'), NULL, 10);
	free(v);
	return n;
}

/* reservedMemory sums to kubeReserved + systemReserved + evictionHard, as
 * the kubelet requires. */
static void test_memory_manager_sums(void **state)
{
	struct gf_topo *t = efx_load("hgx-h100-8gpu", NULL);
	struct gf_emit_options o = GF_EMIT_OPTS_INIT;
	char *text, *kube, *sys;
	int ret;

	(void)state;
	o.memory_manager = true;
	text = efx_run(gf_emit_kubelet, t, &o, &ret);
	assert_int_equal(ret, 0);
	assert_non_null(strstr(text, "memoryManagerPolicy: Static"));
	kube = strstr(text, "kubeReserved:");
	sys = strstr(text, "systemReserved:");
	assert_non_null(kube);
	assert_non_null(sys);
	assert_int_equal(mib(kube, "memory") + mib(sys, "memory") + mib(text, "memory.available"),
			 mib(strstr(text, "reservedMemory:"), "memory"));
	free(text);
	gf_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reserved_whole_cores),
		cmocka_unit_test(test_reserved_away_from_gpus),
		cmocka_unit_test(test_reserved_limits),
		cmocka_unit_test(test_allocatable),
		cmocka_unit_test(test_policy_choice),
		cmocka_unit_test(test_livelock_warned),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_memory_manager_sums),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
