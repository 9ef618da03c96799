/* The shard writer: records go to a temporary data file through a buffer,
 * their offsets, sizes, checksums and keys to arrays in memory; finishing
 * writes the index beside it, syncs both and renames them into place, the
 * index last, so a shard whose index is there is whole. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpufeed/outfile.h>
#include "core/atomic.h"
#include "core/error.h"
#include "dataset/format.h"

#define WBUF (4u << 20)

struct u64v {
	uint64_t *v;
	size_t n, cap;
};

struct gf_shard_writer {
	char bin[PATH_MAX], idx[PATH_MAX];		/* final names */
	char bin_tmp[PATH_MAX], idx_tmp[PATH_MAX];
	int fd, idx_fd;
	unsigned align;
	enum gf_checksum checksum;
	struct gf_checksum_state sum;
	unsigned char *buf;
	size_t buffered;
	uint64_t pos;		/* bytes written or buffered */
	bool open_record;
	uint64_t rec_start;
	struct u64v offsets, sizes, sums, key_offsets;
	char *keys;
	size_t keys_len, keys_cap;
	uint64_t data_bytes, min_size, max_size;
};

void gf_shard_names(unsigned shard, char *bin, char *idx, size_t size)
{
	snprintf(bin, size, "shard-%05u.bin", shard);
	snprintf(idx, size, "shard-%05u.idx", shard);
}

static int push(struct u64v *a, uint64_t v)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		uint64_t *nv = realloc(a->v, cap * sizeof(*nv));

		if (!nv)
			return gf_error(-ENOMEM, "pack: out of memory for a shard's index");
		a->v = nv;
		a->cap = cap;
	}
	a->v[a->n++] = v;
	return 0;
}

static int flush(struct gf_shard_writer *w)
{
	size_t done = 0;

	while (done < w->buffered) {
		ssize_t n = write(w->fd, w->buf + done, w->buffered - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return gf_error_errno(-errno, w->bin);
		done += (size_t)n;
	}
	w->buffered = 0;
	return 0;
}

static int put(struct gf_shard_writer *w, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len) {
		size_t n = WBUF - w->buffered < len ? WBUF - w->buffered : len;
		int ret;

		if (p)
			memcpy(w->buf + w->buffered, p, n);
		else
			memset(w->buf + w->buffered, 0, n);
		w->buffered += n;
		w->pos += n;
		len -= n;
		if (p)
			p += n;
		if (w->buffered == WBUF && (ret = flush(w)))
			return ret;
	}
	return 0;
}

int gf_shard_writer_open(const char *dir, unsigned shard, unsigned align, enum gf_checksum checksum,
			 struct gf_shard_writer **out)
{
	struct gf_shard_writer *w = calloc(1, sizeof(*w));
	char bin[64], idx[64];
	int ret;

	if (!w)
		return gf_error(-ENOMEM, "%s: out of memory", dir);
	w->fd = w->idx_fd = -1;
	w->align = align;
	w->checksum = checksum;
	gf_shard_names(shard, bin, idx, sizeof(bin));
	if ((size_t)snprintf(w->bin, sizeof(w->bin), "%s/%s", dir, bin) >= sizeof(w->bin) ||
	    (size_t)snprintf(w->idx, sizeof(w->idx), "%s/%s", dir, idx) >= sizeof(w->idx)) {
		ret = gf_error(-ENAMETOOLONG, "%s: path too long", dir);
		goto fail;
	}
	if (!(w->buf = malloc(WBUF))) {
		ret = gf_error(-ENOMEM, "%s: out of memory", w->bin);
		goto fail;
	}
	if ((ret = w->fd = gf_atomic_tmp(w->bin, w->bin_tmp, sizeof(w->bin_tmp))) < 0)
		goto fail;
	if ((ret = w->idx_fd = gf_atomic_tmp(w->idx, w->idx_tmp, sizeof(w->idx_tmp))) < 0)
		goto fail;
	if ((ret = gf_checksum_begin(&w->sum, checksum)) || (ret = push(&w->key_offsets, 0)))
		goto fail;
	*out = w;
	return 0;
fail:
	gf_shard_writer_abort(w);
	return ret;
}

int gf_shard_writer_begin(struct gf_shard_writer *w, const char *key, size_t keylen)
{
	uint64_t pad = (w->align - w->pos % w->align) % w->align;
	int ret;

	if (w->open_record)
		return gf_error(-EINVAL, "%s: a record begun inside another", w->bin);
	if ((ret = put(w, NULL, pad)) || (ret = gf_checksum_begin(&w->sum, w->checksum)))
		return ret;
	if (w->keys_len + keylen > w->keys_cap) {
		size_t cap = w->keys_cap ? w->keys_cap : 4096;
		char *nk;

		while (cap < w->keys_len + keylen)
			cap *= 2;
		if (!(nk = realloc(w->keys, cap)))
			return gf_error(-ENOMEM, "%s: out of memory for the keys", w->bin);
		w->keys = nk;
		w->keys_cap = cap;
	}
	if (keylen)
		memcpy(w->keys + w->keys_len, key, keylen);
	w->keys_len += keylen;
	w->rec_start = w->pos;
	w->open_record = true;
	return 0;
}

int gf_shard_writer_append(struct gf_shard_writer *w, const void *data, size_t len)
{
	if (!w->open_record)
		return gf_error(-EINVAL, "%s: data outside a record", w->bin);
	gf_checksum_update(&w->sum, data, len);
	return put(w, data, len);
}

int gf_shard_writer_end(struct gf_shard_writer *w)
{
	uint64_t size = w->pos - w->rec_start;
	int ret;

	if (!w->open_record)
		return gf_error(-EINVAL, "%s: no record to end", w->bin);
	w->open_record = false;
	if ((ret = push(&w->offsets, w->rec_start)) || (ret = push(&w->sizes, size)) ||
	    (ret = push(&w->sums, gf_checksum_end(&w->sum))) || (ret = push(&w->key_offsets, w->keys_len)))
		return ret;
	if (w->offsets.n == 1)
		w->min_size = size;
	w->min_size = size < w->min_size ? size : w->min_size;
	w->max_size = size > w->max_size ? size : w->max_size;
	w->data_bytes += size;
	return 0;
}

int gf_shard_writer_add(struct gf_shard_writer *w, const void *data, size_t len, const char *key, size_t keylen)
{
	int ret;

	if ((ret = gf_shard_writer_begin(w, key, keylen)) || (ret = gf_shard_writer_append(w, data, len)))
		return ret;
	return gf_shard_writer_end(w);
}

uint64_t gf_shard_writer_records(const struct gf_shard_writer *w)
{
	return w->offsets.n;
}

uint64_t gf_shard_writer_size_after(const struct gf_shard_writer *w, uint64_t len)
{
	return w->pos + (w->align - w->pos % w->align) % w->align + len;
}

static int write_all(int fd, const void *data, size_t len, const char *path)
{
	const unsigned char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return gf_error_errno(-errno, path);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The index image: header, then the arrays in the order the header lists. */
static int build_index(struct gf_shard_writer *w, unsigned char **out, size_t *len)
{
	uint64_t n = w->offsets.n, at = GF_IDX_HEADER_SIZE;
	uint64_t off_at, sizes_at, sums_at, koff_at, keys_at, total;
	unsigned char *img, *h;

	off_at = at;
	sizes_at = off_at + 8 * n;
	sums_at = sizes_at + 8 * n;
	koff_at = sums_at + 8 * n;
	keys_at = koff_at + 8 * (n + 1);
	total = keys_at + w->keys_len;
	if (!(img = calloc(1, total)))
		return gf_error(-ENOMEM, "%s: out of memory for the index", w->idx);
	h = img;
	memcpy(h + GF_IDX_OFF_MAGIC, GF_IDX_MAGIC, 8);
	gf_put_le32(h + GF_IDX_OFF_VERSION, GF_IDX_VERSION);
	gf_put_le32(h + GF_IDX_OFF_CHECKSUM, (uint32_t)w->checksum);
	gf_put_le64(h + GF_IDX_OFF_COUNT, n);
	gf_put_le32(h + GF_IDX_OFF_ALIGN, w->align);
	gf_put_le64(h + GF_IDX_OFF_DATA_SIZE, w->pos);
	gf_put_le64(h + GF_IDX_OFF_INDEX_SIZE, total);
	gf_put_le64(h + GF_IDX_OFF_OFFSETS, off_at);
	gf_put_le64(h + GF_IDX_OFF_SIZES, sizes_at);
	gf_put_le64(h + GF_IDX_OFF_SUMS, sums_at);
	gf_put_le64(h + GF_IDX_OFF_KEY_OFFSETS, koff_at);
	gf_put_le64(h + GF_IDX_OFF_KEYS, keys_at);
	gf_put_le64(h + GF_IDX_OFF_KEYS_SIZE, w->keys_len);
	gf_put_le64(h + GF_IDX_OFF_HEADER_SUM, gf_checksum_of(GF_CHECKSUM_XXH3, h, GF_IDX_OFF_HEADER_SUM));
	for (uint64_t i = 0; i < n; i++) {
		gf_put_le64(img + off_at + 8 * i, w->offsets.v[i]);
		gf_put_le64(img + sizes_at + 8 * i, w->sizes.v[i]);
		gf_put_le64(img + sums_at + 8 * i, w->sums.v[i]);
	}
	for (uint64_t i = 0; i <= n; i++)
		gf_put_le64(img + koff_at + 8 * i, w->key_offsets.v[i]);
	if (w->keys_len)
		memcpy(img + keys_at, w->keys, w->keys_len);
	*out = img;
	*len = total;
	return 0;
}

static int sync_close(int *fd, const char *path)
{
	int ret = 0;

	if (fsync(*fd) || fchmod(*fd, 0644))
		ret = gf_error_errno(-errno, path);
	if (close(*fd) && !ret)
		ret = gf_error_errno(-errno, path);
	*fd = -1;
	return ret;
}

int gf_shard_writer_finish(struct gf_shard_writer *w, struct gf_shard_summary *out)
{
	unsigned char *img = NULL;
	size_t len = 0;
	int ret;

	if (w->open_record) {
		ret = gf_error(-EINVAL, "%s: a record was not ended", w->bin);
		goto out;
	}
	/* The file ends on an alignment boundary too, so an O_DIRECT read of
	 * the last record's aligned span stays inside it. */
	if ((ret = put(w, NULL, (w->align - w->pos % w->align) % w->align)) || (ret = flush(w)) ||
	    (ret = sync_close(&w->fd, w->bin)))
		goto out;
	if ((ret = build_index(w, &img, &len)) || (ret = write_all(w->idx_fd, img, len, w->idx)) ||
	    (ret = sync_close(&w->idx_fd, w->idx)))
		goto out;
	if ((ret = gf_outfile_rename(w->bin_tmp, w->bin)))
		goto out;
	w->bin_tmp[0] = 0;
	if ((ret = gf_outfile_rename(w->idx_tmp, w->idx)))
		goto out;
	w->idx_tmp[0] = 0;
	if (out) {
		*out = (struct gf_shard_summary){
			.samples = w->offsets.n, .data_bytes = w->data_bytes, .file_bytes = w->pos,
			.index_bytes = len, .index_checksum = gf_checksum_of(GF_CHECKSUM_XXH3, img, len),
			.min_size = w->min_size, .max_size = w->max_size,
		};
	}
out:
	free(img);
	gf_shard_writer_abort(w);
	return ret;
}

void gf_shard_writer_abort(struct gf_shard_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->idx_fd >= 0)
		close(w->idx_fd);
	if (w->bin_tmp[0])
		unlink(w->bin_tmp);
	if (w->idx_tmp[0])
		unlink(w->idx_tmp);
	gf_checksum_free(&w->sum);
	free(w->buf);
	free(w->offsets.v);
	free(w->sizes.v);
	free(w->sums.v);
	free(w->key_offsets.v);
	free(w->keys);
	free(w);
}
