/* A job's coordinates across nodes: options first, then the environment of
 * the scheduler that started this launcher, then one node on this host. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/env.h>
#include <gpufeed/launch.h>
#include "core/env_export.h"
#include "core/error.h"
#include "launch/hostlist.h"

#define DEFAULT_ADDR "127.0.0.1"
#define DEFAULT_PORT 29500

/* *val unless the caller set it (>= 0): the first of vars that is set,
 * else def.  0, or -EINVAL (message set) when one is malformed. */
static int resolve_int(int *val, const char **from, const enum gf_env_var *vars, int nvars, int def)
{
	if (*val >= 0) {
		if (!*from)
			*from = "given";
		return 0;
	}
	for (int i = 0; i < nvars; i++) {
		long long v;
		int ret = gf_env_int(vars[i], &v);

		if (ret < 0)
			return ret;
		if (ret > 0) {
			*val = (int)v;
			*from = gf_env_name(vars[i]);
			return 0;
		}
	}
	*val = def;
	*from = "default";
	return 0;
}

/* Inside an srun step: SLURM_STEP_NUM_NODES exists.  A batch script's own
 * shell has SLURM_NNODES and SLURM_NODEID=0 too, but it is one process on
 * the first node, not one per node. */
static bool in_slurm_step(void)
{
	return gf_env_str(GF_ENV_SLURM_STEP_NUM_NODES) != NULL;
}

static int resolve_addr(struct gf_launch_world *w)
{
	static const enum gf_env_var named[] = { GF_ENV_PET_MASTER_ADDR, GF_ENV_MASTER_ADDR };
	const char *v, *list;
	int ret;

	if (w->master_addr[0]) {
		if (!w->master_addr_from)
			w->master_addr_from = "given";
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		if (!(v = gf_env_str(named[i])))
			continue;
		if (strlen(v) >= sizeof(w->master_addr))
			return gf_error(-EINVAL, "%s: too long", gf_env_name(named[i]));
		strcpy(w->master_addr, v);
		w->master_addr_from = gf_env_name(named[i]);
		return 0;
	}
	if (in_slurm_step() && (list = gf_env_str(GF_ENV_SLURM_STEP_NODELIST))) {
		if ((ret = gf_launch_first_host(list, w->master_addr, sizeof(w->master_addr))))
			return gf_error(ret, "SLURM_STEP_NODELIST: %s", gf_last_error());
		w->master_addr_from = "SLURM_STEP_NODELIST";
		return 0;
	}
	strcpy(w->master_addr, DEFAULT_ADDR);
	w->master_addr_from = "default";
	return 0;
}

GF_API int gf_launch_world_resolve(struct gf_launch_world *w)
{
	static const enum gf_env_var nnodes[] = { GF_ENV_PET_NNODES, GF_ENV_SLURM_STEP_NUM_NODES };
	static const enum gf_env_var rank[] = { GF_ENV_PET_NODE_RANK, GF_ENV_SLURM_NODEID };
	static const enum gf_env_var port[] = { GF_ENV_PET_MASTER_PORT, GF_ENV_MASTER_PORT };
	int slurm = in_slurm_step() ? 2 : 1, ret;

	if (!w)
		return GF_NULL_ARG("w");
	/* What the caller gave: a value, or -1 for "from the environment". */
	if (w->nnodes < -1 || w->nnodes == 0)
		return gf_arg_error(__func__, "nnodes %d: at least 1, or -1 (from the environment)", w->nnodes);
	if (w->node_rank < -1)
		return gf_arg_error(__func__, "node_rank %d: at least 0, or -1 (from the environment)", w->node_rank);
	if (w->master_port < -1 || w->master_port == 0 || w->master_port > 65535)
		return gf_arg_error(__func__, "master_port %d: 1 to 65535, or -1 (from the environment)",
				    w->master_port);
	if (!memchr(w->master_addr, '\0', sizeof(w->master_addr)) || !memchr(w->run_id, '\0', sizeof(w->run_id)))
		return gf_arg_error(__func__, "w: master_addr or run_id without its end");
	if ((ret = resolve_int(&w->nnodes, &w->nnodes_from, nnodes, slurm, 1)) ||
	    (ret = resolve_int(&w->node_rank, &w->node_rank_from, rank, slurm, 0)) ||
	    (ret = resolve_int(&w->master_port, &w->master_port_from, port, 2, DEFAULT_PORT)) || (ret = resolve_addr(w)))
		return ret;
	if (w->nnodes < 1 || w->node_rank >= w->nnodes)
		return gf_error(-EINVAL, "launch: node rank %d (%s) is not within 0..%d (%d nodes, %s)", w->node_rank,
				w->node_rank_from, w->nnodes - 1, w->nnodes, w->nnodes_from);
	if (w->master_port < 1 || w->master_port > 65535)
		return gf_error(-EINVAL, "launch: master port %d (%s) is not within 1..65535", w->master_port,
				w->master_port_from);
	if (!w->run_id[0])
		strcpy(w->run_id, "none");
	if (w->nnodes > 1 && !strcmp(w->master_addr_from, "default"))
		return gf_error(-EINVAL, "launch: %d nodes (%s) but no master address: name the rank-0 node's "
				"host (--master-addr, MASTER_ADDR)", w->nnodes, w->nnodes_from);
	return 0;
}

/* A resolved world and a local rank in it, as the public call func got them. */
static int world_check(const struct gf_launch_world *w, int local_rank, const char *func)
{
	if (!w)
		return gf_arg_error(func, "w is NULL");
	if (local_rank < 0 || local_rank >= w->nproc)
		return gf_arg_error(func, "local rank %d is not within 0..%d", local_rank, w->nproc - 1);
	if (!memchr(w->master_addr, '\0', sizeof(w->master_addr)) || !memchr(w->run_id, '\0', sizeof(w->run_id)))
		return gf_arg_error(func, "w: master_addr or run_id without its end");
	return 0;
}

GF_API int gf_launch_world_env(const struct gf_launch_world *w, int local_rank, struct gf_launch_env *out)
{
	long world, rank;
	int n = 0;

	int ret = world_check(w, local_rank, __func__);

	if (ret)
		return ret;
	if (!out)
		return GF_NULL_ARG("out");
	world = (long)w->nnodes * w->nproc;
	rank = (long)w->node_rank * w->nproc + local_rank;
	/* torchrun's names and order (torch/distributed/elastic/agent/server/api.py) */
#define PUT(nm, fmt, v) (out[n].name = nm, snprintf(out[n].value, sizeof(out[n].value), fmt, v), n++)
	PUT("RANK", "%ld", rank);
	PUT("LOCAL_RANK", "%d", local_rank);
	PUT("WORLD_SIZE", "%ld", world);
	PUT("LOCAL_WORLD_SIZE", "%d", w->nproc);
	PUT("GROUP_RANK", "%d", w->node_rank);
	PUT("GROUP_WORLD_SIZE", "%d", w->nnodes);
	PUT("ROLE_RANK", "%ld", rank);
	PUT("ROLE_WORLD_SIZE", "%ld", world);
	PUT("ROLE_NAME", "%s", "default");
	PUT("MASTER_ADDR", "%s", w->master_addr);
	PUT("MASTER_PORT", "%d", w->master_port);
	PUT("TORCHELASTIC_RUN_ID", "%s", w->run_id[0] ? w->run_id : "none");
	PUT("TORCHELASTIC_USE_AGENT_STORE", "%s", "False");
	/* torchrun's default (LocalElasticAgent's worker environment): a failed
	 * NCCL collective ends the rank rather than hanging it. */
	PUT("TORCH_NCCL_ASYNC_ERROR_HANDLING", "%s",
	    gf_env_str(GF_ENV_TORCH_NCCL_ASYNC_ERROR_HANDLING) ? gf_env_str(GF_ENV_TORCH_NCCL_ASYNC_ERROR_HANDLING) : "1");
#undef PUT
	return n;
}

GF_API int gf_launch_world_setenv(const struct gf_launch_world *w, int local_rank)
{
	struct gf_launch_env env[GF_LAUNCH_NENV];
	int n, ret;

	if ((ret = world_check(w, local_rank, __func__)))
		return ret;
	n = gf_launch_world_env(w, local_rank, env);
	for (int i = 0; i < n; i++)
		if ((ret = gf_env_export(env[i].name, env[i].value)))
			return ret;
	return n < 0 ? n : 0;
}
