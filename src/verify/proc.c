/* What verify reads of a process, through core/proc.h: its status, its
 * threads, its memory per node with the policy over most of it, its open
 * GPU device nodes and CUDA_VISIBLE_DEVICES, into struct gf_verify. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strutil.h"
#include "verify/verify_internal.h"

/* The Linux limit on node ids (MAX_NUMNODES with NODES_SHIFT 10). */
#define MAX_NODES 1024

/* A recording holds the processes recorded in it: say where a live one
 * goes. */
static int no_such(const struct gf_proc *p, int ret)
{
	if (ret == -ESRCH && !gf_fs_live(p->fs))
		return gf_error(ret, "%s; to verify a live process against a recorded model, give the model "
				"with --model DIR", gf_last_error());
	return ret;
}

int verify_read_status(const struct gf_proc *p, struct gf_verify *v)
{
	struct gf_proc_status st;
	int ret;

	if ((ret = gf_proc_status(p, &st)))
		return no_such(p, ret);
	v->pid = st.pid;
	gf_strlcpy(v->comm, st.name, sizeof(v->comm));
	if ((ret = gf_proc_user_process(p, &st)))
		return gf_error(ret, "%s: nothing to verify%s", gf_last_error(),
				st.kthread ? "; give the PID of a process that uses GPUs" : "");
	v->cpus_allowed = st.cpus_allowed;
	v->mems_allowed = st.mems_allowed;
	v->mems_allowed_known = st.mems_known;
	return 0;
}

int verify_read_threads(const struct gf_proc *p, struct gf_verify *v)
{
	struct gf_proc_thread *th = NULL;
	int n, vanished, ret;

	if ((ret = gf_proc_threads(p, &th, &n, &vanished)))
		return no_such(p, ret);
	if (n && !(v->threads = calloc((size_t)n, sizeof(*v->threads)))) {
		free(th);
		return gf_error(-ENOMEM, "out of memory");
	}
	for (int i = 0; i < n; i++) {
		struct gf_verify_thread *t = &v->threads[v->nthreads++];

		t->tid = th[i].tid;
		t->cpu = th[i].cpu;
		t->node = -1;
		gf_strlcpy(t->comm, th[i].comm, sizeof(t->comm));
	}
	v->threads_vanished = vanished;
	free(th);
	return 0;
}

/* The policy over most of the private memory (every mapping's when none is
 * private); a line weighs its bytes plus one, so mappings without resident
 * pages still count. */
struct policy_tally {
	char name[16][64];
	unsigned long long weight[16];
	int n;
};

static void tally(struct policy_tally *t, const struct gf_proc_maps_line *l)
{
	int i = 0;

	while (i < t->n && strcmp(t->name[i], l->policy))
		i++;
	if (i == t->n) {
		if (t->n == 16)
			return;
		gf_strlcpy(t->name[t->n++], l->policy, sizeof(t->name[0]));
	}
	t->weight[i] += l->bytes + 1;
}

static void tally_pick(const struct policy_tally *priv, const struct policy_tally *all, struct gf_verify *v)
{
	const struct policy_tally *t = priv->n ? priv : all;
	int best = 0;

	for (int i = 1; i < t->n; i++)
		if (t->weight[i] > t->weight[best])
			best = i;
	if (t->n)
		gf_strlcpy(v->policy, t->name[best], sizeof(v->policy));
	v->policy_mixed = t->n > 1;
}

static int sum_maps(char *text, struct gf_verify *v, unsigned long long *all, unsigned long long *priv)
{
	struct policy_tally *tp = calloc(2, sizeof(*tp));
	char *save = NULL;

	if (!tp)
		return gf_error(-ENOMEM, "out of memory");
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct gf_proc_maps_line l;

		if (gf_proc_parse_maps_line(line, &l, all, MAX_NODES))
			continue;	/* a torn line of a map that changed while read */
		if (!l.file)
			gf_proc_parse_maps_line(line, &l, priv, MAX_NODES);
		tally(&tp[l.file ? 1 : 0], &l);
		v->bytes += l.bytes;
		if (!l.file)
			v->private_bytes += l.bytes;
	}
	tally_pick(&tp[0], &tp[1], v);
	free(tp);
	return 0;
}

int verify_read_numa_maps(const struct gf_proc *p, struct gf_verify *v)
{
	unsigned long long *all, *priv;
	char path[128], *text;
	int ret;

	snprintf(path, sizeof(path), "%s/numa_maps", p->dir);
	if ((ret = gf_fs_read(p->fs, path, &text, NULL)))
		/* Absent while status was there: a kernel without NUMA. */
		return ret == -ENOENT ? 0 : gf_proc_fail(p, "numa_maps", ret);
	all = calloc(MAX_NODES, sizeof(*all));
	priv = calloc(MAX_NODES, sizeof(*priv));
	ret = all && priv ? sum_maps(text, v, all, priv) : gf_error(-ENOMEM, "out of memory");
	for (int n = 0; !ret && n < MAX_NODES; n++) {
		struct gf_verify_node *e;

		if (!all[n])
			continue;
		if (!(e = verify_node(v, n))) {
			ret = gf_error(-ENOMEM, "out of memory");
			break;
		}
		e->bytes = all[n];
		e->private_bytes = priv[n];
	}
	v->numa_maps_known = !ret;
	free(all);
	free(priv);
	free(text);
	return ret;
}

/* The GPU device nodes among the open files. */
struct minors {
	int *m;
	int n, max;
};

static void add_minor(const char *target, void *arg)
{
	struct minors *mi = arg;
	int m = gf_proc_nvidia_minor(target);

	if (m < 0)
		return;
	if (mi->n == mi->max) {
		int max = mi->max ? 2 * mi->max : 16, *grown = realloc(mi->m, (size_t)max * sizeof(*grown));

		if (!grown)
			return;	/* out of memory: the GPUs found so far */
		mi->m = grown;
		mi->max = max;
	}
	mi->m[mi->n++] = m;
}

int verify_read_fds(const struct gf_proc *p, int **minors, int *n)
{
	struct minors mi = { 0 };
	int ret = gf_proc_fds(p, add_minor, &mi);

	*minors = mi.m;
	*n = mi.n;
	return no_such(p, ret);
}

int verify_read_environ(const struct gf_proc *p, struct gf_verify *v)
{
	int ret = gf_proc_getenv(p, "CUDA_VISIBLE_DEVICES", v->cuda_visible, sizeof(v->cuda_visible), &v->environ_known);

	if (ret < 0)
		return no_such(p, ret);
	v->cuda_visible_set = ret == 1;
	return 0;
}
