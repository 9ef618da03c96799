/* The helpers a check uses to read the machine and fill its results. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/strutil.h"
#include "audit/audit_internal.h"
#include "audit/audit_record.h"

struct gf_check_result *audit_result(struct gf_audit_ctx *c, const char *subject)
{
	struct gf_audit *a = c->a;
	struct gf_check_result *r, *grown;

	if ((a->nresults & (a->nresults - 1)) == 0) {	/* 0, 1, 2, 4, ...: grow */
		size_t cap = a->nresults ? (size_t)a->nresults * 2 : 8;

		grown = realloc(a->results, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		a->results = grown;
	}
	r = &a->results[a->nresults++];
	memset(r, 0, sizeof(*r));
	r->check = &c->cur->info;
	r->status = GF_CHECK_PASS;
	gf_strlcpy(r->subject, subject ? subject : "", sizeof(r->subject));
	return r;
}

void audit_status(struct gf_check_result *r, enum gf_check_status s)
{
	if (r)
		r->status = s;
}

#define AUDIT_SETTER(name, field)                                              \
	void name(struct gf_check_result *r, const char *fmt, ...)              \
	{                                                                       \
		va_list ap;                                                     \
		if (!r)                                                         \
			return;                                                 \
		va_start(ap, fmt);                                              \
		vsnprintf(r->field, sizeof(r->field), fmt, ap);                 \
		va_end(ap);                                                     \
	}
AUDIT_SETTER(audit_observed, observed)
AUDIT_SETTER(audit_expected, expected)
AUDIT_SETTER(audit_source, source)
AUDIT_SETTER(audit_note, note)
AUDIT_SETTER(audit_fix, fix)
AUDIT_SETTER(audit_persist, persist)

void audit_na(struct gf_check_result *r, const char *fmt, ...)
{
	va_list ap;

	if (!r)
		return;
	r->status = GF_CHECK_NA;
	va_start(ap, fmt);
	vsnprintf(r->note, sizeof(r->note), fmt, ap);
	va_end(ap);
}

void audit_error(struct gf_check_result *r, const char *fmt, ...)
{
	va_list ap;

	if (!r)
		return;
	r->status = GF_CHECK_ERROR;
	va_start(ap, fmt);
	vsnprintf(r->note, sizeof(r->note), fmt, ap);
	va_end(ap);
}

void audit_drop_fix(struct gf_check_result *r)
{
	free(r->path);
	free(r->value);
	free(r->persist_line);
	r->path = r->value = r->persist_line = NULL;
	r->persist_file[0] = '\0';
}

/* The write tune makes, whole (a value may be longer than any fixed
 * buffer: a reserved-ports list); no fix at all when out of memory. */
static bool set_write(struct gf_check_result *r, enum gf_fix_class fc, const char *path, const char *value,
		      const char *persist_file, const char *persist_line)
{
	audit_drop_fix(r);
	r->path = strdup(path);
	r->value = strdup(value);
	r->persist_line = strdup(persist_line ? persist_line : "");
	if (!r->path || !r->value || !r->persist_line) {
		audit_drop_fix(r);
		return false;
	}
	gf_strlcpy(r->persist_file, persist_file ? persist_file : "", sizeof(r->persist_file));
	r->fix_class = fc;
	return true;
}

/* The command (or, for persist, the line) a person would use: shown only
 * whole, never cut (a cut value is another value); else where the whole
 * value is.  tune and --json carry the value itself. */
static void fix_text(char *out, size_t size, const char *cmd, bool persist, const char *value)
{
	if (out[0])
		return;
	if (strlen(cmd) < size)
		gf_strlcpy(out, cmd, size);
	else if (persist)
		snprintf(out, size, "the line with the %zu-character value that 'gpufeed check --json' shows (its "
			 "action's persist_line), or run 'gpufeed tune --persist'", strlen(value));
	else
		snprintf(out, size, "write the %zu-character value that 'gpufeed check --json' shows (its action) to "
			 "its path, or run 'gpufeed tune'", strlen(value));
}

void audit_safe_fix(struct gf_check_result *r, const char *path, const char *value, const char *persist_file,
		    const char *persist_line)
{
	char *cmd = NULL;

	if (!r || !set_write(r, GF_FIX_SAFE, path, value, persist_file, persist_line))
		return;
	if (asprintf(&cmd, "echo %s > %s", value, path) >= 0)
		fix_text(r->fix, sizeof(r->fix), cmd, false, value);
	free(cmd);
	cmd = NULL;
	if (persist_file && persist_line && persist_file[0] && asprintf(&cmd, "'%s' in %s", persist_line, persist_file) >= 0)
		fix_text(r->persist, sizeof(r->persist), cmd, true, value);
	free(cmd);
}

void audit_named_fix(struct gf_check_result *r, const char *path, const char *value)
{
	char *cmd = NULL;

	if (!r || !set_write(r, GF_FIX_NAMED, path, value, NULL, NULL))
		return;
	if (asprintf(&cmd, "echo %s > %s", value, path) >= 0)
		fix_text(r->fix, sizeof(r->fix), cmd, false, value);
	free(cmd);
}

void audit_sysctl_fix(struct gf_check_result *r, const char *key, const char *value)
{
	char *path = NULL, *line = NULL, *fix = NULL;

	if (asprintf(&path, "/proc/sys/%s", key) < 0)
		path = NULL;
	for (char *p = path ? path + strlen("/proc/sys/") : NULL; p && *p; p++)
		if (*p == '.')
			*p = '/';
	if (asprintf(&line, "%s = %s", key, value) < 0)
		line = NULL;
	if (asprintf(&fix, strchr(value, ' ') || strchr(value, '\t') ? "sysctl -w %s='%s'" : "sysctl -w %s=%s", key,
		     value) < 0)
		fix = NULL;
	if (r && path && line && fix) {
		fix_text(r->fix, sizeof(r->fix), fix, false, value);
		audit_safe_fix(r, path, value, GF_PERSIST_SYSCTL, line);
	}
	free(path);
	free(line);
	free(fix);
}

/* Status and note for a read that failed with err. */
static int read_failed(struct gf_audit_ctx *c, struct gf_check_result *r, const char *path, int err)
{
	char real[512];

	if (!r)
		return err;
	gf_fs_real(&c->fs, path, real, sizeof(real));
	switch (err) {
	case -ENOENT:
	case -ENOTDIR:
		audit_na(r, "%s is absent here", real);
		break;
	case -EACCES:
	case -EPERM:
		r->status = GF_CHECK_NEEDS_ROOT;
		snprintf(r->note, sizeof(r->note), "%s: permission denied (run as root)", real);
		break;
	default:
		audit_error(r, "%s", gf_last_error()[0] ? gf_last_error() : strerror(-err));
		break;
	}
	return err;
}

static void default_source(struct gf_audit_ctx *c, struct gf_check_result *r, const char *path)
{
	(void)c;
	if (r && !r->source[0])
		gf_strlcpy(r->source, path, sizeof(r->source));
}

int audit_read(struct gf_audit_ctx *c, struct gf_check_result *r, const char *path, char **data, size_t *len)
{
	int ret;

	default_source(c, r, path);
	ret = gf_fs_read(&c->fs, path, data, len);
	return ret ? read_failed(c, r, path, ret) : 0;
}

int audit_read_str(struct gf_audit_ctx *c, struct gf_check_result *r, const char *path, char *buf, size_t size)
{
	int ret;

	default_source(c, r, path);
	ret = gf_fs_read_str(&c->fs, path, buf, size);
	return ret ? read_failed(c, r, path, ret) : 0;
}

int audit_read_ll(struct gf_audit_ctx *c, struct gf_check_result *r, const char *path, long long *v)
{
	int ret;

	default_source(c, r, path);
	ret = gf_fs_read_ll(&c->fs, path, v);
	return ret ? read_failed(c, r, path, ret) : 0;
}

int audit_peek_str(struct gf_audit_ctx *c, const char *path, char *buf, size_t size)
{
	return gf_fs_read_str(&c->fs, path, buf, size);
}

bool audit_exists(struct gf_audit_ctx *c, const char *path)
{
	struct stat st;

	return gf_fs_probe(&c->fs, path, &st) == 0;
}

void audit_selected(const char *text, char *out, size_t size)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;
	size_t n;

	if (open && close) {
		n = (size_t)(close - open - 1);
		text = open + 1;
	} else {
		text += strspn(text, " \t\n");
		n = strcspn(text, " \t\n");
	}
	if (n >= size)
		n = size - 1;
	memcpy(out, text, n);
	out[n] = '\0';
}

/* How each process is told by its comm: the name, or (prefix) its start,
 * cut where the kernel cuts comm ("nv-fabricmanager" reads "nv-fabricmanage"). */
static const struct {
	const char *name;
	bool prefix;
} processes[AUDIT_NPROCESSES] = {
	[AUDIT_PROC_IRQBALANCE] = { "irqbalance", false },
	[AUDIT_PROC_MPS] = { "nvidia-cuda-mps", true },
	[AUDIT_PROC_FABRICMANAGER] = { "nv-fabricmanage", true },
	[AUDIT_PROC_PERSISTENCED] = { "nvidia-persiste", true },
};

static bool is_process(const char *comm, enum audit_process which)
{
	return processes[which].prefix ? gf_starts_with(comm, processes[which].name)
				       : !strcmp(comm, processes[which].name);
}

bool gf_audit_watches_process(const char *comm)
{
	for (int i = 0; i < AUDIT_NPROCESSES; i++)
		if (is_process(comm, (enum audit_process)i))
			return true;
	return false;
}

int audit_processes(struct gf_audit_ctx *c, enum audit_process which, long *pid)
{
	char **names;
	int nn, n = 0;

	if (pid)
		*pid = 0;
	if (!audit_exists(c, "/proc/1/comm") || gf_fs_list(&c->fs, "/proc", &names, &nn))
		return -ENOENT;
	for (int i = 0; i < nn; i++) {
		char path[64], comm[32];

		if (names[i][0] < '0' || names[i][0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", names[i]);
		/* A process that exits between the listing and the read is gone. */
		if (audit_peek_str(c, path, comm, sizeof(comm)) || !is_process(comm, which))
			continue;
		if (!n++ && pid)
			*pid = strtol(names[i], NULL, 10);
	}
	gf_strv_free(names, nn);
	return n;
}

const char *audit_getenv(const struct gf_audit_ctx *c, const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = c->env; *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}
