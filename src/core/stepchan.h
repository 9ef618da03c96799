/* The step channel: one small file per process that a job publishes its
 * step markers and its loader's waits through, and `gpufeed diagnose`
 * reads (<gpufeed/step.h> is the job's side).  The layout is fixed: a
 * header (magic, version, size, the writer's pid) then 64-bit counters that
 * the writer updates with atomic stores in its mapping and the reader
 * copies with pread, so a reader never maps a file a job may truncate. */
#ifndef GF_CORE_STEPCHAN_H
#define GF_CORE_STEPCHAN_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#define GF_STEPCHAN_MAGIC "GFSTEPCH"	/* 8 bytes, no terminator in the file */
#define GF_STEPCHAN_VERSION 1u
#define GF_STEPCHAN_PREFIX "step-"
#define GF_STEPCHAN_SUFFIX ".gfs"

/* The file.  New counters are appended (size grows, version stays); a
 * reader takes a file at least as large as the fields it knows. */
struct gf_stepchan_page {
	char magic[8];
	uint32_t version;
	uint32_t size;			/* sizeof this struct when written */
	int32_t pid;			/* the writer */
	_Atomic int32_t tid;		/* the thread that last called gf_step */
	uint64_t created_ns;		/* CLOCK_MONOTONIC at creation */
	_Atomic uint64_t steps;		/* gf_step calls */
	_Atomic uint64_t last_step_ns;	/* CLOCK_MONOTONIC of the last call, 0 none */
	_Atomic uint64_t step_sum_ns;	/* sum of the times between consecutive calls */
	_Atomic uint64_t step_max_ns;	/* the longest of them */
	_Atomic uint64_t input_waits;	/* batches the consumer asked for (gf_loader_next) */
	_Atomic uint64_t input_wait_ns;	/* time it waited for them */
	_Atomic uint64_t input_bytes;	/* their bytes */
};

/* What a reader copies out. */
struct gf_stepchan_counters {
	pid_t pid, tid;
	uint64_t created_ns, steps, last_step_ns, step_sum_ns, step_max_ns;
	uint64_t input_waits, input_wait_ns, input_bytes;
};

/* The loader's hook: its consumer waited wait_ns for a batch of bytes.
 * Nothing (and no error) when the channel is off. */
void gf_stepchan_input(uint64_t wait_ns, uint64_t bytes);

/* Reads the channel file at path: 0 and *out, or -EBADMSG naming the file
 * ("not a step channel", "truncated: N bytes of M", "version V"), -errno
 * from open/read.  A file that is not a regular file is refused (-EINVAL). */
int gf_stepchan_read(const char *path, struct gf_stepchan_counters *out);
/* The same from an open descriptor (name: the file, for messages). */
int gf_stepchan_read_fd(int fd, const char *name, struct gf_stepchan_counters *out);

/* "DIR/step-PID.gfs" into buf: 0 or -ENAMETOOLONG. */
int gf_stepchan_path(const char *dir, pid_t pid, char *buf, size_t size);

/* Tests: forget the channel of this process (unmapped, the file kept) so
 * the next call reads GPUFEED_DIAGNOSE again. */
void gf_stepchan_reset(void);

#endif
