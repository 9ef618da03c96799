/* Inside verify: reading /proc/PID (proc.c, over core/proc.h), naming its
 * GPUs (gpus.c), judging (judge.c). */
#ifndef GF_VERIFY_INTERNAL_H
#define GF_VERIFY_INTERNAL_H

#include <gpufeed/verify.h>
#include "core/fs.h"
#include "core/proc.h"

/* What verify reads of the process (proc.c), through core/proc.h.
 * verify_read_status also refuses a kernel thread (-EINVAL) and a zombie
 * (-ESRCH): neither has a memory map to verify. */
int verify_read_status(const struct gf_proc *p, struct gf_verify *v);
int verify_read_threads(const struct gf_proc *p, struct gf_verify *v);
int verify_read_numa_maps(const struct gf_proc *p, struct gf_verify *v);
/* Minors of /dev/nvidiaN (and GF_PROC_CAP_BASE + cap minors) among the
 * process's open files; *n of them in *minors (caller frees). */
int verify_read_fds(const struct gf_proc *p, int **minors, int *n);
int verify_read_environ(const struct gf_proc *p, struct gf_verify *v);

/* The GPUs to compare with: asked (list), else open, else visible. */
int verify_pick_gpus(struct gf_verify *v, const struct gf_fs *fs, const char *list, const int *minors, int nminors);

/* The comparison: local sets, per-node counts, findings. */
int verify_judge(struct gf_verify *v, double max_off_node_pct);
int verify_add_finding(struct gf_verify *v, enum gf_severity sev, const char *id, const char *subject,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The node of a model CPU, -1 when the model does not know it. */
int verify_cpu_node(const struct gf_topo *t, int cpu);
/* The entry for `node` in v->nodes, added when absent; NULL out of memory. */
struct gf_verify_node *verify_node(struct gf_verify *v, int node);

#endif
