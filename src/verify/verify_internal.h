/* Inside verify: reading /proc/PID (proc.c), naming its GPUs (gpus.c),
 * judging (judge.c).  The parsers are separate from the reads so the unit
 * tests can feed them odd lines. */
#ifndef GF_VERIFY_INTERNAL_H
#define GF_VERIFY_INTERNAL_H

#include <gpufeed/verify.h>
#include "core/fs.h"

/* "7 (a) (b) S 1 ... " -> the comm between the first '(' and the last ')'
 * and field 39 (processor).  0, or -EBADMSG for a line that has no ')' or
 * fewer fields. */
int verify_parse_stat(const char *line, char *comm, size_t size, int *cpu);

/* One numa_maps line: its policy ("bind:0", "prefer (many):0-1"), whether
 * it maps a file, and its pages per node (added to bytes[node], node <
 * nmax) times kernelpagesize_kB.  0, or -EBADMSG for a line without an
 * address and a policy. */
struct verify_maps_line {
	char policy[64];
	bool file;
	unsigned long long bytes;	/* the line's resident bytes */
};
int verify_parse_maps_line(const char *line, struct verify_maps_line *out, unsigned long long *bytes, int nmax);

/* /dev/nvidiaN -> N; /dev/nvidia-caps/nvidia-capN -> 1000000 + N; else -1. */
#define VERIFY_CAP_BASE 1000000
int verify_dev_minor(const char *target);

/* The process's files, through fs at "/proc/<pid or self>". */
struct verify_proc {
	const struct gf_fs *fs;
	char dir[64];			/* "/proc/1234" or "/proc/self" */
};
/* Also refuses a kernel thread (-EINVAL) and a zombie (-ESRCH): neither
 * has a memory map to verify. */
int verify_read_status(const struct verify_proc *p, struct gf_verify *v);
int verify_read_threads(const struct verify_proc *p, struct gf_verify *v);
int verify_read_numa_maps(const struct verify_proc *p, struct gf_verify *v);
/* Minors of /dev/nvidiaN (and VERIFY_CAP_BASE + cap minors) among the
 * process's open files; *n of them in *minors (caller frees). */
int verify_read_fds(const struct verify_proc *p, int **minors, int *n);
int verify_read_environ(const struct verify_proc *p, struct gf_verify *v);

/* Why the kernel refused a process's files (EACCES/EPERM) to a reader of
 * effective uid `reader`, the process running as uid `owner` (-1:
 * unknown), in words, in buf. */
void verify_why_denied(unsigned reader, long long owner, char *buf, size_t size);

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
