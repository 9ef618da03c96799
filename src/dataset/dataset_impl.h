/* Inside a gf_dataset: its shards, each an index mapped read-only (or, for
 * Megatron, the .idx's arrays read in place), and the sums the info reports. */
#ifndef GF_DATASET_IMPL_H
#define GF_DATASET_IMPL_H

#include <stdint.h>
#include <gpufeed/dataset.h>
#include "dataset/format.h"

struct gf_mega {
	unsigned width;			/* bytes per element of the dtype */
	uint64_t count;			/* sequences */
	const unsigned char *sizes;	/* int32[count], element counts */
	const unsigned char *pointers;	/* int64[count], byte offsets */
};

struct gf_ds_shard {
	char *data_path, *index_path;
	uint64_t first;			/* dataset-wide number of its first record */
	uint64_t samples, data_bytes, file_bytes;
	unsigned align;
	void *map;			/* the index, mapped */
	size_t map_len;
	struct gf_idx idx;		/* GF_DATASET_GPUFEED */
	struct gf_mega mega;		/* GF_DATASET_MEGATRON */
};

struct gf_dataset {
	struct gf_dataset_info info;
	char *path, *name;
	unsigned nshards;
	struct gf_ds_shard *shards;
};

/* Maps path read-only (an empty file maps to nothing): 0 or -errno naming it. */
int gf_ds_map(const char *path, void **map, size_t *len);
/* The size of a regular file: 0 or -errno naming it (-EBADMSG: not a file). */
int gf_ds_file_size(const char *path, uint64_t *size);
/* Opens a Megatron pair (dataset.c decided it is one). */
int gf_ds_open_megatron(struct gf_dataset *d, const char *prefix);
/* Checks a Megatron .idx image against its .bin's size (the fuzzed entry). */
int gf_mega_parse(const void *image, size_t len, uint64_t data_size, const char *idx, struct gf_mega *m,
		  uint64_t *data_bytes);
/* Opens a manifest's dataset. */
int gf_ds_open_manifest(struct gf_dataset *d, const char *manifest, const char *dir);
/* Parses a manifest's text for the dataset in dir (the fuzzed entry):
 * fills d's shards' paths and manifest figures, maps and checks nothing. */
int gf_ds_manifest_parse(struct gf_dataset *d, const char *text, size_t len, const char *manifest, const char *dir);
/* Sets d->info's sums from the shards. */
void gf_ds_sum_up(struct gf_dataset *d);
/* Sample i's shard (binary search over first). */
unsigned gf_ds_shard_of(const struct gf_dataset *d, uint64_t i);
/* The record's location (gpufeed or Megatron). */
void gf_ds_locate(const struct gf_dataset *d, uint64_t i, struct gf_sample_loc *out);

#endif
