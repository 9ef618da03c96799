/* Who this process is in a multi-process job, read from its launcher's
 * environment: gpufeed launch and torchrun (RANK, WORLD_SIZE, LOCAL_RANK,
 * LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), Slurm's srun (SLURM_PROCID,
 * SLURM_NTASKS, SLURM_LOCALID, SLURM_NTASKS_PER_NODE...), Open MPI's mpirun
 * (OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE) and MPICH/Hydra
 * (PMI_RANK, PMI_SIZE).  MASTER_ADDR/MASTER_PORT name rank 0's address for
 * every launcher (srun and mpirun users export them, as for PyTorch). */
#ifndef GF_COLL_WORLD_H
#define GF_COLL_WORLD_H

#include <stdbool.h>

struct gf_coll_world {
	int rank, nranks;		/* global */
	int local_rank, local_nranks;	/* on this host */
	char master_addr[256];		/* rank 0's host name or address */
	int port;			/* where rank 0 listens for the others */
	const char *launcher;		/* "gpufeed launch", "torchrun", "srun",
					 * "mpirun", "pmi" */
};

/* Fills *w from the environment.  0; -ENOENT when no launcher's variables
 * are set (a single-process run); -EINVAL with a message naming the
 * variable when they are set but wrong (RANK=3 with WORLD_SIZE=2, no
 * MASTER_ADDR with ranks on more than one host; with every rank on this
 * host rank 0 is 127.0.0.1).  When several launchers' ranks are set the
 * innermost launcher wins: RANK, then OMPI_COMM_WORLD_RANK, PMI_RANK,
 * SLURM_PROCID (in an srun step only).  Under torchrun the agent's store
 * holds MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE=True): rank 0 then
 * listens on MASTER_PORT + 1; GPUFEED_COLL_PORT overrides both. */
int gf_coll_world_from_env(struct gf_coll_world *w);

#endif
