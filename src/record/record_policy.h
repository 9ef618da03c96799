/* What a recording keeps of what discovery and the checks read: a
 * recording is sent with bug reports, so it holds the machine's
 * configuration, not its users' processes, secrets or libraries. */
#ifndef GF_RECORD_RECORD_POLICY_H
#define GF_RECORD_RECORD_POLICY_H

#include "core/recorder.h"

/* Gives rec the recording's policy (core/recorder.h). */
void gf_record_policy_set(struct gf_recorder *rec);

#endif
