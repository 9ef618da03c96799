/* gpufeed's dataset format on disk (docs/dataset-format.md) and the shard
 * writer gf_pack uses.  A shard is a data file of records, each starting
 * at a multiple of the shard's alignment with zeros between them, and an
 * index: a fixed little-endian header, then flat arrays of u64 (offsets,
 * sizes, checksums, key offsets) and the keys' bytes, so a reader maps it
 * and reads it in place as Megatron-LM's .idx is read. */
#ifndef GF_DATASET_FORMAT_H
#define GF_DATASET_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gpufeed/dataset.h>

#define GF_DS_FORMAT		"gpufeed-dataset"
#define GF_DS_VERSION		1
#define GF_DS_MANIFEST		"manifest.json"

/* The index header, 128 bytes; every field little-endian. */
#define GF_IDX_MAGIC		"GFSHIDX\0"	/* 8 bytes */
#define GF_IDX_VERSION		1u
#define GF_IDX_HEADER_SIZE	128u
enum gf_idx_field {			/* byte offsets into the header */
	GF_IDX_OFF_MAGIC = 0,		/* char[8] */
	GF_IDX_OFF_VERSION = 8,		/* u32 */
	GF_IDX_OFF_CHECKSUM = 12,	/* u32: enum gf_checksum of the records */
	GF_IDX_OFF_COUNT = 16,		/* u64: records */
	GF_IDX_OFF_ALIGN = 24,		/* u32: a power of two, 1..1 MiB */
	GF_IDX_OFF_FLAGS = 28,		/* u32: 0 */
	GF_IDX_OFF_DATA_SIZE = 32,	/* u64: the data file's size */
	GF_IDX_OFF_INDEX_SIZE = 40,	/* u64: this file's size */
	GF_IDX_OFF_OFFSETS = 48,	/* u64: where u64 offsets[count] start */
	GF_IDX_OFF_SIZES = 56,		/* u64: u64 sizes[count] */
	GF_IDX_OFF_SUMS = 64,		/* u64: u64 checksums[count] */
	GF_IDX_OFF_KEY_OFFSETS = 72,	/* u64: u64 key_offsets[count + 1] */
	GF_IDX_OFF_KEYS = 80,		/* u64: the keys' bytes */
	GF_IDX_OFF_KEYS_SIZE = 88,	/* u64: key_offsets[count] */
	/* 96..119: zero */
	GF_IDX_OFF_HEADER_SUM = 120,	/* u64: XXH3_64bits of bytes 0..119 */
};
#define GF_ALIGN_MAX		(1u << 20)

static inline uint64_t gf_le64(const void *p)
{
	const unsigned char *b = p;
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static inline uint32_t gf_le32(const void *p)
{
	const unsigned char *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline void gf_put_le64(void *p, uint64_t v)
{
	unsigned char *b = p;

	for (int i = 0; i < 8; i++, v >>= 8)
		b[i] = (unsigned char)v;
}

static inline void gf_put_le32(void *p, uint32_t v)
{
	unsigned char *b = p;

	for (int i = 0; i < 4; i++, v >>= 8)
		b[i] = (unsigned char)v;
}

/* "shard-00042.bin" / ".idx". */
void gf_shard_names(unsigned shard, char *bin, char *idx, size_t size);

/* Incremental checksums (one record fed in pieces). */
struct gf_checksum_state {
	enum gf_checksum kind;
	uint32_t crc;
	void *xxh;			/* XXH3_state_t, owned */
};
int gf_checksum_begin(struct gf_checksum_state *s, enum gf_checksum kind);
void gf_checksum_update(struct gf_checksum_state *s, const void *data, size_t len);
uint64_t gf_checksum_end(struct gf_checksum_state *s);
void gf_checksum_free(struct gf_checksum_state *s);
/* CRC32C of len bytes continuing from crc (0 to start): the same as the
 * iSCSI/ext4 one. */
uint32_t gf_crc32c(uint32_t crc, const void *data, size_t len);

/* What an index holds, as validated by gf_idx_parse: pointers into the
 * mapped file.  Every offset and size was checked against index and data
 * sizes with overflow-checked arithmetic. */
struct gf_idx {
	const unsigned char *base;
	size_t len;
	uint32_t version;
	enum gf_checksum checksum;
	uint64_t count;
	unsigned align;
	uint64_t data_size;
	const unsigned char *offsets, *sizes, *sums, *key_offsets, *keys;
	uint64_t keys_size;
	uint64_t data_bytes;		/* sum of sizes */
	uint64_t min_size, max_size;
};
/* Checks an index image of len bytes whose data file is data_size bytes;
 * `name` is the index's path for messages.  0 or -EBADMSG naming it and,
 * where one is at fault, the record. */
int gf_idx_parse(const void *image, size_t len, uint64_t data_size, const char *name, struct gf_idx *out);

static inline uint64_t gf_idx_offset(const struct gf_idx *x, uint64_t i) { return gf_le64(x->offsets + 8 * i); }
static inline uint64_t gf_idx_size(const struct gf_idx *x, uint64_t i) { return gf_le64(x->sizes + 8 * i); }
static inline uint64_t gf_idx_sum(const struct gf_idx *x, uint64_t i) { return gf_le64(x->sums + 8 * i); }
static inline uint64_t gf_idx_key_off(const struct gf_idx *x, uint64_t i) { return gf_le64(x->key_offsets + 8 * i); }

/* ---- the shard writer ---- */

struct gf_shard_writer;

struct gf_shard_summary {
	uint64_t samples, data_bytes, file_bytes, index_bytes;
	uint64_t index_checksum;	/* XXH3_64bits of the whole index file */
	uint64_t min_size, max_size;
};

/* A shard `shard` of dir, written to temporary names beside its own.
 * 0, -ENOMEM, or what creating the files answered (message names them). */
int gf_shard_writer_open(const char *dir, unsigned shard, unsigned align, enum gf_checksum checksum,
			 struct gf_shard_writer **out);
/* A record fed in pieces: begin, any number of appends, end. */
int gf_shard_writer_begin(struct gf_shard_writer *w, const char *key, size_t keylen);
int gf_shard_writer_append(struct gf_shard_writer *w, const void *data, size_t len);
int gf_shard_writer_end(struct gf_shard_writer *w);
/* One record at once. */
int gf_shard_writer_add(struct gf_shard_writer *w, const void *data, size_t len, const char *key, size_t keylen);
/* Records so far and the data file's size if a record of len bytes came next. */
uint64_t gf_shard_writer_records(const struct gf_shard_writer *w);
uint64_t gf_shard_writer_size_after(const struct gf_shard_writer *w, uint64_t len);
/* Writes the index, syncs both files and renames them into place (the data
 * file first: an index is never there without its data).  Frees w either
 * way. */
int gf_shard_writer_finish(struct gf_shard_writer *w, struct gf_shard_summary *out);
/* Removes the temporary files and frees w; NULL does nothing. */
void gf_shard_writer_abort(struct gf_shard_writer *w);

/* ---- the manifest ---- */

struct gf_manifest {
	const char *name;
	enum gf_checksum checksum;
	unsigned align;
	unsigned nshards;
	const struct gf_shard_summary *shards;	/* shard i is shard-<i>.bin/.idx */
	const char *const *inputs;		/* as given, with their kinds */
	const char *const *input_kinds;
	unsigned ninputs;
};
/* Writes dir/manifest.json (a temporary file, synced, then renamed where
 * no manifest is: -EEXIST if one appeared meanwhile).  0 or -errno naming it. */
int gf_manifest_write(const char *dir, const struct gf_manifest *m);

#endif
