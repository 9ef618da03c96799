/* What NCCL chose for one collective, read from the message of its TUNING
 * line (the part after "NCCL INFO "): the log reader's EV_ALGO and
 * gf_nccl_choice_parse share this one reading. */
#ifndef GF_NCCL_CHOICE_H
#define GF_NCCL_CHOICE_H

#include <stdbool.h>

#include <gpufeed/nccl.h>

/* true with *c filled when m is the message of NCCL's choice line, in the
 * form of 2.24 and later ("AllReduce: 8388608 Bytes -> Algo RING proto
 * SIMPLE channel{Lo..Hi}={0..23}") or of 2.23 ("AllReduce: 8388608 Bytes
 * -> Algo 1 proto 2 time 40.5": numbers named, channels unknown); false,
 * *c zeroed, for anything else, a number out of range included. */
bool gf_nccl_choice_of(const char *m, struct gf_nccl_choice *c);

#endif
