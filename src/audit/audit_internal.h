/* Private to src/audit: how a check is written.
 *
 * A check is a struct gf_check_def in one of the category files
 * (checks_<category>.c): its public description (struct gf_check_info, which
 * docs/checks.md is made from) and a run function.  run() reads what it
 * needs through the context (never the host directly, so recordings work)
 * and adds one result per subject with audit_result().  Every result ends
 * with a status; the helpers below turn a failed read into the right one
 * (absent: na, EACCES: needs-root, anything else: error), so a check never
 * passes what it could not read.
 *
 *     static void run_swappiness(struct gf_audit_ctx *c)
 *     {
 *         long long v;
 *         struct gf_check_result *r = audit_result(c, "");
 *
 *         if (audit_read_ll(c, r, "/proc/sys/vm/swappiness", &v))
 *             return;                       (status and note already set)
 *         audit_observed(r, "%lld", v);
 *         audit_expected(r, "<= 10");
 *         audit_status(r, v <= 10 ? GF_CHECK_PASS : GF_CHECK_WARN);
 *         audit_sysctl_fix(c, r, "vm.swappiness", "10");
 *     }
 */
#ifndef GF_AUDIT_INTERNAL_H
#define GF_AUDIT_INTERNAL_H

#include <stdbool.h>
#include <gpufeed/audit.h>
#include "core/error.h"
#include "core/fs.h"
#include "vendor/nvml/nvml_facts.h"

struct gf_audit_ctx;

/* Outside the public API (the JSON's "worst", the tests): the most serious
 * status of the run (GF_CHECK_PASS when none; a NULL audit checked
 * nothing: GF_CHECK_ERROR, never a pass), and a status by its word ("warn"
 * -> GF_CHECK_WARN; -EINVAL for other words). */
enum gf_check_status gf_audit_worst(const struct gf_audit *a);
int gf_check_status_parse(const char *word, enum gf_check_status *out);

struct gf_check_def {
	struct gf_check_info info;
	void (*run)(struct gf_audit_ctx *c);
};

/* One table per category file, ended by GF_CHECK_END (a NULL id). */
#define GF_CHECK_END { { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0 }, NULL }
extern const struct gf_check_def gf_checks_memory[], gf_checks_cpu[], gf_checks_irq[], gf_checks_storage[],
	gf_checks_network[], gf_checks_pcie[], gf_checks_gpu[], gf_checks_container[], gf_checks_nccl[];

struct gf_audit_ctx {
	struct gf_audit *a;
	struct gf_fs fs;			/* the machine or the recording */
	const struct gf_topo *t;		/* the model (never NULL while checks run) */
	const struct gf_nvml_facts *nvml;	/* full NVML facts, NULL when none */
	char nvml_why[200];			/* why there are none */
	enum gf_profile profile;
	bool live, container, privileged;
	const char *const *env;			/* NAME=value, NULL-terminated, never NULL */
	const struct gf_check_def *cur;		/* the check running */
};

/* A new result of the running check for `subject` ("" = the host), status
 * pass until set; NULL only when out of memory (the helpers accept NULL).
 * The results array grows: a pointer returned earlier is invalid after the
 * next call (keep an index, or finish one result before adding another). */
struct gf_check_result *audit_result(struct gf_audit_ctx *c, const char *subject);
void audit_status(struct gf_check_result *r, enum gf_check_status s);
void audit_observed(struct gf_check_result *r, const char *fmt, ...) GF_PRINTF(2, 3);
void audit_expected(struct gf_check_result *r, const char *fmt, ...) GF_PRINTF(2, 3);
void audit_source(struct gf_check_result *r, const char *fmt, ...) GF_PRINTF(2, 3);
void audit_note(struct gf_check_result *r, const char *fmt, ...) GF_PRINTF(2, 3);
void audit_fix(struct gf_check_result *r, const char *fmt, ...) GF_PRINTF(2, 3);
void audit_persist(struct gf_check_result *r, const char *fmt, ...) GF_PRINTF(2, 3);
/* Status na (or needs-root, error) with the reason, in one call. */
void audit_na(struct gf_check_result *r, const char *fmt, ...) GF_PRINTF(2, 3);
void audit_error(struct gf_check_result *r, const char *fmt, ...) GF_PRINTF(2, 3);

/* A safe fix `tune` may apply: write `value` to the sysfs/procfs `path`,
 * persisted (tune --persist) by `persist_line` in `persist_file`.  Also
 * fills fix/persist text when they are empty. */
void audit_safe_fix(struct gf_check_result *r, const char *path, const char *value, const char *persist_file,
		    const char *persist_line);
/* Frees the fix's path, value and persist line (the result keeps none). */
void audit_drop_fix(struct gf_check_result *r);
/* A write tune applies only when the check is named with --only ID
 * (GF_FIX_NAMED): runtime and reversible, but it may disturb (an MTU). */
void audit_named_fix(struct gf_check_result *r, const char *path, const char *value);
/* The same for a sysctl ("vm.swappiness", "10"): /proc/sys/vm/swappiness,
 * /etc/sysctl.d/90-gpufeed.conf. */
void audit_sysctl_fix(struct gf_check_result *r, const char *key, const char *value);
/* gpufeed's own persistent files: GF_PERSIST_* in <gpufeed/audit.h>. */

/* Reads of machine files.  0 on success.  On failure the result (when not
 * NULL) gets its status and note (na: absent; needs-root: EACCES/EPERM;
 * error: anything else, malformed) and the -errno is returned.  The result's
 * source is set to the path when still empty. */
int audit_read(struct gf_audit_ctx *c, struct gf_check_result *r, const char *path, char **data, size_t *len);
int audit_read_str(struct gf_audit_ctx *c, struct gf_check_result *r, const char *path, char *buf, size_t size);
int audit_read_ll(struct gf_audit_ctx *c, struct gf_check_result *r, const char *path, long long *v);
/* Quiet probes: no result touched. 0 / -ENOENT / -errno. */
int audit_peek_str(struct gf_audit_ctx *c, const char *path, char *buf, size_t size);
bool audit_exists(struct gf_audit_ctx *c, const char *path);

/* The selected word of a sysfs choice file: "always [madvise] never" ->
 * "madvise"; a file without brackets -> its first word.  The form a write
 * takes, which `tune` journals. */
void audit_selected(const char *text, char *out, size_t size);

/* The processes checks look for, by their /proc/PID/comm (which the kernel
 * cuts to 15 characters).  A recording keeps these processes' names and no
 * other's (gf_audit_watches_process), so a check looks for no process that
 * is not here. */
enum audit_process {
	AUDIT_PROC_IRQBALANCE,		/* irq.balance: irqbalance */
	AUDIT_PROC_MPS,			/* gpu.mps: nvidia-cuda-mps-control, -server */
	AUDIT_PROC_FABRICMANAGER,	/* gpu.fabric-manager: nv-fabricmanager */
	AUDIT_PROC_PERSISTENCED,	/* gpu.persistence: nvidia-persistenced */
	AUDIT_NPROCESSES
};

/* Processes of that kind: how many, and the first one's pid in *pid (may
 * be NULL).  -ENOENT when process names cannot be seen (a recording
 * without /proc/1/comm, which `gpufeed record` keeps to say it looked;
 * hidepid). */
int audit_processes(struct gf_audit_ctx *c, enum audit_process which, long *pid);

/* The environment (c->env): the value of NAME or NULL. */
const char *audit_getenv(const struct gf_audit_ctx *c, const char *name);

/* Container detection (container.c): kind into buf ("" when none). */
bool gf_audit_detect_container(const struct gf_fs *fs, char *kind, size_t size);

#endif
