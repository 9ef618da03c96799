/* The CUDA vendor layer against a real driver and GPU (the unit tests run it
 * against the stand-in libcuda): open NVML's GPU 0 by PCI address, move
 * 256 MiB host -> device -> (gf_copy kernel) -> device -> host through
 * pinned buffers on a stream and check every byte, follow a pointer chain
 * with gf_chase, spin with gf_spin, and time one pinned host-to-device copy
 * with events (a sanity figure against the link, not a benchmark: that is
 * bench h2d's job).  Built by `make gpu-smoke` here (static, like the CLI)
 * and run on a GPU machine by tests/gpu/run-gpu-tests.sh.
 *   cuda_smoke [NVML_INDEX]      exit 0 all held, 1 a check failed,
 *                                4 no CUDA or no GPU */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/gpufeed.h>
#include "vendor/cuda/cuda.h"
#include "vendor/cuda/cuda_device.h"
#include "vendor/cuda/cuda_kernels.h"

#define SMOKE_BYTES (256ull << 20)

static int failures;

static void check(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

/* A CUDA call that must succeed: on failure the message names the call. */
#define CU(ops, call, what)                                                        \
	do {                                                                       \
		if (gf_cuda_check((ops), (call), (what))) {                        \
			printf("FAIL %s\n", gf_last_error());                      \
			return 1;                                                  \
		}                                                                  \
	} while (0)

static int copy_round_trip(const struct gf_cuda_ops *o, const struct gf_cuda_kernel *copy, gf_cu_stream s)
{
	gf_cu_deviceptr a, b;
	unsigned char *src, *back;
	unsigned long long n = SMOKE_BYTES;
	void *args[] = { &b, &a, &n };
	gf_cu_event e0, e1;
	float ms = 0;
	size_t bad = 0;

	CU(o, o->mem_host_alloc((void **)&src, n, 0), "cuMemHostAlloc src");
	CU(o, o->mem_host_alloc((void **)&back, n, 0), "cuMemHostAlloc back");
	CU(o, o->mem_alloc(&a, n), "cuMemAlloc a");
	CU(o, o->mem_alloc(&b, n), "cuMemAlloc b");
	for (size_t i = 0; i < n; i++)
		src[i] = (unsigned char)((i * 2654435761u) >> 13);
	memset(back, 0, n);
	CU(o, o->event_create(&e0, 0), "cuEventCreate");
	CU(o, o->event_create(&e1, 0), "cuEventCreate");
	CU(o, o->event_record(e0, s), "cuEventRecord");
	CU(o, o->memcpy_htod_async(a, src, n, s), "cuMemcpyHtoDAsync");
	CU(o, o->event_record(e1, s), "cuEventRecord");
	CU(o, o->launch_kernel(copy->fn, 1024, 1, 1, 256, 1, 1, 0, s, args, NULL), "cuLaunchKernel gf_copy");
	CU(o, o->memcpy_dtoh_async(back, b, n, s), "cuMemcpyDtoHAsync");
	CU(o, o->stream_synchronize(s), "cuStreamSynchronize");
	CU(o, o->event_elapsed_time(&ms, e0, e1), "cuEventElapsedTime");
	for (size_t i = 0; i < n; i++)
		bad += back[i] != src[i];
	check(bad == 0, "256 MiB host -> device -> gf_copy -> device -> host: every byte back");
	if (bad)
		printf("     %zu bytes differ\n", bad);
	printf("     one pinned host-to-device copy of 256 MiB: %.2f ms = %.1f GB/s (event-timed)\n", ms,
	       ms > 0 ? n / (ms / 1e3) / 1e9 : 0);
	o->event_destroy(e0), o->event_destroy(e1);
	o->mem_free(a), o->mem_free(b);
	o->mem_free_host(src), o->mem_free_host(back);
	return 0;
}

static int chase_and_spin(const struct gf_cuda_ops *o, const struct gf_cuda_kernel *chase,
			  const struct gf_cuda_kernel *spin, gf_cu_stream s)
{
	gf_cu_deviceptr chain, out;
	unsigned long long words[4], steps = 5, got = 0, cycles = 10000000;
	void *chase_args[] = { &chain, &steps, &out }, *spin_args[] = { &cycles };
	gf_cu_event e0, e1;
	float ms = 0;

	CU(o, o->mem_alloc(&chain, sizeof(words)), "cuMemAlloc chain");
	CU(o, o->mem_alloc(&out, sizeof(got)), "cuMemAlloc out");
	/* A ring 0 -> 2 -> 1 -> 3 -> 0: five steps from word 0 end on word 2. */
	words[0] = chain + 16, words[2] = chain + 8, words[1] = chain + 24, words[3] = chain;
	CU(o, o->memcpy_htod_async(chain, words, sizeof(words), s), "cuMemcpyHtoDAsync chain");
	CU(o, o->launch_kernel(chase->fn, 1, 1, 1, 1, 1, 1, 0, s, chase_args, NULL), "cuLaunchKernel gf_chase");
	CU(o, o->memcpy_dtoh_async(&got, out, sizeof(got), s), "cuMemcpyDtoHAsync out");
	CU(o, o->stream_synchronize(s), "cuStreamSynchronize");
	check(got == chain + 16, "gf_chase: five steps round the ring end on word 2");

	CU(o, o->event_create(&e0, 0), "cuEventCreate");
	CU(o, o->event_create(&e1, 0), "cuEventCreate");
	CU(o, o->event_record(e0, s), "cuEventRecord");
	CU(o, o->launch_kernel(spin->fn, 1, 1, 1, 1, 1, 1, 0, s, spin_args, NULL), "cuLaunchKernel gf_spin");
	CU(o, o->event_record(e1, s), "cuEventRecord");
	CU(o, o->event_synchronize(e1), "cuEventSynchronize");
	CU(o, o->event_elapsed_time(&ms, e0, e1), "cuEventElapsedTime");
	/* 10^7 cycles at any clock from 0.5 to 3 GHz: 3.3 ms to 20 ms. */
	check(ms > 2.0f && ms < 40.0f, "gf_spin: 10^7 cycles take milliseconds, as a GPU clock says");
	printf("     gf_spin 10^7 cycles: %.2f ms\n", ms);
	o->event_destroy(e0), o->event_destroy(e1);
	o->mem_free(chain), o->mem_free(out);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned idx = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
	struct gf_cuda_kernel copy, chase, spin;
	struct gf_cuda_dev d;
	gf_cu_stream s;
	int ret;

	ret = gf_cuda_dev_open_nvml(idx, &d);
	if (ret == -ENOSYS || ret == -ENODEV) {
		printf("skip: %s\n", gf_last_error());
		return 4;
	}
	if (ret) {
		printf("FAIL open GPU %u: %s\n", idx, gf_last_error());
		return 1;
	}
	printf("GPU %u: %s at %s, compute %d.%d, %d SMs, %d copy engines, CUDA ordinal %d\n", idx, d.name, d.pci,
	       d.cc_major, d.cc_minor, d.sm_count, d.async_engines, d.ordinal);
	if (gf_cuda_kernel_load(d.ops, "copy", "gf_copy", &copy) || gf_cuda_kernel_load(d.ops, "chase", "gf_chase", &chase) ||
	    gf_cuda_kernel_load(d.ops, "spin", "gf_spin", &spin)) {
		printf("FAIL the embedded PTX did not load: %s\n", gf_last_error());
		return 1;
	}
	check(true, "the embedded PTX (copy, chase, spin) loads with cuModuleLoadData");
	if (gf_cuda_check(d.ops, d.ops->stream_create(&s, 0), "cuStreamCreate")) {
		printf("FAIL %s\n", gf_last_error());
		return 1;
	}
	if (copy_round_trip(d.ops, &copy, s) || chase_and_spin(d.ops, &chase, &spin, s))
		failures++;
	d.ops->stream_destroy(s);
	gf_cuda_kernel_unload(d.ops, &copy);
	gf_cuda_kernel_unload(d.ops, &chase);
	gf_cuda_kernel_unload(d.ops, &spin);
	gf_cuda_dev_close(&d);
	printf("%s\n", failures ? "FAILED" : "all held");
	return failures ? 1 : 0;
}
