/* The loader's GPU path (src/loader/copy.c) against the stand-in libcuda,
 * whose device memory is host memory behind made-up addresses: each batch's
 * bytes copied back from its device address are the samples' own; the
 * payload as a CUDA DLPack tensor; a failing copy reaching gf_loader_next;
 * nothing left allocated or pinned after close. */
#include "helpers.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpufeed/dataset.h>
#include <gpufeed/dlpack.h>
#include <gpufeed/error.h>
#include <gpufeed/loader.h>
#include "vendor/cuda/cuda_device.h"

static char *dir;
static char *path;
static struct gf_cuda_dev dev;	/* to copy device memory back */

static unsigned char sample_byte(uint64_t i, uint64_t k)
{
	return (unsigned char)((i * 2654435761u + k * 40503u + (k >> 8) * 31u + (i >> 8)) & 0xff);
}

static size_t var_size(uint64_t i)
{
	return (size_t)(1 + (i * 7919u) % 6000u);
}

static int setup(void **state)
{
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	unsigned char *data = malloc(6001);
	char in[600], rel[64];
	const char *inputs[1] = { in };

	(void)state;
	t_use_fakes();
	dir = t_mkdtemp();
	path = malloc(600);
	if (!data || !path)
		return -1;
	for (uint64_t i = 0; i < 120; i++) {
		for (size_t k = 0; k < var_size(i); k++)
			data[k] = sample_byte(i, k);
		snprintf(rel, sizeof(rel), "in/s%04llu", (unsigned long long)i);
		t_write_bytes(dir, rel, data, var_size(i));
	}
	free(data);
	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(path, 600, "%s/ds", dir);
	po.input = GF_PACK_FILES;
	po.shard_bytes = 256 << 10;
	if (gf_pack(inputs, 1, path, &po, NULL))
		return -1;
	return gf_cuda_dev_open_nvml(0, &dev);
}

static int teardown(void **state)
{
	(void)state;
	gf_cuda_dev_close(&dev);
	t_rmtree(dir);
	free(dir);
	free(path);
	return 0;
}

/* The device bytes of a batch, copied back. */
static unsigned char *device_bytes(const struct gf_batch *b)
{
	unsigned char *back = malloc(b->bytes);

	assert_non_null(back);
	assert_int_equal(gf_cuda_dev_make_current(&dev), 0);
	assert_int_equal(dev.ops->memcpy_dtoh_async(back, b->dev, b->bytes, NULL), GF_CUDA_SUCCESS);
	return back;
}

/* Every batch is in GPU memory, the samples' bytes in sample order. */
static void batches_land_on_the_gpu(void **state)
{
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader_counters c;
	struct gf_loader *l;
	struct gf_batch *b;
	int live = t_fake_cuda_live();
	uint64_t seen = 0;

	(void)state;
	o.batch_size = 9;
	o.gpu = 0;
	o.slots = 3;
	o.threads = 2;
	o.seed = 3;
	o.block_bytes = 16 << 10;
	if (gf_loader_open(path, &o, &l))
		fail_msg("gf_loader_open: %s", gf_last_error());
	for (unsigned e = 0; e < 2; e++) {
		assert_int_equal(gf_loader_set_epoch(l, e), 0);
		while (gf_loader_next(l, &b) == 0) {
			unsigned char *back;

			assert_true(b->dev != 0);
			assert_non_null(b->stream);
			assert_int_equal(gf_batch_wait_stream(b, b->stream), 0);
			back = device_bytes(b);
			assert_memory_equal(back, b->host, b->bytes);
			for (unsigned j = 0; j < b->count; j++) {
				uint64_t s = b->samples[j];

				assert_int_equal(b->offsets[j + 1] - b->offsets[j], var_size(s));
				for (uint64_t k = 0; k < var_size(s); k++)
					assert_int_equal(back[b->offsets[j] + k], sample_byte(s, k));
			}
			seen += b->count;
			free(back);
			assert_int_equal(gf_loader_release(l, b), 0);
		}
	}
	assert_int_equal(seen, 240);
	assert_int_equal(gf_loader_counters(l, &c), 0);
	assert_int_equal(c.samples_delivered, 240);
	gf_loader_close(l);
	/* Every device buffer, event and pinned slot went. */
	assert_int_equal(t_fake_cuda_live(), live);
}

/* The payload as a CUDA tensor on the device memory, alive after close. */
static void dlpack_on_the_gpu(void **state)
{
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_dl_managed_tensor *t, *offs;
	struct gf_loader *l;
	struct gf_batch *b;
	int live = t_fake_cuda_live();
	unsigned char *back;
	uint64_t first;

	(void)state;
	o.batch_size = 4;
	o.gpu = 0;
	o.shuffle = false;
	assert_int_equal(gf_loader_open(path, &o, &l), 0);
	assert_int_equal(gf_loader_next(l, &b), 0);
	assert_int_equal(gf_batch_dlpack(b, &t, &offs), 0);
	assert_int_equal(t->dl_tensor.device.device_type, GF_DL_CUDA);
	assert_int_equal(t->dl_tensor.ndim, 1);
	assert_int_equal(t->dl_tensor.shape[0], (int64_t)b->bytes);
	assert_int_equal((uint64_t)(uintptr_t)t->dl_tensor.data, b->dev);
	assert_int_equal(offs->dl_tensor.device.device_type, GF_DL_CPU);
	first = b->samples[0];
	assert_int_equal(first, 0);
	back = device_bytes(b);
	assert_int_equal(gf_loader_release(l, b), 0);
	offs->deleter(offs);
	gf_loader_close(l);
	/* The tensor holds the device memory: still there, still the bytes. */
	assert_true(t_fake_cuda_live() > live);
	for (size_t k = 0; k < var_size(0); k++)
		assert_int_equal(back[k], sample_byte(0, k));
	t->deleter(t);
	free(back);
	assert_int_equal(t_fake_cuda_live(), live);
}

/* A copy the driver refuses fails the batch; the message names the call. */
static void failing_copy_reaches_next(void **state)
{
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader *l;
	struct gf_batch *b;
	int live = t_fake_cuda_live();

	(void)state;
	o.batch_size = 8;
	o.gpu = 0;
	/* Set before the threads start: they read it. */
	setenv("FAKE_CUDA_FAIL", "cuMemcpyHtoDAsync_v2", 1);
	assert_int_equal(gf_loader_open(path, &o, &l), 0);
	assert_int_equal(gf_loader_next(l, &b), -EIO);
	assert_null(b);
	assert_non_null(strstr(gf_last_error(), "cuMemcpyHtoDAsync"));
	/* The failed loader's threads wait: no one reads the variable now. */
	unsetenv("FAKE_CUDA_FAIL");
	/* A new epoch clears the failure. */
	assert_int_equal(gf_loader_set_epoch(l, 2), 0);
	assert_int_equal(gf_loader_next(l, &b), 0);
	assert_int_equal(gf_loader_release(l, b), 0);
	gf_loader_close(l);
	assert_int_equal(t_fake_cuda_live(), live);
}

/* A GPU the machine lacks, or slots it cannot allocate, fail open cleanly. */
static void open_failures(void **state)
{
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader *l = NULL;
	int live = t_fake_cuda_live();

	(void)state;
	o.batch_size = 8;
	o.gpu = 7;
	assert_int_equal(gf_loader_open(path, &o, &l), -ENODEV);
	assert_null(l);
	o.gpu = 0;
	setenv("FAKE_CUDA_FAIL", "cuMemAlloc_v2=2", 1);
	assert_int_equal(gf_loader_open(path, &o, &l), -ENOMEM);
	assert_non_null(strstr(gf_last_error(), "slot"));
	unsetenv("FAKE_CUDA_FAIL");
	assert_null(l);
	assert_int_equal(t_fake_cuda_live(), live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(batches_land_on_the_gpu),
		cmocka_unit_test(dlpack_on_the_gpu),
		cmocka_unit_test(failing_copy_reaches_next),
		cmocka_unit_test(open_failures),
	};

	return cmocka_run_group_tests_name("loader_gpu", tests, setup, teardown);
}
