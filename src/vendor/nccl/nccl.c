/* libnccl.so.2 through the one dlopen pattern (core/dl.h), with one more
 * place to look than the other vendor libraries: NCCL is often installed
 * only as the wheel PyTorch depends on (nvidia-nccl-cu12, files under
 * site-packages/nvidia/nccl/lib), which no linker path names.  The search
 * reads the environment's prefixes from variables, never by running
 * python: a library does not start processes to find its libraries. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/env.h>
#include "core/dl.h"
#include "core/error.h"
#include "core/strutil.h"
#include "vendor/nccl/nccl.h"

static struct gf_nccl_ops nccl_ops;

static const struct gf_dl_sym nccl_syms[] = {
	GF_DL_REQUIRED(struct gf_nccl_ops, get_version, "ncclGetVersion"),
	GF_DL_REQUIRED(struct gf_nccl_ops, get_unique_id, "ncclGetUniqueId"),
	GF_DL_REQUIRED(struct gf_nccl_ops, comm_init_rank, "ncclCommInitRank"),
	GF_DL_REQUIRED(struct gf_nccl_ops, comm_init_all, "ncclCommInitAll"),
	GF_DL_REQUIRED(struct gf_nccl_ops, comm_destroy, "ncclCommDestroy"),
	GF_DL_REQUIRED(struct gf_nccl_ops, comm_abort, "ncclCommAbort"),
	GF_DL_REQUIRED(struct gf_nccl_ops, comm_get_async_error, "ncclCommGetAsyncError"),
	GF_DL_REQUIRED(struct gf_nccl_ops, comm_count, "ncclCommCount"),
	GF_DL_REQUIRED(struct gf_nccl_ops, comm_cu_device, "ncclCommCuDevice"),
	GF_DL_REQUIRED(struct gf_nccl_ops, comm_user_rank, "ncclCommUserRank"),
	GF_DL_REQUIRED(struct gf_nccl_ops, get_error_string, "ncclGetErrorString"),
	GF_DL_REQUIRED(struct gf_nccl_ops, group_start, "ncclGroupStart"),
	GF_DL_REQUIRED(struct gf_nccl_ops, group_end, "ncclGroupEnd"),
	GF_DL_REQUIRED(struct gf_nccl_ops, all_reduce, "ncclAllReduce"),
	GF_DL_REQUIRED(struct gf_nccl_ops, all_gather, "ncclAllGather"),
	GF_DL_REQUIRED(struct gf_nccl_ops, reduce_scatter, "ncclReduceScatter"),
	GF_DL_REQUIRED(struct gf_nccl_ops, broadcast, "ncclBroadcast"),
	GF_DL_REQUIRED(struct gf_nccl_ops, reduce, "ncclReduce"),
	GF_DL_REQUIRED(struct gf_nccl_ops, send, "ncclSend"),
	GF_DL_REQUIRED(struct gf_nccl_ops, recv, "ncclRecv"),
	GF_DL_OPTIONAL(struct gf_nccl_ops, comm_init_rank_config, "ncclCommInitRankConfig"),
	GF_DL_OPTIONAL(struct gf_nccl_ops, comm_finalize, "ncclCommFinalize"),
	GF_DL_OPTIONAL(struct gf_nccl_ops, get_last_error, "ncclGetLastError"),
	GF_DL_OPTIONAL(struct gf_nccl_ops, reset_debug_init, "ncclResetDebugInit"),
};

/* Where pip puts NCCL inside one site-packages directory: its own wheel
 * (nvidia-nccl-cu12), or the older bundles of several CUDA libraries. */
static const char *const wheel_dirs[] = { "nvidia/nccl/lib", "nvidia/cu*/lib" };

/* `s` with glob's special characters escaped, so a prefix is taken as is. */
static void glob_escape(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; *s && n + 2 < size; s++) {
		if (strchr("*?[\\", *s))
			out[n++] = '\\';
		out[n++] = *s;
	}
	out[n] = '\0';
}

/* The first libnccl.so.2 under the site-packages directories `sites` (a
 * glob pattern, already escaped), the newest python3.* last in glob's
 * order, so the last match wins. */
static int find_in_sites(const char *sites, char *path, size_t size)
{
	for (size_t i = 0; i < sizeof(wheel_dirs) / sizeof(wheel_dirs[0]); i++) {
		char pattern[1024];
		glob_t g;
		int found;

		snprintf(pattern, sizeof(pattern), "%s/%s/" GF_NCCL_LIBRARY_DEFAULT, sites, wheel_dirs[i]);
		if (glob(pattern, 0, NULL, &g))
			continue;
		found = g.gl_pathc > 0 && strlen(g.gl_pathv[g.gl_pathc - 1]) < size;
		if (found)
			gf_strlcpy(path, g.gl_pathv[g.gl_pathc - 1], size);
		globfree(&g);
		if (found)
			return 0;
	}
	return -ENOENT;
}

static int find_under_prefix(const char *prefix, char *path, size_t size)
{
	char esc[512], sites[600];

	glob_escape(prefix, esc, sizeof(esc));
	snprintf(sites, sizeof(sites), "%s/lib/python3*/site-packages", esc);
	return find_in_sites(sites, path, size);
}

/* The prefix of the first python3 on PATH: /opt/torch/.venv for
 * /opt/torch/.venv/bin/python3 (a venv's python3 is a link out of it, so
 * the directory on PATH is what names the environment, not the link). */
static int python_prefix(char *prefix, size_t size)
{
	const char *path = gf_env_str(GF_ENV_SEARCH_PATH);

	while (path && *path) {
		size_t len = strcspn(path, ":");
		char exe[600];

		if (len && len < sizeof(exe) - 16) {
			snprintf(exe, sizeof(exe), "%.*s/python3", (int)len, path);
			if (access(exe, X_OK) == 0) {
				char *slash;

				snprintf(prefix, size, "%.*s", (int)len, path);
				while ((slash = strrchr(prefix, '/')) && slash[1] == '\0' && slash != prefix)
					*slash = '\0';	/* "/x/bin/" */
				slash = strrchr(prefix, '/');
				if (!slash)
					return -ENOENT;
				*(slash == prefix ? slash + 1 : slash) = '\0';
				return 0;
			}
		}
		path += len + (path[len] == ':');
	}
	return -ENOENT;
}

static void add_looked(char *looked, size_t lsize, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(looked);

	if (n < lsize)
		snprintf(looked + n, lsize - n, fmt, n ? ", " : "", a, b);
}

/* core/dl.h's search: PyTorch's NCCL in the Python environments this
 * process can name (nccl.h). */
int gf_nccl_search_python(char *path, size_t size, char *looked, size_t lsize)
{
	static const int prefix_vars[] = { GF_ENV_VIRTUAL_ENV, GF_ENV_CONDA_PREFIX };
	static const char *const system_sites[] = { "/usr/local/lib/python3*/dist-packages",
						    "/usr/lib/python3/dist-packages" };
	char prefix[512], list[600] = "";

	for (size_t i = 0; i < sizeof(prefix_vars) / sizeof(prefix_vars[0]); i++) {
		const char *p = gf_env_str((enum gf_env_var)prefix_vars[i]);

		if (!p)
			continue;
		if (!find_under_prefix(p, path, size))
			return 0;
		add_looked(list, sizeof(list), "%s%s=%s", gf_env_name((enum gf_env_var)prefix_vars[i]), p);
	}
	if (!python_prefix(prefix, sizeof(prefix))) {
		if (!find_under_prefix(prefix, path, size))
			return 0;
		add_looked(list, sizeof(list), "%s%s%s", prefix, " (python3 on PATH)");
	}
	for (size_t i = 0; i < sizeof(system_sites) / sizeof(system_sites[0]); i++) {
		if (!find_in_sites(system_sites[i], path, size))
			return 0;
		add_looked(list, sizeof(list), "%s%s%s", system_sites[i], "");
	}
	snprintf(looked, lsize, "no PyTorch NCCL under %s", list);
	return -ENOENT;
}

static struct gf_dl_lib nccl_lib = GF_DL_LIB_INIT_SEARCH("NCCL", GF_NCCL_LIBRARY_DEFAULT, GF_ENV_NCCL_LIBRARY_OVERRIDE,
							 GF_ENV_NCCL_LIBRARY, gf_nccl_search_python, nccl_syms, &nccl_ops,
							 "not an NCCL 2 library?");

int gf_nccl_load(const struct gf_nccl_ops **ops, char *why, size_t whysize)
{
	int ret = gf_dl_load(&nccl_lib);

	*ops = ret ? NULL : &nccl_ops;
	gf_strlcpy(why, gf_dl_why(&nccl_lib), whysize);
	return ret;
}

const char *gf_nccl_library(void)
{
	return gf_dl_path(&nccl_lib);
}

void gf_nccl_unload(void)
{
	gf_dl_unload(&nccl_lib);
}

int gf_nccl_version_string(char *buf, size_t size)
{
	const struct gf_nccl_ops *ops;
	char why[8];
	int ret = gf_nccl_load(&ops, why, sizeof(why)), v = 0, r;

	if (ret)
		return ret;
	r = ops->get_version(&v);
	if (r != GF_NCCL_SUCCESS)
		return gf_nccl_check(ops, NULL, r, "ncclGetVersion");
	/* NCCL_VERSION_CODE: X*10000+Y*100+Z since 2.9, X*1000+Y*100+Z before. */
	if (v >= 10000)
		snprintf(buf, size, "%d.%d.%d", v / 10000, v % 10000 / 100, v % 100);
	else
		snprintf(buf, size, "%d.%d.%d", v / 1000, v % 1000 / 100, v % 100);
	return 0;
}

static const char *result_name(gf_nccl_result r)
{
	switch (r) {
	case GF_NCCL_SUCCESS: return "ncclSuccess";
	case GF_NCCL_UNHANDLED_CUDA_ERROR: return "ncclUnhandledCudaError";
	case GF_NCCL_SYSTEM_ERROR: return "ncclSystemError";
	case GF_NCCL_INTERNAL_ERROR: return "ncclInternalError";
	case GF_NCCL_INVALID_ARGUMENT: return "ncclInvalidArgument";
	case GF_NCCL_INVALID_USAGE: return "ncclInvalidUsage";
	case GF_NCCL_REMOTE_ERROR: return "ncclRemoteError";
	case GF_NCCL_IN_PROGRESS: return "ncclInProgress";
	default: return NULL;
	}
}

/* NCCL's detail: the comm's last error where this NCCL keeps one, else
 * ncclGetErrorString's sentence. */
static const char *detail(const struct gf_nccl_ops *ops, gf_nccl_comm comm, gf_nccl_result r)
{
	const char *s = NULL;

	if (ops && ops->get_last_error)
		s = ops->get_last_error(comm);
	if ((!s || !*s) && ops && ops->get_error_string)
		s = ops->get_error_string(r);
	return s ? s : "";
}

const char *gf_nccl_strerror(const struct gf_nccl_ops *ops, gf_nccl_comm comm, gf_nccl_result r)
{
	static _Thread_local char buf[512];
	const char *d = detail(ops, comm, r), *name = result_name(r);
	char unknown[32];

	if (!name) {
		snprintf(unknown, sizeof(unknown), "ncclResult %d", r);
		name = unknown;
	}
	snprintf(buf, sizeof(buf), "%s%s%s", name, *d ? ": " : "", d);
	return buf;
}

static int result_errno(gf_nccl_result r, const char *detail_text)
{
	switch (r) {
	case GF_NCCL_INVALID_ARGUMENT:
	case GF_NCCL_INVALID_USAGE:
		return -EINVAL;
	case GF_NCCL_IN_PROGRESS:
		return -EINPROGRESS;
	case GF_NCCL_UNHANDLED_CUDA_ERROR:
	case GF_NCCL_SYSTEM_ERROR:
		if (strstr(detail_text, "out of memory") || strstr(detail_text, "Cannot allocate memory"))
			return -ENOMEM;
		return -EIO;
	default:
		return -EIO;
	}
}

int gf_nccl_check(const struct gf_nccl_ops *ops, gf_nccl_comm comm, gf_nccl_result r, const char *what)
{
	const char *msg;

	if (r == GF_NCCL_SUCCESS)
		return 0;
	msg = gf_nccl_strerror(ops, comm, r);
	return gf_error(result_errno(r, msg), "%s: %s", what, msg);
}
