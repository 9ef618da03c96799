/* .tar.gz recordings: a small ustar writer and a strict reader over zlib.
 *
 * The writer emits what the reader accepts: directories, regular files and
 * symlinks, names that do not fit ustar's 100+155 bytes in a pax 'x' record,
 * within the same limits.  The reader also takes GNU long names ('L', 'K'),
 * global pax headers (ignored) and plain, uncompressed tar.  It inflates
 * with zlib's inflate() rather than gzread(), which accepts a stream cut in
 * its trailer and ignores whatever follows the gzip data. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/atomic.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/rmtree.h"
#include "core/strutil.h"
#include "core/tar.h"

#define BLOCK 512

/* ---- the limits, for the writer and the reader alike ---- */

/* "64 MiB", "1 GiB" or "1000 bytes". */
static const char *bytes_words(unsigned long long v, char *buf, size_t size)
{
	if (v && v % (1ull << 30) == 0)
		snprintf(buf, size, "%llu GiB", v >> 30);
	else if (v && v % (1ull << 20) == 0)
		snprintf(buf, size, "%llu MiB", v >> 20);
	else
		snprintf(buf, size, "%llu bytes", v);
	return buf;
}

/* Components of an entry's name ("rec/sys/" is 2). */
static unsigned name_depth(const char *name)
{
	unsigned n = 0;

	for (const char *p = name; *p; p++)
		if (*p != '/' && (p == name || p[-1] == '/'))
			n++;
	return n;
}

/* NULL when `name` nests within the limit, else why not, in buf. */
static const char *too_deep(const struct gf_tar_limits *lim, const char *name, char *buf, size_t size)
{
	if (name_depth(name) <= lim->depth)
		return NULL;
	snprintf(buf, size, "an entry is nested deeper than %u levels: %.80s%s", lim->depth, name,
		 strlen(name) > 80 ? "..." : "");
	return buf;
}

struct tar_budget {
	const struct gf_tar_limits *lim;
	unsigned long entries;
	unsigned long long total;
};

/* Counts one header (of an entry named `name`, NULL for a long-name or pax
 * record) and its `size` bytes of data: NULL while within the limits, else
 * what went beyond them, in words, in buf. */
static const char *budget_add(struct tar_budget *b, const char *name, unsigned long long size, char *buf,
			      size_t bsize)
{
	const struct gf_tar_limits *lim = b->lim;
	char num[32];

	if (name && too_deep(lim, name, buf, bsize))
		return buf;
	if (size > lim->file)
		snprintf(buf, bsize, "an entry is larger than %s", bytes_words(lim->file, num, sizeof(num)));
	else if (++b->entries > lim->entries)
		snprintf(buf, bsize, "more than %lu entries", lim->entries);
	else if ((b->total += BLOCK + (size + BLOCK - 1) / BLOCK * BLOCK) > lim->total)
		snprintf(buf, bsize, "unpacks to more than %s", bytes_words(lim->total, num, sizeof(num)));
	else
		return NULL;
	return buf;
}

static const struct gf_tar_limits default_limits = GF_TAR_LIMITS_DEFAULT;

/* What is unpacked must be removable by gf_rmtree (gf_fs_fini's). */
_Static_assert(GF_TAR_MAX_DEPTH < GF_RMTREE_MAX_DEPTH, "an unpacked archive nests deeper than gf_rmtree goes");

struct ustar {
	char name[100], mode[8], uid[8], gid[8], size[12], mtime[12], chksum[8], typeflag;
	char linkname[100], magic[6], version[2], uname[32], gname[32], devmajor[8], devminor[8];
	char prefix[155], pad[12];
};

_Static_assert(sizeof(struct ustar) == BLOCK, "a tar header is one block");

/* ---- writing ---- */

struct tar_out {
	gzFile gz;
	const char *path;		/* for messages */
	struct tar_budget budget;
	int err;
};

/* False (with o->err set) when the header would take the archive beyond
 * what the reader accepts. */
static bool within_limits(struct tar_out *o, const char *name, unsigned long long size)
{
	char what[256];

	if (o->err)
		return false;
	if (!budget_add(&o->budget, name, size, what, sizeof(what)))
		return true;
	o->err = gf_error(-EFBIG, "%s: %s: not written (gpufeed reads no archive beyond that; docs/recordings.md)",
			  o->path, what);
	return false;
}

static void put(struct tar_out *o, const void *buf, size_t len)
{
	if (o->err || !len)
		return;
	if (gzwrite(o->gz, buf, (unsigned)len) != (int)len) {
		int zerr;
		const char *msg = gzerror(o->gz, &zerr);

		o->err = gf_error(zerr == Z_ERRNO ? -errno : -EIO, "%s: %s", o->path,
				  zerr == Z_ERRNO ? strerror(errno) : msg);
	}
}

static void pad_to_block(struct tar_out *o, unsigned long long len)
{
	static const char zero[BLOCK];

	if (len % BLOCK)
		put(o, zero, BLOCK - len % BLOCK);
}

static void octal(char *field, size_t size, unsigned long long v)
{
	snprintf(field, size, "%0*llo", (int)size - 1, v);
}

static void checksum(struct ustar *h)
{
	const unsigned char *p = (const unsigned char *)h;
	unsigned sum = 0;

	memset(h->chksum, ' ', sizeof(h->chksum));
	for (size_t i = 0; i < sizeof(*h); i++)
		sum += p[i];
	snprintf(h->chksum, sizeof(h->chksum), "%06o", sum);
	h->chksum[7] = ' ';
}

void gf_tar_set_checksum(void *block)
{
	checksum(block);
}

/* One header (and, for a long name or target, a pax record before it). */
static void put_header(struct tar_out *o, const char *name, char type, unsigned long long size,
		       const char *link)
{
	size_t nlen = strlen(name), llen = link ? strlen(link) : 0;
	const char *split = NULL;
	struct ustar h;

	if (!within_limits(o, name, size))
		return;
	memset(&h, 0, sizeof(h));
	if (nlen > sizeof(h.name)) {
		/* ustar: prefix "/" name, cut at a slash. */
		for (const char *s = strchr(name, '/'); s; s = strchr(s + 1, '/'))
			if ((size_t)(s - name) <= sizeof(h.prefix) && nlen - (size_t)(s - name) - 1 <= sizeof(h.name) &&
			    s[1]) {
				split = s;
				break;
			}
	}
	if ((nlen > sizeof(h.name) && !split) || llen > sizeof(h.linkname)) {
		char rec[2 * PATH_MAX + 64], *p = rec;
		struct ustar x;

		/* "LEN key=value\n", LEN counting itself. */
		if (nlen > sizeof(h.name) && !split) {
			size_t body = strlen(" path=\n") + nlen, n = body + 1;

			while (n != body + (size_t)snprintf(NULL, 0, "%zu", n))
				n = body + (size_t)snprintf(NULL, 0, "%zu", n);
			p += sprintf(p, "%zu path=%s\n", n, name);
		}
		if (llen > sizeof(h.linkname)) {
			size_t body = strlen(" linkpath=\n") + llen, n = body + 1;

			while (n != body + (size_t)snprintf(NULL, 0, "%zu", n))
				n = body + (size_t)snprintf(NULL, 0, "%zu", n);
			p += sprintf(p, "%zu linkpath=%s\n", n, link);
		}
		if (!within_limits(o, NULL, (unsigned long long)(p - rec)))
			return;
		memset(&x, 0, sizeof(x));
		strcpy(x.name, "././@PaxHeader");
		octal(x.mode, sizeof(x.mode), 0644);
		octal(x.uid, sizeof(x.uid), 0);
		octal(x.gid, sizeof(x.gid), 0);
		octal(x.size, sizeof(x.size), (unsigned long long)(p - rec));
		octal(x.mtime, sizeof(x.mtime), 0);
		x.typeflag = 'x';
		memcpy(x.magic, "ustar", 6);
		memcpy(x.version, "00", 2);
		checksum(&x);
		put(o, &x, sizeof(x));
		put(o, rec, (size_t)(p - rec));
		pad_to_block(o, (unsigned long long)(p - rec));
	}
	if (split) {
		memcpy(h.prefix, name, (size_t)(split - name));
		memcpy(h.name, split + 1, nlen - (size_t)(split - name) - 1);
	} else {
		memcpy(h.name, name, nlen < sizeof(h.name) ? nlen : sizeof(h.name));
	}
	if (link)
		memcpy(h.linkname, link, llen < sizeof(h.linkname) ? llen : sizeof(h.linkname));
	octal(h.mode, sizeof(h.mode), type == '5' ? 0755 : type == '2' ? 0777 : 0644);
	octal(h.uid, sizeof(h.uid), 0);
	octal(h.gid, sizeof(h.gid), 0);
	octal(h.size, sizeof(h.size), size);
	octal(h.mtime, sizeof(h.mtime), 0);
	h.typeflag = type;
	memcpy(h.magic, "ustar", 6);
	memcpy(h.version, "00", 2);
	strcpy(h.uname, "root");
	strcpy(h.gname, "root");
	checksum(&h);
	put(o, &h, sizeof(h));
}

static int cmp_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int skip_dots(const struct dirent *de)
{
	return strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
}

static void put_file(struct tar_out *o, const char *src, const char *name, const struct stat *st)
{
	char buf[65536];
	unsigned long long done = 0;
	int fd = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		o->err = gf_error_errno(-errno, src);
		return;
	}
	put_header(o, name, '0', (unsigned long long)st->st_size, NULL);
	while (!o->err && done < (unsigned long long)st->st_size) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->err = n < 0 ? gf_error_errno(-errno, src) : gf_error(-EIO, "%s: shrank while archived", src);
			break;
		}
		if ((unsigned long long)n > (unsigned long long)st->st_size - done)
			n = (ssize_t)((unsigned long long)st->st_size - done);
		put(o, buf, (size_t)n);
		done += (unsigned long long)n;
	}
	close(fd);
	pad_to_block(o, done);
}

/* The tree under src, as entries named name... (name ends in "/"). */
static void put_tree(struct tar_out *o, const char *src, const char *name)
{
	struct dirent **list;
	int n;

	put_header(o, name, '5', 0, NULL);
	n = scandir(src, &list, skip_dots, cmp_name);
	if (n < 0) {
		o->err = gf_error_errno(-errno, src);
		return;
	}
	for (int i = 0; i < n; i++) {
		char csrc[PATH_MAX], cname[PATH_MAX], link[PATH_MAX];
		struct stat st;
		ssize_t len;

		if (!o->err && (snprintf(csrc, sizeof(csrc), "%s/%s", src, list[i]->d_name) >= (int)sizeof(csrc) ||
				snprintf(cname, sizeof(cname), "%s%s", name, list[i]->d_name) >= (int)sizeof(cname) - 1))
			o->err = gf_error(-ENAMETOOLONG, "%s/%s: path too long", src, list[i]->d_name);
		if (!o->err && lstat(csrc, &st))
			o->err = gf_error_errno(-errno, csrc);
		if (o->err) {
		} else if (S_ISDIR(st.st_mode)) {
			strcat(cname, "/");
			put_tree(o, csrc, cname);
		} else if (S_ISREG(st.st_mode)) {
			put_file(o, csrc, cname, &st);
		} else if (S_ISLNK(st.st_mode)) {
			len = readlink(csrc, link, sizeof(link) - 1);
			if (len < 0) {
				o->err = gf_error_errno(-errno, csrc);
			} else {
				link[len] = '\0';
				put_header(o, cname, '2', 0, link);
			}
		} else {
			o->err = gf_error(-EINVAL, "%s: not a file, directory or link: not archived", csrc);
		}
		free(list[i]);
	}
	free(list);
}

int gf_tar_write(const char *dir, const char *top, const char *path,
		 int (*place)(const char *tmp, const char *path, void *arg), void *arg)
{
	static const char end[2 * BLOCK];
	char tmp[PATH_MAX], name[PATH_MAX];
	struct tar_out o = { .path = path, .budget = { .lim = &default_limits } };
	int fd, ret;

	if ((fd = gf_atomic_tmp(path, tmp, sizeof(tmp))) < 0)
		return fd;
	o.gz = gzdopen(fd, "wb9");
	if (!o.gz) {
		close(fd);
		unlink(tmp);
		return gf_error(-ENOMEM, "%s: cannot start gzip", path);
	}
	snprintf(name, sizeof(name), "%s/", top);
	put_tree(&o, dir, name);
	put(&o, end, sizeof(end));
	/* Make the data durable before the name: flush, fsync, then close. */
	if (!o.err && gzflush(o.gz, Z_FINISH) != Z_OK)
		o.err = gf_error(-EIO, "%s: gzip failed", path);
	if (!o.err && fsync(fd))
		o.err = gf_error_errno(-errno, path);
	if (gzclose_w(o.gz) != Z_OK && !o.err)
		o.err = gf_error_errno(-(errno ? errno : EIO), path);
	ret = o.err;
	if (!ret && chmod(tmp, 0644))
		ret = gf_error_errno(-errno, path);
	if (!ret)
		ret = place ? place(tmp, path, arg) : (rename(tmp, path) ? gf_error_errno(-errno, path) : 0);
	if (ret)
		unlink(tmp);
	return ret;
}

/* ---- reading ---- */

bool gf_tar_sniff(const char *path)
{
	unsigned char b[BLOCK];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, b, sizeof(b));
	close(fd);
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return true;
	return n == BLOCK && !memcmp(b + 257, "ustar", 5);
}

/* Input read ahead, as large as gzbuffer() was given before. */
#define IN_BUF (128 * 1024)

struct tar_in {
	const char *archive;
	int fd;
	bool gzip;			/* else plain tar */
	bool zs_live;			/* inflateInit2 done */
	bool at_end;			/* the last gzip member ended with the file */
	z_stream zs;			/* next_in/avail_in also serve plain tar */
	unsigned char *inbuf;
	int destfd;			/* -1: only look for `find` */
	const char *find;		/* a file name at the top or one level down */
	bool found;
	struct tar_budget budget;
	char *pax_path, *pax_link;	/* for the next entry only */
};

static int bad(const struct tar_in *in, const char *fmt, const char *what)
{
	return gf_error(-EBADMSG, "%s: %s%s%s (not a recording archive, or damaged)", in->archive, fmt,
			what ? ": " : "", what ? what : "");
}

/* Beyond the limits: refused before more is unpacked. */
static int too_big(const struct tar_in *in, const char *what)
{
	return gf_error(-EBADMSG, "%s: %s: refused (a recording is far smaller; limits: docs/recordings.md)",
			in->archive, what);
}

/* More input after what is left unread: the bytes read (0 at the end of the
 * file), or -errno with a message. */
static int fill(struct tar_in *in)
{
	ssize_t n;

	if (in->zs.avail_in && in->zs.next_in != in->inbuf)
		memmove(in->inbuf, in->zs.next_in, in->zs.avail_in);
	in->zs.next_in = in->inbuf;
	do
		n = read(in->fd, in->inbuf + in->zs.avail_in, IN_BUF - in->zs.avail_in);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return gf_error_errno(-errno, in->archive);
	in->zs.avail_in += (unsigned)n;
	return (int)n;
}

/* A gzip member has ended: the file ends too, or another member follows
 * (gzip allows several); anything else is refused. */
static int member_end(struct tar_in *in)
{
	int n;

	while (in->zs.avail_in < 2)
		if ((n = fill(in)) <= 0) {
			if (n < 0)
				return n;
			if (!in->zs.avail_in) {
				in->at_end = true;
				return 0;
			}
			break;
		}
	if (in->zs.avail_in < 2 || in->zs.next_in[0] != 0x1f || in->zs.next_in[1] != 0x8b)
		return bad(in, "data after the end of the gzip stream", NULL);
	return inflateReset(&in->zs) == Z_OK ? 0 : bad(in, "damaged gzip data", NULL);
}

/* Up to len bytes of the tar stream: how many (0 at its end), or -errno
 * with a message.  A gzip stream must end with its trailer, which inflate
 * checks (CRC-32 and length). */
static int in_read(struct tar_in *in, void *buf, size_t len)
{
	int n;

	if (!len)
		return 0;
	if (!in->gzip) {
		if (!in->zs.avail_in && (n = fill(in)) <= 0)
			return n;
		n = (int)(len < in->zs.avail_in ? len : in->zs.avail_in);
		memcpy(buf, in->zs.next_in, (size_t)n);
		in->zs.next_in += n;
		in->zs.avail_in -= (unsigned)n;
		return n;
	}
	in->zs.next_out = buf;
	in->zs.avail_out = (unsigned)len;
	while (in->zs.avail_out == len && !in->at_end) {
		int zret;

		if (!in->zs.avail_in) {
			if ((n = fill(in)) < 0)
				return n;
			if (n == 0)
				return bad(in, "truncated", "the gzip data or its trailer is cut short");
		}
		zret = inflate(&in->zs, Z_NO_FLUSH);
		if (zret == Z_STREAM_END) {
			if ((n = member_end(in)))
				return n;
		} else if (zret == Z_MEM_ERROR) {
			return gf_error(-ENOMEM, "%s: out of memory", in->archive);
		} else if (zret != Z_OK && zret != Z_BUF_ERROR) {
			return bad(in, "damaged gzip data", in->zs.msg);
		}
	}
	return (int)(len - in->zs.avail_out);
}

/* Exactly len bytes, or an error that says the archive is cut short. */
static int read_exact(struct tar_in *in, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		int n = in_read(in, (char *)buf + got, len - got > INT_MAX ? INT_MAX : len - got);

		if (n < 0)
			return n;
		if (n == 0)
			return bad(in, "truncated", NULL);
		got += (size_t)n;
	}
	return 0;
}

static int skip(struct tar_in *in, unsigned long long len)
{
	char buf[BLOCK];

	while (len) {
		size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		int ret = read_exact(in, buf, n);

		if (ret)
			return ret;
		len -= n;
	}
	return 0;
}

static unsigned long long padded(unsigned long long len)
{
	return (len + BLOCK - 1) / BLOCK * BLOCK;
}

long long gf_tar_octal(const char *f, size_t size)
{
	unsigned long long v = 0;
	size_t i = 0;

	while (i < size && f[i] == ' ')
		i++;
	if (i == size || f[i] < '0' || f[i] > '7')
		return -1;
	for (; i < size && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return -1;
		v = v * 8 + (unsigned)(f[i] - '0');
	}
	for (; i < size; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	return (long long)v;
}

bool gf_tar_checksum_ok(const void *block)
{
	const struct ustar *h = block;
	const unsigned char *p = block;
	long long want = gf_tar_octal(h->chksum, sizeof(h->chksum));
	long long sum = 0;

	for (size_t i = 0; i < sizeof(*h); i++)
		sum += (i >= offsetof(struct ustar, chksum) && i < offsetof(struct ustar, typeflag)) ? ' ' : p[i];
	return want >= 0 && sum == want;
}

/* Data of a long-name or pax entry, NUL-terminated. */
static int read_text(struct tar_in *in, unsigned long long size, char **out)
{
	char *buf;
	int ret;

	if (size > 2 * PATH_MAX + 1024)
		return bad(in, "extended header too long", NULL);
	buf = malloc((size_t)padded(size) + 1);
	if (!buf)
		return gf_error(-ENOMEM, "%s: out of memory", in->archive);
	if ((ret = read_exact(in, buf, (size_t)padded(size)))) {
		free(buf);
		return ret;
	}
	buf[size] = '\0';
	*out = buf;
	return 0;
}

/* pax records "LEN key=value\n": keep path and linkpath. */
static int parse_pax(struct tar_in *in, char *data, unsigned long long size)
{
	char *p = data, *end = data + size;

	while (p < end) {
		char *sp, *eq, *stop;
		unsigned long len = strtoul(p, &sp, 10);

		if (sp == p || *sp != ' ' || len < 5 || len > (unsigned long)(end - p) || p[len - 1] != '\n')
			return bad(in, "malformed pax record", NULL);
		stop = p + len - 1;
		*stop = '\0';
		eq = strchr(sp + 1, '=');
		if (!eq)
			return bad(in, "malformed pax record", NULL);
		*eq = '\0';
		if (!strcmp(sp + 1, "path") || !strcmp(sp + 1, "linkpath")) {
			char **slot = sp[1] == 'p' ? &in->pax_path : &in->pax_link;

			free(*slot);
			*slot = strdup(eq + 1);
			if (!*slot)
				return gf_error(-ENOMEM, "%s: out of memory", in->archive);
		}
		p = stop + 1;
	}
	return 0;
}

/* The entry's name made safe: relative, no "." or ".." components, no
 * empty ones, no trailing "/".  False when it cannot be. */
static bool clean_name(const char *in, char *out, size_t size)
{
	char tmp[PATH_MAX], *rest = tmp, *c;
	size_t len = 0;

	if (in[0] == '/' || gf_strlcpy(tmp, in, sizeof(tmp)) >= sizeof(tmp))
		return false;
	out[0] = '\0';
	while ((c = gf_path_next(&rest))) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, ".."))
			return false;
		if (len + strlen(c) + 2 > size)
			return false;
		len += (size_t)sprintf(out + len, "%s%s", len ? "/" : "", c);
	}
	return len > 0;
}

/* The directory that will hold `name`'s last component, opened without
 * following a link anywhere (made when missing).  *base points into name. */
static int open_parent(struct tar_in *in, char *name, const char **base)
{
	int fd = dup(in->destfd);
	char *rest = name, *c, *slash = strrchr(name, '/');

	if (fd < 0)
		return gf_error_errno(-errno, in->archive);
	*base = slash ? slash + 1 : name;
	if (!slash)
		return fd;
	*slash = '\0';
	while ((c = gf_path_next(&rest))) {
		int next = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (next < 0 && errno == ENOENT && mkdirat(fd, c, 0755) == 0)
			next = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int err = errno;

			close(fd);
			*slash = '/';
			return err == ENOTDIR || err == ELOOP ? bad(in, "an entry goes through a link or a file", name) :
				gf_error_errno(-err, in->archive);
		}
		close(fd);
		fd = next;
	}
	*slash = '/';
	return fd;
}

static int extract_file(struct tar_in *in, int dirfd, const char *base, const char *name,
			unsigned long long size)
{
	char buf[65536];
	unsigned long long left = padded(size), data = size;
	int fd = openat(dirfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int ret = 0;

	if (fd < 0)
		return errno == EEXIST ? bad(in, "an entry appears twice", name) : gf_error_errno(-errno, name);
	while (!ret && left) {
		size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		size_t w = data < n ? (size_t)data : n;

		if ((ret = read_exact(in, buf, n)))
			break;
		for (size_t off = 0; off < w;) {
			ssize_t r = write(fd, buf + off, w - off);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				ret = gf_error_errno(-errno, in->archive);
				break;
			}
			off += (size_t)r;
		}
		left -= n;
		data -= w;
	}
	if (close(fd) && !ret)
		ret = gf_error_errno(-errno, in->archive);
	return ret;
}

static int extract_entry(struct tar_in *in, const struct ustar *h, unsigned long long size)
{
	char raw[PATH_MAX + 160], name[PATH_MAX], link[PATH_MAX], what[256];
	const char *base = NULL;
	struct stat st;
	int dirfd, ret = 0;

	if (in->pax_path) {
		gf_strlcpy(raw, in->pax_path, sizeof(raw));
	} else if (h->prefix[0]) {
		snprintf(raw, sizeof(raw), "%.*s/%.*s", (int)strnlen(h->prefix, sizeof(h->prefix)), h->prefix,
			 (int)strnlen(h->name, sizeof(h->name)), h->name);
	} else {
		snprintf(raw, sizeof(raw), "%.*s", (int)strnlen(h->name, sizeof(h->name)), h->name);
	}
	if (in->pax_link)
		gf_strlcpy(link, in->pax_link, sizeof(link));
	else
		snprintf(link, sizeof(link), "%.*s", (int)strnlen(h->linkname, sizeof(h->linkname)), h->linkname);
	if (!clean_name(raw, name, sizeof(name))) {
		if (h->typeflag == '5' && !strcmp(raw, "./"))
			return 0;		/* the top "./" itself */
		return bad(in, "an entry name is absolute, climbs with '..' or is empty", raw);
	}
	if (too_deep(in->budget.lim, name, what, sizeof(what)))
		return too_big(in, what);
	if (h->typeflag != '0' && h->typeflag != '\0' && h->typeflag != '7' && size)
		return bad(in, "a directory or link entry carries data", name);
	if (in->destfd < 0) {
		const char *slash = strchr(name, '/');

		if ((h->typeflag == '0' || h->typeflag == '\0') &&
		    (!strcmp(name, in->find) || (slash && !strchr(slash + 1, '/') && !strcmp(slash + 1, in->find))))
			in->found = true;
		return skip(in, padded(size));
	}
	if ((dirfd = open_parent(in, name, &base)) < 0)
		return dirfd;
	switch (h->typeflag) {
	case '0': case '\0': case '7':
		ret = extract_file(in, dirfd, base, name, size);
		break;
	case '5':
		if (mkdirat(dirfd, base, 0755) &&
		    (errno != EEXIST || fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode)))
			ret = errno == EEXIST || errno == 0 ? bad(in, "an entry appears twice", name) :
				gf_error_errno(-errno, name);
		break;
	case '2':
		if (!link[0])
			ret = bad(in, "a link without a target", name);
		else if (symlinkat(link, dirfd, base))
			ret = errno == EEXIST ? bad(in, "an entry appears twice", name) : gf_error_errno(-errno, name);
		break;
	}
	close(dirfd);
	return ret;
}

/* Reads the whole archive: unpacks it into dest, or with dest NULL only
 * looks for in->find.  Every check applies either way. */
static int read_archive(struct tar_in *in_arg, const char *dest)
{
	struct tar_in in = *in_arg;
	int ret = 0, n;

	in.destfd = -1;
	in.fd = open(in.archive, O_RDONLY | O_CLOEXEC);
	if (in.fd < 0)
		return gf_error_errno(-errno, in.archive);
	if (dest && (in.destfd = open(dest, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		ret = gf_error_errno(-errno, dest);
		goto out;
	}
	if (!(in.inbuf = malloc(IN_BUF))) {
		ret = gf_error(-ENOMEM, "%s: out of memory", in.archive);
		goto out;
	}
	if ((n = fill(&in)) < 0) {
		ret = n;
		goto out;
	}
	in.gzip = in.zs.avail_in >= 2 && in.inbuf[0] == 0x1f && in.inbuf[1] == 0x8b;
	if (in.gzip) {
		/* 16 + 15: a gzip wrapper, the largest window. */
		if (inflateInit2(&in.zs, 16 + MAX_WBITS) != Z_OK) {
			ret = gf_error(-ENOMEM, "%s: cannot start gzip", in.archive);
			goto out;
		}
		in.zs_live = true;
	}
	for (;;) {
		static const struct ustar zero;
		struct ustar h;
		long long size = 0;
		char *text = NULL, what[256];
		bool keep_pax = false;	/* it applies to the next entry */

		if ((ret = read_exact(&in, &h, sizeof(h))))
			break;
		if (!memcmp(&h, &zero, sizeof(h)))
			break;		/* end of archive */
		if (memcmp(h.magic, "ustar", 5))
			ret = bad(&in, "not a tar archive (no ustar header)", NULL);
		else if (!gf_tar_checksum_ok(&h))
			ret = bad(&in, "a header's checksum is wrong", NULL);
		else if ((size = gf_tar_octal(h.size, sizeof(h.size))) < 0)
			ret = bad(&in, "a header's size is malformed", NULL);
		else if (budget_add(&in.budget, NULL, (unsigned long long)size, what, sizeof(what)))
			ret = too_big(&in, what);
		if (ret)
			break;
		switch (h.typeflag) {
		case 'x':	/* pax: applies to the next entry */
		case 'L':	/* GNU long name */
		case 'K':	/* GNU long link target */
			if ((ret = read_text(&in, (unsigned long long)size, &text)))
				break;
			keep_pax = true;
			if (h.typeflag == 'x') {
				ret = parse_pax(&in, text, (unsigned long long)size);
				free(text);
			} else {
				char **slot = h.typeflag == 'L' ? &in.pax_path : &in.pax_link;

				free(*slot);
				*slot = text;
			}
			break;
		case 'g':	/* pax global header: nothing we use */
			ret = skip(&in, padded((unsigned long long)size));
			keep_pax = true;
			break;
		case '0': case '\0': case '7': case '5': case '2':
			ret = extract_entry(&in, &h, (unsigned long long)size);
			break;
		case '1':
			ret = bad(&in, "hard links are not allowed in a recording", NULL);
			break;
		case '3': case '4': case '6':
			ret = bad(&in, "device and FIFO entries are not allowed in a recording", NULL);
			break;
		default:
			ret = bad(&in, "an entry of an unknown type", NULL);
			break;
		}
		if (ret)
			break;
		if (!keep_pax) {
			free(in.pax_path);
			free(in.pax_link);
			in.pax_path = in.pax_link = NULL;
		}
	}
	/* Read to the end, so that the gzip trailer (CRC, length) is checked
	 * and nothing follows: only zeros, tar's padding to its record size
	 * (10 KiB by default), may come after the end marker. */
	for (unsigned long long tail = 0; !ret;) {
		char buf[BLOCK];

		if ((n = in_read(&in, buf, sizeof(buf))) <= 0) {
			ret = n;
			break;
		}
		for (int i = 0; i < n && !ret; i++)
			if (buf[i])
				ret = bad(&in, "data after the end of the archive", NULL);
		if (!ret && (tail += (unsigned)n) > (1u << 20))
			ret = bad(&in, "more than 1 MiB of padding after the end of the archive", NULL);
	}
out:
	free(in.pax_path);
	free(in.pax_link);
	if (in.zs_live)
		inflateEnd(&in.zs);
	free(in.inbuf);
	close(in.fd);
	if (in.destfd >= 0)
		close(in.destfd);
	in_arg->found = in.found;
	return ret;
}

int gf_tar_extract_within(const char *archive, const char *dest, const struct gf_tar_limits *lim)
{
	struct tar_in in = { .archive = archive, .budget = { .lim = lim } };

	return read_archive(&in, dest);
}

int gf_tar_extract(const char *archive, const char *dest)
{
	return gf_tar_extract_within(archive, dest, &default_limits);
}

int gf_tar_holds(const char *archive, const char *name)
{
	struct tar_in in = { .archive = archive, .find = name, .budget = { .lim = &default_limits } };
	int ret = read_archive(&in, NULL);

	return ret ? ret : in.found;
}
