/* NVML facts: what gpufeed learns from NVML, live or recorded in
 * DIR/nvml.json (schema gpufeed-nvml-facts/1, docs/recordings.md).  The
 * model only ever reads these facts, never NVML itself, so a recording and
 * the live machine take one code path. */
#ifndef GF_VENDOR_NVML_FACTS_H
#define GF_VENDOR_NVML_FACTS_H

#include <stdbool.h>
#include <gpufeed/cpuset.h>

#define GF_NVML_FACTS_SCHEMA "gpufeed-nvml-facts/1"

/* More GPUs than any one machine has: nvml.json listing more is refused. */
#define GF_NVML_MAX_GPUS 1024
/* NVML_NVLINK_MAX_LINKS: no GPU has more. */
#define GF_NVML_MAX_LINKS 18
/* NVML's NVLink version enum (1 = 1.0 ... 7 = 5.0, 8 = 6.0) with room for
 * what comes next; larger values are not versions. */
#define GF_NVLINK_VERSION_MAX 15

struct gf_nvml_link {
	int link;
	bool active;
	int version;			/* NVML enum, 0 unknown */
	char remote_type[12];		/* "gpu", "switch", "ibmnpu", "unknown" */
	char remote_pci[16];		/* normalised "0000:18:00.0", "" unknown */
};

struct gf_nvml_mig {
	char uuid[96];
	int gpu_instance, compute_instance;
	unsigned long long memory_bytes;
};

/* -1 (or "") means not supported / not asked throughout. */
struct gf_nvml_gpu {
	int index;
	char pci[16];
	char name[96];
	char uuid[96];
	int minor;
	unsigned long long memory_bytes;
	int numa_node_id;
	bool cpu_affinity_known, memory_affinity_known;
	struct gf_cpuset cpu_affinity;
	struct gf_cpuset memory_affinity;	/* NUMA nodes */
	int pcie_cur_gen, pcie_cur_width, pcie_max_gen, pcie_max_width;
	struct gf_nvml_link *links;
	int nlinks;
	bool links_unknown;		/* the list was not believable: no links */
	int mig_current, mig_pending;
	struct gf_nvml_mig *mig;
	int nmig;
	/* Audit state (recorded; the model does not need it). */
	int persistence_mode;
	char compute_mode[24];
	int ecc_current, ecc_pending;
	long long remap_correctable, remap_uncorrectable;
	int remap_pending, remap_failure;
	int retired_pages_pending;
	long long clocks_event_reasons;
	long long power_current_mw, power_default_mw, power_enforced_mw, power_min_mw, power_max_mw;
	bool fabric_known;
	char fabric_state[16];
	long long fabric_status, fabric_clique, fabric_health_mask;
	char fabric_cluster_uuid[40];
};

struct gf_nvml_pair {
	int a, b;			/* NVML indices, a < b */
	char common_ancestor[12];	/* "PIX", "PXB", "PHB", "NODE", "SYS", "INTERNAL" */
	char p2p_read[32], p2p_nvlink[32];
};

struct gf_nvml_facts {
	char nvml_version[32];
	char driver_version[32];
	int cuda_driver_version;	/* 13000 = 13.0, 0 unknown */
	struct gf_nvml_gpu *gpus;
	int ngpus;
	struct gf_nvml_pair *pairs;
	int npairs;
	/* Values of nvml.json that cannot be true, each taken as unknown:
	 * "<file>: <key>: <value> ...".  Discovery repeats them as warnings. */
	char **warnings;
	int nwarnings;
};

enum gf_nvml_detail {
	GF_NVML_TOPOLOGY = 0,	/* what the model needs: fast */
	GF_NVML_FULL,		/* plus the audit state, for recordings */
};

/* -ENOSYS: no library (why says so); -ENODEV: NVML would not start (driver
 * not loaded, no permission); why holds NVML's words. */
int gf_nvml_collect(enum gf_nvml_detail detail, struct gf_nvml_facts **out,
		    char *why, size_t whysize);
/* -ENOENT when absent; -EBADMSG with "<file>: <key>: ..." when malformed. */
int gf_nvml_facts_load(const char *path, struct gf_nvml_facts **out);
/* The same from bytes already read; `name` is the file for messages. */
int gf_nvml_facts_parse(const char *data, size_t len, const char *name, struct gf_nvml_facts **out);
int gf_nvml_facts_save(const struct gf_nvml_facts *f, const char *path);
void gf_nvml_facts_free(struct gf_nvml_facts *f);

/* NVML enum values in the words used above. */
const char *gf_nvml_ancestor_name(int level);
const char *gf_nvml_remote_type_name(int type);

#endif
