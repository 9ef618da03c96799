/* Reading what a process really has, from /proc/PID through the fs layer
 * (so a test tree or a recording with a fake /proc/PID reads the same). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/strutil.h"
#include "verify/verify_internal.h"

/* The Linux limit on node ids (MAX_NUMNODES with NODES_SHIFT 10). */
#define MAX_NODES 1024

void verify_why_denied(unsigned reader, long long owner, char *buf, size_t size)
{
	if (reader == 0)
		snprintf(buf, size, "even as root: the kernel's ptrace access check refused it (a process of "
				    "another user namespace, one that is not dumpable, no CAP_SYS_PTRACE in a "
				    "container, or a security module: Yama's ptrace_scope, AppArmor, SELinux)");
	else if (owner >= 0 && owner != reader)
		snprintf(buf, size, "it runs as uid %lld: reading it needs root or the same user", owner);
	else if (owner == reader)
		snprintf(buf, size, "although it runs as your user: it is not dumpable (setuid, or "
				    "prctl(PR_SET_DUMPABLE, 0)), or a security module (Yama's ptrace_scope) forbids it");
	else
		snprintf(buf, size, "reading another user's process needs root or the same user");
}

/* The uid the process runs as (status's real Uid), -1 when unreadable. */
static long long proc_owner(const struct verify_proc *p)
{
	char path[128], val[64], *text;
	long long uid = -1;

	snprintf(path, sizeof(path), "%s/status", p->dir);
	if (gf_fs_read(p->fs, path, &text, NULL))
		return -1;
	if (!gf_kv_find(text, "Uid", val, sizeof(val)) || gf_parse_ll(strtok(val, " \t"), &uid))
		uid = -1;
	free(text);
	return uid;
}

/* A failed read of the process's file `rel`: absent is "no such process",
 * EACCES/EPERM say what refused it and who may read it. */
static int proc_fail(const struct verify_proc *p, const char *rel, int err)
{
	char real[PATH_MAX], path[128], why[320];

	snprintf(path, sizeof(path), "%s/%s", p->dir, rel);
	gf_fs_real(p->fs, path, real, sizeof(real));
	if (err == -ENOENT || err == -ESRCH || err == -ENOTDIR)
		return gf_error(-ESRCH, "%s: no such process (%s is absent)%s", p->dir + 6, real,
				gf_fs_live(p->fs) ? "" : "; to verify a live process against a recorded model, "
							 "give the model with --model DIR");
	if (err != -EACCES && err != -EPERM)
		return err;
	if (!gf_fs_live(p->fs))
		return gf_error(err, "%s: %s (%s): the recorded file is not readable", real, strerror(-err),
				strerrorname_np(-err));
	verify_why_denied((unsigned)geteuid(), proc_owner(p), why, sizeof(why));
	return gf_error(-EACCES, "%s: %s (%s) %s", real, strerror(-err), strerrorname_np(-err), why);
}

/* A kernel thread (status's Kthread line; where the kernel has none, a live status
 * without VmSize) or a zombie: no memory map, environment or open files,
 * which would otherwise read as "no such process". */
static int not_a_user_process(const struct verify_proc *p, const char *status, const char *comm)
{
	char val[64];
	bool kthread;

	if (gf_kv_find(status, "State", val, sizeof(val)) && val[0] == 'Z')
		return gf_error(-ESRCH, "%s (%s) has exited and is not reaped yet (a zombie): nothing is left "
					"to verify", p->dir + 6, comm);
	if (gf_kv_find(status, "Kthread", val, sizeof(val)))
		kthread = !strcmp(val, "1");
	else
		kthread = gf_fs_live(p->fs) && !gf_kv_find(status, "VmSize", val, sizeof(val));
	if (kthread)
		return gf_error(-EINVAL, "%s (%s) is a kernel thread: it has no memory map, environment or "
					 "open files to verify; give the PID of a process that uses GPUs", p->dir + 6, comm);
	return 0;
}

int verify_read_status(const struct verify_proc *p, struct gf_verify *v)
{
	char path[128], val[GF_CPUSET_MAX * 2];
	char *text;
	long long pid;
	int ret;

	snprintf(path, sizeof(path), "%s/status", p->dir);
	if ((ret = gf_fs_read(p->fs, path, &text, NULL)))
		return proc_fail(p, "status", ret);
	if (gf_kv_find(text, "Pid", val, sizeof(val)) && !gf_parse_ll(val, &pid))
		v->pid = (int)pid;
	if (gf_kv_find(text, "Name", val, sizeof(val)))
		gf_strlcpy(v->comm, val, sizeof(v->comm));
	if ((ret = not_a_user_process(p, text, v->comm))) {
		free(text);
		return ret;
	}
	if (!gf_kv_find(text, "Cpus_allowed_list", val, sizeof(val)) ||
	    gf_cpuset_parse_list(&v->cpus_allowed, val)) {
		free(text);
		gf_fs_real(p->fs, path, val, sizeof(val));
		return gf_error(-EBADMSG, "%s: no readable Cpus_allowed_list", val);
	}
	v->mems_allowed_known = gf_kv_find(text, "Mems_allowed_list", val, sizeof(val)) &&
				!gf_cpuset_parse_list(&v->mems_allowed, val);
	free(text);
	return 0;
}

/* One thread: 1 read, 0 gone (it exited after the listing), or -errno. */
static int read_thread(const struct verify_proc *p, const char *tid, struct gf_verify_thread *th)
{
	char path[192], real[PATH_MAX];
	char *text;
	int ret;

	snprintf(path, sizeof(path), "%s/task/%s/stat", p->dir, tid);
	if ((ret = gf_fs_read(p->fs, path, &text, NULL)))
		return ret == -ENOENT || ret == -ESRCH ? 0 : proc_fail(p, "task", ret);
	th->tid = atoi(tid);
	th->node = -1;
	ret = verify_parse_stat(text, th->comm, sizeof(th->comm), &th->cpu);
	free(text);
	if (ret) {
		gf_fs_real(p->fs, path, real, sizeof(real));
		return gf_error(-EBADMSG, "%s: no processor field (39)", real);
	}
	return 1;
}

int verify_read_threads(const struct verify_proc *p, struct gf_verify *v)
{
	char path[128], **tids;
	int n, ret;

	snprintf(path, sizeof(path), "%s/task", p->dir);
	if ((ret = gf_fs_list(p->fs, path, &tids, &n)))
		return proc_fail(p, "task", ret);
	if (n && !(v->threads = calloc((size_t)n, sizeof(*v->threads)))) {
		gf_strv_free(tids, n);
		return gf_error(-ENOMEM, "out of memory");
	}
	for (int i = 0; i < n; i++) {
		ret = read_thread(p, tids[i], &v->threads[v->nthreads]);
		if (ret < 0)
			break;
		if (ret)
			v->nthreads++;
		else
			v->threads_vanished++;
		ret = 0;
	}
	gf_strv_free(tids, n);
	return ret;
}

/* The policy over most of the private memory (every mapping's when none is
 * private); a line weighs its bytes plus one, so mappings without resident
 * pages still count. */
struct policy_tally {
	char name[16][64];
	unsigned long long weight[16];
	int n;
};

static void tally(struct policy_tally *t, const struct verify_maps_line *l)
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
		struct verify_maps_line l;

		if (verify_parse_maps_line(line, &l, all, MAX_NODES))
			continue;	/* a torn line of a map that changed while read */
		if (!l.file)
			verify_parse_maps_line(line, &l, priv, MAX_NODES);
		tally(&tp[l.file ? 1 : 0], &l);
		v->bytes += l.bytes;
		if (!l.file)
			v->private_bytes += l.bytes;
	}
	tally_pick(&tp[0], &tp[1], v);
	free(tp);
	return 0;
}

int verify_read_numa_maps(const struct verify_proc *p, struct gf_verify *v)
{
	unsigned long long *all, *priv;
	char path[128], *text;
	int ret;

	snprintf(path, sizeof(path), "%s/numa_maps", p->dir);
	if ((ret = gf_fs_read(p->fs, path, &text, NULL)))
		/* Absent while status was there: a kernel without NUMA. */
		return ret == -ENOENT ? 0 : proc_fail(p, "numa_maps", ret);
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

int verify_read_fds(const struct verify_proc *p, int **minors, int *n)
{
	char path[128], link[PATH_MAX], **fds;
	int nfd, ret;

	*minors = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/fd", p->dir);
	if ((ret = gf_fs_list(p->fs, path, &fds, &nfd)))
		return ret == -ENOENT ? 0 : proc_fail(p, "fd", ret);
	if (nfd && !(*minors = calloc((size_t)nfd, sizeof(**minors)))) {
		gf_strv_free(fds, nfd);
		return gf_error(-ENOMEM, "out of memory");
	}
	for (int i = 0; i < nfd; i++) {
		int m;

		snprintf(path, sizeof(path), "%s/fd/%s", p->dir, fds[i]);
		/* A file closed since the listing is skipped. */
		if (gf_fs_readlink(p->fs, path, link, sizeof(link)) < 0)
			continue;
		if ((m = verify_dev_minor(link)) >= 0)
			(*minors)[(*n)++] = m;
	}
	gf_strv_free(fds, nfd);
	return 0;
}

int verify_read_environ(const struct verify_proc *p, struct gf_verify *v)
{
	static const char key[] = "CUDA_VISIBLE_DEVICES=";
	char path[128], *text;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/environ", p->dir);
	if ((ret = gf_fs_read(p->fs, path, &text, &len)))
		/* A test tree may have none; a kernel thread has an empty one. */
		return ret == -ENOENT ? 0 : proc_fail(p, "environ", ret);
	v->environ_known = true;
	for (size_t off = 0; off < len; off += strlen(text + off) + 1)
		if (gf_starts_with(text + off, key)) {
			v->cuda_visible_set = true;
			gf_strlcpy(v->cuda_visible, text + off + strlen(key), sizeof(v->cuda_visible));
		}
	free(text);
	return 0;
}
