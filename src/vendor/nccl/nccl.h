/* NCCL, loaded at run time behind an ops table (the NVML pattern, core/dl.h).
 * An absent libnccl.so.2 is a normal state: gf_nccl_load() says why and
 * returns -ENOSYS.  Where it looks (docs/design.md, "Vendor libraries"):
 * GPUFEED_NCCL_LIBRARY, then NCCL_LIBRARY, then the soname through the
 * linker's path, then the NCCL that PyTorch ships in the Python
 * environment (site-packages/nvidia/nccl/lib, or nvidia/cuNN/lib of the
 * older bundles). */
#ifndef GF_VENDOR_NCCL_H
#define GF_VENDOR_NCCL_H

#include <stddef.h>
#include "vendor/nccl/nccl_api.h"

#define GF_NCCL_LIBRARY_DEFAULT "libnccl.so.2"

/* Filled by gf_nccl_load() (src/vendor/nccl/nccl.c lists the symbol of
 * each).  Streams are CUDA driver streams (cudaStream_t and CUstream are
 * the same handle). */
struct gf_nccl_ops {
	/* Required. */
	gf_nccl_result (*get_version)(int *version);
	gf_nccl_result (*get_unique_id)(struct gf_nccl_unique_id *id);
	gf_nccl_result (*comm_init_rank)(gf_nccl_comm *comm, int nranks, struct gf_nccl_unique_id id, int rank);
	gf_nccl_result (*comm_init_all)(gf_nccl_comm *comms, int ndev, const int *devlist);
	gf_nccl_result (*comm_destroy)(gf_nccl_comm comm);
	gf_nccl_result (*comm_abort)(gf_nccl_comm comm);
	gf_nccl_result (*comm_get_async_error)(gf_nccl_comm comm, gf_nccl_result *async_error);
	gf_nccl_result (*comm_count)(gf_nccl_comm comm, int *count);
	gf_nccl_result (*comm_cu_device)(gf_nccl_comm comm, int *device);
	gf_nccl_result (*comm_user_rank)(gf_nccl_comm comm, int *rank);
	const char *(*get_error_string)(gf_nccl_result r);
	gf_nccl_result (*group_start)(void);
	gf_nccl_result (*group_end)(void);
	gf_nccl_result (*all_reduce)(const void *sendbuff, void *recvbuff, size_t count, gf_nccl_datatype,
				     gf_nccl_redop, gf_nccl_comm, gf_cu_stream);
	gf_nccl_result (*all_gather)(const void *sendbuff, void *recvbuff, size_t sendcount, gf_nccl_datatype,
				     gf_nccl_comm, gf_cu_stream);
	gf_nccl_result (*reduce_scatter)(const void *sendbuff, void *recvbuff, size_t recvcount, gf_nccl_datatype,
					 gf_nccl_redop, gf_nccl_comm, gf_cu_stream);
	gf_nccl_result (*broadcast)(const void *sendbuff, void *recvbuff, size_t count, gf_nccl_datatype, int root,
				    gf_nccl_comm, gf_cu_stream);
	gf_nccl_result (*reduce)(const void *sendbuff, void *recvbuff, size_t count, gf_nccl_datatype, gf_nccl_redop,
				 int root, gf_nccl_comm, gf_cu_stream);
	gf_nccl_result (*send)(const void *sendbuff, size_t count, gf_nccl_datatype, int peer, gf_nccl_comm,
			       gf_cu_stream);
	gf_nccl_result (*recv)(void *recvbuff, size_t count, gf_nccl_datatype, int peer, gf_nccl_comm, gf_cu_stream);
	/* Optional: NULL when this NCCL lacks them. */
	gf_nccl_result (*comm_init_rank_config)(gf_nccl_comm *comm, int nranks, struct gf_nccl_unique_id id, int rank,
						struct gf_nccl_config *config);	/* 2.14 */
	gf_nccl_result (*comm_finalize)(gf_nccl_comm comm);			/* 2.14 */
	const char *(*get_last_error)(gf_nccl_comm comm);			/* 2.13 */
	/* NCCL reads NCCL_DEBUG, NCCL_DEBUG_SUBSYS and NCCL_DEBUG_FILE again at
	 * its next log call (nccl.h: "Reload environment variables that
	 * determine logging"; 2.24, deprecated in 2.28 but still exported). */
	void (*reset_debug_init)(void);
};

/* Loads libnccl once per process (thread-safe) and points *ops at the
 * table.  -ENOSYS: no library found or one lacking a required symbol; `why`
 * then says where it looked ("libnccl.so.2 not found (GPUFEED_NCCL_LIBRARY,
 * NCCL_LIBRARY unset; not on the linker's path; no PyTorch NCCL under
 * ...)").  Does not touch the GPU. */
int gf_nccl_load(const struct gf_nccl_ops **ops, char *why, size_t whysize);
/* The last place gf_nccl_load looks: libnccl.so.2 of PyTorch's NCCL wheel
 * under $VIRTUAL_ENV, $CONDA_PREFIX, the prefix of the first python3 on
 * PATH, /usr/local/lib/python3.N/dist-packages, /usr/lib/python3/dist-
 * packages (site-packages/nvidia/nccl/lib, or nvidia/cuNN/lib).  0 with its
 * path, or -ENOENT with `looked` "no PyTorch NCCL under ...".  Runs no
 * python.  Exposed for tests (the loader tries the linker's path first). */
int gf_nccl_search_python(char *path, size_t size, char *looked, size_t lsize);
/* The file loaded (its full path when it came from a search); "" before
 * the first load. */
const char *gf_nccl_library(void);
/* ncclGetVersion's number as "2.28.9" into buf; -ENOSYS as gf_nccl_load. */
int gf_nccl_version_string(char *buf, size_t size);
/* Forget the loaded library so the next load searches again.  Tests only:
 * no other thread may be using NCCL. */
void gf_nccl_unload(void);
/* "ncclSystemError: <detail>": the result's name, then ncclGetLastError
 * where this NCCL has it and it says something, else ncclGetErrorString.
 * Thread-local buffer, valid until the next call in this thread. */
const char *gf_nccl_strerror(const struct gf_nccl_ops *ops, gf_nccl_comm comm, gf_nccl_result r);
/* 0 for ncclSuccess; else -EIO (-ENOMEM for a CUDA out-of-memory behind
 * it, -EINVAL for invalid argument/usage, -EINPROGRESS for ncclInProgress)
 * with gf_last_error() "<what>: " and gf_nccl_strerror's words. */
int gf_nccl_check(const struct gf_nccl_ops *ops, gf_nccl_comm comm, gf_nccl_result r, const char *what);

#endif
