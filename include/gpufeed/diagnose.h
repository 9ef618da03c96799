/* gpufeed diagnose: a job sampled while it runs, its steps, and a verdict
 * on what it waits for (docs/diagnose.md).
 *
 *   struct gf_diagnose_opts o = GF_DIAGNOSE_OPTS_INIT;
 *   o.argv = argv;                   (a job to run, or o.pid to attach)
 *   struct gf_diagnosis *d;
 *   gf_diagnose_run(&o, &d);         (returns when the job ends)
 *   gf_diagnose_print(d, stdout);
 *   int status = gf_diagnose_job_status(d);
 *   gf_diagnose_free(d);
 *
 * The job runs with GPUFEED_DIAGNOSE=DIR (a private directory) so that
 * gf_step()/gpufeed.step() and gpufeed's loader publish its steps and input
 * waits (<gpufeed/step.h>), and with NCCL's INFO log written to DIR (unless
 * nccl_log is false).  Every interval diagnose samples the GPUs
 * (<gpufeed/monitor.h>), each rank's step thread (CPU, run queue, what it is
 * blocked in), its I/O, its descendants' CPU and its cgroup's throttling. */
#ifndef GPUFEED_DIAGNOSE_H
#define GPUFEED_DIAGNOSE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <gpufeed/common.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GF_DIAGNOSE_SCHEMA "gpufeed-diagnose/1"

/* Versioned (include/gpufeed/common.h): start from GF_DIAGNOSE_OPTS_INIT. */
struct gf_diagnose_opts {
	size_t struct_size;
	const struct gf_topo_options *machine;	/* NULL: this machine, defaults */
	char *const *argv;		/* the job to run (argv[0] searched in PATH), or NULL */
	pid_t pid;			/* > 0: attach to this running process instead */
	double interval_s;		/* GPU and process counters; default 1 */
	double state_hz;		/* looks at what each step thread is blocked in; default 20 */
	double duration_s;		/* > 0: stop sampling after this long (the job keeps running) */
	bool nccl_log;			/* capture NCCL's INFO log of a job diagnose starts */
	const char *samples;		/* write every interval to this file, one JSON object a line */
	volatile sig_atomic_t *stop;	/* set (by a signal handler): stop; a job diagnose started
					 * gets SIGTERM once, then diagnose waits for it */
};
#define GF_DIAGNOSE_OPTS_INIT { .struct_size = sizeof(struct gf_diagnose_opts), .interval_s = 1.0, \
				.state_hz = 20.0, .nccl_log = true }

struct gf_diagnosis;

/* Runs the job (or attaches to opts->pid) and samples it until it exits,
 * opts->duration_s passes or *opts->stop is set.  0 with *out; -ENOENT or
 * -EACCES when the job cannot be executed (the message names it), -ESRCH
 * for a pid that does not exist, -EINVAL for bad options, -errno for a
 * samples file that cannot be written.  A job that fails is not an error:
 * gf_diagnose_job_status says how it ended. */
GF_API int gf_diagnose_run(const struct gf_diagnose_opts *opts, struct gf_diagnosis **out);
/* The verdict on samples written by opts.samples: 0 with *out, -EBADMSG
 * naming the line that is not a sample. */
GF_API int gf_diagnose_replay(const char *samples, struct gf_diagnosis **out);
/* The job's wait status (waitpid(2)), or -1 when it was attached to or
 * replayed (not a child of diagnose). */
GF_API int gf_diagnose_job_status(const struct gf_diagnosis *d);
/* Whether a verdict was reached (false: the job ended before one interval). */
GF_API bool gf_diagnose_known(const struct gf_diagnosis *d);
/* The short report, and the same as JSON (docs/json-diagnose.md). */
GF_API int gf_diagnose_print(const struct gf_diagnosis *d, FILE *f);
GF_API int gf_diagnose_write_json(const struct gf_diagnosis *d, FILE *f);
/* The report (json: the JSON) written to path by the rule for a path a
 * user names to write (<gpufeed/outfile.h>): 0 or -errno naming it. */
GF_API int gf_diagnose_save(const struct gf_diagnosis *d, const char *path, bool json);
GF_API void gf_diagnose_free(struct gf_diagnosis *d);

#ifdef __cplusplus
}
#endif

#endif
