/* Memory and OS checks (docs/checks.md, "Memory and OS", which names each
 * one's public source). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "audit/audit_internal.h"
#include "audit/cmdline.h"

#define KIB 1024ULL
#define GIB (1024ULL * 1024 * 1024)

/* Swap in use lets the kernel page out a data loader's pinned staging or a
 * trainer's host memory: every fault then stalls the GPU. */
static void run_swap(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char *data = NULL;
	size_t len;
	int devices = 0;

	if (audit_read(c, r, "/proc/swaps", &data, &len))
		return;
	/* Header line, then one line per active swap area. */
	for (char *p = strchr(data, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
		devices++;
	free(data);
	audit_observed(r, devices ? "%d swap area%s active" : "no swap", devices, devices == 1 ? "" : "s");
	audit_expected(r, "no swap");
	if (devices) {
		audit_status(r, GF_CHECK_FAIL);
		audit_fix(r, "swapoff -a");
		audit_persist(r, "remove swap lines from /etc/fstab; systemctl mask the *.swap units");
		r->fix_class = GF_FIX_ADVICE;
	}
}

static void run_swappiness(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	long long v;

	if (audit_read_ll(c, r, "/proc/sys/vm/swappiness", &v))
		return;
	audit_observed(r, "%lld", v);
	audit_expected(r, "<= 10");
	if (v > 10) {
		audit_status(r, GF_CHECK_WARN);
		audit_sysctl_fix(r, "vm.swappiness", "10");
	}
}

/* ---- transparent huge pages ---- */

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

/* Training wants THP (fewer TLB misses on big host buffers); inference wants no THP on faults it did not ask for (compaction
 * pauses), so madvise or never. */
static bool thp_ok(enum gf_profile p, const char *mode)
{
	if (p == GF_PROFILE_INFERENCE)
		return !strcmp(mode, "madvise") || !strcmp(mode, "never");
	return !strcmp(mode, "always") || !strcmp(mode, "madvise");
}

static void thp_persist(struct gf_check_result *r, const char *file, const char *want, const char *cmdline)
{
	char line[256];

	if (cmdline) {
		/* A boot-time value elsewhere would fight the command line. */
		audit_persist(r, "set transparent_hugepage=%s on the kernel command line (it says %s there)", want,
			      cmdline);
		audit_safe_fix(r, file, want, NULL, NULL);
		return;
	}
	snprintf(line, sizeof(line), "w %s - - - - %s", file, want);
	audit_safe_fix(r, file, want, GF_PERSIST_TMPFILES, line);
}

static void run_thp(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	const char *want = c->profile == GF_PROFILE_INFERENCE ? "madvise" : "always";
	char text[128], mode[32], boot[32];
	bool has_boot = audit_cmdline_param(c, "transparent_hugepage", boot, sizeof(boot)) == 1;

	if (audit_read_str(c, r, THP_DIR "/enabled", text, sizeof(text)))
		return;
	audit_selected(text, mode, sizeof(mode));
	audit_expected(r, c->profile == GF_PROFILE_INFERENCE ? "madvise or never" : "always or madvise");
	if (has_boot) {
		audit_observed(r, "%s (kernel command line: transparent_hugepage=%s)", mode, boot);
		audit_source(r, THP_DIR "/enabled; /proc/cmdline");
	} else {
		audit_observed(r, "%s", mode);
	}
	if (!thp_ok(c->profile, mode)) {
		audit_status(r, GF_CHECK_WARN);
		thp_persist(r, THP_DIR "/enabled", want, has_boot ? boot : NULL);
	} else if (has_boot && strcmp(boot, mode) && !thp_ok(c->profile, boot)) {
		/* Right now, wrong after the next boot. */
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "the kernel command line sets %s again at the next boot", boot);
		audit_fix(r, "edit transparent_hugepage= on the kernel command line");
		audit_persist(r, "set transparent_hugepage=%s on the kernel command line", mode);
		r->fix_class = GF_FIX_ADVICE;
	}
}

/* defrag=always makes every THP fault compact memory synchronously: pauses
 * that hurt inference's latency, and stalls of the loader in training. */
static void run_thp_defrag(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char text[128], mode[32], enabled[32];

	if (audit_read_str(c, r, THP_DIR "/defrag", text, sizeof(text)))
		return;
	audit_selected(text, mode, sizeof(mode));
	audit_observed(r, "%s", mode);
	audit_expected(r, "madvise, defer, defer+madvise or never (not always)");
	if (!audit_peek_str(c, THP_DIR "/enabled", text, sizeof(text))) {
		audit_selected(text, enabled, sizeof(enabled));
		if (!strcmp(enabled, "never")) {
			audit_note(r, "THP is off (enabled: never): defrag does not apply");
			return;
		}
	}
	if (!strcmp(mode, "always")) {
		audit_status(r, GF_CHECK_WARN);
		thp_persist(r, THP_DIR "/defrag", "madvise", NULL);
	}
}

/* ---- NUMA ---- */

/* Both NUMA knobs act only between nodes: one node, nothing to check. */
static bool one_node(struct gf_audit_ctx *c, struct gf_check_result *r)
{
	if (c->t->numa.nnodes > 1)
		return false;
	audit_na(r, "%d NUMA node: nothing to balance or reclaim between nodes",
		 c->t->numa.nnodes > 0 ? c->t->numa.nnodes : 1);
	return true;
}

/* Automatic NUMA balancing unmaps pages to sample accesses: page faults on
 * pinned-adjacent host buffers and migrations that fight explicit binding. */
static void run_numa_balancing(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	long long v;

	if (one_node(c, r) || audit_read_ll(c, r, "/proc/sys/kernel/numa_balancing", &v))
		return;
	audit_observed(r, "%lld", v);
	audit_expected(r, "0");
	if (v != 0) {
		audit_status(r, GF_CHECK_WARN);
		audit_sysctl_fix(r, "kernel.numa_balancing", "0");
	}
}

/* Zone reclaim drops the local node's page cache instead of allocating on
 * another node: a dataset read through the page cache is read again.  The
 * kernel's vm.rst: workloads that benefit from caching should leave it 0. */
static void run_zone_reclaim(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	long long v;

	if (one_node(c, r) || audit_read_ll(c, r, "/proc/sys/vm/zone_reclaim_mode", &v))
		return;
	audit_observed(r, "%lld", v);
	audit_expected(r, "0");
	if (v != 0) {
		audit_status(r, GF_CHECK_WARN);
		audit_sysctl_fix(r, "vm.zone_reclaim_mode", "0");
	}
}

/* ---- reserves and write-back ---- */

#define MIN_FREE_LARGE_RAM (64 * GIB)
#define MIN_FREE_KB 135168LL	/* TuneD hpc-compute */

/* Too small a reserve on a big host: atomic allocations of NIC receive
 * paths fail and allocations fall into direct reclaim under page-cache
 * pressure.  Too large (> 5% of RAM): memory nobody can use, early OOM. */
static void run_min_free(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	unsigned long long ram = c->t->machine.memory_bytes;
	long long v;

	if (audit_read_ll(c, r, "/proc/sys/vm/min_free_kbytes", &v))
		return;
	if (!ram) {
		audit_na(r, "MemTotal unknown (/proc/meminfo): the reserve cannot be weighed");
		return;
	}
	audit_observed(r, "%lld kB with %llu GiB of RAM", v, ram / GIB);
	if (ram < MIN_FREE_LARGE_RAM) {
		audit_expected(r, "the kernel's default below 64 GiB of RAM, at most 5%% of RAM");
	} else {
		audit_expected(r, ">= %lld kB and <= 5%% of RAM", MIN_FREE_KB);
		if (v < MIN_FREE_KB) {
			audit_status(r, GF_CHECK_WARN);
			audit_sysctl_fix(r, "vm.min_free_kbytes", "135168");
			return;
		}
	}
	if ((unsigned long long)v * KIB > ram / 20) {
		audit_status(r, GF_CHECK_WARN);
		audit_fix(r, "sysctl -w vm.min_free_kbytes=%lld", ram >= MIN_FREE_LARGE_RAM ? MIN_FREE_KB : 65536LL);
		audit_persist(r, "the vm.min_free_kbytes line in /etc/sysctl.d");
		r->fix_class = GF_FIX_ADVICE;
	}
}

/* One of the two write-back thresholds: vm.<ratio> in percent, or
 * vm.<bytes> when that is set (writing one zeroes the other). */
struct dirty_knob {
	const char *ratio, *bytes;	/* "dirty_ratio", "dirty_bytes" */
	long long pct_x10;		/* effective value, tenths of a percent of RAM */
	long long bytes_v;		/* > 0: set in bytes */
};

static int dirty_read(struct gf_audit_ctx *c, struct gf_check_result *r, struct dirty_knob *k)
{
	char path[96];
	long long v;
	unsigned long long ram = c->t->machine.memory_bytes;

	snprintf(path, sizeof(path), "/proc/sys/vm/%s", k->bytes);
	if (audit_read_ll(c, r, path, &k->bytes_v))
		return -1;
	if (k->bytes_v > 0) {
		if (!ram) {
			audit_na(r, "vm.%s is set and MemTotal is unknown", k->bytes);
			return -1;
		}
		/* The kernel's base is dirtyable memory (free + page cache),
		 * which MemTotal bounds: the real share is a little higher. */
		k->pct_x10 = (long long)((unsigned long long)k->bytes_v * 1000 / ram);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/sys/vm/%s", k->ratio);
	if (r)
		r->source[0] = '\0';
	if (audit_read_ll(c, r, path, &v))
		return -1;
	k->pct_x10 = v * 10;
	return 0;
}

static void dirty_observed(struct gf_check_result *r, const struct dirty_knob *k)
{
	if (k->bytes_v > 0)
		audit_observed(r, "vm.%s=%lld (%lld.%lld%% of RAM)", k->bytes, k->bytes_v, k->pct_x10 / 10,
			       k->pct_x10 % 10);
	else
		audit_observed(r, "vm.%s=%lld%%", k->ratio, k->pct_x10 / 10);
	audit_source(r, "/proc/sys/vm/%s, /proc/sys/vm/%s", k->ratio, k->bytes);
}

/* Sets the threshold to `pct` percent through the file in use: a byte
 * count when vm.*_bytes is set (so revert restores it exactly), else the
 * ratio. */
static void dirty_fix(struct gf_audit_ctx *c, struct gf_check_result *r, const struct dirty_knob *k, int pct)
{
	char key[64], val[32];

	if (k->bytes_v > 0) {
		snprintf(key, sizeof(key), "vm.%s", k->bytes);
		snprintf(val, sizeof(val), "%llu", c->t->machine.memory_bytes / 100 * (unsigned)pct);
	} else {
		snprintf(key, sizeof(key), "vm.%s", k->ratio);
		snprintf(val, sizeof(val), "%d", pct);
	}
	audit_sysctl_fix(r, key, val);
}

/* Training: a large dirty limit absorbs checkpoint bursts (TuneD
 * accelerator-performance 40%).  Inference: small, so
 * write-back never blocks a serving thread (TuneD latency-performance 10%). */
static void run_dirty_ratio(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	struct dirty_knob k = { "dirty_ratio", "dirty_bytes", 0, 0 };
	bool inf = c->profile == GF_PROFILE_INFERENCE;

	if (dirty_read(c, r, &k))
		return;
	dirty_observed(r, &k);
	audit_expected(r, inf ? "<= 10%% of RAM (inference)" : ">= 40%% of RAM (training)");
	if (inf ? k.pct_x10 > 100 : k.pct_x10 < 400) {
		audit_status(r, GF_CHECK_WARN);
		dirty_fix(c, r, &k, inf ? 10 : 40);
	}
}

/* Background write-back starts at this threshold: at or above the dirty
 * limit the kernel halves it silently; too high and the checkpoint is
 * written in one blocking burst. */
static void run_dirty_background(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	struct dirty_knob k = { "dirty_background_ratio", "dirty_background_bytes", 0, 0 };
	struct dirty_knob limit = { "dirty_ratio", "dirty_bytes", 0, 0 };
	bool inf = c->profile == GF_PROFILE_INFERENCE;
	int want = inf ? 3 : 10;

	if (dirty_read(c, r, &k))
		return;
	dirty_observed(r, &k);
	audit_expected(r, inf ? "<= 3%% of RAM and below the dirty limit (inference)"
			      : "<= 10%% of RAM and below the dirty limit (training)");
	if (k.pct_x10 > want * 10) {
		audit_status(r, GF_CHECK_WARN);
		dirty_fix(c, r, &k, want);
		return;
	}
	if (!dirty_read(c, NULL, &limit) && limit.pct_x10 > 0 && k.pct_x10 >= limit.pct_x10) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "at or above the dirty limit (%lld%%): the kernel uses half the limit instead",
			   limit.pct_x10 / 10);
		dirty_fix(c, r, &k, (int)(limit.pct_x10 / 10 / 4 > 0 ? limit.pct_x10 / 10 / 4 : 1));
	}
}

/* ---- boot options ---- */

/* init_on_alloc zeroes every page the kernel hands out: gigabytes of pinned
 * host buffers and page cache are written twice (DGX OS 7 ships
 * nvidia-disable-init-on-alloc).  Without the parameter the kernel's build
 * config decides (CONFIG_INIT_ON_ALLOC_DEFAULT_ON, on in Ubuntu's). */
static void run_init_on_alloc(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char val[32], path[160], *data = NULL;
	size_t len;
	int ret = audit_cmdline_param(c, "init_on_alloc", val, sizeof(val));
	bool on;

	audit_source(r, "/proc/cmdline");
	if (ret < 0) {
		audit_read(c, r, "/proc/cmdline", &data, &len);
		free(data);
		return;
	}
	if (ret == 1) {
		on = strcmp(val, "0") && strcmp(val, "off") && strcmp(val, "n");
		audit_observed(r, "init_on_alloc=%s on the kernel command line", val);
	} else {
		snprintf(path, sizeof(path), "/boot/config-%s", c->t->machine.kernel);
		audit_source(r, "/proc/cmdline; %s", path);
		if (!c->t->machine.kernel[0] || gf_fs_read(&c->fs, path, &data, &len)) {
			audit_na(r, "not on the kernel command line, and the kernel's default is unknown (%s unreadable)",
				 path);
			return;
		}
		on = gf_starts_with(data, "CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y") ||
		     strstr(data, "\nCONFIG_INIT_ON_ALLOC_DEFAULT_ON=y") != NULL;
		free(data);
		audit_observed(r, "not on the command line; kernel default %s (CONFIG_INIT_ON_ALLOC_DEFAULT_ON)",
			       on ? "on" : "off");
	}
	audit_expected(r, "init_on_alloc=0");
	if (on) {
		audit_status(r, GF_CHECK_WARN);
		audit_fix(r, "add init_on_alloc=0 to GRUB_CMDLINE_LINUX, update-grub, reboot");
		audit_persist(r, "/etc/default/grub (GRUB_CMDLINE_LINUX)");
		r->fix_class = GF_FIX_ADVICE;
	}
}

/* ---- huge pages reserved by hand ---- */

#define HUGE_DIR "/sys/kernel/mm/hugepages"

struct huge_pool {
	long long kb, nr, free, resv;
};

static int huge_pool_read(struct gf_audit_ctx *c, struct gf_check_result *r, const char *name, struct huge_pool *p)
{
	char path[256];
	static const char *files[] = { "nr_hugepages", "free_hugepages", "resv_hugepages" };
	long long *dst[] = { &p->nr, &p->free, &p->resv };

	if (sscanf(name, "hugepages-%lldkB", &p->kb) != 1)
		return 1;	/* not a pool */
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), HUGE_DIR "/%s/%s", name, files[i]);
		r->source[0] = '\0';
		if (audit_read_ll(c, r, path, dst[i]))
			return -1;
	}
	audit_source(r, HUGE_DIR "/hugepages-*/{nr,free,resv}_hugepages");
	return 0;
}

/* Huge pages reserved (vm.nr_hugepages, hugepages=) are taken from RAM at
 * once: a pool nobody maps is memory lost to page cache and jobs. */
static void run_hugetlb(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char **names = NULL, obs[256] = "", unused[256] = "";
	int n = 0, ret, nunused = 0;
	unsigned long long lost = 0;

	audit_source(r, HUGE_DIR);
	ret = gf_fs_list(&c->fs, HUGE_DIR, &names, &n);
	if (ret == -ENOENT || ret == -ENOTDIR) {
		audit_na(r, "%s is absent (no hugetlb support)", HUGE_DIR);
		return;
	}
	if (ret) {
		audit_status(r, ret == -EACCES ? GF_CHECK_NEEDS_ROOT : GF_CHECK_ERROR);
		audit_note(r, "%s: %s", HUGE_DIR, strerror(-ret));
		return;
	}
	for (int i = 0; i < n; i++) {
		struct huge_pool p;
		size_t o = strlen(obs);

		ret = huge_pool_read(c, r, names[i], &p);
		if (ret < 0)
			goto out;
		if (ret || p.nr <= 0)
			continue;
		snprintf(obs + o, sizeof(obs) - o, "%s%lld x %lld kB (%lld used, %lld reserved)", o ? "; " : "", p.nr,
			 p.kb, p.nr - p.free, p.resv);
		if (p.free - p.resv >= p.nr) {	/* nothing maps or reserves one */
			o = strlen(unused);
			snprintf(unused + o, sizeof(unused) - o, "%s%s", o ? ", " : "", names[i]);
			lost += (unsigned long long)p.nr * (unsigned long long)p.kb * KIB;
			nunused++;
		}
	}
	audit_observed(r, "%s", obs[0] ? obs : "no huge pages reserved");
	audit_expected(r, "no reserved pool left unused");
	if (lost) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "%s: %.1f GiB reserved and unused", unused, (double)lost / (double)GIB);
		audit_fix(r, "echo 0 > " HUGE_DIR "/<pool>/nr_hugepages (if no service needs them)");
		audit_persist(r, "remove vm.nr_hugepages from /etc/sysctl.d and hugepages= from the kernel command line");
		r->fix_class = GF_FIX_ADVICE;
		/* One pool: tune can free it when asked by name (a service
		 * started later may have wanted it: never by default). */
		if (nunused == 1) {
			char path[256];

			snprintf(path, sizeof(path), HUGE_DIR "/%s/nr_hugepages", unused);
			r->fix[0] = '\0';
			audit_named_fix(r, path, "0");
		}
	}
out:
	gf_strv_free(names, n);
}

/* ---- file descriptors ---- */

#define NOFILE_MIN 1048576LL	/* DGX OS nv-limits; fs.nr_open's default */
#define NOFILE_SOFT_MIN 65536LL

/* The system-wide table: every worker's shared tensors hold descriptors. */
static void run_file_max(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	long long v;

	if (audit_read_ll(c, r, "/proc/sys/fs/file-max", &v))
		return;
	audit_observed(r, "%lld", v);
	audit_expected(r, ">= %lld", NOFILE_MIN);
	if (v < NOFILE_MIN) {
		audit_status(r, GF_CHECK_WARN);
		audit_sysctl_fix(r, "fs.file-max", "1048576");
	}
}

/* "Max open files  <soft>  <hard>  files" of /proc/self/limits; -1 unlimited. */
static int nofile_limits(const char *text, long long *soft, long long *hard)
{
	const char *p = strstr(text, "Max open files");
	char s[32], h[32];

	if (!p || sscanf(p + strlen("Max open files"), " %31s %31s", s, h) != 2)
		return -EBADMSG;
	*soft = strcmp(s, "unlimited") ? strtoll(s, NULL, 10) : -1;
	*hard = strcmp(h, "unlimited") ? strtoll(h, NULL, 10) : -1;
	return 0;
}

/* A DataLoader's workers pass tensors as descriptors (torch.multiprocessing
 * file_descriptor strategy): 1024 or 20000 run out ("Too many open files").
 * fs.nr_open caps what any limit can be raised to. */
static void run_nofile(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char *data = NULL;
	size_t len;
	long long soft, hard, nr_open;

	if (audit_read(c, r, "/proc/self/limits", &data, &len))
		return;
	if (nofile_limits(data, &soft, &hard)) {
		free(data);
		audit_error(r, "/proc/self/limits: no \"Max open files\" line");
		return;
	}
	free(data);
	r->source[0] = '\0';
	if (audit_read_ll(c, r, "/proc/sys/fs/nr_open", &nr_open))
		return;
	audit_source(r, "/proc/self/limits (Max open files), /proc/sys/fs/nr_open");
	audit_observed(r, "soft %lld, hard %lld, fs.nr_open %lld", soft, hard, nr_open);
	audit_expected(r, "soft >= %lld, hard and fs.nr_open >= %lld", NOFILE_SOFT_MIN, NOFILE_MIN);
	audit_note(r, "the limits of the shell or service that ran gpufeed; jobs get theirs from their launcher");
	if (nr_open < NOFILE_MIN) {
		audit_status(r, GF_CHECK_WARN);
		audit_sysctl_fix(r, "fs.nr_open", "1048576");
	} else if ((soft >= 0 && soft < NOFILE_SOFT_MIN) || (hard >= 0 && hard < NOFILE_MIN)) {
		audit_status(r, GF_CHECK_WARN);
		audit_fix(r, "ulimit -n 1048576 in the job's shell; docker --ulimit nofile=1048576");
		audit_persist(r, "'* - nofile 1048576' in /etc/security/limits.d/; DefaultLimitNOFILE=1048576 in "
				 "/etc/systemd/system.conf.d/");
		r->fix_class = GF_FIX_ADVICE;
	}
}

/* ---- systemd-logind RemoveIPC ---- */

/* The last RemoveIPC= of the [Login] section in `text`; keeps *val when none. */
static void logind_scan(const char *text, char *val, size_t size)
{
	bool login = true;	/* logind.conf has only [Login] */

	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char buf[256];
		size_t n = strcspn(line, "\n");

		if (n >= sizeof(buf))
			continue;
		memcpy(buf, line, n);
		buf[n] = '\0';
		char *s = gf_strip(buf);

		if (*s == '[')
			login = !strncmp(s, "[Login]", 7);
		else if (login && gf_starts_with(s, "RemoveIPC") && strchr(s, '='))
			gf_strlcpy(val, gf_strip(strchr(s, '=') + 1), size);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Drop-ins of /etc, /run and /usr/lib, applied in file-name order; a name
 * in an earlier directory hides the same name in a later one. */
static void logind_dropins(struct gf_audit_ctx *c, char *val, size_t size, int *files)
{
	static const char *dirs[] = { "/etc/systemd/logind.conf.d", "/run/systemd/logind.conf.d",
				      "/usr/lib/systemd/logind.conf.d" };
	char *all[64][2];
	int nall = 0;

	for (int d = 0; d < 3; d++) {
		char **names;
		int n;

		if (gf_fs_list(&c->fs, dirs[d], &names, &n))
			continue;
		for (int i = 0; i < n && nall < 64; i++) {
			bool dup = false;

			for (int j = 0; j < nall; j++)
				dup = dup || !strcmp(all[j][0], names[i]);
			if (dup || strlen(names[i]) < 6 || strcmp(names[i] + strlen(names[i]) - 5, ".conf"))
				continue;
			all[nall][0] = strdup(names[i]);
			all[nall][1] = strdup(dirs[d]);
			if (!all[nall][0] || !all[nall][1]) {
				free(all[nall][0]);
				free(all[nall][1]);
				continue;
			}
			nall++;
		}
		gf_strv_free(names, n);
	}
	qsort(all, (size_t)nall, sizeof(all[0]), cmp_str);
	for (int i = 0; i < nall; i++) {
		char path[512], *data = NULL;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s", all[i][1], all[i][0]);
		if (!gf_fs_read(&c->fs, path, &data, &len)) {
			logind_scan(data, val, size);
			(*files)++;
			free(data);
		}
		free(all[i][0]);
		free(all[i][1]);
	}
}

/* RemoveIPC=yes (the default) deletes a user's /dev/shm files and SysV
 * segments at their last logout: NCCL's shared-memory transport of an
 * mpirun/Slurm job then fails (NCCL user guide, "systemd"). */
static void run_removeipc(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char comm[64], val[32] = "yes", *data = NULL;
	size_t len;
	int files = 0;

	if (!audit_peek_str(c, "/proc/1/comm", comm, sizeof(comm)) && strcmp(gf_strip(comm), "systemd")) {
		audit_na(r, "PID 1 is %s, not systemd: no logind", comm);
		return;
	}
	for (const char **m = (const char *[]){ "/usr/lib/systemd/logind.conf", "/etc/systemd/logind.conf", NULL };
	     *m; m++)
		if (!gf_fs_read(&c->fs, *m, &data, &len)) {
			logind_scan(data, val, sizeof(val));
			files++;
			free(data);
			data = NULL;
		}
	logind_dropins(c, val, sizeof(val), &files);
	audit_source(r, "/etc/systemd/logind.conf, logind.conf.d/*.conf (/etc, /run, /usr/lib)");
	if (!files) {
		audit_na(r, "no systemd-logind configuration found");
		return;
	}
	audit_observed(r, "RemoveIPC=%s", val);
	audit_expected(r, "RemoveIPC=no");
	if (strcasecmp(val, "no") && strcasecmp(val, "false") && strcmp(val, "0") && strcasecmp(val, "off")) {
		audit_status(r, GF_CHECK_WARN);
		audit_fix(r, "printf '[Login]\\nRemoveIPC=no\\n' > /etc/systemd/logind.conf.d/90-gpufeed.conf; "
			     "systemctl restart systemd-logind");
		audit_persist(r, "/etc/systemd/logind.conf.d/90-gpufeed.conf");
		r->fix_class = GF_FIX_ADVICE;
	}
}

/* ---- memory errors ---- */

#define EDAC_DIR "/sys/devices/system/edac/mc"

/* Uncorrected errors kill processes and corrupt data; a growing count of
 * corrected ones names a DIMM about to fail (NHC check_hw_mcelog). */
static void run_edac(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char **names = NULL;
	int n = 0, mcs = 0;
	long long ue = 0, ce = 0;

	audit_source(r, EDAC_DIR "/mc*/{ue,ce}_count");
	if (gf_fs_list(&c->fs, EDAC_DIR, &names, &n)) {
		audit_na(r, "no EDAC memory controllers (%s absent: a VM, or no EDAC driver)", EDAC_DIR);
		return;
	}
	for (int i = 0; i < n; i++) {
		char path[256];
		long long u, e;

		if (strncmp(names[i], "mc", 2) || names[i][2] < '0' || names[i][2] > '9')
			continue;
		snprintf(path, sizeof(path), EDAC_DIR "/%s/ue_count", names[i]);
		if (audit_read_ll(c, r, path, &u))
			goto out;
		snprintf(path, sizeof(path), EDAC_DIR "/%s/ce_count", names[i]);
		if (audit_read_ll(c, r, path, &e))
			goto out;
		ue += u;
		ce += e;
		mcs++;
	}
	audit_source(r, EDAC_DIR "/mc*/{ue,ce}_count");
	if (!mcs) {
		audit_na(r, "no EDAC memory controllers registered");
		goto out;
	}
	audit_observed(r, "%lld uncorrected, %lld corrected on %d controller%s", ue, ce, mcs, mcs == 1 ? "" : "s");
	audit_expected(r, "0 uncorrected, 0 corrected");
	if (ue || ce) {
		audit_status(r, ue ? GF_CHECK_FAIL : GF_CHECK_WARN);
		audit_fix(r, "find the DIMM: ras-mc-ctl --errors (rasdaemon) or edac-util -v; replace it");
		r->fix_class = GF_FIX_ADVICE;
	}
out:
	gf_strv_free(names, n);
}

const struct gf_check_def gf_checks_memory[] = {
	{ { "mem.swap", "memory", "swap should be off",
	    "pages swapped out stall the threads that feed the GPUs; docs/checks.md#mem.swap; "
	    "\"AzureHPC Node Health Checks\", https://github.com/Azure/azurehpc-health-checks; "
	    "\"Documentation for /proc/sys/vm/\", https://docs.kernel.org/admin-guide/sysctl/vm.html#swappiness",
	    "/proc/swaps", "no swap area", "no swap area", "swapoff -a; remove swap from /etc/fstab", 0 },
	  run_swap },
	{ { "mem.swappiness", "memory", "vm.swappiness should be low",
	    "a low value keeps the kernel from swapping anonymous memory out to grow the page cache; "
	    "docs/checks.md#mem.swappiness; "
	    "\"Documentation for /proc/sys/vm/\", https://docs.kernel.org/admin-guide/sysctl/vm.html#swappiness; "
	    "\"TuneD accelerator-performance profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/accelerator-performance/tuned.conf",
	    "/proc/sys/vm/swappiness", "<= 10", "<= 10", "sysctl -w vm.swappiness=10 (safe)", 0 },
	  run_swappiness },
	{ { "mem.thp", "memory", "transparent huge pages should suit the profile",
	    "huge pages cut TLB misses on large host buffers (training); "
	    "latency-bound serving avoids THP on faults it did not ask for; docs/checks.md#mem.thp; "
	    "\"Transparent Hugepage Support\", https://docs.kernel.org/admin-guide/mm/transhuge.html; "
	    "\"TuneD network-latency profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/network-latency/tuned.conf",
	    THP_DIR "/enabled; /proc/cmdline transparent_hugepage=", "always or madvise", "madvise or never",
	    "write always (training) or madvise (inference) to " THP_DIR "/enabled (safe)", 0 },
	  run_thp },
	{ { "mem.thp-defrag", "memory", "THP faults should not compact memory synchronously",
	    "with defrag 'always' a page fault may stall on direct reclaim and compaction; "
	    "docs/checks.md#mem.thp-defrag; "
	    "\"Transparent Hugepage Support\", https://docs.kernel.org/admin-guide/mm/transhuge.html",
	    THP_DIR "/defrag", "not always", "not always", "write madvise to " THP_DIR "/defrag (safe)", 0 },
	  run_thp_defrag },
	{ { "mem.numa-balancing", "memory", "automatic NUMA balancing should be off",
	    "a job already bound to its GPUs' nodes gains nothing from page migration and pays its faults; "
	    "docs/checks.md#mem.numa-balancing; "
	    "\"Documentation for /proc/sys/kernel/\", https://docs.kernel.org/admin-guide/sysctl/kernel.html#numa-balancing; "
	    "\"TuneD hpc-compute profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/hpc-compute/tuned.conf",
	    "/proc/sys/kernel/numa_balancing", "0 (na on one node)", "0 (na on one node)",
	    "sysctl -w kernel.numa_balancing=0 (safe)", 0 },
	  run_numa_balancing },
	{ { "mem.zone-reclaim", "memory", "zone reclaim should not drop the page cache",
	    "zone reclaim drops the page cache on one node rather than allocate on another; "
	    "docs/checks.md#mem.zone-reclaim; "
	    "\"Documentation for /proc/sys/vm/\", https://docs.kernel.org/admin-guide/sysctl/vm.html#zone-reclaim-mode",
	    "/proc/sys/vm/zone_reclaim_mode", "0 (na on one node)", "0 (na on one node)",
	    "sysctl -w vm.zone_reclaim_mode=0 (safe)", 0 },
	  run_zone_reclaim },
	{ { "mem.min-free-kbytes", "memory", "the kernel's free-memory reserve should fit the RAM",
	    "too small a reserve lets the allocations the kernel must satisfy (network buffers among them) fail under load; "
	    "too large wastes RAM; docs/checks.md#mem.min-free-kbytes; "
	    "\"Documentation for /proc/sys/vm/\", https://docs.kernel.org/admin-guide/sysctl/vm.html#min-free-kbytes; "
	    "\"TuneD hpc-compute profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/hpc-compute/tuned.conf",
	    "/proc/sys/vm/min_free_kbytes, MemTotal", ">= 135168 kB with 64 GiB of RAM or more; <= 5% of RAM",
	    ">= 135168 kB with 64 GiB of RAM or more; <= 5% of RAM", "sysctl -w vm.min_free_kbytes=135168 (safe)",
	    0 },
	  run_min_free },
	{ { "mem.dirty-ratio", "memory", "the dirty page limit should suit the profile",
	    "checkpoint bursts need room in the page cache (training); "
	    "serving wants write-back early and short; docs/checks.md#mem.dirty-ratio; "
	    "\"Documentation for /proc/sys/vm/\", https://docs.kernel.org/admin-guide/sysctl/vm.html#dirty-ratio; "
	    "\"TuneD accelerator-performance profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/accelerator-performance/tuned.conf",
	    "/proc/sys/vm/dirty_ratio, /proc/sys/vm/dirty_bytes (wins when set)", ">= 40% of RAM", "<= 10% of RAM",
	    "sysctl -w vm.dirty_ratio=40 (training) or 10 (inference); vm.dirty_bytes when that is in use (safe)",
	    0 },
	  run_dirty_ratio },
	{ { "mem.dirty-background", "memory", "background write-back should start early",
	    "write-back that starts early spreads a checkpoint over time instead of blocking writers; "
	    "docs/checks.md#mem.dirty-background; "
	    "\"Documentation for /proc/sys/vm/\", https://docs.kernel.org/admin-guide/sysctl/vm.html#dirty-background-ratio; "
	    "\"TuneD accelerator-performance profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/accelerator-performance/tuned.conf",
	    "/proc/sys/vm/dirty_background_ratio, /proc/sys/vm/dirty_background_bytes (wins when set)",
	    "<= 10% of RAM, below the dirty limit", "<= 3% of RAM, below the dirty limit",
	    "sysctl -w vm.dirty_background_ratio=10 (training) or 3 (inference) (safe)", 0 },
	  run_dirty_background },
	{ { "mem.init-on-alloc", "memory", "the kernel should not zero every page it allocates",
	    "zeroing every page allocated slows pinning and allocating large host buffers; "
	    "docs/checks.md#mem.init-on-alloc; "
	    "\"The kernel's command-line parameters\", https://docs.kernel.org/admin-guide/kernel-parameters.html",
	    "/proc/cmdline init_on_alloc=; /boot/config-<release> CONFIG_INIT_ON_ALLOC_DEFAULT_ON", "init_on_alloc=0",
	    "init_on_alloc=0", "add init_on_alloc=0 to the kernel command line (reboot)", 0 },
	  run_init_on_alloc },
	{ { "mem.hugetlb", "memory", "no reserved huge pages should lie unused",
	    "a reserved huge page pool is memory no one else may use; docs/checks.md#mem.hugetlb; "
	    "\"HugeTLB Pages\", https://docs.kernel.org/admin-guide/mm/hugetlbpage.html",
	    HUGE_DIR "/hugepages-*/{nr,free,resv}_hugepages", "no unused pool", "no unused pool",
	    "release the pool (nr_hugepages=0) unless a service maps it", 0 },
	  run_hugetlb },
	{ { "mem.file-max", "memory", "the system-wide file table should be large",
	    "loaders and NCCL at scale open many files and sockets; docs/checks.md#mem.file-max; "
	    "\"NCCL Troubleshooting: Runtime and MPI issues\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/runtime_and_mpi_issues.html; "
	    "\"Documentation for /proc/sys/fs/\", https://docs.kernel.org/admin-guide/sysctl/fs.html#file-max-file-nr",
	    "/proc/sys/fs/file-max", ">= 1048576",
	    ">= 1048576", "sysctl -w fs.file-max=1048576 (safe)", 0 },
	  run_file_max },
	{ { "mem.nofile", "memory", "open-file limits should allow many loader workers",
	    "PyTorch's file_descriptor sharing and NCCL at scale need many descriptors per process; "
	    "docs/checks.md#mem.nofile; "
	    "\"NCCL Troubleshooting: Runtime and MPI issues\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/runtime_and_mpi_issues.html; "
	    "\"PyTorch: Multiprocessing package - torch.multiprocessing (sharing strategies)\", https://pytorch.org/docs/stable/multiprocessing.html",
	    "/proc/self/limits Max open files; /proc/sys/fs/nr_open", "soft >= 65536, hard and fs.nr_open >= 1048576",
	    "soft >= 65536, hard and fs.nr_open >= 1048576",
	    "limits.d / systemd LimitNOFILE=1048576; sysctl fs.nr_open=1048576 (safe)", 0 },
	  run_nofile },
	{ { "mem.removeipc", "memory", "logind should not delete a job's shared memory",
	    "logind removes /dev/shm files of users it does not see logged in, NCCL's among them; "
	    "docs/checks.md#mem.removeipc; "
	    "\"NCCL Troubleshooting: Runtime and MPI issues\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/runtime_and_mpi_issues.html; "
	    "\"logind.conf(5)\", https://www.freedesktop.org/software/systemd/man/latest/logind.conf.html",
	    "/etc/systemd/logind.conf and logind.conf.d drop-ins", "RemoveIPC=no", "RemoveIPC=no",
	    "RemoveIPC=no in a logind.conf.d drop-in; restart systemd-logind", GF_CHECK_HOST_ONLY },
	  run_removeipc },
	{ { "mem.edac", "memory", "no memory errors should be counted",
	    "corrected memory errors foretell uncorrected ones, which crash jobs; docs/checks.md#mem.edac; "
	    "\"Reliability, Availability and Serviceability (RAS)\", https://docs.kernel.org/admin-guide/ras.html",
	    EDAC_DIR "/mc*/{ue,ce}_count",
	    "0 uncorrected (fail), 0 corrected (warn)", "0 uncorrected (fail), 0 corrected (warn)",
	    "replace the DIMM the errors name (ras-mc-ctl --errors)", 0 },
	  run_edac },
	GF_CHECK_END,
};
