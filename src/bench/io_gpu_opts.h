/* `gpufeed bench io-gpu` (the target gf_bench_io_gpu_def, frame.h): storage to GPU memory through each path of
 * gpufeed/xfer.h (bounce, gds, naive), GB/s and CPU seconds per GB, beside
 * the two limits the bounce path is held to, measured in the same run on
 * the same file: the disk's O_DIRECT sequential read rate and the pinned
 * host-to-device copy rate.  docs/bench-io-gpu.md. */
#ifndef GF_BENCH_IO_GPU_OPTS_H
#define GF_BENCH_IO_GPU_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/frame.h"

#define GF_BENCH_IO_GPU_SCHEMA "gpufeed-bench-io-gpu/1"
#define GF_BENCH_IO_GPU_REPEATS_MAX 100u

struct gf_bench_io_gpu_opts {
	unsigned gpu;			/* NVML index */
	uint64_t size;			/* bytes of a file we create; 0: 1 GiB (--quick 256 MiB) */
	const char *paths;		/* "bounce,gds,naive" (default all three) */
	uint64_t chunk;			/* 0: GF_XFER_CHUNK_DEFAULT */
	unsigned depth;			/* 0: 2 */
	unsigned reads;			/* 0: 4 */
	int numa_node;			/* staging memory; -1: the GPU's node in the model */
	unsigned repeats;		/* samples per figure; 0: 3 (--quick 1) */
	bool quick;
};

struct gf_bench_io_gpu;

/* The options alone and FILE (read; created, and removed after, when
 * absent): 0, or -EINVAL naming the option (usage). */
int gf_bench_io_gpu_check(const struct gf_bench_io_gpu_opts *opts, const char *file);
/* Measures.  0 (failed points are in the results), -ENOSYS no libcuda or
 * NVML, -ENODEV no such GPU or --numa-node not a node of the model,
 * -ENOENT/-EACCES the file, -ECANCELED. */
int gf_bench_io_gpu_run(const struct gf_bench_io_gpu_opts *opts, const char *file, const struct gf_bench_env *env,
			struct gf_bench_io_gpu **out);
/* Failed points (a byte check among them), and a path faster than the
 * disk's O_DIRECT rate allows (the page cache served it). */
unsigned gf_bench_io_gpu_findings(const struct gf_bench_io_gpu *b);
int gf_bench_io_gpu_print(const struct gf_bench_io_gpu *b, FILE *f);
int gf_bench_io_gpu_write_json(const struct gf_bench_io_gpu *b, FILE *f);
void gf_bench_io_gpu_free(struct gf_bench_io_gpu *b);

#endif
