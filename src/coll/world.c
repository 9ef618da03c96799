/* Who this process is in a multi-process job, from its launcher's
 * variables.  Launchers nest (torchrun inside an srun step, mpirun inside a
 * Slurm allocation), and the innermost one started this process, so the
 * families are tried innermost first: torchrun / gpufeed launch, Open MPI,
 * MPICH's Hydra (PMI), Slurm.  The first family whose rank variable is set
 * is the one read, whole; the others are ignored. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/env.h>
#include "coll/world.h"
#include "core/error.h"

#define DEFAULT_ADDR "127.0.0.1"
#define DEFAULT_PORT 29500

/* One launcher's variables; local_nranks == rank where the count comes
 * from Slurm's tasks per node instead of one variable. */
struct family {
	const char *launcher;
	enum gf_env_var rank, nranks, local_rank, local_nranks;
};

/* *out from a variable that must be set once the family is chosen. */
static int need_int(enum gf_env_var var, enum gf_env_var because, int *out)
{
	long long v;
	int ret = gf_env_int(var, &v);

	if (ret < 0)
		return ret;
	if (!ret)
		return gf_error(-EINVAL, "%s is set but %s is not", gf_env_name(because), gf_env_name(var));
	*out = (int)v;
	return 0;
}

/* Inside an srun step (not a batch script's own shell, which has
 * SLURM_PROCID=0 and SLURM_NTASKS too but is one process): as launch. */
static bool in_slurm_step(void)
{
	return gf_env_str(GF_ENV_SLURM_STEP_NUM_NODES) != NULL;
}

/* This node's entry of SLURM_STEP_TASKS_PER_NODE, "2(x3),1": two tasks on
 * each of the first three nodes, one on the fourth (srun(1), OUTPUT
 * ENVIRONMENT VARIABLES). */
static int slurm_tasks_here(const char *list, int node, int *out)
{
	const char *p = list;
	const char *name = gf_env_name(GF_ENV_SLURM_STEP_TASKS_PER_NODE);

	while (*p) {
		char *end;
		long n = strtol(p, &end, 10), times = 1;

		if (end == p || n < 1 || n > 1000000)
			return gf_error(-EINVAL, "%s: malformed: '%s'", name, list);
		p = end;
		if (!strncmp(p, "(x", 2)) {
			times = strtol(p + 2, &end, 10);
			if (end == p + 2 || times < 1 || *end != ')')
				return gf_error(-EINVAL, "%s: malformed: '%s'", name, list);
			p = end + 1;
		}
		if (node < times) {
			*out = (int)n;
			return 0;
		}
		node -= (int)times;
		if (*p == ',')
			p++;
		else if (*p)
			return gf_error(-EINVAL, "%s: malformed: '%s'", name, list);
	}
	return gf_error(-EINVAL, "%s: '%s' has no entry for SLURM_NODEID's node", name, list);
}

static int slurm_local_nranks(int *out)
{
	const char *list = gf_env_str(GF_ENV_SLURM_STEP_TASKS_PER_NODE);
	long long node = 0;
	int ret;

	if (list) {
		if ((ret = gf_env_int(GF_ENV_SLURM_NODEID, &node)) < 0)
			return ret;
		return slurm_tasks_here(list, (int)node, out);
	}
	return need_int(GF_ENV_SLURM_NTASKS_PER_NODE, GF_ENV_SLURM_PROCID, out);
}

static int read_family(const struct family *f, struct gf_coll_world *w)
{
	int ret;

	if ((ret = need_int(f->nranks, f->rank, &w->nranks)) || (ret = need_int(f->rank, f->rank, &w->rank)) ||
	    (ret = need_int(f->local_rank, f->rank, &w->local_rank)))
		return ret;
	if (f->local_nranks == f->rank)
		ret = slurm_local_nranks(&w->local_nranks);
	else
		ret = need_int(f->local_nranks, f->rank, &w->local_nranks);
	if (ret)
		return ret;
	if (w->rank >= w->nranks)
		return gf_error(-EINVAL, "%s=%d is not below %s=%d", gf_env_name(f->rank), w->rank,
				gf_env_name(f->nranks), w->nranks);
	if (w->local_nranks > w->nranks || w->local_rank >= w->local_nranks)
		return gf_error(-EINVAL, "%s=%d with %d ranks on this host (%s) of %d (%s)", gf_env_name(f->local_rank),
				w->local_rank, w->local_nranks,
				f->local_nranks == f->rank ? "Slurm's tasks per node" : gf_env_name(f->local_nranks),
				w->nranks, gf_env_name(f->nranks));
	w->launcher = f->launcher;
	return 0;
}

/* torchrun writes str(bool): "True" / "False". */
static bool agent_store(void)
{
	const char *v = gf_env_str(GF_ENV_TORCHELASTIC_USE_AGENT_STORE);

	return v && (!strcmp(v, "True") || !strcmp(v, "true") || !strcmp(v, "1"));
}

static int resolve_port(struct gf_coll_world *w, bool torch_agent)
{
	long long v;
	int ret;

	if ((ret = gf_env_int(GF_ENV_COLL_PORT, &v)) < 0)
		return ret;
	if (ret) {
		w->port = (int)v;
		return 0;
	}
	if ((ret = gf_env_int(GF_ENV_MASTER_PORT, &v)) < 0)
		return ret;
	w->port = ret ? (int)v : DEFAULT_PORT;
	if (torch_agent) {
		/* The agent's TCPStore already listens on MASTER_PORT. */
		if (w->port == 65535)
			return gf_error(-EINVAL, "MASTER_PORT=65535 under torchrun's agent store: no port above it "
					"for the ranks (set GPUFEED_COLL_PORT)");
		w->port++;
	}
	return 0;
}

static int resolve_addr(struct gf_coll_world *w)
{
	const char *v = gf_env_str(GF_ENV_MASTER_ADDR);

	if (v) {
		if (strlen(v) >= sizeof(w->master_addr))
			return gf_error(-EINVAL, "MASTER_ADDR: longer than %zu characters", sizeof(w->master_addr) - 1);
		strcpy(w->master_addr, v);
		return 0;
	}
	/* Every rank on this host: rank 0 is here too. */
	if (w->local_nranks == w->nranks) {
		strcpy(w->master_addr, DEFAULT_ADDR);
		return 0;
	}
	return gf_error(-EINVAL, "%s: %d ranks on more than one host (%d here) but MASTER_ADDR is not set: "
			"export rank 0's host name or address", w->launcher, w->nranks, w->local_nranks);
}

int gf_coll_world_from_env(struct gf_coll_world *w)
{
	static const struct family families[] = {
		{ "torchrun", GF_ENV_RANK, GF_ENV_WORLD_SIZE, GF_ENV_LOCAL_RANK, GF_ENV_LOCAL_WORLD_SIZE },
		{ "mpirun", GF_ENV_OMPI_COMM_WORLD_RANK, GF_ENV_OMPI_COMM_WORLD_SIZE, GF_ENV_OMPI_COMM_WORLD_LOCAL_RANK,
		  GF_ENV_OMPI_COMM_WORLD_LOCAL_SIZE },
		{ "pmi", GF_ENV_PMI_RANK, GF_ENV_PMI_SIZE, GF_ENV_MPI_LOCALRANKID, GF_ENV_MPI_LOCALNRANKS },
		/* local_nranks == rank: from the tasks per node (slurm_local_nranks) */
		{ "srun", GF_ENV_SLURM_PROCID, GF_ENV_SLURM_NTASKS, GF_ENV_SLURM_LOCALID, GF_ENV_SLURM_PROCID },
	};
	const struct family *f = NULL;
	bool torch_agent = false;
	int ret;

	if (!w)
		return GF_NULL_ARG("w");
	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]) && !f; i++) {
		if (!gf_env_str(families[i].rank))
			continue;
		if (families[i].rank == GF_ENV_SLURM_PROCID && !in_slurm_step())
			continue;
		f = &families[i];
	}
	if (!f)
		return gf_error(-ENOENT, "no launcher's rank is set (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, "
				"SLURM_PROCID in an srun step): a single-process run");
	if ((ret = read_family(f, w)))
		return ret;
	if (f->rank == GF_ENV_RANK) {
		/* gpufeed launch exports torchrun's variables with the agent
		 * store off (src/launch/world.c): nothing listens on MASTER_PORT. */
		torch_agent = agent_store();
		w->launcher = torch_agent ? "torchrun" : "gpufeed launch";
	}
	if ((ret = resolve_port(w, torch_agent)) || (ret = resolve_addr(w)))
		return ret;
	return 0;
}
