/* NCCL and CUDA environment checks (src/audit/checks_nccl.c): the
 * environment is the test's (fx->env), nccl.conf a planted file. */
#include <string.h>

#include "audit_fixture.h"

#define HGX "hgx-h100-8gpu"

static void test_debug_vars(void **state)
{
	struct afx *fx = afx_new(HGX);
	const char *p2p[] = { "NCCL_P2P_DISABLE=1", "NCCL_ALGO=Ring", "NCCL_IB_HCA==mlx5_0", NULL };
	const char *p2p0[] = { "NCCL_P2P_DISABLE=0", NULL };
	const char *conf[] = { "NCCL_CONF_FILE=/opt/nccl.conf", NULL };
	const struct gf_check_result *r;

	(void)state;
	r = afx_expect(fx, "nccl.debug-vars", "", GF_CHECK_PASS);
	assert_string_equal(r->observed, "none set");
	fx->env = p2p;
	r = afx_expect(fx, "nccl.debug-vars", "NCCL_P2P_DISABLE", GF_CHECK_FAIL);
	assert_string_equal(r->source, "environment");
	afx_expect(fx, "nccl.debug-vars", "NCCL_ALGO", GF_CHECK_WARN);
	/* NCCL_IB_HCA is configuration, not debugging: no result for it. */
	for (int i = 0; i < fx->last->nresults; i++)
		assert_string_not_equal(fx->last->results[i].subject, "NCCL_IB_HCA");
	fx->profile = GF_PROFILE_INFERENCE;
	afx_expect(fx, "nccl.debug-vars", "NCCL_P2P_DISABLE", GF_CHECK_WARN);
	fx->profile = GF_PROFILE_TRAINING;
	fx->env = p2p0;
	afx_expect(fx, "nccl.debug-vars", "NCCL_P2P_DISABLE", GF_CHECK_WARN);
	/* /etc/nccl.conf, and $NCCL_CONF_FILE instead of it. */
	fx->env = NULL;
	afx_put(fx, "/etc/nccl.conf", "# tuned by someone\nNCCL_IB_DISABLE = 1\nNCCL_SOCKET_NTHREADS=4\n");
	r = afx_expect(fx, "nccl.debug-vars", "NCCL_IB_DISABLE", GF_CHECK_FAIL);
	assert_string_equal(r->source, "/etc/nccl.conf");
	assert_non_null(strstr(r->fix, "remove it from /etc/nccl.conf"));
	fx->env = conf;
	afx_put(fx, "/opt/nccl.conf", "NCCL_PROTO=Simple\n");
	afx_expect(fx, "nccl.debug-vars", "NCCL_PROTO", GF_CHECK_WARN);
	afx_free(fx);
	/* IB off where there is no RDMA device costs nothing: warn only. */
	fx = afx_new("ci-vm");
	afx_put(fx, "/etc/nccl.conf", "NCCL_IB_DISABLE=1\n");
	afx_expect(fx, "nccl.debug-vars", "NCCL_IB_DISABLE", GF_CHECK_WARN);
	afx_free(fx);
}

static void test_debug_level(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const char *info[] = { "NCCL_DEBUG=INFO", "NCCL_DEBUG_SUBSYS=INIT,NET", NULL };
	const char *warn[] = { "NCCL_DEBUG=WARN", NULL };
	const char *bad[] = { "NCCL_DEBUG=VERBOSE", NULL };
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "nccl.debug-level", "", GF_CHECK_PASS);
	fx->env = info;
	r = afx_expect(fx, "nccl.debug-level", "", GF_CHECK_WARN);
	assert_string_equal(r->observed, "NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET");
	fx->env = warn;
	afx_expect(fx, "nccl.debug-level", "", GF_CHECK_PASS);
	fx->env = bad;
	afx_expect(fx, "nccl.debug-level", "", GF_CHECK_WARN);
	fx->env = NULL;
	afx_put(fx, "/etc/nccl.conf", "NCCL_DEBUG=TRACE\n");
	afx_expect(fx, "nccl.debug-level", "", GF_CHECK_WARN);
	afx_free(fx);
}

static void test_cuda_debug(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const char *blocking[] = { "CUDA_LAUNCH_BLOCKING=1", "TORCH_DISTRIBUTED_DEBUG=DETAIL", NULL };
	const char *off[] = { "CUDA_LAUNCH_BLOCKING=0", "TORCH_DISTRIBUTED_DEBUG=OFF", NULL };

	(void)state;
	afx_expect(fx, "nccl.cuda-debug", "", GF_CHECK_PASS);
	fx->env = blocking;
	afx_expect(fx, "nccl.cuda-debug", "CUDA_LAUNCH_BLOCKING", GF_CHECK_FAIL);
	afx_expect(fx, "nccl.cuda-debug", "TORCH_DISTRIBUTED_DEBUG", GF_CHECK_WARN);
	fx->env = off;
	afx_expect(fx, "nccl.cuda-debug", "", GF_CHECK_PASS);
	afx_free(fx);
}

static void test_ib_hca(void **state)
{
	struct afx *fx = afx_new(HGX);
	const char *exact[] = { "NCCL_IB_HCA==mlx5_0,mlx5_1", NULL };
	const char *prefix[] = { "NCCL_IB_HCA=mlx5_1", NULL };
	const char *all[] = { "NCCL_IB_HCA=mlx5", NULL };
	const char *missing[] = { "NCCL_IB_HCA=mlx4_0", NULL };
	const char *excl[] = { "NCCL_IB_HCA=^mlx4_0", NULL };
	const char *port[] = { "NCCL_IB_HCA==mlx5_0:2", NULL };
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "nccl.ib-hca", "", GF_CHECK_NA);
	fx->env = exact;
	afx_expect(fx, "nccl.ib-hca", "", GF_CHECK_PASS);
	fx->env = prefix;
	afx_expect(fx, "nccl.ib-hca", "", GF_CHECK_PASS);	/* mlx5_0..9 only: no mlx5_1x */
	afx_put(fx, "/sys/class/infiniband/mlx5_10", "");
	r = afx_expect(fx, "nccl.ib-hca", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "mlx5_1 also matches mlx5_10"));
	assert_non_null(strstr(r->fix, "NCCL_IB_HCA=="));
	fx->env = all;
	afx_expect(fx, "nccl.ib-hca", "", GF_CHECK_PASS);	/* "mlx5" means all of them */
	fx->env = missing;
	afx_expect(fx, "nccl.ib-hca", "", GF_CHECK_FAIL);
	fx->env = excl;
	afx_expect(fx, "nccl.ib-hca", "", GF_CHECK_WARN);
	fx->env = port;
	r = afx_expect(fx, "nccl.ib-hca", "", GF_CHECK_FAIL);
	assert_non_null(strstr(r->note, "no port 2"));
	afx_free(fx);
}

static void test_socket_ifname(void **state)
{
	struct afx *fx = afx_new(HGX);
	const char *fast[] = { "NCCL_SOCKET_IFNAME=ib", NULL };
	const char *slow[] = { "NCCL_SOCKET_IFNAME==ens21f0np0", NULL };
	const char *none[] = { "NCCL_SOCKET_IFNAME=eth", NULL };
	const char *docker[] = { "NCCL_SOCKET_IFNAME=docker0,lo", NULL };
	const char *excl[] = { "NCCL_SOCKET_IFNAME=^docker,lo", NULL };
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "nccl.socket-ifname", "", GF_CHECK_NA);
	fx->env = fast;
	afx_expect(fx, "nccl.socket-ifname", "", GF_CHECK_PASS);
	fx->env = slow;	/* 200 Gb/s while ib* run at 400 */
	r = afx_expect(fx, "nccl.socket-ifname", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "faster"));
	fx->env = none;
	afx_expect(fx, "nccl.socket-ifname", "", GF_CHECK_FAIL);
	fx->env = docker;
	afx_expect(fx, "nccl.socket-ifname", "", GF_CHECK_WARN);
	fx->env = excl;
	afx_expect(fx, "nccl.socket-ifname", "", GF_CHECK_PASS);
	fx->env = fast;
	afx_put(fx, "/sys/class/net/ib0/operstate", "down\n");
	r = afx_expect(fx, "nccl.socket-ifname", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "ib0 is down"));
	afx_free(fx);
}

static void test_topo_file(void **state)
{
	struct afx *fx = afx_new(HGX);
	const char *missing[] = { "NCCL_TOPO_FILE=/opt/topo.xml", NULL };
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "nccl.topo-file", "", GF_CHECK_PASS);
	fx->env = missing;
	afx_expect(fx, "nccl.topo-file", "", GF_CHECK_FAIL);
	afx_put(fx, "/opt/topo.xml", "<system version=\"1\"><cpu numaid=\"0\"/></system>\n");
	afx_expect(fx, "nccl.topo-file", "", GF_CHECK_PASS);
	afx_put(fx, "/opt/topo.xml", "not xml\n");
	afx_expect(fx, "nccl.topo-file", "", GF_CHECK_FAIL);
	/* The VM default file on bare metal: a note, not a failure. */
	fx->env = NULL;
	afx_put(fx, "/var/run/nvidia-topologyd/virtualTopology.xml", "<system version=\"1\"></system>\n");
	r = afx_expect(fx, "nccl.topo-file", "", GF_CHECK_PASS);
	assert_non_null(strstr(r->note, "bare metal"));
	afx_free(fx);
	fx = afx_new("ci-vm");
	afx_expect(fx, "nccl.topo-file", "", GF_CHECK_NA);	/* no GPU */
	afx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debug_vars), cmocka_unit_test(test_debug_level),
		cmocka_unit_test(test_cuda_debug), cmocka_unit_test(test_ib_hca),
		cmocka_unit_test(test_socket_ifname), cmocka_unit_test(test_topo_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
