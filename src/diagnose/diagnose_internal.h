/* What one diagnosis holds, shared by the runner, the replay and the
 * report. */
#ifndef GF_DIAGNOSE_INTERNAL_H
#define GF_DIAGNOSE_INTERNAL_H

#include <stdio.h>
#include <jansson.h>
#include <gpufeed/diagnose.h>

#include "diagnose/verdict.h"

#define GF_DIAG_MAX_NOTES 6
#define GF_DIAG_MAX_NCCL 6

struct gf_diagnosis {
	struct gf_diag_acc acc;
	struct gf_diag_verdict v;
	int status;			/* waitpid status, -1 not our child */
	pid_t pid;			/* the job's first process, 0 replayed */
	char job[256];			/* its command line, or "pid N", or the samples file */
	const char *mode;		/* "run", "attach", "replay" */
	const char *gpu_source;		/* the monitor's activity source of the job's GPUs, NULL none */
	char notes[GF_DIAG_MAX_NOTES][256];
	unsigned nnotes;
	/* NCCL's log, analysed against the model */
	unsigned nccl_files;
	bool nccl_clean;
	unsigned nnccl;
	char nccl[GF_DIAG_MAX_NCCL][320];
	/* `gpufeed check` on the categories that bear on the verdict */
	char check_categories[32];	/* "" when none was run */
	unsigned ncheck_results;	/* warn or worse */
	char checks[GF_DIAG_MAX_NCCL][320];
	int job_rank[GF_DIAG_MAX_RANKS];	/* each rank's RANK from its environment, -1 unknown */
	/* diagnose's own cost */
	double self_cpu_s;		/* its CPU time while sampling */
	unsigned long long samples_bytes;	/* written to opts.samples */
};

void gf_diag_note(struct gf_diagnosis *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One interval as one JSON object (the samples file's line) and back. */
json_t *gf_diag_tick_json(const struct gf_diag_tick *t);
int gf_diag_tick_parse(json_t *o, const char *where, struct gf_diag_tick *t);

#endif
