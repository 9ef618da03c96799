/* What the Flight Recorder and RAS readers conclude, in one shape: the
 * findings (a kind, the ranks named, a sentence) and the ranks named as
 * missing from a collective, printed and written as JSON the same way. */
#ifndef GF_NCCL_VERDICT_H
#define GF_NCCL_VERDICT_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "core/error.h"

struct gf_nccl_verdict {
	json_t *findings;		/* [{kind, ranks, message}] */
	int missing[64];		/* ranks missing from a collective, sorted */
	int nmissing;			/* how many (may exceed the array) */
};

int gf_nccl_verdict_init(struct gf_nccl_verdict *v);
void gf_nccl_verdict_fini(struct gf_nccl_verdict *v);
/* One finding; `missing` names its ranks as missing from a collective. */
int gf_nccl_verdict_add(struct gf_nccl_verdict *v, const char *kind, const int *ranks, int nranks,
			bool missing, const char *fmt, ...) GF_PRINTF(6, 7);
/* The public *_missing_ranks after its own NULL check: `func` names the
 * caller in the message for a bad ranks/max. */
int gf_nccl_verdict_missing(const struct gf_nccl_verdict *v, int *ranks, int max, const char *func);
/* The findings, then "verdict: ..." */
void gf_nccl_verdict_print(const struct gf_nccl_verdict *v, FILE *f);
/* {"findings": [...], "verdict": {"agree": bool, "missing_ranks": [...], "message": "..."}}
 * set into obj. */
int gf_nccl_verdict_json(const struct gf_nccl_verdict *v, json_t *obj);
/* The same, then obj written to f (indented, a newline after) and
 * released; obj NULL is -ENOMEM (so a failed json_pack can be handed on). */
int gf_nccl_verdict_write(const struct gf_nccl_verdict *v, json_t *obj, FILE *f);

#endif
