/* The machine model: CPUs, NUMA nodes, the PCIe tree, GPUs, NICs, block
 * devices, the link matrix and the bandwidth of every path that feeds a GPU.
 *
 * gf_topo_discover() reads /sys and /proc (through a root prefix, so a
 * recording replays exactly) and, when present, NVML facts: live from
 * libnvidia-ml.so.1 or from DIR/nvml.json in a recording.
 *
 * The structures are read-only views owned by struct gf_topo; free them all
 * with gf_topo_free().  Unknown numbers are -1 (ids, counts) or 0 (sizes,
 * rates) as documented per field. */
#ifndef GPUFEED_TOPO_H
#define GPUFEED_TOPO_H

#include <stdbool.h>
#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/cpuset.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the JSON written by gf_topo_write_json() ("schema" key). */
#define GF_TOPO_SCHEMA "gpufeed-topo/2"
/* The one-thing documents of topo --matrix, --gpu and --nearest-nic. */
#define GF_TOPO_MATRIX_SCHEMA "gpufeed-topo-matrix/1"
#define GF_TOPO_GPU_SCHEMA "gpufeed-topo-gpu/1"
#define GF_TOPO_NEAREST_NIC_SCHEMA "gpufeed-topo-nearest-nic/1"

enum gf_nvml_mode {
	GF_NVML_AUTO = 0,	/* use NVML (or DIR/nvml.json) when present */
	GF_NVML_OFF,		/* sysfs/procfs only */
	GF_NVML_REQUIRE,	/* fail with -ENOSYS when NVML facts are absent */
};

/* Versioned (include/gpufeed/common.h): start from GF_TOPO_OPTS_INIT.
 *     struct gf_topo_options o = GF_TOPO_OPTS_INIT;
 *     o.root = "/tmp/myhost"; */
struct gf_topo_options {
	size_t struct_size;		/* sizeof as the caller was compiled */
	const char *root;		/* NULL or "" = this machine, else a recording */
	enum gf_nvml_mode nvml;
	/* GPU/device locality override for machines (VMs) that hide it,
	 * like hwloc's HWLOC_PCI_LOCALITY: "BDF-or-prefix=NODE;...", e.g.
	 * "0000:00:06.0=1;0000:80=1".  NULL = $GPUFEED_PCI_LOCALITY. */
	const char *pci_locality;
	/* GF_TOPO_OMIT_* or'ed: parts of the model the caller does not need,
	 * left unread (0: the whole model). */
	unsigned omit;
	/* New fields go here, at the end. */
};

#define GF_TOPO_OPTS_INIT \
	{ .struct_size = sizeof(struct gf_topo_options), .root = NULL, .nvml = GF_NVML_AUTO, .pci_locality = NULL, \
	  .omit = 0 }

/* Every sysfs file costs a few microseconds of system calls and a large
 * host has a thousand of them; a caller that needs only part of the model
 * (gpufeed plan: GPUs, NICs, the PCIe tree and NUMA nodes) can leave the
 * rest unread.  An omitted part keeps its "unknown" values, gf_topo.omitted
 * says which were left out (the JSON's "omitted"), and a model missing any
 * part has no findings (they are judgements on the whole machine).  The
 * gf_emit_kubelet/slurm/labels and gf_emit_allocatable calls need the
 * cores and refuse a model without CPU detail (-EINVAL). */
enum gf_topo_omit {
	/* SMT siblings (every cpu.core -1, smt_rank 0, ncores and
	 * threads_per_core 0), L3 groups (cpu.l3 -1, nl3 0) and /proc/cpuinfo
	 * (CPU model "", hypervisor false).  Packages stay. */
	GF_TOPO_OMIT_CPU_DETAIL = 1u << 0,
	/* Block devices (t->blocks, and the NVMe rows of the matrix). */
	GF_TOPO_OMIT_STORAGE = 1u << 1,
};

/* Where a value came from; shown beside it. */
enum gf_source {
	GF_SRC_UNKNOWN = 0,
	GF_SRC_SYSFS,		/* the device's own sysfs attribute */
	GF_SRC_NVML,		/* NVML (live or recorded) */
	GF_SRC_SINGLE_NODE,	/* the machine has one NUMA node: node 0 is a fact */
	GF_SRC_OVERRIDE,	/* GPUFEED_PCI_LOCALITY / options.pci_locality */
	GF_SRC_PROCFS,		/* /proc/driver/nvidia */
	GF_SRC_PCI_ORDER,	/* rank in PCI bus order */
	GF_SRC_NODE_CPUS,	/* the CPUs of the device's NUMA node */
};
/* "sysfs", "nvml", ... as the JSON writes them; "?" out of range. */
GF_API const char *gf_source_name(enum gf_source s);

struct gf_cpu {
	int id;
	int package;		/* physical_package_id, -1 unknown */
	int die;
	int core;		/* core_id (unique within a package), -1 unknown */
	int node;		/* NUMA node, -1 unknown */
	int l3;			/* index into gf_cpus.l3, -1 unknown */
	int smt_rank;		/* 0 for the first thread of its core */
	bool allowed;
};

struct gf_cpus {
	struct gf_cpuset online;
	struct gf_cpuset possible;
	struct gf_cpuset affinity;	/* Cpus_allowed_list of this process */
	bool affinity_known;
	struct gf_cpuset cgroup;	/* cpuset.cpus(.effective) of our cgroup */
	bool cgroup_known;
	int cgroup_version;		/* 1, 2 or 0 unknown */
	char cgroup_path[256];
	struct gf_cpuset allowed;	/* online & affinity & cgroup */
	struct gf_cpu *cpu;		/* one per online CPU, ascending id */
	int ncpu;
	struct gf_cpuset *l3;		/* L3 groups, ordered by first CPU */
	int nl3;
	int npackages;
	int ncores;			/* distinct (package, die, core) */
	int threads_per_core;		/* largest SMT group seen */
	char model[128];		/* /proc/cpuinfo "model name" */
	/* What NCCL's topology names a CPU by (config nccl-topo): */
	char arch[16];			/* "x86_64", "arm64", "" unknown */
	char vendor[32];		/* cpuinfo vendor_id: "GenuineIntel", "" */
	int family, model_id;		/* cpuinfo cpu family and model, -1 unknown */
};

struct gf_numa_node {
	int id;
	struct gf_cpuset cpus;
	unsigned long long memory_bytes;	/* MemTotal, 0 unknown */
	int *distance;			/* gf_numa.nnodes entries, -1 unknown */
};

struct gf_numa {
	struct gf_numa_node *node;	/* online nodes by id */
	int nnodes;
	bool kernel_numa;		/* false: no /sys/devices/system/node */
	struct gf_cpuset mems_allowed;	/* nodes this process may allocate on */
	bool mems_allowed_known;
};

enum gf_pci_kind {
	GF_PCI_OTHER = 0,
	GF_PCI_BRIDGE,
	GF_PCI_GPU,
	GF_PCI_NVSWITCH,
	GF_PCI_NIC,
	GF_PCI_NVME,
	GF_PCI_STORAGE,
};
/* "other", "bridge", "gpu", "nvswitch", "nic", "nvme", "storage"; "?" out
 * of range. */
GF_API const char *gf_pci_kind_name(enum gf_pci_kind k);

/* PCIe link of a device (its upstream side for endpoints and switch upstream
 * ports, the downstream side for root and downstream ports).  GT/s per lane;
 * 0 = unknown. */
struct gf_pcie_link {
	double cur_gts, max_gts;
	int cur_width, max_width;
};

struct gf_pci_dev {
	char bdf[16];			/* "0000:3b:00.0" */
	char path[256];			/* canonical sysfs directory */
	int parent;			/* upstream PCI device, -1 on the host bridge */
	int host_bridge;		/* index into gf_topo.host_bridges */
	int depth;			/* 0 = directly on the host bridge */
	unsigned vendor, device, class_code;
	int subsystem_vendor, subsystem_device;	/* -1 unknown (NCCL tells PEX
						 * switches by them) */
	enum gf_pci_kind kind;
	int numa_node;			/* sysfs numa_node as is, -1 unknown */
	int local_node;			/* the node as the model resolves it for any
					 * device (the locality override, else sysfs
					 * numa_node of it or its nearest bridge, else
					 * the only node), -1 unknown; a GPU's own
					 * numa_node may also come from NVML */
	enum gf_source local_node_source;
	struct gf_cpuset local_cpus;
	bool local_cpus_known;
	struct gf_pcie_link link;
	int pcie_type;			/* Device/Port Type from config space (4 root
					 * port, 5 switch upstream, 6 switch downstream),
					 * -1 unknown (read for bridges only) */
	char driver[32];
};

struct gf_host_bridge {
	char name[24];			/* "pci0000:3a" */
	int numa_node;			/* from its devices, -1 unknown */
};

struct gf_mig_instance {
	char uuid[96];
	int gpu_instance, compute_instance;
	unsigned long long memory_bytes;
};

struct gf_gpu {
	int index;			/* NVML index = PCI bus order */
	enum gf_source index_source;
	int pci;			/* index into gf_topo.pci */
	char bdf[16];
	char name[96];			/* "" unknown */
	char uuid[96];			/* "GPU-..." or "" */
	unsigned long long memory_bytes;	/* 0 unknown */
	int cuda_ordinal;		/* with CUDA_DEVICE_ORDER=PCI_BUS_ID, all visible */
	int minor;			/* /dev/nvidiaN, -1 unknown */
	enum gf_source minor_source;
	int numa_node;			/* -1 only when truly unknown */
	enum gf_source numa_source;
	struct gf_cpuset cpus;		/* local CPUs */
	enum gf_source cpus_source;
	int gpu_numa_id;		/* GPU memory exposed as a NUMA node, -1 N/A */
	int nvlinks_active;		/* -1 unknown (no NVML facts) */
	int nvlink_version;		/* NVML enum (6 = NVLink 4.0), 0 unknown */
	int nvswitch_links;		/* active links ending on an NVSwitch */
	int mig_current, mig_pending;	/* 1 enabled, 0 disabled, -1 unknown */
	struct gf_mig_instance *mig;
	int nmig;
};

struct gf_nic {
	char label[16];			/* the matrix name: "NIC0" for RDMA devices,
					 * numbered as nvidia-smi does; else the first
					 * netdev ("eth0") or the PCI address */
	char name[64];			/* RDMA device (mlx5_0) or first netdev */
	char netdevs[512];		/* "ib0" or "ens1f0np0,ens1f0v0"; "...,+" when cut */
	char rdma[32];			/* "" when none */
	char link_layer[16];		/* "InfiniBand", "Ethernet" or "" */
	long long speed_mbps;		/* line rate, -1 unknown (down, virtio) */
	char state[24];			/* "up", "down", "ACTIVE", ... */
	bool virtual_function;		/* SR-IOV VF */
	int pci;
	int numa_node;
	enum gf_source numa_source;
	struct gf_cpuset cpus;
};

/* Interfaces with no PCI device (lo, bridges, bonds, veth): listed apart. */
struct gf_netif {
	char name[32];
	char state[16];
};

struct gf_block {
	char name[32];			/* "nvme0n1", "vda" */
	char label[16];			/* "NVME0" for NVMe in the matrix, else "" */
	char model[64];
	unsigned long long size_bytes;
	bool nvme, rotational, removable;
	bool virtual_dev;		/* loop, zram, dm, md: no device behind */
	int pci;			/* -1 when not PCI-backed */
	char scheduler[32];		/* the selected one */
	int read_ahead_kb, nr_requests, logical_block_size, max_sectors_kb; /* -1 unknown */
	int numa_node;
	enum gf_source numa_source;
};

/* Connection classes in `nvidia-smi topo -m` vocabulary, best first. */
enum gf_link_type {
	GF_LINK_X = 0,	/* self */
	GF_LINK_NV,	/* NV#: a bonded set of # NVLinks */
	GF_LINK_PIX,	/* at most a single PCIe bridge */
	GF_LINK_PXB,	/* multiple PCIe bridges, no host bridge */
	GF_LINK_PHB,	/* a PCIe host bridge */
	GF_LINK_NODE,	/* host bridges within a NUMA node */
	GF_LINK_SYS,	/* the SMP interconnect between NUMA nodes */
	GF_LINK_UNKNOWN,
};

struct gf_link {
	enum gf_link_type type;
	int nvlinks;			/* for GF_LINK_NV */
	enum gf_link_type pcie;		/* the PCIe class underneath */
};

enum gf_dev_kind { GF_DEV_GPU = 0, GF_DEV_NIC, GF_DEV_NVME };

struct gf_matrix_dev {
	char name[16];			/* "GPU0", "NIC1", "NVME0" */
	enum gf_dev_kind kind;
	int ref;			/* index into gpus, nics or blocks */
	int pci;
};

struct gf_matrix {
	int n;
	struct gf_matrix_dev *dev;	/* GPUs, RDMA NICs, other NICs, NVMe */
	struct gf_link *link;		/* n*n, row-major */
	/* NVML's own PCIe answer per GPU pair when it was asked (live or
	 * recorded); GF_LINK_UNKNOWN otherwise.  n*n like link. */
	enum gf_link_type *nvml_pcie;
	/* dev[0..nsmi-1] are the devices of `nvidia-smi topo -m` (GPUs, then
	 * RDMA NICs in its order); the rest are other NICs and NVMe drives. */
	int nsmi;
};

/* The link between matrix devices i and j (owned by the model), NULL when i
 * or j is not a device of m (and, with a message, when m is NULL). */
GF_API const struct gf_link *gf_matrix_at(const struct gf_matrix *m, int i, int j);
/* "X", "NV18", "PIX", ...; returns the length like snprintf (buf NULL or
 * size 0 writes nothing); -EINVAL for l NULL. */
GF_API int gf_link_format(const struct gf_link *l, char *buf, size_t size);
/* The class alone: "X", "NV", "PIX", ..., "unknown"; "?" out of range. */
GF_API const char *gf_link_type_name(enum gf_link_type t);

enum gf_path_kind { GF_PATH_HOST_GPU = 0, GF_PATH_GPU_GPU, GF_PATH_GPU_NIC, GF_PATH_GPU_NVME };
/* What the narrowest link of a path is.  UNKNOWN: a link on the path reports
 * no rate (a virtio NIC, a device without PCIe link attributes); DOWN: a
 * link on it is down.  Both leave the path without a figure (gb_per_s 0). */
enum gf_limit_kind { GF_LIMIT_UNKNOWN = 0, GF_LIMIT_PCIE, GF_LIMIT_NVLINK, GF_LIMIT_NIC, GF_LIMIT_DOWN };

struct gf_path {
	enum gf_path_kind kind;
	int from, to;			/* matrix indices; from = -1: host memory */
	int host_node;			/* GF_PATH_HOST_GPU: the memory's node */
	struct gf_link link;
	double gb_per_s;		/* theoretical one-way GB/s; 0 when the
					 * narrowest link is unknown or down (limit) */
	enum gf_limit_kind limit;	/* what the narrowest link is */
	int limit_pci;			/* device at the narrowest PCIe link, -1 */
	char limit_text[96];		/* "PCIe Gen4 x16 at 0000:17:00.0" */
	bool crosses_cpu_link;		/* SYS: the socket link is not modelled */
};

enum gf_severity { GF_SEV_INFO = 0, GF_SEV_WARN, GF_SEV_ERROR };
/* "info", "warning", "error"; "?" out of range. */
GF_API const char *gf_severity_name(enum gf_severity s);

struct gf_finding {
	enum gf_severity severity;
	char id[40];			/* stable, e.g. "topo.gpu-numa-unknown" */
	char subject[40];		/* "GPU3", "0000:3b:00.0" */
	char message[320];
};

struct gf_machine {
	char source[4096];		/* "this machine" or the recording's directory */
	char hostname[65];		/* HOST_NAME_MAX + 1 */
	char kernel[96];
	char vendor[64], product[96];	/* DMI */
	bool hypervisor;		/* /proc/cpuinfo "hypervisor" flag */
	unsigned long long memory_bytes;	/* MemTotal, 0 unknown */
	char driver_version[32];	/* NVIDIA driver, "" none */
	int cuda_driver_version;	/* 13000 = 13.0, 0 unknown */
	bool nvml;			/* NVML facts were used */
	char nvml_note[200];		/* why not, when !nvml */
};

struct gf_topo {
	struct gf_machine machine;
	struct gf_cpus cpus;
	struct gf_numa numa;
	struct gf_pci_dev *pci;
	int npci;
	struct gf_host_bridge *host_bridges;
	int nhost_bridges;
	struct gf_gpu *gpus;		/* by index */
	int ngpus;
	bool nvswitch;			/* GPUs are linked through NVSwitch */
	int nvswitches;			/* NVSwitch chips seen (on PCI or as distinct
					 * NVLink far ends); 0 when hidden (VMs) */
	struct gf_nic *nics;		/* PCI-backed, PCI order */
	int nnics;
	struct gf_netif *netifs;	/* virtual interfaces */
	int nnetifs;
	struct gf_block *blocks;	/* whole disks, PCI-backed first */
	int nblocks;
	struct gf_matrix matrix;
	struct gf_path *paths;
	int npaths;
	struct gf_finding *findings;
	int nfindings;
	char **warnings;		/* malformed input, named by file */
	int nwarnings;
	unsigned omitted;		/* GF_TOPO_OMIT_*: parts left unread */
};

/* The machine's options as the library reads them: in's fields over the
 * defaults (a caller built against an older header keeps the defaults of
 * the fields it lacks; in NULL: this machine, the defaults).  0, or -EINVAL
 * for options not made with GF_TOPO_OPTS_INIT. */
GF_API int gf_topo_options_copy(const struct gf_topo_options *in, struct gf_topo_options *out);

/* The model of the machine opts names (NULL: this machine, NVML when
 * present), freed with gf_topo_free.  0 with *out set, or -errno: -EINVAL
 * for options not started from GF_TOPO_OPTS_INIT (struct_size 0), an nvml
 * mode or omit flag out of range, a malformed locality override; -ENOSYS
 * for GF_NVML_REQUIRE without NVML facts; what reading the machine met. */
GF_API int gf_topo_discover(const struct gf_topo_options *opts, struct gf_topo **out);
/* Validate a locality override (the format of options.pci_locality):
 * 0, or -EINVAL with a message. */
GF_API int gf_pci_locality_check(const char *spec);
/* Frees the model and every view into it; NULL does nothing. */
GF_API void gf_topo_free(struct gf_topo *t);
/* The number of findings of severity `min` or above (`--strict` fails on
 * GF_SEV_WARN); -EINVAL for t NULL or min out of range. */
GF_API int gf_topo_finding_count(const struct gf_topo *t, enum gf_severity min);

/* A GPU by NVML index ("3"), UUID ("GPU-8f1c..." or a unique prefix) or PCI
 * address ("0000:3b:00.0", "3b:00.0").  Returns its position in t->gpus or
 * -ENOENT / -EINVAL (ambiguous prefix). */
GF_API int gf_topo_find_gpu(const struct gf_topo *t, const char *spec);
/* The NUMA node of the PCI device at `pci` ("0000:3b:00.0", "3b:00.0") as
 * the model has it: a GPU's numa_node, any other device's local_node (what
 * CUDA opens may be a device the model does not call a GPU).  The node, -1
 * when the model does not know it, -ENOENT when the model has no such
 * device, -EINVAL for NULL or a malformed address. */
GF_API int gf_topo_pci_node(const struct gf_topo *t, const char *pci);

#define GF_PRINT_COLOR 0x1u
/* `gpufeed topo`: the matrix with CPU and NUMA affinity, legends, devices
 * and the path table.  Every writer below returns 0, -EIO when writing
 * failed, or -EINVAL for t or f NULL (or gpu not a position in t->gpus). */
GF_API int gf_topo_print(const struct gf_topo *t, FILE *f, unsigned flags);
/* The documented JSON (docs/json-topo.md). */
GF_API int gf_topo_write_json(const struct gf_topo *t, FILE *f);

/* One thing at a time (`nvidia-smi topo -i/-n`, `dcgmi topo --gpuid`).
 * `gpu` is a position in t->gpus, as gf_topo_find_gpu() returns it. */
/* The matrix alone, as `nvidia-smi topo -m` prints it (tabs). */
GF_API int gf_topo_print_matrix(const struct gf_topo *t, FILE *f);
GF_API int gf_topo_write_matrix_json(const struct gf_topo *t, FILE *f);
/* One GPU: its identity, its row of the matrix and every path that feeds it
 * (host memory, peers, NICs, drives). */
GF_API int gf_topo_print_gpu(const struct gf_topo *t, int gpu, FILE *f);
GF_API int gf_topo_write_gpu_json(const struct gf_topo *t, int gpu, FILE *f);
/* The RDMA NIC nearest to a GPU (the closest connection class, then the
 * fastest path, then nvidia-smi's order; ports that are down are skipped):
 * its position in t->nics, or -ENODEV when there is none. */
GF_API int gf_topo_nearest_nic(const struct gf_topo *t, int gpu);
/* Its RDMA name on one line ("mlx5_0", for NCCL_IB_HCA), or its JSON. */
GF_API int gf_topo_print_nearest_nic(const struct gf_topo *t, int gpu, FILE *f);
GF_API int gf_topo_write_nearest_nic_json(const struct gf_topo *t, int gpu, FILE *f);

/* The machine as a picture, drawn as lstopo draws it (packages, NUMA nodes,
 * each host bridge's PCIe tree, GPUs, NICs, NVMe, the NVLink fabric), every
 * link coloured and labelled by its narrowest rate and by a finding that
 * limits it, every finding pinned to the device it names (docs/picture.md).
 * An SVG document laid out by gpufeed itself, the same bytes for the same
 * model (no XML declaration: a page can inline it as it is); or the same
 * graph in graphviz's DOT language, for `dot -Tsvg`.  Strings from the
 * machine are escaped.  0, -EIO when writing failed, -ENOMEM, or -EINVAL
 * for t or f NULL. */
GF_API int gf_topo_write_svg(const struct gf_topo *t, FILE *f);
GF_API int gf_topo_write_dot(const struct gf_topo *t, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
