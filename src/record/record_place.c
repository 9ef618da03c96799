/* The final step of a recording: never replace what is not ours to
 * replace, even when it changes while we record.  See record_place.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpufeed/record.h>
#include "core/error.h"
#include "core/rmtree.h"
#include "core/tar.h"
#include "record/record_hook.h"
#include "record/record_place.h"

static bool dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return false;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
}

/* What a recording may replace: an empty directory, or (with force) a
 * recording.  `path` is what is checked, `name` the DIR the user gave (they
 * differ once the final swap has moved the old DIR aside). */
static int replaceable(const char *path, const char *name, bool force, bool archive)
{
	char manifest[PATH_MAX];
	struct stat st;

	if (lstat(path, &st))
		return gf_error_errno(-errno, name);
	if (archive) {
		if (!S_ISREG(st.st_mode) || !gf_tar_sniff(path) || gf_tar_holds(path, GF_RECORD_MANIFEST) != 1)
			return gf_error(-EEXIST, "%s: exists and is not a .tar.gz recording: not replacing it", name);
		if (!force)
			return gf_error(-EEXIST, "%s: a recording is already there (use --force to replace it)", name);
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return gf_error(-ENOTDIR, "%s: exists and is not a directory", name);
	if (dir_is_empty(path))
		return 0;
	snprintf(manifest, sizeof(manifest), "%s/" GF_RECORD_MANIFEST, path);
	if (access(manifest, F_OK))
		return gf_error(-EEXIST, "%s: exists, is not empty and is not a gpufeed recording: not replacing it",
				name);
	if (!force)
		return gf_error(-EEXIST, "%s: a recording is already there (use --force to replace it)", name);
	return gf_rmtree_check(path, name);	/* never delete across a mount */
}

int gf_place_check(struct gf_place *p)
{
	struct stat st;

	p->existed = lstat(p->target, &st) == 0;
	if (!p->existed && errno != ENOENT)
		return gf_error_errno(-errno, p->target);
	return p->existed ? replaceable(p->target, p->target, p->force, p->archive) : 0;
}

static int appeared(const char *dir)
{
	return gf_error(-EEXIST, "%s: appeared while recording (another 'gpufeed record', or someone's own "
			"directory): not replacing it, nothing recorded", dir);
}

bool gf_record_no_rename_flags;

/* renameat2, or EINVAL as from a file system without its flags (tests). */
static int rename_flags(const char *from, const char *to, unsigned flags)
{
	if (gf_record_no_rename_flags) {
		errno = EINVAL;
		return -1;
	}
	return renameat2(AT_FDCWD, from, AT_FDCWD, to, flags);
}

static bool no_rename_flags(int err)
{
	return err == EINVAL || err == ENOSYS;
}

/* DIR did not exist at the start: it must not exist now either.  Without
 * RENAME_NOREPLACE (some file systems), rename() still never replaces a
 * non-empty directory, nor puts a directory over a file. */
static int move_into_new(const char *tmp, const char *dir)
{
	if (rename_flags(tmp, dir, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EEXIST)
		return appeared(dir);
	if (!no_rename_flags(errno))
		return gf_error_errno(-errno, dir);
	if (rename(tmp, dir) == 0)
		return 0;
	if (errno == ENOTEMPTY || errno == EEXIST || errno == ENOTDIR || errno == EISDIR)
		return appeared(dir);
	return gf_error_errno(-errno, dir);
}

/* Without RENAME_EXCHANGE: move DIR aside, check what was moved, then put
 * the recording in its place (or DIR back). */
static int move_over_aside(const char *tmp, const char *dir, const struct gf_place *p)
{
	char old[PATH_MAX + 32];
	int ret;

	snprintf(old, sizeof(old), "%s.old-%ld", dir, (long)getpid());
	if (rename(dir, old))
		return errno == ENOENT ? move_into_new(tmp, dir) : gf_error_errno(-errno, dir);
	if ((ret = replaceable(old, dir, p->force, p->archive)) == 0 && (ret = move_into_new(tmp, dir)) == 0) {
		gf_rmtree(old);
		return 0;
	}
	if (rename(old, dir))
		return gf_error(ret, "%s (and putting it back failed: it is now %s)", gf_last_error(), old);
	return ret;
}

/* DIR existed at the start: swap the recording with whatever is there now,
 * check what came out, and swap back unless it may be replaced.  On return
 * tmp holds the refused recording, unless p->keep_tmp: then it holds
 * someone's directory we could not put back. */
static int move_over(const char *tmp, const char *dir, struct gf_place *p)
{
	int ret;

	if (rename_flags(tmp, dir, RENAME_EXCHANGE)) {
		if (errno == ENOENT)		/* DIR went away meanwhile */
			return move_into_new(tmp, dir);
		if (no_rename_flags(errno))
			return move_over_aside(tmp, dir, p);
		return gf_error_errno(-errno, dir);
	}
	if ((ret = replaceable(tmp, dir, p->force, p->archive)) == 0)
		return gf_rmtree(tmp);		/* the replaced target, now at tmp */
	if (rename_flags(tmp, dir, RENAME_EXCHANGE)) {
		p->keep_tmp = true;
		return gf_error(ret, "%s (and swapping it back failed: it is now %s)", gf_last_error(), tmp);
	}
	return ret;
}

int gf_place_move(struct gf_place *p, const char *tmp)
{
	return p->existed ? move_over(tmp, p->target, p) : move_into_new(tmp, p->target);
}
