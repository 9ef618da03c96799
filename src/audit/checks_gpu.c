/* GPU and NVIDIA stack checks (docs/checks.md, "GPU and the NVIDIA stack",
 * which names each one's public source; several follow DCGM's software
 * deployment checks).
 *
 * Everything here is read-only: the GPU state comes from the NVML facts
 * (live NVML or the recording's nvml.json), the rest from files through
 * the context.  A fix that changes GPU state or a service is advice only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include <gpufeed/record.h>
#include "audit/audit_internal.h"
#include "audit/audit_record.h"
#include "core/strutil.h"

/* ---- shared helpers ---- */

/* The per-GPU checks read NVML facts; without them one na result says why. */
static bool need_nvml(struct gf_audit_ctx *c)
{
	if (c->nvml && c->nvml->ngpus > 0)
		return true;
	audit_na(audit_result(c, ""), "no NVML facts: %s",
		 c->nvml ? "NVML lists no GPU" : c->nvml_why[0] ? c->nvml_why : "NVML not available");
	return false;
}

/* A result for one GPU ("GPU<index>") whose source is an NVML field. */
static struct gf_check_result *gpu_result(struct gf_audit_ctx *c, const struct gf_nvml_gpu *g,
					  const char *call, const char *key)
{
	char subject[24];
	struct gf_check_result *r;

	snprintf(subject, sizeof(subject), "GPU%d", g->index);
	r = audit_result(c, subject);
	audit_source(r, "NVML %s (nvml.json gpus[%d].%s)", call, g->index, key);
	return r;
}

static void advice(struct gf_check_result *r, const char *fix, const char *persist)
{
	if (!r)
		return;
	audit_fix(r, "%s", fix);
	if (persist)
		audit_persist(r, "%s", persist);
	r->fix_class = GF_FIX_ADVICE;
}

/* How many processes of a kind run.  -ENOENT when the process list cannot
 * be seen: a recording made without it has no /proc/1/comm (record keeps
 * init's comm as the marker). */
static int count_procs(struct gf_audit_ctx *c, enum audit_process which, int *n)
{
	int ret = audit_processes(c, which, NULL);

	*n = ret > 0 ? ret : 0;
	return ret < 0 ? ret : 0;
}

/* ---- gpu.nouveau ---- */

/* nouveau claims NVIDIA GPUs before nvidia.ko can (DCGM's denylist fails
 * it): the GPUs vanish from NVML, or the two drivers fight at next probe. */
static void run_nouveau(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	int nvidia = 0, bound = 0;
	char first[16] = "";
	bool loaded = audit_exists(c, "/sys/module/nouveau");

	for (int i = 0; i < c->t->npci; i++) {
		const struct gf_pci_dev *d = &c->t->pci[i];

		if (d->vendor != 0x10de)
			continue;
		nvidia++;
		if (!strcmp(d->driver, "nouveau") && !bound++)
			gf_strlcpy(first, d->bdf, sizeof(first));
	}
	audit_source(r, "/sys/module/nouveau; /sys/bus/pci/devices/*/driver");
	if (!nvidia) {
		audit_na(r, "no NVIDIA PCI device here");
		return;
	}
	audit_expected(r, "nouveau not loaded");
	if (bound)
		audit_observed(r, "nouveau drives %d NVIDIA device%s (%s%s)", bound, bound == 1 ? "" : "s", first,
			       bound > 1 ? ", ..." : "");
	else
		audit_observed(r, loaded ? "nouveau loaded (not bound)" : "nouveau not loaded");
	if (bound || loaded) {
		audit_status(r, GF_CHECK_FAIL);
		advice(r, "blacklist nouveau and reboot (rmmod nouveau only works with no display on it)",
		       "/etc/modprobe.d/blacklist-nouveau.conf: 'blacklist nouveau' and 'options nouveau modeset=0'; "
		       "rebuild the initramfs");
	}
}

/* ---- gpu.devnodes ---- */

/* The device nodes the recording's manifest lists (record cannot copy
 * device nodes, it keeps their names); NULL when it lists none. */
static json_t *recorded_nodes(struct gf_audit_ctx *c)
{
	char *data = NULL;
	size_t len;
	json_t *root, *nodes;

	if (gf_fs_read(&c->fs, "/" GF_RECORD_MANIFEST, &data, &len))
		return NULL;
	root = json_loadb(data, len, 0, NULL);
	free(data);
	nodes = json_object_get(root, "dev_nodes");
	if (!json_is_array(nodes)) {
		json_decref(root);
		return NULL;
	}
	json_incref(nodes);
	json_decref(root);
	return nodes;
}

static bool has_node(struct gf_audit_ctx *c, json_t *nodes, const char *name)
{
	char path[64];
	size_t i;
	json_t *v;

	if (c->live) {
		snprintf(path, sizeof(path), "/dev/%s", name);
		return audit_exists(c, path);
	}
	json_array_foreach(nodes, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), name))
			return true;
	return false;
}

/* GPU minors to expect: NVML's (in a container, the GPUs it was given),
 * else the model's. */
static int expected_minors(struct gf_audit_ctx *c, int *minors, int max)
{
	int n = 0;

	if (c->nvml)
		for (int i = 0; i < c->nvml->ngpus && n < max; i++)
			if (c->nvml->gpus[i].minor >= 0)
				minors[n++] = c->nvml->gpus[i].minor;
	if (!n)
		for (int i = 0; i < c->t->ngpus && n < max; i++)
			if (c->t->gpus[i].minor >= 0)
				minors[n++] = c->t->gpus[i].minor;
	return n;
}

static void append(char *buf, size_t size, const char *word)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s", len ? " " : "", word);
}

/* CUDA opens /dev/nvidiactl, /dev/nvidia<minor> and /dev/nvidia-uvm; a node
 * missing (a container given too few, udev or nvidia-modprobe not run)
 * fails the job at cuInit (DCGM "Permissions and OS blocks"). */
static void run_devnodes(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	json_t *nodes = NULL;
	int minors[256], n, missing = 0;
	char miss[200] = "", name[32];
	bool uvm_only = false;

	audit_source(r, c->live ? "/dev/nvidia*" : GF_RECORD_MANIFEST " dev_nodes");
	if (!c->live && !(nodes = recorded_nodes(c))) {
		audit_na(r, "the recording does not list device nodes (made from a recording, or by an older gpufeed)");
		return;
	}
	n = expected_minors(c, minors, 256);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "nvidia%d", minors[i]);
		if (!has_node(c, nodes, name) && ++missing)
			append(miss, sizeof(miss), name);
	}
	if (!has_node(c, nodes, "nvidiactl") && ++missing)
		append(miss, sizeof(miss), "nvidiactl");
	if (!has_node(c, nodes, "nvidia-uvm")) {
		uvm_only = !missing;
		missing++;
		append(miss, sizeof(miss), "nvidia-uvm");
	}
	json_decref(nodes);
	audit_expected(r, "nvidiactl, nvidia-uvm and nvidiaN for %d GPU%s", n, n == 1 ? "" : "s");
	if (!missing) {
		audit_observed(r, "all present");
		return;
	}
	audit_observed(r, "missing: %s", miss);
	/* On a host nvidia-modprobe (setuid) creates nvidia-uvm at the first
	 * CUDA call; a container cannot. */
	audit_status(r, uvm_only && !c->container ? GF_CHECK_WARN : GF_CHECK_FAIL);
	advice(r, c->container ? "pass the devices to the container (--gpus, the NVIDIA container toolkit)"
			       : "nvidia-modprobe -u -c=0 (creates nvidia-uvm and the GPU nodes)",
	       c->container ? NULL : "load nvidia and nvidia-uvm at boot (modules-load.d) with the driver's udev rules");
}

/* ---- gpu.persistence ---- */

/* Without a persistent client the driver tears the GPUs down when the last
 * process exits: every job start pays 1-3 s per GPU and loses clocks and
 * ECC state (driver-persistence doc; DCGM warns). */
static void run_persistence(struct gf_audit_ctx *c)
{
	int daemons = 0;
	bool procs;

	if (!need_nvml(c))
		return;
	/* Inside a container the host's daemon cannot be seen. */
	procs = !c->container && count_procs(c, AUDIT_PROC_PERSISTENCED, &daemons) == 0;
	for (int i = 0; i < c->nvml->ngpus; i++) {
		const struct gf_nvml_gpu *g = &c->nvml->gpus[i];
		struct gf_check_result *r = gpu_result(c, g, "nvmlDeviceGetPersistenceMode", "persistence_mode");

		if (g->persistence_mode < 0) {
			audit_na(r, "NVML does not report persistence mode");
			continue;
		}
		audit_observed(r, g->persistence_mode ? "enabled" : "disabled");
		audit_expected(r, "enabled (nvidia-persistenced)");
		if (g->persistence_mode) {
			if (procs && !daemons)
				audit_note(r, "set by nvidia-smi -pm 1 (legacy): no nvidia-persistenced is running");
			continue;
		}
		audit_status(r, GF_CHECK_WARN);
		advice(r, "systemctl enable --now nvidia-persistenced (legacy: nvidia-smi -pm 1)",
		       "systemctl enable nvidia-persistenced");
	}
}

/* ---- gpu.ecc ---- */

static void run_ecc(struct gf_audit_ctx *c)
{
	if (!need_nvml(c))
		return;
	for (int i = 0; i < c->nvml->ngpus; i++) {
		const struct gf_nvml_gpu *g = &c->nvml->gpus[i];
		struct gf_check_result *r = gpu_result(c, g, "nvmlDeviceGetEccMode", "ecc");

		if (g->ecc_current < 0) {
			audit_na(r, "ECC is not supported on this GPU");
			continue;
		}
		audit_observed(r, "current %s, pending %s", g->ecc_current ? "on" : "off",
			       g->ecc_pending < 0 ? "?" : g->ecc_pending ? "on" : "off");
		audit_expected(r, "on, pending = current");
		if (g->ecc_pending >= 0 && g->ecc_pending != g->ecc_current) {
			audit_status(r, GF_CHECK_WARN);
			audit_note(r, "a change waits for a GPU reset or reboot");
			advice(r, "reset the GPU (nvidia-smi -r -i N, idle) or reboot to apply the pending mode", NULL);
		} else if (!g->ecc_current) {
			audit_status(r, GF_CHECK_WARN);
			audit_note(r, "memory errors go undetected and page retirement / row remapping cannot work");
			advice(r, "nvidia-smi -i N -e 1, then reset the GPU or reboot", "ECC mode is kept in the InfoROM");
		}
	}
}

/* ---- gpu.row-remap ---- */

/* HBM GPUs (A100 and later) repair bad rows by remapping them at the next
 * reset: a pending remap or a failed one needs the GPU drained (DCGM);
 * more than 512 uncorrectable remaps is Azure's replace-the-GPU line. */
#define GF_REMAP_UNC_LIMIT 512

static void run_row_remap(struct gf_audit_ctx *c)
{
	if (!need_nvml(c))
		return;
	for (int i = 0; i < c->nvml->ngpus; i++) {
		const struct gf_nvml_gpu *g = &c->nvml->gpus[i];
		struct gf_check_result *r = gpu_result(c, g, "nvmlDeviceGetRemappedRows", "remapped_rows");

		if (g->remap_correctable < 0) {
			audit_na(r, "row remapping is not supported on this GPU");
			continue;
		}
		audit_observed(r, "correctable %lld, uncorrectable %lld, pending %s, failure %s", g->remap_correctable,
			       g->remap_uncorrectable, g->remap_pending > 0 ? "yes" : "no",
			       g->remap_failure > 0 ? "yes" : "no");
		audit_expected(r, "nothing pending, no failure, uncorrectable <= %d", GF_REMAP_UNC_LIMIT);
		if (g->remap_failure > 0) {
			audit_status(r, GF_CHECK_FAIL);
			advice(r, "drain the node; the GPU has no spare rows left: RMA it", NULL);
		} else if (g->remap_uncorrectable > GF_REMAP_UNC_LIMIT) {
			audit_status(r, GF_CHECK_FAIL);
			advice(r, "drain the node and replace the GPU (Azure NHC threshold)", NULL);
		} else if (g->remap_pending > 0) {
			audit_status(r, GF_CHECK_FAIL);
			advice(r, "drain the GPU and reset it (nvidia-smi -r -i N) or reboot to apply the remap", NULL);
		}
	}
}

/* ---- gpu.retired-pages ---- */

/* Before A100, bad pages are retired at the next driver load: until then
 * the page is still handed out (DCGM fails on pending retirements). */
static void run_retired_pages(struct gf_audit_ctx *c)
{
	if (!need_nvml(c))
		return;
	for (int i = 0; i < c->nvml->ngpus; i++) {
		const struct gf_nvml_gpu *g = &c->nvml->gpus[i];
		struct gf_check_result *r =
			gpu_result(c, g, "nvmlDeviceGetRetiredPagesPendingStatus", "retired_pages_pending");

		if (g->retired_pages_pending < 0) {
			audit_na(r, "NVML does not report page retirement (GPUs with row remapping use gpu.row-remap)");
			continue;
		}
		audit_observed(r, g->retired_pages_pending ? "retirement pending" : "none pending");
		audit_expected(r, "none pending");
		if (g->retired_pages_pending) {
			audit_status(r, GF_CHECK_FAIL);
			advice(r, "drain the GPU, then reset it or reload the driver to retire the pages", NULL);
		}
	}
}

/* ---- gpu.clock-events ---- */

/* nvmlClocksEventReasons bits (nvml.h).  Idle (0x1), application clocks
 * (0x2), the software power cap (0x4), sync boost (0x10) and the display
 * clock (0x100) are normal; the others slow the GPU down for protection. */
#define GF_CLK_SW_THERMAL	0x20LL
#define GF_CLK_HW_SLOWDOWN	0x08LL
#define GF_CLK_HW_THERMAL	0x40LL
#define GF_CLK_HW_POWER_BRAKE	0x80LL

static void clock_words(long long v, char *buf, size_t size)
{
	static const struct {
		long long bit;
		const char *word;
	} bits[] = { { 0x1, "idle" }, { 0x2, "app-clocks" }, { 0x4, "sw-power-cap" }, { 0x8, "hw-slowdown" },
		     { 0x10, "sync-boost" }, { 0x20, "sw-thermal" }, { 0x40, "hw-thermal" },
		     { 0x80, "hw-power-brake" }, { 0x100, "display-clocks" } };

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (v & bits[i].bit)
			append(buf, size, bits[i].word);
	if (!buf[0])
		gf_strlcpy(buf, "none", size);
}

static void run_clock_events(struct gf_audit_ctx *c)
{
	if (!need_nvml(c))
		return;
	for (int i = 0; i < c->nvml->ngpus; i++) {
		const struct gf_nvml_gpu *g = &c->nvml->gpus[i];
		struct gf_check_result *r =
			gpu_result(c, g, "nvmlDeviceGetCurrentClocksEventReasons", "clocks_event_reasons");
		char words[160];

		if (g->clocks_event_reasons < 0) {
			audit_na(r, "NVML does not report clock event reasons");
			continue;
		}
		clock_words(g->clocks_event_reasons, words, sizeof(words));
		audit_observed(r, "0x%llx (%s)", (unsigned long long)g->clocks_event_reasons, words);
		audit_expected(r, "no hw-slowdown, hw-thermal, hw-power-brake or sw-thermal");
		if (g->clocks_event_reasons & (GF_CLK_HW_SLOWDOWN | GF_CLK_HW_THERMAL | GF_CLK_HW_POWER_BRAKE)) {
			audit_status(r, GF_CHECK_FAIL);
			advice(r, "check cooling, power supplies and the BMC event log (nvidia-smi -q -d PERFORMANCE)",
			       NULL);
		} else if (g->clocks_event_reasons & GF_CLK_SW_THERMAL) {
			audit_status(r, GF_CHECK_WARN);
			advice(r, "check cooling and inlet temperature (nvidia-smi -q -d TEMPERATURE)", NULL);
		}
	}
}

/* ---- gpu.power-limit ---- */

/* A power cap below the board's default throttles every kernel; often a
 * leftover nvidia-smi -pl or a rack power policy nobody remembers. */
static void run_power_limit(struct gf_audit_ctx *c)
{
	if (!need_nvml(c))
		return;
	for (int i = 0; i < c->nvml->ngpus; i++) {
		const struct gf_nvml_gpu *g = &c->nvml->gpus[i];
		struct gf_check_result *r =
			gpu_result(c, g, "nvmlDeviceGetEnforcedPowerLimit / GetPowerManagementDefaultLimit",
				   "power_limit_mw");
		long long lim = g->power_enforced_mw >= 0 ? g->power_enforced_mw : g->power_current_mw;

		if (lim < 0 || g->power_default_mw <= 0) {
			audit_na(r, "NVML does not report the power limits of this GPU");
			continue;
		}
		audit_observed(r, "%lld W enforced", lim / 1000);
		audit_expected(r, ">= %lld W (default)", g->power_default_mw / 1000);
		if (lim < g->power_default_mw) {
			audit_status(r, GF_CHECK_WARN);
			audit_note(r, "capped at %lld%% of the default", lim * 100 / g->power_default_mw);
			advice(r, "nvidia-smi -i N -pl <default W>, unless a site power policy set the cap",
			       "a unit after nvidia-persistenced that sets the limit (not kept across driver reloads)");
		}
	}
}

/* ---- gpu.mig ---- */

/* MIG splits a GPU: a training job sees a slice, and a pending mode that
 * differs from the current one changes the layout at the next reset. */
static void run_mig(struct gf_audit_ctx *c)
{
	if (!need_nvml(c))
		return;
	for (int i = 0; i < c->nvml->ngpus; i++) {
		const struct gf_nvml_gpu *g = &c->nvml->gpus[i];
		struct gf_check_result *r = gpu_result(c, g, "nvmlDeviceGetMigMode", "mig");

		if (g->mig_current < 0) {
			audit_na(r, "this GPU does not support MIG");
			continue;
		}
		audit_observed(r, "current %s, pending %s%s", g->mig_current ? "enabled" : "disabled",
			       g->mig_pending < 0 ? "?" : g->mig_pending ? "enabled" : "disabled",
			       g->mig_current ? (g->nmig ? "" : ", no instances") : "");
		audit_expected(r, c->profile == GF_PROFILE_TRAINING ? "disabled" : "as the node's role declares");
		if (g->mig_pending >= 0 && g->mig_pending != g->mig_current) {
			audit_status(r, GF_CHECK_FAIL);
			audit_note(r, "the mode changes at the next GPU reset or reboot");
			advice(r, "reset the GPU (nvidia-smi -r -i N) or set the mode back (nvidia-smi -i N -mig 0|1)",
			       "nvidia-mig-manager / mig-parted configuration");
		} else if (g->mig_current && c->profile == GF_PROFILE_TRAINING) {
			audit_status(r, GF_CHECK_WARN);
			audit_note(r, "a training job gets a slice of the GPU, and no NVLink P2P between slices");
			advice(r, "nvidia-smi -i N -mig 0, then reset the GPU", "nvidia-mig-manager / mig-parted configuration");
		} else if (g->mig_current && !g->nmig) {
			audit_status(r, GF_CHECK_WARN);
			audit_note(r, "MIG is on but no instance exists: no CUDA device is usable");
			advice(r, "create instances (nvidia-smi mig -cgi ... -C)", "nvidia-mig-manager / mig-parted configuration");
		}
	}
}

/* ---- gpu.compute-mode ---- */

/* PROHIBITED allows no CUDA context; EXCLUSIVE_PROCESS lets one process
 * hold the GPU (with MPS: the server), so a leftover or a second tool gets
 * "all CUDA-capable devices are busy". */
static void run_compute_mode(struct gf_audit_ctx *c)
{
	if (!need_nvml(c))
		return;
	for (int i = 0; i < c->nvml->ngpus; i++) {
		const struct gf_nvml_gpu *g = &c->nvml->gpus[i];
		struct gf_check_result *r = gpu_result(c, g, "nvmlDeviceGetComputeMode", "compute_mode");
		const char *m = g->compute_mode;
		bool training = c->profile == GF_PROFILE_TRAINING;

		if (!m[0] || !strcmp(m, "unknown")) {
			audit_na(r, "NVML does not report the compute mode");
			continue;
		}
		audit_observed(r, "%s", m);
		audit_expected(r, training ? "default" : "default or exclusive_process (MPS)");
		if (!strcmp(m, "prohibited")) {
			audit_status(r, GF_CHECK_FAIL);
		} else if (!strcmp(m, "exclusive_thread") || (training && !strcmp(m, "exclusive_process"))) {
			audit_status(r, GF_CHECK_WARN);
		} else if (strcmp(m, "default") && strcmp(m, "exclusive_process")) {
			audit_error(r, "unknown compute mode '%s'", m);
			continue;
		} else {
			continue;
		}
		advice(r, "nvidia-smi -i N -c DEFAULT", "a unit after nvidia-persistenced (not kept across driver reloads)");
	}
}

/* ---- gpu.mps ---- */

/* An MPS control daemon funnels every CUDA process through one server: fine
 * for packing inference, wrong for a training job that expects the GPU. */
static void run_mps(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	int n = 0;
	int ret = count_procs(c, AUDIT_PROC_MPS, &n);

	audit_source(r, "/proc/*/comm (nvidia-cuda-mps-control, nvidia-cuda-mps-server)");
	if (ret == -ENOENT) {
		audit_na(r, "the process list is not available (recorded without it)");
		return;
	}
	if (ret) {
		audit_error(r, "cannot list /proc: %s", strerror(-ret));
		return;
	}
	audit_observed(r, n ? "%d MPS process%s running" : "no MPS daemon", n, n == 1 ? "" : "es");
	audit_expected(r, c->profile == GF_PROFILE_TRAINING ? "no MPS daemon" : "as the node's role declares");
	if (n && c->profile == GF_PROFILE_TRAINING) {
		audit_status(r, GF_CHECK_WARN);
		advice(r, "echo quit | nvidia-cuda-mps-control", "disable the unit that starts nvidia-cuda-mps-control -d");
	}
}

/* ---- gpu.driver-cuda ---- */

struct cuda_rt {
	int major, minor;		/* -1: none found */
	char from[200];
};

/* The strictest runtime found wins: a newer major needs a newer driver. */
static void consider(struct cuda_rt *rt, int major, int minor, const char *from)
{
	if (major <= 0 || major > 99)
		return;
	if (major > rt->major || (major == rt->major && minor > rt->minor)) {
		rt->major = major;
		rt->minor = minor < 0 ? 0 : minor;
		gf_strlcpy(rt->from, from, sizeof(rt->from));
	}
}

static void rt_from_text(struct cuda_rt *rt, const char *text, const char *from)
{
	int major = -1, minor = -1;

	if (text && sscanf(text, "%d.%d", &major, &minor) >= 1)
		consider(rt, major, minor, from);
}

static void rt_from_env(struct gf_audit_ctx *c, struct cuda_rt *rt)
{
	const char *req = audit_getenv(c, "NVIDIA_REQUIRE_CUDA");
	const char *p = req ? strstr(req, "cuda>=") : NULL;

	/* The nvidia/cuda images: NVIDIA_REQUIRE_CUDA="cuda>=12.4 brand=...". */
	if (p)
		rt_from_text(rt, p + 6, "NVIDIA_REQUIRE_CUDA");
	rt_from_text(rt, audit_getenv(c, "CUDA_VERSION"), "CUDA_VERSION");
}

static void rt_from_toolkit(struct gf_audit_ctx *c, struct cuda_rt *rt)
{
	char buf[256], *data = NULL;
	size_t len;
	json_t *root;

	/* version.json lists every component: several kB. */
	if (gf_fs_read(&c->fs, "/usr/local/cuda/version.json", &data, &len) == 0) {
		if ((root = json_loadb(data, len, 0, NULL)))
			rt_from_text(rt, json_string_value(json_object_get(json_object_get(root, "cuda"), "version")),
				     "/usr/local/cuda/version.json");
		json_decref(root);
		free(data);
	}
	/* Toolkits before 11.1: "CUDA Version 11.0.228". */
	if (audit_peek_str(c, "/usr/local/cuda/version.txt", buf, sizeof(buf)) == 0 &&
	    gf_starts_with(buf, "CUDA Version "))
		rt_from_text(rt, buf + 13, "/usr/local/cuda/version.txt");
}

/* The runtime library's name carries its version: libcudart.so.12 or
 * libcudart.so.12.4.127 (a recording keeps these names, not the library). */
#define CUDART_PREFIX "libcudart.so."

const struct gf_audit_name_dir gf_audit_name_dirs[] = {
	{ "/usr/local/cuda/lib64", CUDART_PREFIX },	 { "/usr/lib/x86_64-linux-gnu", CUDART_PREFIX },
	{ "/usr/lib/aarch64-linux-gnu", CUDART_PREFIX }, { "/usr/lib64", CUDART_PREFIX },
	{ NULL, NULL },
};

static void rt_from_libs(struct gf_audit_ctx *c, struct cuda_rt *rt)
{
	for (const struct gf_audit_name_dir *d = gf_audit_name_dirs; d->dir; d++) {
		char **names;
		int n;

		if (gf_fs_list(&c->fs, d->dir, &names, &n))
			continue;
		for (int i = 0; i < n; i++)
			if (gf_starts_with(names[i], CUDART_PREFIX)) {
				char from[200];

				snprintf(from, sizeof(from), "%s/%s", d->dir, names[i]);
				rt_from_text(rt, names[i] + strlen(CUDART_PREFIX), from);
			}
		gf_strv_free(names, n);
	}
}

/* Minimum driver per CUDA major (CUDA minor-version compatibility doc). */
static int min_driver(int major)
{
	switch (major) {
	case 11: return 450;
	case 12: return 525;
	case 13: return 580;
	default: return -1;
	}
}

static void run_driver_cuda(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	struct cuda_rt rt = { -1, -1, "" };
	const char *drv = c->t->machine.driver_version;
	int dmaj = atoi(drv), need, dcuda = c->t->machine.cuda_driver_version;

	rt_from_env(c, &rt);
	rt_from_toolkit(c, &rt);
	rt_from_libs(c, &rt);
	audit_source(r, "driver: NVML / /proc/driver/nvidia/version; runtime: %s",
		     rt.from[0] ? rt.from : "NVIDIA_REQUIRE_CUDA, CUDA_VERSION, /usr/local/cuda, libcudart.so.*");
	if (rt.major < 0) {
		audit_na(r, "no CUDA runtime found (NVIDIA_REQUIRE_CUDA, CUDA_VERSION, toolkit, libcudart)");
		return;
	}
	if (dmaj <= 0) {
		audit_na(r, "no NVIDIA driver version known");
		return;
	}
	if ((need = min_driver(rt.major)) < 0) {
		audit_na(r, "no minimum driver known for CUDA %d.%d", rt.major, rt.minor);
		return;
	}
	audit_observed(r, "driver %s, CUDA runtime %d.%d", drv, rt.major, rt.minor);
	audit_expected(r, "driver >= %d for CUDA %d.x", need, rt.major);
	if (dmaj < need) {
		bool compat = audit_exists(c, "/usr/local/cuda/compat/libcuda.so.1");

		audit_status(r, compat ? GF_CHECK_WARN : GF_CHECK_FAIL);
		if (compat)
			audit_note(r, "cuda-compat is installed: works on data-center GPUs only, with its own limits");
		advice(r, "install a driver >= the runtime's minimum, or the cuda-compat package", "pin the driver "
		       "and toolkit packages together");
	} else if (dcuda > 0 && rt.major * 1000 + rt.minor * 10 > dcuda) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "the driver supports CUDA %d.%d: the runtime runs under minor-version compatibility "
			   "(newer PTX cannot be JIT-compiled)", dcuda / 1000, dcuda % 1000 / 10);
		audit_fix(r, "upgrade the driver to one that ships CUDA %d.%d", rt.major, rt.minor);
		r->fix_class = GF_FIX_ADVICE;
	}
}

/* ---- gpu.fabric-manager ---- */

/* A GPU whose fabric registration did not complete has no NVLink P2P
 * through the NVSwitches (CUDA answers cudaErrorSystemNotReady). */
static bool fabric_bad(const struct gf_nvml_gpu *g)
{
	return g->fabric_known && strcmp(g->fabric_state, "not_supported") &&
	       (strcmp(g->fabric_state, "completed") || g->fabric_status > 0);
}

static void fabric_gpus(struct gf_audit_ctx *c, bool vm)
{
	for (int i = 0; c->nvml && i < c->nvml->ngpus; i++) {
		const struct gf_nvml_gpu *g = &c->nvml->gpus[i];
		struct gf_check_result *r;

		/* In a VM only a failed registration is worth a result. */
		if (vm && !fabric_bad(g))
			continue;
		r = gpu_result(c, g, "nvmlDeviceGetGpuFabricInfo", "fabric");
		if (!g->fabric_known || !strcmp(g->fabric_state, "not_supported")) {
			audit_na(r, "NVML does not report fabric state (before Hopper)");
			continue;
		}
		audit_observed(r, "state %s, status %lld", g->fabric_state, g->fabric_status);
		audit_expected(r, "state completed, status 0");
		if (fabric_bad(g)) {
			audit_status(r, vm ? GF_CHECK_WARN : GF_CHECK_FAIL);
			if (vm)
				audit_note(r, "the host's Fabric Manager did not register this GPU");
			advice(r, vm ? "ask the host's operator: the GPU is not registered with the NVLink fabric"
				     : "systemctl restart nvidia-fabricmanager (with no CUDA job running)",
			       vm ? NULL : "systemctl enable nvidia-fabricmanager; pin it to the driver's version");
		}
	}
}

static void fabric_daemon(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	int n = 0, ret;

	audit_source(r, "/proc/*/comm (nv-fabricmanager)");
	if (c->container) {
		audit_na(r, "the host's processes are not visible inside a container");
		return;
	}
	if ((ret = count_procs(c, AUDIT_PROC_FABRICMANAGER, &n)) == -ENOENT) {
		audit_na(r, "the process list is not available (recorded without it)");
		return;
	}
	if (ret) {
		audit_error(r, "cannot list /proc: %s", strerror(-ret));
		return;
	}
	audit_observed(r, n ? "nv-fabricmanager running" : "nv-fabricmanager not running");
	audit_expected(r, "running (%d NVSwitch%s)", c->t->nvswitches, c->t->nvswitches == 1 ? "" : "es");
	if (!n) {
		audit_status(r, GF_CHECK_FAIL);
		advice(r, "systemctl start nvidia-fabricmanager",
		       "systemctl enable nvidia-fabricmanager; its version must equal the driver's");
	}
}

static void run_fabric_manager(struct gf_audit_ctx *c)
{
	const struct gf_topo *t = c->t;
	int before = c->a->nresults;

	if (!t->nvswitch && t->nvswitches <= 0) {
		audit_na(audit_result(c, ""), "no NVSwitch: Fabric Manager is not needed");
		return;
	}
	if (t->machine.hypervisor || t->nvswitches <= 0) {
		fabric_gpus(c, true);
		if (c->a->nresults == before)
			audit_na(audit_result(c, ""), "a VM whose NVSwitches are hidden: the host runs Fabric Manager");
		return;
	}
	fabric_daemon(c);
	fabric_gpus(c, false);
}

/* ---- gpu.nvlink ---- */

/* A link down halves (or worse) NVLink bandwidth for every collective that
 * crosses it.  Boards with fewer wired links (PCIe cards with a bridge)
 * report them inactive too, so a GPU is compared with its own kind. */
static int active_links(const struct gf_nvml_gpu *g)
{
	int n = 0;

	for (int l = 0; l < g->nlinks; l++)
		n += g->links[l].active;
	return n;
}

static void run_nvlink(struct gf_audit_ctx *c)
{
	int linked = 0;

	if (!need_nvml(c))
		return;
	for (int i = 0; i < c->nvml->ngpus; i++)
		linked += c->nvml->gpus[i].nlinks > 0 || c->nvml->gpus[i].links_unknown;
	if (!linked) {
		audit_na(audit_result(c, ""), "no GPU here has NVLink");
		return;
	}
	for (int i = 0; i < c->nvml->ngpus; i++) {
		const struct gf_nvml_gpu *g = &c->nvml->gpus[i];
		struct gf_check_result *r = gpu_result(c, g, "nvmlDeviceGetNvLinkState", "nvlinks");
		int act = active_links(g), best = act, peer = -1;

		if (g->links_unknown || g->nlinks == 0) {
			audit_na(r, g->links_unknown ? "NVLink state not believable (see topo warnings)" : "no NVLink");
			continue;
		}
		for (int j = 0; j < c->nvml->ngpus; j++) {
			const struct gf_nvml_gpu *o = &c->nvml->gpus[j];

			if (!o->links_unknown && !strcmp(o->name, g->name) && active_links(o) > best) {
				best = active_links(o);
				peer = o->index;
			}
		}
		audit_observed(r, "%d of %d links active", act, g->nlinks);
		audit_expected(r, "%d active (as the other %s)", best, g->name[0] ? g->name : "GPUs");
		if (act < best) {
			audit_status(r, GF_CHECK_FAIL);
			audit_note(r, "GPU%d has %d active links", peer, best);
			advice(r, "drain the node; reset the GPU or reboot, then reseat or RMA if the link stays down",
			       NULL);
		}
	}
}

/* ---- gpu.env ---- */

/* DCGM's "CUDA performance-limiting environment variables" (nvvs
 * Software.cpp), set at all: warn.  NCCL_* belong to the nccl checks. */
static const char *const cuda_env[] = {
	"NSIGHT_CUDA_DEBUGGER", "CUDA_INJECTION32_PATH", "CUDA_INJECTION64_PATH", "CUDA_AUTO_BOOST",
	"CUDA_ENABLE_COREDUMP_ON_EXCEPTION", "CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION", "CUDA_COREDUMP_FILE",
	"CUDA_DEVICE_WAITS_ON_EXCEPTION", "CUDA_PROFILE", "COMPUTE_PROFILE", "OPENCL_PROFILE", NULL,
};

static void run_env(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char found[240] = "", unset[240] = "unset";
	const char *v;
	int n = 0;

	audit_source(r, c->live ? "this process's environment" : GF_RECORD_MANIFEST " environ");
	for (int i = 0; cuda_env[i]; i++)
		if ((v = audit_getenv(c, cuda_env[i])) && ++n) {
			char kv[160];

			snprintf(kv, sizeof(kv), "%s=%s", cuda_env[i], v);
			append(found, sizeof(found), kv);
			append(unset, sizeof(unset), cuda_env[i]);
		}
	/* CUDA_LAUNCH_BLOCKING and the PyTorch debugging switches are
	 * nccl.cuda-debug's: one value, one check. */
	audit_observed(r, n ? "%s" : "none set", found);
	audit_expected(r, "none of DCGM's performance-limiting CUDA variables");
	if (n) {
		audit_status(r, GF_CHECK_WARN);
		advice(r, unset, "remove them from the job's environment, profile scripts, units and images");
	}
}

const struct gf_check_def gf_checks_gpu[] = {
	{ { "gpu.nouveau", "gpu", "nouveau should not be loaded",
	    "nouveau conflicts with the NVIDIA driver; docs/checks.md#gpu.nouveau; "
	    "\"DCGM Software Deployment Checks\", https://docs.nvidia.com/datacenter/dcgm/latest/reference/diagnostics/plugins/software.html",
	    "/sys/module/nouveau; the driver link of every NVIDIA PCI device", "not loaded", "not loaded",
	    "blacklist nouveau (modprobe.d), rebuild the initramfs, reboot", 0 },
	  run_nouveau },
	{ { "gpu.devnodes", "gpu", "every GPU's device node should exist",
	    "a GPU without its /dev/nvidiaN node cannot be opened; docs/checks.md#gpu.devnodes; "
	    "\"DCGM Software Deployment Checks\", https://docs.nvidia.com/datacenter/dcgm/latest/reference/diagnostics/plugins/software.html",
	    "/dev/nvidia<minor>, /dev/nvidiactl, /dev/nvidia-uvm (recordings: manifest dev_nodes)", "all present",
	    "all present", "nvidia-modprobe -u -c=0; pass the devices to the container", GF_CHECK_NEEDS_GPU },
	  run_devnodes },
	{ { "gpu.persistence", "gpu", "persistence mode should be on",
	    "without persistence the driver tears down idle GPUs and re-initialises them (seconds each); "
	    "docs/checks.md#gpu.persistence; "
	    "\"NVIDIA Driver Persistence\", https://docs.nvidia.com/deploy/driver-persistence/index.html; "
	    "\"DCGM Software Deployment Checks\", https://docs.nvidia.com/datacenter/dcgm/latest/reference/diagnostics/plugins/software.html",
	    "NVML nvmlDeviceGetPersistenceMode (nvml.json persistence_mode)", "enabled (nvidia-persistenced)",
	    "enabled (nvidia-persistenced)", "systemctl enable --now nvidia-persistenced", GF_CHECK_NEEDS_GPU },
	  run_persistence },
	{ { "gpu.ecc", "gpu", "ECC should be on with no change pending",
	    "without ECC memory errors go undetected; a pending change takes effect at the next reset; "
	    "docs/checks.md#gpu.ecc; "
	    "\"nvidia-smi documentation\", https://docs.nvidia.com/deploy/nvidia-smi/index.html; "
	    "\"NVIDIA Dynamic Page Retirement\", https://docs.nvidia.com/deploy/dynamic-page-retirement/index.html",
	    "NVML nvmlDeviceGetEccMode current/pending (nvml.json ecc)", "on, pending = current",
	    "on, pending = current", "nvidia-smi -e 1 and a GPU reset (stored in the InfoROM)", GF_CHECK_NEEDS_GPU },
	  run_ecc },
	{ { "gpu.row-remap", "gpu", "no row remap should be pending or failed",
	    "a pending remap needs a GPU reset; a failed one means the GPU should be replaced; "
	    "docs/checks.md#gpu.row-remap; "
	    "\"NVIDIA GPU Memory Error Management\", https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html; "
	    "\"DCGM Software Deployment Checks\", https://docs.nvidia.com/datacenter/dcgm/latest/reference/diagnostics/plugins/software.html",
	    "NVML nvmlDeviceGetRemappedRows (nvml.json remapped_rows)", "none pending, no failure, <= 512 unc.",
	    "none pending, no failure, <= 512 unc.", "drain and reset the GPU; RMA on failure", GF_CHECK_NEEDS_GPU },
	  run_row_remap },
	{ { "gpu.retired-pages", "gpu", "no page retirement should be pending",
	    "a pending retirement takes effect only after a GPU reset; docs/checks.md#gpu.retired-pages; "
	    "\"NVIDIA Dynamic Page Retirement\", https://docs.nvidia.com/deploy/dynamic-page-retirement/index.html; "
	    "\"DCGM Software Deployment Checks\", https://docs.nvidia.com/datacenter/dcgm/latest/reference/diagnostics/plugins/software.html",
	    "NVML nvmlDeviceGetRetiredPagesPendingStatus (nvml.json retired_pages_pending)", "none pending",
	    "none pending", "drain the GPU, reset it or reload the driver", GF_CHECK_NEEDS_GPU },
	  run_retired_pages },
	{ { "gpu.clock-events", "gpu", "no hardware or thermal slowdown should be active",
	    "hardware, thermal or power-brake slowdowns cut the GPU's clocks; docs/checks.md#gpu.clock-events; "
	    "\"NVML API Reference: NvmlClocksEventReasons\", https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html",
	    "NVML nvmlDeviceGetCurrentClocksEventReasons (nvml.json clocks_event_reasons)",
	    "no HW slowdown 0x8, SW thermal 0x20, HW thermal 0x40, power brake 0x80",
	    "no HW slowdown 0x8, SW thermal 0x20, HW thermal 0x40, power brake 0x80",
	    "check cooling, power supplies and the BMC log", GF_CHECK_NEEDS_GPU },
	  run_clock_events },
	{ { "gpu.power-limit", "gpu", "the power limit should not be below the default",
	    "a power limit below the default lowers the GPU's clocks; docs/checks.md#gpu.power-limit; "
	    "\"nvidia-smi documentation\", https://docs.nvidia.com/deploy/nvidia-smi/index.html",
	    "NVML nvmlDeviceGetEnforcedPowerLimit vs GetPowerManagementDefaultLimit (nvml.json power_limit_mw)",
	    ">= default", ">= default unless a site power policy", "nvidia-smi -i N -pl <default W>",
	    GF_CHECK_NEEDS_GPU },
	  run_power_limit },
	{ { "gpu.mig", "gpu", "MIG mode should match the profile with nothing pending",
	    "MIG splits the GPU; a pending mode takes effect at the next reset; docs/checks.md#gpu.mig; "
	    "\"NVIDIA Multi-Instance GPU User Guide\", https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html",
	    "NVML nvmlDeviceGetMigMode current/pending and instances (nvml.json mig)",
	    "disabled, pending = current", "as declared, pending = current",
	    "nvidia-smi -i N -mig 0|1 and a GPU reset; mig-parted for the layout", GF_CHECK_NEEDS_GPU },
	  run_mig },
	{ { "gpu.compute-mode", "gpu", "the compute mode should let the job use the GPU",
	    "a prohibited or exclusive compute mode keeps the job's processes off the GPU; "
	    "docs/checks.md#gpu.compute-mode; "
	    "\"CUDA C++ Programming Guide: Compute Modes\", https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-modes",
	    "NVML nvmlDeviceGetComputeMode (nvml.json compute_mode)", "default",
	    "default or exclusive_process (MPS)", "nvidia-smi -i N -c DEFAULT", GF_CHECK_NEEDS_GPU },
	  run_compute_mode },
	{ { "gpu.mps", "gpu", "no MPS daemon should run on a training node",
	    "MPS shares a GPU between processes, which a training job does not want; docs/checks.md#gpu.mps; "
	    "\"NVIDIA Multi-Process Service\", https://docs.nvidia.com/deploy/mps/index.html",
	    "/proc/*/comm (nvidia-cuda-mps-control / -server)", "not running", "as the node's role declares",
	    "echo quit | nvidia-cuda-mps-control", GF_CHECK_NEEDS_GPU | GF_CHECK_HOST_ONLY },
	  run_mps },
	{ { "gpu.driver-cuda", "gpu", "the driver should meet the CUDA runtime's minimum",
	    "a driver older than the CUDA runtime's minimum cannot run it; docs/checks.md#gpu.driver-cuda; "
	    "\"CUDA Compatibility\", https://docs.nvidia.com/deploy/cuda-compatibility/index.html",
	    "driver: NVML / /proc/driver/nvidia/version; runtime: NVIDIA_REQUIRE_CUDA, CUDA_VERSION, "
	    "/usr/local/cuda/version.json, libcudart.so.X.Y",
	    "driver >= minimum for the runtime's major", "driver >= minimum for the runtime's major",
	    "upgrade the driver or install cuda-compat", GF_CHECK_NEEDS_GPU },
	  run_driver_cuda },
	{ { "gpu.fabric-manager", "gpu", "Fabric Manager should run and every GPU join the NVLink fabric",
	    "on NVSwitch systems, GPUs have no NVLink peer access until Fabric Manager has joined them; "
	    "docs/checks.md#gpu.fabric-manager; "
	    "\"NVIDIA Fabric Manager User Guide\", https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html; "
	    "\"DCGM Software Deployment Checks\", https://docs.nvidia.com/datacenter/dcgm/latest/reference/diagnostics/plugins/software.html",
	    "/proc/*/comm (nv-fabricmanager); NVML nvmlDeviceGetGpuFabricInfo (nvml.json fabric)",
	    "running, state completed", "running, state completed",
	    "systemctl enable --now nvidia-fabricmanager (version = driver)", GF_CHECK_NEEDS_GPU | GF_CHECK_CROSS_LAYER },
	  run_fabric_manager },
	{ { "gpu.nvlink", "gpu", "no NVLink should be down where its peers are up",
	    "a link that is down halves or cuts the GPU's NVLink bandwidth; docs/checks.md#gpu.nvlink; "
	    "\"nvidia-smi documentation\", https://docs.nvidia.com/deploy/nvidia-smi/index.html; "
	    "\"DCGM Diagnostics\", https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html",
	    "NVML nvmlDeviceGetNvLinkState (nvml.json nvlinks[].active)", "as many active as the same GPUs",
	    "as many active as the same GPUs", "reset the GPU or reboot; RMA if it stays down", GF_CHECK_NEEDS_GPU },
	  run_nvlink },
	{ { "gpu.env", "gpu", "no performance-limiting CUDA variable should be set",
	    "some CUDA variables limit or slow every kernel launch; docs/checks.md#gpu.env; "
	    "\"DCGM Software Deployment Checks\", https://docs.nvidia.com/datacenter/dcgm/latest/reference/diagnostics/plugins/software.html",
	    "the environment: CUDA_INJECTION64_PATH, CUDA_PROFILE, CUDA_AUTO_BOOST, ... (DCGM's list)", "unset", "unset",
	    "unset them in the job's environment", GF_CHECK_NEEDS_GPU },
	  run_env },
	GF_CHECK_END,
};
