/* Container and cgroup checks (src/audit/checks_container.c), each made to
 * pass and to warn, fail or be na on private copies of fixture machines. */
#include <stdio.h>
#include <string.h>

#include "audit_fixture.h"

#define HGX "hgx-h100-8gpu"
/* /proc/self is a link to proc/4242 in the HGX fixture. */
#define HGX_STATUS "/proc/4242/status"

static void manifest(struct afx *fx, const char *body)
{
	char text[2048];

	snprintf(text, sizeof(text), "{\"schema\": \"gpufeed-recording/2\"%s%s}\n", body[0] ? ", " : "", body);
	afx_put(fx, "/gpufeed-recording.json", text);
}

static void test_memlock(void **state)
{
	struct afx *fx = afx_new(HGX);
	const struct gf_check_result *r;

	(void)state;
	/* No manifest limits and no /proc/self/limits: na, never a pass. */
	afx_expect(fx, "ctr.memlock", "", GF_CHECK_NA);
	manifest(fx, "\"rlimits\": {\"memlock\": {\"soft\": -1, \"hard\": -1}}");
	r = afx_expect(fx, "ctr.memlock", "", GF_CHECK_PASS);
	assert_non_null(strstr(r->source, "rlimits.memlock"));
	manifest(fx, "\"rlimits\": {\"memlock\": {\"soft\": 65536, \"hard\": -1}}");
	r = afx_expect(fx, "ctr.memlock", "", GF_CHECK_FAIL);
	assert_string_equal(r->fix, "ulimit -l unlimited (in the job's shell)");
	fx->profile = GF_PROFILE_INFERENCE;
	afx_expect(fx, "ctr.memlock", "", GF_CHECK_WARN);
	/* Old recordings: the copied /proc/self/limits. */
	manifest(fx, "");
	afx_put(fx, "/proc/4242/limits",
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max open files            1024                 4096                 files     \n"
		"Max locked memory         8388608              8388608              bytes     \n");
	fx->profile = GF_PROFILE_TRAINING;
	r = afx_expect(fx, "ctr.memlock", "", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "soft 8 MiB, hard 8 MiB");
	afx_put(fx, "/proc/4242/limits", "Limit Soft Hard\nMax locked memory         unlimited  unlimited bytes\n");
	afx_expect(fx, "ctr.memlock", "", GF_CHECK_PASS);
	afx_put(fx, "/proc/4242/limits", "garbage\n");
	afx_expect(fx, "ctr.memlock", "", GF_CHECK_ERROR);
	afx_free(fx);
	/* Without GPUs it does not apply. */
	fx = afx_new("ci-vm");
	afx_expect(fx, "ctr.memlock", "", GF_CHECK_NA);
	afx_free(fx);
}

static void status(struct afx *fx, const char *cpus, const char *mems)
{
	char text[256];

	snprintf(text, sizeof(text), "Name:\tpython\nCpus_allowed_list:\t%s\nMems_allowed_list:\t%s\n", cpus, mems);
	afx_put(fx, HGX_STATUS, text);
}

static void test_cpuset_gpu(void **state)
{
	struct afx *fx = afx_new(HGX);
	const char *cuda01[] = { "CUDA_VISIBLE_DEVICES=0,1", NULL };
	const char *cuda4[] = { "CUDA_VISIBLE_DEVICES=4", NULL };
	const char *none[] = { "CUDA_VISIBLE_DEVICES=", NULL };
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "ctr.cpuset-gpu", "", GF_CHECK_PASS);
	/* Pinned to node 1's CPUs: GPU0-3 (node 0) have none. */
	status(fx, "56-111", "0-1");
	r = afx_expect(fx, "ctr.cpuset-gpu", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "GPU0,GPU1,GPU2,GPU3"));
	assert_null(strstr(r->observed, "GPU4"));
	/* A job on GPU0 and GPU1 only: none of its GPUs is near. */
	fx->env = cuda01;
	afx_expect(fx, "ctr.cpuset-gpu", "", GF_CHECK_FAIL);
	fx->env = cuda4;
	afx_expect(fx, "ctr.cpuset-gpu", "", GF_CHECK_PASS);
	fx->env = none;
	afx_expect(fx, "ctr.cpuset-gpu", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_mems_gpu(void **state)
{
	struct afx *fx = afx_new(HGX);
	const char *cuda0[] = { "CUDA_VISIBLE_DEVICES=0", NULL };
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "ctr.mems-gpu", "", GF_CHECK_PASS);
	status(fx, "0-223", "1");
	r = afx_expect(fx, "ctr.mems-gpu", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "GPU0(node 0)"));
	fx->env = cuda0;
	afx_expect(fx, "ctr.mems-gpu", "", GF_CHECK_FAIL);
	afx_put(fx, HGX_STATUS, "Name:\tpython\nCpus_allowed_list:\t0-223\n");
	afx_expect(fx, "ctr.mems-gpu", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_memory_limit(void **state)
{
	struct afx *fx = afx_new(HGX);
	const char *cuda0[] = { "CUDA_VISIBLE_DEVICES=0", NULL };
	const struct gf_check_result *r;

	(void)state;
	/* The root cgroup: no limit. */
	r = afx_expect(fx, "ctr.memory-limit", "", GF_CHECK_PASS);
	assert_string_equal(r->observed, "no limit");
	/* A job cgroup of 64 GiB under a parent without a limit, 8 GPUs. */
	afx_put(fx, "/proc/4242/cgroup", "0::/kubepods/job\n");
	afx_put(fx, "/sys/fs/cgroup/kubepods/memory.max", "max\n");
	afx_put(fx, "/sys/fs/cgroup/kubepods/job/memory.max", "68719476736\n");
	r = afx_expect(fx, "ctr.memory-limit", "", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "64.0 GiB"));
	assert_string_equal(r->source, "/sys/fs/cgroup/kubepods/job/memory.max");
	/* A job on one GPU (80 GB): 256 GiB is more than 2x. */
	fx->env = cuda0;
	afx_put(fx, "/sys/fs/cgroup/kubepods/job/memory.max", "274877906944\n");
	afx_expect(fx, "ctr.memory-limit", "", GF_CHECK_PASS);
	/* The parent's limit binds too; memory.high counts. */
	afx_put(fx, "/sys/fs/cgroup/kubepods/memory.high", "107374182400\n");
	r = afx_expect(fx, "ctr.memory-limit", "", GF_CHECK_WARN);
	assert_string_equal(r->source, "/sys/fs/cgroup/kubepods/memory.high");
	fx->profile = GF_PROFILE_INFERENCE;
	afx_expect(fx, "ctr.memory-limit", "", GF_CHECK_PASS);
	/* Nothing of the hierarchy readable: na, not "no limit". */
	afx_put(fx, "/proc/4242/cgroup", "0::/elsewhere\n");
	afx_rm(fx, "/sys/fs/cgroup/cgroup.controllers");
	afx_expect(fx, "ctr.memory-limit", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_pids_limit(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	/* The ci-vm recording has no pids hierarchy: na. */
	afx_expect(fx, "ctr.pids-limit", "", GF_CHECK_NA);
	/* cgroup v1: the pids controller's own hierarchy. */
	afx_put(fx, "/proc/30220/cgroup", "8:pids:/job\n4:memory:/\n0::/\n");
	afx_put(fx, "/sys/fs/cgroup/pids/cgroup.clone_children", "0\n");
	afx_put(fx, "/sys/fs/cgroup/pids/job/pids.max", "1024\n");
	r = afx_expect(fx, "ctr.pids-limit", "", GF_CHECK_WARN);
	assert_string_equal(r->observed, "1024 tasks");
	afx_put(fx, "/sys/fs/cgroup/pids/job/pids.max", "max\n");
	r = afx_expect(fx, "ctr.pids-limit", "", GF_CHECK_PASS);
	assert_string_equal(r->observed, "no limit");
	afx_put(fx, "/sys/fs/cgroup/pids/job/pids.max", "32768\n");
	afx_expect(fx, "ctr.pids-limit", "", GF_CHECK_PASS);
	afx_free(fx);
}

#define MI_HOST                                                                                 \
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"                                         \
	"24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw\n"
#define MI_PROC_RW "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
#define MI_CTR                                                                                  \
	"500 400 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/a\n"                        \
	"501 500 0:51 / /proc rw,nosuid - proc proc rw\n"                                         \
	"502 500 0:52 / /dev rw,nosuid - tmpfs tmpfs rw\n"                                         \
	"503 501 0:51 /sys /proc/sys ro,nosuid,nodev,noexec,relatime - proc proc rw\n"

static void test_proc_sys(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	/* The CI VM: /.dockerenv on a real disk with devtmpfs is a host. */
	afx_put(fx, "/.dockerenv", "");
	afx_put(fx, "/proc/30220/mountinfo", MI_HOST MI_PROC_RW);
	r = afx_expect(fx, "ctr.proc-sys", "", GF_CHECK_PASS);
	assert_non_null(strstr(r->observed, "not a container"));
	assert_false(fx->last->container);
	/* A host with a read-only /proc/sys: tune cannot act. */
	afx_put(fx, "/proc/30220/mountinfo", MI_HOST "22 27 0:21 / /proc ro,relatime - proc proc rw\n");
	afx_expect(fx, "ctr.proc-sys", "", GF_CHECK_WARN);
	/* Docker: overlay root, read-only /proc/sys: na with the reason. */
	afx_put(fx, "/proc/30220/mountinfo", MI_CTR);
	r = afx_expect(fx, "ctr.proc-sys", "", GF_CHECK_NA);
	assert_true(fx->last->container);
	assert_non_null(strstr(r->observed, "read-only"));
	assert_non_null(strstr(r->note, "on the host"));
	/* A privileged container: writable, said so. */
	afx_put(fx, "/proc/30220/mountinfo",
		"500 400 0:50 / / rw - overlay overlay rw\n501 500 0:51 / /proc rw - proc proc rw\n");
	r = afx_expect(fx, "ctr.proc-sys", "", GF_CHECK_PASS);
	assert_non_null(strstr(r->note, "privileged"));
	afx_free(fx);
}

static void test_rdma_devices(void **state)
{
	struct afx *fx = afx_new(HGX);
	const struct gf_check_result *r;
	char body[1024] = "\"dev_nodes\": [\"nvidia0\"";

	(void)state;
	/* No manifest listing /dev: unknown, na. */
	afx_expect(fx, "ctr.rdma-devices", "", GF_CHECK_NA);
	manifest(fx, "\"dev_nodes\": [\"nvidia0\", \"infiniband/rdma_cm\"]");
	r = afx_expect(fx, "ctr.rdma-devices", "", GF_CHECK_FAIL);
	assert_string_equal(r->observed, "10 RDMA devices, 0 uverbs nodes");
	assert_string_equal(r->fix, "modprobe ib_uverbs");
	for (int i = 0; i < 10; i++)
		snprintf(body + strlen(body), sizeof(body) - strlen(body), ", \"infiniband/uverbs%d\"", i);
	strcat(body, "]");
	manifest(fx, body);
	afx_expect(fx, "ctr.rdma-devices", "", GF_CHECK_PASS);
	manifest(fx, "\"dev_nodes\": [\"infiniband/uverbs0\"]");
	afx_expect(fx, "ctr.rdma-devices", "", GF_CHECK_WARN);
	afx_free(fx);
	fx = afx_new("ci-vm");
	afx_expect(fx, "ctr.rdma-devices", "", GF_CHECK_NA);
	afx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memlock),	     
		cmocka_unit_test(test_cpuset_gpu),   cmocka_unit_test(test_mems_gpu),
		cmocka_unit_test(test_memory_limit), cmocka_unit_test(test_pids_limit),
		cmocka_unit_test(test_proc_sys),     cmocka_unit_test(test_rdma_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
