/* What the audit offers gpufeed record (src/record): the checks run with
 * the recorder attached, so a recording holds whatever they read, and what
 * the checks look for by name alone, so it holds no more of the process
 * list and the library directories than that. */
#ifndef GF_AUDIT_RECORD_H
#define GF_AUDIT_RECORD_H

#include <stdbool.h>
#include <gpufeed/audit.h>
#include "core/fs.h"
#include "vendor/nvml/nvml_facts.h"

/* Every check of `profile` on `model`, reading through `fs` (the caller's:
 * its root and its recorder; not released here), with NVML's `facts`
 * (NULL: none, `nvml_why` says why) and the environment the audit takes by
 * default (this process's live, a recording's manifest).  0 with *out set
 * (gf_audit_free), or -errno. */
int gf_audit_run_on(const struct gf_fs *fs, const struct gf_topo *model, const struct gf_nvml_facts *facts,
		    const char *nvml_why, enum gf_profile profile, struct gf_audit **out);

/* True when a check looks for a process of this name (/proc/PID/comm, which
 * the kernel cuts to 15 characters). */
bool gf_audit_watches_process(const char *comm);

/* Directories the checks list for file names whose bytes they never read
 * (gpu.driver-cuda: the CUDA runtime's version in libcudart.so.N.M): the
 * names in `dir` starting with `prefix`.  Ended by { NULL, NULL }. */
struct gf_audit_name_dir {
	const char *dir, *prefix;
};
extern const struct gf_audit_name_dir gf_audit_name_dirs[];

#endif
