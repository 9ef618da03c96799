// gf_copy: an SM copy (the kernel moves the bytes, not a copy engine), used
// for the p2p "sm" figures: dst and src may be on different GPUs once peer
// access is enabled.  Grid-stride 16-byte loads and stores (uint4); dst and
// src must be 16-byte aligned (cuMemAlloc gives 256) and must not overlap;
// the last bytes % 16 are copied one byte at a time.
//
// Each thread has 12 loads in flight before it stores them, as nvbandwidth's
// stridingMemcpyKernel does: a load from a peer GPU takes about 0.8 us over
// NVLink, and with one load per thread at a time (all a plain loop gets, since
// without __restrict__ a store may alias the next load) the link idles
// between them: the copy measured 1-2% under nvbandwidth's on 2x H200.
#define GF_COPY_INFLIGHT 12

extern "C" __global__ void gf_copy(uint4 *__restrict__ dst, const uint4 *__restrict__ src,
				   unsigned long long bytes)
{
	unsigned long long n16 = bytes / 16;
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long k = i;

	for (; k + (GF_COPY_INFLIGHT - 1) * stride < n16; k += GF_COPY_INFLIGHT * stride) {
		uint4 v[GF_COPY_INFLIGHT];
#pragma unroll
		for (int j = 0; j < GF_COPY_INFLIGHT; j++)
			v[j] = src[k + j * stride];
#pragma unroll
		for (int j = 0; j < GF_COPY_INFLIGHT; j++)
			dst[k + j * stride] = v[j];
	}
	for (; k < n16; k += stride)
		dst[k] = src[k];
	for (unsigned long long b = n16 * 16 + i; b < bytes; b += stride)
		((unsigned char *)dst)[b] = ((const unsigned char *)src)[b];
}
