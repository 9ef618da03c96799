/* Datasets for the loader: gpufeed's shard format (docs/dataset-format.md),
 * written by gf_pack, and Megatron-LM's .bin/.idx pairs read as they are.
 *
 *   struct gf_pack_opts po = GF_PACK_OPTS_INIT;      // 1 GiB shards, xxh3
 *   const char *in[] = { "images/" };
 *   gf_pack(in, 1, "ds/", &po, NULL);                 // ds/manifest.json, shards
 *
 *   struct gf_dataset *d;
 *   gf_dataset_open("ds", &d);                        // or "corpus_text_document" (Megatron)
 *   struct gf_sample_loc at;
 *   gf_dataset_sample(d, 17, &at);                    // shard, offset, size
 *   gf_dataset_close(d);
 *
 * A dataset is a list of shards; a shard is a data file of records and an
 * index: per record its offset, size, key and checksum, flat little-endian
 * arrays behind a fixed header, mapped read-only (Megatron's .idx habit).
 * Records start at multiples of the shard's alignment (4096 by default) so
 * a record, or a run of them, can be read with O_DIRECT.  Samples are
 * numbered 0..samples-1 in shard order, then record order.
 *
 * Opening checks the manifest and every index against the data files'
 * sizes (a truncated shard, an index whose offsets leave the file, a count
 * that disagrees with the manifest), never the records' bytes: that is
 * gf_dataset_verify, or gf_dataset_check_sample for one record.  Errors are
 * -errno with gf_last_error() naming the dataset, the shard and, where it
 * applies, the record: -ENOENT a missing file, -EBADMSG a malformed or
 * inconsistent index or manifest, a checksum mismatch, -EINVAL bad
 * arguments.  A gf_dataset is read-only after opening: any number of
 * threads may query it at once. */
#ifndef GPUFEED_DATASET_H
#define GPUFEED_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a record's checksum is computed. */
enum gf_checksum {
	GF_CHECKSUM_XXH3 = 0,	/* XXH3_64bits (xxHash 0.8) */
	GF_CHECKSUM_CRC32C,	/* Castagnoli, as iSCSI and ext4 */
	GF_CHECKSUM_NONE,	/* Megatron datasets carry none */
};
#define GF_CHECKSUMS 3
/* "xxh3", "crc32c", "none"; "?" out of range. */
GF_API const char *gf_checksum_name(enum gf_checksum c);
/* 0, or -EINVAL naming the word. */
GF_API int gf_checksum_parse(const char *name, enum gf_checksum *out);
/* The checksum of len bytes at data, as the format stores it (CRC32C in
 * the low 32 bits).  GF_CHECKSUM_NONE is 0. */
GF_API uint64_t gf_checksum_of(enum gf_checksum c, const void *data, size_t len);

/* What gf_pack reads.  GF_PACK_AUTO: a directory is a tree of files, a
 * name ending in .tar a WebDataset shard, .jsonl/.txt/.json lines, and a
 * flat file with record_size set fixed-size records. */
enum gf_pack_input {
	GF_PACK_AUTO = 0,
	GF_PACK_FILES,		/* a directory tree: one sample per regular file,
				 * key = its path below the directory, in byte
				 * order of the paths (reproducible) */
	GF_PACK_LINES,		/* one sample per line (JSON Lines or text), the
				 * newline dropped, key = "<file>:<line>" */
	GF_PACK_TAR,		/* WebDataset: files of one key (the name up to
				 * the first dot of its last component) are one
				 * sample, stored as a small tar of those files */
	GF_PACK_RECORDS,	/* a flat file of record_size-byte records */
};
#define GF_PACK_INPUTS 5
/* "auto", "files", "lines", "tar", "records"; "?" out of range. */
GF_API const char *gf_pack_input_name(enum gf_pack_input k);
/* 0, or -EINVAL naming the word. */
GF_API int gf_pack_input_parse(const char *name, enum gf_pack_input *out);

#define GF_PACK_SHARD_DEFAULT	(1ull << 30)
#define GF_PACK_ALIGN_DEFAULT	4096u

/* Versioned (include/gpufeed/common.h): start from GF_PACK_OPTS_INIT. */
struct gf_pack_opts {
	size_t struct_size;	/* sizeof(struct gf_pack_opts), set by GF_PACK_OPTS_INIT */
	enum gf_pack_input input;
	size_t record_size;	/* GF_PACK_RECORDS: bytes per record, > 0 */
	uint64_t shard_bytes;	/* data bytes per shard before a new one starts
				 * (a record never spans two); 0: 1 GiB */
	unsigned align;		/* record alignment, a power of two 1..1 MiB;
				 * 0: 4096 (O_DIRECT) */
	enum gf_checksum checksum;	/* XXH3 or CRC32C */
	const char *name;	/* the manifest's "name"; NULL: OUTDIR's name */
	/* Called after each shard is complete (renamed into place); may be NULL. */
	void (*on_shard)(void *user, unsigned shard, uint64_t samples, uint64_t bytes);
	void *user;
};
#define GF_PACK_OPTS_INIT { .struct_size = sizeof(struct gf_pack_opts) }

struct gf_pack_result {
	uint64_t samples;
	uint64_t shards;
	uint64_t data_bytes;	/* the records' own bytes, without alignment padding */
	uint64_t file_bytes;	/* the shards' data files, padding included */
};

/* Packs the inputs into outdir (created if missing; it must not already
 * hold a dataset).  Shards and the manifest are written to temporary
 * names, synced, then renamed, the manifest last: an interrupted pack
 * leaves no shard or manifest that looks whole.  result may be NULL.  0,
 * -EINVAL (arguments, a record_size the input's size is not a multiple
 * of), -ENOENT/-EACCES an input, -EEXIST outdir holds a dataset, -EBADMSG
 * a malformed input (a tar header, a line too long), -ENOSPC, each naming
 * the input or output file. */
GF_API int gf_pack(const char *const *inputs, unsigned ninputs, const char *outdir, const struct gf_pack_opts *opts,
		   struct gf_pack_result *result);

enum gf_dataset_kind {
	GF_DATASET_GPUFEED = 0,	/* manifest.json and shards */
	GF_DATASET_MEGATRON,	/* one .bin/.idx pair (MMIDIDX), read as is */
};
/* "gpufeed", "megatron"; "?" out of range. */
GF_API const char *gf_dataset_kind_name(enum gf_dataset_kind k);

struct gf_dataset;

/* path: a directory with manifest.json, that manifest itself, or a
 * Megatron prefix (PREFIX.bin and PREFIX.idx; PREFIX.idx or PREFIX.bin
 * named directly work too).  Closed with gf_dataset_close. */
GF_API int gf_dataset_open(const char *path, struct gf_dataset **out);
/* NULL does nothing. */
GF_API void gf_dataset_close(struct gf_dataset *d);

/* The dataset as a whole; every pointer lives as long as the dataset. */
struct gf_dataset_info {
	enum gf_dataset_kind kind;
	const char *path;	/* as opened */
	const char *name;	/* the manifest's name; the prefix's for Megatron */
	uint64_t samples;
	unsigned shards;
	uint64_t data_bytes;	/* sum of the records' sizes */
	uint64_t file_bytes;	/* sum of the data files' sizes */
	size_t record_size;	/* every record has this size; 0 when they vary */
	uint64_t min_size, max_size;
	enum gf_checksum checksum;
	unsigned align;		/* the smallest alignment of the shards' records */
};
/* Fills out: 0, or -EINVAL (d or out NULL). */
GF_API int gf_dataset_info(const struct gf_dataset *d, struct gf_dataset_info *out);

struct gf_shard_info {
	const char *data_path;	/* the data file (.bin) */
	const char *index_path;	/* its index (.idx) */
	uint64_t first_sample;	/* the dataset-wide number of its first record */
	uint64_t samples;
	uint64_t data_bytes;
	uint64_t file_bytes;
	unsigned align;
};
/* Shard i (0 <= i < shards): 0, or -EINVAL past the end. */
GF_API int gf_dataset_shard(const struct gf_dataset *d, unsigned i, struct gf_shard_info *out);

/* Where sample i is. */
struct gf_sample_loc {
	unsigned shard;
	uint64_t record;	/* its number inside the shard */
	uint64_t offset;	/* in the shard's data file */
	uint64_t size;
	uint64_t checksum;	/* as stored; 0 for GF_CHECKSUM_NONE */
};
/* 0, or -EINVAL when i >= samples. */
GF_API int gf_dataset_sample(const struct gf_dataset *d, uint64_t i, struct gf_sample_loc *out);
/* Sample i's key (not NUL-terminated; *len 0 when the format has none). */
GF_API int gf_dataset_key(const struct gf_dataset *d, uint64_t i, const char **key, size_t *len);
/* Checks len bytes read for sample i against its stored size and checksum:
 * 0, or -EBADMSG naming the shard, the record and its offset. */
GF_API int gf_dataset_check_sample(const struct gf_dataset *d, uint64_t i, const void *data, size_t len);

/* Reads every record of every shard and checks its checksum, and checks
 * each index against its data file (sizes, offsets, order, padding inside
 * the file).  progress, when not NULL, is called after each shard.  0, or
 * the first error: -EBADMSG naming the shard and record, -ENOENT,
 * -EIO. */
GF_API int gf_dataset_verify(const struct gf_dataset *d,
			     void (*progress)(void *user, unsigned shard, uint64_t records_checked), void *user);

#ifdef __cplusplus
}
#endif
#endif
