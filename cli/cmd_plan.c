/* gpufeed plan: the best N-GPU set of this machine (or a recording), and
 * how to run a job on it (docker, env, Kubernetes).  The choice and the
 * writers are in the library (src/place); this parses and prints. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct plan_args {
	int ngpus;
	const char *free;
	enum gf_plan_format format;
	bool format_set;
	const char *image;
	const char *name;
};

static int opt_gpus(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct plan_args *a = ctx;
	char *end;
	long n = strtol(arg, &end, 10);

	if (*end || end == arg || n < 1 || n > 4096)
		return gf_cli_usage(cli, "--gpus: '%s' is not a number of GPUs (1 or more)", arg);
	a->ngpus = (int)n;
	return 0;
}

static int opt_format(struct gf_cli *cli, void *ctx, const char *arg)
{
	struct plan_args *a = ctx;

	if (gf_plan_format_parse(arg, &a->format))
		return gf_cli_usage(cli, "--format: %s", gf_last_error());
	a->format_set = true;
	return 0;
}

static const struct gf_opt plan_opts[] = {
	GF_OPT_CALLBACK('n', "gpus", "N", opt_gpus, "how many GPUs the job needs (required)"),
	GF_OPT_STRING_CHOICE(0, "free", "LIST", struct plan_args, free, GF_VALUES_GPUS,
		      "the GPUs free to choose from, comma-separated\n"
		      "(NVML index, UUID or its prefix, PCI address),\n"
		      "as run's --gpu; default: every GPU"),
	GF_OPT_CALLBACK_CHOICE(0, "format", "FMT", opt_format, "text|json|docker|env|k8s|k8s-plugin",
			"text (default), json, docker (a docker run line),\n"
			"env (shell exports), k8s (a DRA ResourceClaim and\n"
			"a Pod using it) or k8s-plugin (a Pod asking the\n"
			"device plugin for nvidia.com/gpu: N)"),
	GF_OPT_STRING(0, "image", "IMG", struct plan_args, image,
		      "the container image of docker and k8s output\n"
		      "(default: the placeholder IMAGE)"),
	GF_OPT_STRING(0, "name", "NAME", struct plan_args, name,
		      "the Pod's name (the claim is NAME-gpus), an\n"
		      "RFC 1123 subdomain: a-z, 0-9, '-', '.';\n"
		      "default gpufeed-job"),
	GF_OPTS_MODEL,
	GF_OPTS_OUTPUT,
	GF_OPTS_STANDARD,
	GF_OPT_END(),
};

const struct gf_cmd gf_cmd_plan_def = {
	.name = "plan",
	.args = "--gpus N [OPTIONS]",
	.summary = "choose the best N-GPU set and print how to run a job on it",
	.description =
		"Chooses the best set of N GPUs among the free ones, comparing in order: the\n"
		"GPU fabric (pairs without NVLink, NVLinks missing; an NVSwitch box is one\n"
		"fabric where every pair is full), PCIe proximity of the pairs without\n"
		"NVLink (worst class, then the sum: PIX < PXB < PHB < NODE < SYS), NUMA\n"
		"nodes spanned, NIC rails (GPUs sharing their nearest RDMA NIC, then how\n"
		"far it is) and, among sets equal on all of these, what the set leaves free:\n"
		"the best 4-GPU and then 2-GPU set of the remainder, then the PCIe-switch\n"
		"pairs split.  Ties left go to the lowest indices.  Prints why, the CPUs\n"
		"(the GPUs' local CPUs that are allowed) and memory nodes, and with\n"
		"--format a docker run line, shell exports or Kubernetes objects.\n"
		"MIG instances are not placed: plan chooses whole GPUs.\n",
	.opts = plan_opts,
	.exits = { "", "fewer GPUs are free than --gpus asks", "", "a recording that is not one",
		   "the model has no NVIDIA GPU; --nvml=require without NVML;\n"
		   "k8s formats: no core left for pods after the kubelet's\n"
		   "reserved ones" },
	.footer = "Scoring: docs/plan.md.  JSON schema: docs/json-plan.md\n(\"schema\": \"" GF_PLAN_SCHEMA "\").\n",
	.run = gf_cmd_plan,
};

/* --free LIST as positions in t->gpus; -1 when done, else the exit code.
 * The list is read as run's --gpu is (an empty entry, an unknown or repeated
 * GPU are usage errors), and MIG instances are refused: plan places whole
 * GPUs. */
static int parse_free(struct gf_cli *cli, const struct gf_topo *t, const char *list, int **out, int *n)
{
	struct gf_bind_target *tg = calloc((size_t)t->ngpus + 1, sizeof(*tg));
	int *pos = calloc((size_t)t->ngpus + 1, sizeof(int));
	int ret = -1, count;

	*n = 0;
	if (!tg || !pos) {
		ret = gf_cli_fail(cli, -ENOMEM);
		goto out;
	}
	count = gf_bind_parse_targets(t, list, tg, t->ngpus);
	if (count < 0) {
		ret = gf_cli_usage(cli, "--free: %s", gf_last_error());
		goto out;
	}
	for (int i = 0; i < count; i++) {
		if (tg[i].mig >= 0) {
			ret = gf_cli_usage(cli, "--free: '%s' names a MIG instance; plan chooses whole GPUs", list);
			goto out;
		}
		pos[i] = tg[i].gpu;
	}
	*n = count;
	*out = pos;
	pos = NULL;
out:
	free(tg);
	free(pos);
	return ret;
}

static int plan(struct gf_cli *cli, struct gf_topo *t, const struct plan_args *a)
{
	struct gf_plan_options o = GF_PLAN_OPTS_INIT;
	struct gf_plan_write_options w = GF_PLAN_WRITE_OPTS_INIT;
	struct gf_plan *p = NULL;
	int *free_pos = NULL, ret;

	if (a->free && (ret = parse_free(cli, t, a->free, &free_pos, &o.nfree)) >= 0)
		return ret;
	o.ngpus = a->ngpus;
	o.free = free_pos;
	ret = gf_plan_compute(t, &o, &p);
	free(free_pos);
	if (ret == -ERANGE || ret == -ENODEV) {
		fprintf(stderr, "gpufeed plan: %s\n", gf_last_error());
		return ret == -ERANGE ? GF_EXIT_FINDINGS : GF_EXIT_UNAVAILABLE;
	}
	if (ret == -EINVAL)
		return gf_cli_usage(cli, "%s", gf_last_error());
	if (ret)
		return gf_cli_fail(cli, ret);
	w.image = a->image;
	w.name = a->name;
	ret = gf_plan_write(t, p, cli->json ? GF_PLAN_JSON : a->format, &w, stdout);
	gf_plan_free(p);
	if (ret == -EINVAL)	/* an option the writer cannot take (--name) */
		return gf_cli_usage(cli, "%s", gf_last_error());
	return ret || fflush(stdout) ? gf_cli_fail(cli, ret ? ret : -EIO) : GF_EXIT_OK;
}

int gf_cmd_plan(int argc, char **argv)
{
	struct plan_args a = { .ngpus = 0, .format = GF_PLAN_TEXT };
	struct gf_topo *t = NULL;
	struct gf_cli cli;
	int ret;

	gf_cli_init(&cli, "plan");
	if ((ret = gf_cli_parse(&cli, &gf_cmd_plan_def, argc, argv, &a)) >= 0 ||
	    (ret = gf_cli_no_operands(&cli, argc, argv)) >= 0)
		return ret;
	if (!a.ngpus)
		return gf_cli_usage(&cli, "--gpus N is required");
	if (cli.json && a.format_set && a.format != GF_PLAN_JSON)
		return gf_cli_usage(&cli, "--json is --format json: give one of --json and --format");
	/* Placement needs GPUs, NICs, the PCIe tree and NUMA nodes: the CPU
	 * details and the disks are a third of the files a big host has.  A
	 * pod is sized in whole cores beside the kubelet's reserved ones,
	 * which needs the cores. */
	cli.topo.omit = GF_TOPO_OMIT_STORAGE;
	if (a.format != GF_PLAN_K8S && a.format != GF_PLAN_K8S_PLUGIN)
		cli.topo.omit |= GF_TOPO_OMIT_CPU_DETAIL;
	if ((ret = gf_cli_discover(&cli, &t)))
		return ret;
	ret = plan(&cli, t, &a);
	gf_topo_free(t);
	return ret;
}
