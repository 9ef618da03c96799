/* gf_pack: the inputs' records into shards of about shard_bytes, then the
 * manifest.  Each shard is written to temporary names and renamed when
 * whole (dataset/format.h); the manifest is written last and never over
 * another, so an interrupted pack leaves a directory no reader opens. */
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
#include "dataset/format.h"
#include "pack/pack_impl.h"

static const char *const input_names[GF_PACK_INPUTS] = { "auto", "files", "lines", "tar", "records" };

const char *gf_pack_input_name(enum gf_pack_input k)
{
	return (unsigned)k < GF_PACK_INPUTS ? input_names[k] : "?";
}

int gf_pack_input_parse(const char *name, enum gf_pack_input *out)
{
	if (!name || !out)
		return GF_NULL_ARG(!name ? "name" : "out");
	for (unsigned i = 0; i < GF_PACK_INPUTS; i++)
		if (!strcmp(name, input_names[i])) {
			*out = (enum gf_pack_input)i;
			return 0;
		}
	return gf_arg_error(__func__, "unknown input kind '%s' (auto, files, lines, tar, records)", name);
}

struct gf_pack_out {
	const char *dir;
	const struct gf_pack_opts *opts;
	uint64_t shard_bytes;
	unsigned align;
	struct gf_shard_writer *w;
	unsigned shard;			/* the one w writes */
	struct gf_shard_summary *done;	/* shards finished */
	unsigned ndone, cap;
	uint64_t left;			/* bytes the open record still expects */
	bool in_record;
};

static int finish_shard(struct gf_pack_out *o)
{
	struct gf_shard_summary s;
	int ret;

	if (!o->w)
		return 0;
	if (o->ndone == o->cap) {
		unsigned cap = o->cap ? o->cap * 2 : 16;
		struct gf_shard_summary *n = realloc(o->done, cap * sizeof(*n));

		if (!n)
			return gf_error(-ENOMEM, "%s: out of memory", o->dir);
		o->done = n;
		o->cap = cap;
	}
	ret = gf_shard_writer_finish(o->w, &s);
	o->w = NULL;
	if (ret)
		return ret;
	o->done[o->ndone++] = s;
	if (o->opts->on_shard)
		o->opts->on_shard(o->opts->user, o->shard, s.samples, s.file_bytes);
	o->shard++;
	return 0;
}

int gf_pack_begin(struct gf_pack_out *o, uint64_t size, const char *key, size_t keylen)
{
	int ret;

	if (o->w && gf_shard_writer_records(o->w) && gf_shard_writer_size_after(o->w, size) > o->shard_bytes &&
	    (ret = finish_shard(o)))
		return ret;
	if (!o->w && (ret = gf_shard_writer_open(o->dir, o->shard, o->align, o->opts->checksum, &o->w)))
		return ret;
	if ((ret = gf_shard_writer_begin(o->w, key, keylen)))
		return ret;
	o->left = size;
	o->in_record = true;
	return 0;
}

int gf_pack_data(struct gf_pack_out *o, const void *data, size_t len)
{
	if (len > o->left)
		return gf_error(-EIO, "%s: a record grew while it was packed", o->dir);
	o->left -= len;
	return gf_shard_writer_append(o->w, data, len);
}

int gf_pack_end(struct gf_pack_out *o)
{
	if (o->left)
		return gf_error(-EIO, "%s: a record shrank while it was packed (%llu bytes short)", o->dir,
				(unsigned long long)o->left);
	o->in_record = false;
	return gf_shard_writer_end(o->w);
}

int gf_pack_record(struct gf_pack_out *o, const void *data, size_t len, const char *key, size_t keylen)
{
	int ret;

	if ((ret = gf_pack_begin(o, len, key, keylen)) || (ret = gf_pack_data(o, data, len)))
		return ret;
	return gf_pack_end(o);
}

int gf_pack_read_full(int fd, void *buf, size_t len, const char *path)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return gf_error(-EIO, "%s: %s", path, strerror(errno));
		if (!n)
			return gf_error(-EIO, "%s: ended early (shrank while it was packed?)", path);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* What an input is, when AUTO. */
static int input_kind(const char *path, const struct gf_pack_opts *opts, enum gf_pack_input *kind)
{
	struct stat st;

	if (stat(path, &st))
		return gf_error(-errno, "%s: %s", path, strerror(errno));
	if (opts->input != GF_PACK_AUTO) {
		*kind = opts->input;
		if ((*kind == GF_PACK_FILES) != !!S_ISDIR(st.st_mode))
			return gf_error(-EINVAL, "%s: %s input %s", path, gf_pack_input_name(*kind),
					S_ISDIR(st.st_mode) ? "is a file, not a directory" : "is a directory");
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		*kind = GF_PACK_FILES;
	else if (ends_with(path, ".tar"))
		*kind = GF_PACK_TAR;
	else if (ends_with(path, ".jsonl") || ends_with(path, ".txt") || ends_with(path, ".json"))
		*kind = GF_PACK_LINES;
	else if (opts->record_size)
		*kind = GF_PACK_RECORDS;
	else
		return gf_error(-EINVAL, "%s: what kind of input? (a directory, .tar, .jsonl/.txt/.json, or a "
				"record size for fixed-size records; or name the kind)", path);
	return 0;
}

static int check_opts(const char *const *inputs, unsigned ninputs, const char *outdir,
		      const struct gf_pack_opts *opts)
{
	if (!inputs || !outdir || !opts)
		return gf_arg_error("gf_pack", "%s is NULL", !inputs ? "inputs" : !outdir ? "outdir" : "opts");
	if (opts->struct_size < sizeof(*opts))
		return gf_arg_error("gf_pack", "opts: struct_size %zu: start from GF_PACK_OPTS_INIT", opts->struct_size);
	if (!ninputs)
		return gf_arg_error("gf_pack", "ninputs is 0: nothing to pack");
	for (unsigned i = 0; i < ninputs; i++)
		if (!inputs[i])
			return gf_arg_error("gf_pack", "inputs[%u] is NULL", i);
	if ((unsigned)opts->input >= GF_PACK_INPUTS)
		return gf_arg_error("gf_pack", "opts->input %d out of range", (int)opts->input);
	if (opts->input == GF_PACK_RECORDS && !opts->record_size)
		return gf_arg_error("gf_pack", "opts->record_size is 0 for records input");
	if (opts->checksum != GF_CHECKSUM_XXH3 && opts->checksum != GF_CHECKSUM_CRC32C)
		return gf_arg_error("gf_pack", "opts->checksum %d: xxh3 or crc32c", (int)opts->checksum);
	if (opts->align > GF_ALIGN_MAX || (opts->align & (opts->align - 1)))
		return gf_arg_error("gf_pack", "opts->align %u: a power of two of at most 1 MiB", opts->align);
	return 0;
}

/* A temporary file an interrupted pack left: shard-N.bin.tmp-XXXXXX,
 * shard-N.idx.tmp-XXXXXX or manifest.json.tmp-XXXXXX (gf_atomic_tmp's names). */
static bool leftover(const char *name)
{
	const char *p = name, *tmp = strstr(name, ".tmp-");

	if (!tmp || strlen(tmp) != strlen(".tmp-XXXXXX"))
		return false;
	if (!strncmp(name, GF_DS_MANIFEST, strlen(GF_DS_MANIFEST)))
		return tmp == name + strlen(GF_DS_MANIFEST);
	if (strncmp(p, "shard-", 6))
		return false;
	for (p += 6; *p >= '0' && *p <= '9'; p++)
		;
	return p > name + 6 && (!strncmp(p, ".bin.tmp-", 9) || !strncmp(p, ".idx.tmp-", 9)) && p + 4 == tmp;
}

/* An interrupted pack (killed: it had no chance to clean up) left
 * temporary files; a pack into the same directory removes them. */
static void remove_leftovers(const char *outdir)
{
	DIR *dir = opendir(outdir);
	struct dirent *de;

	if (!dir)
		return;
	while ((de = readdir(dir)))
		if (leftover(de->d_name))
			unlinkat(dirfd(dir), de->d_name, 0);
	closedir(dir);
}

/* outdir exists (made here if not) and holds no manifest. */
static int prepare_dir(const char *outdir)
{
	char path[PATH_MAX];
	struct stat st;

	if (mkdir(outdir, 0755) && errno != EEXIST)
		return gf_error(-errno, "%s: %s", outdir, strerror(errno));
	if (stat(outdir, &st))
		return gf_error(-errno, "%s: %s", outdir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return gf_error(-ENOTDIR, "%s: not a directory", outdir);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", outdir, GF_DS_MANIFEST) >= sizeof(path))
		return gf_error(-ENAMETOOLONG, "%s: path too long", outdir);
	if (!access(path, F_OK))
		return gf_error(-EEXIST, "%s: already holds a dataset (%s): not packed over it", outdir, GF_DS_MANIFEST);
	remove_leftovers(outdir);
	return 0;
}

/* A pack that failed takes back the shards it finished. */
static void remove_shards(const char *outdir, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		char bin[64], idx[64], path[PATH_MAX];

		gf_shard_names(i, bin, idx, sizeof(bin));
		snprintf(path, sizeof(path), "%s/%s", outdir, idx);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", outdir, bin);
		unlink(path);
	}
}

static const char *dir_name(const char *outdir, char *buf, size_t size)
{
	size_t n = strlen(outdir);
	const char *slash;

	while (n > 1 && outdir[n - 1] == '/')
		n--;
	if (n >= size)
		n = size - 1;
	memcpy(buf, outdir, n);
	buf[n] = 0;
	slash = strrchr(buf, '/');
	return slash && slash[1] ? slash + 1 : buf;
}

int gf_pack(const char *const *inputs, unsigned ninputs, const char *outdir, const struct gf_pack_opts *opts,
	    struct gf_pack_result *result)
{
	struct gf_pack_out o = { 0 };
	enum gf_pack_input *kinds = NULL;
	const char **kind_names = NULL;
	char namebuf[PATH_MAX];
	int ret;

	if ((ret = check_opts(inputs, ninputs, outdir, opts)))
		return ret;
	if (!(kinds = calloc(ninputs, sizeof(*kinds))) || !(kind_names = calloc(ninputs, sizeof(*kind_names)))) {
		ret = gf_error(-ENOMEM, "%s: out of memory", outdir);
		goto out;
	}
	for (unsigned i = 0; i < ninputs; i++) {
		if ((ret = input_kind(inputs[i], opts, &kinds[i])))
			goto out;
		kind_names[i] = gf_pack_input_name(kinds[i]);
	}
	if ((ret = prepare_dir(outdir)))
		goto out;
	o.dir = outdir;
	o.opts = opts;
	o.shard_bytes = opts->shard_bytes ? opts->shard_bytes : GF_PACK_SHARD_DEFAULT;
	o.align = opts->align ? opts->align : GF_PACK_ALIGN_DEFAULT;
	for (unsigned i = 0; i < ninputs && !ret; i++) {
		switch (kinds[i]) {
		case GF_PACK_FILES:
			ret = gf_pack_files(&o, inputs[i]);
			break;
		case GF_PACK_LINES:
			ret = gf_pack_lines(&o, inputs[i]);
			break;
		case GF_PACK_TAR:
			ret = gf_pack_tar(&o, inputs[i]);
			break;
		default:
			ret = gf_pack_records(&o, inputs[i], opts->record_size);
			break;
		}
	}
	if (!ret)
		ret = finish_shard(&o);
	if (!ret && !o.ndone)
		ret = gf_error(-EINVAL, "%s: no samples in %s%s: nothing packed", outdir, inputs[0],
			       ninputs > 1 ? " and the other inputs" : "");
	if (!ret) {
		struct gf_manifest m = {
			.name = opts->name ? opts->name : dir_name(outdir, namebuf, sizeof(namebuf)),
			.checksum = opts->checksum, .align = o.align, .nshards = o.ndone, .shards = o.done,
			.inputs = inputs, .input_kinds = kind_names, .ninputs = ninputs,
		};

		ret = gf_manifest_write(outdir, &m);
	}
	if (!ret && result) {
		*result = (struct gf_pack_result){ .shards = o.ndone };
		for (unsigned i = 0; i < o.ndone; i++) {
			result->samples += o.done[i].samples;
			result->data_bytes += o.done[i].data_bytes;
			result->file_bytes += o.done[i].file_bytes;
		}
	}
	if (ret)
		remove_shards(outdir, o.ndone);
out:
	gf_shard_writer_abort(o.w);
	free(o.done);
	free(kinds);
	free(kind_names);
	return ret;
}
