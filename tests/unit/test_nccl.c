/* The NCCL layer against the stand-in libnccl (tests/fakes/fake_nccl.c):
 * loading, absent and wrong libraries, where it looks (GPUFEED_NCCL_LIBRARY,
 * NCCL_LIBRARY, the linker's path, PyTorch's copy in a Python
 * environment), optional symbols, the version string, and errors. */
#include "helpers.h"
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include "vendor/nccl/nccl.h"

static char fake[512];
static char *saved_path;

/* The build under test's stand-in: next to its libcuda (tests/run.sh names
 * that one), else build/'s. */
static const char *fake_nccl(void)
{
	const char *cuda = getenv("GPUFEED_FAKE_CUDA");
	char dir[512];

	if (getenv("GPUFEED_FAKE_NCCL"))
		return getenv("GPUFEED_FAKE_NCCL");
	if (!cuda)
		return "build/fakes/libnccl.so.2";
	snprintf(dir, sizeof(dir), "%s", cuda);
	snprintf(fake, sizeof(fake), "%s/libnccl.so.2", dirname(dir));
	return fake;
}

static int use_fake(void **state)
{
	(void)state;
	setenv("GPUFEED_NCCL_LIBRARY", fake_nccl(), 1);
	unsetenv("NCCL_LIBRARY");
	unsetenv("VIRTUAL_ENV");
	unsetenv("CONDA_PREFIX");
	unsetenv("FAKE_NCCL_VERSION");
	unsetenv("FAKE_NCCL_FAIL");
	unsetenv("FAKE_NCCL_NO_CONFIG");
	if (!saved_path)
		saved_path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", saved_path, 1);
	gf_nccl_unload();
	return 0;
}

static void absent_library(void **state)
{
	const struct gf_nccl_ops *ops;
	char why[400];

	(void)state;
	setenv("GPUFEED_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
	assert_int_equal(gf_nccl_load(&ops, why, sizeof(why)), -ENOSYS);
	assert_null(ops);
	assert_string_equal(why, "GPUFEED_NCCL_LIBRARY=/nonexistent/libnccl.so.2 not found");
	assert_string_equal(gf_last_error(), "NCCL not available: GPUFEED_NCCL_LIBRARY=/nonexistent/libnccl.so.2 not found");
	assert_int_equal(gf_nccl_version_string(why, sizeof(why)), -ENOSYS);
}

static void missing_required_symbol(void **state)
{
	const struct gf_nccl_ops *ops;
	char why[400];

	(void)state;
	setenv("GPUFEED_NCCL_LIBRARY", "libm.so.6", 1);
	assert_int_equal(gf_nccl_load(&ops, why, sizeof(why)), -ENOSYS);
	assert_string_equal(why, "GPUFEED_NCCL_LIBRARY=libm.so.6 lacks ncclGetVersion (not an NCCL 2 library?)");
}

static void loads_the_fake_with_optional_symbols(void **state)
{
	const struct gf_nccl_ops *ops;
	char why[400];

	(void)state;
	assert_int_equal(gf_nccl_load(&ops, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_string_equal(gf_nccl_library(), fake_nccl());
	assert_non_null(ops->all_reduce);
	assert_non_null(ops->comm_init_rank_config);
	assert_non_null(ops->comm_finalize);
	assert_non_null(ops->get_last_error);
	/* An NCCL before 2.14: the optional one is NULL, the rest loads. */
	gf_nccl_unload();
	setenv("FAKE_NCCL_NO_CONFIG", "1", 1);
	assert_int_equal(gf_nccl_load(&ops, why, sizeof(why)), 0);
	assert_null(ops->comm_init_rank_config);
	assert_non_null(ops->comm_init_rank);
}

/* NCCL_LIBRARY is read when GPUFEED_NCCL_LIBRARY is unset, and loses to it. */
static void nccl_library_variable(void **state)
{
	const struct gf_nccl_ops *ops;
	char why[400];

	(void)state;
	setenv("NCCL_LIBRARY", "/nonexistent/nccl-b.so", 1);
	assert_int_equal(gf_nccl_load(&ops, why, sizeof(why)), 0);
	assert_string_equal(gf_nccl_library(), fake_nccl());
	gf_nccl_unload();
	unsetenv("GPUFEED_NCCL_LIBRARY");
	assert_int_equal(gf_nccl_load(&ops, why, sizeof(why)), -ENOSYS);
	assert_string_equal(why, "NCCL_LIBRARY=/nonexistent/nccl-b.so not found");
	gf_nccl_unload();
	setenv("NCCL_LIBRARY", fake_nccl(), 1);
	assert_int_equal(gf_nccl_load(&ops, why, sizeof(why)), 0);
	assert_string_equal(gf_nccl_library(), fake_nccl());
}

/* A libnccl.so.2 on the linker's path or installed system-wide for Python
 * (a CUDA toolkit's, a GPU machine's): the parts that expect none skip. */
static int system_nccl_present(void)
{
	void *h = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_LOCAL);
	glob_t g;
	int found;

	if (h) {
		dlclose(h);
		return 1;
	}
	found = !glob("/usr/local/lib/python3*/dist-packages/nvidia/*/lib/libnccl.so.2", 0, NULL, &g);
	if (found)
		globfree(&g);
	if (!found) {
		found = !glob("/usr/lib/python3/dist-packages/nvidia/*/lib/libnccl.so.2", 0, NULL, &g);
		if (found)
			globfree(&g);
	}
	return found;
}

/* <prefix>/<rel>/libnccl.so.2 as a link to the stand-in; its full path. */
static char *plant(const char *prefix, const char *rel)
{
	char dir[700], *path = malloc(800), target[600];
	char *p;

	assert_non_null(path);
	snprintf(dir, sizeof(dir), "%s/%s", prefix, rel);
	for (p = dir + strlen(prefix) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
	mkdir(dir, 0755);
	if (fake_nccl()[0] == '/')
		snprintf(target, sizeof(target), "%s", fake_nccl());
	else
		assert_non_null(realpath(fake_nccl(), target));
	snprintf(path, 800, "%s/libnccl.so.2", dir);
	assert_int_equal(symlink(target, path), 0);
	return path;
}

static void python_bin(const char *prefix, const char *path_before)
{
	char bin[600], exe[700], path[1400];

	snprintf(bin, sizeof(bin), "%s/bin", prefix);
	mkdir(bin, 0755);
	t_write(bin, "python3", "#!/bin/sh\n");
	snprintf(exe, sizeof(exe), "%s/python3", bin);
	assert_int_equal(chmod(exe, 0755), 0);
	snprintf(path, sizeof(path), "%s:%s/", path_before, bin);	/* a trailing slash too */
	setenv("PATH", path, 1);
}

/* Where PyTorch's NCCL is looked for, in order, without running python. */
static void pytorch_nccl_search(void **state)
{
	char path[600], looked[900], want[900], *venv = t_mkdtemp(), *conda = t_mkdtemp(), *tools = t_mkdtemp();
	char *in_venv, *in_conda, *on_path;

	(void)state;
	setenv("VIRTUAL_ENV", venv, 1);
	setenv("PATH", "/nonexistent/bin", 1);
	if (!system_nccl_present()) {
		assert_int_equal(gf_nccl_search_python(path, sizeof(path), looked, sizeof(looked)), -ENOENT);
		snprintf(want, sizeof(want), "no PyTorch NCCL under VIRTUAL_ENV=%s, /usr/local/lib/python3*/dist-packages, "
			 "/usr/lib/python3/dist-packages", venv);
		assert_string_equal(looked, want);
	}
	/* The python3 on PATH names its environment (pip's nvidia-nccl-cu12),
	 * one without NCCL named among the places looked. */
	python_bin(conda, "/nonexistent/bin");
	assert_int_equal(gf_nccl_search_python(path, sizeof(path), looked, sizeof(looked)), -ENOENT);
	snprintf(want, sizeof(want), "no PyTorch NCCL under VIRTUAL_ENV=%s, %s (python3 on PATH), ", venv, conda);
	assert_memory_equal(looked, want, strlen(want));
	on_path = plant(tools, "lib/python3.12/site-packages/nvidia/nccl/lib");
	python_bin(tools, "/nonexistent/bin");
	assert_int_equal(gf_nccl_search_python(path, sizeof(path), looked, sizeof(looked)), 0);
	assert_string_equal(path, on_path);
	/* CONDA_PREFIX before PATH, the older nvidia/cuNN bundle layout. */
	in_conda = plant(conda, "lib/python3.11/site-packages/nvidia/cu12/lib");
	setenv("CONDA_PREFIX", conda, 1);
	assert_int_equal(gf_nccl_search_python(path, sizeof(path), looked, sizeof(looked)), 0);
	assert_string_equal(path, in_conda);
	/* VIRTUAL_ENV before both. */
	in_venv = plant(venv, "lib/python3.12/site-packages/nvidia/nccl/lib");
	assert_int_equal(gf_nccl_search_python(path, sizeof(path), looked, sizeof(looked)), 0);
	assert_string_equal(path, in_venv);
	free(in_venv);
	free(in_conda);
	free(on_path);
	t_rmtree(venv);
	t_rmtree(conda);
	t_rmtree(tools);
	free(venv);
	free(conda);
	free(tools);
}

/* The whole chain: only where no libnccl.so.2 is on the linker's path. */
static void loads_pytorch_nccl_after_the_linker_path(void **state)
{
	const struct gf_nccl_ops *ops;
	char why[900], want[900], *venv;
	char *in_venv;

	(void)state;
	if (system_nccl_present())
		skip();
	venv = t_mkdtemp();
	unsetenv("GPUFEED_NCCL_LIBRARY");
	setenv("VIRTUAL_ENV", venv, 1);
	setenv("PATH", "/nonexistent/bin", 1);
	assert_int_equal(gf_nccl_load(&ops, why, sizeof(why)), -ENOSYS);
	snprintf(want, sizeof(want),
		 "libnccl.so.2 not found (GPUFEED_NCCL_LIBRARY, NCCL_LIBRARY unset; not on the linker's path; "
		 "no PyTorch NCCL under VIRTUAL_ENV=%s, /usr/local/lib/python3*/dist-packages, "
		 "/usr/lib/python3/dist-packages)", venv);
	assert_string_equal(why, want);
	gf_nccl_unload();
	in_venv = plant(venv, "lib/python3.12/site-packages/nvidia/nccl/lib");
	assert_int_equal(gf_nccl_load(&ops, why, sizeof(why)), 0);
	assert_string_equal(gf_nccl_library(), in_venv);
	assert_non_null(ops->get_version);
	free(in_venv);
	t_rmtree(venv);
	free(venv);
}

static void version_string(void **state)
{
	char v[32];

	(void)state;
	assert_int_equal(gf_nccl_version_string(v, sizeof(v)), 0);
	assert_string_equal(v, "2.28.9");
	setenv("FAKE_NCCL_VERSION", "21903", 1);
	assert_int_equal(gf_nccl_version_string(v, sizeof(v)), 0);
	assert_string_equal(v, "2.19.3");
	/* Before 2.9: X*1000+Y*100+Z. */
	setenv("FAKE_NCCL_VERSION", "2804", 1);
	assert_int_equal(gf_nccl_version_string(v, sizeof(v)), 0);
	assert_string_equal(v, "2.8.4");
	setenv("FAKE_NCCL_FAIL", "ncclGetVersion", 1);
	assert_int_equal(gf_nccl_version_string(v, sizeof(v)), -EIO);
	assert_string_equal(gf_last_error(), "ncclGetVersion: ncclSystemError: ncclGetVersion failed (FAKE_NCCL_FAIL)");
}

static const char *oom_last_error(gf_nccl_comm comm)
{
	(void)comm;
	return "Cuda failure 2 'out of memory'";
}

static const char *empty_last_error(gf_nccl_comm comm)
{
	(void)comm;
	return "";
}

static void errors(void **state)
{
	const struct gf_nccl_ops *fake_ops;
	struct gf_nccl_ops ops = { 0 };
	char why[400];

	(void)state;
	assert_int_equal(gf_nccl_load(&fake_ops, why, sizeof(why)), 0);
	ops.get_error_string = fake_ops->get_error_string;
	assert_int_equal(gf_nccl_check(&ops, NULL, GF_NCCL_SUCCESS, "ncclAllReduce"), 0);
	/* No ncclGetLastError (NCCL < 2.13): ncclGetErrorString's sentence. */
	assert_int_equal(gf_nccl_check(&ops, NULL, GF_NCCL_INVALID_ARGUMENT, "ncclAllReduce"), -EINVAL);
	assert_string_equal(gf_last_error(),
			    "ncclAllReduce: ncclInvalidArgument: invalid argument (run with NCCL_DEBUG=WARN for details)");
	assert_int_equal(gf_nccl_check(&ops, NULL, GF_NCCL_INVALID_USAGE, "x"), -EINVAL);
	assert_int_equal(gf_nccl_check(&ops, NULL, GF_NCCL_REMOTE_ERROR, "x"), -EIO);
	assert_int_equal(gf_nccl_check(&ops, NULL, GF_NCCL_INTERNAL_ERROR, "x"), -EIO);
	assert_int_equal(gf_nccl_check(&ops, NULL, GF_NCCL_IN_PROGRESS, "x"), -EINPROGRESS);
	/* An empty last error says nothing: the sentence again. */
	ops.get_last_error = empty_last_error;
	assert_string_equal(gf_nccl_strerror(&ops, NULL, GF_NCCL_REMOTE_ERROR),
			    "ncclRemoteError: remote process exited or there was a network error");
	/* CUDA out of memory behind it: -ENOMEM. */
	ops.get_last_error = oom_last_error;
	assert_int_equal(gf_nccl_check(&ops, NULL, GF_NCCL_UNHANDLED_CUDA_ERROR, "ncclCommInitRank"), -ENOMEM);
	assert_string_equal(gf_last_error(), "ncclCommInitRank: ncclUnhandledCudaError: Cuda failure 2 'out of memory'");
	assert_int_equal(gf_nccl_check(&ops, NULL, GF_NCCL_SYSTEM_ERROR, "x"), -ENOMEM);
	/* A code this NCCL does not know, and no library at all. */
	ops.get_last_error = NULL;
	assert_string_equal(gf_nccl_strerror(&ops, NULL, 99), "ncclResult 99: unknown result code");
	assert_string_equal(gf_nccl_strerror(NULL, NULL, GF_NCCL_SYSTEM_ERROR), "ncclSystemError");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(absent_library, use_fake),
		cmocka_unit_test_setup(missing_required_symbol, use_fake),
		cmocka_unit_test_setup(loads_the_fake_with_optional_symbols, use_fake),
		cmocka_unit_test_setup(nccl_library_variable, use_fake),
		cmocka_unit_test_setup(pytorch_nccl_search, use_fake),
		cmocka_unit_test_setup(loads_pytorch_nccl_after_the_linker_path, use_fake),
		cmocka_unit_test_setup(version_string, use_fake),
		cmocka_unit_test_setup(errors, use_fake),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
