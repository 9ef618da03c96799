/* `gpufeed check`: the host audit.  Each check reads one setting of the
 * machine (or of a recording), compares it with what feeds GPUs best for
 * the chosen profile, and says what it saw, what it expected, where it
 * read it, why it matters and how to fix it.
 *
 * The catalogue of checks is fixed at build time (gf_check_count,
 * gf_check_info_at); docs/checks.md is generated from it.  A run
 * (gf_audit_run) gives one result per check and subject (a check about
 * every NVMe drive gives one result per drive). */
#ifndef GPUFEED_AUDIT_H
#define GPUFEED_AUDIT_H

#include <stdbool.h>
#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the JSON written by gf_audit_write_json() ("schema" key). */
#define GF_CHECK_SCHEMA "gpufeed-check/1"
#define GF_CHECK_LIST_SCHEMA "gpufeed-check-list/1"

/* Ordered by how much they ask of the reader: gf_audit_count_at_least()
 * and --fail-on compare with this order. */
enum gf_check_status {
	GF_CHECK_PASS = 0,
	GF_CHECK_NA,		/* does not apply here: no GPU, a VM without cpufreq,
				 * a host-only setting seen from a container */
	GF_CHECK_NEEDS_ROOT,	/* could not be read without privileges: never a pass */
	GF_CHECK_WARN,		/* works, but costs performance or is fragile */
	GF_CHECK_ERROR,		/* could not be checked: unreadable, malformed */
	GF_CHECK_FAIL,		/* wrong: fix it before running jobs */
	GF_CHECK_NSTATUS
};
/* "pass", "na", "needs-root", "warn", "error", "fail"; "?" out of range. */
GF_API const char *gf_check_status_name(enum gf_check_status s);

enum gf_profile {
	GF_PROFILE_TRAINING = 0,	/* throughput: big batches, checkpoints, NCCL */
	GF_PROFILE_INFERENCE,		/* latency: serving, steady clocks */
};
/* "training", "inference" ("?" out of range), and back: 0 or -EINVAL. */
GF_API const char *gf_profile_name(enum gf_profile p);
GF_API int gf_profile_parse(const char *word, enum gf_profile *out);

/* How a fix may be applied by `gpufeed tune`. */
enum gf_fix_class {
	GF_FIX_NONE = 0,	/* nothing to do, or nothing we know to do */
	GF_FIX_SAFE,		/* runtime, reversible, no reboot, no GPU state, no
				 * service restart: a write of `value` to `path` */
	GF_FIX_ADVICE,		/* printed for a person (reboot, service, GPU state) */
	GF_FIX_NAMED,		/* a runtime write of `value` to `path` like a safe fix,
				 * but one that may disturb something (the network, a
				 * consumer of the value): tune applies it only when its
				 * check is named with --only ID, else it is advice */
};
/* "none", "safe", "advice", "named"; "?" out of range. */
GF_API const char *gf_fix_class_name(enum gf_fix_class c);

/* Check flags (struct gf_check_info.flags). */
#define GF_CHECK_HOST_ONLY	(1u << 0)	/* reads the host's config or services:
						 * na inside a container */
#define GF_CHECK_NEEDS_GPU	(1u << 1)	/* na without NVIDIA GPUs */
#define GF_CHECK_CROSS_LAYER	(1u << 2)	/* uses the topology model */

/* One check of the catalogue.  Owned by the library. */
struct gf_check_info {
	const char *id;		/* stable: "mem.swappiness" */
	const char *category;	/* "memory", "cpu", "irq", "storage", "network",
				 * "pcie", "gpu", "container", "nccl" */
	const char *title;	/* one line: "vm.swappiness is low" */
	const char *why;	/* one line: the reason; "docs/checks.md#<id>"; then
				 * each public source as "\"Title\", URL" */
	const char *source;	/* what it reads: file, NVML field, command */
	const char *training;	/* the value expected with --profile training */
	const char *inference;	/* ... with --profile inference (may be the same) */
	const char *fix;	/* how to fix it, in words ("" when nothing to do) */
	unsigned flags;
};
/* The catalogue: its size, and check i of it (NULL past the end). */
GF_API int gf_check_count(void);
GF_API const struct gf_check_info *gf_check_info_at(int i);
/* The catalogue as docs/checks.md (Markdown) or as JSON. */
GF_API int gf_checks_write_markdown(FILE *f);
GF_API int gf_checks_write_json(FILE *f);

/* gpufeed's own persistent files under /etc: a result's persist_file is
 * one of them, and gpufeed tune --persist (and revert) writes no other. */
#define GF_PERSIST_SYSCTL "/etc/sysctl.d/90-gpufeed.conf"
#define GF_PERSIST_UDEV "/etc/udev/rules.d/90-gpufeed.rules"
#define GF_PERSIST_TMPFILES "/etc/tmpfiles.d/gpufeed.conf"
#define GF_PERSIST_MODPROBE "/etc/modprobe.d/gpufeed.conf"
#define GF_PERSIST_MODULES_LOAD "/etc/modules-load.d/gpufeed.conf"
#define GF_PERSIST_FILES \
	{ GF_PERSIST_SYSCTL, GF_PERSIST_UDEV, GF_PERSIST_TMPFILES, GF_PERSIST_MODPROBE, GF_PERSIST_MODULES_LOAD }

/* One result: a check about one subject ("" = the host). */
struct gf_check_result {
	const struct gf_check_info *check;
	enum gf_check_status status;
	char subject[64];	/* "", "nvme0n1", "GPU0", "0000:3b:00.0", "eth0" */
	char observed[256];	/* what was found, in the file's own words */
	char expected[256];	/* what the profile wants */
	char source[256];	/* the exact file, NVML field or command read */
	char note[256];		/* why this status (na, error, needs-root: the reason) */
	char fix[320];		/* runtime command, "" when none */
	char persist[320];	/* what makes it survive a reboot, "" when none */
	/* What `gpufeed tune` may do.  GF_FIX_SAFE (and GF_FIX_NAMED when
	 * named with --only): write `value` to the
	 * machine path `path` (sysfs/procfs), and with --persist add
	 * `persist_line` to `persist_file` (a gpufeed-owned file under /etc).
	 * path, value and persist_line are whole, however long (a
	 * reserved-ports list), owned by the audit (gf_audit_free), and NULL
	 * when the result has no such fix. */
	enum gf_fix_class fix_class;
	char *path;
	char *value;
	char persist_file[128];
	char *persist_line;
};

struct gf_audit_options {
	size_t struct_size;
	/* The machine, as every feature takes it: its model's options (a
	 * recording's root, NVML, the locality override; NULL: this machine,
	 * the defaults), and a model already discovered with them (gpufeed
	 * report passes its own), used instead of discovering again.  The
	 * checks read the same root. */
	const struct gf_topo_options *machine;
	const struct gf_topo *model;
	enum gf_profile profile;
	/* Comma-separated check ids or categories to run; NULL = all. */
	const char *only;
	/* The environment the NCCL/CUDA checks read ("NAME=value" strings,
	 * NULL-terminated).  NULL: this process's environment on the live
	 * machine, DIR/environ in a recording (absent: none). */
	const char *const *env;
	/* New fields go here, at the end. */
};

#define GF_AUDIT_OPTS_INIT \
	{ .struct_size = sizeof(struct gf_audit_options), .machine = NULL, .model = NULL, \
	  .profile = GF_PROFILE_TRAINING, .only = NULL, .env = NULL }

struct gf_audit {
	char source[4096];		/* "this machine" or the recording */
	char hostname[65];
	enum gf_profile profile;
	bool live;			/* this machine, not a recording */
	bool container;			/* runs inside a container */
	char container_kind[32];	/* "docker", "podman", "kubernetes", "lxc", "" */
	bool privileged;		/* euid 0 (recordings: as recorded, else true) */
	bool gpus;			/* NVIDIA GPUs were found */
	struct gf_check_result *results;
	int nresults;
	int counts[GF_CHECK_NSTATUS];
	double elapsed_ms;		/* time the checks took (discovery included) */
};

/* Runs the checks.  0 with *out set, or -errno with gf_last_error() (a
 * root that is not a recording, a malformed nvml.json, --only naming no
 * check).  A check that cannot read its input is a result with status
 * error, not a failure of the run. */
GF_API int gf_audit_run(const struct gf_audit_options *opts, struct gf_audit **out);
/* NULL does nothing. */
GF_API void gf_audit_free(struct gf_audit *a);
/* Results at or above `level` (GF_CHECK_WARN counts warn, error, fail);
 * -EINVAL for `a` NULL or level out of range. */
GF_API int gf_audit_count_at_least(const struct gf_audit *a, enum gf_check_status level);

#define GF_AUDIT_PRINT_COLOR	(1u << 0)
#define GF_AUDIT_PRINT_ALL	(1u << 1)	/* list passes and na too */
/* The results as `gpufeed check` prints them (text, GF_AUDIT_PRINT_*
 * flags) and as JSON (docs/json-check.md, GF_CHECK_SCHEMA).  Like the
 * writers below: 0, -EIO when writing failed, -EINVAL for a or f NULL. */
GF_API int gf_audit_print(const struct gf_audit *a, FILE *f, unsigned flags);
GF_API int gf_audit_write_json(const struct gf_audit *a, FILE *f);
/* node_exporter textfile format (docs/checks.md, "Prometheus"). */
GF_API int gf_audit_write_prom(const struct gf_audit *a, FILE *f);
/* The same into `path`, atomically (temp file, fsync, rename), as the
 * textfile collector needs. */
GF_API int gf_audit_save_prom(const struct gf_audit *a, const char *path);
/* A short summary for `gpufeed report`: counts and the `max` worst results. */
GF_API int gf_audit_print_summary(const struct gf_audit *a, FILE *f, int max, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif
