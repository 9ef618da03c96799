/* Recordings: a copy of every file the model (and the audit) reads, with the
 * NVML facts beside it, so any command replays the machine with --root DIR. */
#ifndef GPUFEED_RECORD_H
#define GPUFEED_RECORD_H

#include <stdbool.h>
#include <gpufeed/common.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Layout of a recording (docs/recordings.md). */
#define GF_RECORD_NVML_FILE "nvml.json"
#define GF_RECORD_MANIFEST  "gpufeed-recording.json"

struct gf_record_options {
	const char *root;		/* NULL = this machine, else re-record a recording */
	enum gf_nvml_mode nvml;		/* AUTO: facts when NVML answers */
	bool force;			/* replace an existing non-empty DIR */
};

struct gf_record_stats {
	unsigned files, links, dirs;
	unsigned long long bytes;
	bool nvml;			/* nvml.json was written */
	char nvml_note[200];		/* why not */
	int ngpus, nnics, nblocks;
};

/* Writes DIR atomically: everything goes to DIR.tmp-XXXXXX first and is
 * renamed into place at the end; on failure nothing is left behind. */
GF_API int gf_record(const char *dir, const struct gf_record_options *opts,
		     struct gf_record_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
