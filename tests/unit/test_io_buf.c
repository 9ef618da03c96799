/* Buffers: alignment, NUMA placement (node 0 here; a missing node is a
 * note, or an error when strict), locking under a low RLIMIT_MEMLOCK (in
 * a child without CAP_IPC_LOCK), huge pages; registered buffers on both
 * back ends: fixed reads and writes, twice is -EBUSY. */
#include "test_io_util.h"
#include "mem/host.h"

#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#define MiB (1u << 20)

/* AddressSanitizer turns mlock() into a no-op that succeeds. */
#if defined(__SANITIZE_ADDRESS__)
#define T_FAKE_MLOCK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_FAKE_MLOCK 1
#endif
#endif
#ifndef T_FAKE_MLOCK
#define T_FAKE_MLOCK 0
#endif

static struct gf_buf *alloc_ok(size_t size, size_t align, int node, unsigned flags)
{
	struct gf_buf_opts o = { .struct_size = sizeof(struct gf_buf_opts),
		.size = size, .align = align, .numa_node = node, .flags = flags };
	struct gf_buf *b = NULL;
	int rc = gf_buf_alloc(&o, &b);

	if (rc)
		print_message("gf_buf_alloc: %d %s\n", rc, gf_last_error());
	assert_int_equal(rc, 0);
	assert_non_null(b);
	assert_int_equal(gf_buf__impl(b)->uring_index, -1);
	return b;
}

static int alloc_err(size_t size, size_t align, int node, unsigned flags)
{
	struct gf_buf_opts o = { .struct_size = sizeof(struct gf_buf_opts),
		.size = size, .align = align, .numa_node = node, .flags = flags };
	struct gf_buf *b = (struct gf_buf *)&o;
	int rc = gf_buf_alloc(&o, &b);

	assert_null(b);
	return rc;
}

static size_t page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* All of it usable, zeroed at first. */
static void check_usable(struct gf_buf *b)
{
	uint8_t *p = b->data;

	for (size_t i = 0; i < b->size; i += 4096)
		assert_int_equal(p[i], 0);
	memset(p, 0xa5, b->size);
}

static void alignment(void **state)
{
	const size_t aligns[] = { 0, 512, 4096, 65536, 2 * MiB, (size_t)1 << 30 };
	struct gf_buf *b;

	(void)state;
	t_log_start();
	for (size_t i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
		size_t want = aligns[i] < page() ? page() : aligns[i];

		b = alloc_ok(10000, aligns[i], -1, 0);
		assert_int_equal((uintptr_t)b->data % want, 0);
		assert_int_equal(b->align, want);
		assert_true(b->size >= 10000);
		assert_int_equal(b->size % page(), 0);
		assert_false(b->placed);
		assert_false(b->locked);
		assert_string_equal(t_log_text, "");	/* nothing asked for failed */
		check_usable(b);
		gf_buf_free(b);
	}
	b = alloc_ok(1, 0, -1, 0);
	assert_int_equal(b->size, page());
	gf_buf_free(b);
	/* Powers of two only; some size. */
	assert_int_equal(alloc_err(4096, 3, -1, 0), -EINVAL);
	assert_true(t_contains(gf_last_error(), "power of two"));
	assert_int_equal(alloc_err(4096, 4096 + 512, -1, 0), -EINVAL);
	assert_int_equal(alloc_err(0, 0, -1, 0), -EINVAL);
	assert_int_equal(gf_buf_alloc(NULL, &b), -EINVAL);
	assert_int_equal(alloc_err((size_t)-4096, 0, -1, 0), -ENOMEM);
	gf_buf_free(NULL);
}

static long huge_free(void)
{
	char line[128];
	long n = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Free: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void huge(void **state)
{
	const size_t aligns[] = { 2 * MiB, 65536 };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		long before = huge_free();

		t_log_start();
		struct gf_buf *b = alloc_ok(3 * MiB, aligns[i], -1, GF_BUF_HUGE);

		/* Huge pages where the machine has them reserved, else a warning. */
		assert_int_equal(b->size % (2 * MiB), 0);
		assert_true(b->size >= 3 * MiB);
		assert_int_equal((uintptr_t)b->data % aligns[i], 0);
		if (!b->huge)
			assert_true(t_contains(t_log_text, "io:warning: buffer of 4194304 bytes: no hugetlb pages"));
		else
			assert_string_equal(t_log_text, "");
		check_usable(b);
		gf_buf_free(b);
		/* Given back whole. */
		assert_int_equal(huge_free(), before);
	}
}

static void numa(void **state)
{
	struct gf_buf *b;
	int node;
	void *fresh;

	(void)state;
	/* Node 0 exists everywhere (one node on the CI machines). */
	for (int strict = 0; strict < 2; strict++) {
		t_log_start();
		b = alloc_ok(MiB, 0, 0, strict ? GF_BUF_NODE_STRICT : 0);
		assert_int_equal(b->numa_node, 0);
		assert_true(b->placed);
		assert_string_equal(t_log_text, "");
		node = gf_mem_node_of(b->data);
		assert_int_equal(node, 0);
		assert_int_equal(gf_mem_node_of((char *)b->data + b->size - 1), 0);
		check_usable(b);
		gf_buf_free(b);
	}
	/* A node that is not there: a warning, or an error when strict. */
	for (size_t i = 0; i < 2; i++) {
		const int missing = i ? 5000 : 999;

		t_log_start();
		b = alloc_ok(MiB, 0, missing, 0);
		assert_int_equal(b->numa_node, missing);
		assert_false(b->placed);
		assert_true(t_contains(t_log_text, "io:warning: buffer of 1048576 bytes: not placed on NUMA node"));
		assert_true(t_contains(t_log_text, i ? "5000" : "999"));
		check_usable(b);
		gf_buf_free(b);
		assert_int_equal(alloc_err(MiB, 0, missing, GF_BUF_NODE_STRICT), -EINVAL);
		assert_true(t_contains(gf_last_error(), i ? "5000" : "999"));
	}
	/* No placement asked for. */
	b = alloc_ok(MiB, 0, -1, GF_BUF_NODE_STRICT);
	assert_false(b->placed);
	assert_int_equal(gf_mem_node_of(b->data), 0);
	gf_buf_free(b);
	/* A page never touched lives nowhere yet. */
	fresh = mmap(NULL, page(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(fresh != MAP_FAILED);
	assert_int_equal(gf_mem_node_of(fresh), -ENOENT);
	munmap(fresh, page());
}

static void lock_unlimited(void **state)
{
	struct gf_buf *b;
	uint64_t soft = 0, hard = 0;

	(void)state;
	assert_int_equal(gf_memlock_limit(&soft, &hard), 0);
	assert_true(soft <= hard);
	assert_int_equal(gf_memlock_limit(NULL, NULL), -EINVAL);	/* nothing to say it into */
	/* 64 KiB fits any limit Linux starts with. */
	t_log_start();
	b = alloc_ok(65536, 0, 0, GF_BUF_LOCK_REQUIRED);
	assert_true(b->locked);
	assert_string_equal(t_log_text, "");
	check_usable(b);
	gf_buf_free(b);
}

/* In a child: no CAP_IPC_LOCK, RLIMIT_MEMLOCK 64 KiB. */
static const char *low_memlock_child(void *arg)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct cap[2];
	struct rlimit rl = { .rlim_cur = 65536, .rlim_max = 65536 };
	struct gf_buf_opts o = { .struct_size = sizeof(struct gf_buf_opts),
		.size = MiB, .numa_node = -1, .flags = GF_BUF_LOCK };
	struct gf_buf *b = NULL;
	uint64_t soft = 0, hard = 0;
	int rc;

	(void)arg;
	T_CHILD_CHECK(syscall(SYS_capget, &hdr, cap) == 0, "capget: %s", strerror(errno));
	cap[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	cap[CAP_IPC_LOCK / 32].permitted &= ~(1u << (CAP_IPC_LOCK % 32));
	T_CHILD_CHECK(syscall(SYS_capset, &hdr, cap) == 0, "capset: %s", strerror(errno));
	T_CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0, "setrlimit: %s", strerror(errno));
	T_CHILD_CHECK(gf_memlock_limit(&soft, &hard) == 0 && soft == 65536 && hard == 65536,
		      "limit %llu/%llu", (unsigned long long)soft, (unsigned long long)hard);

	if (T_FAKE_MLOCK) {
		fprintf(stderr, "mlock is a no-op under AddressSanitizer: lock limits not checked\n");
		goto uring;
	}
	/* Asked for: not locked, a warning why, still a usable buffer. */
	t_log_text[0] = '\0';
	gf_log_set_callback(t_log_cb, NULL);
	rc = gf_buf_alloc(&o, &b);
	T_CHILD_CHECK(rc == 0, "LOCK: %d %s", rc, gf_last_error());
	T_CHILD_CHECK(!b->locked, "locked beyond the limit");
	T_CHILD_CHECK(strstr(t_log_text, "io:warning: buffer of 1048576 bytes: not locked") &&
		      strstr(t_log_text, "RLIMIT_MEMLOCK 65536 bytes"), "warning '%s'", t_log_text);
	memset(b->data, 1, b->size);
	gf_buf_free(b);

	/* Required: an error that names the limit. */
	o.flags = GF_BUF_LOCK_REQUIRED;
	b = (struct gf_buf *)&o;
	rc = gf_buf_alloc(&o, &b);
	T_CHILD_CHECK(rc == -ENOMEM || rc == -EPERM, "LOCK_REQUIRED: %d", rc);
	T_CHILD_CHECK(b == NULL, "a buffer despite the error");
	T_CHILD_CHECK(strstr(gf_last_error(), "RLIMIT_MEMLOCK"), "message '%s'", gf_last_error());

	/* Under the limit it locks. */
	o.size = 16384;
	t_log_text[0] = '\0';
	rc = gf_buf_alloc(&o, &b);
	T_CHILD_CHECK(rc == 0 && b->locked && !t_log_text[0], "16 KiB: %d locked %d warning '%s'", rc,
		      rc ? 0 : b->locked, t_log_text);
	gf_buf_free(b);

	/* io_uring counts registered buffers against the limit: refused
	 * with -ENOMEM, and the engine still reads into the buffer. */
uring:
	{
		struct gf_io_opts io_o = { .struct_size = sizeof(struct gf_io_opts),
			.backend = GF_IO_URING, .sqpoll_cpu = -1, .cpu_node = -1 };
		const char *path = arg;
		struct gf_io *io;
		struct gf_file *f;

		o = (struct gf_buf_opts){ .struct_size = sizeof(struct gf_buf_opts), .size = MiB, .numa_node = -1 };
		T_CHILD_CHECK(gf_buf_alloc(&o, &b) == 0, "alloc");
		rc = gf_io_open(&io_o, &io);
		if (rc == -EPERM || rc == -ENOSYS)
			return NULL;	/* no io_uring here */
		T_CHILD_CHECK(rc == 0, "gf_io_open: %s", gf_last_error());
		rc = gf_io_register_buf(io, b);
		T_CHILD_CHECK(rc == -ENOMEM, "register: %d %s", rc, gf_last_error());
		T_CHILD_CHECK(strstr(gf_last_error(), "RLIMIT_MEMLOCK"), "message '%s'", gf_last_error());
		T_CHILD_CHECK(gf_buf__impl(b)->uring_index == -1, "slot %d", gf_buf__impl(b)->uring_index);
		T_CHILD_CHECK(gf_file_open(io, path, GF_FILE_READ, 0, &f) == 0, "open: %s", gf_last_error());
		T_CHILD_CHECK(gf_io_read(io, f, b->data, MiB, 0) == MiB, "read: %s", gf_last_error());
		T_CHILD_CHECK(t_same(b->data, MiB, 0, 8), "data");
		T_CHILD_CHECK(gf_io_close(io, GF_IO_DRAIN) == 0, "close");
		gf_buf_free(b);
	}
	return NULL;
}

static void lock_low_limit(struct t_fs *fs)
{
	t_make_file(fs, "m.bin", MiB, 8);
	t_in_child(low_memlock_child, (void *)t_path(fs, "m.bin"));
}
T_FS_TEST_ONE(lock_low_limit, T_DISK, disk, NULL);

/* ---- registered buffers ---- */

static void registered(struct t_fs *fs)
{
	const size_t size = 2 * MiB;
	struct gf_io *io, *other;

	t_make_file(fs, "r.bin", size, 9);
	T_FOR_EACH_BACKEND(fs, io, "registered buffers", 0, 0, 0) {
		struct gf_buf *b = alloc_ok(MiB + 8192, 0, -1, 0), *b2 = alloc_ok(4096, 0, -1, 0);
		struct gf_file *f, *d;
		bool uring = gf_io_backend_of(io) == GF_IO_URING;

		assert_int_equal(gf_io_register_buf(io, NULL), -EINVAL);
		assert_int_equal(gf_io_register_buf(io, b), 0);
		assert_true(uring ? gf_buf__impl(b)->uring_index >= 0 : gf_buf__impl(b)->uring_index == -1);
		assert_int_equal(gf_io_register_buf(io, b), -EBUSY);
		assert_true(t_contains(gf_last_error(), "already registered"));
		assert_int_equal(gf_io_register_buf(io, b2), 0);

		assert_int_equal(gf_file_open(io, t_path(fs, "r.bin"), GF_FILE_WRITE, 0, &f), 0);
		/* Fixed reads: all of it, a piece inside at an odd place. */
		assert_int_equal(gf_io_read(io, f, b->data, MiB, 0), MiB);
		t_check(b->data, MiB, 0, 9);
		assert_int_equal(gf_io_read(io, f, (char *)b->data + 8191, MiB, 3), MiB);
		t_check((char *)b->data + 8191, MiB, 3, 9);
		assert_int_equal(gf_io_read(io, f, b2->data, 4096, 12345), 4096);
		t_check(b2->data, 4096, 12345, 9);
		/* A fixed write. */
		t_fill(b->data, 4096, 0, 9);
		assert_int_equal(gf_io_write(io, f, b->data, 4096, 0), 4096);
		/* O_DIRECT into a registered buffer. */
		assert_int_equal(gf_file_open(io, t_path(fs, "r.bin"), GF_FILE_DIRECT, 0, &d), 0);
		memset(b->data, 0, b->size);
		assert_int_equal(gf_io_read(io, d, b->data, MiB, MiB), MiB);
		t_check(b->data, MiB, MiB, 9);

		/* Registered here on io_uring: no other engine takes it. */
		other = t_io_open(GF_IO_URING, 0, 0, 0);
		if (other) {
			assert_int_equal(gf_io_register_buf(other, b), uring ? -EBUSY : 0);
			assert_int_equal(gf_io_close(other, GF_IO_DRAIN), 0);
			assert_int_equal(gf_buf__impl(b)->uring_index >= 0, uring);
		}

		/* Unregistered: once; plain reads into it still work. */
		assert_int_equal(gf_io_unregister_buf(io, b), 0);
		assert_int_equal(gf_buf__impl(b)->uring_index, -1);
		assert_int_equal(gf_io_unregister_buf(io, b), -ENOENT);
		memset(b->data, 0, b->size);
		assert_int_equal(gf_io_read(io, f, b->data, MiB, 4096), MiB);
		t_check(b->data, MiB, 4096, 9);
		assert_int_equal(gf_io_register_buf(io, b), 0);

		/* Closing the engine lets go of both. */
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
		assert_int_equal(gf_buf__impl(b)->uring_index, -1);
		assert_int_equal(gf_buf__impl(b2)->uring_index, -1);
		gf_buf_free(b);
		gf_buf_free(b2);
	}
	/* No registration asked for: recorded only. */
	io = t_io_open(GF_IO_URING, 0, 0, GF_IO_NO_REGISTER);
	if (io) {
		struct gf_buf *b = alloc_ok(4096, 0, -1, 0);
		struct gf_file *f;

		assert_int_equal(gf_io_register_buf(io, b), 0);
		assert_int_equal(gf_buf__impl(b)->uring_index, -1);
		assert_int_equal(gf_io_register_buf(io, b), -EBUSY);
		assert_int_equal(gf_file_open(io, t_path(fs, "r.bin"), GF_FILE_READ, 0, &f), 0);
		assert_int_equal(gf_io_read(io, f, b->data, 4096, 0), 4096);
		assert_int_equal(gf_io_unregister_buf(io, b), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
		gf_buf_free(b);
	}
	/* Slots run out: -ENOSPC. */
	for (size_t i = 0; i < T_NBACKENDS; i++) {
		struct gf_io_opts o = { .struct_size = sizeof(struct gf_io_opts),
			.backend = t_backends[i], .max_bufs = 2, .cpu_node = -1, .sqpoll_cpu = -1 };
		struct gf_buf *b[3];
		int rc = gf_io_open(&o, &io);

		if (rc == -EPERM || rc == -ENOSYS)
			continue;	/* no io_uring here */
		assert_int_equal(rc, 0);
		for (int k = 0; k < 3; k++)
			b[k] = alloc_ok(4096, 0, -1, 0);
		assert_int_equal(gf_io_register_buf(io, b[0]), 0);
		assert_int_equal(gf_io_register_buf(io, b[1]), 0);
		assert_int_equal(gf_io_register_buf(io, b[2]), -ENOSPC);
		assert_int_equal(gf_buf__impl(b[2])->uring_index, -1);
		assert_int_equal(gf_io_unregister_buf(io, b[0]), 0);
		assert_int_equal(gf_io_register_buf(io, b[2]), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
		for (int k = 0; k < 3; k++)
			gf_buf_free(b[k]);
	}
}
T_FS_TESTS(registered);

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alignment),
		cmocka_unit_test(huge),
		cmocka_unit_test(numa),
		cmocka_unit_test(lock_unlimited),
		T_FS_CASE(lock_low_limit, disk),
		T_FS_CASES(registered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
