/* Private to checks_container.c and checks_nccl.c: what both read. */
#ifndef GF_AUDIT_CHECKS_SHARED_H
#define GF_AUDIT_CHECKS_SHARED_H

#include <stdbool.h>
#include <jansson.h>
#include "audit/audit_internal.h"

/* The recording's manifest (gpufeed-recording.json), NULL live or when
 * absent or malformed.  json_decref it. */
json_t *audit_manifest(struct gf_audit_ctx *c);
/* The GPUs the job uses: *use gets a calloc'd flag per t->gpus entry (free
 * it; NULL when out of memory).  CUDA_VISIBLE_DEVICES, inside a container
 * NVIDIA_VISIBLE_DEVICES, else every GPU.  Returns how many. */
int audit_job_gpus(const struct gf_audit_ctx *c, bool **use);

#endif
