/* Container and cgroup checks (docs/checks.md, "Containers and cgroups",
 * which names each one's public source).  They describe the job's box: its resource limits,
 * its cgroup, its cpuset against the GPUs' NUMA nodes, what the runtime let
 * in (/proc/sys writable, RDMA device nodes).  Read through the context, so
 * a recording made inside a container replays as one.
 *
 * Resource limits are a property of a process, not of a file: live they are
 * this process's getrlimit(); on a recording the manifest's "rlimits"
 * (getrlimit of `gpufeed record`), else the copied /proc/self/limits.  The
 * job's limits are those of the shell or container the audit runs in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <jansson.h>

#include <gpufeed/record.h>
#include "core/strutil.h"
#include "audit/audit_internal.h"
#include "audit/checks_shared.h"

#define GIB (1024.0 * 1024 * 1024)
#define MIB (1024.0 * 1024)

/* ---- shared with checks_nccl.c (checks_shared.h) ---- */

json_t *audit_manifest(struct gf_audit_ctx *c)
{
	char *data = NULL;
	size_t len;
	json_t *root;

	if (c->live || gf_fs_read(&c->fs, "/" GF_RECORD_MANIFEST, &data, &len))
		return NULL;
	root = json_loadb(data, len, 0, NULL);
	free(data);
	if (!json_is_object(root)) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* Which GPUs the job uses: CUDA_VISIBLE_DEVICES (NVML index, UUID or PCI
 * address; CUDA ignores everything after the first entry it cannot
 * resolve), inside a container NVIDIA_VISIBLE_DEVICES, else all of them.
 * Returns how many are used. */
int audit_job_gpus(const struct gf_audit_ctx *c, bool **usep)
{
	bool *use = *usep = calloc(c->t->ngpus + 1, sizeof(bool));
	const char *spec = audit_getenv(c, "CUDA_VISIBLE_DEVICES");
	char buf[1024], *save = NULL;
	int n = 0;

	if (!use)
		return 0;
	if (!spec && c->container)
		spec = audit_getenv(c, "NVIDIA_VISIBLE_DEVICES");
	if (spec && (!strcmp(spec, "all") || !spec[0]))
		spec = spec[0] ? NULL : "";
	for (int i = 0; i < c->t->ngpus; i++)
		use[i] = !spec;
	if (!spec)
		return c->t->ngpus;
	gf_strlcpy(buf, spec, sizeof(buf));
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int g = gf_topo_find_gpu(c->t, gf_strip(tok));

		if (g < 0)
			break;
		n += !use[g];
		use[g] = true;
	}
	return n;
}

/* ---- resource limits ---- */

static const char *limits_row(int resource)
{
	return resource == RLIMIT_MEMLOCK ? "Max locked memory" : "Max open files";
}

/* One number of /proc/<pid>/limits: "unlimited" is -1. */
static int limit_word(const char *w, long long *v)
{
	if (!strcmp(w, "unlimited")) {
		*v = -1;
		return 0;
	}
	return gf_parse_ll(w, v);
}

static int limits_file(struct gf_audit_ctx *c, struct gf_check_result *r, int resource, long long *soft,
		       long long *hard)
{
	const char *row = limits_row(resource);
	char *data = NULL, *line;
	size_t len;
	int ret = -ENOENT;

	if (audit_read(c, r, "/proc/self/limits", &data, &len))
		return -ENOENT;
	audit_source(r, "/proc/self/limits (of the recording process)");
	if ((line = strstr(data, row))) {
		char s[32], h[32];

		if (sscanf(line + strlen(row), "%31s %31s", s, h) == 2 && !limit_word(s, soft) && !limit_word(h, hard))
			ret = 0;
	}
	free(data);
	if (ret)
		audit_error(r, "/proc/self/limits: no readable '%s' row", row);
	return ret;
}

static int limits_manifest(struct gf_audit_ctx *c, struct gf_check_result *r, int resource, long long *soft,
			   long long *hard)
{
	const char *key = resource == RLIMIT_MEMLOCK ? "memlock" : "nofile";
	json_t *m = audit_manifest(c), *o;
	int ret = -ENOENT;

	o = json_object_get(json_object_get(m, "rlimits"), key);
	if (json_is_integer(json_object_get(o, "soft")) && json_is_integer(json_object_get(o, "hard"))) {
		*soft = json_integer_value(json_object_get(o, "soft"));
		*hard = json_integer_value(json_object_get(o, "hard"));
		audit_source(r, GF_RECORD_MANIFEST " rlimits.%s (getrlimit of the recording process)", key);
		ret = 0;
	}
	json_decref(m);
	return ret;
}

/* soft/hard of `resource`, -1 unlimited.  0, or the result's status set. */
static int get_limit(struct gf_audit_ctx *c, struct gf_check_result *r, int resource, long long *soft,
		     long long *hard)
{
	struct rlimit rl;

	if (c->live) {
		if (getrlimit(resource, &rl)) {
			audit_error(r, "getrlimit: %s", strerror(errno));
			return -errno;
		}
		*soft = rl.rlim_cur == RLIM_INFINITY ? -1 : (long long)rl.rlim_cur;
		*hard = rl.rlim_max == RLIM_INFINITY ? -1 : (long long)rl.rlim_max;
		audit_source(r, "getrlimit(%s) of this process", resource == RLIMIT_MEMLOCK ? "RLIMIT_MEMLOCK"
											   : "RLIMIT_NOFILE");
		return 0;
	}
	if (limits_manifest(c, r, resource, soft, hard) == 0)
		return 0;
	return limits_file(c, r, resource, soft, hard);
}

static void fmt_bytes(char *buf, size_t size, long long v)
{
	if (v < 0)
		snprintf(buf, size, "unlimited");
	else if (v >= 1024 * 1024)
		snprintf(buf, size, "%.0f MiB", v / MIB);
	else
		snprintf(buf, size, "%lld KiB", v / 1024);
}

/* Pinned (page-locked) host memory and RDMA memory registration count
 * against RLIMIT_MEMLOCK: NCCL's docs ask containers for --ulimit
 * memlock=-1; a low limit fails ibv_reg_mr or caps pinned staging. */
static void run_memlock(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	long long soft, hard;
	char s[32], h[32];

	if (get_limit(c, r, RLIMIT_MEMLOCK, &soft, &hard))
		return;
	fmt_bytes(s, sizeof(s), soft);
	fmt_bytes(h, sizeof(h), hard);
	audit_observed(r, "soft %s, hard %s", s, h);
	audit_expected(r, "unlimited");
	if (soft == -1)
		return;
	audit_status(r, c->profile == GF_PROFILE_TRAINING ? GF_CHECK_FAIL : GF_CHECK_WARN);
	if (c->privileged)
		audit_note(r, "root on the host has CAP_IPC_LOCK and is not bound by it; jobs of other users "
			      "and containers without IPC_LOCK are");
	audit_fix(r, hard == -1 ? "ulimit -l unlimited (in the job's shell)"
				: "docker run --ulimit memlock=-1; for services LimitMEMLOCK=infinity");
	audit_persist(r, "/etc/security/limits.d/90-gpufeed.conf: '* - memlock unlimited'; "
			 "containerd/docker systemd unit: LimitMEMLOCK=infinity");
	r->fix_class = GF_FIX_ADVICE;
}

/* ---- cpuset and memory nodes against the GPUs (cross-layer) ---- */

static void cpuset_source(struct gf_audit_ctx *c, struct gf_check_result *r)
{
	if (c->t->cpus.cgroup_known)
		audit_source(r, "/proc/self/status Cpus_allowed_list & cpuset.cpus.effective of cgroup %s; "
				"GPU local CPUs (model)", c->t->cpus.cgroup_path);
	else
		audit_source(r, "/proc/self/status Cpus_allowed_list; GPU local CPUs (model)");
}

/* Appends "GPU3" to a list text. */
static void list_add(char *buf, size_t size, const char *what)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, "%s%s", n ? "," : "", what);
}

/* A job pinned to CPUs of another socket than its GPUs pays the socket link
 * on every host-to-device copy its loader threads make, and its pinned
 * buffers land on the wrong node. */
static void cpuset_gpu(struct gf_audit_ctx *c, const bool *use, int njob)
{
	const struct gf_topo *t = c->t;
	struct gf_check_result *r = audit_result(c, "");
	char cpus[256], far[256] = "";
	int known = 0, nfar = 0;

	cpuset_source(c, r);
	if (gf_cpuset_empty(&t->cpus.allowed)) {
		audit_na(r, "the job's CPU set is unknown");
		return;
	}
	if (njob == 0) {
		audit_na(r, "the job uses no GPU (CUDA_VISIBLE_DEVICES)");
		return;
	}
	for (int g = 0; g < t->ngpus; g++) {
		struct gf_cpuset near;
		char name[16];

		if (!use[g] || gf_cpuset_empty(&t->gpus[g].cpus))
			continue;
		known++;
		gf_cpuset_and(&near, &t->cpus.allowed, &t->gpus[g].cpus);
		if (gf_cpuset_empty(&near)) {
			snprintf(name, sizeof(name), "GPU%d", t->gpus[g].index);
			list_add(far, sizeof(far), name);
			nfar++;
		}
	}
	if (!known) {
		audit_na(r, "the GPUs' local CPUs are unknown (topo: no NUMA locality)");
		return;
	}
	gf_cpuset_format_list(&t->cpus.allowed, cpus, sizeof(cpus));
	audit_observed(r, nfar ? "CPUs %s; no local CPU for %s" : "CPUs %s; every GPU has local CPUs in it", cpus,
		       far);
	audit_expected(r, "CPUs of every used GPU's NUMA node");
	if (!nfar)
		return;
	audit_status(r, nfar == known ? GF_CHECK_FAIL : GF_CHECK_WARN);
	audit_fix(r, "give the job CPUs of its GPUs' nodes (gpufeed topo --gpu N): docker run --cpuset-cpus=LIST; "
		     "Kubernetes topology manager policy single-numa-node");
	r->fix_class = GF_FIX_ADVICE;
}

static void mems_gpu(struct gf_audit_ctx *c, const bool *use, int njob)
{
	const struct gf_topo *t = c->t;
	struct gf_check_result *r = audit_result(c, "");
	char mems[128], far[256] = "";
	int known = 0, nfar = 0;

	audit_source(r, "/proc/self/status Mems_allowed_list (cpuset.mems); GPU NUMA nodes (model)");
	if (!t->numa.mems_allowed_known) {
		audit_na(r, "the job's memory nodes are unknown");
		return;
	}
	if (njob == 0) {
		audit_na(r, "the job uses no GPU (CUDA_VISIBLE_DEVICES)");
		return;
	}
	for (int g = 0; g < t->ngpus; g++) {
		char name[16];

		if (!use[g] || t->gpus[g].numa_node < 0)
			continue;
		known++;
		if (!gf_cpuset_isset(&t->numa.mems_allowed, (unsigned)t->gpus[g].numa_node)) {
			snprintf(name, sizeof(name), "GPU%d(node %d)", t->gpus[g].index, t->gpus[g].numa_node);
			list_add(far, sizeof(far), name);
			nfar++;
		}
	}
	if (!known) {
		audit_na(r, "the GPUs' NUMA nodes are unknown");
		return;
	}
	gf_cpuset_format_list(&t->numa.mems_allowed, mems, sizeof(mems));
	audit_observed(r, nfar ? "memory nodes %s; not %s" : "memory nodes %s include every GPU's node", mems, far);
	audit_expected(r, "the NUMA nodes of every used GPU");
	if (!nfar)
		return;
	audit_status(r, nfar == known ? GF_CHECK_FAIL : GF_CHECK_WARN);
	audit_fix(r, "docker run --cpuset-mems=NODES; numactl --membind / cgroup cpuset.mems with the GPUs' nodes");
	r->fix_class = GF_FIX_ADVICE;
}

/* ---- cgroup limits (memory, pids) ---- */

struct cg_limit {
	bool limited;
	unsigned long long value;	/* the lowest limit on the path */
	char where[300];		/* the file it came from */
};

/* The cgroup path of `ctrl` from /proc/self/cgroup: v1 "4:memory:/x" gives
 * base /sys/fs/cgroup/memory, v2 "0::/x" base /sys/fs/cgroup. */
static int cgroup_of(struct gf_audit_ctx *c, struct gf_check_result *r, const char *ctrl, char *base,
		     size_t bsize, char *path, size_t psize, bool *v1)
{
	char *data = NULL, *save = NULL;
	size_t len;
	bool found = false;

	if (audit_read(c, r, "/proc/self/cgroup", &data, &len))
		return -ENOENT;
	for (char *line = strtok_r(data, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		for (char *w = c1 + 1, *s2 = NULL, *tok; !found && (tok = strtok_r(w, ",", &s2)); w = NULL)
			if (!strcmp(tok, ctrl)) {
				found = *v1 = true;
				snprintf(base, bsize, "/sys/fs/cgroup/%s", ctrl);
				gf_strlcpy(path, c2 + 1, psize);
			}
		if (!found && c1 == line + 1 && line[0] == '0' && c1[1] == '\0') {
			*v1 = false;
			snprintf(base, bsize, "/sys/fs/cgroup");
			gf_strlcpy(path, c2 + 1, psize);
		}
	}
	free(data);
	if (!found && !path[0]) {
		audit_na(r, "/proc/self/cgroup names no %s cgroup", ctrl);
		return -ENOENT;
	}
	return 0;
}

/* The lowest `file` from the cgroup up to the root ("max" or a value at or
 * above `unlimited_at` is no limit).  0 with *l set; na when nothing shows
 * the hierarchy was read (a recording that did not copy it). */
static int cgroup_limit(struct gf_audit_ctx *c, struct gf_check_result *r, const char *ctrl,
			const char *const *files, unsigned long long unlimited_at, struct cg_limit *l)
{
	char base[64], path[256] = "", dir[400], file[512], buf[64];
	bool v1 = false, seen = false;

	memset(l, 0, sizeof(*l));
	if (cgroup_of(c, r, ctrl, base, sizeof(base), path, sizeof(path), &v1))
		return -ENOENT;
	for (;;) {
		snprintf(dir, sizeof(dir), "%s%s", base, strcmp(path, "/") ? path : "");
		for (const char *const *f = files; *f; f++) {
			unsigned long long v;

			snprintf(file, sizeof(file), "%s/%s", dir, *f);
			if (audit_peek_str(c, file, buf, sizeof(buf)))
				continue;
			seen = true;
			if (!strcmp(gf_strip(buf), "max") || sscanf(buf, "%llu", &v) != 1 || v >= unlimited_at)
				continue;
			if (!l->limited || v < l->value) {
				l->limited = true;
				l->value = v;
				gf_strlcpy(l->where, file, sizeof(l->where));
			}
		}
		/* Evidence the level was recorded even without a limit file:
		 * v2's cgroup.controllers, v1's cgroup.clone_children. */
		snprintf(file, sizeof(file), "%s/%s", dir, v1 ? "cgroup.clone_children" : "cgroup.controllers");
		seen |= audit_exists(c, file);
		if (!strcmp(path, "/") || !path[0])
			break;
		char *slash = strrchr(path, '/');
		if (slash == path)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	audit_source(r, "%s/%s%s (cgroup v%d, up to the root)", base, files[0], files[1] ? " ..." : "", v1 ? 1 : 2);
	if (!seen) {
		audit_na(r, "the %s cgroup files are not readable here", ctrl);
		return -ENOENT;
	}
	if (l->limited)
		audit_source(r, "%s", l->where);
	return 0;
}

/* Pinned staging buffers, the trainer's host copy of the model and its
 * checkpoint state all count against the cgroup's memory limit; the OOM
 * killer then ends the job.  Training wants at least twice the used GPUs'
 * memory in host RAM (NVIDIA sizes DGX hosts at 2x GPU memory and more),
 * inference at least once (the weights pass through host memory), both
 * capped at the RAM there is. */
static void memory_limit(struct gf_audit_ctx *c, const bool *use, int njob)
{
	static const char *const files[] = { "memory.max", "memory.high", "memory.limit_in_bytes", NULL };
	const struct gf_topo *t = c->t;
	struct gf_check_result *r = audit_result(c, "");
	unsigned long long gpu_mem = 0, need, ram = t->machine.memory_bytes;
	double factor = c->profile == GF_PROFILE_TRAINING ? 2.0 : 1.0;
	struct cg_limit l;

	if (cgroup_limit(c, r, "memory", files, ram ? ram : ~0ULL, &l))
		return;
	audit_expected(r, "no limit, or >= %gx the used GPUs' memory (capped at RAM)", factor);
	if (!l.limited) {
		audit_observed(r, "no limit");
		return;
	}
	(void)njob;
	for (int g = 0; g < t->ngpus; g++)
		if (use[g]) {
			if (!t->gpus[g].memory_bytes) {
				audit_observed(r, "%.1f GiB", l.value / GIB);
				audit_na(r, "GPU%d's memory size is unknown (no NVML facts)", t->gpus[g].index);
				return;
			}
			gpu_mem += t->gpus[g].memory_bytes;
		}
	need = (unsigned long long)(gpu_mem * factor);
	if (ram && need > ram)
		need = ram;
	audit_observed(r, "%.1f GiB (used GPUs: %.1f GiB)", l.value / GIB, gpu_mem / GIB);
	if (l.value >= need)
		return;
	audit_status(r, GF_CHECK_WARN);
	audit_fix(r, "docker run --memory=%.0fg (or no limit); Kubernetes: resources.limits.memory", need / GIB + 1);
	r->fix_class = GF_FIX_ADVICE;
}

/* pids.max counts threads, not processes: every DataLoader worker, its
 * OpenMP pool, NCCL's and CUDA's threads per rank.  An 8-rank trainer with
 * 8 workers each runs into the low thousands; fork/clone then fail with
 * EAGAIN ("Resource temporarily unavailable"). */
#define PIDS_MIN 4096
static void run_pids_limit(struct gf_audit_ctx *c)
{
	static const char *const files[] = { "pids.max", NULL };
	struct gf_check_result *r = audit_result(c, "");
	struct cg_limit l;

	if (cgroup_limit(c, r, "pids", files, 1ULL << 62, &l))
		return;
	audit_expected(r, "no limit, or >= %d", PIDS_MIN);
	if (!l.limited) {
		audit_observed(r, "no limit");
		return;
	}
	audit_observed(r, "%llu tasks", l.value);
	if (l.value >= PIDS_MIN)
		return;
	audit_status(r, GF_CHECK_WARN);
	audit_fix(r, "docker run --pids-limit=-1 (or >= %d); Kubernetes: kubelet podPidsLimit", PIDS_MIN);
	r->fix_class = GF_FIX_ADVICE;
}

/* ---- what the runtime let in ---- */

/* Options and type of the mount holding `path` (the longest mount point
 * that contains it; the last one listed wins). */
static bool mount_of(struct gf_audit_ctx *c, const char *path, char *opts, size_t osize, char *type, size_t tsize)
{
	char *data = NULL, *save = NULL;
	size_t len, best = 0;
	bool found = false;

	if (gf_fs_read(&c->fs, "/proc/self/mountinfo", &data, &len))
		return false;
	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char point[512], o[256], fstype[64];
		const char *sep = strstr(line, " - ");
		size_t n;

		if (!sep || sscanf(line, "%*s %*s %*s %*s %511s %255s", point, o) != 2 ||
		    sscanf(sep + 3, "%63s", fstype) != 1)
			continue;
		n = strlen(point);
		if (strncmp(path, point, n) || (path[n] && path[n] != '/' && strcmp(point, "/")) || n < best)
			continue;
		best = n;
		gf_strlcpy(opts, o, osize);
		gf_strlcpy(type, fstype, tsize);
		found = true;
	}
	free(data);
	return found;
}

static bool opt_ro(const char *opts)
{
	return !strcmp(opts, "ro") || gf_starts_with(opts, "ro,");
}

/* Inside a container /proc/sys is read-only (containerd's readonly_paths):
 * the sysctl checks then describe the host, and `gpufeed tune` cannot act
 * from here.  On the host a read-only /proc/sys means the same for tune. */
static void run_proc_sys(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char opts[256], type[64], root_type[64] = "", dev_type[64] = "", o2[256];
	bool ro;

	audit_source(r, "/proc/self/mountinfo (/proc/sys); container signs: /proc/1/cgroup, /.dockerenv, "
			"/run/.containerenv");
	if (!mount_of(c, "/proc/sys", opts, sizeof(opts), type, sizeof(type))) {
		audit_na(r, "/proc/self/mountinfo is absent or names no /proc mount");
		return;
	}
	ro = opt_ro(opts);
	audit_expected(r, "writable on the host; inside a container: tune from the host");
	if (c->container) {
		audit_observed(r, "%s container; /proc/sys %s", c->a->container_kind[0] ? c->a->container_kind : "a",
			       ro ? "read-only" : "writable");
		if (ro)
			audit_na(r, "inside a container: sysctls are the host's; apply fixes there "
				    "(gpufeed tune on the host)");
		else
			audit_note(r, "a privileged container: sysctls written here change the host for every "
				      "container on it");
		return;
	}
	mount_of(c, "/", o2, sizeof(o2), root_type, sizeof(root_type));
	mount_of(c, "/dev", o2, sizeof(o2), dev_type, sizeof(dev_type));
	if (audit_exists(c, "/.dockerenv"))
		audit_observed(r, "host (/.dockerenv present, but / is %s and /dev %s: not a container); "
				  "/proc/sys %s", root_type[0] ? root_type : "?", dev_type[0] ? dev_type : "?",
			       ro ? "read-only" : "writable");
	else
		audit_observed(r, "host; /proc/sys %s", ro ? "read-only" : "writable");
	if (ro) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "sysctl fixes cannot be applied until /proc/sys is writable");
		audit_fix(r, "mount -o remount,rw /proc/sys");
		r->fix_class = GF_FIX_ADVICE;
	}
}

static int count_prefix(char **names, int n, const char *prefix)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += gf_starts_with(names[i], prefix);
	return k;
}

/* uverbs device nodes: live from /dev/infiniband, on a recording from the
 * manifest's dev_nodes.  -ENOENT when unknown. */
static int uverbs_nodes(struct gf_audit_ctx *c, struct gf_check_result *r)
{
	char **names = NULL;
	int n = 0, k = 0, ret;
	json_t *m, *v;
	size_t i;

	if (c->live) {
		audit_source(r, "/sys/class/infiniband; /dev/infiniband");
		ret = gf_fs_list(&c->fs, "/dev/infiniband", &names, &n);
		if (ret && ret != -ENOENT)
			return ret;
		k = ret ? 0 : count_prefix(names, n, "uverbs");
		gf_strv_free(names, n);
		return k;
	}
	audit_source(r, "/sys/class/infiniband; " GF_RECORD_MANIFEST " dev_nodes");
	m = audit_manifest(c);
	if (!json_is_array(json_object_get(m, "dev_nodes"))) {
		json_decref(m);
		return -ENOENT;
	}
	json_array_foreach(json_object_get(m, "dev_nodes"), i, v)
		k += json_is_string(v) && gf_starts_with(json_string_value(v), "infiniband/uverbs");
	json_decref(m);
	return k;
}

/* An RDMA NIC without its /dev/infiniband/uverbsN (ib_uverbs not loaded on
 * the host; the container started without --device=/dev/infiniband) makes
 * NCCL fall back to TCP sockets: GPUDirect RDMA silently off. */
static void run_rdma_devices(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char **names = NULL;
	int ndev = 0, nodes;

	if (gf_fs_list(&c->fs, "/sys/class/infiniband", &names, &ndev) || ndev == 0) {
		gf_strv_free(names, ndev);
		audit_source(r, "/sys/class/infiniband");
		audit_na(r, "no RDMA device here");
		return;
	}
	gf_strv_free(names, ndev);
	if ((nodes = uverbs_nodes(c, r)) < 0) {
		if (nodes == -ENOENT)
			audit_na(r, "the recording does not list /dev/infiniband (no dev_nodes in its manifest)");
		else
			audit_error(r, "/dev/infiniband: %s", strerror(-nodes));
		return;
	}
	audit_observed(r, "%d RDMA device%s, %d uverbs node%s", ndev, ndev == 1 ? "" : "s", nodes,
		       nodes == 1 ? "" : "s");
	audit_expected(r, "one /dev/infiniband/uverbsN per RDMA device");
	if (nodes >= ndev)
		return;
	audit_status(r, nodes == 0 ? GF_CHECK_FAIL : GF_CHECK_WARN);
	if (c->container)
		audit_fix(r, "start the container with --device=/dev/infiniband (Kubernetes: an RDMA device plugin)");
	else
		audit_fix(r, "modprobe ib_uverbs");
	r->fix_class = GF_FIX_ADVICE;
}

/* The checks that look at the job's GPUs (audit_job_gpus). */
#define JOB_GPU_CHECK(name)                                   \
	static void run_##name(struct gf_audit_ctx *c)        \
	{                                                     \
		bool *use = NULL;                             \
		int n = audit_job_gpus(c, &use);              \
                                                              \
		if (use)                                      \
			name(c, use, n);                      \
		else                                          \
			audit_error(audit_result(c, ""), "out of memory"); \
		free(use);                                    \
	}
JOB_GPU_CHECK(cpuset_gpu)
JOB_GPU_CHECK(mems_gpu)
JOB_GPU_CHECK(memory_limit)

const struct gf_check_def gf_checks_container[] = {
	{ { "ctr.memlock", "container", "RLIMIT_MEMLOCK should be unlimited",
	    "pinned host buffers and RDMA registrations count against the memlock limit; "
	    "docs/checks.md#ctr.memlock; "
	    "\"NCCL Troubleshooting: Runtime and MPI issues\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/runtime_and_mpi_issues.html; "
	    "\"getrlimit(2)\", https://man7.org/linux/man-pages/man2/getrlimit.2.html",
	    "getrlimit(RLIMIT_MEMLOCK) live; recording: manifest rlimits.memlock, else /proc/self/limits",
	    "unlimited (fail otherwise)", "unlimited (warn otherwise)",
	    "ulimit -l unlimited; docker --ulimit memlock=-1; limits.d / LimitMEMLOCK=infinity", GF_CHECK_NEEDS_GPU },
	  run_memlock },
	{ { "ctr.cpuset-gpu", "container", "the job's CPUs should include its GPUs' local CPUs",
	    "feeding threads off the GPU's node cross the socket link; docs/checks.md#ctr.cpuset-gpu; "
	    "\"Kubernetes: Control Topology Management Policies on a node\", https://kubernetes.io/docs/tasks/administer-cluster/topology-manager/; "
	    "\"Control Group v2\", https://docs.kernel.org/admin-guide/cgroup-v2.html",
	    "/proc/self/status Cpus_allowed_list & cgroup cpuset.cpus.effective vs each GPU's local_cpulist",
	    "every used GPU has local CPUs in the set", "every used GPU has local CPUs in the set",
	    "--cpuset-cpus with the GPUs' node CPUs; topology manager single-numa-node",
	    GF_CHECK_NEEDS_GPU | GF_CHECK_CROSS_LAYER },
	  run_cpuset_gpu },
	{ { "ctr.mems-gpu", "container", "the job should be allowed to allocate on its GPUs' NUMA nodes",
	    "pinned buffers allocated off the GPU's node cross the socket link on every copy; "
	    "docs/checks.md#ctr.mems-gpu; "
	    "\"Kubernetes: Control Topology Management Policies on a node\", https://kubernetes.io/docs/tasks/administer-cluster/topology-manager/; "
	    "\"Control Group v2\", https://docs.kernel.org/admin-guide/cgroup-v2.html",
	    "/proc/self/status Mems_allowed_list (cpuset.mems) vs each GPU's numa_node",
	    "every used GPU's node allowed", "every used GPU's node allowed", "--cpuset-mems with the GPUs' nodes",
	    GF_CHECK_NEEDS_GPU | GF_CHECK_CROSS_LAYER },
	  run_mems_gpu },
	{ { "ctr.memory-limit", "container", "the cgroup memory limit should leave room for pinned staging",
	    "pinned staging and page cache count against the cgroup's memory; "
	    "too low a limit ends in OOM kills; docs/checks.md#ctr.memory-limit; "
	    "\"Control Group v2\", https://docs.kernel.org/admin-guide/cgroup-v2.html",
	    "cgroup v2 memory.max/memory.high, v1 memory.limit_in_bytes, up to the root; GPU memory (NVML)",
	    "no limit or >= 2x the used GPUs' memory (capped at RAM)",
	    "no limit or >= 1x the used GPUs' memory (capped at RAM)", "docker --memory / Kubernetes limits.memory",
	    GF_CHECK_NEEDS_GPU | GF_CHECK_CROSS_LAYER },
	  run_memory_limit },
	{ { "ctr.pids-limit", "container", "the cgroup pids limit should leave room for loader workers",
	    "DataLoader workers and their threads count against the cgroup's pids limit; "
	    "docs/checks.md#ctr.pids-limit; "
	    "\"Control Group v2\", https://docs.kernel.org/admin-guide/cgroup-v2.html",
	    "cgroup v2 pids.max, v1 pids/pids.max, up to the root", "no limit or >= 4096", "no limit or >= 4096",
	    "docker --pids-limit=-1; kubelet podPidsLimit", 0 },
	  run_pids_limit },
	{ { "ctr.proc-sys", "container", "sysctls should be tunable from here",
	    "a container's /proc/sys is read-only: host settings are tuned on the host; "
	    "docs/checks.md#ctr.proc-sys; "
	    "\"Kubernetes: Using sysctls in a Kubernetes Cluster\", https://kubernetes.io/docs/tasks/administer-cluster/sysctl-cluster/",
	    "/proc/self/mountinfo (the /proc/sys mount's options); container detection",
	    "host: /proc/sys writable; container: na (tune on the host)",
	    "host: /proc/sys writable; container: na (tune on the host)", "run gpufeed tune on the host", 0 },
	  run_proc_sys },
	{ { "ctr.rdma-devices", "container", "every RDMA device should have its uverbs device node",
	    "RDMA needs the /dev/infiniband uverbs nodes inside the container; "
	    "docs/checks.md#ctr.rdma-devices; "
	    "\"NVIDIA GPU Operator: GPUDirect RDMA and GPUDirect Storage\", https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-rdma.html; "
	    "\"NCCL Troubleshooting: Networking\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/networking_troubleshooting.html",
	    "/sys/class/infiniband vs /dev/infiniband/uverbs* (recording: manifest dev_nodes)",
	    "one uverbs node per RDMA device", "one uverbs node per RDMA device",
	    "modprobe ib_uverbs; --device=/dev/infiniband", 0 },
	  run_rdma_devices },
	GF_CHECK_END,
};
