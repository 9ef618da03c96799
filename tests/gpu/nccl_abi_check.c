/* Compares our NCCL declarations (src/vendor/nccl/nccl_api.h and the ops
 * table in nccl.h) with NVIDIA's nccl.h: sizes, the offsets of the config
 * fields we declare, enum values, the unique id, and every function of the
 * ops table against the real prototype.  Built where nccl.h is
 * (tests/gpu/nccl-abi-check.sh, run by run-gpu-tests.sh): a mismatch fails the
 * build, so success prints one line.
 *
 * The prototypes are checked from one list: each entry gives a function's
 * parameters with the types as parameters, spelt once; the list is
 * expanded with our types against the ops table's field and with NCCL's
 * types against nccl.h's function, and the pairs of types are checked to
 * be the same size and kind below. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <nccl.h>

#include "vendor/nccl/nccl.h"

#define SAME_SIZE(ours, theirs) _Static_assert(sizeof(ours) == sizeof(theirs), #ours " size")
#define SAME_VAL(ours, theirs) _Static_assert((ours) == (theirs), #ours " value")
#define SAME_OFFSET(field, theirs) \
	_Static_assert(offsetof(struct gf_nccl_config, field) == offsetof(ncclConfig_t, theirs), #field " offset")
#define SAME_TYPE(a, b) __builtin_types_compatible_p(a, b)

/* The pairs the list is expanded with: ours and NCCL's. */
SAME_SIZE(gf_nccl_result, ncclResult_t);
SAME_SIZE(gf_nccl_datatype, ncclDataType_t);
SAME_SIZE(gf_nccl_redop, ncclRedOp_t);
SAME_SIZE(gf_nccl_comm, ncclComm_t);
SAME_SIZE(gf_cu_stream, cudaStream_t);
SAME_SIZE(struct gf_nccl_unique_id, ncclUniqueId);
_Static_assert(_Alignof(struct gf_nccl_unique_id) == _Alignof(ncclUniqueId), "unique id alignment");
/* Enums are passed as int by the x86-64 and aarch64 calling conventions. */
_Static_assert((ncclResult_t)-1 < 0 || sizeof(ncclResult_t) == sizeof(int), "ncclResult_t is an int");

/* F(field, function, parameters...) with R, COMM, DT, OP, STREAM, UID, CFG
 * the result, communicator, datatype, reduction, stream, unique id and
 * config types. */
#define NCCL_FUNCTIONS(F, R, COMM, DT, OP, STREAM, UID, CFG) \
	F(get_version, ncclGetVersion, R, int *) \
	F(get_unique_id, ncclGetUniqueId, R, UID *) \
	F(comm_init_rank, ncclCommInitRank, R, COMM *, int, UID, int) \
	F(comm_init_all, ncclCommInitAll, R, COMM *, int, const int *) \
	F(comm_destroy, ncclCommDestroy, R, COMM) \
	F(comm_abort, ncclCommAbort, R, COMM) \
	F(comm_get_async_error, ncclCommGetAsyncError, R, COMM, R *) \
	F(comm_count, ncclCommCount, R, const COMM, int *) \
	F(comm_cu_device, ncclCommCuDevice, R, const COMM, int *) \
	F(comm_user_rank, ncclCommUserRank, R, const COMM, int *) \
	F(get_error_string, ncclGetErrorString, const char *, R) \
	F(group_start, ncclGroupStart, R, void) \
	F(group_end, ncclGroupEnd, R, void) \
	F(all_reduce, ncclAllReduce, R, const void *, void *, size_t, DT, OP, COMM, STREAM) \
	F(all_gather, ncclAllGather, R, const void *, void *, size_t, DT, COMM, STREAM) \
	F(reduce_scatter, ncclReduceScatter, R, const void *, void *, size_t, DT, OP, COMM, STREAM) \
	F(broadcast, ncclBroadcast, R, const void *, void *, size_t, DT, int, COMM, STREAM) \
	F(reduce, ncclReduce, R, const void *, void *, size_t, DT, OP, int, COMM, STREAM) \
	F(send, ncclSend, R, const void *, size_t, DT, int, COMM, STREAM) \
	F(recv, ncclRecv, R, void *, size_t, DT, int, COMM, STREAM) \
	F(comm_init_rank_config, ncclCommInitRankConfig, R, COMM *, int, UID, int, CFG *) \
	F(comm_finalize, ncclCommFinalize, R, COMM) \
	F(get_last_error, ncclGetLastError, const char *, COMM)

#define OURS(field, fn, ret, ...) \
	_Static_assert(SAME_TYPE(__typeof__(((struct gf_nccl_ops *)0)->field), ret (*)(__VA_ARGS__)), \
		       "gf_nccl_ops." #field " is not the list's signature");
#define THEIRS(field, fn, ret, ...) \
	_Static_assert(SAME_TYPE(__typeof__(&fn), ret (*)(__VA_ARGS__)), #fn " differs from nccl.h");

/* ncclComm_t's const in ncclCommCount(const ncclComm_t, ...) is the
 * pointer's own, which a prototype ignores: both spellings are the same type. */
NCCL_FUNCTIONS(OURS, gf_nccl_result, gf_nccl_comm, gf_nccl_datatype, gf_nccl_redop, gf_cu_stream,
	       struct gf_nccl_unique_id, struct gf_nccl_config)
NCCL_FUNCTIONS(THEIRS, ncclResult_t, ncclComm_t, ncclDataType_t, ncclRedOp_t, cudaStream_t, ncclUniqueId, ncclConfig_t)

/* ncclResetDebugInit (2.24): deprecated in 2.28's nccl.h, still exported;
 * "()" and "(void)" are the same type in C. */
_Static_assert(SAME_TYPE(__typeof__(((struct gf_nccl_ops *)0)->reset_debug_init), void (*)(void)),
	       "gf_nccl_ops.reset_debug_init is not void (*)(void)");
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
_Static_assert(SAME_TYPE(__typeof__(&ncclResetDebugInit), void (*)(void)), "ncclResetDebugInit differs from nccl.h");
#pragma GCC diagnostic pop
#endif

SAME_VAL(GF_NCCL_UNIQUE_ID_BYTES, NCCL_UNIQUE_ID_BYTES);

SAME_VAL(GF_NCCL_SUCCESS, ncclSuccess);
SAME_VAL(GF_NCCL_UNHANDLED_CUDA_ERROR, ncclUnhandledCudaError);
SAME_VAL(GF_NCCL_SYSTEM_ERROR, ncclSystemError);
SAME_VAL(GF_NCCL_INTERNAL_ERROR, ncclInternalError);
SAME_VAL(GF_NCCL_INVALID_ARGUMENT, ncclInvalidArgument);
SAME_VAL(GF_NCCL_INVALID_USAGE, ncclInvalidUsage);
SAME_VAL(GF_NCCL_REMOTE_ERROR, ncclRemoteError);
SAME_VAL(GF_NCCL_IN_PROGRESS, ncclInProgress);

SAME_VAL(GF_NCCL_INT8, ncclInt8);
SAME_VAL(GF_NCCL_UINT8, ncclUint8);
SAME_VAL(GF_NCCL_INT32, ncclInt32);
SAME_VAL(GF_NCCL_UINT32, ncclUint32);
SAME_VAL(GF_NCCL_INT64, ncclInt64);
SAME_VAL(GF_NCCL_UINT64, ncclUint64);
SAME_VAL(GF_NCCL_FLOAT16, ncclFloat16);
SAME_VAL(GF_NCCL_FLOAT32, ncclFloat32);
SAME_VAL(GF_NCCL_FLOAT64, ncclFloat64);
SAME_VAL(GF_NCCL_BFLOAT16, ncclBfloat16);
SAME_VAL(GF_NCCL_FLOAT8E4M3, ncclFloat8e4m3);
SAME_VAL(GF_NCCL_FLOAT8E5M2, ncclFloat8e5m2);
SAME_VAL(GF_NCCL_NUM_TYPES, ncclNumTypes);

SAME_VAL(GF_NCCL_SUM, ncclSum);
SAME_VAL(GF_NCCL_PROD, ncclProd);
SAME_VAL(GF_NCCL_MAX, ncclMax);
SAME_VAL(GF_NCCL_MIN, ncclMin);
SAME_VAL(GF_NCCL_AVG, ncclAvg);

SAME_VAL(GF_NCCL_VERSION(2, 28, 9), NCCL_VERSION(2, 28, 9));
SAME_VAL(GF_NCCL_VERSION(2, 17, 0), NCCL_VERSION(2, 17, 0));

/* ncclConfig_t: our prefix (the 2.17 layout), where nccl.h has it. */
SAME_VAL(GF_NCCL_CONFIG_MAGIC, 0xcafebeef);
SAME_VAL(GF_NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT);
_Static_assert(sizeof(struct gf_nccl_config) <= sizeof(ncclConfig_t), "our config is a prefix");
SAME_OFFSET(size, size);
SAME_OFFSET(magic, magic);
SAME_OFFSET(version, version);
SAME_OFFSET(blocking, blocking);
SAME_OFFSET(cga_cluster_size, cgaClusterSize);
SAME_OFFSET(min_ctas, minCTAs);
SAME_OFFSET(max_ctas, maxCTAs);
SAME_OFFSET(net_name, netName);
SAME_OFFSET(split_share, splitShare);

int main(void)
{
	ncclConfig_t theirs = NCCL_CONFIG_INITIALIZER;
	struct gf_nccl_config ours = GF_NCCL_CONFIG_INIT;

	/* The initializers agree on what they share (the magic, the unset
	 * values); size and version are each header's own. */
	if (ours.magic != theirs.magic || ours.blocking != theirs.blocking ||
	    ours.cga_cluster_size != theirs.cgaClusterSize || ours.min_ctas != theirs.minCTAs ||
	    ours.max_ctas != theirs.maxCTAs || ours.split_share != theirs.splitShare) {
		printf("nccl_abi_check: GF_NCCL_CONFIG_INIT differs from NCCL_CONFIG_INITIALIZER\n");
		return 1;
	}
	printf("nccl_abi_check: nccl_api.h and the ops table match nccl.h %d.%d.%d\n", NCCL_MAJOR, NCCL_MINOR,
	       NCCL_PATCH);
	return 0;
}
