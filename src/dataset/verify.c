/* gf_dataset_verify: every record read back and checked against its stored
 * checksum, and the bytes between records (alignment padding) checked to be
 * zeros, one shard at a time, reading each data file front to back. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "dataset/dataset_impl.h"

#define CHUNK (4u << 20)

struct vfile {
	int fd;
	const char *path;
	unsigned char *buf;
};

static int read_at(struct vfile *f, uint64_t off, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(f->fd, f->buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return gf_error(-EIO, "%s: reading %zu bytes at offset %llu: %s", f->path, len - done,
					(unsigned long long)(off + done), strerror(errno));
		if (!n)
			return gf_error(-EBADMSG, "%s: ends at offset %llu, inside a record (truncated while "
					"verifying?)", f->path, (unsigned long long)(off + done));
		done += (size_t)n;
	}
	return 0;
}

/* The bytes [from, to) are zeros. */
static int zeros(struct vfile *f, uint64_t from, uint64_t to, uint64_t record)
{
	while (from < to) {
		size_t n = to - from < CHUNK ? (size_t)(to - from) : CHUNK;
		int ret;

		if ((ret = read_at(f, from, n)))
			return ret;
		for (size_t i = 0; i < n; i++)
			if (f->buf[i])
				return gf_error(-EBADMSG, "%s: byte %llu, padding before record %llu, is not zero",
						f->path, (unsigned long long)(from + i), (unsigned long long)record);
		from += n;
	}
	return 0;
}

static int verify_shard(const struct gf_dataset *d, unsigned s, struct vfile *f, struct gf_checksum_state *cs,
			uint64_t *checked)
{
	const struct gf_ds_shard *sh = &d->shards[s];
	uint64_t prev_end = 0;
	int ret = 0;

	for (uint64_t r = 0; r < sh->samples; r++) {
		struct gf_sample_loc at;
		uint64_t pos, sum;

		gf_ds_locate(d, sh->first + r, &at);
		if (!sh->mega.width && (ret = zeros(f, prev_end, at.offset, r)))
			return ret;
		if ((ret = gf_checksum_begin(cs, d->info.checksum)))
			return ret;
		for (pos = 0; pos < at.size;) {
			size_t n = at.size - pos < CHUNK ? (size_t)(at.size - pos) : CHUNK;

			if ((ret = read_at(f, at.offset + pos, n))) {
				char msg[512];

				snprintf(msg, sizeof(msg), "%s", gf_last_error());
				return gf_error(ret, "%s (record %llu)", msg, (unsigned long long)r);
			}
			gf_checksum_update(cs, f->buf, n);
			pos += n;
		}
		sum = gf_checksum_end(cs);
		if (sum != at.checksum)
			return gf_error(-EBADMSG, "%s: record %llu (sample %llu, offset %llu, %llu bytes): %s checksum "
					"%016llx, the index says %016llx: the data differs from what was packed",
					sh->data_path, (unsigned long long)r, (unsigned long long)(sh->first + r),
					(unsigned long long)at.offset, (unsigned long long)at.size,
					gf_checksum_name(d->info.checksum), (unsigned long long)sum,
					(unsigned long long)at.checksum);
		prev_end = at.offset + at.size;
		(*checked)++;
	}
	if (!sh->mega.width)
		ret = zeros(f, prev_end, sh->file_bytes, sh->samples);
	return ret;
}

int gf_dataset_verify(const struct gf_dataset *d,
		      void (*progress)(void *user, unsigned shard, uint64_t records_checked), void *user)
{
	struct gf_checksum_state cs = { 0 };
	struct vfile f = { .fd = -1 };
	uint64_t checked = 0;
	int ret = 0;

	if (!d)
		return GF_NULL_ARG("d");
	if (!(f.buf = malloc(CHUNK)))
		return gf_error(-ENOMEM, "%s: out of memory", d->path);
	for (unsigned s = 0; s < d->nshards && !ret; s++) {
		const struct gf_ds_shard *sh = &d->shards[s];
		uint64_t size;

		f.path = sh->data_path;
		if ((ret = gf_ds_file_size(f.path, &size)))
			break;
		if (size != sh->file_bytes) {
			ret = gf_error(-EBADMSG, "%s: %llu bytes, %llu when opened (changed since)", f.path,
				       (unsigned long long)size, (unsigned long long)sh->file_bytes);
			break;
		}
		if ((f.fd = open(f.path, O_RDONLY | O_CLOEXEC)) < 0) {
			ret = gf_error(-errno, "%s: %s", f.path, strerror(errno));
			break;
		}
		posix_fadvise(f.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
		ret = verify_shard(d, s, &f, &cs, &checked);
		close(f.fd);
		f.fd = -1;
		if (!ret && progress)
			progress(user, s, checked);
	}
	gf_checksum_free(&cs);
	free(f.buf);
	return ret;
}
