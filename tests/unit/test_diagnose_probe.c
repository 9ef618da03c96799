/* What a step thread is blocked in, from one line of
 * /proc/PID/task/TID/syscall ("nr arg0 arg1 ... sp pc") and its state. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "diagnose/probe.h"

/* fd 3 a file, 4 a pipe, 5 a socket, 6 a GPU, 7 an eventfd, 8 a tty. */
static int lookup(long fd, char *buf, size_t size, void *arg)
{
	static const char *const targets[] = { [3] = "/data/shard-0001.bin", [4] = "pipe:[1234]",
					       [5] = "socket:[99]", [6] = "/dev/nvidia0",
					       [7] = "anon_inode:[eventfd]", [8] = "/dev/pts/3" };

	(void)arg;
	if (fd < 3 || fd > 8)
		return -1;
	snprintf(buf, size, "%s", targets[fd]);
	return 0;
}

static enum gf_diag_wait of(long nr, long fd, char state)
{
	char line[128];

	snprintf(line, sizeof(line), "%ld 0x%lx 0x7ffd1000 0x1000 0x0 0x0 0x0 0x7ffd0ff8 0x7f0012345678", nr, fd);
	return gf_probe_classify(line, state, lookup, NULL);
}

static void reads_by_what_they_read(void **state)
{
	(void)state;
	assert_int_equal(of(SYS_read, 3, 'S'), GF_DW_DISK);
	assert_int_equal(of(SYS_pread64, 3, 'S'), GF_DW_DISK);
	assert_int_equal(of(SYS_read, 4, 'S'), GF_DW_PIPE);
	assert_int_equal(of(SYS_recvfrom, 5, 'S'), GF_DW_PIPE);
	assert_int_equal(of(SYS_read, 7, 'S'), GF_DW_SYNC);
	assert_int_equal(of(SYS_read, 8, 'S'), GF_DW_OTHER);
	/* a descriptor closed since: not guessed */
	assert_int_equal(of(SYS_read, 42, 'S'), GF_DW_OTHER);
}

static void the_gpu_sleeps_and_locks(void **state)
{
	(void)state;
	assert_int_equal(of(SYS_ioctl, 6, 'S'), GF_DW_GPU);
	assert_int_equal(of(SYS_ioctl, 8, 'S'), GF_DW_OTHER);
	assert_int_equal(of(SYS_futex, 0, 'S'), GF_DW_SYNC);
	assert_int_equal(of(SYS_clock_nanosleep, 0, 'S'), GF_DW_SLEEP);
	assert_int_equal(of(SYS_epoll_pwait, 0, 'S'), GF_DW_SLEEP);
	assert_int_equal(of(SYS_io_uring_enter, 9, 'S'), GF_DW_DISK);
	assert_int_equal(of(SYS_wait4, 0, 'S'), GF_DW_OTHER);
}

static void states_and_odd_lines(void **state)
{
	(void)state;
	/* uninterruptible sleep is the disk (or a fault on a mapped file) whatever the call */
	assert_int_equal(of(SYS_futex, 0, 'D'), GF_DW_DISK);
	assert_int_equal(gf_probe_classify("", 'D', lookup, NULL), GF_DW_DISK);
	/* blocked outside a system call, "running", garbage, no lookup */
	assert_int_equal(gf_probe_classify("-1 0x7ffd0ff8 0x7f0012345678", 'S', lookup, NULL), GF_DW_OTHER);
	assert_int_equal(gf_probe_classify("running", 'S', lookup, NULL), GF_DW_OTHER);
	assert_int_equal(gf_probe_classify("", 'S', lookup, NULL), GF_DW_OTHER);
	assert_int_equal(gf_probe_classify("0 0x3", 'S', NULL, NULL), GF_DW_OTHER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_by_what_they_read),
		cmocka_unit_test(the_gpu_sleeps_and_locks),
		cmocka_unit_test(states_and_odd_lines),
	};

	return cmocka_run_group_tests_name("diagnose_probe", tests, NULL, NULL);
}
