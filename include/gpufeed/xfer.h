/* Storage to GPU memory, the GPU side of the data path (docs/xfer.md).
 *
 *   struct gf_xfer_opts o = GF_XFER_OPTS_INIT;     // GPU 0, bounce path
 *   struct gf_xfer *x;
 *   uint64_t dev;
 *   gf_xfer_open(&o, &x);
 *   gf_xfer_dev_alloc(x, len, &dev);
 *   gf_xfer_read(x, "shard.bin", 0, len, dev, &st); // st: bytes, seconds, CPU
 *   gf_xfer_dev_free(x, dev);
 *   gf_xfer_close(x);
 *
 * Three paths behind one call:
 *   bounce  io_uring O_DIRECT reads into pinned staging buffers on the GPU's
 *           NUMA node, each chunk copied to the GPU asynchronously while the
 *           next ones are read (depth 2 or 3 buffers);
 *   gds     GPUDirect Storage through cuFile (its batch API, else cuFileRead
 *           per chunk); without nvidia-fs cuFile runs in compatibility mode
 *           (POSIX reads and a copy of its own), which the stats say;
 *   naive   read() into pageable malloc'd memory, then a synchronous copy:
 *           the baseline the others are measured against.
 *
 * A gf_xfer holds one GPU (its primary context, made current in the calling
 * thread by every call) and the resources of one path; one thread at a time.
 * Errors are -errno with gf_last_error() naming the file or call: -ENOSYS
 * no libcuda (or no libcufile for gds), -ENODEV no such GPU, -ENOENT/-EACCES
 * the file, -EINVAL a range past the end of the file, -EIO a short read or
 * a failed copy.  A failed call leaves nothing registered or allocated. */
#ifndef GPUFEED_XFER_H
#define GPUFEED_XFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gpufeed/common.h>
#include <gpufeed/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gf_xfer_path {
	GF_XFER_BOUNCE = 0,
	GF_XFER_GDS,
	GF_XFER_NAIVE,
};
#define GF_XFER_PATHS 3
/* "bounce", "gds", "naive". */
GF_API const char *gf_xfer_path_name(enum gf_xfer_path p);
/* 0, or -EINVAL naming the word. */
GF_API int gf_xfer_path_parse(const char *name, enum gf_xfer_path *p);

/* Called once per chunk, in file order, once the chunk's copy to the GPU is
 * queued on `stream` (a CUstream): work the consumer queues on that stream
 * runs after the copy.  dev is the chunk's place in GPU memory, file_off
 * its offset in the file.  A non-zero return (-errno) stops the transfer
 * with that error.  The chunk's staging buffer is reused only when the
 * copy has finished (an event on the stream says so). */
typedef int (*gf_xfer_chunk_fn)(void *user, void *stream, uint64_t dev, size_t len, uint64_t file_off);

#define GF_XFER_CHUNK_DEFAULT	(8u << 20)
#define GF_XFER_DEPTH_MAX	3u

/* Versioned (include/gpufeed/common.h): start from GF_XFER_OPTS_INIT. */
struct gf_xfer_opts {
	size_t struct_size;	/* sizeof(struct gf_xfer_opts), set by GF_XFER_OPTS_INIT */
	int gpu;		/* NVML index; -1: pci names the GPU */
	const char *pci;	/* "0000:17:00.0" when gpu is -1 */
	enum gf_xfer_path path;
	size_t chunk;		/* bytes per staging buffer / cuFile request, a
				 * multiple of 4096; 0: GF_XFER_CHUNK_DEFAULT */
	unsigned depth;		/* staging buffers (1 = no overlap, 2 double,
				 * 3 triple buffering); 0: 2 */
	unsigned reads;		/* bounce: O_DIRECT reads each chunk is split
				 * into, all in flight at once; 0: 4 */
	int numa_node;		/* staging memory's node; -1: the GPU's own in
				 * the machine model, no placement when the
				 * model does not know it */
	gf_xfer_chunk_fn on_chunk;	/* NULL: none */
	void *user;
	/* The machine model the GPU's node comes from when numa_node is -1,
	 * the one every command reads (NVML's memory affinity, sysfs, the
	 * locality override: gpufeed topo says which): the caller's, which must
	 * outlive gf_xfer_open; NULL: gf_xfer_open discovers this machine's
	 * with the defaults (NVML when present, $GPUFEED_PCI_LOCALITY). */
	const struct gf_topo *model;
};
#define GF_XFER_OPTS_INIT { .struct_size = sizeof(struct gf_xfer_opts), .gpu = 0, .numa_node = -1 }

/* What one gf_xfer_read did. */
struct gf_xfer_stats {
	uint64_t bytes;		/* moved to GPU memory */
	double wall_s;		/* call to call, the GPU's copies finished */
	double cpu_user_s;	/* getrusage(RUSAGE_SELF) around the call: */
	double cpu_sys_s;	/* every thread's, io_uring's kernel work too */
	enum gf_xfer_path path;
	const char *api;	/* "io_uring", "psync", "cuFileBatchIO", "cuFileRead", "read" */
	bool direct;		/* the file was read with O_DIRECT (bounce) */
	bool compat_mode;	/* gds: cuFile without nvidia-fs */
	unsigned chunks;
	int numa_node;		/* staging memory's node, -1 none */
};

struct gf_xfer;

/* Opens the GPU and the path opts asks for, closed with gf_xfer_close.  0
 * with *out set, or -EINVAL (opts or out NULL, options not from
 * GF_XFER_OPTS_INIT, a path, chunk, depth, reads, gpu or numa_node out of
 * range, gpu -1 without pci), -ENOSYS (no libcuda; no libcufile for gds),
 * -ENODEV (no such GPU). */
GF_API int gf_xfer_open(const struct gf_xfer_opts *opts, struct gf_xfer **out);
/* Frees the path's resources and lets the GPU go; NULL does nothing. */
GF_API void gf_xfer_close(struct gf_xfer *x);

/* Moves [off, off + len) of the file at path to GPU memory at dev (from
 * gf_xfer_dev_alloc, or any device pointer of the GPU); waits until the
 * bytes are there.  st may be NULL. */
GF_API int gf_xfer_read(struct gf_xfer *x, const char *path, uint64_t off, size_t len, uint64_t dev,
			struct gf_xfer_stats *st);
/* The same from a descriptor the caller keeps owning; name labels it in
 * messages.  O_DIRECT is used when fd has it (bounce, gds). */
GF_API int gf_xfer_read_fd(struct gf_xfer *x, int fd, const char *name, uint64_t off, size_t len, uint64_t dev,
			   struct gf_xfer_stats *st);

/* Host memory (pageable or not) to GPU memory and back through x's pinned
 * staging pool, chunk by chunk, the CPU's copy into one staging buffer
 * overlapping the copy engine's from another (depth >= 2); on_chunk runs
 * per chunk of a copy to the GPU as for a file.  Both wait until every
 * byte has arrived.  They need the bounce path's pool (path bounce):
 * -EINVAL otherwise. */
GF_API int gf_xfer_copy_to_gpu(struct gf_xfer *x, const void *src, size_t len, uint64_t dev);
GF_API int gf_xfer_copy_from_gpu(struct gf_xfer *x, uint64_t dev, void *dst, size_t len);

/* GPU memory on x's GPU (len > 0), and a synchronous copy back to host
 * memory (for checks: one cuMemcpyDtoHAsync straight into dst, no
 * staging).  Every call here is -EINVAL for x NULL. */
GF_API int gf_xfer_dev_alloc(struct gf_xfer *x, size_t len, uint64_t *dev);
GF_API int gf_xfer_dev_free(struct gf_xfer *x, uint64_t dev);
GF_API int gf_xfer_dtoh(struct gf_xfer *x, void *dst, uint64_t dev, size_t len);
/* Zeroes GPU memory (so a check cannot pass on bytes already there). */
GF_API int gf_xfer_dev_clear(struct gf_xfer *x, uint64_t dev, size_t len);
/* The GPU's PCI address ("0000:17:00.0"; NULL with a message for x NULL),
 * and the NUMA node its staging memory is placed on (-1: none; -EINVAL for
 * x NULL). */
GF_API const char *gf_xfer_gpu_pci(const struct gf_xfer *x);
GF_API int gf_xfer_numa_node(const struct gf_xfer *x);

#ifdef __cplusplus
}
#endif
#endif
