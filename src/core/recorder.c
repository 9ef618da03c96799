/* Mirror reads into a recording.
 *
 * A path such as /sys/bus/pci/devices/0000:00:06.0/vendor crosses a symlink
 * (…/devices/0000:00:06.0 -> ../../../devices/pci0000:00/0000:00:06.0).  We
 * walk it component by component on the source, recreate every symlink with
 * its original (relative) target, follow it, and create real directories
 * where the source has them.  The copy therefore resolves like sysfs does.
 * Absolute link targets are rewritten relative so the copy never points out
 * of itself. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/recorder.h"
#include "core/strutil.h"

#define MAX_LINK_DEPTH 32

static void rec_fail(struct gf_recorder *rec, int err, const char *what)
{
	if (rec->error)
		return;
	rec->error = err;
	snprintf(rec->error_msg, sizeof(rec->error_msg), "%s: %s", what, strerror(-err));
}

/* False once something failed or the caller asked us to stop. */
static bool rec_go(struct gf_recorder *rec)
{
	if (!rec->error && rec->cancel && *rec->cancel)
		rec_fail(rec, -EINTR, "recording");
	return !rec->error;
}

int gf_rec_init(struct gf_recorder *rec, const char *dest)
{
	memset(rec, 0, sizeof(*rec));
	if (!realpath(dest, rec->dest))
		return gf_error_errno(-errno, dest);
	return 0;
}

void gf_rec_fini(struct gf_recorder *rec)
{
	tdestroy(rec->placeholders, free);
	rec->placeholders = NULL;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* True when `dst` was a placeholder; it is one no more. */
static bool placeholder_take(struct gf_recorder *rec, const char *dst)
{
	void **node = tfind(dst, &rec->placeholders, cmp_key);
	char *key;

	if (!node)
		return false;
	key = *node;
	tdelete(dst, &rec->placeholders, cmp_key);
	free(key);
	return true;
}

/* The policy's word on `path`; it reads through the same root, unrecorded. */
static enum gf_rec_keep verdict(const struct gf_recorder *rec, const struct gf_fs *fs, const char *path)
{
	struct gf_fs plain;

	if (!rec->policy.keep)
		return GF_REC_KEEP;
	plain = *fs;
	plain.rec = NULL;
	return rec->policy.keep(rec->policy.arg, &plain, path);
}

/* Lexically normalise an absolute path (no symlinks are involved: callers
 * only join physical directories with link targets).  ".." at the top stays
 * at the top, as inside a chroot; returns true when that happened. */
static bool normalize(const char *in, char *out, size_t size)
{
	char tmp[PATH_MAX];
	char *save = NULL, *tok;
	size_t len = 0;
	bool clamped = false;

	gf_strlcpy(tmp, in, sizeof(tmp));
	out[0] = '\0';
	for (tok = strtok_r(tmp, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			char *slash = strrchr(out, '/');

			if (slash)
				*slash = '\0';
			else
				clamped = true;
			len = strlen(out);
			continue;
		}
		if (len + 1 + strlen(tok) + 1 > size)
			break;
		out[len++] = '/';
		strcpy(out + len, tok);
		len += strlen(tok);
	}
	if (!out[0])
		gf_strlcpy(out, "/", size);
	return clamped;
}

static void dest_of(const struct gf_recorder *rec, const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", rec->dest, path);
}

static void ensure_dir(struct gf_recorder *rec, const char *path)
{
	char d[PATH_MAX];
	struct stat st;

	dest_of(rec, path, d, sizeof(d));
	if (lstat(d, &st) == 0)
		return;
	if (mkdir(d, 0755) && errno != EEXIST) {
		rec_fail(rec, -errno, d);
		return;
	}
	rec->dirs++;
}

/* Relative form of absolute `target` as seen from directory `dir` (both
 * normalised): "/a/b" from "/a/c/d" is "../../b". */
static void relative_to(const char *dir, const char *target, char *out, size_t size)
{
	const char *d = dir, *t = target;
	const char *dlast = dir, *tlast = target;

	/* Longest common prefix made of whole components. */
	while (*d && *d == *t) {
		d++;
		t++;
		if ((*d == '/' || !*d) && (*t == '/' || !*t)) {
			dlast = d;
			tlast = t;
		}
	}
	out[0] = '\0';
	for (const char *p = dlast; *p; p++)
		if (*p == '/' && p[1])
			strncat(out, "../", size - strlen(out) - 1);
	if (*tlast == '/')
		tlast++;
	strncat(out, tlast, size - strlen(out) - 1);
	if (strlen(out) > 1 && out[strlen(out) - 1] == '/')
		out[strlen(out) - 1] = '\0';	/* "../../" -> "../.." */
	if (!out[0])
		gf_strlcpy(out, ".", size);
}

/* Where a link in physical directory `dir` with `target` lands, resolved
 * as the readers resolve it (RESOLVE_IN_ROOT): symlinks on the way are
 * expanded, ".." applies to the physical path and stops at the root.  The
 * rest of a path that does not exist is taken as written.  Returns true
 * when the text means the same taken literally anywhere: relative, crossing
 * no symlink, never stopped at the root. */
static bool land(const struct gf_fs *fs, const char *dir, const char *target, char *out, size_t size)
{
	char rest[PATH_MAX], cur[PATH_MAX], *p = rest, *name;
	bool literal = target[0] != '/', missing = false;
	int links = 0;

	gf_strlcpy(rest, target, sizeof(rest));
	gf_strlcpy(cur, target[0] == '/' || !strcmp(dir, "/") ? "" : dir, sizeof(cur));
	while ((name = gf_path_next(&p))) {
		char next[PATH_MAX], src[PATH_MAX], link[PATH_MAX], joined[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			char *slash = strrchr(cur, '/');

			if (slash)
				*slash = '\0';
			else
				literal = false;	/* stopped at the root */
			continue;
		}
		if ((size_t)snprintf(next, sizeof(next), "%s/%s", cur, name) >= sizeof(next))
			break;
		gf_fs_src(fs, next, src, sizeof(src));
		if (missing || lstat(src, &st) || !S_ISLNK(st.st_mode) || ++links > MAX_LINK_DEPTH ||
		    (n = readlink(src, link, sizeof(link) - 1)) < 0) {
			missing = missing || access(src, F_OK);
			gf_strlcpy(cur, next, sizeof(cur));
			continue;
		}
		link[n] = '\0';
		literal = false;
		if ((size_t)snprintf(joined, sizeof(joined), "%s/%s", link, p) >= sizeof(joined))
			break;
		gf_strlcpy(rest, joined, sizeof(rest));
		p = rest;
		if (link[0] == '/')
			cur[0] = '\0';
	}
	gf_strlcpy(out, cur[0] ? cur : "/", size);
	return literal;
}

/* The text of a link at physical `dir` in the copy: the original when it
 * means the same taken literally, else the relative path to where it
 * lands, so that a tool following links in the copy, outside any chroot,
 * never leaves it.  `resolved` gets the landing path. */
static void link_text(const struct gf_fs *fs, const char *dir, const char *target, char *resolved,
		      size_t rsize, char *text, size_t tsize)
{
	if (land(fs, dir, target, resolved, rsize))
		gf_strlcpy(text, target, tsize);
	else
		relative_to(dir, resolved, text, tsize);
}

/* Walk `path` on the source, mirroring each component; writes the physical
 * (symlink-free) path into `phys`.  Returns 0, or -errno if the source path
 * does not exist (nothing more to mirror). */
static int mirror(struct gf_recorder *rec, const struct gf_fs *fs, const char *path,
		  char *phys, size_t size, int depth)
{
	char norm[PATH_MAX], tmp[PATH_MAX], cur[PATH_MAX] = "";
	char *save = NULL, *tok;

	if (depth > MAX_LINK_DEPTH)
		return -ELOOP;
	normalize(path, norm, sizeof(norm));
	gf_strlcpy(tmp, norm, sizeof(tmp));
	for (tok = strtok_r(tmp, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		char next[PATH_MAX], src[PATH_MAX], dst[PATH_MAX];
		struct stat st;

		if ((size_t)snprintf(next, sizeof(next), "%s/%s", cur, tok) >= sizeof(next))
			return -ENAMETOOLONG;
		gf_fs_src(fs, next, src, sizeof(src));
		if (lstat(src, &st))
			return -errno;
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX], resolved[PATH_MAX], linktext[PATH_MAX];
			ssize_t n = readlink(src, target, sizeof(target) - 1);
			struct stat dst_st;

			if (n < 0)
				return -errno;
			target[n] = '\0';
			link_text(fs, cur[0] ? cur : "/", target, resolved, sizeof(resolved), linktext,
				  sizeof(linktext));
			dest_of(rec, next, dst, sizeof(dst));
			if (lstat(dst, &dst_st)) {
				if (symlink(linktext, dst)) {
					rec_fail(rec, -errno, dst);
					return -errno;
				}
				rec->links++;
			}
			if (mirror(rec, fs, resolved, cur, sizeof(cur), depth + 1))
				return -ENOENT;
			continue;
		}
		gf_strlcpy(cur, next, sizeof(cur));
		if (S_ISDIR(st.st_mode))
			ensure_dir(rec, cur);
	}
	gf_strlcpy(phys, cur[0] ? cur : "/", size);
	return 0;
}

static void write_file(struct gf_recorder *rec, const char *phys, const char *data, size_t len)
{
	char dst[PATH_MAX];
	struct stat st;
	bool fill = false;
	int fd;

	dest_of(rec, phys, dst, sizeof(dst));
	if (lstat(dst, &st) == 0 && S_ISREG(st.st_mode)) {
		/* First read wins (one consistent snapshot), over the empty
		 * file a listing left. */
		if (!placeholder_take(rec, dst))
			return;
		fill = true;
	}
	fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rec_fail(rec, -errno, dst);
		return;
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			rec_fail(rec, -errno, dst);
			close(fd);
			return;
		}
		off += (size_t)w;
	}
	if (close(fd)) {
		rec_fail(rec, -errno, dst);
		return;
	}
	rec->files += !fill;
	rec->bytes += len;
}

/* What the policy keeps of the bytes read at `path`, written at `phys`. */
static void keep_file(struct gf_recorder *rec, enum gf_rec_keep v, const char *path, const char *phys,
		      const char *data, size_t len)
{
	char *edited = NULL;

	if (v == GF_REC_NAME) {
		data = "";
		len = 0;
	} else if (v == GF_REC_EDIT) {
		if (!rec->policy.edit || !(edited = rec->policy.edit(rec->policy.arg, path, data, len, &len))) {
			rec_fail(rec, -ENOMEM, path);
			return;
		}
		data = edited;
	}
	write_file(rec, phys, data, len);
	free(edited);
}

/* An empty file for a regular entry of a listing, which a read fills. */
static void placeholder_make(struct gf_recorder *rec, const char *phys)
{
	char dst[PATH_MAX], *key;
	struct stat st;
	int fd;

	dest_of(rec, phys, dst, sizeof(dst));
	if (lstat(dst, &st) == 0)
		return;		/* recorded already */
	fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || close(fd)) {
		rec_fail(rec, -errno, dst);
		return;
	}
	if (!(key = strdup(dst)) || !tsearch(key, &rec->placeholders, cmp_key)) {
		free(key);
		rec_fail(rec, -ENOMEM, dst);
		return;
	}
	rec->files++;
}

static void parent_of(const char *path, char *buf, size_t size)
{
	char *slash;

	gf_strlcpy(buf, path, size);
	slash = strrchr(buf, '/');
	if (slash && slash != buf)
		*slash = '\0';
	else
		gf_strlcpy(buf, "/", size);
}

void gf_rec_file(struct gf_recorder *rec, const struct gf_fs *fs, const char *path,
		 const char *data, size_t len)
{
	char dir[PATH_MAX], physdir[PATH_MAX], phys[PATH_MAX];
	const char *base = strrchr(path, '/');
	char real[PATH_MAX];
	struct stat st;
	enum gf_rec_keep v;

	if (!rec_go(rec) || !base || (v = verdict(rec, fs, path)) == GF_REC_DROP)
		return;
	/* The file itself may be a symlink (rare in sysfs); mirror it whole. */
	gf_fs_src(fs, path, real, sizeof(real));
	if (lstat(real, &st) == 0 && S_ISLNK(st.st_mode)) {
		if (mirror(rec, fs, path, phys, sizeof(phys), 0) == 0)
			keep_file(rec, v, path, phys, data, len);
		return;
	}
	parent_of(path, dir, sizeof(dir));
	if (mirror(rec, fs, dir, physdir, sizeof(physdir), 0))
		return;
	snprintf(phys, sizeof(phys), "%s/%s", strcmp(physdir, "/") ? physdir : "", base + 1);
	keep_file(rec, v, path, phys, data, len);
}

void gf_rec_unread(struct gf_recorder *rec, const struct gf_fs *fs, const char *path)
{
	char src[PATH_MAX], real[PATH_MAX], dst[PATH_MAX];
	const char *phys = real;

	if (!rec->placeholders)
		return;
	gf_fs_src(fs, path, src, sizeof(src));
	if (!realpath(src, real))
		return;
	if (fs->rootlen) {
		if (strncmp(real, fs->dir, fs->dirlen) || real[fs->dirlen] != '/')
			return;
		phys = real + fs->dirlen;
	}
	dest_of(rec, phys, dst, sizeof(dst));
	if (placeholder_take(rec, dst) && unlink(dst) == 0)
		rec->files--;
}

/* A regular file met on a path that was resolved or tested. */
static void keep_regular(struct gf_recorder *rec, const struct gf_fs *fs, enum gf_rec_keep v, const char *path,
			 const char *phys)
{
	struct gf_fs plain = *fs;	/* the same root without the tap */
	char *data;
	size_t len;

	if (v == GF_REC_NAME) {
		write_file(rec, phys, "", 0);
		return;
	}
	plain.rec = NULL;
	if (gf_fs_read(&plain, phys, &data, &len) == 0) {
		keep_file(rec, v, path, phys, data, len);
		free(data);
	}
}

void gf_rec_path(struct gf_recorder *rec, const struct gf_fs *fs, const char *path)
{
	char phys[PATH_MAX], src[PATH_MAX];
	struct stat st;
	enum gf_rec_keep v;

	if (!rec_go(rec) || (v = verdict(rec, fs, path)) == GF_REC_DROP ||
	    mirror(rec, fs, path, phys, sizeof(phys), 0))
		return;
	gf_fs_src(fs, phys, src, sizeof(src));
	if (stat(src, &st) == 0 && S_ISREG(st.st_mode))
		keep_regular(rec, fs, v, path, phys);
}

void gf_rec_dir(struct gf_recorder *rec, const struct gf_fs *fs, const char *path,
		char **names, int n)
{
	char phys[PATH_MAX];

	if (!rec_go(rec) || verdict(rec, fs, path) == GF_REC_DROP || mirror(rec, fs, path, phys, sizeof(phys), 0))
		return;
	for (int i = 0; i < n; i++) {
		char entry[PATH_MAX], src[PATH_MAX], named[PATH_MAX];
		enum gf_rec_keep v;
		struct stat st;

		snprintf(named, sizeof(named), "%s/%s", strcmp(path, "/") ? path : "", names[i]);
		if ((v = verdict(rec, fs, named)) == GF_REC_DROP)
			continue;
		snprintf(entry, sizeof(entry), "%s/%s", strcmp(phys, "/") ? phys : "", names[i]);
		gf_fs_src(fs, entry, src, sizeof(src));
		if (lstat(src, &st))
			continue;
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX], resolved[PATH_MAX], text[PATH_MAX], dst[PATH_MAX];
			ssize_t len = readlink(src, target, sizeof(target) - 1);
			struct stat dst_st;

			if (len < 0)
				continue;
			target[len] = '\0';
			link_text(fs, phys, target, resolved, sizeof(resolved), text, sizeof(text));
			dest_of(rec, entry, dst, sizeof(dst));
			if (lstat(dst, &dst_st) && symlink(text, dst) == 0)
				rec->links++;
		} else if (S_ISDIR(st.st_mode)) {
			ensure_dir(rec, entry);
		} else if (S_ISREG(st.st_mode) && v == GF_REC_NAME) {
			write_file(rec, entry, "", 0);
		} else if (S_ISREG(st.st_mode) && (st.st_mode & 0444) && access(src, R_OK) == 0) {
			placeholder_make(rec, entry);
		}
	}
}
