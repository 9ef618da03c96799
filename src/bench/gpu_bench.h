/* What every GPU bench target (bench h2d, bench p2p) shares: the --sizes
 * and --gpu lists, opening the GPUs named by NVML index, the spin kernel
 * that holds a stream while the timed copies are queued behind it, and
 * the byte pattern a point's first sample is checked with. */
#ifndef GF_BENCH_GPU_BENCH_H
#define GF_BENCH_GPU_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <gpufeed/cpuset.h>
#include <gpufeed/topo.h>

#include "vendor/cuda/cuda_device.h"
#include "vendor/cuda/cuda_kernels.h"

/* "64M,512M" into sizes[] (at most max): each a multiple of 8 bytes (the
 * pattern's word) from 4K to 64G; -EINVAL/-ERANGE naming --sizes. */
int gf_gpu_bench_parse_sizes(const char *text, uint64_t *sizes, unsigned max, unsigned *n);
/* --gpu's list of NVML indexes, NULL for every GPU: -EINVAL unless a
 * non-empty list. */
int gf_gpu_bench_check_gpus(const char *gpus);
/* Loads CUDA and fills *want with --gpu's indexes, or every GPU's. */
int gf_gpu_bench_wanted(const char *gpus, struct gf_cpuset *want);
/* Opens NVML's GPU index; the error names it ("GPU 9: ..."). */
int gf_gpu_bench_open(unsigned index, struct gf_cuda_dev *dev);
/* A launched rank's GPU: the LOCAL_RANK'th GPU CUDA shows, or the only one
 * where the launcher gave each rank its own (CUDA_VISIBLE_DEVICES, as
 * gpufeed launch does): its PCI address in lower case and CUDA ordinal. */
int gf_gpu_bench_launched(int rank, int local_rank, char pci[16], int *ordinal);

/* The model's GPU-GPU path between the GPUs at PCI addresses a and b
 * (either order; the model keeps one per pair), NULL when the model lacks
 * either GPU or the path. */
const struct gf_path *gf_gpu_bench_path(const struct gf_topo *t, const char *a, const char *b);

/* Loads gf_spin on dev (current) and sets *cycles to about ms of it. */
int gf_gpu_spin_load(const struct gf_cuda_dev *dev, unsigned ms, struct gf_cuda_kernel *spin,
		     unsigned long long *cycles);
/* Queues the spin on stream s. */
int gf_gpu_spin(const struct gf_cuda_dev *dev, const struct gf_cuda_kernel *spin, unsigned long long *cycles,
		gf_cu_stream s);

/* The pattern of seed in the n / 8 words at p, and its check: -EIO naming
 * the first word that differs, after "which: " when which is not NULL. */
void gf_gpu_pattern_fill(void *p, size_t n, uint64_t seed);
int gf_gpu_pattern_check(const void *p, size_t n, uint64_t seed, const char *which);

#endif
