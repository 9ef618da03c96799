#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/atomic.h"
#include "core/error.h"

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

int gf_atomic_write(const char *path, int (*fn)(FILE *f, void *arg), void *arg)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd, ret;

	if ((fd = gf_atomic_tmp(path, tmp, sizeof(tmp))) < 0)
		return fd;
	f = fdopen(fd, "w");
	if (!f) {
		ret = gf_error_errno(-errno, path);
		close(fd);
		unlink(tmp);
		return ret;
	}
	ret = fn(f, arg);
	if (!ret && (fflush(f) || ferror(f)))
		ret = gf_error_errno(-(errno ? errno : EIO), path);
	if (!ret && fsync(fileno(f)))
		ret = gf_error_errno(-errno, path);
	if (fclose(f) && !ret)
		ret = gf_error_errno(-errno, path);
	/* mkstemp makes 0600; recordings and configs are meant to be shared. */
	if (!ret && chmod(tmp, 0644))
		ret = gf_error_errno(-errno, path);
	if (!ret && rename(tmp, path))
		ret = gf_error_errno(-errno, path);
	if (ret)
		unlink(tmp);
	return ret;
}
