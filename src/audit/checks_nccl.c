/* NCCL and CUDA environment checks (NCCL's "Environment Variables" page;
 * docs/checks.md, "NCCL and CUDA environment").
 *
 * NCCL reads its variables from the environment and from a configuration
 * file ($NCCL_CONF_FILE, else /etc/nccl.conf; NAME=VALUE lines) where the
 * environment wins.  The environment is the context's (audit_getenv: this
 * process live, the manifest's "environ" on a recording, the caller's in
 * tests).  ~/.nccl.conf of older NCCL releases is not read: whose home? */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/nccl_env.h"
#include "core/strutil.h"
#include "audit/audit_internal.h"

#define NCCL_CONF "/etc/nccl.conf"

/* A variable NCCL will see, and where it came from. */
struct nccl_var {
	char name[64];
	char value[192];
	char origin[128];	/* "environment" or the conf file */
};

struct nccl_env {
	struct nccl_var v[96];
	int n;
};

static struct nccl_var *nccl_find(struct nccl_env *e, const char *name)
{
	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].name, name))
			return &e->v[i];
	return NULL;
}

static void nccl_add(struct nccl_env *e, const char *name, size_t nlen, const char *value, const char *origin)
{
	struct nccl_var *v;

	if (nlen >= sizeof(e->v[0].name) || !gf_starts_with(name, "NCCL_"))
		return;
	for (int i = 0; i < e->n; i++)
		if (strlen(e->v[i].name) == nlen && !strncmp(e->v[i].name, name, nlen))
			return;	/* the environment was added first and wins */
	if (e->n == (int)(sizeof(e->v) / sizeof(e->v[0])))
		return;
	v = &e->v[e->n++];
	memcpy(v->name, name, nlen);
	v->name[nlen] = '\0';
	gf_strlcpy(v->value, value, sizeof(v->value));
	gf_strlcpy(v->origin, origin, sizeof(v->origin));
}

static void nccl_conf(struct gf_audit_ctx *c, struct nccl_env *e, const char *path)
{
	char *data = NULL, *save = NULL;
	size_t len;

	if (gf_fs_read(&c->fs, path, &data, &len))
		return;
	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq, *name = gf_strip(line);

		if (name[0] == '#' || !(eq = strchr(name, '=')))
			continue;
		*eq = '\0';
		gf_rstrip(name);
		nccl_add(e, name, strlen(name), gf_strip(eq + 1), path);
	}
	free(data);
}

/* Every NCCL_* variable NCCL will see: environment first, then the file. */
static void nccl_env(struct gf_audit_ctx *c, struct nccl_env *e)
{
	const char *conf = audit_getenv(c, "NCCL_CONF_FILE");

	e->n = 0;
	for (const char *const *p = c->env; *p; p++) {
		const char *eq = strchr(*p, '=');

		if (eq)
			nccl_add(e, *p, (size_t)(eq - *p), eq + 1, "environment");
	}
	nccl_conf(c, e, conf && conf[0] ? conf : NCCL_CONF);
}

static const char *nccl_where(void)
{
	return "environment; $NCCL_CONF_FILE or " NCCL_CONF;
}

/* One variable as NCCL sees it (environment, else the conf file) into
 * buf; NULL when unset.  origin gets where it came from. */
static const char *nccl_get(struct gf_audit_ctx *c, const char *name, char *buf, size_t size, char *origin,
			    size_t osize)
{
	struct nccl_env *e = calloc(1, sizeof(*e));
	struct nccl_var *v;
	const char *ret = NULL;

	if (!e)
		return audit_getenv(c, name);
	nccl_env(c, e);
	if ((v = nccl_find(e, name))) {
		gf_strlcpy(buf, v->value, size);
		gf_strlcpy(origin, v->origin, osize);
		ret = buf;
	}
	free(e);
	return ret;
}

static int count_dir(struct gf_audit_ctx *c, const char *path)
{
	char **names = NULL;
	int n = 0;

	if (gf_fs_list(&c->fs, path, &names, &n))
		return 0;
	gf_strv_free(names, n);
	return n;
}

/* A transport switched off where the machine has it: NCCL then moves every
 * byte through a slower path (P2P off: through host memory; IB off: TCP). */
static bool disables_present(struct gf_audit_ctx *c, const struct nccl_var *v)
{
	if (!strcmp(v->value, "0") || !v->value[0])
		return false;
	if (!strcmp(v->name, "NCCL_IB_DISABLE"))
		return count_dir(c, "/sys/class/infiniband") > 0;
	if (!strcmp(v->name, "NCCL_P2P_DISABLE") || !strcmp(v->name, "NCCL_SHM_DISABLE") ||
	    !strcmp(v->name, "NCCL_P2P_DIRECT_DISABLE"))
		return c->t->ngpus > 1;
	return false;
}

static void run_debug_vars(struct gf_audit_ctx *c)
{
	struct nccl_env *e = calloc(1, sizeof(*e));
	int found = 0;

	if (!e) {
		audit_error(audit_result(c, ""), "out of memory");
		return;
	}
	nccl_env(c, e);
	for (int i = 0; i < e->n; i++) {
		struct nccl_var *v = &e->v[i];
		struct gf_check_result *r;

		if (!gf_nccl_debug_var(v->name) || !(r = audit_result(c, v->name)))
			continue;
		found++;
		audit_source(r, "%s", v->origin);
		audit_observed(r, "%s=%s", v->name, v->value);
		audit_expected(r, "unset");
		audit_status(r, disables_present(c, v) && c->profile == GF_PROFILE_TRAINING ? GF_CHECK_FAIL
											       : GF_CHECK_WARN);
		audit_fix(r, "unset %s%s%s", v->name, strcmp(v->origin, "environment") ? "; remove it from " : "",
			  strcmp(v->origin, "environment") ? v->origin : "");
		r->fix_class = GF_FIX_ADVICE;
	}
	if (!found) {
		struct gf_check_result *r = audit_result(c, "");

		audit_source(r, "%s", nccl_where());
		audit_observed(r, "none set");
		audit_expected(r, "no Debugging-section variable");
	}
	free(e);
}

/* NCCL_DEBUG=INFO (or TRACE) prints per rank, per channel, per connection
 * at init and on every communicator: minutes at scale, and logs that bury
 * the one WARN that matters. */
static void run_debug_level(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	struct nccl_env *e = calloc(1, sizeof(*e));
	struct nccl_var *lvl, *sub;

	if (!e) {
		audit_error(r, "out of memory");
		return;
	}
	nccl_env(c, e);
	lvl = nccl_find(e, "NCCL_DEBUG");
	sub = nccl_find(e, "NCCL_DEBUG_SUBSYS");
	audit_source(r, "%s", lvl ? lvl->origin : nccl_where());
	audit_expected(r, "NCCL_DEBUG unset, WARN or VERSION");
	if (!lvl)
		audit_observed(r, "NCCL_DEBUG unset");
	else
		audit_observed(r, "NCCL_DEBUG=%s%s%s", lvl->value, sub ? ", NCCL_DEBUG_SUBSYS=" : "",
			       sub ? sub->value : "");
	if (lvl && (!strcasecmp(lvl->value, "INFO") || !strcasecmp(lvl->value, "TRACE"))) {
		audit_status(r, GF_CHECK_WARN);
		audit_fix(r, "unset NCCL_DEBUG NCCL_DEBUG_SUBSYS (or NCCL_DEBUG=WARN)");
		r->fix_class = GF_FIX_ADVICE;
	} else if (lvl && strcasecmp(lvl->value, "WARN") && strcasecmp(lvl->value, "VERSION") &&
		   strcasecmp(lvl->value, "NONE") && lvl->value[0]) {
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "not a level NCCL knows (VERSION, WARN, INFO, TRACE)");
	}
	free(e);
}

/* CUDA and PyTorch switches meant for a debugger session. */
static void run_cuda_debug(struct gf_audit_ctx *c)
{
	static const struct {
		const char *name, *bad;	/* bad: NULL = any value but 0 */
		enum gf_check_status st;
		const char *why;
	} vars[] = {
		{ "CUDA_LAUNCH_BLOCKING", NULL, GF_CHECK_FAIL, "every kernel launch waits for the GPU" },
		{ "PYTORCH_NO_CUDA_MEMORY_CACHING", NULL, GF_CHECK_FAIL,
		  "PyTorch's caching allocator is off: cudaMalloc/cudaFree per tensor" },
		{ "CUDA_CACHE_DISABLE", NULL, GF_CHECK_WARN, "PTX is JIT-compiled again at every start" },
		{ "TORCH_DISTRIBUTED_DEBUG", "DETAIL", GF_CHECK_WARN,
		  "every collective is checked and logged (DETAIL)" },
	};
	int found = 0;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = audit_getenv(c, vars[i].name);
		struct gf_check_result *r;

		if (!v || !v[0] || !strcmp(v, "0") || (vars[i].bad && strcasecmp(v, vars[i].bad)))
			continue;
		if (!(r = audit_result(c, vars[i].name)))
			continue;
		found++;
		audit_source(r, "environment");
		audit_observed(r, "%s=%s", vars[i].name, v);
		audit_expected(r, "unset");
		audit_status(r, vars[i].st);
		audit_note(r, "%s", vars[i].why);
		audit_fix(r, "unset %s", vars[i].name);
		r->fix_class = GF_FIX_ADVICE;
	}
	if (!found) {
		struct gf_check_result *r = audit_result(c, "");

		audit_source(r, "environment");
		audit_observed(r, "none set");
		audit_expected(r, "no debug switch set");
	}
}

/* NCCL's list syntax (NCCL_IB_HCA, NCCL_SOCKET_IFNAME): a leading '^'
 * excludes, then '=' makes the names exact; otherwise each is a prefix. */
struct name_list {
	bool exclude, exact;
	char buf[512];
	char *tok[32];
	int n;
};

static void parse_list(const char *value, struct name_list *l)
{
	char *save = NULL, *p;

	memset(l, 0, sizeof(*l));
	if (*value == '^') {
		l->exclude = true;
		value++;
	}
	if (*value == '=') {
		l->exact = true;
		value++;
	}
	gf_strlcpy(l->buf, value, sizeof(l->buf));
	for (p = strtok_r(l->buf, ",", &save); p && l->n < 32; p = strtok_r(NULL, ",", &save))
		if (*gf_strip(p))
			l->tok[l->n++] = gf_strip(p);
}

static bool list_match(const struct name_list *l, const char *tok, size_t len, const char *name)
{
	return l->exact ? strlen(name) == len && !strncmp(name, tok, len) : !strncmp(name, tok, len);
}

static void append(char *buf, size_t size, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, fmt, a, b);
}

/* NCCL_IB_HCA=mlx5_1 also selects mlx5_10..mlx5_19 (prefix match); a name
 * that matches no device leaves NCCL on the others or on sockets. */
static void run_ib_hca(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char vbuf[192], origin[128];
	const char *value = nccl_get(c, "NCCL_IB_HCA", vbuf, sizeof(vbuf), origin, sizeof(origin));
	char **devs = NULL, problems[256] = "";
	struct name_list l;
	int ndev = 0;
	enum gf_check_status st = GF_CHECK_PASS;

	if (!value || !value[0]) {
		audit_source(r, "NCCL_IB_HCA (%s); /sys/class/infiniband", nccl_where());
		audit_na(r, "NCCL_IB_HCA is not set: NCCL uses every RDMA device");
		return;
	}
	audit_source(r, "NCCL_IB_HCA (%s); /sys/class/infiniband", origin);
	gf_fs_list(&c->fs, "/sys/class/infiniband", &devs, &ndev);
	parse_list(value, &l);
	audit_observed(r, "NCCL_IB_HCA=%s (%d RDMA device%s)", value, ndev, ndev == 1 ? "" : "s");
	audit_expected(r, "every name matches exactly the devices meant ('=' for exact names)");
	for (int i = 0; i < l.n; i++) {
		char *colon = strchr(l.tok[i], ':'), port[300];
		size_t len = colon ? (size_t)(colon - l.tok[i]) : strlen(l.tok[i]);
		int matches = 0;
		const char *extra = NULL;

		for (int d = 0; d < ndev; d++) {
			if (!list_match(&l, l.tok[i], len, devs[d]))
				continue;
			matches++;
			/* mlx5_1 matching mlx5_10: the name goes on with a digit. */
			if (strlen(devs[d]) > len && len && l.tok[i][len - 1] >= '0' && l.tok[i][len - 1] <= '9' &&
			    devs[d][len] >= '0' && devs[d][len] <= '9')
				extra = devs[d];
			snprintf(port, sizeof(port), "/sys/class/infiniband/%s/ports/%s", devs[d], colon ? colon + 1 : "");
			if (colon && !l.exclude && !audit_exists(c, port)) {
				append(problems, sizeof(problems), "%s has no port %s; ", devs[d], colon + 1);
				st = GF_CHECK_FAIL;
			}
		}
		if (!matches) {
			append(problems, sizeof(problems), "%s matches no RDMA device%s; ", l.tok[i], "");
			if (!l.exclude)
				st = GF_CHECK_FAIL;
			else if (st < GF_CHECK_WARN)
				st = GF_CHECK_WARN;
		} else if (extra) {
			append(problems, sizeof(problems), "%s also matches %s (prefix); ", l.tok[i], extra);
			if (st < GF_CHECK_WARN)
				st = GF_CHECK_WARN;
		}
	}
	gf_strv_free(devs, ndev);
	if (st == GF_CHECK_PASS)
		return;
	audit_status(r, st);
	audit_note(r, "%s", problems);
	audit_fix(r, "NCCL_IB_HCA=%s<exact names> (the '=' prefix stops prefix matching)", l.exclude ? "^=" : "=");
	r->fix_class = GF_FIX_ADVICE;
}

static bool virtual_if(const char *name)
{
	static const char *const prefixes[] = { "lo", "docker", "virbr", "veth", "br-", "cni", "flannel", "cali" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (gf_starts_with(name, prefixes[i]))
			return true;
	return false;
}

/* Line rate of a netdev in Mb/s, -1 unknown (down, virtio). */
static long long if_speed(struct gf_audit_ctx *c, const char *name)
{
	char path[320], buf[32];
	long long v;

	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", name);
	if (audit_peek_str(c, path, buf, sizeof(buf)) || gf_parse_ll(gf_strip(buf), &v) || v <= 0)
		return -1;
	return v;
}

static bool if_down(struct gf_audit_ctx *c, const char *name)
{
	char path[320], buf[32];

	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", name);
	return audit_peek_str(c, path, buf, sizeof(buf)) == 0 && !strcmp(gf_strip(buf), "down");
}

/* The interfaces NCCL_SOCKET_IFNAME selects, judged: none (fail), only
 * loopback or bridges, down, or slower than another physical one (warn). */
static enum gf_check_status judge_ifs(struct gf_audit_ctx *c, char **ifs, int nif, const bool *sel,
				      char *problems, size_t psize)
{
	long long best = -1, fastest_sel = -1;
	int nsel = 0, nreal = 0;
	const char *faster = NULL;
	enum gf_check_status st = GF_CHECK_PASS;

	for (int i = 0; i < nif; i++) {
		long long s = if_speed(c, ifs[i]);

		if (!virtual_if(ifs[i]) && !if_down(c, ifs[i]) && s > best) {
			best = s;
			faster = ifs[i];
		}
		if (!sel[i])
			continue;
		nsel++;
		nreal += !virtual_if(ifs[i]);
		if (if_down(c, ifs[i])) {
			append(problems, psize, "%s is down%s; ", ifs[i], "");
			st = GF_CHECK_WARN;
		}
		if (!virtual_if(ifs[i]) && s > fastest_sel)
			fastest_sel = s;
	}
	if (!nsel) {
		append(problems, psize, "selects no interface%s%s; ", "", "");
		return GF_CHECK_FAIL;
	}
	if (!nreal) {
		append(problems, psize, "selects only loopback or bridge interfaces%s%s; ", "", "");
		st = GF_CHECK_WARN;
	} else if (fastest_sel > 0 && best > fastest_sel) {
		char b[32];

		snprintf(b, sizeof(b), "%lld Mb/s", best);
		append(problems, psize, "%s (%s) is faster than what it selects; ", faster, b);
		st = GF_CHECK_WARN;
	}
	return st;
}

/* NCCL_SOCKET_IFNAME bypasses NCCL's own choice of the bootstrap and socket
 * transport interface. */
static void run_socket_ifname(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char vbuf[192], origin[128];
	const char *value = nccl_get(c, "NCCL_SOCKET_IFNAME", vbuf, sizeof(vbuf), origin, sizeof(origin));
	char **ifs = NULL, problems[256] = "";
	struct name_list l;
	bool *sel;
	int nif = 0, ret;
	enum gf_check_status st;

	if (!value || !value[0]) {
		audit_source(r, "NCCL_SOCKET_IFNAME (%s)", nccl_where());
		audit_na(r, "NCCL_SOCKET_IFNAME is not set: NCCL picks the interface");
		return;
	}
	audit_source(r, "NCCL_SOCKET_IFNAME (%s); /sys/class/net/*/operstate, speed", origin);
	if ((ret = gf_fs_list(&c->fs, "/sys/class/net", &ifs, &nif))) {
		audit_error(r, "/sys/class/net: %s", strerror(-ret));
		return;
	}
	if (!(sel = calloc((size_t)nif + 1, sizeof(bool)))) {
		gf_strv_free(ifs, nif);
		audit_error(r, "out of memory");
		return;
	}
	parse_list(value, &l);
	for (int i = 0; i < nif; i++) {
		bool m = false;

		for (int k = 0; k < l.n && !m; k++)
			m = list_match(&l, l.tok[k], strlen(l.tok[k]), ifs[i]);
		sel[i] = l.exclude ? !m && strcmp(ifs[i], "lo") : m;
	}
	st = judge_ifs(c, ifs, nif, sel, problems, sizeof(problems));
	audit_observed(r, "NCCL_SOCKET_IFNAME=%s", value);
	audit_expected(r, "names an interface that is up and the fastest present");
	if (st != GF_CHECK_PASS) {
		audit_status(r, st);
		audit_note(r, "%s", problems);
		audit_fix(r, "NCCL_SOCKET_IFNAME=<the fast interface> (or unset it)");
		r->fix_class = GF_FIX_ADVICE;
	}
	free(sel);
	gf_strv_free(ifs, nif);
}

/* NCCL_TOPO_FILE replaces NCCL's view of the PCI tree; NCCL loads
 * /var/run/nvidia-topologyd/virtualTopology.xml when it is present (cloud
 * VMs ship one for their hidden topology). */
#define TOPOLOGYD "/var/run/nvidia-topologyd/virtualTopology.xml"
static void run_topo_file(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "");
	char vbuf[192], origin[128];
	const char *value = nccl_get(c, "NCCL_TOPO_FILE", vbuf, sizeof(vbuf), origin, sizeof(origin));
	const char *path = value && value[0] ? value : TOPOLOGYD;
	char *data = NULL;
	size_t len;
	int ret;

	audit_source(r, "%s%s", value && value[0] ? "NCCL_TOPO_FILE=" : "", path);
	audit_expected(r, "NCCL_TOPO_FILE, when set, names an NCCL topology XML");
	ret = gf_fs_read(&c->fs, path, &data, &len);
	if (ret == -ENOENT && !(value && value[0])) {
		audit_observed(r, "unset; no %s", TOPOLOGYD);
		return;
	}
	if (ret) {
		audit_observed(r, "NCCL_TOPO_FILE=%s: %s", path, strerror(-ret));
		audit_status(r, ret == -ENOENT ? GF_CHECK_FAIL : ret == -EACCES ? GF_CHECK_NEEDS_ROOT : GF_CHECK_ERROR);
		audit_fix(r, "point NCCL_TOPO_FILE at an existing topology XML, or unset it");
		r->fix_class = GF_FIX_ADVICE;
		return;
	}
	audit_observed(r, "%s (%zu bytes)", path, len);
	if (!strstr(data, "<system")) {
		audit_status(r, GF_CHECK_FAIL);
		audit_note(r, "no <system> element: not an NCCL topology XML");
		r->fix_class = GF_FIX_ADVICE;
		audit_fix(r, "regenerate it (NCCL_TOPO_DUMP_FILE) or unset NCCL_TOPO_FILE");
	} else if (!(value && value[0]) && !c->t->machine.hypervisor) {
		audit_note(r, "a VM's topology file on bare metal: NCCL loads it by default; remove it if this "
			      "host's own PCI tree should be used");
	}
	free(data);
}

const struct gf_check_def gf_checks_nccl[] = {
	{ { "nccl.debug-vars", "nccl", "no NCCL Debugging-section variable should be left set",
	    "NCCL's Debugging variables 'should not be used in production nor retained in scripts'; "
	    "docs/checks.md#nccl.debug-vars; "
	    "\"NCCL Environment Variables\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#debugging",
	    "environment; $NCCL_CONF_FILE or /etc/nccl.conf",
	    "unset (a *_DISABLE of a transport the host has: fail)", "unset (warn)", "unset the variable", 0 },
	  run_debug_vars },
	{ { "nccl.debug-level", "nccl", "NCCL_DEBUG should not be left at INFO or TRACE",
	    "INFO and TRACE logging slows initialisation and floods the logs; docs/checks.md#nccl.debug-level; "
	    "\"NCCL Environment Variables\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-debug",
	    "NCCL_DEBUG, NCCL_DEBUG_SUBSYS (environment, nccl.conf)", "unset, WARN or VERSION",
	    "unset, WARN or VERSION", "unset NCCL_DEBUG", 0 },
	  run_debug_level },
	{ { "nccl.cuda-debug", "nccl", "no CUDA/PyTorch debug switch should be left set",
	    "debug switches serialise kernels, disable caches or add checks; docs/checks.md#nccl.cuda-debug; "
	    "\"CUDA C++ Programming Guide: CUDA Environment Variables\", https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables; "
	    "\"PyTorch: CUDA semantics\", https://pytorch.org/docs/stable/notes/cuda.html",
	    "CUDA_LAUNCH_BLOCKING, PYTORCH_NO_CUDA_MEMORY_CACHING, CUDA_CACHE_DISABLE, TORCH_DISTRIBUTED_DEBUG",
	    "unset", "unset", "unset the variable", 0 },
	  run_cuda_debug },
	{ { "nccl.ib-hca", "nccl", "NCCL_IB_HCA should name exactly the RDMA devices meant",
	    "NCCL_IB_HCA=mlx5_1 also matches mlx5_10 to mlx5_19 unless given as =mlx5_1; "
	    "docs/checks.md#nccl.ib-hca; "
	    "\"NCCL Environment Variables\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-hca",
	    "NCCL_IB_HCA; /sys/class/infiniband", "unset, or names that each match only what is meant",
	    "unset, or names that each match only what is meant", "NCCL_IB_HCA==mlx5_0,mlx5_1 (exact)", 0 },
	  run_ib_hca },
	{ { "nccl.socket-ifname", "nccl", "NCCL_SOCKET_IFNAME should name an existing, up, fast interface",
	    "NCCL_SOCKET_IFNAME bypasses NCCL's choice of interface: a wrong one slows or hangs bootstrap; "
	    "docs/checks.md#nccl.socket-ifname; "
	    "\"NCCL Environment Variables\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-socket-ifname",
	    "NCCL_SOCKET_IFNAME; /sys/class/net/*/operstate, speed",
	    "unset, or the fastest up interface", "unset, or the fastest up interface",
	    "NCCL_SOCKET_IFNAME=<fast interface> or unset", 0 },
	  run_socket_ifname },
	{ { "nccl.topo-file", "nccl", "the NCCL topology file, when used, should exist and be one",
	    "NCCL reads this file (or /var/run/nvidia-topologyd/virtualTopology.xml when present) instead of detecting the topology; "
	    "docs/checks.md#nccl.topo-file; "
	    "\"NCCL Environment Variables\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-topo-file",
	    "NCCL_TOPO_FILE; " TOPOLOGYD, "unset, or an existing topology XML", "unset, or an existing topology XML",
	    "fix or unset NCCL_TOPO_FILE", GF_CHECK_NEEDS_GPU },
	  run_topo_file },
	GF_CHECK_END,
};
