/* The plan as a docker run line and as shell exports.  Every value goes
 * through gf_shell_quote: GPU names, UUIDs and image names come from the
 * machine or the user. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/quote.h"
#include "place/place_internal.h"

static int done(FILE *f)
{
	return ferror(f) ? gf_error(-EIO, "writing the plan failed") : 0;
}

/* "--flag VALUE" with VALUE quoted. */
static void flag(FILE *f, const char *name, const char *value)
{
	fprintf(f, " %s ", name);
	gf_shell_quote(f, value);
}

/* The set's GPUs as CUDA_VISIBLE_DEVICES and docker's --gpus name them: by
 * UUID, the same GPUs whatever the ordering; by index where the model has
 * no UUID. */
static void device_list(const struct gf_topo *t, const struct gf_plan *p, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < p->n && len < size; i++) {
		const struct gf_gpu *g = &t->gpus[p->gpu[i]];

		if (*g->uuid)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "", g->uuid);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? "," : "", g->index);
	}
}

int plan_write_docker(const struct gf_topo *t, const struct gf_plan *p, const struct gf_plan_write_options *o,
		      FILE *f)
{
	char list[1024], devs[4096], buf[4200], rails[512];

	device_list(t, p, devs, sizeof(devs));
	/* The inner quotes keep docker's CSV parser from splitting the list
	 * at its commas: --gpus '"device=GPU-...,GPU-..."'.  No -it: run from
	 * a script (no terminal), docker refuses -t. */
	snprintf(buf, sizeof(buf), "\"device=%s\"", devs);
	fprintf(f, "docker run --rm");
	flag(f, "--gpus", buf);
	gf_cpuset_format_list(&p->cpus, list, sizeof(list));
	if (*list)
		flag(f, "--cpuset-cpus", list);
	gf_cpuset_format_list(&p->mems, list, sizeof(list));
	if (*list)
		flag(f, "--cpuset-mems", list);
	snprintf(buf, sizeof(buf), "%llug", plan_shm_gib(p, plan_memory_gib(t, p)));
	flag(f, "--shm-size", buf);
	fprintf(f, " --ulimit memlock=-1");
	/* Docker's seccomp profile allows mbind/set_mempolicy only with
	 * CAP_SYS_NICE: needed when the job binds memory to some nodes. */
	if (p->mems_subset)
		fprintf(f, " --cap-add SYS_NICE");
	plan_rail_list(t, p, rails, sizeof(rails));
	if (*rails)
		fprintf(f, " --network host --device /dev/infiniband");
	fputc(' ', f);
	gf_shell_quote(f, o->image ? o->image : "IMAGE");
	fprintf(f, "%s\n", o->image ? "" : " CMD");
	return done(f);
}

static void export(FILE *f, const char *name, const char *value)
{
	fprintf(f, "export %s=", name);
	gf_shell_quote(f, value);
	fputc('\n', f);
}

int plan_write_env(const struct gf_topo *t, const struct gf_plan *p, FILE *f)
{
	char devs[4096], cpus[4096], mems[1024], rails[512], list[1024];

	device_list(t, p, devs, sizeof(devs));
	plan_index_list(t, p->gpu, p->n, list, sizeof(list));
	gf_cpuset_format_list(&p->cpus, cpus, sizeof(cpus));
	gf_cpuset_format_list(&p->mems, mems, sizeof(mems));
	plan_rail_list(t, p, rails, sizeof(rails));
	fprintf(f, "# gpufeed plan: GPUs %s\n", list);
	export(f, "CUDA_VISIBLE_DEVICES", devs);
	export(f, "CUDA_DEVICE_ORDER", "PCI_BUS_ID");
	if (*rails) {
		/* '=' makes NCCL match the names exactly, not as prefixes
		 * (mlx5_1 would match mlx5_10). */
		char hca[520];

		snprintf(hca, sizeof(hca), "=%s", rails);
		export(f, "NCCL_IB_HCA", hca);
	}
	export(f, "GPUFEED_PLAN_GPUS", list);
	export(f, "GPUFEED_PLAN_CPUS", cpus);
	export(f, "GPUFEED_PLAN_MEMS", mems);
	fprintf(f, "# bind a command to them:\n#   gpufeed run --gpu %s -- CMD\n", list);
	if (*cpus && *mems)
		fprintf(f, "#   numactl --physcpubind=%s --membind=%s CMD\n", cpus, mems);
	return done(f);
}
