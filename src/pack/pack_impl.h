/* Inside gf_pack: the output the input readers feed records to (it starts
 * a new shard when a record would pass the shard size) and the readers. */
#ifndef GF_PACK_IMPL_H
#define GF_PACK_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <gpufeed/dataset.h>

struct gf_pack_out;

/* A record of `size` bytes (known before its bytes come: it decides the
 * shard), fed in pieces that must add up to size. */
int gf_pack_begin(struct gf_pack_out *o, uint64_t size, const char *key, size_t keylen);
int gf_pack_data(struct gf_pack_out *o, const void *data, size_t len);
int gf_pack_end(struct gf_pack_out *o);
/* All at once. */
int gf_pack_record(struct gf_pack_out *o, const void *data, size_t len, const char *key, size_t keylen);

/* The readers: 0 or -errno naming the input. */
int gf_pack_files(struct gf_pack_out *o, const char *dir);
int gf_pack_lines(struct gf_pack_out *o, const char *path);
int gf_pack_tar(struct gf_pack_out *o, const char *path);
int gf_pack_records(struct gf_pack_out *o, const char *path, size_t record_size);

/* Reads len bytes from fd (a file named path) into buf, all of them:
 * 0, or -EIO/-EBADMSG (the file ended early) naming it. */
int gf_pack_read_full(int fd, void *buf, size_t len, const char *path);

#define GF_PACK_CHUNK (4u << 20)	/* bytes the readers move at a time */

#endif
