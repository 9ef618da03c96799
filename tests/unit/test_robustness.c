/* Malformed recordings: every file the model reads, emptied, truncated and
 * filled with garbage in turn.  Discovery must never crash (the sanitizer
 * build runs this too); when it fails, the message names the file; and for
 * the files that hold numbers or CPU lists, garbage is reported (error or
 * warning naming the file), never silently taken. */
#include "helpers.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpufeed/gpufeed.h>
#include "core/fs.h"
#include "core/recorder.h"
#include "topo/topo_internal.h"

/* Files whose content is parsed: garbage there must be reported. */
static const char *parsed[] = {
	"numa_node", "current_link_width", "max_link_width", "current_link_speed", "max_link_speed",
	"class", "vendor", "device", "cpulist", "local_cpulist", "distance", "online", "possible",
	"thread_siblings_list", "package_cpus_list", "shared_cpu_list", "physical_package_id",
	"level", "rate", "type", "nvml.json", "information", NULL,
};

static bool is_parsed(const char *rel)
{
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	for (int i = 0; parsed[i]; i++)
		if (!strcmp(base, parsed[i]))
			return true;
	return false;
}

/* Copy exactly what discovery reads: run it with the recorder attached. */
static char *tap_copy(const char *root)
{
	char *dst = t_mkdtemp(), src_nvml[PATH_MAX];
	struct gf_recorder rec;
	struct gf_ctx c = { 0 };
	struct gf_topo *t;
	FILE *f;

	assert_int_equal(gf_fs_init(&c.fs, root), 0);
	assert_int_equal(gf_rec_init(&rec, dst), 0);
	c.fs.rec = &rec;
	c.t = calloc(1, sizeof(*c.t));
	snprintf(src_nvml, sizeof(src_nvml), "%s/nvml.json", root);
	if ((f = fopen(src_nvml, "r"))) {
		char cmd[2 * PATH_MAX];

		fclose(f);
		assert_int_equal(gf_nvml_facts_load(src_nvml, &c.facts), 0);
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s/nvml.json'", src_nvml, dst);
		assert_int_equal(system(cmd), 0);
	}
	assert_int_equal(gf_topo_discover_ctx(&c, &t), 0);
	assert_int_equal(rec.error, 0);
	gf_rec_fini(&rec);
	gf_topo_free(t);
	gf_nvml_facts_free(c.facts);
	gf_fs_fini(&c.fs);
	return dst;
}

struct stats {
	int files, runs, errors, warned;
};

static void write_bytes(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static bool mentions(const struct gf_topo *t, const char *rel)
{
	for (int i = 0; t && i < t->nwarnings; i++)
		if (strstr(t->warnings[i], rel))
			return true;
	return false;
}

static void corrupt_one(const char *root, const char *rel, struct stats *st)
{
	static const char garbage[] = "\x01garbage \xff\xfe{[\n";
	char path[PATH_MAX];
	char *orig = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	orig = t_read(path);
	assert_non_null(orig);
	len = strlen(orig);
	st->files++;
	for (int mode = 0; mode < 3; mode++) {
		struct gf_topo_options o = GF_TOPO_OPTS_INIT;
		struct gf_topo *t = NULL;
		int ret;

		o.root = root;
		if (mode == 0)
			write_bytes(path, "", 0);
		else if (mode == 1)
			write_bytes(path, orig, len / 2);
		else
			write_bytes(path, garbage, sizeof(garbage) - 1);
		ret = gf_topo_discover(&o, &t);
		st->runs++;
		if (ret) {
			st->errors++;
			assert_null(t);
			if (!strstr(gf_last_error(), rel))
				fail_msg("%s (mode %d): error does not name the file: %s", rel, mode,
					 gf_last_error());
		} else {
			assert_non_null(t);
			if (mentions(t, rel))
				st->warned++;
			/* Garbage in a parsed file is never taken silently. */
			if (mode == 2 && is_parsed(rel) && !mentions(t, rel))
				fail_msg("%s: garbage was accepted without a warning", rel);
			gf_topo_free(t);
		}
	}
	write_bytes(path, orig, len);
	free(orig);
}

static void walk(const char *root, const char *rel, struct stats *st)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d))) {
		char child[PATH_MAX], full[PATH_MAX];
		struct stat sb;

		if (de->d_name[0] == '.')
			continue;
		snprintf(child, sizeof(child), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(full, sizeof(full), "%s/%s", root, child);
		if (lstat(full, &sb) || S_ISLNK(sb.st_mode))
			continue;
		if (S_ISDIR(sb.st_mode))
			walk(root, child, st);
		else if (S_ISREG(sb.st_mode))
			corrupt_one(root, child, st);
	}
	closedir(d);
}

static void run_machine(const char *machine)
{
	char *copy = tap_copy(t_fixture_root(machine));
	struct stats st = { 0 };

	walk(copy, "", &st);
	print_message("%s: %d files read by discovery, %d runs, %d failed with a named error, %d warned\n",
		      machine, st.files, st.runs, st.errors, st.warned);
	assert_true(st.files > 50);
	assert_true(st.warned > 0);
	t_rmtree(copy);
	free(copy);
}

static void ci_vm(void **state) { (void)state; run_machine("ci-vm"); }
static void h200x4_vm(void **state) { (void)state; run_machine("h200x4-vm"); }
static void dual_socket(void **state) { (void)state; run_machine("dual-8gpu-pcie-switch"); }
static void l40s(void **state) { (void)state; run_machine("l40s-4gpu-224"); }
static void hgx(void **state) { (void)state; run_machine("hgx-h100-8gpu"); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ci_vm),
		cmocka_unit_test(h200x4_vm),
		cmocka_unit_test(dual_socket),
		cmocka_unit_test(l40s),
		cmocka_unit_test(hgx),
	};

	return cmocka_run_group_tests_name("robustness", tests, NULL, NULL);
}
