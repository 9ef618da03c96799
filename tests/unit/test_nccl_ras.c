/* src/nccl/ras.c: ncclras output recorded 12 s into the straggler run on
 * 2 x H200 names rank 1; text in the shapes NCCL's
 * src/ras/client_support.cc writes for INCOMPLETE, DEAD, ERROR and large
 * communicators; the JSON of `ncclras -f json`; bad input refused. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include <gpufeed/error.h>
#include <gpufeed/nccl_hang.h>

static char *report(const struct gf_nccl_ras *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(json ? gf_nccl_ras_write_json(r, f) : gf_nccl_ras_print(r, f), 0);
	fclose(f);
	return buf;
}

static void contains(const char *text, const char *words)
{
	if (!strstr(text, words))
		fail_msg("no '%s' in:\n%s", words, text);
}

static struct gf_nccl_ras *parse(const char *text)
{
	struct gf_nccl_ras *r = NULL;

	if (gf_nccl_ras_parse(text, strlen(text), "t", &r))
		fail_msg("%s", gf_last_error());
	return r;
}

static void h200_capture_names_rank_1(void **state)
{
	struct gf_nccl_ras *r;
	int ranks[2] = { -1, -1 };
	char *t;

	(void)state;
	assert_int_equal(gf_nccl_ras_read(t_src_path("tests/fixtures/nccl/h200x2/ras.txt"), &r), 0);
	/* the capture holds ncclras and ncclras -v: one finding, not two */
	assert_int_equal(gf_nccl_ras_finding_count(r), 1);
	assert_int_equal(gf_nccl_ras_missing_ranks(r, ranks, 2), 1);
	assert_int_equal(ranks[0], 1);
	t = report(r, false);
	contains(t, "NCCL RAS, NCCL 2.28.9: 1 finding");
	contains(t, "missing: communicator #0-0 (91c1759e90fdd8f8): rank 1 did not enter AllReduce operation 4, "
		    "which the others launched; it launched up to 3 (GPU 1, process 1961 on node 192.0.2.2)");
	contains(t, "verdict: rank 1 did not enter a collective");
	free(t);
	t = report(r, true);
	contains(t, "\"missing_ranks\": [\n      1\n    ]");
	free(t);
	gf_nccl_ras_free(r);
}

static const char healthy[] =
	"NCCL version 2.28.9 compiled with CUDA 13.0\n\nJob summary\n===========\n\n"
	"Communicators... (0.000s)\n=============\n\n"
	"Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
	"    0         1         1         2         2         2   RUNNING      OK\n\n"
	"Errors\n======\n\nWarnings\n========\n\n";

static void a_healthy_job_agrees(void **state)
{
	struct gf_nccl_ras *r = parse(healthy);
	char *t;

	(void)state;
	assert_int_equal(gf_nccl_ras_finding_count(r), 0);
	assert_int_equal(gf_nccl_ras_missing_ranks(r, NULL, 0), 0);
	t = report(r, false);
	contains(t, "verdict: all ranks agree");
	free(t);
	gf_nccl_ras_free(r);
}

static void large_communicator_groups(void **state)
{
	/* 6 ranks at 10, 2 behind at 9: the majority is summarised, the two listed */
	struct gf_nccl_ras *r = parse(
		"NCCL version 2.28.9\n\nWarnings\n========\n\n"
		"#0-0 (00000000000000ab) MISMATCH\n"
		"  Communicator ranks have different AllGather operation counts\n"
		"  6 ranks have launched up to operation 10\n"
		"  2 ranks have launched up to operation 9\n"
		"  Rank 3 -- GPU 3 managed by process 13 on node n1\n"
		"  Rank 6 -- GPU 6 managed by process 16 on node n1\n"
		"\n"
		"#0-1 (00000000000000cd) MISMATCH\n"
		"  Communicator ranks have different Broadcast operation counts\n"
		"  7 ranks have launched up to operation 2\n"
		"  Rank 0 has not launched any operations -- [process information not found]\n"
		"\n");
	int ranks[4];
	char *t;

	(void)state;
	assert_int_equal(gf_nccl_ras_missing_ranks(r, ranks, 4), 3);
	assert_int_equal(ranks[0], 0);
	assert_int_equal(ranks[1], 3);
	assert_int_equal(ranks[2], 6);
	t = report(r, false);
	contains(t, "communicator #0-0 (00000000000000ab): rank 3 (GPU 3, process 13 on node n1); "
		    "rank 6 (GPU 6, process 16 on node n1) did not enter AllGather operation 10");
	contains(t, "communicator #0-1 (00000000000000cd): rank 0 did not enter Broadcast operation 2, which the "
		    "others launched; it launched up to 0");
	free(t);
	gf_nccl_ras_free(r);
	/* without -v the laggards may not be listed: said so */
	r = parse("NCCL version 2.28.9\n#0-0 (00000000000000ab) MISMATCH\n"
		  "  Communicator ranks have different AllReduce operation counts\n"
		  "  600 ranks have launched up to operation 10\n"
		  "  200 ranks have launched up to operation 9\n\n");
	t = report(r, false);
	contains(t, "200 ranks not listed (ncclras -v lists them) did not enter AllReduce operation 10");
	assert_int_equal(gf_nccl_ras_finding_count(r), 1);
	free(t);
	gf_nccl_ras_free(r);
}

static void incomplete_dead_and_errors(void **state)
{
	struct gf_nccl_ras *r = parse(
		"NCCL version 2.28.9\n\nErrors\n======\n\n"
		"DEAD\n  1 job process is considered dead (unreachable via the RAS network)\n"
		"  Process 4242 on node 10.0.0.2 managing GPU 1\n\n"
		"#0-0 (00000000000000ef) INCOMPLETE\n  Missing communicator data from 1 rank\n"
		"  Rank 5 -- GPU 1 managed by process 4242 on node 10.0.0.2\n\n"
		"#0-1 (0000000000000012) ERROR\n  Asynchronous error on 1 rank\n\n");
	char *t;

	(void)state;
	assert_int_equal(gf_nccl_ras_finding_count(r), 3);
	assert_int_equal(gf_nccl_ras_missing_ranks(r, NULL, 0), 0);
	t = report(r, false);
	contains(t, "dead: 1 process considered dead: Process 4242 on node 10.0.0.2 managing GPU 1");
	contains(t, "incomplete: communicator #0-0 (00000000000000ef): no answer from: rank 5 (GPU 1, process 4242 "
		    "on node 10.0.0.2)");
	contains(t, "error: communicator #0-1 (0000000000000012): errors: Asynchronous error on 1 rank");
	contains(t, "verdict: the ranks disagree (3 findings), no rank is missing from a collective");
	free(t);
	gf_nccl_ras_free(r);
}

static void the_json_of_ncclras_f_json(void **state)
{
	/* the shape of jsonWriteHeader/StartCommunicator/WriteRankData/WriteMissingRank */
	static const char doc[] =
		"{\n  \"nccl_version\": \"2.29.1\",\n  \"cuda_runtime_version\": 13000,\n"
		"  \"cuda_driver_version\": 13000,\n  \"timestamp\": \"2026-11-26 19:49:18\",\n"
		"  \"communicators_count\": 1,\n  \"communicators\": [\n    {\n"
		"      \"hash\": \"0x91c1759e90fdd8f8\",\n      \"secondary_hash\": \"0x1:0x2\",\n"
		"      \"size\": 3,\n      \"ranks_count\": 2,\n      \"missing_ranks_count\": 1,\n"
		"      \"ranks\": [\n"
		"        {\"rank\": 0, \"host\": \"192.0.2.2\", \"pid\": 1960, \"cuda_dev\": 0, \"nvml_dev\": 0,\n"
		"         \"status\": {\"init_state\": 0, \"async_error\": 0, \"finalize_called\": false,\n"
		"                    \"destroy_flag\": false, \"abort_flag\": false},\n"
		"         \"collective_counts\": {\"Broadcast\": 0, \"AllReduce\": 4}},\n"
		"        {\"rank\": 1, \"host\": \"192.0.2.2\", \"pid\": 1961, \"cuda_dev\": 1, \"nvml_dev\": 1,\n"
		"         \"status\": {\"init_state\": 0, \"async_error\": 0, \"finalize_called\": false,\n"
		"                    \"destroy_flag\": false, \"abort_flag\": false},\n"
		"         \"collective_counts\": {\"Broadcast\": 0, \"AllReduce\": 3}}\n"
		"      ],\n      \"missing_ranks\": [\n"
		"        {\"rank\": 2, \"host\": \"192.0.2.3\", \"pid\": 77, \"cuda_dev\": 0, \"nvml_dev\": 0,\n"
		"         \"status\": {\"unresponsive\": true, \"considered_dead\": true}}\n"
		"      ]\n    }\n  ],\n  \"ras\": {\"collection_time_sec\": 0.001, \"timeouts_count\": 0}\n}\n";
	struct gf_nccl_ras *r = parse(doc);
	int ranks[2];
	char *t;

	(void)state;
	assert_int_equal(gf_nccl_ras_missing_ranks(r, ranks, 2), 1);
	assert_int_equal(ranks[0], 1);
	assert_int_equal(gf_nccl_ras_finding_count(r), 2);
	t = report(r, false);
	contains(t, "NCCL RAS, NCCL 2.29.1: 2 findings");
	contains(t, "communicator 0 (0x91c1759e90fdd8f8): rank 1 did not enter AllReduce operation 4, which the "
		    "others launched; it launched up to 3 (GPU 1, process 1961 on node 192.0.2.2)");
	contains(t, "incomplete: communicator 0 (0x91c1759e90fdd8f8): no answer from: rank 2 (process 77 on node "
		    "192.0.2.3, considered dead, unresponsive)");
	free(t);
	gf_nccl_ras_free(r);
}

static void expect_bad(const char *text, size_t len, const char *words)
{
	struct gf_nccl_ras *r = (struct gf_nccl_ras *)&r;

	assert_int_equal(gf_nccl_ras_parse(text, len, "cap.txt", &r), -EBADMSG);
	assert_null(r);
	if (!strstr(gf_last_error(), words))
		fail_msg("'%s' lacks '%s'", gf_last_error(), words);
}

#define BAD(lit, words) expect_bad(lit, sizeof(lit) - 1, words)

static void bad_input_is_refused(void **state)
{
	struct gf_nccl_ras *r;

	(void)state;
	BAD("hello\n", "cap.txt: line 1: not ncclras output");
	BAD("", "not ncclras output");
	BAD("{\"communicators\": [", "cap.txt: offset 19: not JSON");
	BAD("{\"x\": 1}", "no communicators array");
	BAD("{\"communicators\": [{\"ranks\": 3}]}", "communicators[0].ranks: expected an array");
	BAD("{\"communicators\": [{\"ranks\": [{\"rank\": 0, \"collective_counts\": {\"AllReduce\": \"x\"}}]}]}",
	     "communicators[0].ranks[0]: expected integer rank");
	BAD("NCCL version 2\0x", "offset 14: a NUL byte");
	assert_int_equal(gf_nccl_ras_read("/nonexistent/ras.txt", &r), -ENOENT);
	contains(gf_last_error(), "/nonexistent/ras.txt");
	assert_int_equal(gf_nccl_ras_read("/", &r), -EINVAL);
	contains(gf_last_error(), "/: not a regular file");
}

/* Mutations of the capture: a verdict or -EBADMSG, never a crash. */
static void hostile_variants_of_the_capture(void **state)
{
	char *orig = t_read(t_src_path("tests/fixtures/nccl/h200x2/ras.txt"));
	size_t len;
	uint64_t x = 0x2545f4914f6cdd1dULL;

	(void)state;
	assert_non_null(orig);
	len = strlen(orig);
	char *m = malloc(len);
	assert_non_null(m);
	for (int iter = 0; iter < 2000; iter++) {
		struct gf_nccl_ras *r;

		memcpy(m, orig, len);
		for (int e = 0; e < 1 + iter % 8; e++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			m[x % len] = "0123456789 #-\n(RankMISMATCH{"[(x >> 40) % 28];
		}
		int ret = gf_nccl_ras_parse(m, (size_t)(x >> 20) % (len + 1), "m", &r);
		if (ret == 0)
			gf_nccl_ras_free(r);
		else
			assert_int_equal(ret, -EBADMSG);
	}
	free(m);
	free(orig);
}

/* A stand-in RAS service on 127.0.0.1: answers the handshake as NCCL's
 * client_support.cc does (or, with `greeting`, something else), then sends
 * `report` for STATUS and closes. */
static pid_t fake_ras(const char *greeting, const char *report, int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	pid_t pid;

	assert_true(ls >= 0);
	assert_int_equal(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(ls, 1), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	assert_true((pid = fork()) >= 0);
	if (pid) {
		close(ls);
		return pid;
	}
	int c = accept(ls, NULL, NULL);
	char line[256];
	size_t n = 0;
	while (c >= 0 && read(c, line + n, 1) == 1) {
		if (line[n] != '\n' && n < sizeof(line) - 2) {
			n++;
			continue;
		}
		line[n] = 0;
		n = 0;
		const char *ans = !strncmp(line, "CLIENT PROTOCOL ", 16) ? (greeting ? greeting : "SERVER PROTOCOL 2\n") :
				  !strncmp(line, "TIMEOUT ", 8) ? "OK\n" : NULL;
		if (ans) {
			if (write(c, ans, strlen(ans)) < 0)
				break;
			continue;
		}
		if (!strcmp(line, "VERBOSE STATUS") && write(c, report, strlen(report)) < 0)
			break;
		break;
	}
	_exit(0);
}

static void a_live_ras_service(void **state)
{
	char *cap = t_read(t_src_path("tests/fixtures/nccl/h200x2/ras.txt")), addr[64];
	struct gf_nccl_ras *r;
	int port, ranks[2], st;
	pid_t pid;

	(void)state;
	assert_non_null(cap);
	pid = fake_ras(NULL, cap, &port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	assert_int_equal(gf_nccl_ras_query(addr, 5, &r), 0);
	assert_int_equal(gf_nccl_ras_missing_ranks(r, ranks, 2), 1);
	assert_int_equal(ranks[0], 1);
	gf_nccl_ras_free(r);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	/* something else listening there */
	pid = fake_ras("HTTP/1.1 400 Bad Request\r\n", "", &port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	assert_int_equal(gf_nccl_ras_query(addr, 5, &r), -EPROTO);
	contains(gf_last_error(), "RAS at 127.0.0.1:");
	contains(gf_last_error(), "not SERVER PROTOCOL");
	assert_int_equal(waitpid(pid, &st, 0), pid);
	/* nothing listening: the port of a listener already gone */
	pid = fake_ras(NULL, "", &port);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	assert_int_equal(gf_nccl_ras_query(addr, 5, &r), -ECONNREFUSED);
	contains(gf_last_error(), "NCCL_RAS_ADDR");
	free(cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(h200_capture_names_rank_1),
		cmocka_unit_test(a_healthy_job_agrees),
		cmocka_unit_test(large_communicator_groups),
		cmocka_unit_test(incomplete_dead_and_errors),
		cmocka_unit_test(the_json_of_ncclras_f_json),
		cmocka_unit_test(bad_input_is_refused),
		cmocka_unit_test(hostile_variants_of_the_capture),
		cmocka_unit_test(a_live_ras_service),
	};
	return cmocka_run_group_tests_name("nccl_ras", tests, NULL, NULL);
}
