/* What every GPU bench target shares (gpu_bench.h): written once so that
 * bench h2d and bench p2p take the same lists, open GPUs the same way and
 * check the bytes they move with the same pattern. */
#include <errno.h>
#include <string.h>

#include <gpufeed/parse.h>
#include "bench/h2d_opts.h"
#include "bench/p2p_opts.h"
#include "bench/gpu_bench.h"
#include "core/error.h"

/* The size range the --sizes message states; each target's public limits
 * must stay the same range for the message to hold. */
#define SIZE_LOW (4ull << 10)
#define SIZE_HIGH (64ull << 30)
_Static_assert(GF_BENCH_H2D_SIZE_MIN == SIZE_LOW && GF_BENCH_H2D_SIZE_MAX == SIZE_HIGH, "bench h2d's size range");
_Static_assert(GF_BENCH_P2P_SIZE_MIN == SIZE_LOW && GF_BENCH_P2P_SIZE_MAX == SIZE_HIGH, "bench p2p's size range");

int gf_gpu_bench_parse_sizes(const char *text, uint64_t *sizes, unsigned max, unsigned *n)
{
	char buf[256], *save = NULL, *tok;

	*n = 0;
	if (strlen(text) >= sizeof(buf))
		return gf_error(-EINVAL, "--sizes: '%s' is too long", text);
	strcpy(buf, text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (*n == max)
			return gf_error(-ERANGE, "--sizes: at most %u sizes", max);
		if (gf_parse_size(tok, &v))
			return gf_error(-EINVAL, "--sizes: '%s': %s", tok, gf_last_error());
		if (v < SIZE_LOW || v > SIZE_HIGH || v % 8)
			return gf_error(-ERANGE, "--sizes: '%s' is not a multiple of 8 bytes from 4K to 64G", tok);
		sizes[(*n)++] = v;
	}
	if (!*n)
		return gf_error(-EINVAL, "--sizes: '%s' names no size", text);
	return 0;
}

int gf_gpu_bench_check_gpus(const char *gpus)
{
	struct gf_cpuset set;

	if (gpus && (gf_cpuset_parse_list(&set, gpus) || gf_cpuset_empty(&set)))
		return gf_error(-EINVAL, "--gpu: '%s' is not a list of NVML indexes (0,1 or 0-3)", gpus);
	return 0;
}

int gf_gpu_bench_wanted(const char *gpus, struct gf_cpuset *want)
{
	const struct gf_cuda_ops *ops;
	int ndev, rc;

	if ((rc = gf_cuda_init(&ops, &ndev)))
		return rc;
	gf_cpuset_zero(want);
	if (gpus)
		gf_cpuset_parse_list(want, gpus);
	else
		for (int i = 0; i < ndev; i++)
			gf_cpuset_set(want, (unsigned)i);
	return 0;
}

int gf_gpu_bench_open(unsigned index, struct gf_cuda_dev *dev)
{
	int rc = gf_cuda_dev_open_nvml(index, dev);

	return rc ? gf_error(rc, "GPU %u: %s", index, gf_last_error()) : 0;
}

/* The model's matrix index of the GPU at pci, -1 when it has none. */
static int matrix_of(const struct gf_topo *t, const char *pci)
{
	int g = gf_topo_find_gpu(t, pci);

	for (int i = 0; g >= 0 && i < t->matrix.n; i++)
		if (t->matrix.dev[i].kind == GF_DEV_GPU && t->matrix.dev[i].ref == g)
			return i;
	return -1;
}

const struct gf_path *gf_gpu_bench_path(const struct gf_topo *t, const char *a, const char *b)
{
	int ma = matrix_of(t, a), mb = matrix_of(t, b);

	for (int i = 0; ma >= 0 && mb >= 0 && i < t->npaths; i++) {
		const struct gf_path *q = &t->paths[i];

		if (q->kind == GF_PATH_GPU_GPU && ((q->from == ma && q->to == mb) || (q->from == mb && q->to == ma)))
			return q;
	}
	return NULL;
}

int gf_gpu_spin_load(const struct gf_cuda_dev *dev, unsigned ms, struct gf_cuda_kernel *spin,
		     unsigned long long *cycles)
{
	int khz = 0, rc;

	if ((rc = gf_cuda_kernel_load(dev->ops, "spin", "gf_spin", spin)))
		return rc;
	/* The attribute is in kHz: cycles per ms.  A driver that does not
	 * say (CUDA 13 deprecates it) gets 3 GHz, above any GPU's clock, so
	 * the spin lasts at least ms. */
	if (dev->ops->device_attribute(&khz, GF_CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev->dev) != GF_CUDA_SUCCESS ||
	    khz <= 0)
		khz = 3000000;
	*cycles = (unsigned long long)khz * ms;
	return 0;
}

int gf_gpu_spin(const struct gf_cuda_dev *dev, const struct gf_cuda_kernel *spin, unsigned long long *cycles,
		gf_cu_stream s)
{
	void *args[] = { cycles };

	return gf_cuda_check(dev->ops, dev->ops->launch_kernel(spin->fn, 1, 1, 1, 1, 1, 1, 0, s, args, NULL),
			     "cuLaunchKernel gf_spin");
}

/* The pattern of word i: xorshift-mixed, different per seed (point,
 * direction) and offset, so a copy of the wrong bytes or of nothing is
 * caught. */
static uint64_t pattern(uint64_t seed, size_t i)
{
	uint64_t x = seed ^ (i * 0x9e3779b97f4a7c15ull);

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

void gf_gpu_pattern_fill(void *p, size_t n, uint64_t seed)
{
	uint64_t *w = p;

	for (size_t i = 0; i < n / 8; i++)
		w[i] = pattern(seed, i);
}

int gf_gpu_pattern_check(const void *p, size_t n, uint64_t seed, const char *which)
{
	const uint64_t *w = p;

	for (size_t i = 0; i < n / 8; i++)
		if (w[i] != pattern(seed, i))
			return gf_error(-EIO, "%s%sthe bytes copied differ from those sent at offset %zu",
					which ? which : "", which ? ": " : "", i * 8);
	return 0;
}

int gf_gpu_bench_launched(int rank, int local_rank, char pci[16], int *ordinal)
{
	const struct gf_cuda_ops *cu;
	int ndev, ord, rc;
	gf_cu_device d;

	if ((rc = gf_cuda_init(&cu, &ndev)))
		return rc;
	ord = ndev == 1 ? 0 : local_rank;
	if (ord >= ndev)
		return gf_error(-ENODEV, "rank %d: local rank %d has no GPU (CUDA shows %d)", rank, local_rank, ndev);
	if ((rc = gf_cuda_check(cu, cu->device_get(&d, ord), "cuDeviceGet")) ||
	    (rc = gf_cuda_check(cu, cu->device_pci_bus_id(pci, 16, d), "cuDeviceGetPCIBusId")))
		return rc;
	/* CUDA writes "0000:18:00.0" in capitals */
	for (char *c = pci; *c; c++)
		if (*c >= 'A' && *c <= 'F')
			*c = (char)(*c - 'A' + 'a');
	*ordinal = ord;
	return 0;
}
