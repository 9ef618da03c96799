/* Our own declarations of the NCCL API subset gpufeed uses.  We never link
 * libnccl and the build needs no NCCL headers: libnccl.so.2 is dlopen'ed at
 * run time (src/vendor/nccl/nccl.c).  Types, values and layouts follow
 * NVIDIA's nccl.h (NCCL 2.28, checked against it); on a machine with the
 * header tests/gpu/nccl_abi_check.c compares every one of them. */
#ifndef GF_VENDOR_NCCL_API_H
#define GF_VENDOR_NCCL_API_H

#include <limits.h>
#include <stddef.h>
#include "vendor/cuda/cuda_api.h"

typedef int gf_nccl_result;			/* ncclResult_t */
typedef struct gf_nccl_comm_st *gf_nccl_comm;	/* ncclComm_t */
typedef int gf_nccl_datatype;			/* ncclDataType_t */
typedef int gf_nccl_redop;			/* ncclRedOp_t */

/* ncclUniqueId: opaque bytes rank 0 makes and every rank is handed. */
#define GF_NCCL_UNIQUE_ID_BYTES 128
struct gf_nccl_unique_id {
	char internal[GF_NCCL_UNIQUE_ID_BYTES];
};

/* ncclResult_t */
#define GF_NCCL_SUCCESS			0
#define GF_NCCL_UNHANDLED_CUDA_ERROR	1
#define GF_NCCL_SYSTEM_ERROR		2
#define GF_NCCL_INTERNAL_ERROR		3
#define GF_NCCL_INVALID_ARGUMENT	4
#define GF_NCCL_INVALID_USAGE		5
#define GF_NCCL_REMOTE_ERROR		6
#define GF_NCCL_IN_PROGRESS		7

/* ncclDataType_t */
#define GF_NCCL_INT8		0
#define GF_NCCL_UINT8		1
#define GF_NCCL_INT32		2
#define GF_NCCL_UINT32		3
#define GF_NCCL_INT64		4
#define GF_NCCL_UINT64		5
#define GF_NCCL_FLOAT16		6
#define GF_NCCL_FLOAT32		7
#define GF_NCCL_FLOAT64		8
#define GF_NCCL_BFLOAT16	9
#define GF_NCCL_FLOAT8E4M3	10
#define GF_NCCL_FLOAT8E5M2	11
#define GF_NCCL_NUM_TYPES	12

/* ncclRedOp_t (the built-in ones) */
#define GF_NCCL_SUM	0
#define GF_NCCL_PROD	1
#define GF_NCCL_MAX	2
#define GF_NCCL_MIN	3
#define GF_NCCL_AVG	4

/* NCCL_VERSION(X,Y,Z) for X.Y >= 2.9: ncclGetVersion's number. */
#define GF_NCCL_VERSION(x, y, z) ((x) * 10000 + (y) * 100 + (z))

/* ncclConfig_t as NCCL 2.17 laid it out (ncclConfig_v21700).  NCCL reads a
 * config by its size, magic and version and gives later fields their
 * defaults, so this prefix works with every NCCL since 2.17 and keeps
 * gpufeed off fields it does not use.  `blocking = 0` is what the timeouts
 * need: init and collectives return ncclInProgress and the caller polls
 * ncclCommGetAsyncError, so a dead peer is seen, not waited on. */
#define GF_NCCL_CONFIG_MAGIC 0xcafebeef
#define GF_NCCL_CONFIG_UNDEF_INT INT_MIN
struct gf_nccl_config {
	size_t size;
	unsigned int magic;
	unsigned int version;
	int blocking;
	int cga_cluster_size;
	int min_ctas;
	int max_ctas;
	const char *net_name;
	int split_share;
};
#define GF_NCCL_CONFIG_INIT { sizeof(struct gf_nccl_config), GF_NCCL_CONFIG_MAGIC, \
	GF_NCCL_VERSION(2, 17, 0), GF_NCCL_CONFIG_UNDEF_INT, GF_NCCL_CONFIG_UNDEF_INT, \
	GF_NCCL_CONFIG_UNDEF_INT, GF_NCCL_CONFIG_UNDEF_INT, NULL, GF_NCCL_CONFIG_UNDEF_INT }

#endif
