/* Reading a shard's index: every field that says where something is or how
 * big it is is checked, with overflow-checked arithmetic, against the
 * index's and the data file's sizes before anything is read through it, so
 * a corrupt or hostile index is -EBADMSG and never a read out of bounds. */
#include <errno.h>
#include <string.h>

#include "core/error.h"
#include "dataset/format.h"

static int bad(const char *name, const char *what)
{
	return gf_error(-EBADMSG, "%s: corrupt index: %s", name, what);
}

/* [at, at + n * width) lies inside len, at is 8-byte aligned and past the header. */
static bool array_fits(uint64_t at, uint64_t n, uint64_t width, uint64_t len)
{
	uint64_t bytes, end;

	if (at < GF_IDX_HEADER_SIZE || at % 8)
		return false;
	if (__builtin_mul_overflow(n, width, &bytes) || __builtin_add_overflow(at, bytes, &end))
		return false;
	return end <= len;
}

int gf_idx_parse(const void *image, size_t len, uint64_t data_size, const char *name, struct gf_idx *x)
{
	const unsigned char *h = image;
	uint64_t n, koff_count, prev_end = 0;

	memset(x, 0, sizeof(*x));
	if (len < GF_IDX_HEADER_SIZE)
		return gf_error(-EBADMSG, "%s: corrupt index: %zu bytes, shorter than its %u-byte header", name, len,
				GF_IDX_HEADER_SIZE);
	if (memcmp(h + GF_IDX_OFF_MAGIC, GF_IDX_MAGIC, 8))
		return bad(name, "not a gpufeed shard index (bad magic)");
	if (gf_le64(h + GF_IDX_OFF_HEADER_SUM) != gf_checksum_of(GF_CHECKSUM_XXH3, h, GF_IDX_OFF_HEADER_SUM))
		return bad(name, "the header's checksum does not match the header");
	x->version = gf_le32(h + GF_IDX_OFF_VERSION);
	if (x->version != GF_IDX_VERSION)
		return gf_error(-EBADMSG, "%s: index version %u; this gpufeed reads version %u", name, x->version,
				GF_IDX_VERSION);
	x->checksum = (enum gf_checksum)gf_le32(h + GF_IDX_OFF_CHECKSUM);
	if ((unsigned)x->checksum >= GF_CHECKSUMS)
		return bad(name, "unknown checksum kind");
	x->align = gf_le32(h + GF_IDX_OFF_ALIGN);
	if (!x->align || x->align > GF_ALIGN_MAX || (x->align & (x->align - 1)))
		return bad(name, "alignment is not a power of two of at most 1 MiB");
	if (gf_le32(h + GF_IDX_OFF_FLAGS))
		return bad(name, "unknown flags");
	for (unsigned i = 96; i < GF_IDX_OFF_HEADER_SUM; i++)
		if (h[i])
			return bad(name, "reserved header bytes are not zero");
	x->data_size = gf_le64(h + GF_IDX_OFF_DATA_SIZE);
	if (x->data_size != data_size)
		return gf_error(-EBADMSG, "%s: the data file is %llu bytes, the index was written for %llu "
				"(truncated or replaced)", name, (unsigned long long)data_size,
				(unsigned long long)x->data_size);
	if (gf_le64(h + GF_IDX_OFF_INDEX_SIZE) != len)
		return gf_error(-EBADMSG, "%s: corrupt index: %zu bytes, its header says %llu (truncated?)", name, len,
				(unsigned long long)gf_le64(h + GF_IDX_OFF_INDEX_SIZE));
	n = x->count = gf_le64(h + GF_IDX_OFF_COUNT);
	if (__builtin_add_overflow(n, 1, &koff_count))
		return bad(name, "record count out of range");
	if (!array_fits(gf_le64(h + GF_IDX_OFF_OFFSETS), n, 8, len) || !array_fits(gf_le64(h + GF_IDX_OFF_SIZES), n, 8, len) ||
	    !array_fits(gf_le64(h + GF_IDX_OFF_SUMS), n, 8, len) ||
	    !array_fits(gf_le64(h + GF_IDX_OFF_KEY_OFFSETS), koff_count, 8, len))
		return bad(name, "an array lies outside the index (record count or array offsets)");
	x->keys_size = gf_le64(h + GF_IDX_OFF_KEYS_SIZE);
	{
		uint64_t kat = gf_le64(h + GF_IDX_OFF_KEYS), kend;

		if (kat < GF_IDX_HEADER_SIZE || __builtin_add_overflow(kat, x->keys_size, &kend) || kend > len)
			return bad(name, "the keys lie outside the index");
		x->keys = h + kat;
	}
	x->base = h;
	x->len = len;
	x->offsets = h + gf_le64(h + GF_IDX_OFF_OFFSETS);
	x->sizes = h + gf_le64(h + GF_IDX_OFF_SIZES);
	x->sums = h + gf_le64(h + GF_IDX_OFF_SUMS);
	x->key_offsets = h + gf_le64(h + GF_IDX_OFF_KEY_OFFSETS);
	if (gf_idx_key_off(x, 0) != 0 || gf_idx_key_off(x, n) != x->keys_size)
		return bad(name, "key offsets do not span the keys");
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = gf_idx_offset(x, i), size = gf_idx_size(x, i), end;

		if (off % x->align || off < prev_end || __builtin_add_overflow(off, size, &end) || end > data_size)
			return gf_error(-EBADMSG, "%s: corrupt index: record %llu (offset %llu, %llu bytes) %s", name,
					(unsigned long long)i, (unsigned long long)off, (unsigned long long)size,
					off % x->align	  ? "is not aligned"
					: off < prev_end ? "overlaps the record before it"
							 : "leaves the data file");
		if (gf_idx_key_off(x, i + 1) < gf_idx_key_off(x, i))
			return gf_error(-EBADMSG, "%s: corrupt index: record %llu: key offsets go backwards", name,
					(unsigned long long)i);
		prev_end = end;
		x->data_bytes += size;	/* <= data_size: records do not overlap */
		if (!i || size < x->min_size)
			x->min_size = size;
		if (size > x->max_size)
			x->max_size = size;
	}
	if (x->checksum == GF_CHECKSUM_NONE)
		for (uint64_t i = 0; i < n; i++)
			if (gf_idx_sum(x, i))
				return bad(name, "a checksum stored under checksum kind none");
	return 0;
}
