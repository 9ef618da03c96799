/* Recordings: a copy of every file the model (and the audit) reads, with the
 * NVML facts beside it, so any command replays the machine with --root DIR. */
#ifndef GPUFEED_RECORD_H
#define GPUFEED_RECORD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <gpufeed/common.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Layout of a recording (docs/recordings.md). */
#define GF_RECORD_NVML_FILE "nvml.json"
#define GF_RECORD_MANIFEST  "gpufeed-recording.json"

/* What gf_record writes. */
enum gf_record_format {
	GF_RECORD_AUTO = 0,		/* a .tar.gz when the name ends so, else a directory */
	GF_RECORD_DIR,
	GF_RECORD_TAR_GZ,		/* one gzip'd tar file, read back by --root FILE */
};

/* Versioned (include/gpufeed/common.h): start from GF_RECORD_OPTS_INIT. */
struct gf_record_options {
	size_t struct_size;		/* sizeof as the caller was built */
	/* The machine recorded (NULL: this one, NVML when it answers), or a
	 * recording recorded again (its root: a directory or a .tar.gz).  A
	 * locality override is refused: a recording keeps what the machine
	 * says, and the override is given when it is read. */
	const struct gf_topo_options *machine;
	bool force;			/* replace an existing recording at the target */
	/* Called with each input warning (a malformed file the model read). */
	void (*warn)(const char *msg, void *arg);
	void *warn_arg;
	/* When it becomes non-zero (set it from a signal handler), gf_record
	 * stops, removes what it wrote and returns -EINTR. */
	volatile sig_atomic_t *cancel;
	enum gf_record_format format;	/* AUTO: by the target's name */
	/* Host name, MAC addresses, serial numbers, UUIDs and GUIDs replaced
	 * by pseudonyms of the same shape, one per value, everywhere in the
	 * recording (its manifest says "redacted"; docs/recordings.md). */
	bool redact;
};

#define GF_RECORD_OPTS_INIT { \
	.struct_size = sizeof(struct gf_record_options), \
	.machine = NULL, .force = false, .warn = NULL, .warn_arg = NULL, \
	.cancel = NULL, .format = GF_RECORD_AUTO, .redact = false }

struct gf_record_stats {
	unsigned files, links, dirs;
	unsigned long long bytes;
	bool nvml;			/* nvml.json was written */
	char nvml_note[200];		/* why not */
	int ngpus, nnics, nblocks;
	int nwarnings;
	char format[8];			/* "dir" or "tar.gz" */
};

/* Writes DIR atomically: everything goes to DIR.tmp-XXXXXX first and is
 * renamed into place at the end; on failure or cancellation nothing is left
 * behind (a process killed outright leaves DIR.tmp-XXXXXX).  An existing
 * non-empty DIR is replaced only with force, and only when it is a
 * recording (holds gpufeed-recording.json); the final rename checks that
 * again, so a DIR made meanwhile is never replaced (-EEXIST).  A target
 * named *.tar.gz (or format GF_RECORD_TAR_GZ) is written as one gzip'd tar
 * file instead.  opts may be NULL (defaults); stats may be NULL. */
GF_API int gf_record(const char *dir, const struct gf_record_options *opts,
		     struct gf_record_stats *stats);

/* The summary of a recording as JSON (schema gpufeed-record/2, with the
 * gpufeed version and the time; docs/recordings.md): `dir` as given to
 * gf_record.  0, or -errno with a message (-EIO: a write failed). */
GF_API int gf_record_write_json(FILE *f, const char *dir, const struct gf_record_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
