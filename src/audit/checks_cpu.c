/* CPU and scheduler checks (docs/checks.md, "CPU and scheduler", which
 * names each one's public source).
 *
 * Per-CPU settings give one result for the host that names the CPUs out of
 * line: a result per CPU would bury the rest of the report. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/cpuset.h>
#include "core/strutil.h"
#include "audit/audit_internal.h"
#include "audit/cmdline.h"

#define CPU_DIR "/sys/devices/system/cpu"

/* One cpufreq file of every online CPU, sorted by value. */
struct cpu_scan {
	int seen;			/* CPUs that have the file */
	int bad;			/* CPUs whose value is not the wanted one */
	struct gf_cpuset bad_set;
	char bad_values[96];		/* distinct wrong values, "powersave, schedutil" */
	int err;			/* first read error other than absence */
	char err_path[128];
};

static void scan_add_value(struct cpu_scan *s, const char *v)
{
	size_t o = strlen(s->bad_values);
	const char *p = strstr(s->bad_values, v);
	size_t n = strlen(v);

	if (p && (p[n] == '\0' || p[n] == ',') && (p == s->bad_values || p[-1] == ' '))
		return;
	snprintf(s->bad_values + o, sizeof(s->bad_values) - o, "%s%s", o ? ", " : "", v);
}

/* Reads cpuN/cpufreq/<file> of each online CPU; `ok` says whether a value
 * is the wanted one. */
static void scan_cpufreq(struct gf_audit_ctx *c, const char *file, bool (*ok)(const char *v, const void *arg),
			 const void *arg, struct cpu_scan *s)
{
	memset(s, 0, sizeof(*s));
	gf_cpuset_zero(&s->bad_set);
	for (int i = 0; i < c->t->cpus.ncpu; i++) {
		char path[128], v[64];
		int id = c->t->cpus.cpu[i].id, ret;

		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpufreq/%s", id, file);
		ret = audit_peek_str(c, path, v, sizeof(v));
		if (ret == -ENOENT || ret == -ENOTDIR)
			continue;
		if (ret) {
			if (!s->err) {
				s->err = ret;
				gf_strlcpy(s->err_path, path, sizeof(s->err_path));
			}
			continue;
		}
		s->seen++;
		gf_strip(v);
		if (!ok(v, arg)) {
			s->bad++;
			gf_cpuset_set(&s->bad_set, (unsigned)id);
			scan_add_value(s, v);
		}
	}
}

/* The status a scan ends in when it could not judge; true when it did. */
static bool scan_judged(struct gf_audit_ctx *c, struct gf_check_result *r, const struct cpu_scan *s,
			const char *what)
{
	if (s->err) {
		audit_status(r, s->err == -EACCES || s->err == -EPERM ? GF_CHECK_NEEDS_ROOT : GF_CHECK_ERROR);
		audit_note(r, "%s: %s", s->err_path, strerror(-s->err));
		return false;
	}
	if (!s->seen) {
		audit_na(r, "no %s: %s", what,
			 c->t->machine.hypervisor ? "a VM without cpufreq (the host sets the clocks)"
						  : "cpufreq is off or not supported here");
		return false;
	}
	return true;
}

static void scan_observed(struct gf_check_result *r, const struct cpu_scan *s, const char *good)
{
	char list[160];

	if (!s->bad) {
		audit_observed(r, "%s on all %d CPUs", good, s->seen);
		return;
	}
	gf_cpuset_format_list(&s->bad_set, list, sizeof(list));
	audit_observed(r, "%s on %d of %d CPUs (%s)", s->bad_values, s->bad, s->seen, list);
}

static bool is_word(const char *v, const void *want)
{
	return !strcmp(v, (const char *)want);
}

/* powersave/schedutil/ondemand lower the clock between batches; the loader
 * thread then wakes on a slow core. */
static void run_governor(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	struct cpu_scan s;

	audit_source(r, CPU_DIR "/cpu*/cpufreq/scaling_governor");
	scan_cpufreq(c, "scaling_governor", is_word, "performance", &s);
	if (!scan_judged(c, r, &s, "CPU frequency governor"))
		return;
	scan_observed(r, &s, "performance");
	audit_expected(r, "performance on every CPU");
	if (s.bad) {
		audit_status(r, GF_CHECK_WARN);
		audit_fix(r, "cpupower frequency-set -g performance");
		audit_persist(r, "TuneD accelerator-performance, a systemd unit running cpupower, or the BIOS "
				 "performance profile");
		r->fix_class = GF_FIX_ADVICE;
	}
}

/* With HWP/CPPC the hardware picks the clock from the energy preference:
 * balance_performance (the default) ramps up late (TuneD
 * throughput-performance sets performance). */
static void run_epp(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	struct cpu_scan s;

	audit_source(r, CPU_DIR "/cpu*/cpufreq/energy_performance_preference");
	scan_cpufreq(c, "energy_performance_preference", is_word, "performance", &s);
	if (s.err || s.seen) {
		if (!scan_judged(c, r, &s, "energy preference"))
			return;
	} else {
		audit_na(r, "no energy_performance_preference: not intel_pstate/amd-pstate with HWP/CPPC");
		return;
	}
	scan_observed(r, &s, "performance");
	audit_expected(r, "performance on every CPU");
	if (s.bad) {
		audit_status(r, GF_CHECK_WARN);
		audit_fix(r, "echo performance | tee " CPU_DIR "/cpu*/cpufreq/energy_performance_preference "
			     "(or the performance governor, which sets it)");
		audit_persist(r, "TuneD throughput-performance (energy_performance_preference=performance)");
		r->fix_class = GF_FIX_ADVICE;
	}
}

/* Values of two cpufreq files compared per CPU: scaling_max_freq below
 * cpuinfo_max_freq caps the clock whatever the governor. */
static void run_max_freq(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	struct cpu_scan s;

	memset(&s, 0, sizeof(s));
	audit_source(r, CPU_DIR "/cpu*/cpufreq/{scaling_max_freq,cpuinfo_max_freq}");
	for (int i = 0; i < c->t->cpus.ncpu; i++) {
		char path[128];
		long long cap, hw;
		int id = c->t->cpus.cpu[i].id, ret;

		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpufreq/scaling_max_freq", id);
		ret = gf_fs_read_ll(&c->fs, path, &cap);
		if (!ret) {
			snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpufreq/cpuinfo_max_freq", id);
			ret = gf_fs_read_ll(&c->fs, path, &hw);
		}
		if (ret == -ENOENT || ret == -ENOTDIR)
			continue;
		if (ret) {
			if (!s.err) {
				s.err = ret;
				gf_strlcpy(s.err_path, path, sizeof(s.err_path));
			}
			continue;
		}
		s.seen++;
		if (cap < hw) {
			char v[48];

			snprintf(v, sizeof(v), "%lld of %lld MHz", cap / 1000, hw / 1000);
			s.bad++;
			gf_cpuset_set(&s.bad_set, (unsigned)id);
			scan_add_value(&s, v);
		}
	}
	if (!scan_judged(c, r, &s, "cpufreq limits"))
		return;
	scan_observed(r, &s, "no cap");
	audit_expected(r, "scaling_max_freq = cpuinfo_max_freq on every CPU");
	if (s.bad) {
		char turbo[8];

		audit_status(r, GF_CHECK_WARN);
		if (!audit_peek_str(c, CPU_DIR "/intel_pstate/no_turbo", turbo, sizeof(turbo)) && turbo[0] == '1')
			audit_note(r, "turbo is off (cpu.boost), which lowers the cap too");
		audit_fix(r, "cpupower frequency-set -u <cpuinfo_max_freq>");
		audit_persist(r, "find what sets the cap (TuneD max_perf_pct, a power-capping daemon, the BIOS)");
		r->fix_class = GF_FIX_ADVICE;
	}
}

/* Turbo off costs a third of the clock on most server parts; VMs have no
 * file (TuneD issue #857: verify failed there): na, never a failure. */
static void run_boost(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	const char *path, *want;
	long long v;
	char line[160];

	if (audit_exists(c, CPU_DIR "/intel_pstate/no_turbo")) {
		path = CPU_DIR "/intel_pstate/no_turbo";
		want = "0";
	} else {
		path = CPU_DIR "/cpufreq/boost";
		want = "1";
	}
	if (audit_read_ll(c, r, path, &v)) {
		if (r && r->status == GF_CHECK_NA)
			audit_na(r, "no turbo control (intel_pstate/no_turbo, cpufreq/boost): %s",
				 c->t->machine.hypervisor ? "a VM" : "not exposed by this cpufreq driver");
		return;
	}
	audit_observed(r, "%s=%lld", strrchr(path, '/') + 1, v);
	audit_expected(r, "turbo on (%s=%s)", strrchr(path, '/') + 1, want);
	if (v != atoll(want)) {
		audit_status(r, GF_CHECK_WARN);
		snprintf(line, sizeof(line), "w %s - - - - %s", path, want);
		audit_safe_fix(r, path, want, GF_PERSIST_TMPFILES, line);
	}
}

/* intel_pstate's floor: TuneD's *-performance profiles all set 100 so a
 * core never idles down to a low P-state between batches. */
static void run_min_perf(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	const char *path = CPU_DIR "/intel_pstate/min_perf_pct";
	long long v;

	if (audit_read_ll(c, r, path, &v)) {
		if (r && r->status == GF_CHECK_NA)
			audit_na(r, "no intel_pstate (%s absent)", path);
		return;
	}
	audit_observed(r, "%lld%%", v);
	audit_expected(r, "100%%");
	if (v < 100) {
		audit_status(r, GF_CHECK_WARN);
		audit_safe_fix(r, path, "100", GF_PERSIST_TMPFILES, "w " CPU_DIR "/intel_pstate/min_perf_pct - - - - 100");
	}
}

/* ---- C-states ---- */

#define IDLE_DIR CPU_DIR "/cpu0/cpuidle"
#define MAX_STATES 16

struct idle_state {
	int index;
	char name[32];
	long long latency;	/* exit latency, µs */
	bool disabled;
};

static int cmp_state(const void *a, const void *b)
{
	return ((const struct idle_state *)a)->index - ((const struct idle_state *)b)->index;
}

/* cpu0's idle states, by index; -errno on a read error, count otherwise. */
static int idle_states(struct gf_audit_ctx *c, struct gf_check_result *r, struct idle_state *st)
{
	char **names;
	int n, k = 0, ret = gf_fs_list(&c->fs, IDLE_DIR, &names, &n);

	if (ret)
		return ret == -ENOENT || ret == -ENOTDIR ? 0 : ret;
	for (int i = 0; i < n && k < MAX_STATES; i++) {
		char path[160];
		long long dis;

		if (sscanf(names[i], "state%d", &st[k].index) != 1)
			continue;
		snprintf(path, sizeof(path), IDLE_DIR "/%s/name", names[i]);
		if (audit_read_str(c, r, path, st[k].name, sizeof(st[k].name)))
			goto fail;
		snprintf(path, sizeof(path), IDLE_DIR "/%s/latency", names[i]);
		if (audit_read_ll(c, r, path, &st[k].latency))
			goto fail;
		snprintf(path, sizeof(path), IDLE_DIR "/%s/disable", names[i]);
		if (audit_read_ll(c, r, path, &dis))
			goto fail;
		gf_strip(st[k].name);
		st[k].disabled = dis != 0;
		k++;
	}
	gf_strv_free(names, n);
	qsort(st, (size_t)k, sizeof(*st), cmp_state);
	return k;
fail:
	gf_strv_free(names, n);
	return -EIO;
}

/* The PM QoS target every CPU honours (TuneD's force_latency holds it open):
 * 4 bytes, host endianness.  -errno when it cannot be read. */
static int qos_latency(struct gf_audit_ctx *c, long long *us)
{
	char *data = NULL;
	size_t len;
	int32_t v;
	int ret = gf_fs_read(&c->fs, "/dev/cpu_dma_latency", &data, &len);

	if (ret)
		return ret;
	if (len != sizeof(v)) {
		free(data);
		return -EBADMSG;
	}
	memcpy(&v, data, sizeof(v));
	free(data);
	*us = v;
	return 0;
}

/* The allowed exit latency: training 99 µs (TuneD accelerator-performance
 * force_latency=99); inference that of state 1, i.e. C1 only (TuneD
 * latency-performance cstate.id_no_zero:1). */
static long long idle_limit(struct gf_audit_ctx *c, const struct idle_state *st, int n)
{
	if (c->profile != GF_PROFILE_INFERENCE)
		return 99;
	for (int i = 0; i < n; i++)
		if (st[i].index >= 1)
			return st[i].latency;
	return 0;
}

static void cstate_describe(struct gf_check_result *r, const struct idle_state *st, int n, long long limit)
{
	char buf[256] = "";

	for (int i = 0; i < n; i++) {
		size_t o = strlen(buf);

		if (!st[i].disabled)
			snprintf(buf + o, sizeof(buf) - o, "%s%s %lld us%s", o ? ", " : "", st[i].name, st[i].latency,
				 st[i].latency > limit ? " (deep)" : "");
	}
	audit_observed(r, "enabled: %s", buf[0] ? buf : "none");
}

/* A loader thread that sleeps in C6 needs 100+ µs to wake: bubbles on the
 * GPU. */
static void run_cstate(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	struct idle_state st[MAX_STATES];
	int n = idle_states(c, r, st), deep = 0, ret;
	long long limit, qos;
	char boot[32];

	audit_source(r, IDLE_DIR "/state*/{name,latency,disable}; /dev/cpu_dma_latency");
	if (n < 0) {
		if (r && r->status == GF_CHECK_PASS)
			audit_error(r, "%s: %s", IDLE_DIR, strerror(-n));
		return;
	}
	if (n == 0) {
		audit_na(r, "no cpuidle states (idle=poll, cpuidle off, or a VM without them)");
		return;
	}
	limit = idle_limit(c, st, n);
	for (int i = 0; i < n; i++)
		deep += !st[i].disabled && st[i].latency > limit;
	cstate_describe(r, st, n, limit);
	audit_expected(r, "no enabled state with exit latency above %lld us (%s)", limit,
		       c->profile == GF_PROFILE_INFERENCE ? "inference: C1 only" : "training");
	if (!deep)
		return;
	ret = qos_latency(c, &qos);
	if (!ret && qos <= limit) {
		audit_note(r, "a PM QoS request holds the latency at %lld us (/dev/cpu_dma_latency)", qos);
		return;
	}
	if (ret == -EACCES || ret == -EPERM) {
		/* TuneD may hold them off: only root can tell. */
		audit_status(r, GF_CHECK_NEEDS_ROOT);
		audit_note(r, "deep states are enabled; whether a PM QoS request keeps them out needs root "
			      "(/dev/cpu_dma_latency)");
		return;
	}
	audit_status(r, GF_CHECK_WARN);
	if (audit_cmdline_param(c, "intel_idle.max_cstate", boot, sizeof(boot)) == 1 ||
	    audit_cmdline_param(c, "processor.max_cstate", boot, sizeof(boot)) == 1)
		audit_note(r, "max_cstate=%s on the kernel command line still allows them", boot);
	else if (!c->live)
		audit_note(r, "a recording holds no PM QoS request (/dev/cpu_dma_latency): TuneD may hold one");
	else if (c->t->machine.hypervisor)
		audit_note(r, "a VM: the host's C-states add to these");
	audit_fix(r, "cpupower idle-set -D %lld (disables states of %lld us and more)", limit + 1, limit + 1);
	audit_persist(r, "TuneD accelerator-performance (force_latency=99) or latency-performance, or a BIOS C-state "
			 "limit");
	r->fix_class = GF_FIX_ADVICE;
}

/* The NMI watchdog interrupts every CPU periodically through a perf
 * counter: jitter a latency-bound server does without (TuneD
 * network-latency kernel.nmi_watchdog=0).  Training does not care. */
static void run_nmi_watchdog(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	long long v;

	if (audit_read_ll(c, r, "/proc/sys/kernel/nmi_watchdog", &v))
		return;
	audit_observed(r, "%lld", v);
	if (c->profile != GF_PROFILE_INFERENCE) {
		audit_expected(r, "0 or 1 (training)");
		return;
	}
	audit_expected(r, "0 (inference)");
	if (v != 0) {
		audit_status(r, GF_CHECK_WARN);
		audit_sysctl_fix(r, "kernel.nmi_watchdog", "0");
	}
}

const struct gf_check_def gf_checks_cpu[] = {
	{ { "cpu.governor", "cpu", "CPUs should run the performance governor",
	    "a power-saving governor slows the cores that feed the GPUs; docs/checks.md#cpu.governor; "
	    "\"CPU Performance Scaling\", https://docs.kernel.org/admin-guide/pm/cpufreq.html; "
	    "\"TuneD accelerator-performance profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/accelerator-performance/tuned.conf",
	    CPU_DIR "/cpu*/cpufreq/scaling_governor", "performance (na without cpufreq)",
	    "performance (na without cpufreq)", "cpupower frequency-set -g performance", 0 },
	  run_governor },
	{ { "cpu.epp", "cpu", "the energy preference should be performance",
	    "an energy-saving preference lets the hardware lower the cores' frequency; docs/checks.md#cpu.epp; "
	    "\"intel_pstate CPU Performance Scaling Driver\", https://docs.kernel.org/admin-guide/pm/intel_pstate.html; "
	    "\"TuneD throughput-performance profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/throughput-performance/tuned.conf",
	    CPU_DIR "/cpu*/cpufreq/energy_performance_preference", "performance", "performance",
	    "echo performance > cpu*/cpufreq/energy_performance_preference", 0 },
	  run_epp },
	{ { "cpu.max-freq", "cpu", "no CPU frequency cap should sit below the hardware's",
	    "a frequency cap below the hardware's slows the cores that feed the GPUs; "
	    "docs/checks.md#cpu.max-freq; "
	    "\"CPU Performance Scaling\", https://docs.kernel.org/admin-guide/pm/cpufreq.html",
	    CPU_DIR "/cpu*/cpufreq/{scaling_max_freq,cpuinfo_max_freq}", "scaling_max_freq = cpuinfo_max_freq",
	    "scaling_max_freq = cpuinfo_max_freq", "cpupower frequency-set -u <cpuinfo_max_freq>", 0 },
	  run_max_freq },
	{ { "cpu.boost", "cpu", "turbo should be on",
	    "turbo gives the feeding threads their highest frequency (absent in many VMs: na); "
	    "docs/checks.md#cpu.boost; "
	    "\"CPU Performance Scaling\", https://docs.kernel.org/admin-guide/pm/cpufreq.html; "
	    "\"TuneD accelerator-performance profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/accelerator-performance/tuned.conf",
	    CPU_DIR "/intel_pstate/no_turbo or " CPU_DIR "/cpufreq/boost", "on (na when absent)",
	    "on (na when absent)", "echo 0 > intel_pstate/no_turbo or echo 1 > cpufreq/boost (safe)", 0 },
	  run_boost },
	{ { "cpu.min-perf", "cpu", "intel_pstate's floor should be 100%",
	    "a floor below 100% lets idle cores wake slowly; docs/checks.md#cpu.min-perf; "
	    "\"intel_pstate CPU Performance Scaling Driver\", https://docs.kernel.org/admin-guide/pm/intel_pstate.html; "
	    "\"TuneD accelerator-performance profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/accelerator-performance/tuned.conf",
	    CPU_DIR "/intel_pstate/min_perf_pct",
	    "100", "100", "echo 100 > " CPU_DIR "/intel_pstate/min_perf_pct (safe)", 0 },
	  run_min_perf },
	{ { "cpu.cstate", "cpu", "deep C-states should not delay the GPU's feeders",
	    "waking from a deep C-state adds latency to every launch and completion; "
	    "docs/checks.md#cpu.cstate; "
	    "\"CPU Idle Time Management\", https://docs.kernel.org/admin-guide/pm/cpuidle.html; "
	    "\"TuneD accelerator-performance profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/accelerator-performance/tuned.conf",
	    IDLE_DIR "/state*/{name,latency,disable}; /dev/cpu_dma_latency; /proc/cmdline max_cstate",
	    "no enabled state above 99 us", "C1 only (no state above state1's latency)",
	    "cpupower idle-set -D 100; persist with TuneD or the BIOS", 0 },
	  run_cstate },
	{ { "cpu.nmi-watchdog", "cpu", "the NMI watchdog should be off on latency-bound hosts",
	    "the NMI watchdog's periodic interrupts add jitter on latency-bound hosts; "
	    "docs/checks.md#cpu.nmi-watchdog; "
	    "\"Softlockup detector and hardlockup detector (aka nmi_watchdog)\", https://docs.kernel.org/admin-guide/lockup-watchdogs.html; "
	    "\"TuneD network-latency profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/network-latency/tuned.conf",
	    "/proc/sys/kernel/nmi_watchdog",
	    "0 or 1", "0", "sysctl -w kernel.nmi_watchdog=0 (safe)", 0 },
	  run_nmi_watchdog },
	GF_CHECK_END,
};
