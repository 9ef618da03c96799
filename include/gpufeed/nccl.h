/* NCCL diagnosis: what NCCL's own output says, held against the machine
 * model (docs/nccl.md).
 *
 * The log reader takes NCCL_DEBUG=INFO output of one or many ranks, as
 * NCCL prints it ("host:pid:tid [dev] NCCL INFO ...") behind the prefixes
 * launchers add (torchrun's "[rank0]:" and "[default0]:", gpufeed launch's
 * "[0] "), line by line or a file at a time, then analyses it once:
 *
 *     struct gf_nccl_log *l;
 *     gf_nccl_log_new(NULL, &l);
 *     gf_nccl_log_feed_file(l, "rank0.log", f);
 *     gf_nccl_log_analyse(l, topo);       // topo may be NULL
 *     gf_nccl_log_write_text(l, stdout);
 *     gf_nccl_log_free(l);
 *
 * Every string taken from a log is kept as printable ASCII (other bytes
 * become '?'), so a hostile log cannot send escape sequences to a
 * terminal through gpufeed. */
#ifndef GPUFEED_NCCL_H
#define GPUFEED_NCCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <gpufeed/common.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- NCCL_DEBUG=INFO log ---------------------------------------------- */

/* "schema" of gf_nccl_log_write_json() (docs/nccl.md). */
#define GF_NCCL_LOG_SCHEMA "gpufeed-nccl-log/1"

struct gf_nccl_log_options {
	size_t struct_size;		/* sizeof(struct gf_nccl_log_options) */
	/* Communicator inits per rank from which "created every iteration" is
	 * reported (0: the default, 8). */
	int many_inits;
};

#define GF_NCCL_LOG_OPTS_INIT { .struct_size = sizeof(struct gf_nccl_log_options), .many_inits = 0 }

struct gf_nccl_log;

/* One finding of the analysis.  Strings are owned by the log. */
struct gf_nccl_finding {
	enum gf_severity severity;
	const char *id;			/* stable: "nccl.transport", "nccl.override", ... */
	const char *ranks;		/* "0", "0,1", "0->1", "" for all */
	const char *text;		/* what was found, with the evidence */
	const char *fix;		/* what to do; "" when nothing */
	const char *source;		/* a public page that explains it */
	bool costs_bandwidth;		/* a path or a setting slower than the machine allows */
};

/* A reader with opts (NULL: the defaults).  0 with *out set, -EINVAL for
 * options not made with GF_NCCL_LOG_OPTS_INIT, -ENOMEM. */
GF_API int gf_nccl_log_new(const struct gf_nccl_log_options *opts, struct gf_nccl_log **out);
/* One line (len bytes, no '\n' needed; NULs and any byte are taken) from
 * the log named source ("rank0.log", "-").  Lines NCCL did not write are
 * read for launcher prefixes and PyTorch's errors, else skipped.  0,
 * -EINVAL for NULL arguments, -ENOMEM. */
GF_API int gf_nccl_log_feed_line(struct gf_nccl_log *l, const char *source, const char *line, size_t len);
/* Every line of f.  0, -EINVAL, -ENOMEM, or -EIO when reading f failed
 * (the message names source). */
GF_API int gf_nccl_log_feed_file(struct gf_nccl_log *l, const char *source, FILE *f);
/* Groups what was fed by rank and makes the findings; t (NULL, or a model
 * without GPUs: transports and overrides are still reported, with a note
 * that the topology could not be compared) is the machine the log came
 * from.  May be called again after more lines.  0, -EINVAL, -ENOMEM. */
GF_API int gf_nccl_log_analyse(struct gf_nccl_log *l, const struct gf_topo *t);
/* The findings of the last analysis: their count (>= 0) with *out set to
 * an array owned by the log, or -EINVAL. */
GF_API int gf_nccl_log_findings(const struct gf_nccl_log *l, const struct gf_nccl_finding **out);
/* True when the last analysis found every path on the best transport the
 * machine allows (as far as it could tell), no bandwidth-costing override,
 * no version mismatch and no NCCL or PyTorch error: `gpufeed nccl log`
 * exits 0 then.  False for NULL. */
GF_API bool gf_nccl_log_clean(const struct gf_nccl_log *l);
/* The analysis per rank, then the findings (text), or as JSON with
 * GF_NCCL_LOG_SCHEMA.  0, -EINVAL (NULL, or not analysed), -EIO, -ENOMEM. */
GF_API int gf_nccl_log_write_text(const struct gf_nccl_log *l, FILE *f);
GF_API int gf_nccl_log_write_json(const struct gf_nccl_log *l, FILE *f);
/* Frees the reader and everything it handed out; NULL does nothing. */
GF_API void gf_nccl_log_free(struct gf_nccl_log *l);

/* Makes NCCL, when this process first initialises it, write its INFO log
 * (subsystems INIT,GRAPH,ENV,NET,P2P,SHM: what the analysis reads) to
 * DIR/nccl.<host>.<pid>.log, by setting NCCL_DEBUG, NCCL_DEBUG_SUBSYS and
 * NCCL_DEBUG_FILE in this process's environment (gpufeed nccl check).  0;
 * -EINVAL for dir NULL or empty, -ENAMETOOLONG for a dir too long for a
 * path, else -errno from setenv, named. */
GF_API int gf_nccl_log_capture(const char *dir);

/* ---- what NCCL chose for a collective ---------------------------------- */

/* The algorithm, protocol and channels NCCL chose for one collective, as
 * its rank 0 logs them under NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=TUNING
 * (src/enqueue.cc, NCCL 2.24 and later):
 *     AllReduce: 8388608 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}
 * Point-to-point operations (ncclSend/ncclRecv: alltoall, sendrecv) log
 * none. */
struct gf_nccl_choice {
	char func[24];			/* "AllReduce", "AllGather", "ReduceScatter", ... */
	unsigned long long bytes;	/* the count times the type's size */
	char algo[24];			/* "RING", "TREE", "NVLS", "NVLS_TREE", "PAT", "COLLNET_DIRECT", ... */
	char proto[16];			/* "LL", "LL128", "SIMPLE" */
	int channel_lo, channel_hi;	/* -1 where NCCL did not say (2.23) */
	int nchannels;			/* channel_hi - channel_lo + 1; 0 unknown */
};

/* One log line (len bytes, any byte, with the prefixes the log reader
 * takes): 1 with *out filled when it is NCCL's choice line (the 2.24+
 * form, or 2.23's "Algo 1 proto 2 time 40.5" with the numbers named and
 * channels unknown), 0 with *out zeroed when not (a field missing or out
 * of range included), -EINVAL for NULL. */
GF_API int gf_nccl_choice_parse(const char *line, size_t len, struct gf_nccl_choice *out);

struct gf_nccl_tuning;

/* Starts catching NCCL's choice lines of this process, for a call the
 * caller then makes outside any timing: sets NCCL_DEBUG=INFO,
 * NCCL_DEBUG_SUBSYS=TUNING and NCCL_DEBUG_FILE (a new file in dir; NULL:
 * $TMPDIR, else /tmp) and has the loaded NCCL read them again
 * (ncclResetDebugInit).  0 with *out set; -ENOSYS when NCCL cannot be
 * loaded; -ENOTSUP when it lacks ncclResetDebugInit (before 2.24: NCCL
 * reads its log settings only once); -EBUSY when NCCL_DEBUG_FILE is
 * already set (NCCL would reopen the user's log and truncate it) or a
 * capture is under way; else -errno naming the file.  Each error says
 * why, for the caller to show where the choice is absent. */
GF_API int gf_nccl_tuning_begin(const char *dir, struct gf_nccl_tuning **out);
/* Stops: the three variables as they were (unset where they were), NCCL
 * told again, then the choice lines caught, up to max into out, and the
 * file removed.  The number of lines caught (>= 0, may exceed max), or
 * -errno (the capture is freed either way); NULL does nothing, returning
 * 0. */
GF_API int gf_nccl_tuning_end(struct gf_nccl_tuning *t, struct gf_nccl_choice *out, int max);

/* ---- end of the NCCL_DEBUG log reader ---------------------------------- */
/* Flight Recorder and RAS readers follow here. */

#ifdef __cplusplus
}
#endif

#endif
