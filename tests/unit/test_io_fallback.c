/* io_uring forbidden (a seccomp filter makes io_uring_setup fail with
 * EPERM, as container runtimes do, or ENOSYS, as old kernels do): AUTO
 * falls back to the pread/pwrite pool with a note and still reads;
 * URING fails.  Each case runs in a forked child, since a seccomp filter
 * cannot be taken back. */
#include "test_io_util.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define T_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define T_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#define T_AUDIT_ARCH 0	/* the filter below skips the case */
#endif

#define SIZE (3 * 1024 * 1024 + 11)

struct forbid {
	int err;
	const char *path;
};

static int forbid_io_uring(int err)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, T_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	if (!T_AUDIT_ARCH)
		return -ENOTSUP;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return -errno;
	return 0;
}

/* In the child. */
static const char *fallback_child(void *arg)
{
	const struct forbid *fb = arg;
	struct gf_io_opts o = { .struct_size = sizeof(struct gf_io_opts),
		.backend = GF_IO_AUTO, .sqpoll_cpu = -1, .cpu_node = -1 };
	struct gf_io *io = NULL;
	struct gf_buf *b = NULL;
	size_t len = 0;
	int rc;

	rc = forbid_io_uring(fb->err);
	T_CHILD_CHECK(rc == 0, "seccomp: %s", strerror(-rc));

	/* io_uring asked for: the error, nothing else. */
	o.backend = GF_IO_URING;
	rc = gf_io_open(&o, &io);
	T_CHILD_CHECK(rc == -fb->err, "gf_io_open(URING) = %d (%s)", rc, gf_last_error());
	T_CHILD_CHECK(io == NULL, "an engine despite the error");
	T_CHILD_CHECK(strstr(gf_last_error(), "io_uring"), "message '%s'", gf_last_error());

	/* AUTO, from options and from defaults: the pool, saying why. */
	for (int defaults = 0; defaults < 2; defaults++) {
		o.backend = GF_IO_AUTO;
		t_log_text[0] = '\0';
		gf_log_set_callback(t_log_cb, NULL);
		rc = gf_io_open(defaults ? NULL : &o, &io);
		T_CHILD_CHECK(rc == 0, "gf_io_open(AUTO) = %d (%s)", rc, gf_last_error());
		T_CHILD_CHECK(gf_io_backend_of(io) == GF_IO_PSYNC, "backend %s",
			      gf_io_backend_name(gf_io_backend_of(io)));
		T_CHILD_CHECK(gf_io_fallback_error(io) == -fb->err, "fallback error %d", gf_io_fallback_error(io));
		T_CHILD_CHECK(strstr(t_log_text, "io:warning: io_uring") && strstr(t_log_text, strerror(fb->err)) &&
			      strstr(t_log_text, "using the pread/pwrite pool"), "warning '%s'", t_log_text);
		rc = gf_io_read_file(io, fb->path, 0, -1, 0, &b, &len);
		T_CHILD_CHECK(rc == 0, "read_file = %d (%s)", rc, gf_last_error());
		T_CHILD_CHECK(len == SIZE, "read %zu bytes", len);
		T_CHILD_CHECK(t_same(b->data, len, 0, 7), "data");
		gf_buf_free(b);
		rc = gf_io_read_file(io, fb->path, GF_FILE_DIRECT, -1, 65536, &b, &len);
		T_CHILD_CHECK(rc == 0 && len == SIZE && t_same(b->data, len, 0, 7), "direct read_file = %d", rc);
		gf_buf_free(b);
		rc = gf_io_close(io, GF_IO_DRAIN);
		T_CHILD_CHECK(rc == 0, "close = %d", rc);
	}
	return NULL;
}

static void fallback(struct t_fs *fs)
{
	const int errs[] = { EPERM, ENOSYS };

	if (!T_AUDIT_ARCH) {
		print_message("[  SKIP    ] no seccomp audit arch for this CPU in the test\n");
		skip();
	}
	t_make_file(fs, "f.bin", SIZE, 7);
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct forbid fb = { .err = errs[i], .path = t_path(fs, "f.bin") };

		print_message("[ -- case  ] io_uring_setup fails with %s on %s\n", strerror(errs[i]), fs->name);
		t_in_child(fallback_child, &fb);
	}
}
T_FS_TESTS(fallback);

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_FS_CASES(fallback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
