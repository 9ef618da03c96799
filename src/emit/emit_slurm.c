/* gpufeed config slurm: gres.conf from the model (emit.h). */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "core/error.h"
#include "emit/emit_internal.h"

enum autodetect { AD_OFF, AD_NVML, AD_NVIDIA };

static int parse_autodetect(const char *s, enum autodetect *ad)
{
	if (!s || !strcmp(s, "off"))
		*ad = AD_OFF;
	else if (!strcmp(s, "nvml"))
		*ad = AD_NVML;
	else if (!strcmp(s, "nvidia"))
		*ad = AD_NVIDIA;
	else
		return gf_error(-EINVAL, "AutoDetect '%s': off, nvml or nvidia", s);
	return 0;
}

/* Slurm splits Gres=gpu:TYPE:N on ':' and lists on ','. */
static int check_type(const char *s)
{
	if (!*s)
		return gf_error(-EINVAL, "GPU type is empty");
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			return gf_error(-EINVAL, "GPU type '%s': only letters, digits, '_', '.' and '-'", s);
	return 0;
}

static void gpu_type(const struct gf_emit_options *o, const struct gf_gpu *g, char *buf, size_t size)
{
	if (o->gpu_type)
		snprintf(buf, size, "%s", o->gpu_type);
	else
		emit_gpu_short(g->name, buf, size);
}

static void header(FILE *f, const struct gf_topo *t, enum autodetect ad)
{
	emit_banner(f, "#", t, "gres.conf");
	fputs("# Cores= are Slurm's abstract core ids, not CPU ids: physical cores numbered in\n"
	      "# topology order (package, then core), as lstopo's \"Core L#\"; Slurm maps them to\n"
	      "# CPUs itself, SMT siblings included.  Slurm co-allocates a GPU with CPUs per\n"
	      "# socket (or NUMA node with SlurmdParameters=numa_node_as_socket), not per core;\n"
	      "# --gres-flags=enforce-binding makes Cores= a hard limit.\n"
	      "# Links= : NVLinks to each GPU in the order of these lines (NVML index order; the\n"
	      "# /dev/nvidiaN minors may differ): -1 the GPU itself, 0 no NVLink.  Slurm orders\n"
	      "# the GPUs by where -1 stands and picks sets with the most links between them.\n", f);
	switch (ad) {
	case AD_OFF:
		fputs("# AutoDetect=off: these lines are the whole configuration.\n", f);
		break;
	case AD_NVML:
		fputs("# AutoDetect=nvml: slurmd finds the GPUs and MIG instances itself; the lines below\n"
		      "# are its sanity check (a mismatch drains the node).  Its NVML plugin counts only\n"
		      "# NVLinks whose far end is a GPU, so links through an NVSwitch are written 0.\n", f);
		break;
	case AD_NVIDIA:
		fputs("# AutoDetect=nvidia (24.11+): /proc/driver/nvidia and sysfs, no NVML; it finds no\n"
		      "# NVLinks and no MIG, so Links= is left out.\n", f);
		break;
	}
	fprintf(f, "AutoDetect=%s\n", ad == AD_OFF ? "off" : ad == AD_NVML ? "nvml" : "nvidia");
}

/* The Links= value: the matrix's NV count per peer. */
static void links(FILE *f, const struct gf_topo *t, int g, enum autodetect ad)
{
	fputs(" Links=", f);
	for (int p = 0; p < t->ngpus; p++) {
		int n = p == g ? -1 : emit_nvlinks(t, g, p);

		/* Behind an NVSwitch the far end of every link is the switch:
		 * Slurm's NVML plugin counts 0 there (gpu_nvml.c). */
		if (p != g && ad == AD_NVML && t->nvswitch)
			n = 0;
		fprintf(f, "%s%d", p ? "," : "", n);
	}
}

static void gpu_line(FILE *f, const struct gf_topo *t, const struct emit_cores *c, const struct gf_emit_options *o,
		     int g, enum autodetect ad)
{
	const struct gf_gpu *gpu = &t->gpus[g];
	struct gf_cpuset cores;
	char type[64], list[4096];

	gpu_type(o, gpu, type, sizeof(type));
	if (gpu->minor < 0)
		fprintf(f, "# GPU %d: /dev/nvidia minor unknown; its NVML index is used.\n", gpu->index);
	fprintf(f, "Name=gpu Type=%s File=/dev/nvidia%d", type, gpu->minor >= 0 ? gpu->minor : gpu->index);
	emit_cores_of(c, &gpu->cpus, &cores);
	if (!gf_cpuset_empty(&cores)) {
		gf_cpuset_format_list(&cores, list, sizeof(list));
		fprintf(f, " Cores=%s", list);
	}
	if (ad != AD_NVIDIA)
		links(f, t, g, ad);
	fputc('\n', f);
}

/* slurm.conf's node line, as a comment to copy. */
static void node_hint(FILE *f, const struct gf_topo *t, const struct gf_emit_options *o, const struct emit_cores *c)
{
	char name[65], type[64];
	int sockets = t->cpus.npackages > 0 ? t->cpus.npackages : 1, cpu_nodes = 0;

	/* The short host name, when it is one: else a placeholder, so the
	 * line stays one slurm.conf can take. */
	snprintf(name, sizeof(name), "%s", t->machine.hostname);
	name[strcspn(name, ".")] = '\0';
	if (!*name || name[strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")])
		snprintf(name, sizeof(name), "NODE");
	fprintf(f, "# slurm.conf:\n# NodeName=%s Sockets=%d CoresPerSocket=%d ThreadsPerCore=%d", name, sockets, c->n / sockets,
		t->cpus.threads_per_core > 0 ? t->cpus.threads_per_core : 1);
	if (t->machine.memory_bytes)
		fprintf(f, " RealMemory=%llu", t->machine.memory_bytes / (1024ull * 1024ull));
	/* Gres=gpu:TYPE:N per type, in the order the types first appear. */
	for (int g = 0, sep = 0; g < t->ngpus; g++) {
		int n = 0, first = g;

		gpu_type(o, &t->gpus[g], type, sizeof(type));
		for (int h = 0; h < t->ngpus; h++) {
			char other[64];

			gpu_type(o, &t->gpus[h], other, sizeof(other));
			if (!strcmp(other, type)) {
				n++;
				if (h < first)
					first = h;
			}
		}
		if (first == g)
			fprintf(f, "%sgpu:%s:%d", sep++ ? "," : " Gres=", type, n);
	}
	fputc('\n', f);
	for (int i = 0; i < t->numa.nnodes; i++)
		cpu_nodes += !gf_cpuset_empty(&t->numa.node[i].cpus);
	if (cpu_nodes > sockets)
		fprintf(f, "# %d NUMA nodes on %d sockets (SNC/NPS): SlurmdParameters=numa_node_as_socket lets\n"
			   "# Slurm place GPUs and CPUs by NUMA node rather than by socket.\n", cpu_nodes, sockets);
}

int gf_emit_slurm(const struct gf_topo *t, const struct gf_emit_options *opts, FILE *f)
{
	struct gf_emit_options o;
	struct emit_cores c;
	enum autodetect ad = AD_OFF;
	int ret;

	if (!t || !f)
		return GF_NULL_ARG(!t ? "t" : "f");
	if ((ret = emit_opts(opts, &o, __func__)) || (ret = parse_autodetect(o.autodetect, &ad)) ||
	    (o.gpu_type && (ret = check_type(o.gpu_type))))
		return ret;
	if (!t->ngpus)
		return gf_error(-ENODEV, "no NVIDIA GPU in the model: no gres.conf to write");
	if ((ret = emit_cores_build(t, &c)))
		return ret;
	header(f, t, ad);
	for (int g = 0; g < t->ngpus; g++) {
		if (t->gpus[g].mig_current == 1) {
			fprintf(f, "# GPU %d runs MIG: its instances need MultipleFiles= with the\n"
				   "# /dev/nvidia-caps minors of /proc/driver/nvidia-caps/mig-minors, which gpufeed\n"
				   "# does not read; %s.\n", t->gpus[g].index,
				ad == AD_NVML ? "AutoDetect=nvml lists them" : "--autodetect nvml lets slurmd list them");
			continue;
		}
		gpu_line(f, t, &c, &o, g, ad);
	}
	node_hint(f, t, &o, &c);
	emit_cores_free(&c);
	return emit_done(f);
}
