/* The monitor's writers (<gpufeed/monitor_output.h>) on samples built by
 * hand: the terminal table fits 100 columns with the widest figures a
 * machine gives, a missing figure is "-" / null / an empty field and never
 * 0, JSON is one line that parses, a CSV header has as many fields as its
 * rows. */
#include "helpers.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/gpufeed.h>
#include <gpufeed/monitor_output.h>
#include "monitor/monitor_internal.h"
#include "vendor/nvml/nvml.h"

/* ---- samples ---- */

struct fixture {
	struct gf_mon_sample s;
	struct gf_mon_gpu gpus[8];
	struct gf_mon_node nodes[2];
	struct gf_mon_disk disks[2];
	struct gf_mon_nic nics[2];
	struct gf_mon_proc proc;
	struct gf_mon_thread threads[6];
};

/* A GPU with every figure at the widest a current machine shows. */
static void busy_gpu(struct gf_mon_gpu *g, int index)
{
	memset(g, 0, sizeof(*g));
	g->index = index;
	snprintf(g->uuid, sizeof(g->uuid), "GPU-8f1c0000-0000-0000-0000-00000000000%d", index);
	snprintf(g->pci, sizeof(g->pci), "0000:%02x:00.0", 0x18 + index);
	snprintf(g->name, sizeof(g->name), "NVIDIA H200");
	g->activity_source = "gpm";
	g->sm_active = 1.0;
	g->sm_occupancy = 0.456;
	g->tensor_active = 0.8;
	g->dram_active = 0.5;
	g->mem_used = 141ull << 30;
	g->mem_total = 143771ull << 20;
	g->pcie_rx_bps = 55.3e9;
	g->pcie_tx_bps = 12.26e9;
	g->pcie_limit_bps = 63.0e9;
	g->nvlink_rx_bps = 450e9;
	g->nvlink_tx_bps = 449.4e9;
	g->nvlink_limit_bps = 450e9;
	g->power_w = 1000.4;
	g->power_limit_w = 1200;
	g->sm_clock_mhz = 1980;
	g->mem_clock_mhz = 2619;
	g->temperature_c = 71;
	g->throttle_reasons = 0x4 | 0x8 | 0x40 | 0x20 | 0x1;
	snprintf(g->throttle, sizeof(g->throttle), "gpu_idle,sw_power_cap,hw_slowdown,sw_thermal,hw_thermal");
	g->xid_events = 3;
	g->last_xid = 79;
	g->ecc_corrected = 123456;
	g->ecc_uncorrected = 2;
	g->proc_sm_share = 0.45;
	g->proc_mem_used = 12ull << 30;
}

/* A GPU that gave nothing: every figure missing. */
static void blind_gpu(struct gf_mon_gpu *g, int index)
{
	memset(g, 0, sizeof(*g));
	g->index = index;
	g->activity_source = "none";
	g->sm_active = g->sm_occupancy = g->tensor_active = g->dram_active = NAN;
	g->mem_used = g->mem_total = GF_MON_NONE;
	g->pcie_rx_bps = g->pcie_tx_bps = g->pcie_limit_bps = NAN;
	g->nvlink_rx_bps = g->nvlink_tx_bps = g->nvlink_limit_bps = NAN;
	g->power_w = g->power_limit_w = NAN;
	g->throttle_reasons = GF_MON_NONE;
	g->xid_events = GF_MON_NONE;
	g->ecc_corrected = g->ecc_uncorrected = GF_MON_NONE;
	g->proc_sm_share = NAN;
	g->proc_mem_used = GF_MON_NONE;
}

static struct fixture *busy_sample(unsigned ngpus)
{
	struct fixture *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	x->s.t = 1800000000.25;
	x->s.interval_s = 1.0;
	snprintf(x->s.hostname, sizeof(x->s.hostname), "gpu-node-with-a-rather-long-host-name-0042.example.org");
	for (unsigned i = 0; i < ngpus; i++)
		busy_gpu(&x->gpus[i], (int)i);
	x->s.ngpus = ngpus;
	x->s.gpus = x->gpus;
	for (int i = 0; i < 2; i++)
		x->nodes[i] = (struct gf_mon_node){ i, 0.999, 0.126, 1024ull << 30, 1000ull << 30 };
	x->s.nnodes = 2;
	x->s.nodes = x->nodes;
	x->disks[0] = (struct gf_mon_disk){ "nvme0n1", 14.1e9, 13.9e9, 2.5e6, 2.4e6, 1.0, 1023.5, 15.75e9 };
	x->disks[1] = (struct gf_mon_disk){ "a-very-long-device-mapper-name-x", 1e6, 0, 10, 0, 0.01, 0.02, NAN };
	x->s.ndisks = 2;
	x->s.disks = x->disks;
	x->nics[0] = (struct gf_mon_nic){ "enp1s0f0np0,x", false, 49.9e9, 50e9, 50e9 };
	x->nics[1] = (struct gf_mon_nic){ "mlx5_0/1", true, 1e3, 2e3, 50e9 };
	x->s.nnics = 2;
	x->s.nics = x->nics;
	x->s.pagecache = (struct gf_mon_pagecache){ 900ull << 30, 3ull << 20, 0, 1500ull << 30 };
	x->proc = (struct gf_mon_proc){ .pid = 4194303, .alive = true, .nprocs = 9, .cpu = 123.456,
					.runq_wait = 12.5, .read_bps = 14e9, .write_bps = 1e9, .rchar_bps = 20e9,
					.major_faults_per_s = 12345.6, .minor_faults_per_s = 987654.3,
					.rss = 2000ull << 30, .cgroup_throttled = 0.25 };
	snprintf(x->proc.cgroup, sizeof(x->proc.cgroup), "/kubepods.slice/pod,1");
	for (int i = 0; i < 6; i++)
		x->threads[i] = (struct gf_mon_thread){ 4194303 - i, "pt_data_worker", 1.0 - i * 0.1, 0.05, 223 - i, i % 2 };
	x->proc.threads = x->threads;
	x->proc.nthreads = 6;
	x->s.proc = &x->proc;
	return x;
}

/* ---- capturing output ---- */

struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	return c->f;
}

static char *cap_close(struct capture *c)
{
	assert_int_equal(fclose(c->f), 0);
	return c->buf;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

static int widest_line(const char *text)
{
	int widest = 0, cur = 0;

	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			widest = cur > widest ? cur : widest;
			cur = 0;
		} else {
			cur++;
		}
	}
	return widest;
}

/* The line that starts with prefix, copied into buf (NUL-terminated). */
static const char *line_starting(const char *text, const char *prefix, char *buf, size_t size)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, prefix, strlen(prefix))) {
			size_t n = strcspn(p, "\n");

			snprintf(buf, size, "%.*s", (int)n, p);
			return buf;
		}
	}
	fail_msg("no line starts with '%s' in:\n%s", prefix, text);
	return NULL;
}

/* ---- the table ---- */

static void table_fits_100_columns(void **state)
{
	struct fixture *x = busy_sample(8);
	struct capture c;
	char *text;
	int lines;

	(void)state;
	lines = gf_mon_sample_print(&x->s, cap_open(&c), GF_MON_OUT_HEADER);
	text = cap_close(&c);
	if (getenv("SHOW"))
		fputs(text, stderr);
	assert_int_equal(lines, count_lines(text));
	if (widest_line(text) > GF_MON_PRINT_WIDTH)
		fail_msg("a line of %d columns:\n%s", widest_line(text), text);
	/* Two header lines, the time, 8 GPUs, 2 nodes, 2 disks, 2 NICs, the
	 * page cache, the process: 2 lines, its 8 GPUs on 3, placement, 4
	 * threads. */
	assert_int_equal(lines, 2 + 1 + 8 + 2 + 2 + 2 + 1 + 2 + 3 + 1 + 4);
	free(text);
	free(x);
}

/* The GPU row, column by column, at the widest figures: nothing cut. */
static void gpu_row_exact(void **state)
{
	struct fixture *x = busy_sample(1);
	struct capture c;
	char buf[256], *text;

	(void)state;
	gf_mon_sample_print(&x->s, cap_open(&c), GF_MON_OUT_HEADER);
	text = cap_close(&c);
	assert_string_equal(line_starting(text, "#gpu", buf, sizeof(buf)),
			    "#gpu  sm occ  tc   mem pcirx pcitx pcie nvlrx nvltx  nvl   pwr/lim    sm/mem throttle    xid     ecc");
	assert_string_equal(line_starting(text, "#idx", buf, sizeof(buf)),
			    "#idx   %   %   %   GiB  GB/s  GB/s %lim  GB/s  GB/s %lim         W       MHz            last cor/unc");
	assert_string_equal(line_starting(text, "   0", buf, sizeof(buf)),
			    "   0 100  46  80   141  55.3  12.3   88   450   449  100 1000/1200 1980/2619 pwr,hw+3     79  123k/2");
	free(text);
	free(x);
}

/* Missing figures are "-", and only they: a 0 is printed as 0. */
static void missing_is_dash_zero_is_zero(void **state)
{
	struct fixture *x = busy_sample(2);
	struct capture c;
	char buf[256], *text, *tok, *save = NULL;
	int fields = 0;

	(void)state;
	blind_gpu(&x->gpus[0], 0);
	x->gpus[1].sm_active = 0;
	x->gpus[1].pcie_rx_bps = x->gpus[1].pcie_tx_bps = 0;
	x->gpus[1].throttle_reasons = 0;
	x->gpus[1].xid_events = 0;
	x->gpus[1].ecc_corrected = x->gpus[1].ecc_uncorrected = 0;
	x->nodes[0].cpu_busy = NAN;
	x->nodes[0].mem_free = GF_MON_NONE;
	x->disks[0].read_bps = NAN;
	x->proc.cpu = NAN;
	gf_mon_sample_print(&x->s, cap_open(&c), 0);
	text = cap_close(&c);
	line_starting(text, "   0", buf, sizeof(buf));
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save), fields++)
		if (fields)
			assert_string_equal(tok, "-");
	assert_int_equal(fields, 16);
	assert_string_equal(line_starting(text, "   1", buf, sizeof(buf)),
			    "   1   0  46  80   141  0.00  0.00    0   450   449  100 1000/1200 1980/2619 none       none     0/0");
	assert_non_null(strstr(line_starting(text, " node0", buf, sizeof(buf)), "cpu     -"));
	assert_non_null(strstr(buf, "mem free      - of   1024 GiB"));
	assert_non_null(strstr(line_starting(text, " nvme0n1", buf, sizeof(buf)), "read      -"));
	assert_non_null(strstr(line_starting(text, " pid 4194303", buf, sizeof(buf)), "cpus busy     -"));
	free(text);
	free(x);
}

static void host_rows(void **state)
{
	struct fixture *x = busy_sample(1);
	struct capture c;
	char buf[256], *text;

	(void)state;
	gf_mon_sample_print(&x->s, cap_open(&c), 0);
	text = cap_close(&c);
	assert_string_equal(line_starting(text, " node1", buf, sizeof(buf)),
			    " node1          cpu  100%  iowait   13%  mem free   1000 of   1024 GiB");
	assert_string_equal(line_starting(text, " nvme0n1", buf, sizeof(buf)),
			    " nvme0n1        read  14100  write  13900 MB/s  util  100%  queue  1024    90% of 15.8 GB/s");
	/* A disk whose limit the model does not know: no "of" part. */
	assert_string_equal(line_starting(text, " a-very-long-de", buf, sizeof(buf)),
			    " a-very-long-de read   1.00  write   0.00 MB/s  util    1%  queue  0.02");
	assert_string_equal(line_starting(text, " mlx5_0/1", buf, sizeof(buf)),
			    " mlx5_0/1       rx   0.00  tx   0.00 MB/s     0% of 50.0 GB/s  (RDMA port)");
	assert_string_equal(line_starting(text, " pagecache", buf, sizeof(buf)),
			    " pagecache      cached   900G  dirty  3.00M  writeback      0  available  1.46T");
	assert_null(strstr(text, "exited"));
	assert_non_null(strstr(line_starting(text, " pid 4194303    gpus", buf, sizeof(buf)), "gpu0 sm 45% mem 12.0 GiB"));
	assert_string_equal(line_starting(text, " pid 4194303    threads", buf, sizeof(buf)),
			    " pid 4194303    threads ran on node 0-1, CPUs 218-223");
	assert_string_equal(line_starting(text, " tid 4194303", buf, sizeof(buf)),
			    " tid 4194303    pt_data_worker  cpu  100%  runq    5%  on CPU 223 node 0");
	/* Four threads at most, the busiest (first) ones. */
	assert_null(strstr(text, "tid 4194299"));
	x->proc.alive = false;
	free(text);
	gf_mon_sample_print(&x->s, cap_open(&c), 0);
	text = cap_close(&c);
	assert_string_equal(line_starting(text, " pid 4194303", buf, sizeof(buf)),
			    " pid 4194303    has exited; its last figures:");
	free(text);
	free(x);
}

/* A sample with no GPU figures says why, cut to the width. */
static void no_gpus(void **state)
{
	struct fixture *x = busy_sample(0);
	static const char why[] = "NVML not available: libnvidia-ml.so.1 not found (this message goes on well past "
				  "the hundredth column of a terminal, so it must be cut)";
	struct capture c;
	char buf[256], *text;

	(void)state;
	x->s.gpu_why = why;
	x->s.interval_s = 0;
	assert_int_equal(gf_mon_sample_print(&x->s, cap_open(&c), GF_MON_OUT_HEADER), 1 + 1 + 2 + 2 + 2 + 1 + 2 + 1 + 4);
	text = cap_close(&c);
	assert_null(strstr(text, "#gpu"));
	assert_int_equal(strlen(line_starting(text, "# no GPU figures: NVML not available", buf, sizeof(buf))),
			 GF_MON_PRINT_WIDTH);
	assert_non_null(strstr(line_starting(text, "# ", buf, sizeof(buf)), "levels only"));
	assert_true(widest_line(text) <= GF_MON_PRINT_WIDTH);
	free(text);
	free(x);
}

static void print_refuses(void **state)
{
	struct fixture *x = busy_sample(1);
	FILE *full;

	(void)state;
	assert_int_equal(gf_mon_sample_print(&x->s, stdout, 0x2), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "gf_mon_sample_print"));
	assert_int_equal(gf_mon_sample_write_csv(&x->s, stdout, 0x4), -EINVAL);
	full = fopen("/dev/full", "w");
	if (full) {
		setvbuf(full, NULL, _IONBF, 0);
		assert_int_equal(gf_mon_sample_print(&x->s, full, 0), -EIO);
		assert_int_equal(gf_mon_sample_write_json(&x->s, full), -EIO);
		assert_int_equal(gf_mon_sample_write_csv(&x->s, full, GF_MON_OUT_HEADER), -EIO);
		fclose(full);
	}
	free(x);
}

/* ---- JSON ---- */

static json_t *json_of(const struct gf_mon_sample *s)
{
	struct capture c;
	json_error_t e;
	json_t *j;
	char *text;

	assert_int_equal(gf_mon_sample_write_json(s, cap_open(&c)), 0);
	text = cap_close(&c);
	/* One line: JSON Lines. */
	assert_int_equal(count_lines(text), 1);
	assert_int_equal(text[strlen(text) - 1], '\n');
	j = json_loads(text, JSON_REJECT_DUPLICATES, &e);
	if (!j)
		fail_msg("not JSON (%s): %s", e.text, text);
	free(text);
	return j;
}

static void json_line(void **state)
{
	struct fixture *x = busy_sample(2);
	json_t *j, *g0, *g1;

	(void)state;
	blind_gpu(&x->gpus[1], 1);
	x->gpus[0].throttle_reasons = 0;
	x->gpus[0].throttle[0] = '\0';
	x->nodes[1].cpu_busy = NAN;
	j = json_of(&x->s);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), GF_MON_SCHEMA);
	assert_true(json_real_value(json_object_get(j, "t")) == 1800000000.25);
	assert_int_equal(json_integer_value(json_object_get(j, "interval_s")), 1);
	assert_true(json_is_null(json_object_get(j, "gpu_why")));
	g0 = json_array_get(json_object_get(j, "gpus"), 0);
	g1 = json_array_get(json_object_get(j, "gpus"), 1);
	assert_int_equal(json_array_size(json_object_get(j, "gpus")), 2);
	assert_true(json_real_value(json_object_get(g0, "sm_occupancy")) == 0.456);
	assert_int_equal(json_integer_value(json_object_get(g0, "pcie_rx_bps")), 55300000000LL);
	assert_int_equal(json_integer_value(json_object_get(g0, "mem_used")), 141LL << 30);
	assert_string_equal(json_string_value(json_object_get(g0, "pci")), "0000:18:00.0");
	/* No throttle reason is "", not null: the reasons were read. */
	assert_string_equal(json_string_value(json_object_get(g0, "throttle")), "");
	assert_int_equal(json_integer_value(json_object_get(g0, "last_xid")), 79);
	/* The blind GPU's figures are null (json_nulls has them all). */
	assert_true(json_is_null(json_object_get(g1, "sm_active")));
	assert_true(json_is_null(json_object_get(g1, "throttle")));
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "nodes"), 1), "cpu_busy")));
	assert_true(json_is_integer(json_object_get(json_object_get(j, "pagecache"), "cached")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "proc"), "pid")), 4194303);
	json_decref(j);
	free(x);
}

static void json_nulls(void **state)
{
	static const char *const nulls[] = { "sm_active", "sm_occupancy", "tensor_active", "dram_active", "mem_used",
					     "mem_total", "pcie_rx_bps", "pcie_limit_bps", "nvlink_tx_bps", "power_w",
					     "sm_clock_mhz", "mem_clock_mhz", "temperature_c", "throttle_reasons",
					     "throttle", "xid_events", "last_xid", "ecc_corrected", "proc_sm_share",
					     "proc_mem_used", "uuid", "pci", "name" };
	struct fixture *x = busy_sample(1);
	json_t *j, *g, *node, *th, *proc;

	(void)state;
	blind_gpu(&x->gpus[0], 0);
	x->nodes[1].cpu_busy = NAN;
	x->threads[0].node = -1;
	x->threads[0].last_cpu = -1;
	x->proc.cgroup[0] = '\0';
	x->s.pagecache = (struct gf_mon_pagecache){ 0, 0, 0, 0 };
	j = json_of(&x->s);
	g = json_array_get(json_object_get(j, "gpus"), 0);
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (!json_is_null(json_object_get(g, nulls[i])))
			fail_msg("gpus[0].%s is not null", nulls[i]);
	assert_int_equal(json_integer_value(json_object_get(g, "index")), 0);
	assert_string_equal(json_string_value(json_object_get(g, "activity_source")), "none");
	node = json_array_get(json_object_get(j, "nodes"), 1);
	assert_true(json_is_null(json_object_get(node, "cpu_busy")));
	assert_int_equal(json_integer_value(json_object_get(node, "node")), 1);
	proc = json_object_get(j, "proc");
	th = json_array_get(json_object_get(proc, "threads"), 0);
	assert_true(json_is_null(json_object_get(th, "node")));
	assert_true(json_is_null(json_object_get(th, "last_cpu")));
	assert_true(json_is_null(json_object_get(proc, "cgroup")));
	assert_int_equal(json_array_size(json_object_get(proc, "threads")), 6);
	/* A part not sampled: the page cache is null, not zeros. */
	assert_true(json_is_null(json_object_get(j, "pagecache")));
	json_decref(j);
	/* No process: proc is null. */
	x->s.proc = NULL;
	j = json_of(&x->s);
	assert_true(json_is_null(json_object_get(j, "proc")));
	json_decref(j);
	free(x);
}

/* ---- CSV ---- */

/* The fields of one CSV line (RFC 4180 quotes undone), as a json array of
 * strings, so a test can count and read them. */
static json_t *csv_fields(const char *line)
{
	json_t *a = json_array();
	char field[512];
	size_t n = 0;
	bool quoted = false;

	for (const char *p = line;; p++) {
		if (quoted) {
			if (*p == '"' && p[1] == '"')
				field[n++] = '"', p++;
			else if (*p == '"')
				quoted = false;
			else
				field[n++] = *p;
			continue;
		}
		if (*p == '"') {
			quoted = true;
		} else if (*p == ',' || *p == '\n' || !*p) {
			field[n] = '\0';
			json_array_append_new(a, json_string(field));
			n = 0;
			if (*p != ',')
				break;
		} else {
			field[n++] = *p;
		}
	}
	return a;
}

static const char *field_named(json_t *header, json_t *row, const char *name)
{
	for (size_t i = 0; i < json_array_size(header); i++)
		if (!strcmp(json_string_value(json_array_get(header, i)), name))
			return json_string_value(json_array_get(row, i));
	fail_msg("no column %s", name);
	return NULL;
}

static void csv_header_matches_rows(void **state)
{
	struct fixture *x = busy_sample(4);
	struct capture c;
	json_t *header, *row;
	char *text, *second;

	(void)state;
	blind_gpu(&x->gpus[3], 3);
	gf_mon_sample_write_csv(&x->s, cap_open(&c), GF_MON_OUT_HEADER);
	gf_mon_sample_write_csv(&x->s, c.f, 0);
	text = cap_close(&c);
	assert_int_equal(count_lines(text), 3);
	second = strchr(text, '\n') + 1;
	header = csv_fields(text);
	row = csv_fields(second);
	assert_int_equal(json_array_size(header), json_array_size(row));
	json_decref(row);
	row = csv_fields(strchr(second, '\n') + 1);
	assert_int_equal(json_array_size(header), json_array_size(row));
	assert_string_equal(json_string_value(json_array_get(header, 0)), "t");
	assert_string_equal(field_named(header, row, "t"), "1800000000.25");
	assert_string_equal(field_named(header, row, "gpu0.sm_occupancy"), "0.456");
	assert_string_equal(field_named(header, row, "gpu0.pcie_rx_bps"), "55300000000");
	assert_string_equal(field_named(header, row, "gpu0.throttle"),
			    "gpu_idle,sw_power_cap,hw_slowdown,sw_thermal,hw_thermal");
	/* Missing is an empty field, never 0. */
	assert_string_equal(field_named(header, row, "gpu3.sm_active"), "");
	assert_string_equal(field_named(header, row, "gpu3.mem_used"), "");
	assert_string_equal(field_named(header, row, "gpu3.temperature_c"), "");
	assert_string_equal(field_named(header, row, "node1.mem_free"), "1073741824000");
	assert_string_equal(field_named(header, row, "disk.nvme0n1.busy"), "1");
	assert_string_equal(field_named(header, row, "disk.a-very-long-device-mapper-name-x.limit_bps"), "");
	/* A name with a comma is quoted, in the header and in a value. */
	assert_string_equal(field_named(header, row, "nic.enp1s0f0np0,x.rx_bps"), "49900000000");
	assert_string_equal(field_named(header, row, "rdma.mlx5_0/1.tx_bps"), "2000");
	assert_string_equal(field_named(header, row, "proc.cgroup"), "/kubepods.slice/pod,1");
	assert_string_equal(field_named(header, row, "pagecache.dirty"), "3145728");
	/* Identity is in the column name, not a column. */
	for (size_t i = 0; i < json_array_size(header); i++) {
		const char *h = json_string_value(json_array_get(header, i));

		assert_null(strstr(h, ".uuid"));
		assert_null(strstr(h, ".threads"));
	}
	json_decref(header);
	json_decref(row);
	free(text);
	free(x);
}

/* ---- the sampler's samples: the stand-in NVML's four H200s ---- */

static double now_s;

static void tick(void *arg, double *mono, double *real)
{
	(void)arg;
	*mono = now_s;
	*real = 1800000000 + now_s;
}

/* The sampler on the h200x4-vm recording read as a live machine, NVML the
 * stand-in's with every figure set: what `gpufeed watch` prints on the lent
 * 4 x H200 machines, within 100 columns. */
static void stand_in_h200s(void **state)
{
	static const char *const knobs[] = { "FAKE_NVML_GPM", "FAKE_NVML_THROTTLE", "FAKE_NVML_XID", "FAKE_NVML_PROCS" };
	struct gf_monitor_opts o = GF_MONITOR_OPTS_INIT;
	struct gf_mon_hooks h = { .root_is_live = true, .clock = tick };
	const struct gf_mon_sample *s;
	struct gf_monitor *m = NULL;
	struct capture c;
	char *vm = t_mkdtemp(), *text, buf[256];
	json_t *j;
	int lines;

	(void)state;
	t_use_fakes();
	gf_nvml_unload();
	t_copytree(t_fixture_root("h200x4-vm"), vm);
	t_write(vm, "proc/857/stat", "857 (python3) S 1 857 857 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0\n");
	setenv("FAKE_NVML_GPM", "97.5,41.2,62,55,12000,430,200000,199000", 1);
	setenv("FAKE_NVML_THROTTLE", "0xc5", 1);
	setenv("FAKE_NVML_XID", "1:79", 1);
	setenv("FAKE_NVML_PROCS", "857:0:30:1000000000", 1);
	o.root = vm;
	o.parts = GF_MON_GPU | GF_MON_PROC;
	o.pid = 857;
	now_s = 100;
	if (gf_monitor_open_hooked(&o, &h, &m))
		fail_msg("gf_monitor_open: %s", gf_last_error());
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	now_s += 1;
	assert_int_equal(gf_monitor_sample(m, &s), 0);
	assert_int_equal(s->ngpus, 4);
	lines = gf_mon_sample_print(s, cap_open(&c), GF_MON_OUT_HEADER);
	text = cap_close(&c);
	if (getenv("SHOW"))
		fputs(text, stderr);
	/* The header, the time, 4 GPUs, the process's two rows and its one
	 * GPU (the three it does not use are left out). */
	assert_int_equal(lines, 2 + 1 + 4 + 2 + 1);
	if (widest_line(text) > GF_MON_PRINT_WIDTH)
		fail_msg("a line of %d columns:\n%s", widest_line(text), text);
	/* GPM's MiB/s as GB/s beside the model's limits (PCIe Gen5 x16, NV18). */
	assert_string_equal(line_starting(text, "   1", buf, sizeof(buf)),
			    "   1  98  41  62  0.00  12.6  0.45   20   210   209   47   350/700 1980/3201 pwr,hwth+2   79     0/0");
	assert_non_null(strstr(line_starting(text, "   3", buf, sizeof(buf)), "none     5/0"));
	/* Its SM share was delivered once, with the first sample: 0 since. */
	assert_string_equal(line_starting(text, " pid 857        gpus", buf, sizeof(buf)),
			    " pid 857        gpus  gpu0 sm 0% mem 0.93 GiB");
	free(text);
	j = json_of(s);
	assert_int_equal(json_array_size(json_object_get(j, "gpus")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "proc_mem_used")),
			 1000000000);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "gpus"), 2), "throttle")),
			    s->gpus[2].throttle);
	json_decref(j);
	gf_monitor_close(m);
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		unsetenv(knobs[i]);
	gf_nvml_unload();
	t_rmtree(vm);
	free(vm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_fits_100_columns),
		cmocka_unit_test(gpu_row_exact),
		cmocka_unit_test(missing_is_dash_zero_is_zero),
		cmocka_unit_test(host_rows),
		cmocka_unit_test(no_gpus),
		cmocka_unit_test(print_refuses),
		cmocka_unit_test(json_line),
		cmocka_unit_test(json_nulls),
		cmocka_unit_test(csv_header_matches_rows),
		cmocka_unit_test(stand_in_h200s),
	};

	return cmocka_run_group_tests_name("monitor_output", tests, NULL, NULL);
}
