#define _XOPEN_SOURCE 700
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpufeed/topo.h>

#include "helpers.h"

char *t_mkdtemp(void)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	if (asprintf(&dir, "%s/gpufeed-test-XXXXXX", base ? base : "/tmp") < 0)
		return NULL;
	assert_non_null(mkdtemp(dir));
	return dir;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

void t_rmtree(const char *dir)
{
	if (dir)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkparents(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0755);
		*p = '/';
	}
}

void t_write_bytes(const char *dir, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	mkparents(path);
	/* A fresh file, never a write through: the copy's files are hard
	 * links to the shared fixture (t_copytree). */
	unlink(path);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

void t_write(const char *dir, const char *rel, const char *text)
{
	t_write_bytes(dir, rel, text, strlen(text));
}

void t_symlink(const char *dir, const char *rel, const char *target)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	mkparents(path);
	unlink(path);
	assert_int_equal(symlink(target, path), 0);
}

char *t_read(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

const char *t_src_path(const char *rel)
{
	static _Thread_local char buf[PATH_MAX];
	const char *src = getenv("GPUFEED_SRC");

	snprintf(buf, sizeof(buf), "%s/%s", src ? src : ".", rel);
	return buf;
}

/* The fixtures are kept as root.tar.gz; tests/run.sh unpacks them once into
 * $GPUFEED_FIXTURES.  Run alone, a test unpacks them into $BUILD/fixtures
 * (default build/) the same way. */
const char *t_fixture_root(const char *name)
{
	static _Thread_local char buf[PATH_MAX];
	const char *fix = getenv("GPUFEED_FIXTURES");
	const char *src = getenv("GPUFEED_SRC");

	if (!fix || !*fix) {
		static char unpacked[PATH_MAX];
		const char *build = getenv("BUILD");

		if (!unpacked[0]) {
			char cmd[3 * PATH_MAX];

			if (build && build[0] == '/')
				snprintf(unpacked, sizeof(unpacked), "%s/fixtures/machines", build);
			else
				snprintf(unpacked, sizeof(unpacked), "%s/%s/fixtures/machines", src ? src : ".",
					 build ? build : "build");
			snprintf(cmd, sizeof(cmd), "'%s/tests/fixtures/tools/unpack.sh' '%s'", src ? src : ".",
				 unpacked);
			assert_int_equal(system(cmd), 0);
		}
		fix = unpacked;
	}
	snprintf(buf, sizeof(buf), "%s/%s/root", fix, name);
	return buf;
}

/* The copy's directories are its own and its files hard links to the
 * fixture's: 15,000 links cost a tenth of what copying the bytes did.  A
 * test therefore changes a file only by replacing it (t_write, t_symlink
 * and afx_put unlink first); tests/run.sh fails the run when a fixture file
 * was written through a link (its mtime moved). */
void t_copytree(const char *from, const char *to)
{
	char cmd[7 * PATH_MAX];

	/* Across file systems (TMPDIR on a tmpfs) links fail: copy the bytes. */
	snprintf(cmd, sizeof(cmd), "cp -al '%s/.' '%s/' 2>/dev/null || { rm -rf '%s' && mkdir '%s' && cp -a '%s/.' '%s/'; }",
		 from, to, to, to, from, to);
	assert_int_equal(system(cmd), 0);
}

void t_copytree_bytes(const char *from, const char *to)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cp -a '%s/.' '%s/'", from, to);
	assert_int_equal(system(cmd), 0);
}

struct gf_topo *t_live_model(void)
{
	struct gf_topo_options to = GF_TOPO_OPTS_INIT;
	struct gf_topo *t = NULL;

	to.nvml = GF_NVML_OFF;
	assert_int_equal(gf_topo_discover(&to, &t), 0);
	return t;
}

void t_use_fakes(void)
{
	static const char *const scenario[] = {
		"FAKE_CUDA_FAIL", "FAKE_CUDA_SCENARIO", "FAKE_CUDA_PCI", "FAKE_CUFILE_SCENARIO",
		"FAKE_CUFILE_FAIL_READ", "FAKE_CUFILE_FAIL_SUBMIT", "FAKE_CUFILE_LOG", "GPUFEED_PCI_LOCALITY",
	};
	const char *cuda = getenv("GPUFEED_FAKE_CUDA"), *nvml = getenv("GPUFEED_FAKE_NVML"),
		   *cufile = getenv("GPUFEED_FAKE_CUFILE");

	setenv("GPUFEED_CUDA_LIBRARY", cuda ? cuda : "build/fakes/libcuda.so.1", 1);
	setenv("GPUFEED_NVML_LIBRARY", nvml ? nvml : "build/fakes/libnvidia-ml.so.1", 1);
	setenv("GPUFEED_CUFILE_LIBRARY", cufile ? cufile : "build/fakes/libcufile.so.0", 1);
	for (size_t i = 0; i < sizeof(scenario) / sizeof(scenario[0]); i++)
		unsetenv(scenario[i]);
}

int t_fake_cuda_live(void)
{
	void *h = dlopen(getenv("GPUFEED_CUDA_LIBRARY"), RTLD_LAZY | RTLD_NOLOAD);
	int (*f)(void) = h ? (int (*)(void))(uintptr_t)dlsym(h, "fake_cuda_live_allocs") : NULL;
	int n = f ? f() : -1;

	if (h)
		dlclose(h);
	return n;
}
