/* WebDataset shards: a plain tar whose consecutive files sharing a key (the
 * name up to the first dot of its last component: "a/0001.jpg" and
 * "a/0001.cls" are sample "a/0001") make one sample.  The sample is stored
 * as a small tar of those files (ustar, names as in the input, zero times
 * and owners, ending with tar's two zero blocks), so a reader unpacks it
 * with any tar library.  Headers are checked (checksum, sizes); pax and
 * GNU long names are read; directories and links are skipped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/tar.h"
#include "pack/pack_impl.h"

#define BLOCK 512u
#define SAMPLE_MAX (1ull << 30)		/* bytes of one sample's files */
#define NAME_MAX_BYTES 4096u

struct tar_reader {
	FILE *f;
	const char *path;
	unsigned long long pos;		/* bytes consumed */
	char *long_name;		/* from a pax or GNU record, for the next entry */
};

/* The sample being gathered: its key, and its tar image so far. */
struct sample {
	char *key;
	unsigned char *img;
	size_t len, cap;
};

static int bad(struct tar_reader *t, const char *what)
{
	return gf_error(-EBADMSG, "%s: offset %llu: %s", t->path, t->pos, what);
}

static int read_exact(struct tar_reader *t, void *buf, size_t len)
{
	size_t n = fread(buf, 1, len, t->f);

	t->pos += n;
	if (n == len)
		return 0;
	if (ferror(t->f))
		return gf_error(-EIO, "%s: %s", t->path, strerror(errno ? errno : EIO));
	return bad(t, "the archive ends inside an entry (truncated)");
}

static int skip_data(struct tar_reader *t, unsigned long long size)
{
	unsigned char buf[BLOCK];
	unsigned long long left = (size + BLOCK - 1) / BLOCK * BLOCK;
	int ret;

	for (; left; left -= BLOCK)
		if ((ret = read_exact(t, buf, BLOCK)))
			return ret;
	return 0;
}

/* Size field: octal, or GNU's base-256 (high bit of its first byte). */
static long long field_size(const unsigned char *h)
{
	unsigned long long v = 0;

	if (!(h[124] & 0x80))
		return gf_tar_octal((const char *)h + 124, 12);
	if (h[124] != 0x80)
		return -1;
	for (int i = 125; i < 136; i++) {
		if (v >> 55)
			return -1;
		v = v << 8 | h[i];
	}
	return (long long)v;
}

/* A text entry's data (a GNU long name, pax records), NUL-terminated. */
static int read_text(struct tar_reader *t, unsigned long long size, char **out)
{
	size_t padded = (size_t)(size + BLOCK - 1) / BLOCK * BLOCK;
	char *buf;
	int ret;

	if (size > NAME_MAX_BYTES + 1024)
		return bad(t, "a long-name or pax entry over 5 KiB");
	if (!(buf = malloc(padded + 1)))
		return gf_error(-ENOMEM, "%s: out of memory", t->path);
	if ((ret = read_exact(t, buf, padded))) {
		free(buf);
		return ret;
	}
	buf[size] = 0;
	*out = buf;
	return 0;
}

/* pax records "LEN key=value\n": the path, if one. */
static int pax_path(struct tar_reader *t, char *data, size_t size)
{
	char *p = data, *end = data + size;

	while (p < end && *p) {
		char *sp;
		unsigned long len = strtoul(p, &sp, 10);

		if (sp == p || *sp != ' ' || len < 5 || len > (unsigned long)(end - p) || p[len - 1] != '\n')
			return bad(t, "a malformed pax record");
		if (!strncmp(sp + 1, "path=", 5)) {
			size_t n = (size_t)(p + len - 1 - (sp + 6));

			free(t->long_name);
			if (!(t->long_name = strndup(sp + 6, n)))
				return gf_error(-ENOMEM, "%s: out of memory", t->path);
		}
		p += len;
	}
	return 0;
}

static int grow(struct sample *s, size_t more, const char *path)
{
	if (s->len + more > SAMPLE_MAX)
		return gf_error(-EBADMSG, "%s: sample '%s' holds over 1 GiB of files", path, s->key);
	if (s->len + more > s->cap) {
		size_t cap = s->cap ? s->cap : 64 * 1024;
		unsigned char *n;

		while (cap < s->len + more)
			cap *= 2;
		if (!(n = realloc(s->img, cap)))
			return gf_error(-ENOMEM, "%s: out of memory", path);
		s->img = n;
		s->cap = cap;
	}
	return 0;
}

/* A ustar header for name into the sample's image (a pax record first when
 * the name is over 100 bytes). */
static int put_header(struct sample *s, const char *name, char type, unsigned long long size, const char *path)
{
	size_t nlen = strlen(name);
	unsigned char *h;
	int ret;

	if (nlen > 100) {
		char rec[NAME_MAX_BYTES + 64];
		size_t body = strlen(" path=\n") + nlen, n = body + 1, rlen;

		while (n != body + (size_t)snprintf(NULL, 0, "%zu", n))
			n = body + (size_t)snprintf(NULL, 0, "%zu", n);
		rlen = (size_t)snprintf(rec, sizeof(rec), "%zu path=%s\n", n, name);
		if ((ret = put_header(s, "././@PaxHeader", 'x', rlen, path)) || (ret = grow(s, (rlen + BLOCK - 1) / BLOCK * BLOCK, path)))
			return ret;
		memset(s->img + s->len, 0, (rlen + BLOCK - 1) / BLOCK * BLOCK);
		memcpy(s->img + s->len, rec, rlen);
		s->len += (rlen + BLOCK - 1) / BLOCK * BLOCK;
	}
	if ((ret = grow(s, BLOCK, path)))
		return ret;
	h = s->img + s->len;
	memset(h, 0, BLOCK);
	memcpy(h, name, nlen > 100 ? 100 : nlen);
	snprintf((char *)h + 100, 8, "%07o", 0644);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011llo", size);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	gf_tar_set_checksum(h);
	s->len += BLOCK;
	return 0;
}

/* The sample gathered so far to the output, ended as a tar is. */
static int flush_sample(struct gf_pack_out *o, struct sample *s, const char *path)
{
	int ret;

	if (!s->key)
		return 0;
	if ((ret = grow(s, 2 * BLOCK, path)))
		return ret;
	memset(s->img + s->len, 0, 2 * BLOCK);
	s->len += 2 * BLOCK;
	ret = gf_pack_record(o, s->img, s->len, s->key, strlen(s->key));
	free(s->key);
	s->key = NULL;
	s->len = 0;
	return ret;
}

/* WebDataset's key: the name up to the first dot of its last component. */
static char *key_of(const char *name)
{
	const char *base = strrchr(name, '/'), *dot;

	base = base ? base + 1 : name;
	dot = strchr(base, '.');
	return strndup(name, dot ? (size_t)(dot - name) : strlen(name));
}

static int add_member(struct gf_pack_out *o, struct tar_reader *t, struct sample *s, const char *name,
		      unsigned long long size)
{
	char *key = key_of(name);
	size_t padded = (size_t)(size + BLOCK - 1) / BLOCK * BLOCK;
	int ret;

	if (!key)
		return gf_error(-ENOMEM, "%s: out of memory", t->path);
	if (s->key && strcmp(s->key, key) && (ret = flush_sample(o, s, t->path))) {
		free(key);
		return ret;
	}
	if (!s->key)
		s->key = key;
	else
		free(key);
	if (size > SAMPLE_MAX)
		return gf_error(-EBADMSG, "%s: %s: %llu bytes, over the 1 GiB a sample may hold", t->path, name, size);
	if ((ret = put_header(s, name, '0', size, t->path)) || (ret = grow(s, padded, t->path)))
		return ret;
	if ((ret = read_exact(t, s->img + s->len, padded)))
		return ret;
	s->len += padded;
	return 0;
}

static int read_archive(struct gf_pack_out *o, struct tar_reader *t, struct sample *s)
{
	unsigned char h[BLOCK];
	int ret;

	for (;;) {
		char name[2 * 155 + 2 * 100];
		long long size;
		size_t got = fread(h, 1, BLOCK, t->f);
		bool zero = true;

		if (!got && feof(t->f))
			return 0;	/* no end marker: tar readers accept that too */
		t->pos += got;
		if (got != BLOCK)
			return ferror(t->f) ? gf_error(-EIO, "%s: %s", t->path, strerror(errno ? errno : EIO))
					    : bad(t, "the archive ends inside a header (truncated)");
		for (unsigned i = 0; i < BLOCK && zero; i++)
			zero = !h[i];
		if (zero)
			return 0;	/* the end marker; what follows is padding */
		t->pos -= BLOCK;
		if (!gf_tar_checksum_ok(h))
			return bad(t, "a header whose checksum is wrong (not a tar archive, or corrupt)");
		if ((size = field_size(h)) < 0)
			return bad(t, "a header with a malformed size");
		t->pos += BLOCK;
		if (t->long_name) {
			snprintf(name, sizeof(name), "%s", t->long_name);
		} else if (!memcmp(h + 257, "ustar", 5) && h[345]) {
			snprintf(name, sizeof(name), "%.155s/%.100s", (const char *)h + 345, (const char *)h);
		} else {
			snprintf(name, sizeof(name), "%.100s", (const char *)h);
		}
		switch (h[156]) {
		case 'L':
		case 'x': {
			char *text = NULL;

			if ((ret = read_text(t, (unsigned long long)size, &text)))
				return ret;
			if (h[156] == 'L') {
				free(t->long_name);
				t->long_name = text;
				continue;
			}
			ret = pax_path(t, text, (size_t)size);
			free(text);
			if (ret)
				return ret;
			continue;
		}
		case '0':
		case '\0':
		case '7':
			free(t->long_name);
			t->long_name = NULL;
			if (!name[0])
				return bad(t, "a file with an empty name");
			if ((ret = add_member(o, t, s, name, (unsigned long long)size)))
				return ret;
			continue;
		default:	/* directories, links, global pax headers: not samples */
			free(t->long_name);
			t->long_name = NULL;
			if ((ret = skip_data(t, h[156] == '5' ? 0 : (unsigned long long)size)))
				return ret;
		}
	}
}

int gf_pack_tar(struct gf_pack_out *o, const char *path)
{
	struct tar_reader t = { .path = path };
	struct sample s = { 0 };
	int ret;

	if (!(t.f = fopen(path, "re")))
		return gf_error(-errno, "%s: %s", path, strerror(errno));
	ret = read_archive(o, &t, &s);
	if (!ret)
		ret = flush_sample(o, &s, path);
	free(s.key);
	free(s.img);
	free(t.long_name);
	fclose(t.f);
	return ret;
}
