/* The dataset format: what gf_pack writes reads back record for record
 * (offsets aligned, checksums right, keys in order), a Megatron pair is read
 * as it is, and a truncated shard, a corrupt index or record, a manifest
 * naming a missing shard each fail naming the shard and the record. */
#include "helpers.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpufeed/gpufeed.h>
#include "dataset/format.h"

/* ---- helpers ---- */

static void path_in(char *buf, size_t size, const char *dir, const char *rel)
{
	snprintf(buf, size, "%s/%s", dir, rel);
}

/* Bytes of record i of a records file: a pattern that differs per record. */
static void record_bytes(unsigned char *p, size_t size, unsigned i)
{
	for (size_t k = 0; k < size; k++)
		p[k] = (unsigned char)(i * 31 + k * 7 + (k >> 8));
}

/* dir/records.bin of n records of size bytes. */
static void write_records(const char *dir, unsigned n, size_t size)
{
	unsigned char *all = malloc(n * size);

	for (unsigned i = 0; i < n; i++)
		record_bytes(all + i * size, size, i);
	t_write_bytes(dir, "records.bin", all, n * size);
	free(all);
}

static unsigned char *read_range(const char *path, uint64_t off, uint64_t len)
{
	unsigned char *buf = malloc(len ? len : 1);
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	close(fd);
	return buf;
}

static int pack_one(const char *input, const char *out, struct gf_pack_opts *po, struct gf_pack_result *res)
{
	const char *in[] = { input };

	return gf_pack(in, 1, out, po, res);
}

/* Every entry of dir whose name starts with prefix. */
static int count_named(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

static void flip_byte(const char *path, off_t off)
{
	int fd = open(path, O_RDWR);
	unsigned char b;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, off), 1);
	b ^= 0x40;
	assert_int_equal(pwrite(fd, &b, 1, off), 1);
	close(fd);
}

static void msg_has(const char *needle)
{
	if (!strstr(gf_last_error(), needle))
		fail_msg("message \"%s\" should hold \"%s\"", gf_last_error(), needle);
}

/* ---- checksums ---- */

static void checksums_known_values(void **state)
{
	const char *s = "123456789";
	struct gf_checksum_state cs = { 0 };
	unsigned char big[10000];

	(void)state;
	/* CRC32C check value (RFC 3720, appendix B.4) and XXH3_64bits of nothing (xxHash's test vectors). */
	assert_int_equal(gf_checksum_of(GF_CHECKSUM_CRC32C, s, 9), 0xE3069283u);
	assert_true(gf_checksum_of(GF_CHECKSUM_XXH3, "", 0) == 0x2D06800538D394C2ull);
	assert_true(gf_checksum_of(GF_CHECKSUM_NONE, s, 9) == 0);
	/* Fed in pieces, the same as at once (both kinds, unaligned pieces). */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 13 + 5);
	for (int k = 0; k < 2; k++) {
		enum gf_checksum c = k ? GF_CHECKSUM_CRC32C : GF_CHECKSUM_XXH3;

		assert_int_equal(gf_checksum_begin(&cs, c), 0);
		gf_checksum_update(&cs, big, 3);
		gf_checksum_update(&cs, big + 3, 4997);
		gf_checksum_update(&cs, big + 5000, 5000);
		assert_true(gf_checksum_end(&cs) == gf_checksum_of(c, big, sizeof(big)));
	}
	gf_checksum_free(&cs);
	assert_string_equal(gf_checksum_name(GF_CHECKSUM_CRC32C), "crc32c");
	{
		enum gf_checksum c;

		assert_int_equal(gf_checksum_parse("xxh3", &c), 0);
		assert_int_equal(c, GF_CHECKSUM_XXH3);
		assert_int_equal(gf_checksum_parse("md5", &c), -EINVAL);
		msg_has("md5");
	}
}

/* ---- records ---- */

static void records_round_trip(void **state)
{
	char *dir = t_mkdtemp(), in[PATH_MAX], out[PATH_MAX];
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	struct gf_pack_result res;
	struct gf_dataset *d;
	struct gf_dataset_info info;
	const unsigned n = 100;
	const size_t size = 1000;
	uint64_t seen = 0;
	unsigned calls = 0;

	(void)state;
	write_records(dir, n, size);
	path_in(in, sizeof(in), dir, "records.bin");
	path_in(out, sizeof(out), dir, "ds");
	po.record_size = size;
	po.shard_bytes = 40960;		/* 10 records of 4 KiB each */
	assert_int_equal(pack_one(in, out, &po, &res), 0);
	assert_int_equal(res.samples, n);
	assert_int_equal(res.shards, 10);
	assert_int_equal(res.data_bytes, n * size);

	assert_int_equal(gf_dataset_open(out, &d), 0);
	assert_int_equal(gf_dataset_info(d, &info), 0);
	assert_int_equal(info.kind, GF_DATASET_GPUFEED);
	assert_int_equal(info.samples, n);
	assert_int_equal(info.shards, 10);
	assert_int_equal(info.record_size, size);
	assert_int_equal(info.min_size, size);
	assert_int_equal(info.max_size, size);
	assert_int_equal(info.align, 4096);
	assert_int_equal(info.checksum, GF_CHECKSUM_XXH3);
	assert_int_equal(info.data_bytes, n * size);
	assert_string_equal(info.name, "ds");
	for (uint64_t i = 0; i < n; i++) {
		struct gf_sample_loc at;
		struct gf_shard_info sh;
		unsigned char want[1000], *got;
		const char *key;
		size_t klen;

		assert_int_equal(gf_dataset_sample(d, i, &at), 0);
		assert_int_equal(at.shard, i / 10);
		assert_int_equal(at.record, i % 10);
		assert_int_equal(at.offset % 4096, 0);
		assert_int_equal(at.size, size);
		assert_int_equal(gf_dataset_shard(d, at.shard, &sh), 0);
		assert_int_equal(sh.first_sample, at.shard * 10);
		got = read_range(sh.data_path, at.offset, at.size);
		record_bytes(want, size, (unsigned)i);
		assert_memory_equal(got, want, size);
		assert_int_equal(gf_dataset_check_sample(d, i, got, size), 0);
		got[7] ^= 1;
		assert_int_equal(gf_dataset_check_sample(d, i, got, size), -EBADMSG);
		msg_has("record");
		assert_int_equal(gf_dataset_check_sample(d, i, got, size - 1), -EBADMSG);
		free(got);
		assert_int_equal(gf_dataset_key(d, i, &key, &klen), 0);
		assert_int_equal(klen, 0);
		assert_true(at.checksum == gf_checksum_of(GF_CHECKSUM_XXH3, want, size));
		seen++;
	}
	assert_int_equal(seen, n);
	assert_int_equal(gf_dataset_sample(d, n, &(struct gf_sample_loc){ 0 }), -EINVAL);
	assert_int_equal(gf_dataset_shard(d, 10, &(struct gf_shard_info){ 0 }), -EINVAL);
	assert_int_equal(gf_dataset_verify(d, NULL, NULL), 0);
	(void)calls;
	gf_dataset_close(d);
	/* The manifest itself opens the same dataset. */
	path_in(in, sizeof(in), out, "manifest.json");
	assert_int_equal(gf_dataset_open(in, &d), 0);
	assert_int_equal(gf_dataset_info(d, &info), 0);
	assert_int_equal(info.samples, n);
	gf_dataset_close(d);
	t_rmtree(dir);
	free(dir);
}

static void crc32c_and_small_alignment(void **state)
{
	char *dir = t_mkdtemp(), in[PATH_MAX], out[PATH_MAX];
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	struct gf_dataset *d;
	struct gf_dataset_info info;

	(void)state;
	write_records(dir, 7, 10);
	path_in(in, sizeof(in), dir, "records.bin");
	path_in(out, sizeof(out), dir, "ds");
	po.input = GF_PACK_RECORDS;
	po.record_size = 10;
	po.align = 16;
	po.checksum = GF_CHECKSUM_CRC32C;
	po.name = "tiny\xff";	/* not UTF-8: kept in the manifest as U+FFFD */
	assert_int_equal(pack_one(in, out, &po, NULL), 0);
	assert_int_equal(gf_dataset_open(out, &d), 0);
	assert_int_equal(gf_dataset_info(d, &info), 0);
	assert_int_equal(info.shards, 1);
	assert_int_equal(info.align, 16);
	assert_int_equal(info.checksum, GF_CHECKSUM_CRC32C);
	assert_int_equal(info.file_bytes, 7 * 16);	/* padded to the alignment at the end too */
	assert_string_equal(info.name, "tiny\xef\xbf\xbd");
	for (uint64_t i = 0; i < 7; i++) {
		struct gf_sample_loc at;

		assert_int_equal(gf_dataset_sample(d, i, &at), 0);
		assert_int_equal(at.offset, i * 16);
	}
	assert_int_equal(gf_dataset_verify(d, NULL, NULL), 0);
	gf_dataset_close(d);
	t_rmtree(dir);
	free(dir);
}

/* ---- files ---- */

static void progress_count(void *user, unsigned shard, uint64_t records)
{
	(void)shard;
	*(uint64_t *)user = records;
}

static void files_in_path_order(void **state)
{
	char *dir = t_mkdtemp(), in[PATH_MAX], out[PATH_MAX];
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	struct gf_dataset *d;
	struct gf_dataset_info info;
	/* Byte order: upper case before lower, "a/x" before "a0", "b" after both. */
	static const char *want[] = { "B", "a/x", "a/y/z", "a0", "b", "empty" };
	static const char *body[] = { "upper", "ax", "deep file", "a zero", "bee", "" };
	uint64_t checked = 0;

	(void)state;
	path_in(in, sizeof(in), dir, "tree");
	t_write(in, "b", "bee");
	t_write(in, "a0", "a zero");
	t_write(in, "a/y/z", "deep file");
	t_write(in, "a/x", "ax");
	t_write(in, "B", "upper");
	t_write(in, "empty", "");
	path_in(out, sizeof(out), dir, "ds");
	po.shard_bytes = 3 * 4096;
	assert_int_equal(pack_one(in, out, &po, NULL), 0);
	assert_int_equal(gf_dataset_open(out, &d), 0);
	assert_int_equal(gf_dataset_info(d, &info), 0);
	assert_int_equal(info.samples, 6);
	assert_int_equal(info.shards, 2);
	assert_int_equal(info.record_size, 0);
	assert_int_equal(info.min_size, 0);
	assert_int_equal(info.max_size, 9);
	for (uint64_t i = 0; i < 6; i++) {
		struct gf_sample_loc at;
		struct gf_shard_info sh;
		const char *key;
		size_t klen;
		unsigned char *got;

		assert_int_equal(gf_dataset_key(d, i, &key, &klen), 0);
		assert_int_equal(klen, strlen(want[i]));
		assert_memory_equal(key, want[i], klen);
		assert_int_equal(gf_dataset_sample(d, i, &at), 0);
		assert_int_equal(at.size, strlen(body[i]));
		assert_int_equal(gf_dataset_shard(d, at.shard, &sh), 0);
		got = read_range(sh.data_path, at.offset, at.size);
		assert_memory_equal(got, body[i], at.size);
		assert_int_equal(gf_dataset_check_sample(d, i, got, at.size), 0);
		free(got);
	}
	assert_int_equal(gf_dataset_verify(d, progress_count, &checked), 0);
	assert_int_equal(checked, 6);
	gf_dataset_close(d);
	t_rmtree(dir);
	free(dir);
}

/* ---- writing: refusals, and what a failed pack leaves ---- */

static void refuses_a_packed_directory(void **state)
{
	char *dir = t_mkdtemp(), in[PATH_MAX], out[PATH_MAX];
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;

	(void)state;
	write_records(dir, 4, 8);
	path_in(in, sizeof(in), dir, "records.bin");
	path_in(out, sizeof(out), dir, "ds");
	po.record_size = 8;
	assert_int_equal(pack_one(in, out, &po, NULL), 0);
	assert_int_equal(pack_one(in, out, &po, NULL), -EEXIST);
	msg_has("already holds a dataset");
	/* An input without samples. */
	t_write(dir, "empty.jsonl", "\n\n");
	path_in(in, sizeof(in), dir, "empty.jsonl");
	path_in(out, sizeof(out), dir, "ds3");
	assert_int_equal(pack_one(in, out, &po, NULL), -EINVAL);
	msg_has("no samples in");
	msg_has("empty.jsonl");
	path_in(in, sizeof(in), dir, "records.bin");
	/* A size the file is not a multiple of. */
	po.record_size = 5;
	path_in(out, sizeof(out), dir, "ds2");
	assert_int_equal(pack_one(in, out, &po, NULL), -EINVAL);
	msg_has("not a multiple of the record size 5");
	t_rmtree(dir);
	free(dir);
}

static void failed_pack_leaves_nothing_whole(void **state)
{
	char *dir = t_mkdtemp(), good[PATH_MAX], bad[PATH_MAX], out[PATH_MAX];
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	const char *in[2] = { good, bad };
	struct gf_dataset *d;

	(void)state;
	write_records(dir, 64, 100);
	path_in(good, sizeof(good), dir, "records.bin");
	t_write(dir, "odd.bin", "1234567");	/* 7 bytes: not a multiple of 100 */
	path_in(bad, sizeof(bad), dir, "odd.bin");
	path_in(out, sizeof(out), dir, "ds");
	po.record_size = 100;
	po.shard_bytes = 8192;		/* the good input makes shards first */
	assert_int_equal(gf_pack(in, 2, out, &po, NULL), -EINVAL);
	msg_has("odd.bin");
	assert_int_equal(count_named(out, "shard-"), 0);
	assert_int_equal(count_named(out, "manifest"), 0);
	assert_int_equal(gf_dataset_open(out, &d), -ENOENT);
	/* What a killed pack leaves (its temporary files) goes when the
	 * directory is packed again; files of other names stay. */
	t_write(out, "shard-00003.bin.tmp-a1B2c3", "partial");
	t_write(out, "shard-00003.idx.tmp-a1B2c3", "partial");
	t_write(out, "manifest.json.tmp-Zz9yY8", "{");
	t_write(out, "shard-x.bin.tmp-a1B2c3", "not ours");
	t_write(out, "notes.tmp-a1B2c3", "not ours");
	assert_int_equal(gf_pack(in, 1, out, &po, NULL), 0);
	assert_int_equal(count_named(out, "shard-00003.bin.tmp"), 0);
	assert_int_equal(count_named(out, "shard-00003.idx.tmp"), 0);
	assert_int_equal(count_named(out, "manifest.json.tmp"), 0);
	assert_int_equal(count_named(out, "shard-x.bin.tmp"), 1);
	assert_int_equal(count_named(out, "notes.tmp"), 1);
	t_rmtree(dir);
	free(dir);
}

/* ---- reading: damaged datasets ---- */

/* A two-shard dataset of 20 records of 100 bytes in dir/ds. */
static void make_ds(const char *dir, char *out, size_t size)
{
	char in[PATH_MAX];
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;

	write_records(dir, 20, 100);
	path_in(in, sizeof(in), dir, "records.bin");
	snprintf(out, size, "%s/ds", dir);
	po.record_size = 100;
	po.shard_bytes = 10 * 4096;
	assert_int_equal(pack_one(in, out, &po, NULL), 0);
}

static void truncated_shard(void **state)
{
	char *dir = t_mkdtemp(), ds[PATH_MAX], bin[PATH_MAX];
	struct gf_dataset *d = NULL;

	(void)state;
	make_ds(dir, ds, sizeof(ds));
	path_in(bin, sizeof(bin), ds, "shard-00001.bin");
	assert_int_equal(truncate(bin, 4096 * 5), 0);
	assert_int_equal(gf_dataset_open(ds, &d), -EBADMSG);
	assert_null(d);
	msg_has("shard-00001.bin: 20480 bytes, the manifest says 40960 (truncated): record 5 (sample 15, "
		"offset 20480) and the 4 after it are past its end");
	t_rmtree(dir);
	free(dir);
}

static void missing_shard(void **state)
{
	char *dir = t_mkdtemp(), ds[PATH_MAX], idx[PATH_MAX];
	struct gf_dataset *d = NULL;

	(void)state;
	make_ds(dir, ds, sizeof(ds));
	path_in(idx, sizeof(idx), ds, "shard-00001.idx");
	assert_int_equal(unlink(idx), 0);
	assert_int_equal(gf_dataset_open(ds, &d), -ENOENT);
	msg_has("shard-00001.idx");
	msg_has("missing");
	t_rmtree(dir);
	free(dir);
}

static void corrupt_index(void **state)
{
	char *dir = t_mkdtemp(), ds[PATH_MAX], idx[PATH_MAX];
	struct gf_dataset *d = NULL;

	(void)state;
	make_ds(dir, ds, sizeof(ds));
	path_in(idx, sizeof(idx), ds, "shard-00000.idx");
	flip_byte(idx, GF_IDX_HEADER_SIZE + 8 * 3);	/* record 3's offset */
	assert_int_equal(gf_dataset_open(ds, &d), -EBADMSG);
	msg_has("shard-00000.idx");
	msg_has("corrupt index");
	t_rmtree(dir);
	free(dir);
}

static void corrupt_record(void **state)
{
	char *dir = t_mkdtemp(), ds[PATH_MAX], bin[PATH_MAX];
	struct gf_dataset *d = NULL;

	(void)state;
	make_ds(dir, ds, sizeof(ds));
	path_in(bin, sizeof(bin), ds, "shard-00001.bin");
	flip_byte(bin, 4096 * 4 + 50);	/* shard 1's record 4, sample 14 */
	assert_int_equal(gf_dataset_open(ds, &d), 0);	/* opening reads no record */
	assert_int_equal(gf_dataset_verify(d, NULL, NULL), -EBADMSG);
	msg_has("shard-00001.bin: record 4 (sample 14, offset 16384, 100 bytes)");
	msg_has("checksum");
	gf_dataset_close(d);
	/* Padding that is not zeros is found too. */
	flip_byte(bin, 4096 * 4 + 50);
	flip_byte(bin, 4096 * 4 + 200);
	assert_int_equal(gf_dataset_open(ds, &d), 0);
	assert_int_equal(gf_dataset_verify(d, NULL, NULL), -EBADMSG);
	msg_has("padding before record 5");
	gf_dataset_close(d);
	t_rmtree(dir);
	free(dir);
}

static void bad_manifests(void **state)
{
	static const char *cases[][2] = {
		{ "{", "manifest.json" },
		{ "[]", "not a JSON object" },
		{ "{\"format\":\"other\"}", "not a gpufeed dataset manifest" },
		{ "{\"format\":\"gpufeed-dataset\",\"version\":2}", "format version" },
		{ "{\"format\":\"gpufeed-dataset\",\"version\":1,\"checksum\":\"xxh3\",\"samples\":1,\"align\":4096,"
		  "\"shards\":[{\"data\":\"../x.bin\",\"index\":\"x.idx\"}]}", "not a file name inside" },
		{ "{\"format\":\"gpufeed-dataset\",\"version\":1,\"checksum\":\"xxh3\",\"samples\":5,\"align\":4096,"
		  "\"shards\":[]}", "samples is 5 but the shards hold 0" },
		{ "{\"format\":\"gpufeed-dataset\",\"version\":1,\"checksum\":\"xxh3\",\"samples\":1,\"align\":3,"
		  "\"shards\":[]}", "align" },
	};
	char *dir = t_mkdtemp();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gf_dataset *d = NULL;

		t_write(dir, "manifest.json", cases[i][0]);
		assert_int_equal(gf_dataset_open(dir, &d), -EBADMSG);
		assert_null(d);
		msg_has(cases[i][1]);
	}
	t_rmtree(dir);
	free(dir);
}

static void not_a_dataset(void **state)
{
	char *dir = t_mkdtemp(), p[PATH_MAX];
	struct gf_dataset *d = NULL;

	(void)state;
	assert_int_equal(gf_dataset_open(dir, &d), -ENOENT);
	msg_has("not a dataset");
	path_in(p, sizeof(p), dir, "nothing");
	assert_int_equal(gf_dataset_open(p, &d), -ENOENT);
	msg_has("nothing");
	t_rmtree(dir);
	free(dir);
}

/* ---- Megatron ---- */

static void put64(unsigned char *p, uint64_t v) { gf_put_le64(p, v); }

/* PREFIX.idx/.bin of int32 tokens: sequences of 3, 0 and 5 tokens. */
static void write_megatron(const char *dir, unsigned char code, unsigned width)
{
	const int32_t sizes[] = { 3, 0, 5 };
	const int64_t docs[] = { 0, 2, 3 };
	unsigned char idx[34 + 3 * 4 + 3 * 8 + 3 * 8], bin[8 * 8];
	uint64_t ptr = 0;

	memset(idx, 0, sizeof(idx));
	memcpy(idx, "MMIDIDX\0\0", 9);
	put64(idx + 9, 1);
	idx[17] = code;
	put64(idx + 18, 3);
	put64(idx + 26, 3);
	for (int i = 0; i < 3; i++) {
		gf_put_le32(idx + 34 + 4 * i, (uint32_t)sizes[i]);
		put64(idx + 34 + 12 + 8 * i, ptr);
		put64(idx + 34 + 12 + 24 + 8 * i, (uint64_t)docs[i]);
		ptr += (uint64_t)sizes[i] * width;
	}
	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (unsigned char)i;
	t_write_bytes(dir, "corpus_text_document.idx", idx, sizeof(idx));
	t_write_bytes(dir, "corpus_text_document.bin", bin, ptr);
}

static void megatron_pair(void **state)
{
	char *dir = t_mkdtemp(), prefix[PATH_MAX], p[PATH_MAX];
	struct gf_dataset *d;
	struct gf_dataset_info info;
	struct gf_sample_loc at;
	const char *key;
	size_t klen;

	(void)state;
	write_megatron(dir, 4, 4);	/* int32 */
	path_in(prefix, sizeof(prefix), dir, "corpus_text_document");
	assert_int_equal(gf_dataset_open(prefix, &d), 0);
	assert_int_equal(gf_dataset_info(d, &info), 0);
	assert_int_equal(info.kind, GF_DATASET_MEGATRON);
	assert_string_equal(info.name, "corpus_text_document");
	assert_int_equal(info.samples, 3);
	assert_int_equal(info.shards, 1);
	assert_int_equal(info.checksum, GF_CHECKSUM_NONE);
	assert_int_equal(info.data_bytes, 32);
	assert_int_equal(info.file_bytes, 32);
	assert_int_equal(info.min_size, 0);
	assert_int_equal(info.max_size, 20);
	assert_int_equal(info.align, 4);
	assert_int_equal(gf_dataset_sample(d, 2, &at), 0);
	assert_int_equal(at.offset, 12);
	assert_int_equal(at.size, 20);
	assert_int_equal(at.checksum, 0);
	assert_int_equal(gf_dataset_key(d, 2, &key, &klen), 0);
	assert_int_equal(klen, 0);
	assert_int_equal(gf_dataset_check_sample(d, 0, "123456789012", 12), 0);
	assert_int_equal(gf_dataset_check_sample(d, 0, "1234", 4), -EBADMSG);
	assert_int_equal(gf_dataset_verify(d, NULL, NULL), 0);
	gf_dataset_close(d);
	/* The .idx or .bin named directly. */
	path_in(p, sizeof(p), dir, "corpus_text_document.idx");
	assert_int_equal(gf_dataset_open(p, &d), 0);
	gf_dataset_close(d);
	/* uint16 (code 8): two bytes an element. */
	write_megatron(dir, 8, 2);
	assert_int_equal(gf_dataset_open(prefix, &d), 0);
	assert_int_equal(gf_dataset_sample(d, 2, &at), 0);
	assert_int_equal(at.size, 10);
	gf_dataset_close(d);
	/* A .bin shorter than the pointers say: refused, naming the sequence. */
	write_megatron(dir, 4, 4);
	path_in(p, sizeof(p), dir, "corpus_text_document.bin");
	assert_int_equal(truncate(p, 30), 0);
	assert_int_equal(gf_dataset_open(prefix, &d), -EBADMSG);
	msg_has("sequence 2");
	/* An unknown dtype code. */
	write_megatron(dir, 9, 4);
	assert_int_equal(gf_dataset_open(prefix, &d), -EBADMSG);
	msg_has("dtype code 9");
	t_rmtree(dir);
	free(dir);
}

/* ---- lines ---- */

static void lines_one_sample_each(void **state)
{
	char *dir = t_mkdtemp(), in[PATH_MAX], out[PATH_MAX], key[PATH_MAX + 16];
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	struct gf_dataset *d;
	struct gf_dataset_info info;
	static const char *body[] = { "{\"x\":1}", "{\"x\":2}", "last" };
	static const unsigned line[] = { 1, 3, 4 };

	(void)state;
	t_write(dir, "in.jsonl", "{\"x\":1}\n\n{\"x\":2}\r\nlast");
	path_in(in, sizeof(in), dir, "in.jsonl");
	path_in(out, sizeof(out), dir, "ds");
	assert_int_equal(pack_one(in, out, &po, NULL), 0);
	assert_int_equal(gf_dataset_open(out, &d), 0);
	assert_int_equal(gf_dataset_info(d, &info), 0);
	assert_int_equal(info.samples, 3);
	for (uint64_t i = 0; i < 3; i++) {
		struct gf_sample_loc at;
		struct gf_shard_info sh;
		const char *k;
		size_t klen;
		unsigned char *got;

		assert_int_equal(gf_dataset_sample(d, i, &at), 0);
		assert_int_equal(gf_dataset_shard(d, at.shard, &sh), 0);
		got = read_range(sh.data_path, at.offset, at.size);
		assert_int_equal(at.size, strlen(body[i]));
		assert_memory_equal(got, body[i], at.size);
		free(got);
		snprintf(key, sizeof(key), "%s:%u", in, line[i]);
		assert_int_equal(gf_dataset_key(d, i, &k, &klen), 0);
		assert_int_equal(klen, strlen(key));
		assert_memory_equal(k, key, klen);
	}
	gf_dataset_close(d);
	t_rmtree(dir);
	free(dir);
}

/* Lines that straddle the reader's 4 MiB chunks, and one longer than a
 * chunk, come out whole. */
static void lines_across_chunks(void **state)
{
	char *dir = t_mkdtemp(), in[PATH_MAX], out[PATH_MAX];
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	const unsigned n = 3000, longest = 5u << 20;
	size_t total = 0, at = 0;
	char *text;
	struct gf_dataset *d;
	struct gf_dataset_info info;

	(void)state;
	for (unsigned i = 0; i < n; i++)
		total += (i == 1500 ? longest : (i * 37u) % 5000u + 1) + 1;
	text = malloc(total);
	for (unsigned i = 0; i < n; i++) {
		size_t len = i == 1500 ? longest : (i * 37u) % 5000u + 1;

		memset(text + at, 'a' + (char)(i % 26), len);
		at += len;
		text[at++] = '\n';
	}
	t_write_bytes(dir, "big.txt", text, total);
	path_in(in, sizeof(in), dir, "big.txt");
	path_in(out, sizeof(out), dir, "ds");
	po.align = 1;
	assert_int_equal(pack_one(in, out, &po, NULL), 0);
	assert_int_equal(gf_dataset_open(out, &d), 0);
	assert_int_equal(gf_dataset_info(d, &info), 0);
	assert_int_equal(info.samples, n);
	assert_int_equal(info.max_size, longest);
	for (uint64_t i = 0; i < n; i++) {
		struct gf_sample_loc at_;

		assert_int_equal(gf_dataset_sample(d, i, &at_), 0);
		assert_int_equal(at_.size, i == 1500 ? longest : (i * 37u) % 5000u + 1);
		/* Its bytes, by their checksum: the line's letter, as long as the line. */
		memset(text, 'a' + (char)(i % 26), at_.size);
		assert_int_equal(gf_dataset_check_sample(d, i, text, at_.size), 0);
	}
	assert_int_equal(gf_dataset_verify(d, NULL, NULL), 0);
	gf_dataset_close(d);
	free(text);
	t_rmtree(dir);
	free(dir);
}

/* ---- WebDataset tar ---- */

static void run(const char *cmd)
{
	if (system(cmd))
		fail_msg("failed: %s", cmd);
}

static void tar_groups_by_key(void **state)
{
	static const char *formats[] = { "gnu", "pax" };
	char *dir = t_mkdtemp();

	(void)state;
	for (int f = 0; f < 2; f++) {
		char cmd[4 * PATH_MAX], tarp[PATH_MAX], out[PATH_MAX], src[PATH_MAX], name[200];
		struct gf_pack_opts po = GF_PACK_OPTS_INIT;
		struct gf_dataset *d;
		struct gf_dataset_info info;
		struct gf_sample_loc at;
		struct gf_shard_info sh;
		const char *k;
		size_t klen;
		unsigned char *got;

		snprintf(src, sizeof(src), "%s/src%d", dir, f);
		/* A name over 100 bytes: a GNU long-name entry, or a pax record. */
		memset(name, 'n', 120);
		strcpy(name + 120, ".txt");
		t_write(src, "0001.cls", "7");
		t_write(src, "0001.jpg", "JPEG1");
		t_write(src, "0002.cls", "3");
		t_write(src, name, "long");
		snprintf(tarp, sizeof(tarp), "%s/in%d.tar", dir, f);
		snprintf(cmd, sizeof(cmd), "tar --format=%s -cf '%s' -C '%s' 0001.cls 0001.jpg 0002.cls %s", formats[f],
			 tarp, src, name);
		run(cmd);
		snprintf(out, sizeof(out), "%s/ds%d", dir, f);
		assert_int_equal(pack_one(tarp, out, &po, NULL), 0);
		assert_int_equal(gf_dataset_open(out, &d), 0);
		assert_int_equal(gf_dataset_info(d, &info), 0);
		assert_int_equal(info.samples, 3);
		assert_int_equal(gf_dataset_key(d, 0, &k, &klen), 0);
		assert_int_equal(klen, 4);
		assert_memory_equal(k, "0001", 4);
		assert_int_equal(gf_dataset_key(d, 2, &k, &klen), 0);
		assert_int_equal(klen, 120);
		/* Sample 0: two files, each a header and a block, then two zero blocks. */
		assert_int_equal(gf_dataset_sample(d, 0, &at), 0);
		assert_int_equal(at.size, 6 * 512);
		assert_int_equal(gf_dataset_shard(d, 0, &sh), 0);
		got = read_range(sh.data_path, at.offset, at.size);
		assert_string_equal((char *)got, "0001.cls");
		assert_memory_equal(got + 512, "7", 2);
		assert_string_equal((char *)got + 1024, "0001.jpg");
		assert_memory_equal(got + 1536, "JPEG1", 6);
		free(got);
		/* Sample 2, its name over 100 bytes: tar itself reads it back. */
		assert_int_equal(gf_dataset_sample(d, 2, &at), 0);
		got = read_range(sh.data_path, at.offset, at.size);
		t_write_bytes(dir, "sample.tar", got, at.size);
		free(got);
		snprintf(cmd, sizeof(cmd), "test \"$(tar -xOf '%s/sample.tar' %s)\" = long", dir, name);
		run(cmd);
		gf_dataset_close(d);
	}
	t_rmtree(dir);
	free(dir);
}

static void tar_refused_when_damaged(void **state)
{
	char *dir = t_mkdtemp(), cmd[4 * PATH_MAX], tarp[PATH_MAX], out[PATH_MAX], src[PATH_MAX];
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;

	(void)state;
	snprintf(src, sizeof(src), "%s/src", dir);
	t_write(src, "a.txt", "hello");
	t_write(src, "b.txt", "world");
	snprintf(tarp, sizeof(tarp), "%s/in.tar", dir);
	snprintf(cmd, sizeof(cmd), "tar -cf '%s' -C '%s' a.txt b.txt", tarp, src);
	run(cmd);
	flip_byte(tarp, 1024 + 10);	/* b.txt's header */
	snprintf(out, sizeof(out), "%s/ds", dir);
	assert_int_equal(pack_one(tarp, out, &po, NULL), -EBADMSG);
	msg_has("in.tar: offset 1024");
	msg_has("checksum");
	assert_int_equal(count_named(out, "shard-"), 0);
	run(cmd);
	assert_int_equal(truncate(tarp, 1024 + 512 + 100), 0);
	assert_int_equal(pack_one(tarp, out, &po, NULL), -EBADMSG);
	msg_has("truncated");
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checksums_known_values),
		cmocka_unit_test(records_round_trip),
		cmocka_unit_test(crc32c_and_small_alignment),
		cmocka_unit_test(files_in_path_order),
		cmocka_unit_test(lines_one_sample_each),
		cmocka_unit_test(lines_across_chunks),
		cmocka_unit_test(tar_groups_by_key),
		cmocka_unit_test(tar_refused_when_damaged),
		cmocka_unit_test(refuses_a_packed_directory),
		cmocka_unit_test(failed_pack_leaves_nothing_whole),
		cmocka_unit_test(truncated_shard),
		cmocka_unit_test(missing_shard),
		cmocka_unit_test(corrupt_index),
		cmocka_unit_test(corrupt_record),
		cmocka_unit_test(bad_manifests),
		cmocka_unit_test(not_a_dataset),
		cmocka_unit_test(megatron_pair),
	};

	return cmocka_run_group_tests_name("dataset", tests, NULL, NULL);
}
