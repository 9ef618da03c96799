/* What NCCL's environment variables mean for a run, shared by the audit
 * (the variables set here) and the log reader (the variables NCCL said it
 * took: "NCCL_xxx set by environment to yyy").  NCCL's "Environment
 * Variables" page: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html */
#ifndef GF_CORE_NCCL_ENV_H
#define GF_CORE_NCCL_ENV_H

#include <stdbool.h>

/* A variable of the "Debugging" section of NCCL's env page: "should not be
 * used in production nor retained in scripts ... may result in sub-optimal
 * behavior, crashes, or hangs". */
bool gf_nccl_debug_var(const char *name);

/* Set to value, name takes bandwidth from every run whatever the machine:
 * a transport switched off (P2P, SHM, InfiniBand, GPUDirect RDMA), the
 * protocol or algorithm pinned, fewer channels or threads.  NULL when it
 * does not, else a short reason ("P2P off: GPU pairs go through host
 * memory (SHM) or the network"). */
const char *gf_nccl_costs_bandwidth(const char *name, const char *value);

#endif
