/* PCIe checks (src/audit/checks_pcie.c): each one made to pass and to warn,
 * fail, need root or be na on a private copy of a fixture machine. */
#include <stdio.h>
#include <string.h>

#include "audit_fixture.h"

/* hgx-h100-8gpu: GPU0 and compute NIC mlx5_0 under one PEX switch. */
#define SW "/sys/devices/pci0000:18/0000:18:01.0/0000:19:00.0"
#define GPU0 SW "/0000:1a:00.0/0000:1b:00.0"
#define NIC0 SW "/0000:1a:01.0/0000:1c:00.0"
#define DSP0 SW "/0000:1a:00.0"		/* the switch port above GPU0 */

/* Config space is binary; afx_put writes text, so write it here. */
static void put_bytes(struct afx *fx, const char *path, const unsigned char *b, size_t n)
{
	char full[4096];
	FILE *f;

	afx_put(fx, path, "");	/* the directories, and no link in the way */
	snprintf(full, sizeof(full), "%s%s", fx->dir, path);
	f = fopen(full, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* A bridge's 4 KiB config space: an AER capability at 0x100 chained to an
 * ACS capability at 0x148 whose control register is `ctrl`. */
static void put_acs(struct afx *fx, const char *dev, unsigned ctrl, size_t len)
{
	static unsigned char cfg[4096];
	char path[512];

	memset(cfg, 0, sizeof(cfg));
	cfg[0] = 0xb5, cfg[1] = 0x10;				/* vendor 10b5 (PLX) */
	cfg[0x100] = 0x01, cfg[0x102] = 0x01 | (0x148 << 4 & 0xf0), cfg[0x103] = 0x148 >> 4;	/* AER -> 0x148 */
	cfg[0x148] = 0x0d, cfg[0x14a] = 0x01;			/* ACS v1, last */
	cfg[0x14c] = 0x5f;					/* capabilities */
	cfg[0x14e] = ctrl & 0xff, cfg[0x14f] = ctrl >> 8;
	snprintf(path, sizeof(path), "%s/config", dev);
	put_bytes(fx, path, cfg, len);
}

static void test_link_width(void **state)
{
	struct afx *fx = afx_new("dual-8gpu-pcie-switch");
	const struct gf_check_result *r;

	(void)state;
	/* GPU5 trained x8 in an x16 slot: the model's finding, as a failure. */
	r = afx_expect(fx, "pcie.link-width", "GPU5", GF_CHECK_FAIL);
	assert_non_null(strstr(r->observed, "x8"));
	afx_free(fx);

	fx = afx_new("hgx-h100-8gpu");
	r = afx_expect(fx, "pcie.link-width", "", GF_CHECK_PASS);
	assert_non_null(strstr(r->observed, "links at their full width"));
	/* A bridge on a GPU's path counts too (the switch's upstream port). */
	afx_put(fx, SW "/current_link_width", "8\n");
	afx_expect(fx, "pcie.link-width", NULL, GF_CHECK_FAIL);
	afx_free(fx);

	fx = afx_new("ci-vm");	/* virtio devices report no link */
	afx_expect(fx, "pcie.link-width", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_link_speed(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "pcie.link-speed", "", GF_CHECK_PASS);
	/* An idle GPU drops to Gen1: a warning that says so, never a failure. */
	afx_put(fx, GPU0 "/current_link_speed", "2.5 GT/s PCIe\n");
	r = afx_expect(fx, "pcie.link-speed", "GPU0", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "GPUs lower the link speed when idle; check under load"));
	afx_put(fx, GPU0 "/current_link_speed", "32.0 GT/s PCIe\n");
	/* A NIC does not: below its generation is a failure. */
	afx_put(fx, NIC0 "/current_link_speed", "16.0 GT/s PCIe\n");
	afx_expect(fx, "pcie.link-speed", "NIC0", GF_CHECK_FAIL);
	afx_free(fx);
}

static void test_aer(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "pcie.aer", "", GF_CHECK_NA);	/* no counters exposed */
	afx_put(fx, GPU0 "/aer_dev_correctable", "RxErr 0\nBadTLP 2\nBadDLLP 1\nTOTAL_ERR_COR 3\n");
	afx_put(fx, GPU0 "/aer_dev_fatal", "Undefined 0\nDLP 0\nTOTAL_ERR_FATAL 0\n");
	afx_put(fx, GPU0 "/aer_dev_nonfatal", "Undefined 0\nDLP 0\nTOTAL_ERR_NONFATAL 0\n");
	r = afx_expect(fx, "pcie.aer", "GPU0", GF_CHECK_PASS);
	assert_non_null(strstr(r->observed, "correctable 3"));
	afx_put(fx, GPU0 "/aer_dev_correctable", "RxErr 400\nBadTLP 101\nTOTAL_ERR_COR 501\n");
	afx_expect(fx, "pcie.aer", "GPU0", GF_CHECK_WARN);
	/* Older kernels print no TOTAL line: the counters are summed. */
	afx_put(fx, GPU0 "/aer_dev_correctable", "RxErr 0\nBadTLP 0\n");
	afx_put(fx, GPU0 "/aer_dev_nonfatal", "Undefined 0\nCmpltTO 1\n");
	afx_expect(fx, "pcie.aer", "GPU0", GF_CHECK_FAIL);
	afx_put(fx, GPU0 "/aer_dev_nonfatal", "TOTAL_ERR_NONFATAL 0\n");
	afx_put(fx, GPU0 "/aer_dev_fatal", "TOTAL_ERR_FATAL 1\n");
	afx_expect(fx, "pcie.aer", "GPU0", GF_CHECK_FAIL);
	afx_free(fx);
}

static void test_acs(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	/* No config space recorded: nothing to judge. */
	afx_expect(fx, "pcie.acs", "", GF_CHECK_NA);
	/* SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+: what the kernel sets
	 * with the IOMMU on. */
	put_acs(fx, DSP0, 0x001d, 4096);
	r = afx_expect(fx, "pcie.acs", "0000:1a:00.0", GF_CHECK_FAIL);
	assert_non_null(strstr(r->observed, "ReqRedir+"));
	assert_non_null(strstr(r->fix, "setpci -s 0000:1a:00.0 ECAP_ACS+0x6.w=0000"));
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	/* Source validation alone redirects nothing. */
	put_acs(fx, DSP0, 0x0001, 4096);
	afx_expect(fx, "pcie.acs", "0000:1a:00.0", GF_CHECK_PASS);
	/* 256 bytes read as root: no extended space, no ACS. */
	put_acs(fx, DSP0, 0x001d, 256);
	r = afx_expect(fx, "pcie.acs", "0000:1a:00.0", GF_CHECK_PASS);
	assert_string_equal(r->observed, "no ACS capability");
	/* 64 bytes recorded by a user: the ACS bits were never seen. */
	afx_put(fx, "/gpufeed-recording.json", "{ \"schema\": \"gpufeed-recording/2\", \"euid\": 1000 }\n");
	put_acs(fx, DSP0, 0x001d, 64);
	afx_expect(fx, "pcie.acs", "0000:1a:00.0", GF_CHECK_NEEDS_ROOT);
	afx_free(fx);

	/* In a VM ACS is the hypervisor's business (ATS instead). */
	fx = afx_new("h200x4-vm");
	r = afx_expect(fx, "pcie.acs", "", GF_CHECK_NA);
	assert_non_null(strstr(r->note, "ATS"));
	afx_free(fx);
	fx = afx_new("ci-vm");
	afx_expect(fx, "pcie.acs", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_iommu(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");	/* intel_iommu=on iommu=pt */
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "pcie.iommu", "", GF_CHECK_PASS);
	afx_put(fx, GPU0 "/iommu_group/type", "identity\n");
	afx_expect(fx, "pcie.iommu", "", GF_CHECK_PASS);
	afx_put(fx, GPU0 "/iommu_group/type", "DMA-FQ\n");
	r = afx_expect(fx, "pcie.iommu", "", GF_CHECK_WARN);
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	assert_non_null(strstr(r->observed, "1 translated"));
	afx_rm(fx, GPU0 "/iommu_group");
	afx_put(fx, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro intel_iommu=on quiet\n");
	afx_expect(fx, "pcie.iommu", "", GF_CHECK_WARN);
	afx_put(fx, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro quiet\n");	/* IOMMU off */
	afx_expect(fx, "pcie.iommu", "", GF_CHECK_PASS);
	afx_free(fx);

	fx = afx_new("h200x4-vm");
	afx_expect(fx, "pcie.iommu", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_nic_bandwidth(void **state)
{
	struct afx *fx = afx_new("dual-8gpu-pcie-switch");
	const struct gf_check_result *r;

	(void)state;
	/* 400 Gb/s behind Gen4 x16: the model's topo.nic-pcie-capped. */
	r = afx_expect(fx, "pcie.nic-bandwidth", "NIC1", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "Gen4 x16"));
	afx_expect(fx, "pcie.nic-bandwidth", "NIC0", GF_CHECK_PASS);	/* 200 Gb/s */
	afx_free(fx);

	fx = afx_new("hgx-h100-8gpu");
	afx_expect(fx, "pcie.nic-bandwidth", "NIC0", GF_CHECK_PASS);
	/* The same NIC at Gen5 x8 cannot carry 400 Gb/s. */
	afx_put(fx, NIC0 "/current_link_width", "8\n");
	afx_put(fx, NIC0 "/max_link_width", "8\n");
	afx_expect(fx, "pcie.nic-bandwidth", "NIC0", GF_CHECK_WARN);
	afx_free(fx);

	fx = afx_new("ci-vm");	/* virtio: no line rate */
	afx_expect(fx, "pcie.nic-bandwidth", "eth0", GF_CHECK_NA);
	afx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_width),
		cmocka_unit_test(test_link_speed),
		cmocka_unit_test(test_aer),
		cmocka_unit_test(test_acs),
		cmocka_unit_test(test_iommu),
		cmocka_unit_test(test_nic_bandwidth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
