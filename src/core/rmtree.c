#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

#include "core/rmtree.h"

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (type == FTW_DP ? rmdir(path) : unlink(path)) ? -1 : 0;
}

int gf_rmtree(const char *path)
{
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS))
		return errno == ENOENT ? 0 : -errno;
	return 0;
}
