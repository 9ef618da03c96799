/* What hwloc's Linux backend reads (hwloc 2.x, hwloc/topology-linux.c:
 * "look_sysfscpu", "look_sysfsnode", the linuxio PCI and OS-device
 * discovery), read once through the recording's fs so the recorder copies
 * it.  Then `lstopo -i DIR` and `HWLOC_FSROOT=DIR lstopo` open a recording:
 * without the per-CPU topology masks hwloc stops with "failed to find sysfs
 * cpu topology directory".
 *
 * Left out on purpose: DMI serial numbers, UUID and asset tags (hwloc shows
 * them as info only; a recording is sent with bug reports), the memory
 * modules' raw DMI tables (serials again) and the cgroup mount (hwloc reads
 * /proc/mounts of the host it runs on, not of the recording). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fs.h"
#include "record/record_hwloc.h"

/* Read for its copy only: absent is normal, and a file the recording user
 * may not read is left out by the recorder. */
static void touch(const struct gf_fs *fs, const char *path)
{
	char *data = NULL;
	size_t len;

	if (gf_fs_read(fs, path, &data, &len) == 0)
		free(data);
}

static void touch_in(const struct gf_fs *fs, const char *dir, const char *const *names)
{
	char path[PATH_MAX];

	for (; *names; names++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *names);
		touch(fs, path);
	}
}

/* The entries of `dir` named PREFIX<number>, each given to fn. */
static void each_numbered(const struct gf_fs *fs, const char *dir, const char *prefix,
			  void (*fn)(const struct gf_fs *fs, const char *path))
{
	char **names = NULL, path[PATH_MAX];
	size_t plen = strlen(prefix);
	int n = 0;

	if (gf_fs_list(fs, dir, &names, &n))
		return;
	for (int i = 0; i < n; i++) {
		const char *num = names[i] + plen;

		if (strncmp(names[i], prefix, plen) || !*num || num[strspn(num, "0123456789")])
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fn(fs, path);
	}
	gf_strv_free(names, n);
}

/* Every entry of `dir`, each given to fn. */
static void each_entry(const struct gf_fs *fs, const char *dir,
		       void (*fn)(const struct gf_fs *fs, const char *path))
{
	char **names = NULL, path[PATH_MAX];
	int n = 0;

	if (gf_fs_list(fs, dir, &names, &n))
		return;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fn(fs, path);
	}
	gf_strv_free(names, n);
}

static void cache_index(const struct gf_fs *fs, const char *path)
{
	static const char *const files[] = { "level", "type", "id", "size", "coherency_line_size",
					     "number_of_sets", "physical_line_partition",
					     "ways_of_associativity", "shared_cpu_map", "shared_cpu_list", NULL };

	touch_in(fs, path, files);
}

static void cpu(const struct gf_fs *fs, const char *path)
{
	/* New names (Linux 5.3+) and the old ones hwloc falls back to. */
	static const char *const files[] = {
		"online", "cpu_capacity", "cpufreq/cpuinfo_max_freq", "cpufreq/base_frequency",
		"topology/core_cpus", "topology/core_cpus_list", "topology/core_id",
		"topology/thread_siblings", "topology/thread_siblings_list",
		"topology/package_cpus", "topology/package_cpus_list", "topology/physical_package_id",
		"topology/core_siblings", "topology/core_siblings_list",
		"topology/die_cpus", "topology/die_cpus_list", "topology/die_id",
		"topology/cluster_cpus", "topology/cluster_cpus_list", "topology/cluster_id",
		"topology/book_siblings", "topology/book_id", "topology/drawer_siblings", "topology/drawer_id",
		NULL };
	char dir[PATH_MAX];

	touch_in(fs, path, files);
	snprintf(dir, sizeof(dir), "%s/cache", path);
	each_numbered(fs, dir, "index", cache_index);
}

static void hugepage_size(const struct gf_fs *fs, const char *path)
{
	static const char *const files[] = { "nr_hugepages", "free_hugepages", NULL };

	touch_in(fs, path, files);
}

/* Heterogeneous memory: the initiators and performance of a node. */
static void node_access(const struct gf_fs *fs, const char *node, const char *which)
{
	static const char *const files[] = { "read_bandwidth", "write_bandwidth", "read_latency",
					     "write_latency", NULL };
	char dir[PATH_MAX], **names = NULL;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/%s/initiators", node, which);
	if (gf_fs_list(fs, dir, &names, &n))
		return;
	gf_strv_free(names, n);
	touch_in(fs, dir, files);
}

static void node(const struct gf_fs *fs, const char *path)
{
	static const char *const files[] = { "cpumap", "cpulist", "distance", "meminfo", NULL };
	char dir[PATH_MAX];

	touch_in(fs, path, files);
	snprintf(dir, sizeof(dir), "%s/hugepages", path);
	each_entry(fs, dir, hugepage_size);
	node_access(fs, path, "access0");
	node_access(fs, path, "access1");
}

static void pci_dev(const struct gf_fs *fs, const char *path)
{
	static const char *const files[] = {
		"config", "class", "vendor", "device", "subsystem_vendor", "subsystem_device", "revision",
		"current_link_speed", "current_link_width", "max_link_speed", "max_link_width",
		"local_cpus", "local_cpulist", "numa_node", NULL };
	char real[PATH_MAX];

	/* The link to the device's directory: hwloc parses its target. */
	gf_fs_resolve(fs, path, real, sizeof(real));
	touch_in(fs, path, files);
}

static void pci_slot(const struct gf_fs *fs, const char *path)
{
	static const char *const files[] = { "address", NULL };

	touch_in(fs, path, files);
}

/* /sys/class/<class>/<name>: a link whose target hwloc parses for the PCI
 * device the OS device hangs off. */
static void os_device(const struct gf_fs *fs, const char *path)
{
	static const char *const files[] = {
		"address", "dev_port", "type", "device/numa_node", "device/local_cpus", "size", "dev",
		"node_guid", "sys_image_guid", "partition", "ports/1/state", "ports/1/lid",
		"ports/1/lid_mask_count", NULL };
	char real[PATH_MAX];

	gf_fs_resolve(fs, path, real, sizeof(real));
	touch_in(fs, path, files);
}

void gf_record_hwloc(const struct gf_fs *fs)
{
	static const char *const top[] = {
		"/proc/cpuinfo", "/proc/meminfo",
		"/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
		"/sys/devices/system/cpu/present", "/sys/devices/system/cpu/kernel_max",
		"/sys/devices/system/node/online", "/sys/devices/system/node/possible",
		"/sys/devices/system/node/has_cpu", "/sys/devices/system/node/has_normal_memory",
		NULL };
	static const char *const dmi[] = {
		"product_name", "product_version", "board_vendor", "board_name", "board_version",
		"chassis_vendor", "chassis_type", "chassis_version", "bios_vendor", "bios_version",
		"bios_date", "sys_vendor", NULL };
	static const char *const os_classes[] = {
		"/sys/class/net", "/sys/class/infiniband", "/sys/class/block", "/sys/class/drm",
		"/sys/class/dma", NULL };
	char **names = NULL;
	int n = 0;

	for (const char *const *p = top; *p; p++)
		touch(fs, *p);
	each_numbered(fs, "/sys/devices/system/cpu", "cpu", cpu);
	each_numbered(fs, "/sys/devices/system/node", "node", node);
	each_entry(fs, "/sys/kernel/mm/hugepages", hugepage_size);
	if (gf_fs_list(fs, "/sys/class/dmi/id", &names, &n) == 0) {
		gf_strv_free(names, n);
		touch_in(fs, "/sys/class/dmi/id", dmi);
	}
	each_entry(fs, "/sys/bus/pci/devices", pci_dev);
	each_entry(fs, "/sys/bus/pci/slots", pci_slot);
	for (const char *const *c = os_classes; *c; c++)
		each_entry(fs, *c, os_device);
}
