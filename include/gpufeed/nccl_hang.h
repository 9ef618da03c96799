/* Hangs: which rank?  PyTorch's Flight Recorder dumps and NCCL's RAS
 * output read into one verdict: the rank that did not enter a collective
 * the others did, mismatched collectives and NCCL versions, dead ranks
 * (docs/nccl-hangs.md). */
#ifndef GPUFEED_NCCL_HANG_H
#define GPUFEED_NCCL_HANG_H

#include <stdio.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Flight Recorder dumps of one job, matched across ranks. */
struct gf_nccl_fr;

/* Reads one dump per rank and matches them: each path is a dump file
 * (pickle, as TORCH_NCCL_DUMP_ON_TIMEOUT writes it, or the JSON of
 * _dump_nccl_trace_json), a directory of dumps, or the
 * TORCH_FR_DUMP_TEMP_FILE prefix ("/tmp/nccl_trace_rank_" for
 * /tmp/nccl_trace_rank_0, _1, ...).  A dump's rank is the number its file
 * name ends in.  -ENOENT for a path that names nothing, -EBADMSG or
 * -EPROTO for a file that is not a dump (the message names the file and
 * the byte offset or key), -EINVAL for a name without a rank or two dumps
 * of one rank. */
GF_API int gf_nccl_fr_load(const char *const *paths, int npaths, struct gf_nccl_fr **out);
GF_API void gf_nccl_fr_free(struct gf_nccl_fr *fr);
/* What the ranks disagree on: a rank that did not enter a collective
 * others entered, a member of a process group without a dump, different
 * collectives, sizes or dtypes at one sequence number, different NCCL
 * versions.  0 when all ranks agree. */
GF_API int gf_nccl_fr_finding_count(const struct gf_nccl_fr *fr);
/* The ranks named as missing from a collective (the stragglers), lowest
 * first, into ranks[0..max); returns how many there are (may exceed max). */
GF_API int gf_nccl_fr_missing_ranks(const struct gf_nccl_fr *fr, int *ranks, int max);
/* Per process group, each rank's last enqueued, started and completed
 * collective, then the findings and the verdict. */
GF_API int gf_nccl_fr_print(const struct gf_nccl_fr *fr, FILE *f);
/* The same as one JSON object: dumps, process_groups, findings, verdict. */
GF_API int gf_nccl_fr_write_json(const struct gf_nccl_fr *fr, FILE *f);

/* NCCL RAS output (ncclras, NCCL >= 2.24): the text of `ncclras` and
 * `ncclras -v`, or the JSON of `ncclras -f json`, read into the same kind
 * of verdict.  RAS numbers ranks within each communicator. */
struct gf_nccl_ras;

/* Reads text[0..len) (`name` in messages).  -EBADMSG when it is not
 * ncclras output (the message names the line or offset). */
GF_API int gf_nccl_ras_parse(const char *text, size_t len, const char *name, struct gf_nccl_ras **out);
/* The same from a file, or standard input for "-". */
GF_API int gf_nccl_ras_read(const char *path, struct gf_nccl_ras **out);
/* Asks the RAS service of a running job, as `ncclras -v` does: addr is
 * "host:port" ("[v6]:port"; NULL or "" for localhost:28028, NCCL's default
 * NCCL_RAS_ADDR), timeout_s how long NCCL may wait for its processes
 * (1 to 3600; ncclras says 5).  -ECONNREFUSED and the like when no job
 * listens there, -ETIMEDOUT when it does not answer, -EPROTO when what
 * answers is not RAS. */
GF_API int gf_nccl_ras_query(const char *addr, int timeout_s, struct gf_nccl_ras **out);
GF_API void gf_nccl_ras_free(struct gf_nccl_ras *r);
/* MISMATCH (a rank launched fewer operations: named as missing from the
 * next), INCOMPLETE (ranks that did not answer), DEAD, ERROR: 0 when
 * every communicator is consistent. */
GF_API int gf_nccl_ras_finding_count(const struct gf_nccl_ras *r);
/* Communicator ranks named as missing from an operation, lowest first,
 * into ranks[0..max); returns how many there are. */
GF_API int gf_nccl_ras_missing_ranks(const struct gf_nccl_ras *r, int *ranks, int max);
/* The findings and the verdict. */
GF_API int gf_nccl_ras_print(const struct gf_nccl_ras *r, FILE *f);
/* {"source": "ras", "nccl_version", "findings", "verdict"}. */
GF_API int gf_nccl_ras_write_json(const struct gf_nccl_ras *r, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
