/* Damaged dataset files: a shard index, a manifest and a Megatron index,
 * each mutated thousands of times from a fixed seed (bit flips, bytes of
 * garbage, truncations, header fields set to edge values, with and without
 * the header's checksum made right again so the checks behind it run).
 * A WebDataset tar is packed from mutated copies too.
 * Parsing must never crash or read out of bounds (the sanitizer build runs
 * this on exact-size copies); what it accepts must only point inside the
 * files; what it refuses has a message naming the file. */
#include "helpers.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpufeed/gpufeed.h>
#include "dataset/dataset_impl.h"
#include "dataset/format.h"

#define CASES 4000

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t below(size_t n)
{
	return n ? (size_t)(next() % n) : 0;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* One mutation of img (len bytes, at most cap) in place; the new length.
 * focus: bytes [0, focus) get most of the attention (a header). */
static size_t mutate(unsigned char *img, size_t len, size_t cap, size_t focus)
{
	static const uint64_t edges[] = { 0, 1, 7, 8, 127, 128, 4095, 4096, 0x7fffffffull, 0xffffffffull,
					  0x7fffffffffffffffull, 0xffffffffffffffffull, 0x8000000000000000ull };
	size_t at = below(4) ? below(focus < len ? focus : len) : below(len);

	switch (below(6)) {
	case 0:		/* a bit flip */
		if (len)
			img[at] ^= (unsigned char)(1u << below(8));
		return len;
	case 1: {	/* a run of garbage */
		size_t n = 1 + below(16);

		for (size_t i = 0; i < n && at + i < len; i++)
			img[at + i] = (unsigned char)next();
		return len;
	}
	case 2:		/* cut short */
		return below(len + 1);
	case 3: {	/* an 8-byte field set to an edge value */
		uint64_t v = edges[below(sizeof(edges) / sizeof(edges[0]))];

		at &= ~(size_t)7;
		if (at + 8 <= len)
			gf_put_le64(img + at, v);
		return len;
	}
	case 4: {	/* a field set to the length or near it */
		at &= ~(size_t)7;
		if (at + 8 <= len)
			gf_put_le64(img + at, len - below(3) * 8);
		return len;
	}
	default: {	/* grown by garbage */
		size_t n = below(cap - len + 1);

		for (size_t i = 0; i < n; i++)
			img[len + i] = (unsigned char)next();
		return len + n;
	}
	}
}

/* ---- a shard index ---- */

static void check_accepted_idx(const struct gf_idx *x, size_t len, uint64_t data_size)
{
	uint64_t prev = 0;

	assert_true(x->count <= len);
	for (uint64_t i = 0; i < x->count; i++) {
		uint64_t off = gf_idx_offset(x, i), size = gf_idx_size(x, i);
		uint64_t k0 = gf_idx_key_off(x, i), k1 = gf_idx_key_off(x, i + 1);

		assert_true(off >= prev && size <= data_size && off <= data_size - size);
		assert_true(k0 <= k1 && k1 <= x->keys_size);
		if (k1 > k0)
			assert_true(x->keys[k1 - 1] == x->keys[k1 - 1]);	/* touch the last key byte */
		(void)gf_idx_sum(x, i);
		prev = off + size;
	}
}

static void index_mutations(void **state)
{
	char *dir = t_mkdtemp(), tree[PATH_MAX], out[PATH_MAX], idx[PATH_MAX];
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	const char *in[] = { tree };
	unsigned char *orig;
	size_t olen;
	uint64_t data_size;
	int accepted = 0, refused = 0;

	(void)state;
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	for (int i = 0; i < 12; i++) {
		char name[32], body[64];

		snprintf(name, sizeof(name), "d%d/file-%02d", i % 3, i);
		snprintf(body, sizeof(body), "%.*s", 5 * i + 1, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghij");
		t_write(tree, name, body);
	}
	snprintf(out, sizeof(out), "%s/ds", dir);
	po.align = 64;
	assert_int_equal(gf_pack(in, 1, out, &po, NULL), 0);
	snprintf(idx, sizeof(idx), "%s/shard-00000.idx", out);
	orig = slurp(idx, &olen);
	{
		char bin[PATH_MAX];
		struct stat st;

		snprintf(bin, sizeof(bin), "%s/shard-00000.bin", out);
		assert_int_equal(stat(bin, &st), 0);
		data_size = (uint64_t)st.st_size;
	}
	for (int c = 0; c < CASES; c++) {
		size_t cap = olen + 256, len;
		unsigned char *img = malloc(cap), *exact;
		struct gf_idx x;
		int ret, rounds = 1 + (int)below(3);

		memcpy(img, orig, olen);
		len = olen;
		for (int r = 0; r < rounds; r++)
			len = mutate(img, len, cap, GF_IDX_HEADER_SIZE);
		/* Half the cases: the header's checksum made right, so the checks past it run. */
		if ((c & 1) && len >= GF_IDX_HEADER_SIZE)
			gf_put_le64(img + GF_IDX_OFF_HEADER_SUM, gf_checksum_of(GF_CHECKSUM_XXH3, img, GF_IDX_OFF_HEADER_SUM));
		exact = malloc(len ? len : 1);	/* exactly len bytes: ASan sees a read past them */
		memcpy(exact, img, len);
		ret = gf_idx_parse(exact, len, data_size, "shard-00000.idx", &x);
		if (!ret) {
			check_accepted_idx(&x, len, data_size);
			accepted++;
		} else {
			assert_int_equal(ret, -EBADMSG);
			assert_non_null(strstr(gf_last_error(), "shard-00000.idx"));
			refused++;
		}
		free(exact);
		free(img);
	}
	/* The seed makes both kinds; many refusals come from past the header. */
	assert_true(accepted > 0 && refused > CASES / 2);
	print_message("index: %d accepted, %d refused\n", accepted, refused);
	free(orig);
	t_rmtree(dir);
	free(dir);
}

/* ---- the manifest, through gf_dataset_open ---- */

static void check_dataset(struct gf_dataset *d)
{
	struct gf_dataset_info info;

	assert_int_equal(gf_dataset_info(d, &info), 0);
	for (uint64_t i = 0; i < info.samples; i++) {
		struct gf_sample_loc at;
		struct gf_shard_info sh;
		const char *key;
		size_t klen;

		assert_int_equal(gf_dataset_sample(d, i, &at), 0);
		assert_int_equal(gf_dataset_shard(d, at.shard, &sh), 0);
		assert_true(at.offset + at.size <= sh.file_bytes);
		assert_int_equal(gf_dataset_key(d, i, &key, &klen), 0);
	}
}

static void manifest_mutations(void **state)
{
	char *dir = t_mkdtemp(), rec[PATH_MAX], out[PATH_MAX], man[PATH_MAX];
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	const char *in[] = { rec };
	unsigned char *orig;
	size_t olen;
	int accepted = 0, refused = 0;

	(void)state;
	t_write(dir, "rec", "0123456789abcdef0123456789abcdef0123456789abcdef");
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	snprintf(out, sizeof(out), "%s/ds", dir);
	po.record_size = 8;
	po.shard_bytes = 3 * 4096;	/* two shards */
	assert_int_equal(gf_pack(in, 1, out, &po, NULL), 0);
	snprintf(man, sizeof(man), "%s/manifest.json", out);
	orig = slurp(man, &olen);
	for (int c = 0; c < CASES / 2; c++) {
		size_t cap = olen + 256, len;
		unsigned char *img = malloc(cap);
		struct gf_dataset *d = NULL;
		int ret;

		memcpy(img, orig, olen);
		len = olen;
		/* Digits turned into other digits keep it JSON and move the figures. */
		if (c % 3 == 0) {
			for (size_t i = 0; i < len; i++)
				if (img[i] >= '0' && img[i] <= '9' && !below(6))
					img[i] = (unsigned char)('0' + below(10));
		} else {
			len = mutate(img, len, cap, len);
		}
		t_write_bytes(out, "manifest.json", img, len);
		ret = gf_dataset_open(out, &d);
		if (!ret) {
			check_dataset(d);
			gf_dataset_close(d);
			accepted++;
		} else {
			assert_true(ret == -EBADMSG || ret == -ENOENT || ret == -ENOMEM || ret == -ENAMETOOLONG);
			assert_true(gf_last_error()[0]);
			refused++;
		}
		free(img);
	}
	assert_true(accepted > 0 && refused > 0);
	print_message("manifest: %d accepted, %d refused\n", accepted, refused);
	free(orig);
	t_rmtree(dir);
	free(dir);
}

/* ---- a Megatron index ---- */

static void megatron_mutations(void **state)
{
	unsigned char orig[34 + 5 * 4 + 5 * 8 + 3 * 8];
	const uint64_t data_size = 200;
	int accepted = 0, refused = 0;
	uint64_t ptr = 0;

	(void)state;
	memset(orig, 0, sizeof(orig));
	memcpy(orig, "MMIDIDX\0\0", 9);
	gf_put_le64(orig + 9, 1);
	orig[17] = 4;
	gf_put_le64(orig + 18, 5);
	gf_put_le64(orig + 26, 3);
	for (int i = 0; i < 5; i++) {
		gf_put_le32(orig + 34 + 4 * i, (uint32_t)(i * 2));
		gf_put_le64(orig + 34 + 20 + 8 * i, ptr);
		ptr += (uint64_t)i * 2 * 4;
	}
	gf_put_le64(orig + 34 + 60 + 8, 2);
	gf_put_le64(orig + 34 + 60 + 16, 5);
	for (int c = 0; c < CASES; c++) {
		size_t cap = sizeof(orig) + 64, len;
		unsigned char *img = malloc(cap), *exact;
		struct gf_mega m;
		uint64_t bytes;
		int ret;

		memcpy(img, orig, sizeof(orig));
		len = mutate(img, sizeof(orig), cap, 34);
		exact = malloc(len ? len : 1);
		memcpy(exact, img, len);
		ret = gf_mega_parse(exact, len, data_size, "x.idx", &m, &bytes);
		if (!ret) {
			for (uint64_t i = 0; i < m.count; i++) {
				uint64_t size = (uint64_t)gf_le32(m.sizes + 4 * i) * m.width, off = gf_le64(m.pointers + 8 * i);

				assert_true(size <= data_size && off <= data_size - size);
			}
			accepted++;
		} else {
			assert_int_equal(ret, -EBADMSG);
			assert_non_null(strstr(gf_last_error(), "x.idx"));
			refused++;
		}
		free(exact);
		free(img);
	}
	assert_true(accepted > 0 && refused > 0);
	print_message("megatron: %d accepted, %d refused\n", accepted, refused);
}

/* ---- a WebDataset tar, through gf_pack ---- */

static void tar_mutations(void **state)
{
	char *dir = t_mkdtemp(), src[PATH_MAX], tarp[PATH_MAX], cmd[3 * PATH_MAX], name[200];
	unsigned char *orig;
	size_t olen;
	int accepted = 0, refused = 0;

	(void)state;
	snprintf(src, sizeof(src), "%s/src", dir);
	memset(name, 'k', 110);
	strcpy(name + 110, ".txt");
	t_write(src, "0001.jpg", "image one");
	t_write(src, "0001.cls", "1");
	t_write(src, "0002.jpg", "image two");
	t_write(src, name, "long name");
	snprintf(tarp, sizeof(tarp), "%s/in.tar", dir);
	snprintf(cmd, sizeof(cmd), "tar --format=pax -cf '%s' -C '%s' 0001.cls 0001.jpg 0002.jpg %s", tarp, src, name);
	assert_int_equal(system(cmd), 0);
	orig = slurp(tarp, &olen);
	for (int c = 0; c < CASES / 16; c++) {
		struct gf_pack_opts po = GF_PACK_OPTS_INIT;
		size_t cap = olen + 1024, len;
		unsigned char *img = malloc(cap);
		char out[PATH_MAX];
		const char *in[] = { tarp };
		int ret;

		memcpy(img, orig, olen);
		len = mutate(img, olen, cap, 2048);
		t_write_bytes(dir, "in.tar", img, len);
		snprintf(out, sizeof(out), "%s/ds%d", dir, c);
		ret = gf_pack(in, 1, out, &po, NULL);
		if (!ret) {
			struct gf_dataset *d;

			assert_int_equal(gf_dataset_open(out, &d), 0);
			check_dataset(d);
			assert_int_equal(gf_dataset_verify(d, NULL, NULL), 0);
			gf_dataset_close(d);
			accepted++;
		} else {
			assert_true(ret == -EBADMSG || ret == -EINVAL);
			assert_non_null(strstr(gf_last_error(), "in.tar"));
			refused++;
		}
		free(img);
	}
	assert_true(accepted > 0 && refused > 0);
	print_message("tar: %d accepted, %d refused\n", accepted, refused);
	free(orig);
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(index_mutations),
		cmocka_unit_test(manifest_mutations),
		cmocka_unit_test(megatron_mutations),
		cmocka_unit_test(tar_mutations),
	};

	return cmocka_run_group_tests_name("dataset_robust", tests, NULL, NULL);
}
