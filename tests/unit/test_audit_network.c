/* Network and RDMA checks (src/audit/checks_network.c): each one made to
 * pass and to warn, fail or be na on a private copy of a fixture machine. */
#include <stdio.h>
#include <string.h>

#include "audit_fixture.h"

static void test_socket_buffers(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_put(fx, "/proc/sys/net/core/rmem_max", "4194304\n");
	r = afx_expect(fx, "net.rmem-max", "", GF_CHECK_WARN);
	assert_int_equal(r->fix_class, GF_FIX_SAFE);
	assert_string_equal(r->path, "/proc/sys/net/core/rmem_max");
	assert_string_equal(r->value, "16777216");
	afx_put(fx, "/proc/sys/net/core/rmem_max", "16777216\n");
	afx_expect(fx, "net.rmem-max", "", GF_CHECK_PASS);
	afx_put(fx, "/proc/sys/net/core/wmem_max", "212992\n");
	r = afx_expect(fx, "net.wmem-max", "", GF_CHECK_WARN);
	assert_string_equal(r->persist_line, "net.core.wmem_max = 16777216");
	afx_put(fx, "/proc/sys/net/core/wmem_max", "67108864\n");
	afx_expect(fx, "net.wmem-max", "", GF_CHECK_PASS);
	afx_rm(fx, "/proc/sys/net/core/wmem_max");	/* a container's netns hides it */
	afx_expect(fx, "net.wmem-max", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_tcp_mem(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_put(fx, "/proc/sys/net/ipv4/tcp_rmem", "4096\t87380\t6291456\n");
	r = afx_expect(fx, "net.tcp-rmem", "", GF_CHECK_WARN);
	/* Only the maximum changes: min and default are kept. */
	assert_string_equal(r->value, "4096 87380 16777216");
	assert_string_equal(r->path, "/proc/sys/net/ipv4/tcp_rmem");
	afx_put(fx, "/proc/sys/net/ipv4/tcp_rmem", "4096 131072 33554432\n");
	afx_expect(fx, "net.tcp-rmem", "", GF_CHECK_PASS);
	afx_put(fx, "/proc/sys/net/ipv4/tcp_wmem", "4096 16384 4194304\n");
	r = afx_expect(fx, "net.tcp-wmem", "", GF_CHECK_WARN);
	assert_string_equal(r->value, "4096 16384 16777216");
	afx_put(fx, "/proc/sys/net/ipv4/tcp_wmem", "4096 16384\n");
	afx_expect(fx, "net.tcp-wmem", "", GF_CHECK_ERROR);
	afx_put(fx, "/proc/sys/net/ipv4/tcp_wmem", "4096 65536 16777216\n");
	afx_expect(fx, "net.tcp-wmem", "", GF_CHECK_PASS);
	afx_free(fx);
}

static void test_slow_start_somaxconn_backlog(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_put(fx, "/proc/sys/net/ipv4/tcp_slow_start_after_idle", "1\n");
	r = afx_expect(fx, "net.slow-start-idle", "", GF_CHECK_WARN);
	assert_string_equal(r->value, "0");
	afx_put(fx, "/proc/sys/net/ipv4/tcp_slow_start_after_idle", "0\n");
	afx_expect(fx, "net.slow-start-idle", "", GF_CHECK_PASS);
	/* somaxconn: 2048 is enough to train, not to serve. */
	afx_put(fx, "/proc/sys/net/core/somaxconn", "2048\n");
	afx_expect(fx, "net.somaxconn", "", GF_CHECK_PASS);
	fx->profile = GF_PROFILE_INFERENCE;
	r = afx_expect(fx, "net.somaxconn", "", GF_CHECK_WARN);
	assert_string_equal(r->value, "4096");
	afx_put(fx, "/proc/sys/net/core/somaxconn", "128\n");
	fx->profile = GF_PROFILE_TRAINING;
	afx_expect(fx, "net.somaxconn", "", GF_CHECK_WARN);
	/* The CI VM's virtio NIC has no line rate: the backlog does not apply. */
	afx_expect(fx, "net.netdev-backlog", "", GF_CHECK_NA);
	afx_free(fx);

	fx = afx_new("hgx-h100-8gpu");	/* 400 Gb/s NICs */
	afx_put(fx, "/proc/sys/net/core/netdev_max_backlog", "1000\n");
	r = afx_expect(fx, "net.netdev-backlog", "", GF_CHECK_WARN);
	assert_string_equal(r->value, "250000");
	afx_put(fx, "/proc/sys/net/core/netdev_max_backlog", "250000\n");
	afx_expect(fx, "net.netdev-backlog", "", GF_CHECK_PASS);
	afx_free(fx);
}

static void test_port_range(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "net.port-range", "", GF_CHECK_PASS);	/* 32768-60999 */
	afx_put(fx, "/proc/sys/net/ipv4/ip_local_port_range", "40000\t45000\n");
	r = afx_expect(fx, "net.port-range", "", GF_CHECK_WARN);
	assert_string_equal(r->path, "/proc/sys/net/ipv4/ip_local_port_range");
	assert_string_equal(r->value, "32768 65535");
	/* Wide and over the NodePorts: fine off Kubernetes... */
	afx_put(fx, "/proc/sys/net/ipv4/ip_local_port_range", "1024 65535\n");
	afx_put(fx, "/proc/sys/net/ipv4/ip_local_reserved_ports", "\n");
	r = afx_expect(fx, "net.port-range", "", GF_CHECK_PASS);
	assert_non_null(strstr(r->note, "Kubernetes"));
	/* ...a warning on a Kubernetes node, fixed by reserving them. */
	afx_put(fx, "/var/lib/kubelet/config.yaml", "kind: KubeletConfiguration\n");
	r = afx_expect(fx, "net.port-range", "", GF_CHECK_WARN);
	assert_string_equal(r->path, "/proc/sys/net/ipv4/ip_local_reserved_ports");
	assert_string_equal(r->value, "30000-32767");
	afx_put(fx, "/proc/sys/net/ipv4/ip_local_reserved_ports", "8080,30000-31000\n");
	r = afx_expect(fx, "net.port-range", "", GF_CHECK_WARN);	/* 31001.. still free */
	assert_string_equal(r->value, "8080,30000-31000,30000-32767");
	afx_put(fx, "/proc/sys/net/ipv4/ip_local_reserved_ports", "8080,30000-31000,31001-32767\n");
	afx_expect(fx, "net.port-range", "", GF_CHECK_PASS);
	/* A list longer than any buffer (1,499 characters) is extended
	 * whole; the command for a person is never a cut value. */
	{
		char list[1600] = "", line[1610], want[1620];

		for (int port = 10000; strlen(list) < 1499; port += 2)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", list[0] ? "," : "", port);
		snprintf(line, sizeof(line), "%s\n", list);
		snprintf(want, sizeof(want), "%s,30000-32767", list);
		afx_put(fx, "/proc/sys/net/ipv4/ip_local_reserved_ports", line);
		r = afx_expect(fx, "net.port-range", "", GF_CHECK_WARN);
		assert_string_equal(r->value, want);
		assert_non_null(strstr(r->persist_line, want));
		assert_non_null(strstr(r->fix, "1511-character value"));
		assert_null(strstr(r->persist, "10000"));
	}
	afx_put(fx, "/proc/sys/net/ipv4/ip_local_port_range", "60000 1024\n");
	afx_expect(fx, "net.port-range", "", GF_CHECK_ERROR);
	afx_free(fx);
}

static void test_mtu(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "net.mtu", "", GF_CHECK_NA);	/* no RDMA NIC */
	afx_free(fx);

	fx = afx_new("hgx-h100-8gpu");
	afx_expect(fx, "net.mtu", "ib3", GF_CHECK_PASS);		/* IPoIB 4092 */
	afx_expect(fx, "net.mtu", "ens21f0np0", GF_CHECK_PASS);	/* RoCE 9000 */
	afx_put(fx, "/sys/class/net/ens21f0np0/mtu", "1500\n");
	r = afx_expect(fx, "net.mtu", "ens21f0np0", GF_CHECK_WARN);
	/* Changes the network: tune applies it only when net.mtu is named. */
	assert_int_equal(r->fix_class, GF_FIX_NAMED);
	assert_string_equal(r->path, "/sys/class/net/ens21f0np0/mtu");
	assert_string_equal(r->value, "9000");
	assert_non_null(strstr(r->fix, "ip link set dev ens21f0np0 mtu 9000"));
	afx_put(fx, "/sys/class/net/ib3/mtu", "2044\n");
	afx_expect(fx, "net.mtu", "ib3", GF_CHECK_WARN);
	/* Large enough but unlike the other seven compute ports. */
	afx_put(fx, "/sys/class/net/ib3/mtu", "65520\n");
	r = afx_expect(fx, "net.mtu", "ib3", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "4092"));
	afx_expect(fx, "net.mtu", "ib2", GF_CHECK_PASS);
	afx_free(fx);
}

#define PORT "/sys/class/infiniband/mlx5_3/ports/1/"

static void test_ib_port(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "net.ib-port", "", GF_CHECK_NA);
	afx_free(fx);

	/* A 100 Gb/s storage card beside 200 Gb/s compute cards: no warning. */
	fx = afx_new("l40s-4gpu-224");
	afx_expect(fx, "net.ib-port", "mlx5_4/1", GF_CHECK_PASS);
	afx_free(fx);

	fx = afx_new("hgx-h100-8gpu");
	afx_expect(fx, "net.ib-port", "mlx5_3/1", GF_CHECK_PASS);
	afx_put(fx, PORT "rate", "200 Gb/sec (2X NDR)\n");
	r = afx_expect(fx, "net.ib-port", "mlx5_3/1", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "2X NDR"));
	afx_put(fx, PORT "rate", "400 Gb/sec (4X NDR)\n");
	afx_put(fx, PORT "state", "2: INIT\n");
	r = afx_expect(fx, "net.ib-port", "mlx5_3/1", GF_CHECK_FAIL);
	assert_non_null(strstr(r->note, "subnet manager"));
	afx_put(fx, PORT "state", "1: DOWN\n");
	afx_put(fx, PORT "phys_state", "2: Polling\n");
	afx_expect(fx, "net.ib-port", "mlx5_3/1", GF_CHECK_WARN);
	afx_put(fx, PORT "phys_state", "3: Disabled\n");
	afx_expect(fx, "net.ib-port", "mlx5_3/1", GF_CHECK_NA);
	afx_put(fx, PORT "phys_state", "7: PhyTest\n");
	afx_expect(fx, "net.ib-port", "mlx5_3/1", GF_CHECK_FAIL);
	afx_rm(fx, PORT "phys_state");
	afx_expect(fx, "net.ib-port", "mlx5_3/1", GF_CHECK_NA);
	afx_free(fx);
}

static void test_peermem(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "net.peermem", "", GF_CHECK_NA);	/* no GPU */
	afx_free(fx);
	fx = afx_new("h200x4-vm");
	afx_expect(fx, "net.peermem", "", GF_CHECK_NA);	/* GPUs, no RDMA NIC */
	afx_free(fx);

	fx = afx_new("hgx-h100-8gpu");
	/* No /sys/module recorded: cannot tell. */
	afx_expect(fx, "net.peermem", "", GF_CHECK_NA);
	afx_put(fx, "/sys/module/nvidia/parameters/NVreg_EnableGpuFirmware", "18\n");
	r = afx_expect(fx, "net.peermem", "", GF_CHECK_FAIL);
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	assert_string_equal(r->fix, "modprobe nvidia-peermem");
	afx_put(fx, "/sys/module/nvidia_peermem/refcnt", "0\n");
	afx_expect(fx, "net.peermem", "", GF_CHECK_PASS);
	afx_rm(fx, "/sys/module/nvidia_peermem");
	afx_put(fx, "/sys/module/nv_peer_mem/refcnt", "0\n");
	afx_expect(fx, "net.peermem", "", GF_CHECK_PASS);
	afx_rm(fx, "/sys/module/nv_peer_mem");
	/* Open kernel modules >= 525 on kernel 5.15: DMA-BUF, a pass with a note. */
	afx_put(fx, "/proc/driver/nvidia/version",
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build\n");
	r = afx_expect(fx, "net.peermem", "", GF_CHECK_PASS);
	assert_non_null(strstr(r->note, "DMA-BUF"));
	/* ...but not an older open driver, nor the proprietary one. */
	afx_put(fx, "/proc/driver/nvidia/version",
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  515.65.01  Release Build\n");
	afx_expect(fx, "net.peermem", "", GF_CHECK_FAIL);
	afx_put(fx, "/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15\n");
	afx_expect(fx, "net.peermem", "", GF_CHECK_FAIL);
	/* Open 550 on kernel 5.4: no DMA-BUF in the kernel's RDMA core. */
	afx_put(fx, "/proc/driver/nvidia/version",
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build\n");
	afx_put(fx, "/proc/sys/kernel/osrelease", "5.4.0-150-generic\n");
	afx_expect(fx, "net.peermem", "", GF_CHECK_FAIL);
	afx_free(fx);
}

static void test_nvidia_fs(void **state)
{
	struct afx *fx = afx_new("hgx-h100-8gpu");
	const struct gf_check_result *r;

	(void)state;
	/* No cufile.json, NVMe not under a GPU's switch: GDS does not apply. */
	afx_expect(fx, "net.nvidia-fs", "", GF_CHECK_NA);
	afx_put(fx, "/etc/cufile.json", "{ \"properties\": {} }\n");
	afx_put(fx, "/sys/module/nvidia/parameters/NVreg_EnableGpuFirmware", "18\n");
	/* Configured, but its NVMe drives are not under a GPU's switch: warn. */
	r = afx_expect(fx, "net.nvidia-fs", "", GF_CHECK_WARN);
	assert_string_equal(r->fix, "modprobe nvidia-fs");
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	afx_put(fx, "/sys/module/nvidia_fs/refcnt", "0\n");
	afx_expect(fx, "net.nvidia-fs", "", GF_CHECK_PASS);
	afx_free(fx);

	/* A GPU VM with cuFile's default cufile.json and a virtio disk (the lent
	 * H100s): no GDS hardware, na, not a failure. */
	fx = afx_new("h200x4-vm");
	afx_put(fx, "/etc/cufile.json", "{ \"properties\": {} }\n");
	r = afx_expect(fx, "net.nvidia-fs", "", GF_CHECK_NA);
	assert_non_null(strstr(r->note, "no NVMe drive"));
	afx_free(fx);

	fx = afx_new("ci-vm");
	afx_expect(fx, "net.nvidia-fs", "", GF_CHECK_NA);	/* no GPU */
	afx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_socket_buffers),
		cmocka_unit_test(test_tcp_mem),
		cmocka_unit_test(test_slow_start_somaxconn_backlog),
		cmocka_unit_test(test_port_range),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_ib_port),
		cmocka_unit_test(test_peermem),
		cmocka_unit_test(test_nvidia_fs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
