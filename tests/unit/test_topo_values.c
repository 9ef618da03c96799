/* Values discovery reads from sysfs, procfs and nvml.json that parse but
 * cannot be true (issue 7, items 6, 10 and 11): each is reported as a
 * warning naming the file and the value, and taken as unknown, never as a
 * number; and no input file, however large, costs more than a bounded
 * amount of work. */
#include "helpers.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpufeed/gpufeed.h>
#include "core/fs.h"
#include "core/strutil.h"
#include "topo/topo_internal.h"
#include "vendor/nvml/nvml_facts.h"

/* Sanitizers slow everything down: time bounds apply to plain builds. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* A copy of a fixture to break; the caller removes and frees it. */
static char *copy_of(const char *machine)
{
	char *dir = t_mkdtemp();

	t_copytree(t_fixture_root(machine), dir);
	return dir;
}

static void drop(char *dir)
{
	t_rmtree(dir);
	free(dir);
}

static struct gf_topo *discover(const char *root)
{
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t = NULL;

	o.root = root;

	if (gf_topo_discover(&o, &t))
		fail_msg("%s: %s", root, gf_last_error());
	return t;
}

/* A warning that holds every one of the given pieces (file and value). */
static bool warned(const struct gf_topo *t, const char *a, const char *b)
{
	for (int i = 0; i < t->nwarnings; i++)
		if (strstr(t->warnings[i], a) && (!b || strstr(t->warnings[i], b)))
			return true;
	return false;
}

static void dump_warnings(const struct gf_topo *t)
{
	for (int i = 0; i < t->nwarnings; i++)
		print_message("  warning: %s\n", t->warnings[i]);
}

#define assert_warned(t, a, b)                                            \
	do {                                                              \
		if (!warned((t), (a), (b))) {                             \
			dump_warnings(t);                                 \
			fail_msg("no warning with '%s' and '%s'", (a), (b) ? (b) : ""); \
		}                                                         \
	} while (0)

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static int pci_index(const struct gf_topo *t, const char *bdf)
{
	for (int i = 0; i < t->npci; i++)
		if (!strcmp(t->pci[i].bdf, bdf))
			return i;
	fail_msg("no PCI device %s", bdf);
	return -1;
}

/* One copy of the 8-GPU recording for the tests below (copying its
 * 17,000 files per test would cost more than the tests): each test
 * changes files through put(), and the teardown puts the originals back. */
static char *hgx;

struct saved {
	char rel[256];
	char *data;
	size_t len;
};
static struct saved saved[32];
static int nsaved;

static void keep(const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	for (int i = 0; i < nsaved; i++)
		if (!strcmp(saved[i].rel, rel))
			return;
	assert_true(nsaved < (int)(sizeof(saved) / sizeof(saved[0])));
	snprintf(path, sizeof(path), "%s/%s", hgx, rel);
	assert_int_equal(stat(path, &st), 0);
	gf_strlcpy(saved[nsaved].rel, rel, sizeof(saved[0].rel));
	saved[nsaved].data = t_read(path);
	saved[nsaved].len = (size_t)st.st_size;
	assert_non_null(saved[nsaved].data);
	nsaved++;
}

static void put_bytes(const char *rel, const void *data, size_t len)
{
	keep(rel);
	t_write_bytes(hgx, rel, data, len);
}

static void put(const char *rel, const char *text)
{
	put_bytes(rel, text, strlen(text));
}

static int restore(void **state)
{
	(void)state;
	for (int i = 0; i < nsaved; i++) {
		t_write_bytes(hgx, saved[i].rel, saved[i].data, saved[i].len);
		free(saved[i].data);
	}
	nsaved = 0;
	return 0;
}

static int copy_hgx(void **state)
{
	(void)state;
	hgx = copy_of("hgx-h100-8gpu");
	return 0;
}

static int drop_hgx(void **state)
{
	(void)state;
	drop(hgx);
	return 0;
}

/* ---- item 6: bounded work per input file ---- */

/* Just under the 16 MiB the read layer accepts: "0-8191,0-8191,...". */
static void write_huge_cpulist(const char *dir, const char *rel)
{
	const char unit[] = "0-8191,";
	size_t n = (16u << 20) - 4096, len = 0;
	char *buf = malloc(n + 8);

	assert_non_null(buf);
	while (len + sizeof(unit) - 1 < n) {
		memcpy(buf + len, unit, sizeof(unit) - 1);
		len += sizeof(unit) - 1;
	}
	memcpy(buf + len, "0\n", 2);
	t_write_bytes(dir, rel, buf, len + 2);
	free(buf);
}

static void huge_cpulists_are_bounded(void **state)
{
	const char *dev = "sys/devices/pci0000:00/0000:00:01.0";
	const char *files[] = {
		"sys/devices/pci0000:00/0000:00:01.0/local_cpulist",
		"sys/devices/system/node/node0/cpulist",
		"sys/devices/system/cpu/cpu0/topology/thread_siblings_list",
	};
	char *dir = copy_of("ci-vm");
	struct gf_topo *t;
	double t0, used;

	(void)state;
	(void)dev;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		write_huge_cpulist(dir, files[i]);
	t0 = cpu_seconds();
	t = discover(dir);
	used = cpu_seconds() - t0;
	print_message("three 16 MiB CPU lists: %.3f s of CPU\n", used);
	/* Before the bound: about 30 s of CPU per file. */
	assert_true(used < 5.0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		assert_warned(t, files[i], "longer than");
	assert_false(t->pci[pci_index(t, "0000:00:01.0")].local_cpus_known);
	assert_int_equal(t->cpus.ncpu, 2);
	gf_topo_free(t);
	drop(dir);
}

/* The parser itself is linear in its text: a range costs its words, not
 * its CPUs, so the longest list a file may hold parses at once. */
static void cpulist_parse_is_linear(void **state)
{
	const char unit[] = "0-8191,";
	size_t n = 1u << 20, len = 0;
	char *buf = malloc(n + 8);
	struct gf_cpuset s;
	double t0, used;

	(void)state;
	assert_non_null(buf);
	while (len + sizeof(unit) - 1 < n) {
		memcpy(buf + len, unit, sizeof(unit) - 1);
		len += sizeof(unit) - 1;
	}
	strcpy(buf + len, "8191");
	t0 = cpu_seconds();
	assert_int_equal(gf_cpuset_parse_list(&s, buf), 0);
	used = cpu_seconds() - t0;
	print_message("1 MiB of '0-8191,': %.3f s of CPU\n", used);
	assert_int_equal(gf_cpuset_count(&s), GF_CPUSET_MAX);
	/* 150,000 ranges of 8192 CPUs: 1.2e9 bit sets before, 2e7 word
	 * stores now. */
	assert_true(used < (SANITIZED ? 5.0 : 1.0));
	free(buf);
}


/* ---- item 10: values that parse but cannot be true ---- */

#define GPU0 "sys/devices/pci0000:18/0000:18:01.0/0000:19:00.0/0000:1a:00.0/0000:1b:00.0"
#define NIC0 "sys/devices/pci0000:18/0000:18:01.0/0000:19:00.0/0000:1a:01.0/0000:1c:00.0"
#define ETH0 "sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0"
#define NVME0 "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0/nvme0n1"

/* Writes `value` to rel in the copy, discovers, and checks that a warning names
 * the file and the value; the caller checks what became of it. */
static struct gf_topo *with_value(const char *rel, const char *value, const char *shown)
{
	struct gf_topo *t;

	put(rel, value);
	t = discover(hgx);
	assert_warned(t, rel, shown);
	return t;
}

static void link_speeds_that_are_not(void **state)
{
	static const char *bad[] = { "nan GT/s PCIe", "inf GT/s PCIe", "-16.0 GT/s PCIe", "1e300 GT/s PCIe",
				     "17.5 GT/s PCIe", "16.0 GT/s PCIe junk", "0x10p0 GT/s PCIe" };
	const char *rel = GPU0 "/max_link_speed";

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[64];
		struct gf_topo *t;

		snprintf(line, sizeof(line), "%s\n", bad[i]);
		t = with_value(rel, line, bad[i]);
		assert_true(t->pci[pci_index(t, "0000:1b:00.0")].link.max_gts == 0);
		gf_topo_free(t);
	}
	/* Widths too: 16 is one, 7 is not. */
	put(rel, "32.0 GT/s PCIe\n");
	{
		struct gf_topo *t = with_value(GPU0 "/max_link_width", "7\n", "7");

		assert_int_equal(t->pci[pci_index(t, "0000:1b:00.0")].link.max_width, 0);
		gf_topo_free(t);
	}
}

static void numa_node_that_does_not_exist(void **state)
{
	struct gf_topo *t;

	(void)state;
	t = with_value(GPU0 "/numa_node", "5000\n", "5000");
	assert_int_equal(t->pci[pci_index(t, "0000:1b:00.0")].numa_node, -1);
	gf_topo_free(t);
	/* Two nodes: 0 and 1.  Node 2 is as absent as node 5000. */
	t = with_value(GPU0 "/numa_node", "2\n", "2 is not a NUMA node");
	assert_int_equal(t->pci[pci_index(t, "0000:1b:00.0")].numa_node, -1);
	gf_topo_free(t);
}

static void cpus_that_are_not_there(void **state)
{
	struct gf_topo *t;

	(void)state;
	/* 224 CPUs possible: "0-8191" online does not make 8192. */
	t = with_value("sys/devices/system/cpu/online", "0-8191\n", "224-8191");
	assert_int_equal(t->cpus.ncpu, 224);
	gf_topo_free(t);
	put("sys/devices/system/cpu/online", "0-223\n");
	/* A device's local CPUs naming absent ones: unknown, not a guess. */
	t = with_value(GPU0 "/local_cpulist", "0-55,300\n", "300");
	assert_false(t->pci[pci_index(t, "0000:1b:00.0")].local_cpus_known);
	gf_topo_free(t);
	put(GPU0 "/local_cpulist", "0-55,112-167\n");
	t = with_value("sys/devices/system/node/node1/cpulist", "56-111,168-240\n", "224-240");
	assert_true(gf_cpuset_empty(&t->numa.node[1].cpus));
	gf_topo_free(t);
	put("sys/devices/system/node/node1/cpulist", "56-111,168-223\n");
	t = with_value("sys/devices/system/cpu/cpu0/topology/physical_package_id", "99999\n", "99999");
	assert_int_equal(t->cpus.cpu[0].package, -1);
	gf_topo_free(t);
}

static const struct gf_block *block(const struct gf_topo *t, const char *name)
{
	for (int i = 0; i < t->nblocks; i++)
		if (!strcmp(t->blocks[i].name, name))
			return &t->blocks[i];
	fail_msg("no block device %s", name);
	return NULL;
}

static void sizes_that_are_not(void **state)
{
	struct gf_topo *t;

	(void)state;
	t = with_value(NVME0 "/size", "-8\n", "-8");
	assert_true(block(t, "nvme0n1")->size_bytes == 0);
	gf_topo_free(t);
	/* Sectors times 512 would overflow. */
	t = with_value(NVME0 "/size", "9223372036854775807\n", "9223372036854775807");
	assert_true(block(t, "nvme0n1")->size_bytes == 0);
	gf_topo_free(t);
	put(NVME0 "/size", "7501476528\n");
	t = with_value(NVME0 "/queue/read_ahead_kb", "-128\n", "-128");
	assert_int_equal(block(t, "nvme0n1")->read_ahead_kb, -1);
	assert_true(block(t, "nvme0n1")->size_bytes == 7501476528ull * 512);
	gf_topo_free(t);
}

static void memtotal_that_overflows(void **state)
{
	struct gf_topo *t;

	(void)state;
	/* 2^54 kB is 2^64 bytes. */
	t = with_value("proc/meminfo", "MemTotal:       18014398509481984 kB\nMemFree: 1 kB\n",
		       "18014398509481984");
	assert_true(t->machine.memory_bytes == 0);
	gf_topo_free(t);
	t = with_value("proc/meminfo", "MemTotal:       12abc kB\n", "12abc");
	assert_true(t->machine.memory_bytes == 0);
	gf_topo_free(t);
	t = with_value("sys/devices/system/node/node1/meminfo",
		       "Node 1 MemTotal:       36028797018963968 kB\n", "36028797018963968");
	assert_true(t->numa.node[1].memory_bytes == 0);
	assert_true(t->numa.node[0].memory_bytes > 0);
	gf_topo_free(t);
}

/* "1\0junk" is not 1: a NUL inside a value is refused with the file. */
static void nul_inside_a_number(void **state)
{
	struct gf_fs fs;
	struct gf_topo *t;
	long long v = -7;

	(void)state;
	put_bytes(GPU0 "/numa_node", "1\0junk\n", 7);
	t = discover(hgx);
	assert_warned(t, GPU0 "/numa_node", "NUL");
	assert_int_equal(t->pci[pci_index(t, "0000:1b:00.0")].numa_node, -1);
	gf_topo_free(t);
	assert_int_equal(gf_fs_init(&fs, hgx), 0);
	assert_int_equal(gf_fs_read_ll(&fs, "/" GPU0 "/numa_node", &v), -EBADMSG);
	assert_int_equal(v, -7);
	assert_non_null(strstr(gf_last_error(), GPU0 "/numa_node"));
	/* Trailing NULs (some firmware strings end in one) are white space. */
	put_bytes(GPU0 "/numa_node", "1\n\0", 3);
	assert_int_equal(gf_fs_read_ll(&fs, "/" GPU0 "/numa_node", &v), 0);
	assert_int_equal(v, 1);
	gf_fs_fini(&fs);
}

static void line_rates_that_are_not(void **state)
{
	struct gf_topo *t;

	(void)state;
	t = with_value(ETH0 "/net/ens21f0np0/speed", "99999999999\n", "99999999999");
	for (int i = 0; i < t->nnics; i++)
		if (!strcmp(t->pci[t->nics[i].pci].bdf, "0000:02:00.0"))
			assert_true(t->nics[i].speed_mbps < 99999999999LL);	/* its RDMA port's */
	gf_topo_free(t);
	t = with_value(NIC0 "/infiniband/mlx5_0/ports/1/rate", "inf Gb/sec (4X NDR)\n", "inf Gb/sec");
	for (int i = 0; i < t->nnics; i++)
		if (!strcmp(t->nics[i].rdma, "mlx5_0"))	/* ib0's, not infinity's */
			assert_true(t->nics[i].speed_mbps > 0 && t->nics[i].speed_mbps <= 10000000);
	gf_topo_free(t);
}

/* nvml.json: load, change, save, discover. */
static struct gf_nvml_facts *facts_of(void)
{
	struct gf_nvml_facts *f;
	char path[PATH_MAX];

	keep("nvml.json");
	snprintf(path, sizeof(path), "%s/nvml.json", hgx);
	assert_int_equal(gf_nvml_facts_load(path, &f), 0);
	return f;
}

static void save_facts(struct gf_nvml_facts *f)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/nvml.json", hgx);
	assert_int_equal(gf_nvml_facts_save(f, path), 0);
	gf_nvml_facts_free(f);
}

static void replace_in_file(const char *rel, const char *from, const char *to)
{
	char path[PATH_MAX], *text, *at, *out;

	snprintf(path, sizeof(path), "%s/%s", hgx, rel);
	text = t_read(path);
	assert_non_null(text);
	at = strstr(text, from);
	assert_non_null(at);
	out = malloc(strlen(text) + strlen(to) + 1);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	put(rel, out);
	free(out);
	free(text);
}

static const struct gf_gpu *gpu_at(const struct gf_topo *t, const char *bdf)
{
	for (int i = 0; i < t->ngpus; i++)
		if (!strcmp(t->gpus[i].bdf, bdf))
			return &t->gpus[i];
	fail_msg("no GPU at %s", bdf);
	return NULL;
}

static void nvml_indices_that_are_not(void **state)
{
	struct gf_nvml_facts *f = facts_of();
	struct gf_topo *t;
	char bdf[16];

	(void)state;
	/* An index beyond the GPUs there are: none of them is trusted. */
	gf_strlcpy(bdf, f->gpus[3].pci, sizeof(bdf));
	f->gpus[3].index = 5000;
	save_facts(f);
	t = discover(hgx);
	assert_warned(t, "nvml.json", "index 5000");
	assert_int_equal(t->ngpus, 8);
	for (int i = 0; i < t->ngpus; i++) {
		assert_int_equal(t->gpus[i].index, i);
		assert_int_equal(t->gpus[i].index_source, GF_SRC_PCI_ORDER);
	}
	assert_int_equal(gpu_at(t, bdf)->index, 3);
	gf_topo_free(t);
	/* Two GPUs with one index: refused, the file named. */
	f = facts_of();
	f->gpus[3].index = 3;
	f->gpus[4].index = 3;
	save_facts(f);
	{
		struct gf_topo_options o = GF_TOPO_OPTS_INIT;

		o.root = hgx;
		t = NULL;
		assert_int_equal(gf_topo_discover(&o, &t), -EBADMSG);
		assert_null(t);
		assert_non_null(strstr(gf_last_error(), "nvml.json"));
	}
}

static void nvml_links_that_are_not(void **state)
{
	struct gf_nvml_facts *f = facts_of();
	struct gf_nvml_link *more;
	struct gf_topo *t;
	char g0[16], g1[16], g2[16];

	(void)state;
	gf_strlcpy(g0, f->gpus[0].pci, sizeof(g0));
	gf_strlcpy(g1, f->gpus[1].pci, sizeof(g1));
	gf_strlcpy(g2, f->gpus[2].pci, sizeof(g2));
	/* GPU0: 40 links, more than NVML has. */
	more = calloc(40, sizeof(*more));
	for (int k = 0; k < 40; k++) {
		more[k] = f->gpus[0].links[0];
		more[k].link = k % 18;
	}
	free(f->gpus[0].links);
	f->gpus[0].links = more;
	f->gpus[0].nlinks = 40;
	/* GPU1: versions that are none; GPU2: 0, NVML's "invalid". */
	for (int k = 0; k < f->gpus[1].nlinks; k++)
		f->gpus[1].links[k].version = 99;
	for (int k = 0; k < f->gpus[2].nlinks; k++)
		f->gpus[2].links[k].version = -2;
	f->gpus[3].minor = 300;
	f->gpus[3].pcie_cur_gen = 42;
	f->gpus[3].pcie_max_width = 13;
	gf_cpuset_set(&f->gpus[4].cpu_affinity, 500);
	save_facts(f);
	replace_in_file("nvml.json", "\"version\": -2", "\"version\": 0");
	t = discover(hgx);
	assert_warned(t, "nvml.json", "40 links");
	assert_int_equal(gpu_at(t, g0)->nvlinks_active, -1);
	assert_warned(t, "nvml.json", "99 is not an NVLink version");
	assert_warned(t, "nvml.json", "0 is not an NVLink version");
	assert_int_equal(gpu_at(t, g1)->nvlink_version, 0);
	assert_int_equal(gpu_at(t, g2)->nvlink_version, 0);
	assert_warned(t, "gpus[3].minor", "300");
	assert_warned(t, "gpus[3].pcie.cur_gen", "42");
	assert_warned(t, "gpus[3].pcie.max_width", "13");
	assert_warned(t, "nvml.json", "CPUs 500");
	gf_topo_free(t);
}


/* ---- item 11: PCI discovery scales with the number of devices ---- */

#define MANY 60000

/* Device i: bus i/256, dev.fn i%256.  Function 00.0 of each bus sits on
 * a host bridge of 16 buses; the bus's other functions sit below it. */
static void many_addr(int i, char *bdf, size_t size)
{
	snprintf(bdf, size, "0000:%02x:%02x.%x", i / 256, (i % 256) >> 3, i & 7);
}

static void many_path(int i, char *path, size_t size)
{
	char bdf[16], top[16];

	many_addr(i, bdf, sizeof(bdf));
	many_addr(i & ~255, top, sizeof(top));
	if (i % 256)
		snprintf(path, size, "/sys/devices/pci0000:%02x/%s/%s", (i / 256) & ~15, top, bdf);
	else
		snprintf(path, size, "/sys/devices/pci0000:%02x/%s", (i / 256) & ~15, bdf);
}

/* The lookups every discovery step makes, on a model built in memory:
 * 60,000 of each took minutes while they scanned every device. */
static void pci_lookups_scale(void **state)
{
	struct gf_topo t = { 0 };
	double t0, used;

	(void)state;
	t.pci = calloc(MANY, sizeof(*t.pci));
	assert_non_null(t.pci);
	t.npci = MANY;
	for (int i = 0; i < MANY; i++) {
		many_addr(i, t.pci[i].bdf, sizeof(t.pci[i].bdf));
		many_path(i, t.pci[i].path, sizeof(t.pci[i].path));
	}
	t0 = cpu_seconds();
	for (int i = 0; i < MANY; i++) {
		char below[300];

		assert_int_equal(gf_pci_find(&t, t.pci[i].bdf), i);
		snprintf(below, sizeof(below), "%s/net/eth%d", t.pci[i].path, i);
		assert_int_equal(gf_pci_for_path(&t, below), i);
		assert_int_equal(gf_pci_for_path(&t, t.pci[i].path), i);
	}
	used = cpu_seconds() - t0;
	print_message("%d finds and %d path lookups: %.3f s of CPU\n", MANY, 2 * MANY, used);
	/* Linear scans: about 5e9 string compares.  Binary searches: 3e6. */
	assert_true(used < (SANITIZED ? 10.0 : 2.0));
	assert_int_equal(gf_pci_find(&t, "0000:ff:00.0"), -1);
	assert_int_equal(gf_pci_for_path(&t, "/sys/devices/pci0000:00/0000:00:00.0x"), -1);
	assert_int_equal(gf_pci_for_path(&t, "/sys/devices/virtual/net/lo"), -1);
	free(t.pci);
}

static double user_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
}

/* End to end: a recording of 60,000 PCI functions. */
static void many_pci_devices(void **state)
{
	char *dir = t_mkdtemp(), path[PATH_MAX], rel[PATH_MAX], bdf[16];
	struct gf_topo *t;
	double t0, used;

	(void)state;
	t_write(dir, "sys/devices/system/cpu/online", "0-3\n");
	for (int i = 0; i < MANY; i++) {
		char hb[PATH_MAX], target[PATH_MAX];

		snprintf(hb, sizeof(hb), "%s/sys/devices/pci0000:%02x", dir, (i / 256) & ~15);
		if (i % 4096 == 0)
			assert_int_equal(mkdir(hb, 0755), 0);
		many_path(i, rel, sizeof(rel));
		snprintf(path, sizeof(path), "%s%s", dir, rel);
		assert_int_equal(mkdir(path, 0755), 0);
		/* sys/bus/pci/devices/X -> ../../../devices/pci.../X */
		snprintf(target, sizeof(target), "../../..%s", rel + strlen("/sys"));
		many_addr(i, bdf, sizeof(bdf));
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", bdf);
		t_symlink(dir, rel, target);
	}
	t0 = user_seconds();
	t = discover(dir);
	used = user_seconds() - t0;
	print_message("%d PCI functions: %.3f s of user CPU\n", MANY, used);
	assert_int_equal(t->npci, MANY);
	assert_int_equal(t->nhost_bridges, (MANY / 256 + 15) / 16);
	for (int i = 0; i < MANY; i += 997) {
		const struct gf_pci_dev *d = &t->pci[i];

		many_addr(i, bdf, sizeof(bdf));
		assert_string_equal(d->bdf, bdf);
		assert_int_equal(d->parent, i % 256 ? (i & ~255) : -1);
		assert_int_equal(d->depth, i % 256 ? 1 : 0);
		snprintf(path, sizeof(path), "pci0000:%02x", (i / 256) & ~15);
		assert_string_equal(t->host_bridges[d->host_bridge].name, path);
	}
	/* Quadratic, this was 5.5 s; the system time of opening 600,000
	 * files is not counted. */
	if (!SANITIZED)
		assert_true(used < 2.0);
	gf_topo_free(t);
	t_rmtree(dir);
	free(dir);
}

#define hgx_test(f) cmocka_unit_test_teardown(f, restore)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(huge_cpulists_are_bounded),
		cmocka_unit_test(cpulist_parse_is_linear),
		cmocka_unit_test(pci_lookups_scale),
		cmocka_unit_test(many_pci_devices),
		hgx_test(link_speeds_that_are_not),
		hgx_test(numa_node_that_does_not_exist),
		hgx_test(cpus_that_are_not_there),
		hgx_test(sizes_that_are_not),
		hgx_test(memtotal_that_overflows),
		hgx_test(nul_inside_a_number),
		hgx_test(line_rates_that_are_not),
		hgx_test(nvml_indices_that_are_not),
		hgx_test(nvml_links_that_are_not),
	};

	return cmocka_run_group_tests_name("topo_values", tests, copy_hgx, drop_hgx);
}
