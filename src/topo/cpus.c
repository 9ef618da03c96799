/* CPUs: online, allowed (affinity and cgroup cpuset), packages, SMT
 * siblings and L3 groups.
 *
 * Large hosts have hundreds of CPUs and every sysfs read costs a syscall
 * round trip, so each group file (siblings, package, L3) is read once per
 * group: a CPU already covered by a group read through another CPU is not
 * read again.  A recording therefore holds only those files. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "topo/topo_internal.h"

#define CPU_DIR "/sys/devices/system/cpu"

static int find_cpu(const struct gf_cpus *cp, int id)
{
	int lo = 0, hi = cp->ncpu - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (cp->cpu[mid].id == id)
			return mid;
		if (cp->cpu[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* The first "key : value" line of cpuinfo whose key is exactly key
 * ("model", not "model name"), its value in buf; "" when none. */
static void cpuinfo_field(const char *text, const char *key, char *buf, size_t size)
{
	size_t n = strlen(key);

	buf[0] = '\0';
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *colon, *k = line + n;
		size_t len;

		if (strncmp(line, key, n))
			continue;
		while (*k == ' ' || *k == '\t')
			k++;
		if (*k != ':' || !(colon = strchr(line, ':')))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		len = strcspn(colon, "\n");
		if (len >= size)
			len = size - 1;
		memcpy(buf, colon, len);
		buf[len] = '\0';
		return;
	}
}

/* The identity NCCL's topology gives a CPU: x86 cpuinfo has vendor_id, cpu
 * family and model; arm64's a CPU implementer.  NCCL knows x86_64, arm64
 * and ppc64 (its kvDictCpuArch). */
static void read_identity(struct gf_cpus *cp, const char *text)
{
	char v[64];

	cp->family = cp->model_id = -1;
	cpuinfo_field(text, "vendor_id", cp->vendor, sizeof(cp->vendor));
	cpuinfo_field(text, "cpu family", v, sizeof(v));
	if (*v && isdigit((unsigned char)*v))
		cp->family = atoi(v);
	cpuinfo_field(text, "model", v, sizeof(v));
	if (*v && isdigit((unsigned char)*v))
		cp->model_id = atoi(v);
	cpuinfo_field(text, "CPU implementer", v, sizeof(v));
	if (*cp->vendor)
		snprintf(cp->arch, sizeof(cp->arch), "x86_64");
	else if (*v)
		snprintf(cp->arch, sizeof(cp->arch), "arm64");
}

static void read_model(struct gf_ctx *c)
{
	struct gf_cpus *cp = &c->t->cpus;
	char *text, flags[8192];

	cp->family = cp->model_id = -1;
	if (gf_read_opt(c, "/proc/cpuinfo", &text, NULL))
		return;
	read_identity(cp, text);
	if (!gf_kv_find(text, "model name", cp->model, sizeof(cp->model)))
		gf_kv_find(text, "Model", cp->model, sizeof(cp->model));	/* arm64 */
	if (gf_kv_find(text, "flags", flags, sizeof(flags))) {
		char *p = strstr(flags, "hypervisor");

		c->t->machine.hypervisor = p && (p[10] == '\0' || p[10] == ' ') &&
					   (p == flags || p[-1] == ' ');
	}
	free(text);
}

/* SMT siblings: one read per core. */
static void read_cores(struct gf_ctx *c)
{
	struct gf_cpus *cp = &c->t->cpus;
	struct gf_cpuset covered;

	gf_cpuset_zero(&covered);
	cp->ncores = 0;
	cp->threads_per_core = 1;
	for (int i = 0; i < cp->ncpu; i++) {
		struct gf_cpu *cpu = &cp->cpu[i];
		struct gf_cpuset sib;
		char path[128];
		int rank = 0, n;

		if (gf_cpuset_isset(&covered, (unsigned)cpu->id))
			continue;
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/thread_siblings_list", cpu->id);
		if (gf_read_opt_cpulist(c, path, &sib) || !gf_cpuset_isset(&sib, (unsigned)cpu->id)) {
			gf_cpuset_zero(&sib);
			gf_cpuset_set(&sib, (unsigned)cpu->id);
		}
		gf_cpuset_and(&sib, &sib, &cp->online);
		n = (int)gf_cpuset_count(&sib);
		if (n > cp->threads_per_core)
			cp->threads_per_core = n;
		for (int s = gf_cpuset_first(&sib); s >= 0; s = gf_cpuset_next(&sib, s)) {
			int k = find_cpu(cp, s);

			if (k < 0 || gf_cpuset_isset(&covered, (unsigned)s))
				continue;
			cp->cpu[k].core = cp->ncores;
			cp->cpu[k].smt_rank = rank++;
			gf_cpuset_set(&covered, (unsigned)s);
		}
		cp->ncores++;
	}
}

/* Packages: one physical_package_id + package_cpus_list read per package. */
static void read_packages(struct gf_ctx *c)
{
	struct gf_cpus *cp = &c->t->cpus;
	struct gf_cpuset covered, seen_ids;

	gf_cpuset_zero(&covered);
	gf_cpuset_zero(&seen_ids);
	for (int i = 0; i < cp->ncpu; i++) {
		struct gf_cpu *cpu = &cp->cpu[i];
		struct gf_cpuset pkg;
		char path[128];
		long long id;

		if (gf_cpuset_isset(&covered, (unsigned)cpu->id))
			continue;
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/physical_package_id", cpu->id);
		if (gf_read_opt_ll(c, path, &id)) {
			id = -1;
		} else if (id < -1 || id >= GF_CPUSET_MAX) {	/* -1: firmware does not say */
			gf_warn(c, "%s%s: %lld is not a package id: taken as unknown", c->fs.root, path, id);
			id = -1;
		}
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/package_cpus_list", cpu->id);
		if (gf_read_opt_cpulist(c, path, &pkg)) {
			/* Kernels before 5.7 call it core_siblings_list. */
			snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/core_siblings_list", cpu->id);
			if (gf_read_opt_cpulist(c, path, &pkg))
				gf_cpuset_zero(&pkg);
		}
		gf_cpuset_set(&pkg, (unsigned)cpu->id);
		gf_cpuset_and(&pkg, &pkg, &cp->online);
		for (int s = gf_cpuset_first(&pkg); s >= 0; s = gf_cpuset_next(&pkg, s)) {
			int k = find_cpu(cp, s);

			if (k >= 0 && !gf_cpuset_isset(&covered, (unsigned)s))
				cp->cpu[k].package = (int)id;
			gf_cpuset_set(&covered, (unsigned)s);
		}
		if (id >= 0)
			gf_cpuset_set(&seen_ids, (unsigned)id);
	}
	cp->npackages = (int)gf_cpuset_count(&seen_ids);
	if (!cp->npackages && cp->ncpu)
		cp->npackages = 1;
}

/* The level-3 cache index of a CPU: index3 on every x86 and arm64 kernel we
 * know, but check `level` rather than trust the number. */
static int read_l3(struct gf_ctx *c, int cpu, struct gf_cpuset *set)
{
	for (int idx = 3; idx < 6; idx++) {
		char path[128];
		long long level;

		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cache/index%d/level", cpu, idx);
		if (gf_read_opt_ll(c, path, &level))
			return -ENOENT;
		if (level != 3)
			continue;
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
		return gf_read_opt_cpulist(c, path, set);
	}
	return -ENOENT;
}

static void read_l3_groups(struct gf_ctx *c)
{
	struct gf_cpus *cp = &c->t->cpus;
	struct gf_cpuset covered;

	gf_cpuset_zero(&covered);
	for (int i = 0; i < cp->ncpu; i++) {
		struct gf_cpuset set, *slot;
		int id = cp->cpu[i].id;

		if (gf_cpuset_isset(&covered, (unsigned)id))
			continue;
		if (read_l3(c, id, &set) || !gf_cpuset_isset(&set, (unsigned)id))
			continue;
		gf_cpuset_and(&set, &set, &cp->online);
		slot = gf_push(&cp->l3, &cp->nl3, sizeof(*slot));
		if (!slot)
			return;
		*slot = set;
		for (int s = gf_cpuset_first(&set); s >= 0; s = gf_cpuset_next(&set, s)) {
			int k = find_cpu(cp, s);

			if (k >= 0 && !gf_cpuset_isset(&covered, (unsigned)s))
				cp->cpu[k].l3 = cp->nl3 - 1;
			gf_cpuset_set(&covered, (unsigned)s);
		}
	}
}

/* The cpuset of our cgroup: v2 unified or v1 cpuset hierarchy.  Walk up to
 * the nearest ancestor that has the file (v2 only shows cpuset files where
 * the controller is enabled). */
static void read_cgroup(struct gf_ctx *c)
{
	struct gf_cpus *cp = &c->t->cpus;
	char *text, *save = NULL;
	char rel[256] = "";
	int version = 0;

	if (gf_read_opt(c, "/proc/self/cgroup", &text, NULL))
		return;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		if (gf_starts_with(line, "0::") && !version) {
			gf_strlcpy(rel, c2 + 1, sizeof(rel));
			version = 2;
		}
		*c2 = '\0';
		if (strstr(c1 + 1, "cpuset") && (c1[1] == 'c' || strstr(c1 + 1, ",cpuset"))) {
			gf_strlcpy(rel, c2 + 1, sizeof(rel));
			version = 1;
			break;
		}
	}
	free(text);
	if (!version)
		return;
	/* A v2 line exists on hybrid hosts too; only a mounted unified
	 * hierarchy counts. */
	if (version == 2 && gf_probe(c, "/sys/fs/cgroup/cgroup.controllers", NULL) != 1)
		return;	/* not mounted, or not readable: warned */
	cp->cgroup_version = version;
	gf_strlcpy(cp->cgroup_path, rel, sizeof(cp->cgroup_path));
	for (;;) {
		const char *base = version == 2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/cpuset";
		const char *files[] = { version == 2 ? "cpuset.cpus.effective" : "cpuset.effective_cpus",
					"cpuset.cpus" };
		char *slash;

		for (int f = 0; f < 2; f++) {
			char path[512];

			snprintf(path, sizeof(path), "%s%s%s/%s", base, strcmp(rel, "/") ? rel : "",
				 "", files[f]);
			if (gf_read_opt_cpulist(c, path, &cp->cgroup) == 0 && !gf_cpuset_empty(&cp->cgroup)) {
				cp->cgroup_known = true;
				return;
			}
		}
		slash = strrchr(rel, '/');
		if (!slash || !strcmp(rel, "/"))
			return;
		if (slash == rel)
			gf_strlcpy(rel, "/", sizeof(rel));
		else
			*slash = '\0';
	}
}

void gf_cpuset_format_short(const struct gf_cpuset *s, char *buf, size_t size)
{
	if (gf_cpuset_format_list(s, buf, size) >= size && size > 4)
		strcpy(buf + size - 4, "...");
}

/* cpu/online: a hard error when unreadable or malformed (every Linux since
 * 2.6 has it: no CPUs, no model). */
static int read_online(struct gf_ctx *c, struct gf_cpuset *online)
{
	char real[PATH_MAX], why[512], *buf = malloc(GF_CPULIST_MAX_TEXT);
	int ret;

	if (!buf)
		return gf_error(-ENOMEM, "out of memory");
	gf_fs_real(&c->fs, CPU_DIR "/online", real, sizeof(real));
	ret = gf_fs_read_str(&c->fs, CPU_DIR "/online", buf, GF_CPULIST_MAX_TEXT);
	if (ret == -EOVERFLOW)
		ret = gf_error(-EBADMSG, "%s: longer than any CPU list (%d bytes at most)", real,
			       GF_CPULIST_MAX_TEXT - 1);
	else if (!ret && !*buf)
		ret = gf_error(-EBADMSG, "%s: empty: no CPU online", real);
	else if (!ret && gf_cpuset_parse_list(online, buf)) {
		gf_strlcpy(why, gf_last_error(), sizeof(why));
		ret = gf_error(-EBADMSG, "%s: %s", real, why);
	}
	free(buf);
	return ret;
}

int gf_discover_cpus(struct gf_ctx *c)
{
	struct gf_cpus *cp = &c->t->cpus;
	struct gf_cpuset absent;
	char buf[8192];
	int ret;

	if ((ret = read_online(c, &cp->online)))
		return ret;
	if (gf_read_opt_cpulist(c, CPU_DIR "/possible", &cp->possible) || gf_cpuset_empty(&cp->possible))
		cp->possible = cp->online;
	/* Online CPUs are possible ones: "0-8191" online on a machine whose
	 * possible CPUs are 0-127 does not make 8192 CPUs. */
	gf_cpuset_andnot(&absent, &cp->online, &cp->possible);
	if (!gf_cpuset_empty(&absent)) {
		char list[80], possible[80];

		gf_cpuset_format_short(&absent, list, sizeof(list));
		gf_cpuset_format_short(&cp->possible, possible, sizeof(possible));
		gf_warn(c, "%s" CPU_DIR "/online: names CPUs %s, which are not possible here (" CPU_DIR
			"/possible: %s): ignored", c->fs.root, list, possible);
		gf_cpuset_and(&cp->online, &cp->online, &cp->possible);
		if (gf_cpuset_empty(&cp->online))
			return gf_error(-EBADMSG, "%s" CPU_DIR "/online: no possible CPU online", c->fs.root);
	}
	cp->ncpu = (int)gf_cpuset_count(&cp->online);
	cp->cpu = calloc((size_t)cp->ncpu, sizeof(*cp->cpu));
	if (!cp->cpu)
		return gf_error(-ENOMEM, "out of memory");
	for (int s = gf_cpuset_first(&cp->online), i = 0; s >= 0; s = gf_cpuset_next(&cp->online, s), i++) {
		cp->cpu[i].id = s;
		cp->cpu[i].package = cp->cpu[i].die = cp->cpu[i].core = cp->cpu[i].node = cp->cpu[i].l3 = -1;
	}
	if (!(c->t->omitted & GF_TOPO_OMIT_CPU_DETAIL)) {
		read_model(c);
		read_cores(c);
	}
	read_packages(c);	/* kept under OMIT_CPU_DETAIL: paths ask which cross sockets */
	if (!(c->t->omitted & GF_TOPO_OMIT_CPU_DETAIL))
		read_l3_groups(c);

	/* Affinity of this process, as the kernel states it. */
	if (gf_read_opt(c, "/proc/self/status", &c->self_status, NULL) == 0) {
		if (gf_kv_find(c->self_status, "Cpus_allowed_list", buf, sizeof(buf))) {
			if (gf_cpuset_parse_list(&cp->affinity, buf) == 0)
				cp->affinity_known = true;
			else
				gf_warn(c, "%s/proc/self/status: Cpus_allowed_list: %s", c->fs.root,
					gf_last_error());
		}
	}
	read_cgroup(c);
	cp->allowed = cp->online;
	if (cp->affinity_known)
		gf_cpuset_and(&cp->allowed, &cp->allowed, &cp->affinity);
	if (cp->cgroup_known)
		gf_cpuset_and(&cp->allowed, &cp->allowed, &cp->cgroup);
	for (int i = 0; i < cp->ncpu; i++)
		cp->cpu[i].allowed = gf_cpuset_isset(&cp->allowed, (unsigned)cp->cpu[i].id);
	return 0;
}
