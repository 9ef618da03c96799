/* Storage and file-system checks (src/audit/checks_storage.c).  hgx-h100-8gpu
 * has nvme0n1 and nvme1n1; ci-vm has a virtio disk (vda), loop and zram. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_fixture.h"

#define Q0 "/sys/class/block/nvme0n1/queue/"

/* One copy of the (large) GPU machine for every test; each test writes
 * every queue file it relies on. */
static struct afx *hgx;

static struct afx *shared_hgx(void)
{
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

static void test_scheduler(void **state)
{
	struct afx *fx = shared_hgx();
	const struct gf_check_result *r;

	(void)state;
	afx_put(fx, Q0 "scheduler", "[none] mq-deadline kyber bfq\n");
	afx_expect(fx, "storage.nvme-scheduler", "nvme0n1", GF_CHECK_PASS);
	afx_put(fx, Q0 "scheduler", "none [mq-deadline] kyber bfq\n");
	r = afx_expect(fx, "storage.nvme-scheduler", "nvme0n1", GF_CHECK_WARN);
	assert_int_equal(r->fix_class, GF_FIX_SAFE);
	assert_string_equal(r->path, Q0 "scheduler");
	assert_string_equal(r->value, "none");
	assert_string_equal(r->persist_file, "/etc/udev/rules.d/90-gpufeed.rules");
	assert_non_null(strstr(r->persist_line, "KERNEL==\"nvme[0-9]*n[0-9]*\", ATTR{queue/scheduler}=\"none\""));
	afx_rm(fx, Q0 "scheduler");
	afx_expect(fx, "storage.nvme-scheduler", "nvme0n1", GF_CHECK_NA);

	/* A virtio disk: the host schedules, the guest should not. */
	fx = afx_new("ci-vm");
	afx_put(fx, "/sys/class/block/vda/queue/scheduler", "none [mq-deadline] kyber bfq\n");
	r = afx_expect(fx, "storage.nvme-scheduler", "vda", GF_CHECK_WARN);
	assert_non_null(strstr(r->persist_line, "vd[a-z]*"));
	afx_put(fx, "/sys/class/block/vda/queue/scheduler", "[none] mq-deadline kyber bfq\n");
	afx_expect(fx, "storage.nvme-scheduler", "vda", GF_CHECK_PASS);
	/* Loop and zram devices give no result. */
	afx_run(fx, "storage.nvme-scheduler", NULL);
	assert_int_equal(fx->last->nresults, 1);
	assert_string_equal(fx->last->results[0].subject, "vda");
	afx_free(fx);

	fx = afx_new("");
	afx_expect(fx, "storage.nvme-scheduler", "", GF_CHECK_NA);
	afx_free(fx);
}

static void test_read_ahead(void **state)
{
	struct afx *fx = shared_hgx();
	const struct gf_check_result *r;

	(void)state;
	afx_put(fx, Q0 "read_ahead_kb", "128\n");
	r = afx_expect(fx, "storage.read-ahead", "nvme0n1", GF_CHECK_WARN);
	assert_string_equal(r->observed, "128 KiB");
	assert_string_equal(r->path, Q0 "read_ahead_kb");
	assert_string_equal(r->value, "4096");
	assert_non_null(strstr(r->persist_line, "KERNEL==\"nvme0n1\""));
	/* Inference: the default is right, and said so. */
	fx->profile = GF_PROFILE_INFERENCE;
	r = afx_expect(fx, "storage.read-ahead", "nvme0n1", GF_CHECK_PASS);
	assert_non_null(strstr(r->expected, "fine for inference"));
	fx->profile = GF_PROFILE_TRAINING;
	afx_put(fx, Q0 "read_ahead_kb", "8192\n");
	afx_expect(fx, "storage.read-ahead", "nvme0n1", GF_CHECK_PASS);
	afx_put(fx, Q0 "read_ahead_kb", "many\n");
	afx_expect(fx, "storage.read-ahead", "nvme0n1", GF_CHECK_ERROR);
}

static void test_max_sectors(void **state)
{
	struct afx *fx = shared_hgx();
	const struct gf_check_result *r;

	(void)state;
	afx_put(fx, Q0 "max_hw_sectors_kb", "2048\n");
	afx_put(fx, Q0 "max_sectors_kb", "128\n");
	r = afx_expect(fx, "storage.max-sectors", "nvme0n1", GF_CHECK_WARN);
	assert_string_equal(r->value, "1280");
	assert_string_equal(r->path, Q0 "max_sectors_kb");
	afx_put(fx, Q0 "max_sectors_kb", "1280\n");
	afx_expect(fx, "storage.max-sectors", "nvme0n1", GF_CHECK_PASS);
	/* A device whose own limit is small is not asked for more. */
	afx_put(fx, Q0 "max_hw_sectors_kb", "128\n");
	afx_put(fx, Q0 "max_sectors_kb", "128\n");
	afx_expect(fx, "storage.max-sectors", "nvme0n1", GF_CHECK_PASS);
	fx = afx_new("ci-vm");
	afx_expect(fx, "storage.max-sectors", "", GF_CHECK_NA);
	afx_free(fx);
}

/* Direct I/O from 4 KiB pages: one segment a page, so a disk taking fewer
 * segments than a 1 MiB read has pages splits it; nothing to tune. */
static void test_dio_segments(void **state)
{
	struct afx *fx = shared_hgx();
	const struct gf_check_result *r;

	(void)state;
	/* NVMe's usual 127 segments against 1280 KiB requests: split in 3. */
	afx_put(fx, Q0 "max_segments", "127\n");
	afx_put(fx, Q0 "max_sectors_kb", "1280\n");
	r = afx_expect(fx, "storage.dio-segments", "nvme0n1", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "508 KiB per request from 4 KiB pages"));
	assert_non_null(strstr(r->note, "split into 3 requests on nvme0n1"));
	assert_null(r->path);
	/* 256 segments carry a whole 1 MiB read. */
	afx_put(fx, Q0 "max_segments", "256\n");
	afx_expect(fx, "storage.dio-segments", "nvme0n1", GF_CHECK_PASS);
	/* A disk capped at 128 KiB requests never gets a larger one to split. */
	afx_put(fx, Q0 "max_segments", "33\n");
	afx_put(fx, Q0 "max_sectors_kb", "128\n");
	afx_expect(fx, "storage.dio-segments", "nvme0n1", GF_CHECK_PASS);
	afx_put(fx, Q0 "max_segments", "0\n");
	afx_expect(fx, "storage.dio-segments", "nvme0n1", GF_CHECK_ERROR);
	afx_put(fx, Q0 "max_segments", "lots\n");
	afx_expect(fx, "storage.dio-segments", "nvme0n1", GF_CHECK_ERROR);
	/* The CI VM's virtio disk: 254 segments, a 1 MiB read in 2. */
	fx = afx_new("ci-vm");
	r = afx_expect(fx, "storage.dio-segments", "vda", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "split into 2 requests"));
	afx_free(fx);
}

static void test_nr_requests(void **state)
{
	struct afx *fx = shared_hgx();
	const struct gf_check_result *r;

	(void)state;
	afx_put(fx, Q0 "scheduler", "[none] mq-deadline\n");
	afx_put(fx, "/sys/class/block/nvme0n1/mq/0/nr_tags", "1023\n");
	afx_put(fx, Q0 "nr_requests", "1023\n");
	afx_expect(fx, "storage.nr-requests", "nvme0n1", GF_CHECK_PASS);
	afx_put(fx, Q0 "nr_requests", "32\n");
	r = afx_expect(fx, "storage.nr-requests", "nvme0n1", GF_CHECK_WARN);
	assert_string_equal(r->value, "1023");
	/* Another scheduler sizes its own queue. */
	afx_put(fx, Q0 "scheduler", "none [mq-deadline]\n");
	afx_expect(fx, "storage.nr-requests", "nvme0n1", GF_CHECK_NA);
	/* Without the hardware depth nothing is judged. */
	afx_put(fx, Q0 "scheduler", "[none] mq-deadline\n");
	afx_rm(fx, "/sys/class/block/nvme0n1/mq/0/nr_tags");
	afx_expect(fx, "storage.nr-requests", "nvme0n1", GF_CHECK_NA);
}

#define ROOT_LINE "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"

static void test_atime(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_put(fx, "/proc/self/mountinfo", ROOT_LINE "40 27 259:1 / /data rw - xfs /dev/nvme0n1 rw,attr2\n");
	afx_expect(fx, "storage.atime", "/", GF_CHECK_PASS);
	r = afx_expect(fx, "storage.atime", "/data", GF_CHECK_WARN);
	assert_non_null(strstr(r->fix, "remount,noatime /data"));
	afx_put(fx, "/proc/self/mountinfo", ROOT_LINE "40 27 259:1 / /data rw,noatime - xfs /dev/nvme0n1 rw\n");
	afx_expect(fx, "storage.atime", "/data", GF_CHECK_PASS);
	/* A mount point with a space, escaped by the kernel. */
	afx_put(fx, "/proc/self/mountinfo", "40 27 259:1 / /my\\040data rw - ext4 /dev/nvme0n1 rw\n");
	afx_expect(fx, "storage.atime", "/my data", GF_CHECK_WARN);
	/* Read-only and pseudo file systems are not data mounts. */
	afx_put(fx, "/proc/self/mountinfo", "27 1 254:0 / / ro - ext4 /dev/vda ro\n22 27 0:21 / /proc rw - proc proc rw\n");
	afx_expect(fx, "storage.atime", "", GF_CHECK_NA);
	afx_rm(fx, "/proc/self/mountinfo");
	afx_expect(fx, "storage.atime", "", GF_CHECK_NA);
	afx_free(fx);
}

#define NFS_LINE(opts) ROOT_LINE "50 27 0:50 / /datasets rw,relatime - nfs4 srv:/export rw," opts "\n"

static void test_nfs(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	afx_expect(fx, "storage.nfs", "", GF_CHECK_NA);
	afx_put(fx, "/proc/self/mountinfo",
		NFS_LINE("vers=4.2,rsize=1048576,wsize=1048576,hard,proto=tcp,nconnect=8,timeo=600"));
	afx_expect(fx, "storage.nfs", "/datasets", GF_CHECK_PASS);
	afx_put(fx, "/proc/self/mountinfo", NFS_LINE("vers=4.2,rsize=65536,wsize=65536,proto=tcp,nconnect=8"));
	r = afx_expect(fx, "storage.nfs", "/datasets", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "rsize=65536"));
	afx_put(fx, "/proc/self/mountinfo", NFS_LINE("vers=3,rsize=32768,wsize=32768,proto=udp"));
	r = afx_expect(fx, "storage.nfs", "/datasets", GF_CHECK_FAIL);
	assert_non_null(strstr(r->note, "proto=udp"));
	/* One connection: a warning for training, not for inference. */
	afx_put(fx, "/proc/self/mountinfo", NFS_LINE("vers=4.2,rsize=1048576,wsize=1048576,proto=tcp"));
	r = afx_expect(fx, "storage.nfs", "/datasets", GF_CHECK_WARN);
	assert_non_null(strstr(r->note, "nconnect"));
	fx->profile = GF_PROFILE_INFERENCE;
	afx_expect(fx, "storage.nfs", "/datasets", GF_CHECK_PASS);
	fx->profile = GF_PROFILE_TRAINING;
	/* NFS over RDMA has its own parallelism. */
	afx_put(fx, "/proc/self/mountinfo", NFS_LINE("vers=4.2,rsize=1048576,wsize=1048576,proto=rdma,port=20049"));
	afx_expect(fx, "storage.nfs", "/datasets", GF_CHECK_PASS);
	afx_free(fx);
}

#define DEV_LINES "24 27 0:6 / /dev rw - devtmpfs devtmpfs rw,size=8000k\n"

static void test_dev_shm(void **state)
{
	struct afx *fx = afx_new("ci-vm");
	const struct gf_check_result *r;

	(void)state;
	/* The fixture: 23.5 GiB (two stacked mounts; the top one counts). */
	afx_expect(fx, "storage.dev-shm", "/dev/shm", GF_CHECK_PASS);
	/* Docker's default 64 MiB. */
	afx_put(fx, "/proc/self/mountinfo",
		ROOT_LINE DEV_LINES "25 24 0:23 / /dev/shm rw - tmpfs tmpfs rw,size=4194304k\n"
				    "30 25 0:27 / /dev/shm rw,nosuid - tmpfs shm rw,size=65536k\n");
	r = afx_expect(fx, "storage.dev-shm", "/dev/shm", GF_CHECK_FAIL);
	assert_non_null(strstr(r->observed, "0.06 GiB"));
	assert_int_equal(r->fix_class, GF_FIX_ADVICE);
	afx_put(fx, "/proc/self/mountinfo", ROOT_LINE DEV_LINES "25 24 0:23 / /dev/shm rw - tmpfs tmpfs rw,size=524288k\n");
	afx_expect(fx, "storage.dev-shm", "/dev/shm", GF_CHECK_WARN);
	/* No size= (the kernel's default): the size recorded by statvfs. */
	afx_put(fx, "/proc/self/mountinfo", ROOT_LINE DEV_LINES "25 24 0:23 / /dev/shm rw - tmpfs tmpfs rw,inode64\n");
	afx_put(fx, "/gpufeed-recording.json", "{\"schema\": \"gpufeed-recording/1\", \"dev_shm_bytes\": 268435456}\n");
	r = afx_expect(fx, "storage.dev-shm", "/dev/shm", GF_CHECK_WARN);
	assert_non_null(strstr(r->source, "dev_shm_bytes"));
	/* ... else half of RAM, as tmpfs does. */
	afx_rm(fx, "/gpufeed-recording.json");
	afx_put(fx, "/proc/meminfo", "MemTotal:       1048576 kB\n");
	r = afx_expect(fx, "storage.dev-shm", "/dev/shm", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "0.50 GiB"));
	assert_non_null(strstr(r->source, "MemTotal"));
	/* No tmpfs: POSIX shared memory on the root disk. */
	afx_put(fx, "/proc/self/mountinfo", ROOT_LINE);
	r = afx_expect(fx, "storage.dev-shm", "/dev/shm", GF_CHECK_WARN);
	assert_non_null(strstr(r->observed, "not tmpfs"));
	afx_rm(fx, "/proc/self/mountinfo");
	afx_expect(fx, "storage.dev-shm", "/dev/shm", GF_CHECK_NA);
	afx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scheduler),
		cmocka_unit_test(test_read_ahead),
		cmocka_unit_test(test_max_sectors),
		cmocka_unit_test(test_dio_segments),
		cmocka_unit_test(test_nr_requests),
		cmocka_unit_test(test_atime),
		cmocka_unit_test(test_nfs),
		cmocka_unit_test(test_dev_shm),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
