/* Opening a dataset (gpufeed's manifest and shards, or a Megatron pair) and
 * answering where its samples are. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/strutil.h"
#include "dataset/dataset_impl.h"

const char *gf_dataset_kind_name(enum gf_dataset_kind k)
{
	return k == GF_DATASET_GPUFEED ? "gpufeed" : k == GF_DATASET_MEGATRON ? "megatron" : "?";
}

int gf_ds_file_size(const char *path, uint64_t *size)
{
	struct stat st;

	if (stat(path, &st))
		return gf_error(-errno, "%s: %s", path, errno == ENOENT ? "missing" : strerror(errno));
	if (!S_ISREG(st.st_mode))
		return gf_error(-EBADMSG, "%s: not a regular file", path);
	*size = (uint64_t)st.st_size;
	return 0;
}

int gf_ds_map(const char *path, void **map, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	*map = NULL;
	*len = 0;
	if (fd < 0)
		return gf_error(-errno, "%s: %s", path, errno == ENOENT ? "missing" : strerror(errno));
	if (fstat(fd, &st)) {
		ret = gf_error_errno(-errno, path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = gf_error(-EBADMSG, "%s: not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		ret = gf_error(-EFBIG, "%s: too large to map", path);
		goto out;
	}
	if (st.st_size) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED) {
			ret = gf_error_errno(-errno, path);
			goto out;
		}
		*map = m;
		*len = (size_t)st.st_size;
	}
out:
	close(fd);
	return ret;
}

void gf_ds_sum_up(struct gf_dataset *d)
{
	struct gf_dataset_info *in = &d->info;
	uint64_t first = 0;
	bool any = false;

	in->samples = in->data_bytes = in->file_bytes = in->min_size = in->max_size = 0;
	in->align = 0;
	in->shards = d->nshards;
	for (unsigned s = 0; s < d->nshards; s++) {
		struct gf_ds_shard *sh = &d->shards[s];
		uint64_t lo = sh->mega.width ? 0 : sh->idx.min_size, hi = sh->mega.width ? 0 : sh->idx.max_size;

		for (uint64_t i = 0; sh->mega.width && i < sh->samples; i++) {
			uint64_t size = (uint64_t)gf_le32(sh->mega.sizes + 4 * i) * sh->mega.width;

			lo = !i || size < lo ? size : lo;
			hi = size > hi ? size : hi;
		}
		sh->first = first;
		first += sh->samples;
		in->data_bytes += sh->data_bytes;
		in->file_bytes += sh->file_bytes;
		if (!in->align || sh->align < in->align)
			in->align = sh->align;
		if (sh->samples) {
			in->min_size = !any || lo < in->min_size ? lo : in->min_size;
			in->max_size = hi > in->max_size ? hi : in->max_size;
			any = true;
		}
	}
	in->samples = first;
	in->record_size = any && in->min_size == in->max_size && in->min_size <= SIZE_MAX ? (size_t)in->min_size : 0;
}

unsigned gf_ds_shard_of(const struct gf_dataset *d, uint64_t i)
{
	unsigned lo = 0, hi = d->nshards;	/* the last shard whose first <= i, non-empty */

	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;

		if (d->shards[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	while (lo + 1 < d->nshards && d->shards[lo].first + d->shards[lo].samples <= i)
		lo++;
	return lo;
}

void gf_ds_locate(const struct gf_dataset *d, uint64_t i, struct gf_sample_loc *out)
{
	unsigned s = gf_ds_shard_of(d, i);
	const struct gf_ds_shard *sh = &d->shards[s];
	uint64_t r = i - sh->first;

	out->shard = s;
	out->record = r;
	if (sh->mega.width) {
		out->offset = gf_le64(sh->mega.pointers + 8 * r);
		out->size = (uint64_t)gf_le32(sh->mega.sizes + 4 * r) * sh->mega.width;
		out->checksum = 0;
		return;
	}
	out->offset = gf_idx_offset(&sh->idx, r);
	out->size = gf_idx_size(&sh->idx, r);
	out->checksum = gf_idx_sum(&sh->idx, r);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

static int open_path(struct gf_dataset *d, const char *path)
{
	char buf[PATH_MAX];
	struct stat st;

	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", path, GF_DS_MANIFEST) >= sizeof(buf))
			return gf_error(-ENAMETOOLONG, "%s: path too long", path);
		if (access(buf, F_OK))
			return gf_error(-ENOENT, "%s: not a dataset: no %s in it", path, GF_DS_MANIFEST);
		return gf_ds_open_manifest(d, buf, path);
	}
	if (ends_with(path, ".json")) {
		const char *slash = strrchr(path, '/');

		if (!slash)
			return gf_ds_open_manifest(d, path, ".");
		if ((size_t)(slash - path) >= sizeof(buf))
			return gf_error(-ENAMETOOLONG, "%s: path too long", path);
		memcpy(buf, path, (size_t)(slash - path));
		buf[slash - path] = 0;
		return gf_ds_open_manifest(d, path, slash == path ? "/" : buf);
	}
	if (gf_strlcpy(buf, path, sizeof(buf)) >= sizeof(buf))
		return gf_error(-ENAMETOOLONG, "%s: path too long", path);
	if (ends_with(buf, ".idx") || ends_with(buf, ".bin"))
		buf[strlen(buf) - 4] = 0;
	return gf_ds_open_megatron(d, buf);
}

int gf_dataset_open(const char *path, struct gf_dataset **out)
{
	struct gf_dataset *d;
	int ret;

	if (!path || !out)
		return GF_NULL_ARG(!path ? "path" : "out");
	*out = NULL;
	if (!*path)
		return gf_arg_error(__func__, "path is empty");
	if (!(d = calloc(1, sizeof(*d))) || !(d->path = strdup(path))) {
		free(d);
		return gf_error(-ENOMEM, "%s: out of memory", path);
	}
	d->info.path = d->path;
	if ((ret = open_path(d, path))) {
		gf_dataset_close(d);
		return ret;
	}
	d->info.name = d->name ? d->name : "";
	gf_ds_sum_up(d);
	*out = d;
	return 0;
}

void gf_dataset_close(struct gf_dataset *d)
{
	if (!d)
		return;
	for (unsigned s = 0; s < d->nshards; s++) {
		if (d->shards[s].map)
			munmap(d->shards[s].map, d->shards[s].map_len);
		free(d->shards[s].data_path);
		free(d->shards[s].index_path);
	}
	free(d->shards);
	free(d->name);
	free(d->path);
	free(d);
}

int gf_dataset_info(const struct gf_dataset *d, struct gf_dataset_info *out)
{
	if (!d || !out)
		return GF_NULL_ARG(!d ? "d" : "out");
	*out = d->info;
	return 0;
}

int gf_dataset_shard(const struct gf_dataset *d, unsigned i, struct gf_shard_info *out)
{
	const struct gf_ds_shard *sh;

	if (!d || !out)
		return GF_NULL_ARG(!d ? "d" : "out");
	if (i >= d->nshards)
		return gf_arg_error(__func__, "shard %u past the end (%u shards)", i, d->nshards);
	sh = &d->shards[i];
	*out = (struct gf_shard_info){
		.data_path = sh->data_path, .index_path = sh->index_path, .first_sample = sh->first,
		.samples = sh->samples, .data_bytes = sh->data_bytes, .file_bytes = sh->file_bytes,
		.align = sh->align,
	};
	return 0;
}

int gf_dataset_sample(const struct gf_dataset *d, uint64_t i, struct gf_sample_loc *out)
{
	if (!d || !out)
		return GF_NULL_ARG(!d ? "d" : "out");
	if (i >= d->info.samples)
		return gf_arg_error(__func__, "sample %llu past the end (%llu samples)", (unsigned long long)i,
				    (unsigned long long)d->info.samples);
	gf_ds_locate(d, i, out);
	return 0;
}

int gf_dataset_key(const struct gf_dataset *d, uint64_t i, const char **key, size_t *len)
{
	const struct gf_ds_shard *sh;
	uint64_t r, a;

	if (!d || !key || !len)
		return GF_NULL_ARG(!d ? "d" : !key ? "key" : "len");
	if (i >= d->info.samples)
		return gf_arg_error(__func__, "sample %llu past the end (%llu samples)", (unsigned long long)i,
				    (unsigned long long)d->info.samples);
	sh = &d->shards[gf_ds_shard_of(d, i)];
	r = i - sh->first;
	if (sh->mega.width) {
		*key = "";
		*len = 0;
		return 0;
	}
	a = gf_idx_key_off(&sh->idx, r);
	*key = (const char *)sh->idx.keys + a;
	*len = (size_t)(gf_idx_key_off(&sh->idx, r + 1) - a);
	return 0;
}

int gf_dataset_check_sample(const struct gf_dataset *d, uint64_t i, const void *data, size_t len)
{
	struct gf_sample_loc at;
	uint64_t sum;

	if (!d || !data)
		return GF_NULL_ARG(!d ? "d" : "data");
	if (i >= d->info.samples)
		return gf_arg_error(__func__, "sample %llu past the end (%llu samples)", (unsigned long long)i,
				    (unsigned long long)d->info.samples);
	gf_ds_locate(d, i, &at);
	if (len != at.size)
		return gf_error(-EBADMSG, "%s: record %llu (sample %llu, offset %llu): %zu bytes, the index says %llu",
				d->shards[at.shard].data_path, (unsigned long long)at.record, (unsigned long long)i,
				(unsigned long long)at.offset, len, (unsigned long long)at.size);
	sum = gf_checksum_of(d->info.checksum, data, len);
	if (sum != at.checksum)
		return gf_error(-EBADMSG, "%s: record %llu (sample %llu, offset %llu, %llu bytes): %s checksum "
				"%016llx, the index says %016llx: the data differs from what was packed",
				d->shards[at.shard].data_path, (unsigned long long)at.record, (unsigned long long)i,
				(unsigned long long)at.offset, (unsigned long long)at.size,
				gf_checksum_name(d->info.checksum), (unsigned long long)sum,
				(unsigned long long)at.checksum);
	return 0;
}
