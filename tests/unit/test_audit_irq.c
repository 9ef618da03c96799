/* IRQ checks (src/audit/checks_irq.c) against fixture machines with
 * planted interrupts.  hgx-h100-8gpu has two NUMA nodes: node 0 = CPUs
 * 0-55,112-167 (GPU0 0000:1b:00.0, NIC0 0000:1c:00.0, nvme0n1), node 1 =
 * CPUs 56-111,168-223 (nvme1n1 0000:81:00.0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_fixture.h"

#define NODE0 "0-55,112-167"
#define NODE1 "56-111,168-223"

/* One copy of the (large) two-node machine for every test; each test
 * starts from reset_hgx(), which removes what the tests plant. */
static struct afx *hgx;

static struct afx *reset_hgx(void)
{
	static const char *const planted[] = {
		"/sys/bus/pci/devices/0000:1b:00.0/msi_irqs", "/sys/bus/pci/devices/0000:1c:00.0/msi_irqs",
		"/sys/bus/pci/devices/0000:01:00.0/msi_irqs", "/sys/bus/pci/devices/0000:81:00.0/msi_irqs",
		"/proc/irq", "/proc/1", "/proc/900", "/etc/default/irqbalance", "/etc/sysconfig/irqbalance",
		"/sys/devices/system/cpu/isolated", "/sys/devices/system/cpu/nohz_full", NULL
	};

	for (int i = 0; planted[i]; i++)
		afx_rm(hgx, planted[i]);
	hgx->profile = GF_PROFILE_TRAINING;
	return hgx;
}

static int group_setup(void **state)
{
	(void)state;
	hgx = afx_new("hgx-h100-8gpu");
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	afx_free(hgx);
	return 0;
}

/* IRQ `irq` of PCI device `bdf`, allowed on `mask`, delivered to `eff`
 * (NULL: no effective_affinity_list, as on older kernels). */
static void plant_irq(struct afx *fx, const char *bdf, int irq, const char *mask, const char *eff)
{
	char path[160], text[96];

	if (bdf) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/msi_irqs/%d", bdf, irq);
		afx_put(fx, path, "msix\n");
	}
	snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
	snprintf(text, sizeof(text), "%s\n", mask);
	afx_put(fx, path, text);
	snprintf(path, sizeof(path), "/proc/irq/%d/effective_affinity_list", irq);
	if (eff) {
		snprintf(text, sizeof(text), "%s\n", eff);
		afx_put(fx, path, text);
	} else {
		afx_rm(fx, path);
	}
}

static void test_gpu_local(void **state)
{
	struct afx *fx = reset_hgx();
	const struct gf_check_result *r;

	(void)state;
	plant_irq(fx, "0000:1b:00.0", 140, NODE0, "3");
	r = afx_expect(fx, "irq.gpu-local", "GPU0", GF_CHECK_PASS);
	assert_non_null(strstr(r->observed, "all on node 0"));
	/* Allowed locally, but delivered to CPU 60 on node 1. */
	plant_irq(fx, "0000:1b:00.0", 140, "0-223", "60");
	r = afx_expect(fx, "irq.gpu-local", "GPU0", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "IRQ 140 on 60"));
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	/* No effective list: the mask is what counts. */
	plant_irq(fx, "0000:1b:00.0", 140, NODE1, NULL);
	afx_expect(fx, "irq.gpu-local", "GPU0", GF_CHECK_WARN);
	/* The device's IRQ listed, its /proc/irq files not: never a pass. */
	afx_rm(fx, "/proc/irq/140");
	afx_expect(fx, "irq.gpu-local", "GPU0", GF_CHECK_NA);
	/* No MSI interrupts listed at all. */
	afx_expect(fx, "irq.gpu-local", "GPU1", GF_CHECK_NA);
}

static void test_gpu_local_na(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "irq.gpu-local", "", GF_CHECK_NA);
	afx_free(fx);
	/* A GPU VM with one NUMA node: nothing to place. */
	fx = afx_new("h200x4-vm");
	r = afx_expect(fx, "irq.gpu-local", "", GF_CHECK_NA);
	assert_non_null(strstr(r->note, "NUMA node"));
	afx_free(fx);
}

static void test_nic_local(void **state)
{
	struct afx *fx = reset_hgx();
	const struct gf_check_result *r;

	(void)state;
	plant_irq(fx, "0000:1c:00.0", 150, NODE0, "4");
	plant_irq(fx, "0000:1c:00.0", 151, NODE0, "5");
	r = afx_expect(fx, "irq.nic-local", "NIC0", GF_CHECK_PASS);
	assert_non_null(strstr(r->observed, "2 IRQs"));
	plant_irq(fx, "0000:1c:00.0", 151, NODE1, "57");
	r = afx_expect(fx, "irq.nic-local", "NIC0", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "1 of 2"));
	assert_non_null(strstr(r->expected, NODE0));
	fx = afx_new("ci-vm");
	afx_expect(fx, "irq.nic-local", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_nic_local_needs_root(void **state)
{
	struct afx *fx;
	char path[4200];

	(void)state;
	if (geteuid() == 0)
		skip();	/* root reads a mode-000 file */
	fx = reset_hgx();
	plant_irq(fx, "0000:1c:00.0", 150, NODE0, NULL);
	snprintf(path, sizeof(path), "%s/proc/irq/150/smp_affinity_list", fx->dir);
	assert_int_equal(chmod(path, 0), 0);
	afx_expect(fx, "irq.nic-local", "NIC0", GF_CHECK_NEEDS_ROOT);
}

static void test_nvme_local(void **state)
{
	struct afx *fx = reset_hgx();
	const struct gf_check_result *r;

	(void)state;
	/* Managed queues: the admin vector on every CPU, one vector per
	 * CPU group: spread on purpose. */
	plant_irq(fx, "0000:81:00.0", 200, "0-223", "5");
	plant_irq(fx, "0000:81:00.0", 201, "0-55", "1");
	plant_irq(fx, "0000:81:00.0", 202, "56-111", "60");
	plant_irq(fx, "0000:81:00.0", 203, "112-167", "113");
	plant_irq(fx, "0000:81:00.0", 204, "168-223", "170");
	r = afx_expect(fx, "irq.nvme-local", "nvme1n1", GF_CHECK_PASS);
	assert_non_null(strstr(r->observed, "spread"));
	/* Every queue pinned to the far node: not spread, off node. */
	plant_irq(fx, "0000:81:00.0", 202, "0-55", "2");
	plant_irq(fx, "0000:81:00.0", 203, "0-55", "3");
	plant_irq(fx, "0000:81:00.0", 204, "0-55", "4");
	r = afx_expect(fx, "irq.nvme-local", "nvme1n1", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "off node 1"));
	/* Local queues pass. */
	plant_irq(fx, "0000:01:00.0", 210, NODE0, "7");
	afx_expect(fx, "irq.nvme-local", "nvme0n1", GF_CHECK_PASS);
}

static void test_isolation(void **state)
{
	struct afx *fx = reset_hgx();
	const struct gf_check_result *r;

	(void)state;
	afx_put(fx, "/sys/devices/system/cpu/isolated", "\n");
	afx_put(fx, "/sys/devices/system/cpu/nohz_full", "(null)\n");
	afx_expect(fx, "irq.isolation", "", GF_CHECK_NA);
	afx_put(fx, "/sys/devices/system/cpu/isolated", "2-5\n");
	plant_irq(fx, NULL, 30, "0-1", "0");
	r = afx_expect(fx, "irq.isolation", "", GF_CHECK_PASS);
	assert_non_null(strstr(r->observed, "isolated 2-5"));
	/* An IRQ delivered to an isolated CPU. */
	plant_irq(fx, NULL, 31, "0-223", "3");
	r = afx_expect(fx, "irq.isolation", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "1 IRQ served there: 31"));
	afx_rm(fx, "/proc/irq/31");
	/* A banned list that misses isolated CPUs replaces irqbalance's own
	 * ban of them. */
	afx_put(fx, "/etc/default/irqbalance", "# comment\nIRQBALANCE_BANNED_CPULIST=2-3\n");
	r = afx_expect(fx, "irq.isolation", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "IRQBALANCE_BANNED_CPULIST"));
	afx_put(fx, "/etc/default/irqbalance", "IRQBALANCE_BANNED_CPULIST=\"2-5\"\n");
	afx_expect(fx, "irq.isolation", "", GF_CHECK_PASS);
	/* The older hex mask: 0x3c = CPUs 2-5. */
	afx_rm(fx, "/etc/default/irqbalance");
	afx_put(fx, "/etc/sysconfig/irqbalance", "IRQBALANCE_BANNED_CPUS=0000003c\n");
	afx_expect(fx, "irq.isolation", "", GF_CHECK_PASS);
	/* nohz_full counts as isolated too. */
	afx_put(fx, "/sys/devices/system/cpu/nohz_full", "6\n");
	afx_put(fx, "/proc/1/comm", "systemd\n");
	afx_put(fx, "/proc/900/comm", "irqbalance\n");
	r = afx_expect(fx, "irq.isolation", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "irqbalance running"));
	/* ... unless irqbalance is not running: its list then does nothing. */
	afx_rm(fx, "/proc/900");
	afx_expect(fx, "irq.isolation", "", GF_CHECK_PASS);
}

static void test_balance(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	/* Process names not recorded: unknown, not "not running". */
	afx_rm(fx, "/proc/1/comm");
	afx_expect(fx, "irq.balance", "", GF_CHECK_NA);
	afx_put(fx, "/proc/1/comm", "systemd\n");
	afx_put(fx, "/proc/777/comm", "irqbalance\n");
	r = afx_expect(fx, "irq.balance", "", GF_CHECK_PASS);
	assert_non_null(strstr(r->observed, "pid 777"));
	afx_free(fx);

	fx = reset_hgx();
	afx_put(fx, "/proc/1/comm", "systemd\n");
	/* Two nodes, irqbalance off, a NIC IRQ left on every CPU: neither. */
	plant_irq(fx, "0000:1c:00.0", 150, "0-223", "100");
	r = afx_expect(fx, "irq.balance", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "1 of 1"));
	plant_irq(fx, "0000:1c:00.0", 150, NODE0, "4");
	afx_expect(fx, "irq.balance", "", GF_CHECK_PASS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_local),
		cmocka_unit_test(test_gpu_local_na),
		cmocka_unit_test(test_nic_local),
		cmocka_unit_test(test_nic_local_needs_root),
		cmocka_unit_test(test_nvme_local),
		cmocka_unit_test(test_isolation),
		cmocka_unit_test(test_balance),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
