/* The control plane over loopback with real processes: N forked ranks on a
 * free port.  Deadlines are short (0.5 to 5 s) and only "it returned, with
 * the right error" is asserted, never how long it took; alarm() ends a
 * test that hangs instead of holding CI. */
#include "helpers.h"
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include "coll/ctl.h"

#define MAXR 8
#define T_OPEN 5.0

struct result {
	int rc;
	char msg[512];
	char who[MAXR][128];	/* what gf_coll_ctl_who said for each rank */
	int ran;
};

/* One scenario: what rank does, its outcome in *res (shared with here). */
typedef void (*rank_fn)(const struct gf_coll_world *w, struct result *res);

static struct result *results;	/* [MAXR], MAP_SHARED */
static int nforked;
static pid_t pids[MAXR + 1];

static void on_alarm(int sig)
{
	(void)sig;
	/* a hang: fail loudly rather than hold CI */
	static const char m[] = "test_coll_ctl: a rank hung (alarm)\n";
	if (write(2, m, sizeof(m) - 1) < 0)
		_exit(3);
	_exit(2);
}

static int setup(void **state)
{
	(void)state;
	results = mmap(NULL, sizeof(*results) * MAXR, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(results != MAP_FAILED);
	memset(results, 0, sizeof(*results) * MAXR);
	nforked = 0;
	signal(SIGALRM, on_alarm);
	alarm(60);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	alarm(0);
	munmap(results, sizeof(*results) * MAXR);
	return 0;
}

/* A port nothing listens on now (the kernel's pick, then let go). */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static struct gf_coll_world world(int rank, int nranks, int port, const char *addr)
{
	struct gf_coll_world w = { .rank = rank, .nranks = nranks, .local_rank = rank, .local_nranks = nranks,
				   .port = port, .launcher = "test" };

	snprintf(w.master_addr, sizeof(w.master_addr), "%s", addr);
	return w;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* Forks rank r of nranks running fn; the child ends itself after 30 s. */
static void fork_rank(int r, int nranks, int port, const char *addr, rank_fn fn)
{
	pid_t pid;

	memset(&results[r], 0, sizeof(results[r]));	/* nothing left from an earlier run */
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct gf_coll_world w = world(r, nranks, port, addr);

		alarm(30);
		results[r].rc = -9999;
		fn(&w, &results[r]);
		results[r].ran = 1;
		_exit(0);
	}
	pids[nforked++] = pid;
}

static void wait_all_ranks(void)
{
	for (int i = 0; i < nforked; i++) {
		int status;

		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	nforked = 0;
}

static void run(int nranks, int port, const char *addr, rank_fn fn)
{
	for (int r = 0; r < nranks; r++)
		fork_rank(r, nranks, port, addr, fn);
	wait_all_ranks();
}

static void record(struct result *res, const struct gf_coll_ctl *c, const struct gf_coll_world *w, int rc)
{
	res->rc = rc;
	snprintf(res->msg, sizeof(res->msg), "%s", rc ? gf_last_error() : "");
	for (int r = 0; c && r < w->nranks && r < MAXR; r++)
		snprintf(res->who[r], sizeof(res->who[r]), "%s", gf_coll_ctl_who(c, r));
}

static void expect(int r, int rc, const char *needle)
{
	assert_true(results[r].ran);
	if (results[r].rc != rc || (needle && !strstr(results[r].msg, needle)))
		fail_msg("rank %d: %d '%s', expected %d with '%s'", r, results[r].rc, results[r].msg, rc,
			 needle ? needle : "");
}

/* ---- bcast, gather, barriers ---- */

static void steps(const struct gf_coll_world *w, struct result *res)
{
	struct gf_coll_ctl *c = NULL;
	unsigned char id[128];
	int mine = 1000 + w->rank, all[MAXR] = { 0 };
	int rc = gf_coll_ctl_open(w, T_OPEN, &c);

	for (int i = 0; i < 128; i++)
		id[i] = w->rank == 0 ? (unsigned char)(i * 7 + 3) : 0;
	if (!rc)
		rc = gf_coll_ctl_bcast(c, id, sizeof(id), 5, "NCCL unique id");
	for (int i = 0; !rc && i < 128; i++)
		if (id[i] != (unsigned char)(i * 7 + 3))
			rc = -EBADMSG;
	if (!rc)
		rc = gf_coll_ctl_gather(c, &mine, w->rank == 0 ? all : NULL, sizeof(mine), 5, "versions");
	for (int r = 0; !rc && w->rank == 0 && r < w->nranks; r++)
		if (all[r] != 1000 + r)
			rc = -EBADMSG;
	for (int i = 0; !rc && i < 3; i++)
		rc = gf_coll_ctl_barrier(c, 5, "point");
	record(res, c, w, rc);
	gf_coll_ctl_close(c);
}

static void bcast_gather_barriers(void **state)
{
	char pid[32];

	(void)state;
	run(4, free_port(), "127.0.0.1", steps);
	for (int r = 0; r < 4; r++) {
		expect(r, 0, NULL);
		/* every rank names every other by pid and host */
		snprintf(pid, sizeof(pid), "rank 2 (pid %d on ", (int)pids[2]);
		assert_non_null(strstr(results[r].who[2], pid));
	}
}

/* ::1 where this host has IPv6 (CI containers may not). */
static bool ipv6_loopback(void)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = socket(AF_INET6, SOCK_STREAM, 0), ok;

	if (fd < 0)
		return false;
	ok = !bind(fd, (struct sockaddr *)&a, sizeof(a));
	close(fd);
	return ok;
}

static void host_name_ipv6_and_single_rank(void **state)
{
	(void)state;
	run(2, free_port(), "localhost", steps);
	expect(0, 0, NULL);
	expect(1, 0, NULL);
	if (ipv6_loopback()) {
		run(2, free_port(), "::1", steps);
		expect(0, 0, NULL);
		expect(1, 0, NULL);
	}
	run(1, free_port(), "127.0.0.1", steps);
	expect(0, 0, NULL);
}

static void root_last(const struct gf_coll_world *w, struct result *res)
{
	if (w->rank == 0)
		sleep_s(0.7);
	steps(w, res);
}

static void rank0_starts_last(void **state)
{
	(void)state;
	run(3, free_port(), "127.0.0.1", root_last);
	for (int r = 0; r < 3; r++)
		expect(r, 0, NULL);
}

/* ---- dead, late and missing ranks ---- */

static int dying;	/* the rank that exits after the first step */

static void one_exits(const struct gf_coll_world *w, struct result *res)
{
	struct gf_coll_ctl *c = NULL;
	int rc = gf_coll_ctl_open(w, T_OPEN, &c);

	if (!rc)
		rc = gf_coll_ctl_barrier(c, 5, "step one");
	if (!rc && w->rank == dying) {
		record(res, c, w, 0);
		_exit(0);	/* its connection closes with it */
	}
	if (!rc)
		rc = gf_coll_ctl_barrier(c, 5, "step two");
	record(res, c, w, rc);
	gf_coll_ctl_close(c);
}

static void dead_rank_named_everywhere(void **state)
{
	char name[64];

	(void)state;
	dying = 2;
	run(3, free_port(), "127.0.0.1", one_exits);
	snprintf(name, sizeof(name), "rank 2 (pid %d on ", (int)pids[2]);
	expect(0, -ECONNRESET, name);
	expect(0, -ECONNRESET, "exited before 'step two'");
	expect(1, -ECONNRESET, name);
	assert_string_equal(results[0].msg, results[1].msg);

	/* rank 0 itself */
	dying = 0;
	run(3, free_port(), "127.0.0.1", one_exits);
	snprintf(name, sizeof(name), "rank 0 (pid %d on ", (int)pids[0]);
	expect(1, -ECONNRESET, name);
	expect(2, -ECONNRESET, "exited before 'step two'");
	assert_string_equal(results[1].msg, results[2].msg);
}

static void rank2_late(const struct gf_coll_world *w, struct result *res)
{
	struct gf_coll_ctl *c = NULL;
	int rc = gf_coll_ctl_open(w, T_OPEN, &c);

	if (!rc && w->rank == 2) {
		sleep_s(2.5);	/* past everyone's deadline, then gone */
		record(res, c, w, 0);
		gf_coll_ctl_close(c);
		return;
	}
	if (!rc)
		rc = gf_coll_ctl_barrier(c, 0.5, "all_reduce 1 GiB");
	record(res, c, w, rc);
	gf_coll_ctl_close(c);
}

static void late_rank_named_everywhere(void **state)
{
	char name[64];

	(void)state;
	run(3, free_port(), "127.0.0.1", rank2_late);
	snprintf(name, sizeof(name), "rank 2 (pid %d on ", (int)pids[2]);
	expect(0, -ETIMEDOUT, name);
	expect(0, -ETIMEDOUT, "did not reach 'all_reduce 1 GiB' within 0.5 s");
	expect(1, -ETIMEDOUT, name);
	assert_string_equal(results[0].msg, results[1].msg);
}

static void open_only(const struct gf_coll_world *w, struct result *res)
{
	struct gf_coll_ctl *c = NULL;
	int rc = gf_coll_ctl_open(w, 1.0, &c);

	record(res, c, w, rc);
	gf_coll_ctl_close(c);
}

static void missing_rank_times_out(void **state)
{
	int port = free_port();

	(void)state;
	/* ranks 0 to 2 of 4: rank 3 never comes */
	for (int r = 0; r < 3; r++)
		fork_rank(r, 4, port, "127.0.0.1", open_only);
	wait_all_ranks();
	for (int r = 0; r < 3; r++)
		expect(r, -ETIMEDOUT, "rank 3 of 4 did not connect to 127.0.0.1:");
	assert_string_equal(results[0].msg, results[2].msg);

	/* no rank 0 at all: the others say where they looked */
	fork_rank(1, 2, port, "127.0.0.1", open_only);
	wait_all_ranks();
	expect(1, -ETIMEDOUT, "rank 1: could not connect to rank 0 at 127.0.0.1:");
}

static void rank1_aborts(const struct gf_coll_world *w, struct result *res)
{
	struct gf_coll_ctl *c = NULL;
	int rc = gf_coll_ctl_open(w, T_OPEN, &c);

	if (!rc && w->rank == 1) {
		gf_coll_ctl_abort(c, "cuMemAlloc: out of memory");
		rc = gf_coll_ctl_barrier(c, 5, "after abort");
	} else if (!rc) {
		rc = gf_coll_ctl_barrier(c, 5, "warm-up");
	}
	record(res, c, w, rc);
	gf_coll_ctl_close(c);
}

static void abort_reaches_every_rank(void **state)
{
	char name[64];

	(void)state;
	run(3, free_port(), "127.0.0.1", rank1_aborts);
	snprintf(name, sizeof(name), "rank 1 (pid %d on ", (int)pids[1]);
	for (int r = 0; r < 3; r++) {
		expect(r, -ECONNABORTED, name);
		expect(r, -ECONNABORTED, "stopped: cuMemAlloc: out of memory");
	}
}

/* ---- strangers, wrong ranks, a taken port ---- */

/* Connects to port (retrying while rank 0 is not up), sends data, and
 * records 0 when rank 0 hangs up on it. */
static void stranger(int port, const void *data, size_t len, struct result *res)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { 3, 0 };
	char buf[64];
	int fd = -1;

	for (int i = 0; i < 50; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			break;
		close(fd);
		fd = -1;
		sleep_s(0.05);
	}
	res->rc = -ENOTCONN;
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(fd, data, len, MSG_NOSIGNAL) != (ssize_t)len)
		return;
	res->rc = recv(fd, buf, sizeof(buf), 0) <= 0 && errno != EAGAIN ? 0 : -EPROTO;
	close(fd);
}

static int stranger_port;

static void root_then_late_rank(const struct gf_coll_world *w, struct result *res)
{
	static const char http[] = "GET / HTTP/1.0\r\n\r\n";
	/* our magic and version, a length far past the limit */
	static const unsigned char huge[16] = { 'G', 'F', 'C', 'T', 0, 1, 0, 1, 0xff, 0xff, 0xff, 0xff };

	if (w->rank == 2) {
		stranger(stranger_port, http, sizeof(http) - 1, res);
		return;
	}
	if (w->rank == 3) {
		stranger(stranger_port, huge, sizeof(huge), res);
		return;
	}
	if (w->rank == 1)
		sleep_s(0.5);	/* after the strangers */
	steps(w, res);
}

static void stranger_refused(void **state)
{
	(void)state;
	stranger_port = free_port();
	/* ranks 0 and 1 of 2; "ranks" 2 and 3 are the strangers */
	fork_rank(0, 2, stranger_port, "127.0.0.1", root_then_late_rank);
	fork_rank(1, 2, stranger_port, "127.0.0.1", root_then_late_rank);
	fork_rank(2, 4, stranger_port, "127.0.0.1", root_then_late_rank);
	fork_rank(3, 4, stranger_port, "127.0.0.1", root_then_late_rank);
	wait_all_ranks();
	expect(0, 0, NULL);
	expect(1, 0, NULL);
	expect(2, 0, NULL);	/* hung up on */
	expect(3, 0, NULL);
}

/* A rank 1 that introduces itself properly, then sends a frame whose
 * header is ours but whose length is past the limit. */
static void garbage_after_hello(const struct gf_coll_world *w, struct result *res)
{
	static const unsigned char hello[] = {
		'G', 'F', 'C', 'T', 0, 1, 0, 1, 0, 0, 0, 16, 0, 0, 0, 0,	/* HELLO, 16 bytes */
		0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0x10, 0x92, 'f', 'a', 'k', 'e',	/* rank 1 of 2, pid 4242 */
	};
	static const unsigned char huge[16] = { 'G', 'F', 'C', 'T', 0, 1, 0, 5, 0x7f, 0xff, 0xff, 0xff };
	unsigned char both[sizeof(hello) + sizeof(huge)];

	if (w->rank == 0) {
		struct gf_coll_ctl *c = NULL;
		int rc = gf_coll_ctl_open(w, T_OPEN, &c);

		if (!rc)
			rc = gf_coll_ctl_barrier(c, 5, "first point");
		record(res, c, w, rc);
		gf_coll_ctl_close(c);
		return;
	}
	memcpy(both, hello, sizeof(hello));
	memcpy(both + sizeof(hello), huge, sizeof(huge));
	stranger(w->port, both, sizeof(both), res);
}

static void malformed_frame_from_a_rank(void **state)
{
	(void)state;
	run(2, free_port(), "127.0.0.1", garbage_after_hello);
	/* it comes while rank 0 still gathers the others: at 'connect' */
	expect(0, -EPROTO, "rank 1 (pid 4242 on fake) sent a malformed control message at 'connect'");
}

static void duplicate_rank(const struct gf_coll_world *w, struct result *res)
{
	struct gf_coll_world twin = *w;

	if (w->rank == 2)
		twin.rank = 1;	/* a second rank 1 */
	if (w->rank == 0)
		twin.rank = 0;
	open_only(&twin, res);
}

static void rank_given_twice(void **state)
{
	(void)state;
	run(3, free_port(), "127.0.0.1", duplicate_rank);
	expect(0, -EPROTO, "rank 1 given twice");
	/* the twin is told why, not left to find rank 0 gone */
	expect(2, -EPROTO, "rank 1 given twice");
}

static void port_in_use(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	socklen_t len = sizeof(a);
	struct gf_coll_ctl *c = (struct gf_coll_ctl *)1;
	struct gf_coll_world w;
	char port[32];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	(void)state;
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	w = world(0, 2, ntohs(a.sin_port), "127.0.0.1");
	assert_int_equal(gf_coll_ctl_open(&w, 1.0, &c), -EADDRINUSE);
	assert_null(c);
	snprintf(port, sizeof(port), "TCP port %d is in use", ntohs(a.sin_port));
	assert_non_null(strstr(gf_last_error(), port));
	assert_non_null(strstr(gf_last_error(), "GPUFEED_COLL_PORT"));
	close(fd);
}

static void bad_arguments(void **state)
{
	struct gf_coll_ctl *c = NULL;
	struct gf_coll_world w = world(0, 2, 1234, "127.0.0.1");

	(void)state;
	assert_int_equal(gf_coll_ctl_open(&w, 0, &c), -EINVAL);
	assert_int_equal(gf_coll_ctl_open(&w, -1, &c), -EINVAL);
	assert_int_equal(gf_coll_ctl_open(NULL, 1, &c), -EINVAL);
	assert_int_equal(gf_coll_ctl_open(&w, 1, NULL), -EINVAL);
	w.rank = 2;
	assert_int_equal(gf_coll_ctl_open(&w, 1, &c), -EINVAL);
	w.rank = 0;
	w.port = 0;
	assert_int_equal(gf_coll_ctl_open(&w, 1, &c), -EINVAL);
	assert_int_equal(gf_coll_ctl_barrier(NULL, 1, "x"), -EINVAL);
	assert_string_equal(gf_coll_ctl_who(NULL, 0), "rank ?");
	gf_coll_ctl_abort(NULL, "x");
	gf_coll_ctl_close(NULL);
	/* one rank: every step is its own */
	w = world(0, 1, free_port(), "127.0.0.1");
	assert_int_equal(gf_coll_ctl_open(&w, 1, &c), 0);
	assert_int_equal(gf_coll_ctl_barrier(c, NAN, "x"), -EINVAL);
	assert_int_equal(gf_coll_ctl_bcast(c, NULL, 4, 1, "x"), -EINVAL);
	assert_non_null(strstr(gf_coll_ctl_who(c, 0), "rank 0 (pid "));
	assert_string_equal(gf_coll_ctl_who(c, 1), "rank ?");
	gf_coll_ctl_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(bcast_gather_barriers, setup, teardown),
		cmocka_unit_test_setup_teardown(host_name_ipv6_and_single_rank, setup, teardown),
		cmocka_unit_test_setup_teardown(rank0_starts_last, setup, teardown),
		cmocka_unit_test_setup_teardown(dead_rank_named_everywhere, setup, teardown),
		cmocka_unit_test_setup_teardown(late_rank_named_everywhere, setup, teardown),
		cmocka_unit_test_setup_teardown(missing_rank_times_out, setup, teardown),
		cmocka_unit_test_setup_teardown(abort_reaches_every_rank, setup, teardown),
		cmocka_unit_test_setup_teardown(stranger_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(malformed_frame_from_a_rank, setup, teardown),
		cmocka_unit_test_setup_teardown(rank_given_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(port_in_use, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_arguments, setup, teardown),
	};

	return cmocka_run_group_tests_name("coll_ctl", tests, NULL, NULL);
}
