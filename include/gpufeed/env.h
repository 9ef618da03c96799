/* The environment variables gpufeed reads: one registry (NCCL's NCCL_PARAM
 * habit, src/core/env_registry.h).  Every read goes through gf_env_*() with a registered id, so the
 * list in docs/environment.md is complete by construction; a test keeps the
 * document equal to the table and scripts/check-env.sh refuses a getenv call
 * anywhere else in src/ and cli/.
 *
 * Ids are ABI: new variables are appended, none is renumbered or reused. */
#ifndef GPUFEED_ENV_H
#define GPUFEED_ENV_H

#include <stdbool.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gf_env_var {
	GF_ENV_PCI_LOCALITY = 0,	/* GPUFEED_PCI_LOCALITY */
	GF_ENV_NVML_LIBRARY = 1,	/* GPUFEED_NVML_LIBRARY */
	GF_ENV_IO_FAULT = 2,		/* GPUFEED_IO_FAULT */
	GF_ENV_LOG = 3,			/* GPUFEED_LOG */
	GF_ENV_NO_COLOR = 4,		/* NO_COLOR */
	GF_ENV_SOURCE_DATE_EPOCH = 5,	/* SOURCE_DATE_EPOCH */
	GF_ENV_TMPDIR = 6,		/* TMPDIR */
	GF_ENV_TUNE_FAULT = 7,		/* GPUFEED_TUNE_FAULT */
	GF_ENV_PET_NNODES = 8,		/* PET_NNODES */
	GF_ENV_PET_NODE_RANK = 9,	/* PET_NODE_RANK */
	GF_ENV_PET_MASTER_ADDR = 10,	/* PET_MASTER_ADDR */
	GF_ENV_PET_MASTER_PORT = 11,	/* PET_MASTER_PORT */
	GF_ENV_SLURM_STEP_NUM_NODES = 12,	/* SLURM_STEP_NUM_NODES */
	GF_ENV_SLURM_NODEID = 13,	/* SLURM_NODEID */
	GF_ENV_SLURM_STEP_NODELIST = 14,	/* SLURM_STEP_NODELIST */
	GF_ENV_MASTER_ADDR = 15,	/* MASTER_ADDR */
	GF_ENV_MASTER_PORT = 16,	/* MASTER_PORT */
	GF_ENV_CUDA_LIBRARY = 17,	/* GPUFEED_CUDA_LIBRARY */
	GF_ENV_CUFILE_LIBRARY = 18,	/* GPUFEED_CUFILE_LIBRARY */
	GF_ENV_PYTHON_EXEC = 19,	/* PYTHON_EXEC */
	GF_ENV_TORCH_NCCL_ASYNC_ERROR_HANDLING = 20,	/* TORCH_NCCL_ASYNC_ERROR_HANDLING */
	GF_ENV_NCCL_LIBRARY_OVERRIDE = 21,	/* GPUFEED_NCCL_LIBRARY */
	GF_ENV_NCCL_LIBRARY = 22,	/* NCCL_LIBRARY */
	GF_ENV_COLL_PORT = 23,		/* GPUFEED_COLL_PORT */
	GF_ENV_VIRTUAL_ENV = 24,	/* VIRTUAL_ENV */
	GF_ENV_CONDA_PREFIX = 25,	/* CONDA_PREFIX */
	GF_ENV_SEARCH_PATH = 26,	/* PATH */
	GF_ENV_RANK = 27,	/* RANK */
	GF_ENV_WORLD_SIZE = 28,	/* WORLD_SIZE */
	GF_ENV_LOCAL_RANK = 29,	/* LOCAL_RANK */
	GF_ENV_LOCAL_WORLD_SIZE = 30,	/* LOCAL_WORLD_SIZE */
	GF_ENV_TORCHELASTIC_USE_AGENT_STORE = 31,	/* TORCHELASTIC_USE_AGENT_STORE */
	GF_ENV_SLURM_PROCID = 32,	/* SLURM_PROCID */
	GF_ENV_SLURM_NTASKS = 33,	/* SLURM_NTASKS */
	GF_ENV_SLURM_LOCALID = 34,	/* SLURM_LOCALID */
	GF_ENV_SLURM_NTASKS_PER_NODE = 35,	/* SLURM_NTASKS_PER_NODE */
	GF_ENV_SLURM_STEP_TASKS_PER_NODE = 36,	/* SLURM_STEP_TASKS_PER_NODE */
	GF_ENV_OMPI_COMM_WORLD_RANK = 37,	/* OMPI_COMM_WORLD_RANK */
	GF_ENV_OMPI_COMM_WORLD_SIZE = 38,	/* OMPI_COMM_WORLD_SIZE */
	GF_ENV_OMPI_COMM_WORLD_LOCAL_RANK = 39,	/* OMPI_COMM_WORLD_LOCAL_RANK */
	GF_ENV_OMPI_COMM_WORLD_LOCAL_SIZE = 40,	/* OMPI_COMM_WORLD_LOCAL_SIZE */
	GF_ENV_PMI_RANK = 41,	/* PMI_RANK */
	GF_ENV_PMI_SIZE = 42,	/* PMI_SIZE */
	GF_ENV_MPI_LOCALRANKID = 43,	/* MPI_LOCALRANKID */
	GF_ENV_MPI_LOCALNRANKS = 44,	/* MPI_LOCALNRANKS */
	GF_ENV_NCCL_DEBUG = 45,	/* NCCL_DEBUG */
	GF_ENV_NCCL_DEBUG_SUBSYS = 46,	/* NCCL_DEBUG_SUBSYS */
	GF_ENV_NCCL_DEBUG_FILE = 47,	/* NCCL_DEBUG_FILE */
	GF_ENV_COLUMNS = 48,		/* COLUMNS */
	GF_ENV_DIAGNOSE = 49,		/* GPUFEED_DIAGNOSE */
};

/* "GPUFEED_NVML_LIBRARY", or "?" for an id that is not registered. */
GF_API const char *gf_env_name(enum gf_env_var var);
/* The value when set and not empty, else NULL (the caller's default then
 * applies; docs/environment.md says which in words). */
GF_API const char *gf_env_str(enum gf_env_var var);
/* Integer variables: 1 and *out = the value when set, 0 when unset or
 * empty (*out untouched), -EINVAL when not a whole number in range, with
 * gf_last_error() naming the variable ("SOURCE_DATE_EPOCH: not an integer:
 * 'soon'"). */
GF_API int gf_env_int(enum gf_env_var var, long long *out);
/* Flag variables (NO_COLOR): set to anything but "" (NO_COLOR's rule); false
 * for the others and ids that are not registered. */
GF_API bool gf_env_flag(enum gf_env_var var);

#ifdef __cplusplus
}
#endif
#endif
