/* A file into GPU memory by the bounce path: O_DIRECT reads into pinned
 * staging on the GPU's NUMA node (from the machine model), each chunk
 * copied while the next is read; what it did and at what rate.  The whole
 * file lands in GPU memory.
 *
 *     read-file-to-gpu FILE [GPU]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <gpufeed/gpufeed.h>

int main(int argc, char **argv)
{
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct gf_xfer_stats st;
	struct gf_xfer *x;
	struct stat sb;
	uint64_t dev = 0;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: read-file-to-gpu FILE [GPU]\n");
		return 2;
	}
	if (stat(argv[1], &sb) || sb.st_size == 0) {
		fprintf(stderr, "read-file-to-gpu: %s: not a file with data\n", argv[1]);
		return 3;
	}
	o.gpu = argc > 2 ? atoi(argv[2]) : 0;
	o.path = GF_XFER_BOUNCE;
	if ((rc = gf_xfer_open(&o, &x))) {
		fprintf(stderr, "read-file-to-gpu: %s\n", gf_last_error());
		return rc == -ENOSYS || rc == -ENODEV ? 4 : 3;
	}
	if ((rc = gf_xfer_dev_alloc(x, (size_t)sb.st_size, &dev)) ||
	    (rc = gf_xfer_read(x, argv[1], 0, (size_t)sb.st_size, dev, &st))) {
		fprintf(stderr, "read-file-to-gpu: %s\n", gf_last_error());
		gf_xfer_dev_free(x, dev);
		gf_xfer_close(x);
		return 3;
	}
	printf("%llu bytes by %s in %u chunks, %.3f GB/s, staging on node %d\n", (unsigned long long)st.bytes,
	       st.api, st.chunks, st.wall_s > 0 ? (double)st.bytes / st.wall_s / 1e9 : 0.0, st.numa_node);
	gf_xfer_dev_free(x, dev);
	gf_xfer_close(x);
	return 0;
}
