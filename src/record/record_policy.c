/* The recording's policy, asked for every path the readers touch (the
 * checks never know they are recorded):
 *   - the recording's own files (gpufeed-recording.json, and a source
 *     recording's nvml.json) are written by record, not copied;
 *   - /proc/PID only for PID 1 (init: is it systemd, its cgroup) and the
 *     daemons the checks look for by name: the process list stays private;
 *   - of an environ file only systemd's container= (how a container tells
 *     itself): the rest holds secrets;
 *   - in the directories the checks list for library names, those names
 *     (links as links, files empty) and no other entry;
 *   - any other shared library: its name, never its bytes. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/record.h>
#include "audit/audit_record.h"
#include "core/fs.h"
#include "core/strutil.h"
#include "record/record_policy.h"

#define CONTAINER_VAR "container="

/* "/proc/123" or "/proc/123/...": *pid 123. */
static bool process_path(const char *path, long *pid)
{
	char *end;

	if (!gf_starts_with(path, "/proc/") || !isdigit((unsigned char)path[6]))
		return false;
	*pid = strtol(path + 6, &end, 10);
	return !*end || *end == '/';
}

static bool process_kept(const struct gf_fs *fs, long pid)
{
	char path[64], comm[32];

	if (pid == 1)
		return true;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	return gf_fs_read_str(fs, path, comm, sizeof(comm)) == 0 && gf_audit_watches_process(comm);
}

/* libfoo.so, libfoo.so.1, libfoo.so.1.2.3 */
static bool shared_library(const char *name)
{
	for (const char *so = strstr(name, ".so"); so; so = strstr(so + 1, ".so")) {
		const char *p = so + 3;

		if (*p == '.')
			p += strspn(p, "0123456789.");
		if (!*p)
			return true;
	}
	return false;
}

/* A path in a directory the checks list for names: KEEP when it is not in
 * one, else NAME for the names they use and DROP for the rest. */
static enum gf_rec_keep in_name_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) : 0;
	bool listed = false;

	for (const struct gf_audit_name_dir *d = gf_audit_name_dirs; slash && d->dir; d++) {
		if (strlen(d->dir) != dirlen || strncmp(path, d->dir, dirlen))
			continue;
		if (gf_starts_with(slash + 1, d->prefix))
			return GF_REC_NAME;
		listed = true;
	}
	return listed ? GF_REC_DROP : GF_REC_KEEP;
}

static enum gf_rec_keep keep(void *arg, const struct gf_fs *fs, const char *path)
{
	const char *base = strrchr(path, '/');
	enum gf_rec_keep v;
	long pid;

	(void)arg;
	if (!strcmp(path, "/" GF_RECORD_MANIFEST) || !strcmp(path, "/" GF_RECORD_NVML_FILE))
		return GF_REC_DROP;
	if (process_path(path, &pid) && !process_kept(fs, pid))
		return GF_REC_DROP;
	if (gf_starts_with(path, "/proc/") && base && !strcmp(base, "/environ"))
		return GF_REC_EDIT;
	if ((v = in_name_dir(path)) != GF_REC_KEEP)
		return v;
	return base && shared_library(base + 1) ? GF_REC_NAME : GF_REC_KEEP;
}

/* An environ file (NAME=value entries, each ended by a NUL): only container=. */
static char *edit(void *arg, const char *path, const char *data, size_t len, size_t *out_len)
{
	size_t n = 0, want = strlen(CONTAINER_VAR);
	char *out = malloc(len + 1);

	(void)arg;
	(void)path;
	if (!out)
		return NULL;
	for (size_t off = 0; off < len;) {
		size_t l = strnlen(data + off, len - off);

		if (l >= want && !memcmp(data + off, CONTAINER_VAR, want)) {
			memcpy(out + n, data + off, l);
			n += l;
			out[n++] = '\0';
		}
		off += l + 1;
	}
	*out_len = n;
	return out;
}

void gf_record_policy_set(struct gf_recorder *rec)
{
	rec->policy.keep = keep;
	rec->policy.edit = edit;
	rec->policy.arg = NULL;
}
