/* Megatron-LM's indexed dataset (MMIDIDX), read as it is: PREFIX.idx holds
 * a 34-byte header (9-byte magic, u64 version 1, u8 dtype code, u64
 * sequence count, u64 document count), then int32 sizes[sequences] in
 * elements, int64 pointers[sequences] in bytes, int64 doc_idx[documents]
 * (and, multimodal, int8 modes[sequences]); PREFIX.bin the tokens.  One
 * sequence is one sample.  The layout and the dtype codes are those of
 * megatron/core/datasets/indexed_dataset.py (NVIDIA/Megatron-LM). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "dataset/dataset_impl.h"

#define MM_MAGIC	"MMIDIDX\0\0"
#define MM_MAGIC_LEN	9
#define MM_HEADER	34

/* Bytes per element of each dtype code (DType in indexed_dataset.py):
 * 1 uint8, 2 int8, 3 int16, 4 int32, 5 int64, 6 float64, 7 float32, 8 uint16. */
static const unsigned dtype_width[9] = { 0, 1, 1, 2, 4, 8, 8, 4, 2 };

static int bad(const char *idx, const char *what)
{
	return gf_error(-EBADMSG, "%s: not a sound Megatron index: %s", idx, what);
}

/* The .idx image against the .bin's size: every array inside the file,
 * every sequence inside the data file. */
int gf_mega_parse(const void *image, size_t len, uint64_t data_size, const char *idx, struct gf_mega *m,
		  uint64_t *data_bytes)
{
	const unsigned char *h = image;
	uint64_t n, docs, need, a, b, c;
	unsigned code;

	memset(m, 0, sizeof(*m));
	*data_bytes = 0;
	if (len < MM_HEADER)
		return bad(idx, "shorter than its 34-byte header");
	if (memcmp(h, MM_MAGIC, MM_MAGIC_LEN))
		return bad(idx, "no MMIDIDX magic");
	if (gf_le64(h + 9) != 1)
		return bad(idx, "version is not 1");
	code = h[17];
	if (code < 1 || code > 8)
		return gf_error(-EBADMSG, "%s: not a sound Megatron index: unknown dtype code %u (1..8)", idx, code);
	n = gf_le64(h + 18);
	docs = gf_le64(h + 26);
	if (__builtin_mul_overflow(n, 4, &a) || __builtin_mul_overflow(n, 8, &b) ||
	    __builtin_mul_overflow(docs, 8, &c) || __builtin_add_overflow(a, b, &need) ||
	    __builtin_add_overflow(need, c, &need) || __builtin_add_overflow(need, MM_HEADER, &need) || need > len)
		return bad(idx, "its sequence and document counts need more bytes than the file has (truncated?)");
	m->width = dtype_width[code];
	m->count = n;
	m->sizes = h + MM_HEADER;
	m->pointers = h + MM_HEADER + a;
	for (uint64_t i = 0; i < n; i++) {
		int32_t size = (int32_t)gf_le32(m->sizes + 4 * i);
		int64_t ptr = (int64_t)gf_le64(m->pointers + 8 * i);
		uint64_t bytes, end;

		if (size < 0 || ptr < 0 || __builtin_mul_overflow((uint64_t)size, m->width, &bytes) ||
		    __builtin_add_overflow((uint64_t)ptr, bytes, &end) || end > data_size)
			return gf_error(-EBADMSG, "%s: sequence %llu (pointer %lld, %d elements of %u bytes) leaves "
					"the data file (%llu bytes)", idx, (unsigned long long)i, (long long)ptr, size,
					m->width, (unsigned long long)data_size);
		*data_bytes += bytes;
	}
	for (uint64_t i = 0; i < docs; i++) {
		int64_t v = (int64_t)gf_le64(h + MM_HEADER + a + b + 8 * i);

		if (v < 0 || (uint64_t)v > n)
			return gf_error(-EBADMSG, "%s: not a sound Megatron index: document %llu starts at sequence "
					"%lld of %llu", idx, (unsigned long long)i, (long long)v, (unsigned long long)n);
	}
	return 0;
}

/* The largest power of two (at most 1 MiB) every sequence's offset is a
 * multiple of: Megatron packs sequences back to back. */
static unsigned common_align(const struct gf_mega *m)
{
	uint64_t bits = 0;
	unsigned align = GF_ALIGN_MAX;

	for (uint64_t i = 0; i < m->count; i++)
		bits |= gf_le64(m->pointers + 8 * i);
	while (align > 1 && (bits & (align - 1)))
		align >>= 1;
	return align;
}

int gf_ds_open_megatron(struct gf_dataset *d, const char *prefix)
{
	char bin[PATH_MAX], idx[PATH_MAX];
	struct gf_ds_shard *sh;
	const char *base;
	uint64_t size;
	int ret;

	d->info.kind = GF_DATASET_MEGATRON;
	d->info.checksum = GF_CHECKSUM_NONE;
	if ((size_t)snprintf(bin, sizeof(bin), "%s.bin", prefix) >= sizeof(bin) ||
	    (size_t)snprintf(idx, sizeof(idx), "%s.idx", prefix) >= sizeof(idx))
		return gf_error(-ENAMETOOLONG, "%s: path too long", prefix);
	if (access(idx, F_OK) && access(bin, F_OK))
		return gf_error(-ENOENT, "%s: not a dataset: no %s, and no %s.bin/.idx pair", prefix,
				GF_DS_MANIFEST, prefix);
	base = strrchr(prefix, '/');
	if (!(d->name = strdup(base ? base + 1 : prefix)) || !(d->shards = calloc(1, sizeof(*d->shards))))
		return gf_error(-ENOMEM, "%s: out of memory", prefix);
	d->nshards = 1;
	sh = &d->shards[0];
	if (!(sh->data_path = strdup(bin)) || !(sh->index_path = strdup(idx)))
		return gf_error(-ENOMEM, "%s: out of memory", prefix);
	if ((ret = gf_ds_file_size(bin, &size)) || (ret = gf_ds_map(idx, &sh->map, &sh->map_len)))
		return ret;
	if ((ret = gf_mega_parse(sh->map, sh->map_len, size, idx, &sh->mega, &sh->data_bytes)))
		return ret;
	sh->samples = sh->mega.count;
	sh->file_bytes = size;
	sh->align = common_align(&sh->mega);
	return 0;
}
