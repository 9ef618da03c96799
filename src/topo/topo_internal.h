/* Private to src/topo: the discovery context and the steps that fill the
 * model, in the order gf_topo_discover() runs them. */
#ifndef GF_TOPO_INTERNAL_H
#define GF_TOPO_INTERNAL_H

#include <sys/stat.h>

#include <gpufeed/topo.h>
#include "core/error.h"
#include "core/fs.h"
#include "vendor/nvml/nvml_facts.h"

/* One GPUFEED_PCI_LOCALITY rule: devices on domain:bus_lo..bus_hi (and
 * dev.fn when given), and everything below them, are on `node`. */
struct gf_locality_rule {
	unsigned domain, bus_lo, bus_hi;
	int dev, fn;			/* -1: any */
	int node;
};

#define GF_MAX_LOCALITY_RULES 64

/* The rules of one spec, in its order (the first that matches wins). */
struct gf_locality_rules {
	struct gf_locality_rule rule[GF_MAX_LOCALITY_RULES];
	int n;
};

struct gf_ctx {
	struct gf_fs fs;
	struct gf_topo *t;
	struct gf_nvml_facts *facts;	/* NULL: sysfs only */
	struct gf_locality_rules locality;
	char *self_status;		/* /proc/self/status, shared by cpus and numa */
	bool nvml_pci_order;		/* NVML's indices not believable: PCI order */
	/* Which warnings t->warnings holds (gf_warn says each once): an open
	 * addressing table of indices + 1 into it, 0 = empty slot. */
	int *warn_slot;
	size_t warn_cap;		/* a power of two, or 0 */
};

/* Parse "SPEC=NODE;..." (SPEC: 0000:3b:00.0, 0000:3b or 0000:80-ff);
 * -EINVAL naming `origin` (the variable or option) when malformed. */
int gf_locality_parse(struct gf_locality_rules *rules, const char *text, const char *origin);

/* Steps (topo.c runs them in this order). */
int gf_discover_machine(struct gf_ctx *c);
int gf_discover_cpus(struct gf_ctx *c);
int gf_discover_numa(struct gf_ctx *c);
int gf_discover_pci(struct gf_ctx *c);
int gf_discover_gpus(struct gf_ctx *c);
int gf_discover_nics(struct gf_ctx *c);
int gf_discover_blocks(struct gf_ctx *c);
int gf_build_matrix(struct gf_ctx *c);
int gf_build_paths(struct gf_ctx *c);
int gf_build_findings(struct gf_ctx *c);

/* The root's nvml.json, read through fs like any machine file.
 * -ENOENT when absent. */
int gf_nvml_facts_read(const struct gf_fs *fs, struct gf_nvml_facts **facts);

/* Discovery with an already prepared fs (used by gf_record with its tap). */
int gf_topo_discover_ctx(struct gf_ctx *c, struct gf_topo **out);

/* A warning about malformed or unreadable input, kept in t->warnings. */
void gf_warn(struct gf_ctx *c, const char *fmt, ...) GF_PRINTF(2, 3);
/* Frees what gf_warn keeps to say each warning once (the warnings stay in
 * t->warnings); gf_topo_discover_ctx calls it. */
void gf_warn_fini(struct gf_ctx *c);
/* The last error message as a warning (after a failed fs read). */
void gf_warn_last(struct gf_ctx *c);
/* Does path exist?  1 yes (*st filled; st may be NULL), 0 absent (ENOENT,
 * ENOTDIR), else a warning naming the file and -errno: a file that cannot
 * be looked at (EACCES, ELOOP, EIO) is not taken as absent. */
int gf_probe(struct gf_ctx *c, const char *path, struct stat *st);
int gf_finding(struct gf_topo *t, enum gf_severity sev, const char *id, const char *subject,
	       const char *fmt, ...) GF_PRINTF(5, 6);

/* Optional integer/string files: 0 on success; -ENOENT (and friends that
 * mean "the kernel has no value here") silently; malformed → warning. */
int gf_read_opt(struct gf_ctx *c, const char *path, char **data, size_t *len);
int gf_read_opt_ll(struct gf_ctx *c, const char *path, long long *v);
int gf_read_opt_str(struct gf_ctx *c, const char *path, char *buf, size_t size);
/* The longest CPU list the kernel writes for GF_CPUSET_MAX CPUs is
 * "0,2,4,...,8190" (19,924 bytes): longer list files are refused unparsed. */
#define GF_CPULIST_MAX_TEXT (32 << 10)
/* A CPU list file; malformed, too long, or (once the CPUs are known)
 * naming CPUs that are not possible here → warning, empty set, -EBADMSG. */
int gf_read_opt_cpulist(struct gf_ctx *c, const char *path, struct gf_cpuset *s);
/* The same for a list of NUMA node ids (node/online). */
int gf_read_opt_nodelist(struct gf_ctx *c, const char *path, struct gf_cpuset *s);
/* A set for a message: its list form, cut to fit with "..." */
void gf_cpuset_format_short(const struct gf_cpuset *s, char *buf, size_t size);

/* The value of a meminfo MemTotal line ("527988124 kB") in bytes; false
 * when it is not that, or does not fit a signed 64-bit byte count. */
bool gf_meminfo_bytes(const char *value, unsigned long long *bytes);

/* Grow *arr (of *n elements of size sz) by one zeroed element. */
void *gf_push(void *arr_ptr, int *n, size_t sz);

/* PCI lookups. */
int gf_pci_find(const struct gf_topo *t, const char *bdf);
/* The PCI device nearest to a canonical sysfs path (the device itself or
 * its closest ancestor), -1 when the path is not under a PCI device. */
int gf_pci_for_path(const struct gf_topo *t, const char *path);
/* Lowest common PCI ancestor of two devices, -1 when none. */
int gf_pci_common_ancestor(const struct gf_topo *t, int a, int b);
/* Does the bridge face downstream (root or switch downstream port)? */
bool gf_pci_downstream_port(const struct gf_topo *t, int i);

/* Locality of a PCI device: NUMA node and local CPUs with their sources. */
struct gf_locality {
	int node;
	enum gf_source node_source;
	struct gf_cpuset cpus;
	enum gf_source cpus_source;
};
void gf_locality_of(struct gf_ctx *c, int pci, const struct gf_nvml_gpu *nvml,
		    struct gf_locality *out);
/* Fills gf_pci_dev.local_node of every device (after numa and pci). */
void gf_locality_all(struct gf_ctx *c);
/* Index into t->numa.node of node id, -1 if absent. */
int gf_numa_index(const struct gf_topo *t, int node);
/* The package (socket) of a NUMA node's CPUs, -1 unknown. */
int gf_node_package(const struct gf_topo *t, int node);

/* The matrix entry of GPU position `gpu` in t->gpus, -1 when none. */
int gf_matrix_gpu(const struct gf_topo *t, int gpu);
/* The arguments of a public call about one GPU (func names it): 0, or
 * -EINVAL for t NULL or gpu not a position in t->gpus. */
int gf_topo_gpu_args(const struct gf_topo *t, int gpu, const char *func);

/* Link maths (bandwidth.c). */
struct gf_narrowest {
	double gb_per_s;		/* narrowest known link, 0: none known */
	int pci;			/* device whose upstream link it is, -1 */
	double gts;
	int width;
	int unknown_pci;		/* a device on the way whose upstream link
					 * reports no speed or width, -1: none.  Then
					 * the narrowest link is unknown. */
};
#define GF_NARROWEST_INIT { .pci = -1, .unknown_pci = -1 }
/* Narrowest PCIe link from device x up to (not including) stop, -1 = all
 * the way to the host bridge.  Starts from GF_NARROWEST_INIT. */
void gf_pcie_narrowest(const struct gf_topo *t, int x, int stop, struct gf_narrowest *nw);
double gf_pcie_lane_gb_per_s(double gts);
int gf_pcie_gen(double gts);
double gf_nvlink_link_gb_per_s(int nvml_version);
const char *gf_nvlink_version_name(int nvml_version);

#endif
