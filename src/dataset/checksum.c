/* Record checksums: XXH3_64bits from Debian's xxHash (header-only here:
 * XXH_INLINE_ALL, so the library links nothing new) and CRC32C in software
 * (slice-by-8 over tables built once; the polynomial iSCSI and ext4 use). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/error.h"
#include "dataset/format.h"

static const char *const names[GF_CHECKSUMS] = { "xxh3", "crc32c", "none" };

const char *gf_checksum_name(enum gf_checksum c)
{
	return (unsigned)c < GF_CHECKSUMS ? names[c] : "?";
}

int gf_checksum_parse(const char *name, enum gf_checksum *out)
{
	if (!name || !out)
		return GF_NULL_ARG(!name ? "name" : "out");
	for (unsigned i = 0; i < GF_CHECKSUMS; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum gf_checksum)i;
			return 0;
		}
	return gf_arg_error(__func__, "unknown checksum '%s' (xxh3, crc32c, none)", name);
}

/* ---- CRC32C, reflected polynomial 0x82F63B78 ---- */

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_table[0][i] = c;
	}
	for (unsigned i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

uint32_t gf_crc32c(uint32_t crc, const void *data, size_t len)
{
	const unsigned char *p = data;

	pthread_once(&crc_once, crc_init);
	crc = ~crc;
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint32_t lo = crc ^ gf_le32(p), hi = gf_le32(p + 4);

		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
		      crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

uint64_t gf_checksum_of(enum gf_checksum c, const void *data, size_t len)
{
	if (!data && len)
		return 0;
	switch (c) {
	case GF_CHECKSUM_XXH3:
		return XXH3_64bits(data, len);
	case GF_CHECKSUM_CRC32C:
		return gf_crc32c(0, data, len);
	default:
		return 0;
	}
}

int gf_checksum_begin(struct gf_checksum_state *s, enum gf_checksum kind)
{
	s->kind = kind;
	s->crc = 0;
	if (kind != GF_CHECKSUM_XXH3)
		return 0;
	if (!s->xxh && !(s->xxh = XXH3_createState()))
		return gf_error(-ENOMEM, "checksum: out of memory");
	XXH3_64bits_reset(s->xxh);
	return 0;
}

void gf_checksum_update(struct gf_checksum_state *s, const void *data, size_t len)
{
	if (!len)
		return;
	if (s->kind == GF_CHECKSUM_XXH3)
		XXH3_64bits_update(s->xxh, data, len);
	else if (s->kind == GF_CHECKSUM_CRC32C)
		s->crc = gf_crc32c(s->crc, data, len);
}

uint64_t gf_checksum_end(struct gf_checksum_state *s)
{
	if (s->kind == GF_CHECKSUM_XXH3)
		return XXH3_64bits_digest(s->xxh);
	return s->kind == GF_CHECKSUM_CRC32C ? s->crc : 0;
}

void gf_checksum_free(struct gf_checksum_state *s)
{
	if (s->xxh)
		XXH3_freeState(s->xxh);
	s->xxh = NULL;
}
