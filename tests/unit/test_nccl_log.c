/* gpufeed nccl log: the recorded NCCL logs of 2 x H200 with planted faults
 * (tests/fixtures/nccl/h200x2/README.md), each classified, and a mutation
 * fuzzer over them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <gpufeed/gpufeed.h>

#include "helpers.h"

static struct gf_nccl_log *analysed(const char *name, const struct gf_topo *t)
{
	char rel[256];
	struct gf_nccl_log *l = NULL;
	FILE *f;

	snprintf(rel, sizeof(rel), "tests/fixtures/nccl/h200x2/%s", name);
	assert_non_null(f = fopen(t_src_path(rel), "r"));
	assert_int_equal(gf_nccl_log_new(NULL, &l), 0);
	assert_int_equal(gf_nccl_log_feed_file(l, name, f), 0);
	fclose(f);
	assert_int_equal(gf_nccl_log_analyse(l, t), 0);
	return l;
}

/* The finding with id whose text holds every needle; NULL when none. */
static const struct gf_nccl_finding *find(const struct gf_nccl_log *l, const char *id, const char *n1,
					  const char *n2)
{
	const struct gf_nccl_finding *fs;
	int n = gf_nccl_log_findings(l, &fs);

	for (int i = 0; i < n; i++)
		if (!strcmp(fs[i].id, id) && (!n1 || strstr(fs[i].text, n1)) && (!n2 || strstr(fs[i].text, n2)))
			return &fs[i];
	return NULL;
}

static int count_at_least(const struct gf_nccl_log *l, enum gf_severity min)
{
	const struct gf_nccl_finding *fs;
	int n = gf_nccl_log_findings(l, &fs), c = 0;

	for (int i = 0; i < n; i++)
		c += fs[i].severity >= min;
	return c;
}

static struct gf_topo *h200x2(char **dir)
{
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t = NULL;

	o.root = t_fixture_root("h200x2-vm");
	*dir = NULL;
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_int_equal(t->ngpus, 2);
	return t;
}

static void plain_is_clean(void **state)
{
	struct gf_nccl_log *l = analysed("plain.log", NULL);

	(void)state;
	assert_true(gf_nccl_log_clean(l));
	assert_int_equal(count_at_least(l, GF_SEV_WARN), 0);
	assert_non_null(find(l, "nccl.transport", "P2P/CUMEM", NULL));
	assert_non_null(find(l, "nccl.topology", "could not compare", NULL));
	gf_nccl_log_free(l);
}

static void plain_is_clean_against_the_h200_model(void **state)
{
	char *dir;
	struct gf_topo *t = h200x2(&dir);
	struct gf_nccl_log *l = analysed("plain.log", t);

	(void)state;
	assert_true(gf_nccl_log_clean(l));
	assert_non_null(find(l, "nccl.transport", "P2P/CUMEM", "NV18"));
	assert_null(find(l, "nccl.topology", NULL, NULL));
	gf_nccl_log_free(l);
	gf_topo_free(t);
}

static void p2p_disabled_is_shm_and_names_the_switch(void **state)
{
	struct gf_nccl_log *l = analysed("p2p-disabled.log", NULL);
	const struct gf_nccl_finding *f;

	(void)state;
	assert_false(gf_nccl_log_clean(l));
	assert_non_null(f = find(l, "nccl.override", "NCCL_P2P_DISABLE=1", NULL));
	assert_true(f->costs_bandwidth);
	assert_string_equal(f->ranks, "0,1");
	assert_string_equal(f->fix, "unset NCCL_P2P_DISABLE");
	assert_non_null(strstr(f->source, "env.html#nccl-p2p-disable"));
	assert_non_null(find(l, "nccl.transport", "SHM/direct/direct", "NCCL_P2P_DISABLE"));
	gf_nccl_log_free(l);
}

static void p2p_disabled_is_tied_to_the_nvlink(void **state)
{
	char *dir;
	struct gf_topo *t = h200x2(&dir);
	struct gf_nccl_log *l = analysed("p2p-disabled.log", t);
	const struct gf_nccl_finding *f;

	(void)state;
	assert_non_null(f = find(l, "nccl.transport", "GPU0-GPU1 (ranks 0-1) is NV18 but uses SHM", "NCCL_P2P_DISABLE=1"));
	assert_int_equal(f->severity, GF_SEV_WARN);
	assert_true(f->costs_bandwidth);
	gf_nccl_log_free(l);
	gf_topo_free(t);
}

static void p2p_shm_disabled_is_net_socket(void **state)
{
	struct gf_nccl_log *l = analysed("p2p-shm-disabled.log", NULL);
	const struct gf_nccl_finding *f;

	(void)state;
	assert_false(gf_nccl_log_clean(l));
	assert_non_null(f = find(l, "nccl.transport", "NET/Socket", "NCCL_SHM_DISABLE"));
	assert_int_equal(f->severity, GF_SEV_WARN);
	assert_non_null(find(l, "nccl.override", "NCCL_SHM_DISABLE=1", NULL));
	assert_non_null(find(l, "nccl.override", "NCCL_P2P_DISABLE=1", NULL));
	gf_nccl_log_free(l);
}

static void proto_simple_is_an_override(void **state)
{
	struct gf_nccl_log *l = analysed("proto-simple.log", NULL);
	const struct gf_nccl_finding *f;

	(void)state;
	assert_false(gf_nccl_log_clean(l));
	assert_non_null(f = find(l, "nccl.override", "NCCL_PROTO=Simple", NULL));
	assert_true(f->costs_bandwidth);
	assert_int_equal(count_at_least(l, GF_SEV_WARN), 1);
	gf_nccl_log_free(l);
}

static void max_nchannels_is_an_override(void **state)
{
	struct gf_nccl_log *l = analysed("max-nchannels-1.log", NULL);

	(void)state;
	assert_false(gf_nccl_log_clean(l));
	assert_non_null(find(l, "nccl.override", "NCCL_MAX_NCHANNELS=1", NULL));
	assert_int_equal(count_at_least(l, GF_SEV_WARN), 1);
	gf_nccl_log_free(l);
}

static void mixed_versions_name_both(void **state)
{
	struct gf_nccl_log *l = analysed("mixed-versions.log", NULL);
	const struct gf_nccl_finding *f;

	(void)state;
	assert_false(gf_nccl_log_clean(l));
	assert_non_null(f = find(l, "nccl.version-mismatch", "rank 0: NCCL 2.28.9+cuda13.0",
				 "rank 1: NCCL 2.28.3+cuda13.0"));
	assert_int_equal(f->severity, GF_SEV_ERROR);
	assert_non_null(find(l, "nccl.warn", "Mismatched NCCL version", NULL));
	gf_nccl_log_free(l);
}

static void straggler_names_rank_1(void **state)
{
	struct gf_nccl_log *l = analysed("straggler.log", NULL);
	const struct gf_nccl_finding *f;

	(void)state;
	assert_false(gf_nccl_log_clean(l));
	assert_non_null(find(l, "nccl.error", "Watchdog caught collective operation timeout", "SeqNum=4"));
	assert_non_null(f = find(l, "nccl.straggler", "did not enter collective 4", NULL));
	assert_string_equal(f->ranks, "1");
	gf_nccl_log_free(l);
}

static void single_process_two_ranks(void **state)
{
	struct gf_nccl_log *l = analysed("ncclt-single-process.log", NULL);

	(void)state;
	assert_true(gf_nccl_log_clean(l));
	assert_non_null(find(l, "nccl.transport", "P2P/direct", NULL));
	gf_nccl_log_free(l);
}

static void launch_prefix_and_many_comms(void **state)
{
	struct gf_nccl_log *l = NULL;
	char line[256];

	(void)state;
	assert_int_equal(gf_nccl_log_new(NULL, &l), 0);
	for (int i = 0; i < 10; i++) {
		snprintf(line, sizeof(line),
			 "[3] h:77:77 [0] NCCL INFO ncclCommInitRank comm 0x%x rank 3 nranks 4 cudaDev 0 busId 1b000 "
			 "commId 0x1 - Init COMPLETE",
			 0x1000 + i);
		assert_int_equal(gf_nccl_log_feed_line(l, "x", line, strlen(line)), 0);
	}
	assert_int_equal(gf_nccl_log_analyse(l, NULL), 0);
	assert_non_null(find(l, "nccl.many-comms", "10 communicators", NULL));
	gf_nccl_log_free(l);
}

/* torchrun --tee's "[default1]:", NCCL_DEBUG_TIMESTAMP_FORMAT's stamp, and
 * a WARN with its "file.cc:line" in front. */
static void prefixes_are_read(void **state)
{
	static const char *const lines[] = {
		"[default0]:n1:10:10 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
		"[default1]:n1:11:11 [1] NCCL INFO NCCL version 2.21.5+cuda12.4",
		"[default0]:[2026-01-02 03:04:05] n1:10:10 [0] NCCL INFO comm 0xa rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0",
		"[default1]:[2026-01-02 03:04:05] n1:11:11 [1] NCCL INFO comm 0xb rank 1 nRanks 2 nNodes 1 localRanks 2 localRank 1 MNNVL 0",
		"[default0]:n1:10:20 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read",
		"[default1]:n1:11:21 [1] transport/net.cc:123 NCCL WARN Call to connect returned Connection refused",
		"[default0]:n1:10:10 [0] NCCL INFO NVLS multicast support is not available on dev 0 (NVLS_NCHANNELS 16)",
		"[default0]:n1:10:10 [0] NCCL INFO   Algorithm   |   CollNetChain   |   NVLS   |   NVLSTree   |",
		"[default0]:n1:10:10 [0] NCCL INFO 2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer",
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	struct gf_nccl_log *l = NULL;
	const struct gf_nccl_finding *f;

	(void)state;
	assert_int_equal(gf_nccl_log_new(NULL, &l), 0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(gf_nccl_log_feed_line(l, "x", lines[i], strlen(lines[i])), 0);
	assert_int_equal(gf_nccl_log_analyse(l, NULL), 0);
	assert_null(find(l, "nccl.version-mismatch", NULL, NULL));
	assert_non_null(find(l, "nccl.transport", "ranks 0-1 use P2P/IPC/read on 1 channel", NULL));
	assert_non_null(f = find(l, "nccl.warn", "Call to connect returned Connection refused", NULL));
	assert_string_equal(f->ranks, "1");
	assert_non_null(out = open_memstream(&buf, &len));
	assert_int_equal(gf_nccl_log_write_text(l, out), 0);
	fclose(out);
	assert_non_null(strstr(buf, "  NVLS: NVLS multicast support is not available on dev 0 (NVLS_NCHANNELS 16)\n"));
	assert_non_null(strstr(buf, "  channels: 2 coll, 0 nvls\n"));
	free(buf);
	gf_nccl_log_free(l);
}

/* Two hosts over InfiniBand, one direction with GPUDirect RDMA and one
 * without; a Socket pair between hosts where NCCL found no IB device. */
static void between_hosts(void **state)
{
	static const char *const lines[] = {
		"a:1:1 [0] NCCL INFO comm 0xa rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0",
		"b:2:2 [0] NCCL INFO comm 0xb rank 2 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0",
		"a:1:1 [0] NCCL INFO Channel 00/0 : 2[0] -> 0[0] [receive] via NET/IB/0",
		"b:2:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 2[0] [receive] via NET/IB/0/GDRDMA",
		"a:1:1 [0] NCCL INFO NET/IB : No device found.",
		"a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 3[1] [send] via NET/Socket/0",
	};
	struct gf_nccl_log *l = NULL;

	(void)state;
	assert_int_equal(gf_nccl_log_new(NULL, &l), 0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(gf_nccl_log_feed_line(l, "x", lines[i], strlen(lines[i])), 0);
	assert_int_equal(gf_nccl_log_analyse(l, NULL), 0);
	assert_non_null(find(l, "nccl.gdr", "ranks 0-2 use NET/IB/0 between hosts without GPUDirect RDMA", NULL));
	assert_non_null(find(l, "nccl.transport", "ranks 0-3 use NET/Socket/0 between hosts", "No device found"));
	assert_true(gf_nccl_log_clean(l));
	gf_nccl_log_free(l);
}

/* A log of distinct warnings past the reader's bound: kept bounded, the
 * rest counted and said. */
static void bounded(void **state)
{
	struct gf_nccl_log *l = NULL;
	const struct gf_nccl_finding *fs;
	char line[128], *buf = NULL;
	size_t len = 0;
	int n, warns = 0;
	FILE *f;

	(void)state;
	assert_int_equal(gf_nccl_log_new(NULL, &l), 0);
	for (int i = 0; i < 600; i++) {
		snprintf(line, sizeof(line), "h:1:1 [0] x.cc:1 NCCL WARN failure %d", i);
		assert_int_equal(gf_nccl_log_feed_line(l, "x", line, strlen(line)), 0);
	}
	assert_int_equal(gf_nccl_log_analyse(l, NULL), 0);
	n = gf_nccl_log_findings(l, &fs);
	for (int i = 0; i < n; i++)
		warns += !strcmp(fs[i].id, "nccl.warn");
	assert_int_equal(warns, 512);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gf_nccl_log_write_text(l, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "(88 events past the reader's bounds were left out)"));
	free(buf);
	gf_nccl_log_free(l);
}

static void no_nccl_output_is_said(void **state)
{
	struct gf_nccl_log *l = NULL;

	(void)state;
	assert_int_equal(gf_nccl_log_new(NULL, &l), 0);
	assert_int_equal(gf_nccl_log_feed_line(l, "x", "hello", 5), 0);
	assert_int_equal(gf_nccl_log_analyse(l, NULL), 0);
	assert_non_null(find(l, "nccl.no-output", NULL, NULL));
	assert_false(gf_nccl_log_clean(l));
	gf_nccl_log_free(l);
}

static void escapes_never_reach_the_output(void **state)
{
	static const char line[] = "h:1:1 [0] NCCL WARN evil \x1b]0;pwned\x07 \x1b[2J\x9b" "31m done";
	struct gf_nccl_log *l = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(gf_nccl_log_new(NULL, &l), 0);
	assert_int_equal(gf_nccl_log_feed_line(l, "x", line, sizeof(line) - 1), 0);
	assert_int_equal(gf_nccl_log_analyse(l, NULL), 0);
	assert_non_null(find(l, "nccl.warn", "evil ?]0;pwned? ?[2J?31m done", NULL));
	for (int json = 0; json < 2; json++) {
		assert_non_null(f = open_memstream(&buf, &len));
		assert_int_equal(json ? gf_nccl_log_write_json(l, f) : gf_nccl_log_write_text(l, f), 0);
		fclose(f);
		for (size_t i = 0; i < len; i++)
			assert_true(buf[i] == '\n' || ((unsigned char)buf[i] >= 0x20 && (unsigned char)buf[i] < 0x7f));
		free(buf);
		buf = NULL;
	}
	gf_nccl_log_free(l);
}

/* hgx-h100-8gpu: GPU0 (0000:1b:00.0, NCCL's busId 1b000) is local to
 * CPUs 0-55,112-167 on node 0. */
static void affinity_off_the_gpus_node(void **state)
{
	static const char *const lines[] = {
		"[0] h:7:7 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 8 cudaDev 0 busId 1b000 commId 0x2 - Init START",
		"[0] h:7:7 [0] NCCL INFO Setting affinity for GPU 0 to 56-111",
	};
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_nccl_log *l = NULL;
	struct gf_topo *t = NULL;
	const struct gf_nccl_finding *f;

	(void)state;
	o.root = t_fixture_root("hgx-h100-8gpu");
	assert_int_equal(gf_topo_discover(&o, &t), 0);
	assert_int_equal(gf_nccl_log_new(NULL, &l), 0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(gf_nccl_log_feed_line(l, "x", lines[i], strlen(lines[i])), 0);
	assert_int_equal(gf_nccl_log_analyse(l, t), 0);
	assert_non_null(f = find(l, "nccl.affinity", "CPUs 56-111, none of them local to GPU0", "0-55,112-167"));
	assert_int_equal(f->severity, GF_SEV_WARN);
	assert_string_equal(f->ranks, "0");
	assert_false(gf_nccl_log_clean(l));
	gf_nccl_log_free(l);
	gf_topo_free(t);
}

/* A deterministic mutation fuzzer: each fixture cut, flipped, stretched and
 * salted with NULs and malformed numbers, fed and analysed and written. */
static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 11);
}

static void mutate_and_feed(struct gf_nccl_log *l, const char *text, size_t len)
{
	static const char *const junk[] = { "99999999999999999999", "-2147483649", "0x", "[", "]", " -> ",
					    "Channel 99999/0 : ", "busId ffffffffffffffffffff", "NCCL_X set by environment to ",
					    "[rank-1]:", " via ", "Last enqueued NCCL work: " };
	size_t start = 0;

	while (start < len) {
		size_t end = start;
		char buf[9000];
		size_t n;

		while (end < len && text[end] != '\n')
			end++;
		n = end - start < 4000 ? end - start : 4000;
		memcpy(buf, text + start, n);
		switch (next() % 8) {
		case 0:	/* cut */
			n = n ? next() % n : 0;
			break;
		case 1:	/* flip bytes */
			for (int k = 0; k < 4 && n; k++)
				buf[next() % n] ^= (char)(1u << (next() % 8));
			break;
		case 2:	/* NULs */
			for (int k = 0; k < 3 && n; k++)
				buf[next() % n] = '\0';
			break;
		case 3: {	/* a malformed number or token spliced in */
			const char *j = junk[next() % (sizeof(junk) / sizeof(junk[0]))];
			size_t at = n ? next() % n : 0, jl = strlen(j);

			memmove(buf + at + jl, buf + at, n - at);
			memcpy(buf + at, j, jl);
			n += jl;
			break;
		}
		case 4:	/* a huge line */
			memset(buf + n, 'A' + (int)(next() % 26), 4500);
			n += 4500;
			break;
		default:
			break;
		}
		assert_int_equal(gf_nccl_log_feed_line(l, "fuzz", buf, n), 0);
		start = end + 1;
	}
}

static void fuzz_the_fixtures(void **state)
{
	static const char *const names[] = { "plain.log", "p2p-disabled.log", "p2p-shm-disabled.log", "proto-simple.log",
					     "max-nchannels-1.log", "mixed-versions.log", "straggler.log",
					     "ncclt-single-process.log" };
	char *dir;
	struct gf_topo *t = h200x2(&dir);

	(void)state;
	for (int iter = 0; iter < 48; iter++) {
		char rel[256], *text;
		struct gf_nccl_log *l = NULL;
		FILE *f;

		snprintf(rel, sizeof(rel), "tests/fixtures/nccl/h200x2/%s", names[iter % 8]);
		text = t_read(t_src_path(rel));
		assert_int_equal(gf_nccl_log_new(NULL, &l), 0);
		mutate_and_feed(l, text, strlen(text));
		free(text);
		assert_int_equal(gf_nccl_log_analyse(l, iter % 2 ? t : NULL), 0);
		assert_non_null(f = fopen("/dev/null", "w"));
		assert_int_equal(gf_nccl_log_write_text(l, f), 0);
		assert_int_equal(gf_nccl_log_write_json(l, f), 0);
		fclose(f);
		gf_nccl_log_free(l);
	}
	gf_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_is_clean),
		cmocka_unit_test(plain_is_clean_against_the_h200_model),
		cmocka_unit_test(p2p_disabled_is_shm_and_names_the_switch),
		cmocka_unit_test(p2p_disabled_is_tied_to_the_nvlink),
		cmocka_unit_test(p2p_shm_disabled_is_net_socket),
		cmocka_unit_test(proto_simple_is_an_override),
		cmocka_unit_test(max_nchannels_is_an_override),
		cmocka_unit_test(mixed_versions_name_both),
		cmocka_unit_test(straggler_names_rank_1),
		cmocka_unit_test(single_process_two_ranks),
		cmocka_unit_test(launch_prefix_and_many_comms),
		cmocka_unit_test(prefixes_are_read),
		cmocka_unit_test(between_hosts),
		cmocka_unit_test(bounded),
		cmocka_unit_test(no_nccl_output_is_said),
		cmocka_unit_test(affinity_off_the_gpus_node),
		cmocka_unit_test(escapes_never_reach_the_output),
		cmocka_unit_test(fuzz_the_fixtures),
	};

	return cmocka_run_group_tests_name("nccl_log", tests, NULL, NULL);
}
