/* NCCL's own log written where gpufeed reads it: the whole INFO log from
 * the first initialisation (gf_nccl_log_capture, for nccl check), or the
 * choice lines of one untimed call (gf_nccl_tuning_begin/end, for bench
 * coll).  NCCL reads NCCL_DEBUG* once, at its first log call; since 2.24
 * ncclResetDebugInit has it read them again at the next one (2.28.9:
 * src/debug.cc, ncclResetDebugInitInternal), which is what lets a capture
 * start and stop around one call instead of slowing every timed one. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpufeed/env.h>
#include <gpufeed/nccl.h>
#include "core/env_export.h"
#include "core/error.h"
#include "vendor/nccl/nccl.h"

/* NCCL_DEBUG_FILE expands %h and %p (and %% to %): a '%' of the directory
 * is doubled so NCCL opens the file named. */
static int debug_file_value(const char *file, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = file; *p; p++) {
		if (n + 3 > size)
			return gf_error(-ENAMETOOLONG, "NCCL_DEBUG_FILE: '%.40s...' is too long for a path", file);
		if (*p == '%')
			out[n++] = '%';
		out[n++] = *p;
	}
	out[n] = '\0';
	return 0;
}

static int export_debug(const char *subsys, const char *file)
{
	int rc;

	if ((rc = gf_env_export("NCCL_DEBUG", "INFO")) || (rc = gf_env_export("NCCL_DEBUG_SUBSYS", subsys)) ||
	    (rc = gf_env_export("NCCL_DEBUG_FILE", file)))
		return rc;
	return 0;
}

GF_API int gf_nccl_log_capture(const char *dir)
{
	char file[PATH_MAX];

	if (!dir)
		return gf_error(-EINVAL, "gf_nccl_log_capture: dir is NULL");
	if (!dir[0])
		return gf_error(-EINVAL, "gf_nccl_log_capture: dir is empty");
	/* %h and %p: NCCL puts the host and pid in each process's file name */
	if ((size_t)snprintf(file, sizeof(file), "%s/nccl.%%h.%%p.log", dir) >= sizeof(file))
		return gf_error(-ENAMETOOLONG, "gf_nccl_log_capture: '%.40s...' is too long for a path", dir);
	return export_debug("INIT,GRAPH,ENV,NET,P2P,SHM", file);
}

/* ---- one call's choice lines ---- */

static const enum gf_env_var debug_vars[] = { GF_ENV_NCCL_DEBUG, GF_ENV_NCCL_DEBUG_SUBSYS, GF_ENV_NCCL_DEBUG_FILE };
#define NVARS (sizeof(debug_vars) / sizeof(debug_vars[0]))

struct gf_nccl_tuning {
	const struct gf_nccl_ops *ops;
	int fd;
	char path[PATH_MAX];
	char *saved[NVARS];		/* NULL: was unset */
};

static int capturing;

/* The variables as they were before the capture; the first error. */
static int restore(struct gf_nccl_tuning *t)
{
	int rc = 0, e;

	for (size_t i = 0; i < NVARS; i++)
		if ((e = gf_env_export(gf_env_name(debug_vars[i]), t->saved[i])) && !rc)
			rc = e;
	return rc;
}

static void tuning_free(struct gf_nccl_tuning *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->path[0])
		unlink(t->path);
	for (size_t i = 0; i < NVARS; i++)
		free(t->saved[i]);
	free(t);
	__atomic_store_n(&capturing, 0, __ATOMIC_RELEASE);
}

GF_API int gf_nccl_tuning_begin(const char *dir, struct gf_nccl_tuning **out)
{
	const struct gf_nccl_ops *ops;
	struct gf_nccl_tuning *t;
	char why[512], ver[32] = "?", value[PATH_MAX];
	const char *user;
	int rc;

	if (!out)
		return gf_error(-EINVAL, "gf_nccl_tuning_begin: out is NULL");
	*out = NULL;
	if (gf_nccl_load(&ops, why, sizeof(why)))
		return gf_error(-ENOSYS, "%s", why);
	if (!ops->reset_debug_init) {
		(void)gf_nccl_version_string(ver, sizeof(ver));
		return gf_error(-ENOTSUP, "NCCL %s has no ncclResetDebugInit (2.24 and later): it reads NCCL_DEBUG "
				"once, so its choice cannot be logged for one untimed call", ver);
	}
	if (__atomic_exchange_n(&capturing, 1, __ATOMIC_ACQ_REL))
		return gf_error(-EBUSY, "gf_nccl_tuning_begin: a capture is under way");
	if ((user = gf_env_str(GF_ENV_NCCL_DEBUG_FILE))) {
		__atomic_store_n(&capturing, 0, __ATOMIC_RELEASE);
		return gf_error(-EBUSY, "NCCL_DEBUG_FILE is set (%.200s): NCCL would reopen that log and truncate "
				"it", user);
	}
	if (!(t = calloc(1, sizeof(*t)))) {
		__atomic_store_n(&capturing, 0, __ATOMIC_RELEASE);
		return gf_error(-ENOMEM, "gf_nccl_tuning_begin: out of memory");
	}
	t->ops = ops;
	t->fd = -1;
	if (!dir && !(dir = gf_env_str(GF_ENV_TMPDIR)))
		dir = "/tmp";
	if ((size_t)snprintf(t->path, sizeof(t->path), "%s/gpufeed-nccl-tuning.XXXXXX", dir) >= sizeof(t->path)) {
		t->path[0] = '\0';
		rc = gf_error(-ENAMETOOLONG, "gf_nccl_tuning_begin: '%.40s...' is too long for a path", dir);
		goto fail;
	}
	/* a new file of ours (O_EXCL): NCCL's fopen "w" then opens it, not a
	 * file someone put at a guessable name */
	if ((t->fd = mkostemp(t->path, O_CLOEXEC)) < 0) {
		rc = gf_error_errno(-errno, t->path);
		t->path[0] = '\0';
		goto fail;
	}
	for (size_t i = 0; i < NVARS; i++) {
		const char *v = gf_env_str(debug_vars[i]);

		if (v && !(t->saved[i] = strdup(v))) {
			rc = gf_error(-ENOMEM, "gf_nccl_tuning_begin: out of memory");
			goto fail;
		}
	}
	if ((rc = debug_file_value(t->path, value, sizeof(value))))
		goto fail;
	if ((rc = export_debug("TUNING", value))) {
		(void)restore(t);
		goto fail;
	}
	ops->reset_debug_init();
	*out = t;
	return 0;
fail:
	tuning_free(t);
	return rc;
}

GF_API int gf_nccl_tuning_end(struct gf_nccl_tuning *t, struct gf_nccl_choice *out, int max)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int rc, n = 0;

	if (!t)
		return 0;
	rc = restore(t);
	t->ops->reset_debug_init();
	if (rc)
		goto out;
	/* NCCL wrote through its own descriptor (line-buffered); this one reads
	 * the same file from its start */
	if (lseek(t->fd, 0, SEEK_SET) < 0 || !(f = fdopen(t->fd, "r"))) {
		rc = gf_error_errno(-errno, t->path);
		goto out;
	}
	t->fd = -1;
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct gf_nccl_choice c;

		if (gf_nccl_choice_parse(line, (size_t)len, &c) != 1)
			continue;
		if (out && n < max)
			out[n] = c;
		if (n < INT_MAX)
			n++;
	}
	if (ferror(f))
		rc = gf_error(-EIO, "%s: reading NCCL's log failed", t->path);
	fclose(f);
	free(line);
out:
	tuning_free(t);
	return rc ? rc : n;
}
