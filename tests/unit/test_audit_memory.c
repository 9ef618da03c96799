/* Memory and OS checks (src/audit/checks_memory.c) on copies of the fixture
 * machines: each check passes, warns or fails, and is na where it does not
 * apply.  ci-vm: one NUMA node, 23 GiB, no EDAC, PID 1 not systemd;
 * hgx-h100-8gpu: two nodes, bare metal. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gpufeed/record.h>

#include "audit_fixture.h"

#define THP "/sys/kernel/mm/transparent_hugepage/"
#define CMDLINE "BOOT_IMAGE=/boot/vmlinuz root=/dev/vda ro quiet"

static void test_swap(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "mem.swap", "", GF_CHECK_PASS);
	afx_put(fx, "/proc/swaps",
		"Filename\tType\tSize\tUsed\tPriority\n/swap.img\tfile\t8388604\t0\t-2\n");
	r = afx_expect(fx, "mem.swap", "", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "1 swap area active");
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	afx_free(fx);
}

static void test_thp_profiles(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "mem.thp", "", GF_CHECK_PASS);	/* madvise suits both */
	fx->profile = GF_PROFILE_INFERENCE;
	afx_expect(fx, "mem.thp", "", GF_CHECK_PASS);
	/* always: training's choice, a latency risk for inference. */
	afx_put(fx, THP "enabled", "[always] madvise never\n");
	r = afx_expect(fx, "mem.thp", "", GF_CHECK_WARN);
	assert_int_equal(r->fix_class, GF_FIX_SAFE);
	assert_string_equal(r->path, THP "enabled");
	assert_string_equal(r->value, "madvise");
	assert_string_equal(r->persist_file, "/etc/tmpfiles.d/gpufeed.conf");
	fx->profile = GF_PROFILE_TRAINING;
	afx_expect(fx, "mem.thp", "", GF_CHECK_PASS);
	/* never: training loses THP; inference is fine. */
	afx_put(fx, THP "enabled", "always madvise [never]\n");
	r = afx_expect(fx, "mem.thp", "", GF_CHECK_WARN);
	assert_string_equal(r->value, "always");
	fx->profile = GF_PROFILE_INFERENCE;
	afx_expect(fx, "mem.thp", "", GF_CHECK_PASS);
	afx_rm(fx, THP "enabled");
	afx_expect(fx, "mem.thp", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_thp_cmdline_wins(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	/* Right now madvise, but the command line brings never back at boot. */
	afx_put(fx, "/proc/cmdline", CMDLINE " transparent_hugepage=never\n");
	r = afx_expect(fx, "mem.thp", "", GF_CHECK_WARN);
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	assert_non_null(strstr(r->note, "next boot"));
	/* Wrong now and at boot: the runtime write is safe, but persistence
	 * is the command line's, not a tmpfiles line fighting it. */
	afx_put(fx, THP "enabled", "always madvise [never]\n");
	r = afx_expect(fx, "mem.thp", "", GF_CHECK_WARN);
	assert_int_equal(r->fix_class, GF_FIX_SAFE);
	assert_string_equal(r->persist_file, "");
	assert_non_null(strstr(r->persist, "kernel command line"));
	/* The command line agrees with the profile: pass. */
	afx_put(fx, "/proc/cmdline", CMDLINE " transparent_hugepage=madvise\n");
	afx_put(fx, THP "enabled", "always [madvise] never\n");
	afx_expect(fx, "mem.thp", "", GF_CHECK_PASS);
	afx_free(fx);
}

static void test_thp_defrag(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "mem.thp-defrag", "", GF_CHECK_PASS);
	afx_put(fx, THP "defrag", "[always] defer defer+madvise madvise never\n");
	r = afx_expect(fx, "mem.thp-defrag", "", GF_CHECK_WARN);
	assert_string_equal(r->path, THP "defrag");
	assert_string_equal(r->value, "madvise");
	/* THP off: defrag never runs. */
	afx_put(fx, THP "enabled", "always madvise [never]\n");
	afx_expect(fx, "mem.thp-defrag", "", GF_CHECK_PASS);
	afx_free(fx);
}

static void test_numa_knobs(void **state)
{
	struct afx *vm = afx_new("ci-vm"), *hgx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	/* One node: na even with the knobs on. */
	afx_put(vm, "/proc/sys/kernel/numa_balancing", "1\n");
	afx_put(vm, "/proc/sys/vm/zone_reclaim_mode", "1\n");
	afx_expect(vm, "mem.numa-balancing", "", GF_CHECK_NA);
	afx_expect(vm, "mem.zone-reclaim", "", GF_CHECK_NA);
	afx_expect(hgx, "mem.numa-balancing", "", GF_CHECK_PASS);
	afx_put(hgx, "/proc/sys/kernel/numa_balancing", "1\n");
	r = afx_expect(hgx, "mem.numa-balancing", "", GF_CHECK_WARN);
	assert_string_equal(r->path, "/proc/sys/kernel/numa_balancing");
	assert_string_equal(r->value, "0");
	afx_expect(hgx, "mem.zone-reclaim", "", GF_CHECK_NA);	/* not recorded there */
	afx_put(hgx, "/proc/sys/vm/zone_reclaim_mode", "0\n");
	afx_expect(hgx, "mem.zone-reclaim", "", GF_CHECK_PASS);
	afx_put(hgx, "/proc/sys/vm/zone_reclaim_mode", "1\n");
	r = afx_expect(hgx, "mem.zone-reclaim", "", GF_CHECK_WARN);
	assert_string_equal(r->persist_line, "vm.zone_reclaim_mode = 0");
	afx_free(vm);
	afx_free(hgx);
}

static void test_min_free_kbytes(void **state)
{
	struct afx *vm = afx_new("ci-vm"), *big = afx_new("h200x4-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(vm, "mem.min-free-kbytes", "", GF_CHECK_PASS);	/* 23 GiB: default */
	afx_put(vm, "/proc/sys/vm/min_free_kbytes", "4000000\n");	/* > 5% of RAM */
	r = afx_expect(vm, "mem.min-free-kbytes", "", GF_CHECK_WARN);
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	/* 503 GiB with 91921 kB. */
	r = afx_expect(big, "mem.min-free-kbytes", "", GF_CHECK_WARN);
	assert_string_equal(r->value, "135168");
	afx_put(big, "/proc/sys/vm/min_free_kbytes", "135168\n");
	afx_expect(big, "mem.min-free-kbytes", "", GF_CHECK_PASS);
	afx_free(vm);
	afx_free(big);
}

static void test_dirty_ratio(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;
	char want[32];

	(void)state;
	r = afx_expect(fx, "mem.dirty-ratio", "", GF_CHECK_WARN);	/* 20 < 40 */
	assert_string_equal(r->path, "/proc/sys/vm/dirty_ratio");
	assert_string_equal(r->value, "40");
	fx->profile = GF_PROFILE_INFERENCE;
	r = afx_expect(fx, "mem.dirty-ratio", "", GF_CHECK_WARN);	/* 20 > 10 */
	assert_string_equal(r->value, "10");
	afx_put(fx, "/proc/sys/vm/dirty_ratio", "10\n");
	afx_expect(fx, "mem.dirty-ratio", "", GF_CHECK_PASS);
	fx->profile = GF_PROFILE_TRAINING;
	afx_put(fx, "/proc/sys/vm/dirty_ratio", "40\n");
	afx_expect(fx, "mem.dirty-ratio", "", GF_CHECK_PASS);
	/* dirty_bytes wins when set (the ratio then reads 0): 2 GB of
	 * 25 GB is 8%; the fix writes bytes so revert restores them. */
	afx_put(fx, "/proc/sys/vm/dirty_ratio", "0\n");
	afx_put(fx, "/proc/sys/vm/dirty_bytes", "2000000000\n");
	r = afx_expect(fx, "mem.dirty-ratio", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "dirty_bytes=2000000000"));
	assert_string_equal(r->path, "/proc/sys/vm/dirty_bytes");
	snprintf(want, sizeof(want), "%llu", 24684092ULL * 1024 / 100 * 40);
	assert_string_equal(r->value, want);
	fx->profile = GF_PROFILE_INFERENCE;
	afx_expect(fx, "mem.dirty-ratio", "", GF_CHECK_PASS);
	afx_free(fx);
}

static void test_dirty_background(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "mem.dirty-background", "", GF_CHECK_PASS);	/* 10 of 20 */
	fx->profile = GF_PROFILE_INFERENCE;
	r = afx_expect(fx, "mem.dirty-background", "", GF_CHECK_WARN);
	assert_string_equal(r->value, "3");
	fx->profile = GF_PROFILE_TRAINING;
	/* At the limit: the kernel halves it. */
	afx_put(fx, "/proc/sys/vm/dirty_ratio", "8\n");
	afx_put(fx, "/proc/sys/vm/dirty_background_ratio", "8\n");
	r = afx_expect(fx, "mem.dirty-background", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "dirty limit"));
	assert_string_equal(r->path, "/proc/sys/vm/dirty_background_ratio");
	afx_rm(fx, "/proc/sys/vm/dirty_background_bytes");
	afx_expect(fx, "mem.dirty-background", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_init_on_alloc(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	/* Not on the command line, no kernel config: unknown, na. */
	afx_expect(fx, "mem.init-on-alloc", "", GF_CHECK_NA);
	afx_put(fx, "/boot/config-6.18.44-fc-v657", "CONFIG_X=y\nCONFIG_INIT_ON_ALLOC_DEFAULT_ON=y\n");
	r = afx_expect(fx, "mem.init-on-alloc", "", GF_CHECK_WARN);
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	afx_put(fx, "/boot/config-6.18.44-fc-v657", "CONFIG_X=y\n# CONFIG_INIT_ON_ALLOC_DEFAULT_ON is not set\n");
	afx_expect(fx, "mem.init-on-alloc", "", GF_CHECK_PASS);
	/* The command line overrides the build default; init's arguments
	 * after "--" do not count. */
	afx_put(fx, "/proc/cmdline", CMDLINE " init_on_alloc=1 -- init_on_alloc=0\n");
	afx_expect(fx, "mem.init-on-alloc", "", GF_CHECK_WARN);
	afx_put(fx, "/proc/cmdline", CMDLINE " init_on_alloc=1 init_on_alloc=0\n");
	afx_expect(fx, "mem.init-on-alloc", "", GF_CHECK_PASS);
	afx_free(fx);
}

static void test_hugetlb(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "mem.hugetlb", "", GF_CHECK_PASS);
	afx_put(fx, "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "4\n");
	afx_put(fx, "/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages", "4\n");
	afx_put(fx, "/sys/kernel/mm/hugepages/hugepages-1048576kB/resv_hugepages", "0\n");
	r = afx_expect(fx, "mem.hugetlb", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "4.0 GiB"));
	/* One unused pool: tune frees it only when mem.hugetlb is named. */
	assert_int_equal(r->fix_class, GF_FIX_NAMED);
	assert_string_equal(r->path, "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages");
	assert_string_equal(r->value, "0");
	/* Reserved by a mapping: in use. */
	afx_put(fx, "/sys/kernel/mm/hugepages/hugepages-1048576kB/resv_hugepages", "2\n");
	afx_expect(fx, "mem.hugetlb", "", GF_CHECK_PASS);
	afx_rm(fx, "/sys/kernel/mm/hugepages");
	afx_expect(fx, "mem.hugetlb", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_file_limits(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "mem.file-max", "", GF_CHECK_PASS);
	afx_put(fx, "/proc/sys/fs/file-max", "65536\n");
	r = afx_expect(fx, "mem.file-max", "", GF_CHECK_WARN);
	assert_string_equal(r->path, "/proc/sys/fs/file-max");
	/* ci-vm: soft and hard 20000. */
	r = afx_expect(fx, "mem.nofile", "", GF_CHECK_WARN);
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	afx_put(fx, "/proc/self/limits",
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max open files            1048576              1048576              files     \n");
	afx_expect(fx, "mem.nofile", "", GF_CHECK_PASS);
	afx_put(fx, "/proc/sys/fs/nr_open", "65536\n");
	r = afx_expect(fx, "mem.nofile", "", GF_CHECK_WARN);
	assert_string_equal(r->path, "/proc/sys/fs/nr_open");
	afx_put(fx, "/proc/self/limits", "Limit Soft Hard\n");
	afx_expect(fx, "mem.nofile", "", GF_CHECK_ERROR);
	afx_free(fx);
}

static void test_removeipc(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_put(fx, "/proc/1/comm", "process_api\n");
	afx_put(fx, "/etc/systemd/logind.conf", "[Login]\n#RemoveIPC=yes\n");
	afx_expect(fx, "mem.removeipc", "", GF_CHECK_NA);	/* no systemd */
	afx_put(fx, "/proc/1/comm", "systemd\n");
	r = afx_expect(fx, "mem.removeipc", "", GF_CHECK_WARN);	/* the default: yes */
	assert_string_equal(r->observed, "RemoveIPC=yes");
	afx_put(fx, "/etc/systemd/logind.conf.d/50-mpi.conf", "[Login]\nRemoveIPC=no\n");
	afx_expect(fx, "mem.removeipc", "", GF_CHECK_PASS);
	/* A later file name wins, whatever its directory. */
	afx_put(fx, "/usr/lib/systemd/logind.conf.d/60-vendor.conf", "[Login]\nRemoveIPC=yes\n");
	afx_expect(fx, "mem.removeipc", "", GF_CHECK_WARN);
	/* The same name in /etc hides the vendor's. */
	afx_put(fx, "/etc/systemd/logind.conf.d/60-vendor.conf", "[Login]\nRemoveIPC=no\n");
	afx_expect(fx, "mem.removeipc", "", GF_CHECK_PASS);
	/* Inside a container the host's logind is not ours to judge. */
	afx_put(fx, "/.dockerenv", "\n");
	afx_put(fx, "/proc/self/mountinfo", "600 500 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/x\n"
					      "601 600 0:51 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k\n");
	afx_expect(fx, "mem.removeipc", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_edac(void **state)
{
	struct afx *fx = afx_new("ci-vm");

	(void)state;
	afx_expect(fx, "mem.edac", "", GF_CHECK_NA);	/* a VM: no EDAC */
	afx_put(fx, "/sys/devices/system/edac/mc/mc0/ue_count", "0\n");
	afx_put(fx, "/sys/devices/system/edac/mc/mc0/ce_count", "0\n");
	afx_put(fx, "/sys/devices/system/edac/mc/mc1/ue_count", "0\n");
	afx_put(fx, "/sys/devices/system/edac/mc/mc1/ce_count", "0\n");
	afx_expect(fx, "mem.edac", "", GF_CHECK_PASS);
	afx_put(fx, "/sys/devices/system/edac/mc/mc1/ce_count", "3\n");
	afx_expect(fx, "mem.edac", "", GF_CHECK_WARN);
	afx_put(fx, "/sys/devices/system/edac/mc/mc0/ue_count", "1\n");
	afx_expect(fx, "mem.edac", "", GF_CHECK_FAIL);
	afx_free(fx);
}

/* gpufeed record copies what the checks read: a recording of a planted
 * machine gives the same statuses as the machine. */
static void test_recording_keeps_status(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	static const char *const ids[] = { "mem.numa-balancing", "mem.removeipc", "mem.edac", "mem.init-on-alloc" };

	(void)state;
	afx_put(fx, "/proc/sys/kernel/numa_balancing", "1\n");
	afx_put(fx, "/proc/1/comm", "systemd\n");
	afx_put(fx, "/etc/systemd/logind.conf.d/50-site.conf", "[Login]\nRemoveIPC=yes\n");
	afx_put(fx, "/sys/devices/system/edac/mc/mc0/ue_count", "0\n");
	afx_put(fx, "/sys/devices/system/edac/mc/mc0/ce_count", "2\n");
	afx_put(fx, "/boot/config-5.15.0-1042-nvidia", "CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y\n");
	afx_record_keeps(fx, ids, sizeof(ids) / sizeof(ids[0]), GF_CHECK_WARN);
	afx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swap),
		cmocka_unit_test(test_thp_profiles),
		cmocka_unit_test(test_thp_cmdline_wins),
		cmocka_unit_test(test_thp_defrag),
		cmocka_unit_test(test_numa_knobs),
		cmocka_unit_test(test_min_free_kbytes),
		cmocka_unit_test(test_dirty_ratio),
		cmocka_unit_test(test_dirty_background),
		cmocka_unit_test(test_init_on_alloc),
		cmocka_unit_test(test_hugetlb),
		cmocka_unit_test(test_file_limits),
		cmocka_unit_test(test_removeipc),
		cmocka_unit_test(test_edac),
		cmocka_unit_test(test_recording_keeps_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
