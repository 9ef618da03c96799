/* `gpufeed bench io --gpu G`: storage to GPU memory through each path of
 * gpufeed/xfer.h (bounce, gds, naive), GB/s and CPU seconds per GB, beside
 * the two limits the bounce path is held to, measured in the same run on
 * the same file: the disk's O_DIRECT sequential read rate and the pinned
 * host-to-device copy rate.  docs/bench-io-gpu.md. */
#ifndef GPUFEED_BENCH_IO_GPU_H
#define GPUFEED_BENCH_IO_GPU_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <gpufeed/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GF_BENCH_IO_GPU_SCHEMA "gpufeed-bench-io-gpu/1"
#define GF_BENCH_IO_GPU_REPEATS_MAX 100u

/* Versioned (include/gpufeed/common.h): start from GF_BENCH_IO_GPU_OPTS_INIT. */
struct gf_bench_io_gpu_opts {
	size_t struct_size;
	unsigned gpu;			/* NVML index */
	const char *file;		/* read; created (and removed after) when absent */
	uint64_t size;			/* bytes of a file we create; 0: 1 GiB (--quick 256 MiB) */
	const char *paths;		/* "bounce,gds,naive" (default all three) */
	size_t chunk;			/* 0: GF_XFER_CHUNK_DEFAULT */
	unsigned depth;			/* 0: 2 */
	unsigned reads;			/* 0: 4 */
	int numa_node;			/* staging memory; -1: the GPU's node */
	unsigned repeats;		/* samples per figure; 0: 3 (--quick 1) */
	bool quick;
	volatile sig_atomic_t *cancel;
	FILE *progress;
	bool progress_tty;
};
#define GF_BENCH_IO_GPU_OPTS_INIT { .struct_size = sizeof(struct gf_bench_io_gpu_opts), .numa_node = -1 }

struct gf_bench_io_gpu;

/* The options alone: 0, or -EINVAL naming the option (usage). */
GF_API int gf_bench_io_gpu_check(const struct gf_bench_io_gpu_opts *opts);
/* Measures.  0 (failed points are in the results), -ENOSYS no libcuda or
 * NVML, -ENODEV no such GPU, -ENOENT/-EACCES the file, -ECANCELED. */
GF_API int gf_bench_io_gpu_run(const struct gf_bench_io_gpu_opts *opts, struct gf_bench_io_gpu **out);
/* Failed points (a byte check among them), and a path faster than the
 * disk's O_DIRECT rate allows (the page cache served it). */
GF_API unsigned gf_bench_io_gpu_findings(const struct gf_bench_io_gpu *b);
GF_API int gf_bench_io_gpu_print(const struct gf_bench_io_gpu *b, FILE *f);
GF_API int gf_bench_io_gpu_write_json(const struct gf_bench_io_gpu *b, FILE *f);
GF_API void gf_bench_io_gpu_free(struct gf_bench_io_gpu *b);

#ifdef __cplusplus
}
#endif
#endif
