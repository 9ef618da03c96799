/* The dataset's manifest.json: written last by gf_pack, read first by
 * gf_dataset_open, which then checks every shard it names against it. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include <gpufeed/gpufeed.h>
#include "core/atomic.h"
#include "core/error.h"
#include "core/json_read.h"
#include "core/json_stamp.h"
#include "dataset/dataset_impl.h"

/* ---- writing ---- */

static json_t *hex64(uint64_t v)
{
	char buf[17];

	snprintf(buf, sizeof(buf), "%016" PRIx64, v);
	return json_string(buf);
}

static json_t *build(const struct gf_manifest *m)
{
	json_t *root = json_object(), *shards = json_array(), *created = json_object(), *inputs = json_array();
	uint64_t samples = 0, data = 0, file = 0, lo = 0, hi = 0;
	char when[64], by[96];
	bool any = false;

	if (!root || !shards || !created || !inputs || gf_json_timestamp(when, sizeof(when)))
		goto fail;
	for (unsigned i = 0; i < m->nshards; i++) {
		const struct gf_shard_summary *s = &m->shards[i];
		char bin[64], idx[64];
		json_t *o = json_object();

		gf_shard_names(i, bin, idx, sizeof(bin));
		json_array_append_new(shards, o);
		json_object_set_new(o, "data", json_string(bin));
		json_object_set_new(o, "index", json_string(idx));
		json_object_set_new(o, "samples", json_integer((json_int_t)s->samples));
		json_object_set_new(o, "data_bytes", json_integer((json_int_t)s->data_bytes));
		json_object_set_new(o, "file_bytes", json_integer((json_int_t)s->file_bytes));
		json_object_set_new(o, "index_bytes", json_integer((json_int_t)s->index_bytes));
		json_object_set_new(o, "index_xxh3", hex64(s->index_checksum));
		samples += s->samples;
		data += s->data_bytes;
		file += s->file_bytes;
		if (s->samples) {
			lo = !any || s->min_size < lo ? s->min_size : lo;
			hi = s->max_size > hi ? s->max_size : hi;
			any = true;
		}
	}
	json_object_set_new(root, "format", json_string(GF_DS_FORMAT));
	json_object_set_new(root, "version", json_integer(GF_DS_VERSION));
	json_object_set_new(root, "name", gf_jstr(m->name));
	json_object_set_new(root, "samples", json_integer((json_int_t)samples));
	json_object_set_new(root, "data_bytes", json_integer((json_int_t)data));
	json_object_set_new(root, "file_bytes", json_integer((json_int_t)file));
	json_object_set_new(root, "min_size", json_integer((json_int_t)lo));
	json_object_set_new(root, "max_size", json_integer((json_int_t)hi));
	if (any && lo == hi)
		json_object_set_new(root, "record_size", json_integer((json_int_t)lo));
	json_object_set_new(root, "checksum", json_string(gf_checksum_name(m->checksum)));
	json_object_set_new(root, "align", json_integer(m->align));
	json_object_set_new(root, "shards", shards);
	for (unsigned i = 0; i < m->ninputs; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "path", gf_jstr(m->inputs[i]));
		json_object_set_new(o, "kind", json_string(m->input_kinds[i]));
		json_array_append_new(inputs, o);
	}
	snprintf(by, sizeof(by), "gpufeed %s", gf_version());
	json_object_set_new(created, "by", json_string(by));
	json_object_set_new(created, "time", json_string(when));
	json_object_set_new(created, "inputs", inputs);
	json_object_set_new(root, "created", created);
	return root;
fail:
	json_decref(root);
	json_decref(shards);
	json_decref(created);
	json_decref(inputs);
	return NULL;
}

int gf_manifest_write(const char *dir, const struct gf_manifest *m)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	json_t *root = build(m);
	char *text = NULL;
	int fd = -1, ret = 0;
	size_t len, done = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, GF_DS_MANIFEST) >= sizeof(path))
		ret = gf_error(-ENAMETOOLONG, "%s: path too long", dir);
	else if (!root || !(text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER)))
		ret = gf_error(-ENOMEM, "%s: out of memory", path);
	if (ret || (ret = fd = gf_atomic_tmp(path, tmp, sizeof(tmp))) < 0)
		goto out;
	ret = 0;
	len = strlen(text);
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = gf_error_errno(-errno, path);
			goto out_tmp;
		}
		done += (size_t)n;
	}
	if (write(fd, "\n", 1) != 1 || fsync(fd) || fchmod(fd, 0644)) {
		ret = gf_error_errno(-(errno ? errno : EIO), path);
		goto out_tmp;
	}
	close(fd);
	fd = -1;
	/* Never over a manifest: two packs into one directory do not both win. */
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE)) {
		if (errno == EEXIST)
			ret = gf_error(-EEXIST, "%s: a manifest appeared while packing: not replaced", path);
		else if (errno == EINVAL || errno == ENOSYS)
			ret = link(tmp, path) ? gf_error_errno(-errno, path) : 0;
		else
			ret = gf_error_errno(-errno, path);
		goto out_tmp;
	}
	goto out;
out_tmp:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out:
	free(text);
	json_decref(root);
	return ret;
}

/* ---- reading ---- */

static int bad(const char *manifest, const char *fmt, const char *what)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, what);
	return gf_error(-EBADMSG, "%s: %s", manifest, msg);
}

/* A u64 member, present and >= 0. */
static int get_u64(const char *manifest, json_t *o, const char *where, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return gf_error(-EBADMSG, "%s: %s%s: %s", manifest, where, key,
				v ? "expected a non-negative integer" : "missing");
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* A shard's file name: a plain name inside the dataset's directory. */
static int shard_file(const char *manifest, const char *dir, json_t *o, const char *where, const char *key,
		      char **out)
{
	const char *name = json_string_value(json_object_get(o, key));
	char path[PATH_MAX];

	if (!name)
		return gf_error(-EBADMSG, "%s: %s%s: expected a file name", manifest, where, key);
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") || strlen(name) > 255)
		return gf_error(-EBADMSG, "%s: %s%s: '%s' is not a file name inside the dataset's directory",
				manifest, where, key, name);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return gf_error(-ENAMETOOLONG, "%s: path too long", dir);
	if (!(*out = strdup(path)))
		return gf_error(-ENOMEM, "%s: out of memory", manifest);
	return 0;
}

/* What the manifest says of a shard, kept to check the shard against. */
struct shard_claim {
	uint64_t index_bytes, index_sum;
};

static int parse_root(struct gf_dataset *d, json_t *root, const char *manifest, const char *dir,
		      struct shard_claim **claims)
{
	json_t *shards, *v;
	const char *s;
	uint64_t total, align, n;
	int ret;

	if (!json_is_object(root))
		return bad(manifest, "%s", "not a JSON object");
	s = json_string_value(json_object_get(root, "format"));
	if (!s || strcmp(s, GF_DS_FORMAT))
		return bad(manifest, "not a gpufeed dataset manifest (\"format\" is not \"%s\")", GF_DS_FORMAT);
	v = json_object_get(root, "version");
	if (!json_is_integer(v) || json_integer_value(v) != GF_DS_VERSION)
		return gf_error(-EBADMSG, "%s: format version %s; this gpufeed reads version %d", manifest,
				json_is_integer(v) ? "other than 1" : "missing", GF_DS_VERSION);
	s = json_string_value(json_object_get(root, "name"));
	if (!(d->name = strdup(s ? s : "")))
		return gf_error(-ENOMEM, "%s: out of memory", manifest);
	s = json_string_value(json_object_get(root, "checksum"));
	if (!s || gf_checksum_parse(s, &d->info.checksum))
		return bad(manifest, "checksum: expected one of xxh3, crc32c, none%s", "");
	if ((ret = get_u64(manifest, root, "", "samples", &total)) || (ret = get_u64(manifest, root, "", "align", &align)))
		return ret;
	if (!align || align > GF_ALIGN_MAX || (align & (align - 1)))
		return bad(manifest, "align: not a power of two of at most 1 MiB%s", "");
	shards = json_object_get(root, "shards");
	if (!json_is_array(shards))
		return bad(manifest, "shards: %s", shards ? "expected an array" : "missing");
	n = json_array_size(shards);
	if (n > 1000000)
		return bad(manifest, "shards: more than a million%s", "");
	if (n && (!(d->shards = calloc(n, sizeof(*d->shards))) || !(*claims = calloc(n, sizeof(**claims)))))
		return gf_error(-ENOMEM, "%s: out of memory", manifest);
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_array_get(shards, i);
		struct gf_ds_shard *sh = &d->shards[i];
		char where[64];
		const char *hex;
		char *end;

		snprintf(where, sizeof(where), "shards[%zu].", i);
		if (!json_is_object(o))
			return gf_error(-EBADMSG, "%s: shards[%zu]: expected an object", manifest, i);
		d->nshards = (unsigned)i + 1;
		if ((ret = shard_file(manifest, dir, o, where, "data", &sh->data_path)) ||
		    (ret = shard_file(manifest, dir, o, where, "index", &sh->index_path)) ||
		    (ret = get_u64(manifest, o, where, "samples", &sh->samples)) ||
		    (ret = get_u64(manifest, o, where, "data_bytes", &sh->data_bytes)) ||
		    (ret = get_u64(manifest, o, where, "file_bytes", &sh->file_bytes)) ||
		    (ret = get_u64(manifest, o, where, "index_bytes", &(*claims)[i].index_bytes)))
			return ret;
		hex = json_string_value(json_object_get(o, "index_xxh3"));
		errno = 0;
		if (!hex || strlen(hex) != 16 || ((*claims)[i].index_sum = strtoull(hex, &end, 16), *end || errno))
			return gf_error(-EBADMSG, "%s: %sindex_xxh3: expected 16 hex digits", manifest, where);
		sh->align = (unsigned)align;
		if (__builtin_add_overflow(d->info.samples, sh->samples, &d->info.samples))
			return gf_error(-EBADMSG, "%s: %ssamples: the total overflows", manifest, where);
	}
	if (d->info.samples != total)
		return gf_error(-EBADMSG, "%s: samples is %llu but the shards hold %llu", manifest,
				(unsigned long long)total, (unsigned long long)d->info.samples);
	return 0;
}

static int parse_text(struct gf_dataset *d, const char *text, size_t len, const char *manifest, const char *dir,
		      struct shard_claim **claims)
{
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	int ret;

	if (!root)
		return gf_error(-EBADMSG, "%s: line %d: %s", manifest, jerr.line, jerr.text);
	ret = parse_root(d, root, manifest, dir, claims);
	json_decref(root);
	return ret;
}

int gf_ds_manifest_parse(struct gf_dataset *d, const char *text, size_t len, const char *manifest, const char *dir)
{
	struct shard_claim *claims = NULL;
	int ret = parse_text(d, text, len, manifest, dir, &claims);

	free(claims);
	return ret;
}

/* Shard i against its index and data file and what the manifest says. */
/* A data file whose size is not the manifest's: which records it lost. */
static int wrong_size(const struct gf_dataset *d, unsigned shard, uint64_t size)
{
	const struct gf_ds_shard *sh = &d->shards[shard];
	uint64_t r = 0, first = 0;

	for (unsigned j = 0; j < shard; j++)
		first += d->shards[j].samples;

	if (size > sh->file_bytes)
		return gf_error(-EBADMSG, "%s: %llu bytes, the manifest says %llu (grown or replaced)", sh->data_path,
				(unsigned long long)size, (unsigned long long)sh->file_bytes);
	while (r < sh->idx.count && gf_idx_offset(&sh->idx, r) + gf_idx_size(&sh->idx, r) <= size)
		r++;
	if (r == sh->idx.count)
		return gf_error(-EBADMSG, "%s: %llu bytes, the manifest says %llu (truncated in the padding after "
				"the last record)", sh->data_path, (unsigned long long)size,
				(unsigned long long)sh->file_bytes);
	return gf_error(-EBADMSG, "%s: %llu bytes, the manifest says %llu (truncated): record %llu (sample %llu, "
			"offset %llu) and the %llu after it are past its end", sh->data_path, (unsigned long long)size,
			(unsigned long long)sh->file_bytes, (unsigned long long)r,
			(unsigned long long)(first + r), (unsigned long long)gf_idx_offset(&sh->idx, r),
			(unsigned long long)(sh->idx.count - r - 1));
}

/* Shard i against its index and data file and what the manifest says. */
static int open_shard(struct gf_dataset *d, unsigned i, const struct shard_claim *c)
{
	struct gf_ds_shard *sh = &d->shards[i];
	uint64_t size;
	int ret;

	if ((ret = gf_ds_file_size(sh->data_path, &size)))
		return ret;
	if ((ret = gf_ds_map(sh->index_path, &sh->map, &sh->map_len)))
		return ret;
	if (sh->map_len != c->index_bytes)
		return gf_error(-EBADMSG, "%s: %zu bytes, the manifest says %llu (%s)", sh->index_path, sh->map_len,
				(unsigned long long)c->index_bytes,
				sh->map_len < c->index_bytes ? "truncated" : "grown or replaced");
	if (gf_checksum_of(GF_CHECKSUM_XXH3, sh->map, sh->map_len) != c->index_sum)
		return gf_error(-EBADMSG, "%s: corrupt index: its xxh3 differs from the manifest's", sh->index_path);
	/* Checked against the size the manifest gives, so that a data file
	 * of another size is said with the records it lacks. */
	if ((ret = gf_idx_parse(sh->map, sh->map_len, sh->file_bytes, sh->index_path, &sh->idx)))
		return ret;
	if (sh->idx.count != sh->samples || sh->idx.data_bytes != sh->data_bytes)
		return gf_error(-EBADMSG, "%s: %llu records of %llu bytes, the manifest says %llu of %llu",
				sh->index_path, (unsigned long long)sh->idx.count,
				(unsigned long long)sh->idx.data_bytes, (unsigned long long)sh->samples,
				(unsigned long long)sh->data_bytes);
	if (sh->idx.checksum != d->info.checksum)
		return gf_error(-EBADMSG, "%s: checksum %s, the manifest says %s", sh->index_path,
				gf_checksum_name(sh->idx.checksum), gf_checksum_name(d->info.checksum));
	if (size != sh->file_bytes)
		return wrong_size(d, i, size);
	sh->align = sh->idx.align;
	return 0;
}

int gf_ds_open_manifest(struct gf_dataset *d, const char *manifest, const char *dir)
{
	struct shard_claim *claims = NULL;
	void *map = NULL;
	size_t len = 0;
	int ret;

	d->info.kind = GF_DATASET_GPUFEED;
	if ((ret = gf_ds_map(manifest, &map, &len)))
		return ret;
	if (len > (64u << 20)) {
		ret = gf_error(-EBADMSG, "%s: over 64 MiB: not a manifest", manifest);
		goto out;
	}
	if ((ret = parse_text(d, map ? map : "", len, manifest, dir, &claims)))
		goto out;
	for (unsigned i = 0; i < d->nshards; i++)
		if ((ret = open_shard(d, i, &claims[i])))
			goto out;
out:
	if (map)
		munmap(map, len);
	free(claims);
	return ret;
}
