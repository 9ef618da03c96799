/* One reader of a process's /proc files (/proc/PID or /proc/self), through
 * the fs layer so a test tree or a recording with a fake /proc/PID reads
 * the same: its status, threads, memory per NUMA node, open files and
 * environment, each failure said in words (no such process, a kernel
 * thread or a zombie, and when the kernel refused a read, what refused it).
 * verify reads a process through it; watch --pid and diagnose are next. */
#ifndef GF_CORE_PROC_H
#define GF_CORE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <gpufeed/cpuset.h>

#include "core/fs.h"

struct gf_proc {
	const struct gf_fs *fs;
	char dir[64];			/* "/proc/1234" or "/proc/self" */
};

/* pid 0: /proc/self. */
void gf_proc_init(struct gf_proc *p, const struct gf_fs *fs, int pid);

/* The process's file rel ("status", "task/7/stat"): 0 with *text (and *len
 * when not NULL), or -ESRCH "1234: no such process (...)", -EACCES saying
 * what refused it and who may read it, or another -errno. */
int gf_proc_read(const struct gf_proc *p, const char *rel, char **text, size_t *len);
/* The same words for a failure of rel another call met (a listing). */
int gf_proc_fail(const struct gf_proc *p, const char *rel, int err);

struct gf_proc_status {
	int pid;
	char name[64];
	char state;			/* 'R', 'S', 'Z'... */
	long long uid;			/* real uid, -1 unknown */
	struct gf_cpuset cpus_allowed;
	struct gf_cpuset mems_allowed;
	bool mems_known;
	bool kthread;			/* a kernel thread: no memory map */
};
/* status: 0, -EBADMSG for one without a readable Cpus_allowed_list, or
 * gf_proc_read's errors. */
int gf_proc_status(const struct gf_proc *p, struct gf_proc_status *st);
/* A process with a memory map, environment and open files: 0, or -EINVAL
 * for a kernel thread and -ESRCH for a zombie, said in words. */
int gf_proc_user_process(const struct gf_proc *p, const struct gf_proc_status *st);

struct gf_proc_thread {
	int tid;
	char comm[64];
	int cpu;			/* the CPU it last ran on (stat field 39) */
};
/* Every thread: *out (caller frees) and *n; *vanished counts the ones that
 * exited between the listing and their read. */
int gf_proc_threads(const struct gf_proc *p, struct gf_proc_thread **out, int *n, int *vanished);
/* "7 (a) (b) S 1 ..." -> the comm between the first '(' and the last ')'
 * and field 39 (processor).  0, or -EBADMSG. */
int gf_proc_parse_stat(const char *line, char *comm, size_t size, int *cpu);

/* One numa_maps line: its policy ("bind:0", "prefer (many):0-1"), whether
 * it maps a file, and its resident bytes, added per node to bytes[node]
 * (node < nmax; bytes may be NULL).  0, or -EBADMSG for a line without an
 * address and a policy. */
struct gf_proc_maps_line {
	char policy[64];
	bool file;
	unsigned long long bytes;
};
int gf_proc_parse_maps_line(const char *line, struct gf_proc_maps_line *out, unsigned long long *bytes, int nmax);

/* The targets of the process's open files ("/dev/nvidia3", "socket:[7]"),
 * each passed to fn; one closed since the listing is skipped.  An absent
 * fd directory (a test tree) is no file at all. */
int gf_proc_fds(const struct gf_proc *p, void (*fn)(const char *target, void *arg), void *arg);
/* /dev/nvidiaN -> N; /dev/nvidia-caps/nvidia-capN -> GF_PROC_CAP_BASE + N;
 * anything else -1. */
#define GF_PROC_CAP_BASE 1000000
int gf_proc_nvidia_minor(const char *target);

/* The value of KEY in the process's environment: 1 found (copied into
 * buf), 0 not set, -errno.  *known false when there is no environ file. */
int gf_proc_getenv(const struct gf_proc *p, const char *key, char *buf, size_t size, bool *known);

/* Why the kernel refused a process's files (EACCES/EPERM) to a reader of
 * effective uid `reader`, the process running as uid `owner` (-1 unknown),
 * in words. */
void gf_proc_why_denied(unsigned reader, long long owner, char *buf, size_t size);

#endif
