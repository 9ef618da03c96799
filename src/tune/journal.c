/* The journal: one record a line, fields separated by tabs, synced before
 * the change it announces is made (docs/tune.md, "The journal"). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/strutil.h"
#include "tune/fault.h"
#include "tune/tune_internal.h"

static const char *const kinds[] = { "set", "done", "dir", "file", "line", "wrote", "root" };
/* Fields after the kind, per kind. */
static const int nfields[] = { 5, 2, 1, 3, 3, 1, 1 };

#define JOURNAL_MAX (64u << 20)

/* Tabs, newlines and backslashes escaped, so a field is one token. */
static void put_escaped(FILE *f, const char *s)
{
	fputc('\t', f);
	for (; *s; s++) {
		switch (*s) {
		case '\t': fputs("\\t", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\\': fputs("\\\\", f); break;
		default: fputc(*s, f); break;
		}
	}
}

static int unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		switch (*++s) {
		case 't': *w++ = '\t'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case '\\': *w++ = '\\'; break;
		default: return -EBADMSG;
		}
	}
	*w = '\0';
	return 0;
}

/* The record as one line, in a malloc'ed buffer. */
static char *format(const struct jrec *r, size_t *len)
{
	char *buf = NULL, *hex = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	fputs(kinds[r->kind], f);
	if (r->kind == J_SET)
		put_escaped(f, r->id);
	put_escaped(f, r->path);
	if (r->kind == J_SET)
		put_escaped(f, r->old);
	if (r->kind == J_SET || r->kind == J_DONE || r->kind == J_LINE)
		put_escaped(f, r->val);
	if (r->kind == J_FILE)
		put_escaped(f, r->existed ? "1" : "0");
	if (r->kind == J_SET || r->kind == J_FILE || r->kind == J_LINE) {
		hex = hex_encode(r->raw ? r->raw : "", r->raw ? r->rawlen : 0);
		put_escaped(f, hex ? hex : "");
	}
	fputc('\n', f);
	if (fclose(f) || !hex != !(r->kind == J_SET || r->kind == J_FILE || r->kind == J_LINE)) {
		free(hex);
		free(buf);
		return NULL;
	}
	free(hex);
	return buf;
}

static int write_all(int fd, const char *p, size_t n, const char *what)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return gf_error_errno(w < 0 ? -errno : -EIO, what);
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A torn last line (a crash mid-append) is cut off before appending. */
static int cut_torn_tail(struct tune_state *s)
{
	struct stat st;
	off_t end;
	char c;

	if (fstat(s->jfd, &st))
		return gf_error_errno(-errno, s->journal);
	for (end = st.st_size; end > 0; end--) {
		if (pread(s->jfd, &c, 1, end - 1) != 1)
			return gf_error_errno(-EIO, s->journal);
		if (c == '\n')
			break;
	}
	if (end != st.st_size && (ftruncate(s->jfd, end) || fsync(s->jfd)))
		return gf_error_errno(-errno, s->journal);
	return 0;
}

/* The root a journal of this state belongs to, as its root record says it. */
static const char *this_root(const struct tune_state *s)
{
	return gf_fs_live(&s->fs) ? "/" : s->fs.root;
}

/* Opens the journal for appending; a new one gets its header and its root
 * record, synced with its directory entry. */
static int journal_open(struct tune_state *s)
{
	static const char header[] = GF_TUNE_JOURNAL_SCHEMA "\n";
	struct jrec root = { .kind = J_ROOT };
	char *line = NULL;
	size_t len;
	int ret;
	struct stat st;

	if (s->jfd >= 0)
		return 0;
	/* O_NONBLOCK: a FIFO planted there is refused below, not waited on. */
	s->jfd = openat(s->dirfd, GF_TUNE_JOURNAL, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			0600);
	if (s->jfd < 0)
		return gf_error_errno(-errno, s->journal);
	if (fstat(s->jfd, &st))
		return gf_error_errno(-errno, s->journal);
	if (!S_ISREG(st.st_mode))
		return gf_error(-EBADMSG, "%s: not a regular file", s->journal);
	/* A crash may have left it empty, or with a torn header or root
	 * record: no record yet, it starts again. */
	if ((ret = cut_torn_tail(s)))
		return ret;
	if (fstat(s->jfd, &st))
		return gf_error_errno(-errno, s->journal);
	if ((size_t)st.st_size > sizeof(header) - 1)
		return 0;
	if (ftruncate(s->jfd, 0))
		return gf_error_errno(-errno, s->journal);
	root.path = this_root(s);
	if (!(line = format(&root, &len)))
		return gf_error(-ENOMEM, "out of memory");
	if (!(ret = tune_step("journal header")) && !(ret = write_all(s->jfd, header, sizeof(header) - 1, s->journal)))
		ret = write_all(s->jfd, line, len, s->journal);
	free(line);
	if (ret)
		return ret;
	if ((ret = tune_step("fsync journal")) || (fsync(s->jfd) && (ret = gf_error_errno(-errno, s->journal))))
		return ret;
	if ((ret = tune_step("fsync journal directory")) || (fsync(s->dirfd) && (ret = gf_error_errno(-errno, s->dir))))
		return ret;
	return 0;
}

int journal_add(struct tune_state *s, const struct jrec *r)
{
	size_t len;
	char *line;
	int ret;

	if ((ret = journal_open(s)))
		return ret;
	if (!(line = format(r, &len)))
		return gf_error(-ENOMEM, "out of memory");
	ret = tune_step("journal append");
	if (!ret)
		ret = write_all(s->jfd, line, len, s->journal);
	free(line);
	if (!ret && !(ret = tune_step("fsync journal")) && fsync(s->jfd))
		ret = gf_error_errno(-errno, s->journal);
	return ret;
}

static int parse_line(char *line, struct jrec *r)
{
	char *field[6], *p = line;
	int n = 0, k;

	*r = (struct jrec){ .id = "", .path = "", .old = "", .val = "", .raw = NULL };
	while (p && n < 6) {
		field[n++] = p;
		if ((p = strchr(p, '\t')))
			*p++ = '\0';
	}
	if (p)
		return -EBADMSG;	/* more fields than any kind has */
	for (k = 0; k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++)
		if (!strcmp(field[0], kinds[k]))
			break;
	if (k == (int)(sizeof(kinds) / sizeof(kinds[0])) || n != nfields[k] + 1)
		return -EBADMSG;
	for (int i = 1; i < n; i++)
		if (unescape(field[i]))
			return -EBADMSG;
	r->kind = (enum jrec_kind)k;
	n = 1;
	if (r->kind == J_SET)
		r->id = field[n++];
	r->path = field[n++];
	if (r->kind == J_SET)
		r->old = field[n++];
	if (r->kind == J_SET || r->kind == J_DONE || r->kind == J_LINE)
		r->val = field[n++];
	if (r->kind == J_FILE) {
		if (strcmp(field[n], "0") && strcmp(field[n], "1"))
			return -EBADMSG;
		r->existed = field[n++][0] == '1';
	}
	if (r->kind == J_SET || r->kind == J_FILE || r->kind == J_LINE) {
		r->raw = field[n];
		return hex_decode(field[n], &r->rawlen);
	}
	return 0;
}

/* Is the record's path one tune writes?  A journal is read from disk, so
 * revert must not be made to write anything else (/etc/passwd): a value
 * under /proc/sys or /sys, one of gpufeed's files, or a directory above
 * such a file (journalled after the file). */
static bool path_allowed(const struct jrec *r, const struct jrec *before, int n)
{
	size_t len = strlen(r->path);

	switch (r->kind) {
	case J_SET:
	case J_DONE:
		return value_path_ok(r->path);
	case J_FILE:
	case J_LINE:
	case J_WROTE:
		return persist_path_ok(r->path);
	case J_DIR:
		for (int i = 0; i < n; i++)
			if (before[i].kind == J_FILE && len > 1 && !strncmp(before[i].path, r->path, len) &&
			    before[i].path[len] == '/')
				return true;
		return false;
	case J_ROOT:
		return false;	/* only as the first record */
	}
	return false;
}

static const char *root_name(const char *root, char *buf, size_t size)
{
	if (!strcmp(root, "/"))
		return "this machine (/)";
	snprintf(buf, size, "the recording %s", root);
	return buf;
}

/* The journal belongs to the root it names: a recording's, kept in a
 * --state-dir, is never replayed onto this machine or another recording.
 * A recording's own journal (inside it) goes with it when it is copied
 * or moved: there it can only be the recording's. */
static int check_root(const struct tune_state *s, const char *root)
{
	char a[PATH_MAX + 32], b[PATH_MAX + 32];

	if (!strcmp(root, this_root(s)) || (s->own_dir && !gf_fs_live(&s->fs) && strcmp(root, "/")))
		return 0;
	return gf_error(-EXDEV, "%s is the journal of %s, not of %s: refused, nothing restored (use %s%s)",
			s->journal, root_name(root, a, sizeof(a)), root_name(this_root(s), b, sizeof(b)),
			strcmp(root, "/") ? "--root " : "no --root", strcmp(root, "/") ? root : "");
}

int journal_remember(struct journal *j, const struct jrec *r)
{
	if (j->n == j->cap) {
		int cap = j->cap ? j->cap * 2 : 16;
		struct jrec *nr = realloc(j->recs, sizeof(*nr) * (size_t)cap);

		if (!nr)
			return gf_error(-ENOMEM, "out of memory");
		j->recs = nr;
		j->cap = cap;
	}
	j->recs[j->n++] = *r;
	return 0;
}

static int parse(const struct tune_state *s, struct journal *j)
{
	char *line = j->text, *nl;
	int lineno = 1, ret;
	struct jrec r;

	nl = strchr(line, '\n');
	if (!nl && strlen(line) < sizeof(GF_TUNE_JOURNAL_SCHEMA) && !strncmp(line, GF_TUNE_JOURNAL_SCHEMA, strlen(line)))
		return 0;	/* empty, or a torn header: a crash before the first record */
	if (!nl || strncmp(line, GF_TUNE_JOURNAL_SCHEMA "\n", (size_t)(nl - line) + 1))
		return gf_error(-EBADMSG, "%s: not a %s journal%s", s->journal, GF_TUNE_JOURNAL_SCHEMA,
				!strncmp(line, "gpufeed-tune-journal/1\n", 23)
					? " (an earlier gpufeed's, which does not say which machine it belongs to: "
					  "revert it with that gpufeed)"
					: "");
	line = nl + 1;
	if (!(nl = strchr(line, '\n')))
		return 0;	/* a torn root record: a crash before the first record */
	*nl = '\0';
	lineno++;
	if (parse_line(line, &r) || r.kind != J_ROOT)
		return gf_error(-EBADMSG, "%s: line 2 is not the root record (which machine the journal belongs to)",
				s->journal);
	if ((ret = check_root(s, r.path)))
		return ret;
	for (line = nl + 1; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		lineno++;
		if (parse_line(line, &r))
			return gf_error(-EBADMSG, "%s: line %d is not a journal record", s->journal, lineno);
		if (!path_allowed(&r, j->recs, j->n))
			return gf_error(-EPERM, "%s: line %d: '%s' is not a path tune writes (a value under /proc/sys "
					"or /sys, or gpufeed's own file under /etc): refused, nothing restored",
					s->journal, lineno, r.path);
		if ((ret = journal_remember(j, &r)))
			return ret;
	}
	return 0;
}

int journal_load(struct tune_state *s, struct journal *j)
{
	struct stat st;
	ssize_t got;
	int fd, ret;

	*j = (struct journal){ 0 };
	fd = openat(s->dirfd, GF_TUNE_JOURNAL, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : gf_error_errno(-errno, s->journal);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return gf_error(-EBADMSG, "%s: not a regular file", s->journal);
	}
	if ((size_t)st.st_size > JOURNAL_MAX) {
		close(fd);
		return gf_error(-EFBIG, "%s: larger than %u bytes", s->journal, JOURNAL_MAX);
	}
	if (!(j->text = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return gf_error(-ENOMEM, "out of memory");
	}
	got = pread(fd, j->text, (size_t)st.st_size, 0);
	close(fd);
	if (got != st.st_size) {
		ret = gf_error_errno(got < 0 ? -errno : -EIO, s->journal);
	} else {
		j->text[got] = '\0';
		if (strlen(j->text) != (size_t)got)
			ret = gf_error(-EBADMSG, "%s: holds a NUL byte", s->journal);
		else
			ret = parse(s, j);
	}
	if (ret)
		journal_free(j);
	return ret;
}

void journal_free(struct journal *j)
{
	free(j->recs);
	free(j->text);
	*j = (struct journal){ 0 };
}

int journal_remove(struct tune_state *s)
{
	int ret;

	if (s->jfd >= 0) {
		close(s->jfd);
		s->jfd = -1;
	}
	if ((ret = tune_step("remove journal")))
		return ret;
	if (unlinkat(s->dirfd, GF_TUNE_JOURNAL, 0) && errno != ENOENT)
		return gf_error_errno(-errno, s->journal);
	if ((ret = tune_step("fsync journal directory")) || (fsync(s->dirfd) && (ret = gf_error_errno(-errno, s->dir))))
		return ret;
	return 0;
}

char *hex_encode(const char *data, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *out = malloc(len * 2 + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[(unsigned char)data[i] >> 4];
		out[2 * i + 1] = digits[(unsigned char)data[i] & 15];
	}
	out[len * 2] = '\0';
	return out;
}

static int nibble(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int hex_decode(char *hex, size_t *len)
{
	size_t n = strlen(hex);

	*len = 0;
	if (n % 2)
		return -EBADMSG;
	/* In place: byte i is written where hex digit 2i was read. */
	for (size_t i = 0; i < n / 2; i++) {
		int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EBADMSG;
		hex[i] = (char)(hi << 4 | lo);
	}
	hex[n / 2] = '\0';
	*len = n / 2;
	return 0;
}
