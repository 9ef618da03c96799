/* Files we create appear whole or not at all, and a path a user named is
 * written by the rule of <gpufeed/outfile.h>. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpufeed/outfile.h>
#include "core/atomic.h"
#include "core/error.h"
#include "core/strutil.h"

static const char *kind_name(mode_t m)
{
	return S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a file";
}

int gf_outfile_check(const char *path, char *real, size_t size, enum gf_outfile_mode *mode)
{
	struct stat st;
	bool link;

	if (!path || !real || !mode)
		return GF_NULL_ARG(!path ? "path" : !real ? "real" : "mode");
	if (!size)
		return gf_arg_error(__func__, "size is 0: no room for the path");
	*mode = GF_OUTFILE_REPLACE;
	if (gf_strlcpy(real, path, size) >= size)
		return gf_error(-ENAMETOOLONG, "%s: path too long", path);
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : gf_error_errno(-errno, path);
	link = S_ISLNK(st.st_mode);
	if (link && stat(path, &st))
		return errno == ENOENT ? gf_error(-ENOENT, "%s: a symbolic link to a missing file: not written", path)
				       : gf_error_errno(-errno, path);
	if (S_ISDIR(st.st_mode))
		return gf_error(-EISDIR, "%s: is a directory", path);
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		*mode = GF_OUTFILE_IN_PLACE;
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return gf_error(-EINVAL, "%s: %s: not written (a regular file, a character device or a FIFO is)", path,
				kind_name(st.st_mode));
	/* A regular file, maybe through links: the temporary file goes
	 * beside the target and replaces it; the links stay. */
	if (link) {
		char buf[PATH_MAX];

		if (!realpath(path, buf))
			return gf_error_errno(-errno, path);
		if (gf_strlcpy(real, buf, size) >= size)
			return gf_error(-ENAMETOOLONG, "%s: path too long", buf);
	}
	return 0;
}

/* What tmp holds after an exchange (what was at real) may be replaced. */
static bool was_replaceable(const char *tmp)
{
	struct stat st;

	return !lstat(tmp, &st) && S_ISREG(st.st_mode);
}

static int not_regular(const char *real)
{
	return gf_error(-EEXIST, "%s: no longer a regular file when it was to be replaced: not replaced", real);
}

int gf_outfile_rename(const char *tmp, const char *real)
{
	struct stat st;

	if (!tmp || !real)
		return GF_NULL_ARG(!tmp ? "tmp" : "real");
	for (int tries = 0; tries < 4; tries++) {
		if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, real, RENAME_NOREPLACE))
			return 0;
		if (errno == EEXIST) {
			if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, real, RENAME_EXCHANGE)) {
				if (was_replaceable(tmp))
					return unlink(tmp) ? gf_error_errno(-errno, tmp) : 0;
				if (renameat2(AT_FDCWD, tmp, AT_FDCWD, real, RENAME_EXCHANGE))
					return gf_error(-EEXIST, "%s: no longer a regular file, and putting it back "
							"failed (%s): it is now %s", real, strerror(errno), tmp);
				unlink(tmp);
				return not_regular(real);
			}
			if (errno == ENOENT)
				continue;	/* removed meanwhile: try again */
		}
		if (errno != EINVAL && errno != ENOSYS)
			break;
		/* No such flags on this file system: check, then rename (a
		 * window remains). */
		if (!lstat(real, &st) && !S_ISREG(st.st_mode)) {
			unlink(tmp);
			return not_regular(real);
		}
		if (!rename(tmp, real))
			return 0;
		break;
	}
	{
		int ret = gf_error_errno(-errno, real);

		unlink(tmp);
		return ret;
	}
}

int gf_atomic_tmp(const char *path, char *tmp, size_t size)
{
	int fd;

	if ((size_t)snprintf(tmp, size, "%s.tmp-XXXXXX", path) >= size)
		return gf_error(-ENAMETOOLONG, "%s: path too long", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return gf_error_errno(-errno, path);
	return fd;
}

/* fn's output, flushed; fsync'ed unless in place (a pipe, a device). */
static int write_stream(FILE *f, const char *path, bool in_place, int (*fn)(FILE *f, void *arg), void *arg)
{
	int ret;

	errno = 0;
	ret = fn(f, arg);
	/* A write that failed inside fn (a full disk) is said with its errno. */
	if ((!ret || ferror(f)) && (fflush(f) || ferror(f)))
		ret = gf_error_errno(-(errno ? errno : EIO), path);
	if (!ret && !in_place && fsync(fileno(f)))
		ret = gf_error_errno(-errno, path);
	if (fclose(f) && !ret)
		ret = gf_error_errno(-errno, path);
	return ret;
}

int gf_atomic_write(const char *path, int (*fn)(FILE *f, void *arg), void *arg)
{
	char real[PATH_MAX], tmp[PATH_MAX];
	enum gf_outfile_mode mode;
	FILE *f;
	int fd, ret;

	if ((ret = gf_outfile_check(path, real, sizeof(real), &mode)))
		return ret;
	if (mode == GF_OUTFILE_IN_PLACE) {
		if ((fd = open(real, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0)
			return gf_error_errno(-errno, path);
		if (!(f = fdopen(fd, "w"))) {
			ret = gf_error_errno(-errno, path);
			close(fd);
			return ret;
		}
		return write_stream(f, path, true, fn, arg);
	}
	if ((fd = gf_atomic_tmp(real, tmp, sizeof(tmp))) < 0)
		return fd;
	if (!(f = fdopen(fd, "w"))) {
		ret = gf_error_errno(-errno, path);
		close(fd);
		unlink(tmp);
		return ret;
	}
	ret = write_stream(f, path, false, fn, arg);
	/* mkstemp makes 0600; recordings and configs are meant to be shared. */
	if (!ret && chmod(tmp, 0644))
		ret = gf_error_errno(-errno, path);
	if (ret) {
		unlink(tmp);
		return ret;
	}
	return gf_outfile_rename(tmp, real);
}
