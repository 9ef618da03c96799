/* Host, pinned and device memory (src/mem/) on the stand-in libcuda and
 * NVML: GF_BUF_PINNED registers and gf_buf_free unregisters; device memory
 * by NVML index; DLPack tensors that view it, check their view and keep the
 * memory alive past the owner's free; the internal pin and device calls the
 * bench targets and xfer share. */
#include "helpers.h"
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/buf.h>
#include <gpufeed/dlpack.h>
#include <gpufeed/error.h>
#include "mem/mem.h"
#include "vendor/cuda/cuda.h"


static void *fake_cuda;

/* The stand-in loaded before any count, so t_fake_cuda_live() can see it. */
static int setup(void **state)
{
	(void)state;
	t_use_fakes();
	if (!fake_cuda)
		fake_cuda = dlopen(getenv("GPUFEED_CUDA_LIBRARY"), RTLD_NOW);
	return fake_cuda ? 0 : -1;
}

static struct gf_buf *pinned_buf(size_t size)
{
	struct gf_buf_opts o = GF_BUF_OPTS_INIT;
	struct gf_buf *b = NULL;

	o.size = size;
	o.flags = GF_BUF_PINNED;
	assert_int_equal(gf_buf_alloc(&o, &b), 0);
	return b;
}

static void pinned_by_flag(void **state)
{
	struct gf_buf_opts o = GF_BUF_OPTS_INIT;
	struct gf_buf *b;
	int before = t_fake_cuda_live();

	(void)state;
	b = pinned_buf(1 << 20);
	assert_true(b->pinned);
	assert_int_equal(t_fake_cuda_live(), before + 1);
	gf_buf_free(b);
	assert_int_equal(t_fake_cuda_live(), before);
	/* No such GPU: refused, nothing left behind. */
	o.size = 4096;
	o.flags = GF_BUF_PINNED;
	o.gpu = 9;
	assert_true(gf_buf_alloc(&o, &b) < 0);
	assert_null(b);
	assert_int_equal(t_fake_cuda_live(), before);
	/* No libcuda: -ENOSYS, saying so. */
	setenv("GPUFEED_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
	gf_cuda_unload();
	o.gpu = 0;
	assert_int_equal(gf_buf_alloc(&o, &b), -ENOSYS);
	assert_non_null(strstr(gf_last_error(), "CUDA not available"));
	t_use_fakes();
	gf_cuda_unload();
}

static void device_memory(void **state)
{
	struct gf_devbuf *d = (void *)1;
	int before = t_fake_cuda_live();

	(void)state;
	assert_int_equal(gf_devbuf_alloc(0, 0, &d), -EINVAL);
	assert_null(d);
	assert_int_equal(gf_devbuf_alloc(0, 1 << 20, NULL), -EINVAL);
	assert_int_equal(gf_devbuf_alloc(1, 1 << 20, &d), 0);
	assert_true(d->ptr != 0);
	assert_int_equal(d->size, 1 << 20);
	assert_int_equal(d->gpu, 1);
	assert_true(d->pci[0] != '\0');
	assert_int_equal(t_fake_cuda_live(), before + 1);
	gf_devbuf_free(d);
	assert_int_equal(t_fake_cuda_live(), before);
	gf_devbuf_free(NULL);
	/* The driver out of memory: the bytes and the GPU are named. */
	setenv("FAKE_CUDA_FAIL", "cuMemAlloc_v2=2", 1);
	assert_int_equal(gf_devbuf_alloc(0, 3 << 20, &d), -ENOMEM);
	assert_non_null(strstr(gf_last_error(), "cuMemAlloc 3145728 bytes on 0000:"));
	assert_int_equal(t_fake_cuda_live(), before);
	unsetenv("FAKE_CUDA_FAIL");
}

/* A tensor views the buffer as asked, and keeps it: the owner's free does
 * not take the memory while a tensor holds it. */
static void dlpack_host_and_device(void **state)
{
	int64_t shape[2] = { 4, 1024 };
	struct gf_dl_managed_tensor *t;
	struct gf_buf *b = pinned_buf(64 << 10);
	struct gf_devbuf *d;
	int before;

	(void)state;
	assert_int_equal(gf_buf_dlpack(b, 4096, GF_DL_DTYPE(GF_DL_FLOAT, 32), 2, shape, &t), 0);
	assert_ptr_equal(t->dl_tensor.data, b->data);
	assert_int_equal(t->dl_tensor.byte_offset, 4096);
	assert_int_equal(t->dl_tensor.device.device_type, GF_DL_CPU);	/* pinned: still CPU memory */
	assert_int_equal(t->dl_tensor.ndim, 2);
	assert_int_equal(t->dl_tensor.shape[1], 1024);
	assert_null(t->dl_tensor.strides);
	assert_int_equal(t->dl_tensor.dtype.bits, 32);
	before = t_fake_cuda_live();
	memset(b->data, 0x7e, 8);
	gf_buf_free(b);				/* the owner lets go... */
	assert_int_equal(t_fake_cuda_live(), before);	/* ...still pinned and mapped */
	assert_int_equal(((unsigned char *)t->dl_tensor.data)[7], 0x7e);
	t->deleter(t);				/* the last holder */
	assert_int_equal(t_fake_cuda_live(), before - 1);
	/* Views that do not fit are refused, naming why. */
	b = pinned_buf(4096);
	assert_int_equal(gf_buf_dlpack(b, 0, GF_DL_DTYPE(GF_DL_FLOAT, 32), 2, shape, &t), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "run past the buffer's 4096 bytes"));
	assert_null(t);
	assert_int_equal(gf_buf_dlpack(b, 2, GF_DL_DTYPE(GF_DL_FLOAT, 32), 1, shape, &t), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "not a multiple of the element"));
	assert_int_equal(gf_buf_dlpack(b, 0, GF_DL_DTYPE(GF_DL_FLOAT, 12), 1, shape, &t), -EINVAL);
	assert_int_equal(gf_buf_dlpack(b, 0, GF_DL_DTYPE(GF_DL_UINT, 8), 0, shape, &t), -EINVAL);
	shape[0] = -1;
	assert_int_equal(gf_buf_dlpack(b, 0, GF_DL_DTYPE(GF_DL_UINT, 8), 1, shape, &t), -EINVAL);
	shape[0] = 4096;
	assert_int_equal(gf_buf_dlpack(NULL, 0, GF_DL_DTYPE(GF_DL_UINT, 8), 1, shape, &t), -EINVAL);
	assert_int_equal(gf_buf_dlpack(b, 0, GF_DL_DTYPE(GF_DL_UINT, 8), 1, shape, NULL), -EINVAL);
	/* Plain host memory is the CPU's too. */
	gf_buf_free(b);
	{
		struct gf_buf_opts o = GF_BUF_OPTS_INIT;

		o.size = 4096;
		assert_int_equal(gf_buf_alloc(&o, &b), 0);
		assert_int_equal(gf_buf_dlpack(b, 0, GF_DL_DTYPE(GF_DL_UINT, 8), 1, shape, &t), 0);
		assert_int_equal(t->dl_tensor.device.device_type, GF_DL_CPU);
		gf_buf_free(b);
		t->deleter(t);
	}
	/* Device memory: CUDA, with its ordinal; two tensors, freed in any
	 * order after the owner. */
	before = t_fake_cuda_live();
	assert_int_equal(gf_devbuf_alloc(1, 1 << 20, &d), 0);
	{
		struct gf_dl_managed_tensor *u;
		int64_t n = 1 << 18;

		assert_int_equal(gf_devbuf_dlpack(d, 0, GF_DL_DTYPE(GF_DL_FLOAT, 32), 1, &n, &t), 0);
		assert_int_equal(gf_devbuf_dlpack(d, 0, GF_DL_DTYPE(GF_DL_UINT, 8), 1, &n, &u), 0);
		assert_int_equal(t->dl_tensor.device.device_type, GF_DL_CUDA);
		assert_int_equal(t->dl_tensor.device.device_id, d->cuda_ordinal);
		assert_int_equal((uintptr_t)t->dl_tensor.data, d->ptr);
		gf_devbuf_free(d);
		assert_int_equal(t_fake_cuda_live(), before + 1);
		u->deleter(u);
		assert_int_equal(t_fake_cuda_live(), before + 1);
		t->deleter(t);
		assert_int_equal(t_fake_cuda_live(), before);
	}
}

/* What bench and xfer call with a device they hold open: a pin that
 * gf_buf_free undoes through it, a second pin refused, device memory whose
 * failure names what it was for. */
static void internal_pin_and_device(void **state)
{
	struct gf_buf_opts o = GF_BUF_OPTS_INIT;
	struct gf_cuda_dev dev;
	gf_cu_deviceptr p;
	struct gf_buf *b;
	int before = t_fake_cuda_live();

	(void)state;
	assert_int_equal(gf_cuda_dev_open_nvml(0, &dev), 0);
	o.size = 8192;
	assert_int_equal(gf_buf_alloc(&o, &b), 0);
	assert_int_equal(gf_mem_pin(b, &dev, 0, NULL), 0);
	assert_true(b->pinned);
	assert_int_equal(gf_mem_pin(b, &dev, 0, NULL), -EBUSY);
	assert_int_equal(t_fake_cuda_live(), before + 1);
	gf_buf_free(b);
	assert_int_equal(t_fake_cuda_live(), before);
	setenv("FAKE_CUDA_FAIL", "cuMemAlloc_v2=2", 1);
	assert_int_equal(gf_mem_dev_alloc(&dev, 4096, "the chase's result", &p), -ENOMEM);
	assert_non_null(strstr(gf_last_error(), "cuMemAlloc 4096 bytes on "));
	assert_non_null(strstr(gf_last_error(), " for the chase's result: CUDA_ERROR_OUT_OF_MEMORY"));
	unsetenv("FAKE_CUDA_FAIL");
	assert_int_equal(gf_mem_dev_alloc(&dev, 4096, NULL, &p), 0);
	assert_int_equal(t_fake_cuda_live(), before + 1);
	gf_mem_dev_free(&dev, p);
	gf_mem_dev_free(&dev, 0);
	assert_int_equal(t_fake_cuda_live(), before);
	/* A buffer outliving its device: its context took the pin; freeing
	 * it then touches no closed device. */
	assert_int_equal(gf_buf_alloc(&o, &b), 0);
	assert_int_equal(gf_mem_pin(b, &dev, 0, NULL), 0);
	gf_cuda_dev_close(&dev);
	gf_buf_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(pinned_by_flag, setup),
		cmocka_unit_test_setup(device_memory, setup),
		cmocka_unit_test_setup(dlpack_host_and_device, setup),
		cmocka_unit_test_setup(internal_pin_and_device, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
