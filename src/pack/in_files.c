/* A directory tree as samples: every regular file one sample, its key its
 * path below the directory, packed in byte order of those paths so the
 * same tree packs to the same dataset.  Symbolic links to files are
 * followed; directories reached through a link are not (no cycles). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "pack/pack_impl.h"

struct names {
	char **v;
	size_t n, cap;
};

static int add_name(struct names *l, const char *rel)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return gf_error(-ENOMEM, "pack: out of memory listing files");
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strdup(rel)))
		return gf_error(-ENOMEM, "pack: out of memory listing files");
	l->n++;
	return 0;
}

static int walk(const char *root, const char *rel, struct names *l, unsigned depth)
{
	char path[PATH_MAX];
	DIR *dir;
	struct dirent *de;
	int ret = 0;

	if (depth > 256)
		return gf_error(-ELOOP, "%s/%s: nested more than 256 directories deep", root, rel);
	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	if (!(dir = opendir(path)))
		return gf_error(-errno, "%s: %s", path, strerror(errno));
	while (!ret && (errno = 0, de = readdir(dir))) {
		char child[PATH_MAX], full[PATH_MAX];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s%s%s", rel, *rel ? "/" : "", de->d_name) >= sizeof(child) ||
		    (size_t)snprintf(full, sizeof(full), "%s/%s", root, child) >= sizeof(full)) {
			ret = gf_error(-ENAMETOOLONG, "%s/%s: path too long", path, de->d_name);
			break;
		}
		if (lstat(full, &st)) {
			ret = gf_error(-errno, "%s: %s", full, strerror(errno));
			break;
		}
		if (S_ISDIR(st.st_mode))
			ret = walk(root, child, l, depth + 1);
		else if (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && !stat(full, &st) && S_ISREG(st.st_mode)))
			ret = add_name(l, child);
	}
	if (!ret && errno)
		ret = gf_error(-errno, "%s: %s", path, strerror(errno));
	closedir(dir);
	return ret;
}

static int cmp_bytes(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int pack_file(struct gf_pack_out *o, const char *full, const char *key, unsigned char *buf)
{
	struct stat st;
	uint64_t left;
	int fd, ret;

	if ((fd = open(full, O_RDONLY | O_CLOEXEC)) < 0)
		return gf_error(-errno, "%s: %s", full, strerror(errno));
	if (fstat(fd, &st)) {
		ret = gf_error(-errno, "%s: %s", full, strerror(errno));
		goto out;
	}
	left = (uint64_t)st.st_size;
	if ((ret = gf_pack_begin(o, left, key, strlen(key))))
		goto out;
	while (left) {
		size_t n = left < GF_PACK_CHUNK ? (size_t)left : GF_PACK_CHUNK;

		if ((ret = gf_pack_read_full(fd, buf, n, full)) || (ret = gf_pack_data(o, buf, n)))
			goto out;
		left -= n;
	}
	ret = gf_pack_end(o);
out:
	close(fd);
	return ret;
}

int gf_pack_files(struct gf_pack_out *o, const char *dir)
{
	struct names l = { 0 };
	unsigned char *buf = NULL;
	char root[PATH_MAX];
	size_t n = strlen(dir);
	int ret;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n >= sizeof(root))
		return gf_error(-ENAMETOOLONG, "%s: path too long", dir);
	memcpy(root, dir, n);
	root[n] = 0;
	if ((ret = walk(root, "", &l, 0)))
		goto out;
	qsort(l.v, l.n, sizeof(*l.v), cmp_bytes);
	if (!(buf = malloc(GF_PACK_CHUNK))) {
		ret = gf_error(-ENOMEM, "%s: out of memory", dir);
		goto out;
	}
	for (size_t i = 0; i < l.n && !ret; i++) {
		char full[PATH_MAX];

		snprintf(full, sizeof(full), "%s/%s", root, l.v[i]);
		ret = pack_file(o, full, l.v[i], buf);
	}
out:
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	free(buf);
	return ret;
}
