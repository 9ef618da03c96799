/* The CUDA driver layer against the stand-in libcuda (tests/fakes/
 * fake_cuda.c): loading, "not available", no GPU, CUresult messages and
 * errno, devices found by PCI address in a non-PCI ordinal order, and a
 * host -> device -> host round trip whose bytes are checked. */
#include "helpers.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/error.h>
#include "vendor/cuda/cuda.h"
#include "vendor/cuda/cuda_device.h"
#include "vendor/cuda/cuda_kernels.h"

static int use_fake(void **state)
{
	const char *lib = getenv("GPUFEED_FAKE_CUDA");

	(void)state;
	setenv("GPUFEED_CUDA_LIBRARY", lib ? lib : "build/fakes/libcuda.so.1", 1);
	setenv("GPUFEED_NVML_LIBRARY",
	       getenv("GPUFEED_FAKE_NVML") ? getenv("GPUFEED_FAKE_NVML") : "build/fakes/libnvidia-ml.so.1", 1);
	unsetenv("FAKE_CUDA_DEVICES");
	unsetenv("FAKE_CUDA_PCI");
	unsetenv("FAKE_CUDA_FAIL");
	unsetenv("FAKE_CUDA_SCENARIO");
	/* Loaded once per process: forget a previous test's library. */
	gf_cuda_unload();
	return 0;
}

static void absent_library(void **state)
{
	const struct gf_cuda_ops *ops;
	char why[400];
	int n;

	(void)state;
	setenv("GPUFEED_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
	assert_int_equal(gf_cuda_load(&ops, why, sizeof(why)), -ENOSYS);
	assert_null(ops);
	assert_string_equal(why, "GPUFEED_CUDA_LIBRARY=/nonexistent/libcuda.so.1 not found");
	/* gf_cuda_init says the same: "not available" is exit 4 for a caller. */
	assert_int_equal(gf_cuda_init(&ops, &n), -ENOSYS);
	assert_string_equal(gf_last_error(),
			    "CUDA not available: GPUFEED_CUDA_LIBRARY=/nonexistent/libcuda.so.1 not found");
}

/* A library that is not libcuda: the first required symbol is named. */
static void missing_required_symbol(void **state)
{
	const struct gf_cuda_ops *ops;
	char why[400];

	(void)state;
	setenv("GPUFEED_CUDA_LIBRARY", "libm.so.6", 1);
	assert_int_equal(gf_cuda_load(&ops, why, sizeof(why)), -ENOSYS);
	assert_string_equal(why, "GPUFEED_CUDA_LIBRARY=libm.so.6 lacks cuInit (driver older than CUDA 11, R450?)");
	assert_string_equal(gf_last_error(), "CUDA not available: GPUFEED_CUDA_LIBRARY=libm.so.6 lacks cuInit "
					     "(driver older than CUDA 11, R450?)");
}

static void loads_fake(void **state)
{
	const struct gf_cuda_ops *ops;
	char why[400] = "x";
	int v = 0, n = 0;

	(void)state;
	assert_int_equal(gf_cuda_load(&ops, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_string_equal(gf_cuda_library(), getenv("GPUFEED_CUDA_LIBRARY"));
	assert_non_null(ops->event_elapsed_time);	/* found as cuEventElapsedTime_v2 */
	assert_non_null(ops->error_name);
	assert_null(ops->device_uuid);		/* optional, and the fake lacks it */
	assert_int_equal(ops->driver_version(&v), GF_CUDA_SUCCESS);
	assert_int_equal(v, 13000);
	assert_int_equal(gf_cuda_init(&ops, &n), 0);
	assert_int_equal(n, 2);
}

static void no_gpu(void **state)
{
	const struct gf_cuda_ops *ops;
	int n = -1;

	(void)state;
	setenv("FAKE_CUDA_SCENARIO", "no_device", 1);
	assert_int_equal(gf_cuda_init(&ops, &n), -ENODEV);
	assert_int_equal(n, 0);
	assert_string_equal(gf_last_error(), "CUDA not available: no GPU (cuInit: CUDA_ERROR_NO_DEVICE "
					     "(no CUDA-capable device is detected))");
	setenv("FAKE_CUDA_SCENARIO", "zero", 1);
	assert_int_equal(gf_cuda_init(&ops, &n), -ENODEV);
	assert_string_equal(gf_last_error(), "CUDA not available: no GPU (cuDeviceGetCount: 0 devices)");
	/* The toolkit's stub libcuda on a host without the driver. */
	setenv("FAKE_CUDA_SCENARIO", "stub", 1);
	assert_int_equal(gf_cuda_init(&ops, &n), -ENOSYS);
	assert_non_null(strstr(gf_last_error(), "CUDA not available: cuInit: CUDA_ERROR_STUB_LIBRARY"));
}

static void error_names_and_errno(void **state)
{
	const struct gf_cuda_ops *ops;
	char why[400];

	(void)state;
	assert_int_equal(gf_cuda_load(&ops, why, sizeof(why)), 0);
	assert_int_equal(gf_cuda_check(ops, GF_CUDA_SUCCESS, "cuMemAlloc"), 0);
	assert_int_equal(gf_cuda_check(ops, GF_CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc"), -ENOMEM);
	assert_string_equal(gf_last_error(), "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
	assert_int_equal(gf_cuda_errno(GF_CUDA_ERROR_INVALID_VALUE), -EINVAL);
	assert_int_equal(gf_cuda_errno(GF_CUDA_ERROR_NO_DEVICE), -ENODEV);
	assert_int_equal(gf_cuda_errno(GF_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED), -EEXIST);
	assert_int_equal(gf_cuda_errno(GF_CUDA_ERROR_UNSUPPORTED_PTX_VERSION), -ENOSYS);
	assert_int_equal(gf_cuda_errno(GF_CUDA_ERROR_LAUNCH_FAILED), -EIO);
	/* A code the driver cannot name (a newer one), or no names at all. */
	assert_string_equal(gf_cuda_strerror(ops, 12345), "CUDA error 12345");
	setenv("FAKE_CUDA_SCENARIO", "no_names", 1);
	assert_string_equal(gf_cuda_strerror(ops, GF_CUDA_ERROR_OUT_OF_MEMORY), "CUDA error 2");
	assert_string_equal(gf_cuda_strerror(NULL, GF_CUDA_ERROR_OUT_OF_MEMORY), "CUDA error 2");
}

/* CUDA's ordinal 0 is 0000:00:07.0 in the fake (FASTEST_FIRST order), so
 * opening NVML's GPU 0 (0000:00:06.0) must find ordinal 1. */
static void devices_by_pci(void **state)
{
	const struct gf_cuda_ops *ops;
	struct gf_cuda_dev d;
	int ord = -1, n;

	(void)state;
	assert_int_equal(gf_cuda_init(&ops, &n), 0);
	assert_int_equal(gf_cuda_ordinal_of_pci(ops, "0000:00:07.0", &ord), 0);
	assert_int_equal(ord, 0);
	assert_int_equal(gf_cuda_ordinal_of_pci(ops, "00:06.0", &ord), 0);	/* any form */
	assert_int_equal(ord, 1);
	assert_int_equal(gf_cuda_ordinal_of_pci(ops, "0000:00:09.0", &ord), -ENODEV);
	assert_string_equal(gf_last_error(), "no CUDA device at 0000:00:09.0 (2 CUDA devices)");
	assert_int_equal(gf_cuda_ordinal_of_pci(ops, "gpu0", &ord), -EINVAL);

	assert_int_equal(gf_cuda_dev_open_nvml(0, &d), 0);
	assert_int_equal(d.ordinal, 1);
	assert_string_equal(d.pci, "0000:00:06.0");
	assert_string_equal(d.name, "Fake H200 1");
	assert_int_equal(d.cc_major, 9);
	assert_int_equal(d.async_engines, 3);
	gf_cuda_dev_close(&d);
	gf_cuda_dev_close(&d);	/* twice is harmless */

	/* An explicit order from the environment, domain and all. */
	setenv("FAKE_CUDA_DEVICES", "3", 1);
	setenv("FAKE_CUDA_PCI", "0001:c1:00.0,0000:41:00.0,0001:01:00.0", 1);
	assert_int_equal(gf_cuda_ordinal_of_pci(ops, "0001:01:00.0", &ord), 0);
	assert_int_equal(ord, 2);
	assert_int_equal(gf_cuda_dev_open_pci("0000:41:00.0", &d), 0);
	assert_int_equal(d.ordinal, 1);
	gf_cuda_dev_close(&d);
	assert_int_equal(gf_cuda_dev_open_pci("0000:42:00.0", &d), -ENODEV);
}

/* Host -> device -> device -> host through streams and events; the bytes
 * that come back are the ones that went out. */
static void round_trip(void **state)
{
	struct gf_cuda_dev d;
	const struct gf_cuda_ops *o;
	gf_cu_deviceptr a, b;
	gf_cu_stream s;
	gf_cu_event e0, e1;
	unsigned char *pinned, back[4096];
	float ms = -1;
	const size_t n = sizeof(back);

	(void)state;
	assert_int_equal(gf_cuda_dev_open_pci("0000:00:07.0", &d), 0);
	o = d.ops;
	assert_int_equal(o->mem_host_alloc((void **)&pinned, n, GF_CU_MEMHOSTALLOC_PORTABLE), 0);
	for (size_t i = 0; i < n; i++)
		pinned[i] = (unsigned char)(i * 7 + 3);
	assert_int_equal(o->mem_alloc(&a, n), 0);
	assert_int_equal(o->mem_alloc(&b, n), 0);
	assert_int_equal(o->stream_create(&s, GF_CU_STREAM_NON_BLOCKING), 0);
	assert_int_equal(o->event_create(&e0, GF_CU_EVENT_DEFAULT), 0);
	assert_int_equal(o->event_create(&e1, GF_CU_EVENT_DEFAULT), 0);
	assert_int_equal(o->event_record(e0, s), 0);
	assert_int_equal(o->memcpy_htod_async(a, pinned, n, s), 0);
	assert_int_equal(o->memcpy_dtod_async(b, a, n, s), 0);
	assert_int_equal(o->memset_d8_async(a, 0, n, s), 0);
	memset(back, 0, n);
	assert_int_equal(o->memcpy_dtoh_async(back, b, n, s), 0);
	assert_int_equal(o->event_record(e1, s), 0);
	assert_int_equal(o->stream_synchronize(s), 0);
	assert_int_equal(o->event_elapsed_time(&ms, e0, e1), 0);
	assert_true(ms >= 0);
	assert_memory_equal(back, pinned, n);
	/* The memset reached a, not b. */
	assert_int_equal(o->memcpy_dtoh_async(back, a, n, s), 0);
	assert_int_equal(back[5], 0);
	/* Past the end of an allocation is an error, not a silent copy. */
	assert_int_equal(gf_cuda_check(o, o->memcpy_dtoh_async(back, b + 1, n, s), "cuMemcpyDtoHAsync"), -EINVAL);

	o->event_destroy(e0);
	o->event_destroy(e1);
	o->stream_destroy(s);
	o->mem_free(a);
	o->mem_free(b);
	o->mem_free_host(pinned);
	gf_cuda_dev_close(&d);
}

static void registered_memory_and_injected_errors(void **state)
{
	struct gf_cuda_dev d;
	gf_cu_deviceptr p;
	static unsigned char user[8192] __attribute__((aligned(4096)));

	(void)state;
	assert_int_equal(gf_cuda_dev_open_pci("0000:00:06.0", &d), 0);
	assert_int_equal(d.ops->mem_host_register(user, sizeof(user), GF_CU_MEMHOSTREGISTER_PORTABLE), 0);
	assert_int_equal(gf_cuda_check(d.ops, d.ops->mem_host_register(user, sizeof(user), 0), "cuMemHostRegister"),
			 -EEXIST);
	assert_int_equal(d.ops->mem_host_unregister(user), 0);
	assert_int_equal(gf_cuda_check(d.ops, d.ops->mem_host_unregister(user), "cuMemHostUnregister"), -ENOENT);

	setenv("FAKE_CUDA_FAIL", "cuStreamCreate,cuMemAlloc_v2=2", 1);
	assert_int_equal(gf_cuda_check(d.ops, d.ops->mem_alloc(&p, 1 << 20), "cuMemAlloc 1048576 bytes"), -ENOMEM);
	assert_string_equal(gf_last_error(), "cuMemAlloc 1048576 bytes: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
	gf_cuda_dev_close(&d);

	/* A failure while opening leaves nothing retained. */
	setenv("FAKE_CUDA_FAIL", "cuDevicePrimaryCtxRetain=101", 1);
	assert_int_equal(gf_cuda_dev_open_pci("0000:00:06.0", &d), -ENODEV);
	assert_string_equal(gf_last_error(),
			    "cuDevicePrimaryCtxRetain: CUDA_ERROR_INVALID_DEVICE (invalid device ordinal)");
	assert_null(d.ctx);
}

/* Without a current context the driver refuses work: the layer makes it
 * current for the opening thread, and the fake checks it. */
static void context_is_current(void **state)
{
	struct gf_cuda_dev d;
	gf_cu_deviceptr p;

	(void)state;
	assert_int_equal(gf_cuda_dev_open_pci("0000:00:06.0", &d), 0);
	assert_int_equal(d.ops->ctx_set_current(NULL), 0);
	assert_int_equal(d.ops->mem_alloc(&p, 64), GF_CUDA_ERROR_INVALID_CONTEXT);
	assert_int_equal(gf_cuda_dev_make_current(&d), 0);
	assert_int_equal(d.ops->mem_alloc(&p, 64), 0);
	assert_int_equal(d.ops->mem_free(p), 0);
	gf_cuda_dev_close(&d);
}

/* The embedded PTX is nvcc's output for each gpu/kernels/NAME.cu, with its
 * entry, and loads; the stand-in runs gf_copy and gf_chase on the host
 * with the parameters a real launch passes. */
static void kernels(void **state)
{
	struct gf_cuda_dev d;
	struct gf_cuda_kernel copy, chase, spin, bad;
	const struct gf_cuda_ops *o;
	gf_cu_deviceptr a, b, chain, out;
	unsigned char src[1000], back[1000];
	unsigned long long words[4], n = sizeof(src), steps = 5, spun = 1000, got = 0;
	void *copy_args[] = { &b, &a, &n }, *chase_args[] = { &chain, &steps, &out }, *spin_args[] = { &spun };

	(void)state;
	assert_int_equal(gf_ptx_nimages, 3);
	for (int i = 0; i < gf_ptx_nimages; i++) {
		char entry[64];

		snprintf(entry, sizeof(entry), ".entry gf_%s(", gf_ptx_images[i].name);
		assert_non_null(strstr(gf_ptx_images[i].text, "Cuda compilation tools"));
		assert_non_null(strstr(gf_ptx_images[i].text, ".target sm_80"));
		assert_non_null(strstr(gf_ptx_images[i].text, entry));
		assert_int_equal(strlen(gf_ptx_images[i].text), gf_ptx_images[i].len);
	}
	assert_null(gf_ptx_find("nope"));
	assert_int_equal(gf_cuda_dev_open_pci("0000:00:06.0", &d), 0);
	o = d.ops;
	assert_int_equal(gf_cuda_kernel_load(o, "nope", "gf_copy", &bad), -ENOENT);
	assert_int_equal(gf_cuda_kernel_load(o, "copy", "gf_chase", &bad), -ENOENT);
	assert_string_equal(gf_last_error(), "cuModuleGetFunction gf_chase: CUDA_ERROR_NOT_FOUND (named symbol not found)");
	assert_null(bad.module);
	setenv("FAKE_CUDA_FAIL", "cuModuleLoadData=222", 1);
	assert_int_equal(gf_cuda_kernel_load(o, "copy", "gf_copy", &bad), -ENOSYS);
	assert_non_null(strstr(gf_last_error(), "(PTX ISA 9.0: the driver must be as new as the nvcc that wrote it)"));
	unsetenv("FAKE_CUDA_FAIL");
	assert_int_equal(gf_cuda_kernel_load(o, "copy", "gf_copy", &copy), 0);
	assert_int_equal(gf_cuda_kernel_load(o, "chase", "gf_chase", &chase), 0);
	assert_int_equal(gf_cuda_kernel_load(o, "spin", "gf_spin", &spin), 0);

	for (size_t i = 0; i < n; i++)
		src[i] = (unsigned char)(i ^ 0x5a);
	assert_int_equal(o->mem_alloc(&a, n), 0);
	assert_int_equal(o->mem_alloc(&b, n), 0);
	assert_int_equal(o->memcpy_htod_async(a, src, n, NULL), 0);
	assert_int_equal(o->launch_kernel(copy.fn, 4, 1, 1, 256, 1, 1, 0, NULL, copy_args, NULL), 0);
	assert_int_equal(o->memcpy_dtoh_async(back, b, n, NULL), 0);
	assert_memory_equal(back, src, n);

	/* A 4-word ring 0 -> 2 -> 1 -> 3 -> 0: five steps from word 0 end on 2. */
	assert_int_equal(o->mem_alloc(&chain, sizeof(words)), 0);
	assert_int_equal(o->mem_alloc(&out, 8), 0);
	words[0] = chain + 16, words[2] = chain + 8, words[1] = chain + 24, words[3] = chain;
	assert_int_equal(o->memcpy_htod_async(chain, words, sizeof(words), NULL), 0);
	assert_int_equal(o->launch_kernel(chase.fn, 1, 1, 1, 1, 1, 1, 0, NULL, chase_args, NULL), 0);
	assert_int_equal(o->memcpy_dtoh_async(&got, out, 8, NULL), 0);
	assert_true(got == chain + 16);
	assert_int_equal(o->launch_kernel(spin.fn, 1, 1, 1, 1, 1, 1, 0, NULL, spin_args, NULL), 0);

	o->mem_free(a), o->mem_free(b), o->mem_free(chain), o->mem_free(out);
	gf_cuda_kernel_unload(o, &copy);
	gf_cuda_kernel_unload(o, &chase);
	gf_cuda_kernel_unload(o, &spin);
	gf_cuda_dev_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(absent_library, use_fake),
		cmocka_unit_test_setup(missing_required_symbol, use_fake),
		cmocka_unit_test_setup(loads_fake, use_fake),
		cmocka_unit_test_setup(no_gpu, use_fake),
		cmocka_unit_test_setup(error_names_and_errno, use_fake),
		cmocka_unit_test_setup(devices_by_pci, use_fake),
		cmocka_unit_test_setup(round_trip, use_fake),
		cmocka_unit_test_setup(registered_memory_and_injected_errors, use_fake),
		cmocka_unit_test_setup(context_is_current, use_fake),
		cmocka_unit_test_setup(kernels, use_fake),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
