/* A flat file of fixed-size records (a tensor dump, a binary log): record
 * i is bytes [i * size, (i + 1) * size).  No keys: the record's number is
 * its name. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "pack/pack_impl.h"

int gf_pack_records(struct gf_pack_out *o, const char *path, size_t record_size)
{
	unsigned char *buf = NULL;
	struct stat st;
	uint64_t left;
	int fd, ret = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return gf_error(-errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		ret = gf_error(-errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if ((uint64_t)st.st_size % record_size) {
		ret = gf_error(-EINVAL, "%s: %llu bytes is not a multiple of the record size %zu", path,
			       (unsigned long long)st.st_size, record_size);
		goto out;
	}
	if (!(buf = malloc(GF_PACK_CHUNK))) {
		ret = gf_error(-ENOMEM, "%s: out of memory", path);
		goto out;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	for (left = (uint64_t)st.st_size; left; left -= record_size) {
		size_t done = 0;

		if ((ret = gf_pack_begin(o, record_size, NULL, 0)))
			goto out;
		while (done < record_size) {
			size_t n = record_size - done < GF_PACK_CHUNK ? record_size - done : GF_PACK_CHUNK;

			if ((ret = gf_pack_read_full(fd, buf, n, path)) || (ret = gf_pack_data(o, buf, n)))
				goto out;
			done += n;
		}
		if ((ret = gf_pack_end(o)))
			goto out;
	}
out:
	free(buf);
	close(fd);
	return ret;
}
