/* Reading a process's /proc files (core/proc.h), and the parsers of their
 * lines, kept apart from the reads so the unit tests can feed them odd
 * lines. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/proc.h"
#include "core/strutil.h"

void gf_proc_init(struct gf_proc *p, const struct gf_fs *fs, int pid)
{
	p->fs = fs;
	if (pid > 0)
		snprintf(p->dir, sizeof(p->dir), "/proc/%d", pid);
	else
		snprintf(p->dir, sizeof(p->dir), "/proc/self");
}

void gf_proc_why_denied(unsigned reader, long long owner, char *buf, size_t size)
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
static long long proc_owner(const struct gf_proc *p)
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

int gf_proc_fail(const struct gf_proc *p, const char *rel, int err)
{
	char real[PATH_MAX], path[128], why[320];

	snprintf(path, sizeof(path), "%s/%s", p->dir, rel);
	gf_fs_real(p->fs, path, real, sizeof(real));
	if (err == -ENOENT || err == -ESRCH || err == -ENOTDIR)
		return gf_error(-ESRCH, "%s: no such process (%s is absent)", p->dir + 6, real);
	if (err != -EACCES && err != -EPERM)
		return err;
	if (!gf_fs_live(p->fs))
		return gf_error(err, "%s: %s (%s): the recorded file is not readable", real, strerror(-err),
				strerrorname_np(-err));
	gf_proc_why_denied((unsigned)geteuid(), proc_owner(p), why, sizeof(why));
	return gf_error(-EACCES, "%s: %s (%s) %s", real, strerror(-err), strerrorname_np(-err), why);
}

int gf_proc_read(const struct gf_proc *p, const char *rel, char **text, size_t *len)
{
	char path[192];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", p->dir, rel);
	if ((ret = gf_fs_read(p->fs, path, text, len)))
		return gf_proc_fail(p, rel, ret);
	return 0;
}

int gf_proc_status(const struct gf_proc *p, struct gf_proc_status *st)
{
	char val[GF_CPUSET_MAX * 2], real[PATH_MAX], path[128];
	char *text;
	long long v;
	int ret;

	memset(st, 0, sizeof(*st));
	st->uid = -1;
	if ((ret = gf_proc_read(p, "status", &text, NULL)))
		return ret;
	if (gf_kv_find(text, "Pid", val, sizeof(val)) && !gf_parse_ll(val, &v))
		st->pid = (int)v;
	if (gf_kv_find(text, "Name", val, sizeof(val)))
		gf_strlcpy(st->name, val, sizeof(st->name));
	if (gf_kv_find(text, "State", val, sizeof(val)))
		st->state = val[0];
	if (gf_kv_find(text, "Uid", val, sizeof(val)) && !gf_parse_ll(strtok(val, " \t"), &v))
		st->uid = v;
	/* A kernel thread: status's Kthread line; where the kernel has none, a
	 * live status without VmSize. */
	if (gf_kv_find(text, "Kthread", val, sizeof(val)))
		st->kthread = !strcmp(val, "1");
	else
		st->kthread = gf_fs_live(p->fs) && !gf_kv_find(text, "VmSize", val, sizeof(val));
	if (!gf_kv_find(text, "Cpus_allowed_list", val, sizeof(val)) ||
	    gf_cpuset_parse_list(&st->cpus_allowed, val)) {
		free(text);
		snprintf(path, sizeof(path), "%s/status", p->dir);
		gf_fs_real(p->fs, path, real, sizeof(real));
		return gf_error(-EBADMSG, "%s: no readable Cpus_allowed_list", real);
	}
	st->mems_known = gf_kv_find(text, "Mems_allowed_list", val, sizeof(val)) &&
			 !gf_cpuset_parse_list(&st->mems_allowed, val);
	free(text);
	return 0;
}

int gf_proc_user_process(const struct gf_proc *p, const struct gf_proc_status *st)
{
	if (st->state == 'Z')
		return gf_error(-ESRCH, "%s (%s) has exited and is not reaped yet (a zombie): it has no memory "
					"map, environment or open files", p->dir + 6, st->name);
	if (st->kthread)
		return gf_error(-EINVAL, "%s (%s) is a kernel thread: it has no memory map, environment or "
					 "open files", p->dir + 6, st->name);
	return 0;
}

/* One thread: 1 read, 0 gone (it exited after the listing), or -errno. */
static int read_thread(const struct gf_proc *p, const char *tid, struct gf_proc_thread *th)
{
	char path[192], real[PATH_MAX];
	char *text;
	int ret;

	snprintf(path, sizeof(path), "%s/task/%s/stat", p->dir, tid);
	if ((ret = gf_fs_read(p->fs, path, &text, NULL)))
		return ret == -ENOENT || ret == -ESRCH ? 0 : gf_proc_fail(p, "task", ret);
	th->tid = atoi(tid);
	ret = gf_proc_parse_stat(text, th->comm, sizeof(th->comm), &th->cpu);
	free(text);
	if (ret) {
		gf_fs_real(p->fs, path, real, sizeof(real));
		return gf_error(-EBADMSG, "%s: no processor field (39)", real);
	}
	return 1;
}

int gf_proc_threads(const struct gf_proc *p, struct gf_proc_thread **out, int *n, int *vanished)
{
	char path[128], **tids;
	int nt, ret;

	*out = NULL;
	*n = *vanished = 0;
	snprintf(path, sizeof(path), "%s/task", p->dir);
	if ((ret = gf_fs_list(p->fs, path, &tids, &nt)))
		return gf_proc_fail(p, "task", ret);
	if (nt && !(*out = calloc((size_t)nt, sizeof(**out)))) {
		gf_strv_free(tids, nt);
		return gf_error(-ENOMEM, "out of memory");
	}
	for (int i = 0; i < nt; i++) {
		ret = read_thread(p, tids[i], &(*out)[*n]);
		if (ret < 0)
			break;
		if (ret)
			(*n)++;
		else
			(*vanished)++;
		ret = 0;
	}
	gf_strv_free(tids, nt);
	return ret;
}

int gf_proc_fds(const struct gf_proc *p, void (*fn)(const char *target, void *arg), void *arg)
{
	char path[128], link[PATH_MAX], **fds;
	int nfd, ret;

	snprintf(path, sizeof(path), "%s/fd", p->dir);
	if ((ret = gf_fs_list(p->fs, path, &fds, &nfd)))
		return ret == -ENOENT ? 0 : gf_proc_fail(p, "fd", ret);
	for (int i = 0; i < nfd; i++) {
		snprintf(path, sizeof(path), "%s/fd/%s", p->dir, fds[i]);
		/* A file closed since the listing is skipped. */
		if (gf_fs_readlink(p->fs, path, link, sizeof(link)) >= 0)
			fn(link, arg);
	}
	gf_strv_free(fds, nfd);
	return 0;
}

int gf_proc_getenv(const struct gf_proc *p, const char *key, char *buf, size_t size, bool *known)
{
	size_t klen = strlen(key), len;
	char path[128], *text;
	int ret, found = 0;

	*known = false;
	snprintf(path, sizeof(path), "%s/environ", p->dir);
	if ((ret = gf_fs_read(p->fs, path, &text, &len)))
		/* A test tree may have none; a kernel thread has an empty one. */
		return ret == -ENOENT ? 0 : gf_proc_fail(p, "environ", ret);
	*known = true;
	for (size_t off = 0; off < len; off += strlen(text + off) + 1)
		if (!strncmp(text + off, key, klen) && text[off + klen] == '=') {
			gf_strlcpy(buf, text + off + klen + 1, size);
			found = 1;
		}
	free(text);
	return found;
}

/* Field 39 of proc(5)'s stat is `processor`; fields 1 and 2 are the pid and
 * the comm in parentheses, so it is the 37th field after the comm. */
#define STAT_PROCESSOR_AFTER_COMM 37

int gf_proc_parse_stat(const char *line, char *comm, size_t size, int *cpu)
{
	/* The comm may hold spaces and parentheses ("a) (b"): it runs from the
	 * first '(' to the last ')', which the kernel writes after it. */
	const char *open = strchr(line, '('), *close = strrchr(line, ')'), *p;
	size_t n;

	if (!open || !close || close < open)
		return -EBADMSG;
	n = (size_t)(close - open - 1);
	if (n >= size)
		n = size - 1;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	p = close + 1;
	for (int field = 1; field < STAT_PROCESSOR_AFTER_COMM; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -EBADMSG;
		p += strcspn(p, " ");
	}
	while (*p == ' ')
		p++;
	char *end;
	long v = strtol(p, &end, 10);

	if (end == p || v < -1 || v >= GF_CPUSET_MAX)
		return -EBADMSG;
	*cpu = (int)v;
	return 0;
}

/* The policy follows the address and may hold one space: mpol_to_str()
 * writes "prefer (many)" and "weighted interleave", then "=static" or
 * "=relative" flags, then ":nodes". */
static const char *parse_policy(const char *p, char *out, size_t size)
{
	static const char *const spaced[] = { "prefer (many)", "weighted interleave" };
	size_t n = strcspn(p, " \n");

	for (size_t i = 0; i < sizeof(spaced) / sizeof(spaced[0]); i++)
		if (gf_starts_with(p, spaced[i]))
			n = strlen(spaced[i]) + strcspn(p + strlen(spaced[i]), " \n");
	if (!n)
		return NULL;
	snprintf(out, size, "%.*s", (int)n, p);
	return p + n;
}

int gf_proc_parse_maps_line(const char *line, struct gf_proc_maps_line *out, unsigned long long *bytes, int nmax)
{
	unsigned long long pages[64] = { 0 }, page_kb = 4;
	int node[64], nn = 0;
	const char *p = line;

	memset(out, 0, sizeof(*out));
	if (!isxdigit((unsigned char)*p))
		return -EBADMSG;
	p += strspn(p, "0123456789abcdefABCDEF");
	if (*p != ' ' || !(p = parse_policy(p + 1, out->policy, sizeof(out->policy))))
		return -EBADMSG;
	while (*p && *p != '\n') {
		size_t len;
		char *end;

		p += strspn(p, " ");
		len = strcspn(p, " \n");
		if (gf_starts_with(p, "file="))
			out->file = true;	/* the path may hold spaces: a later
						 * word is still key=value or a keyword */
		else if (gf_starts_with(p, "kernelpagesize_kB="))
			page_kb = strtoull(p + 18, NULL, 10);
		else if (p[0] == 'N' && isdigit((unsigned char)p[1]) && nn < 64) {
			long id = strtol(p + 1, &end, 10);

			if (*end == '=' && id >= 0) {
				node[nn] = (int)id;
				pages[nn++] = strtoull(end + 1, NULL, 10);
			}
		}
		p += len;
	}
	for (int i = 0; i < nn; i++) {
		unsigned long long b = pages[i] * page_kb * 1024;

		out->bytes += b;
		if (bytes && node[i] < nmax)
			bytes[node[i]] += b;
	}
	return 0;
}

/* A minor number: digits only (no sign, no hex), below the cap base. */
static int minor_of(const char *digits)
{
	size_t n = strspn(digits, "0123456789");

	if (!n || digits[n] || n > 6)
		return -1;
	return atoi(digits);
}

int gf_proc_nvidia_minor(const char *target)
{
	static const char cap[] = "/dev/nvidia-caps/nvidia-cap", gpu[] = "/dev/nvidia";
	int m;

	if (gf_starts_with(target, cap))
		return (m = minor_of(target + strlen(cap))) < 0 ? -1 : GF_PROC_CAP_BASE + m;
	/* /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia-modeset: not a GPU. */
	if (gf_starts_with(target, gpu))
		return minor_of(target + strlen(gpu));
	return -1;
}
