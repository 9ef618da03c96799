// gf_copy: an SM copy (the kernel moves the bytes, not a copy engine), used
// for the p2p "sm" figures: dst and src may be on different GPUs once peer
// access is enabled.  Grid-stride loop of 16-byte loads and stores (one
// uint4 per thread per step); dst and src must be 16-byte aligned (cuMemAlloc
// gives 256), and the last bytes % 16 are copied one byte at a time.
extern "C" __global__ void gf_copy(uint4 *dst, const uint4 *src, unsigned long long bytes)
{
	unsigned long long n16 = bytes / 16;
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;

	for (unsigned long long k = i; k < n16; k += stride)
		dst[k] = src[k];
	for (unsigned long long k = n16 * 16 + i; k < bytes; k += stride)
		((unsigned char *)dst)[k] = ((const unsigned char *)src)[k];
}
