/* The loader's GPU path (src/loader/copy.c) against the stand-in libcuda,
 * whose device memory is host memory behind made-up addresses: each batch's
 * bytes copied back from its device address are the samples' own; the
 * payload as a CUDA DLPack tensor; the release event on the consumer's
 * stream recorded when the batch's last reference goes, a tensor deleted on
 * another thread after gf_loader_release included; a failing copy reaching
 * gf_loader_next; nothing left allocated or pinned after close. */
#include "helpers.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
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

/* The events recorded so far on stream s (the stand-in libcuda counts them). */
static int event_records(gf_cu_stream s)
{
	void *h = dlopen(getenv("GPUFEED_CUDA_LIBRARY"), RTLD_LAZY | RTLD_NOLOAD);
	int (*f)(gf_cu_stream) = h ? (int (*)(gf_cu_stream))(uintptr_t)dlsym(h, "fake_cuda_event_records") : NULL;
	int n;

	assert_non_null(f);
	n = f(s);
	dlclose(h);
	return n;
}

/* A DLPack deleter runs on whatever thread drops the tensor (Python's
 * garbage collector, a framework's): one with no CUDA context current. */
static void *delete_tensor(void *t)
{
	struct gf_dl_managed_tensor *m = t;

	m->deleter(m);
	return NULL;
}

static void delete_on_another_thread(struct gf_dl_managed_tensor *t)
{
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, delete_tensor, t), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
}

/* A tensor that outlives gf_loader_release keeps the slot, and work the
 * consumer queues on its stream between the release and the tensor's
 * deletion reads the slot's device memory: the release event goes on the
 * consumer's stream when the last reference goes (here the tensor's, on
 * another thread), not at release, so the refill's copy waits for that
 * work too.  With the loader closed first, nothing is recorded (no refill
 * can come) and the memory still goes. */
static void release_event_at_last_reference(void **state)
{
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_dl_managed_tensor *t;
	struct gf_loader *l;
	struct gf_batch *b;
	gf_cu_stream mine;
	int live = t_fake_cuda_live(), n0;
	uint64_t seen = 0;

	(void)state;
	o.batch_size = 10;
	o.gpu = 0;
	o.slots = 2;
	o.threads = 1;
	assert_int_equal(gf_cuda_dev_make_current(&dev), 0);
	assert_int_equal(dev.ops->stream_create(&mine, GF_CU_STREAM_NON_BLOCKING), GF_CUDA_SUCCESS);
	assert_int_equal(gf_loader_open(path, &o, &l), 0);

	/* The consumer's reference last: recorded at release, as before. */
	assert_int_equal(gf_loader_next(l, &b), 0);
	assert_int_equal(gf_batch_wait_stream(b, mine), 0);
	n0 = event_records(mine);
	assert_int_equal(gf_loader_release(l, b), 0);
	assert_int_equal(event_records(mine), n0 + 1);
	seen += b->count;

	/* The tensor's last: nothing at release, the event at its deletion. */
	assert_int_equal(gf_loader_next(l, &b), 0);
	assert_int_equal(gf_batch_wait_stream(b, mine), 0);
	assert_int_equal(gf_batch_dlpack(b, &t, NULL), 0);
	n0 = event_records(mine);
	seen += b->count;
	assert_int_equal(gf_loader_release(l, b), 0);
	assert_int_equal(event_records(mine), n0);
	/* Released: the stream the event goes on is fixed now. */
	assert_int_equal(gf_batch_wait_stream(b, mine), -EINVAL);
	assert_non_null(strstr(gf_last_error(), "released"));
	delete_on_another_thread(t);
	assert_int_equal(event_records(mine), n0 + 1);

	/* The slot goes back to the threads: the run goes on to its end. */
	while (gf_loader_next(l, &b) == 0) {
		seen += b->count;
		assert_int_equal(gf_loader_release(l, b), 0);
	}
	assert_int_equal(seen, 120);

	/* Closed before the tensor goes: no event, every buffer freed. */
	assert_int_equal(gf_loader_set_epoch(l, 1), 0);
	assert_int_equal(gf_loader_next(l, &b), 0);
	assert_int_equal(gf_batch_wait_stream(b, mine), 0);
	assert_int_equal(gf_batch_dlpack(b, &t, NULL), 0);
	assert_int_equal(gf_loader_release(l, b), 0);
	gf_loader_close(l);
	n0 = event_records(mine);
	assert_true(t_fake_cuda_live() > live);
	delete_on_another_thread(t);
	assert_int_equal(event_records(mine), n0);
	assert_int_equal(t_fake_cuda_live(), live);
	assert_int_equal(gf_cuda_dev_make_current(&dev), 0);
	assert_int_equal(dev.ops->stream_destroy(mine), GF_CUDA_SUCCESS);
}

/* A loader on the stand-in GPU with two slots and one thread: holding two
 * batches leaves its I/O thread waiting, reading no variable. */
static struct gf_loader *open_two_slots(void)
{
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_loader *l;

	o.batch_size = 8;
	o.gpu = 0;
	o.slots = 2;
	o.threads = 1;
	assert_int_equal(gf_loader_open(path, &o, &l), 0);
	return l;
}

/* The refused release event failed the run: the next batch reports it,
 * naming the call, held batch b still goes back, and a new epoch clears
 * the failure; nothing is left allocated. */
static void failed_run_then_new_epoch(struct gf_loader *l, struct gf_batch *b, int live)
{
	struct gf_batch *a;

	assert_int_equal(gf_loader_next(l, &a), -EIO);
	assert_non_null(strstr(gf_last_error(), "cuEventRecord"));
	assert_int_equal(gf_loader_release(l, b), 0);
	assert_int_equal(gf_loader_set_epoch(l, 1), 0);
	assert_int_equal(gf_loader_next(l, &b), 0);
	assert_int_equal(gf_loader_release(l, b), 0);
	gf_loader_close(l);
	assert_int_equal(t_fake_cuda_live(), live);
}

/* A release event the driver refuses in a tensor's deleter (no caller to
 * return it to) fails the run: gf_loader_next reports it, naming the call. */
static void failing_release_event_reaches_next(void **state)
{
	struct gf_dl_managed_tensor *t;
	struct gf_batch *a, *b;
	int live = t_fake_cuda_live();
	struct gf_loader *l = open_two_slots();

	(void)state;
	assert_int_equal(gf_loader_next(l, &a), 0);
	assert_int_equal(gf_batch_dlpack(a, &t, NULL), 0);
	assert_int_equal(gf_loader_release(l, a), 0);
	assert_int_equal(gf_loader_next(l, &b), 0);
	setenv("FAKE_CUDA_FAIL", "cuEventRecord", 1);
	delete_on_another_thread(t);
	unsetenv("FAKE_CUDA_FAIL");
	failed_run_then_new_epoch(l, b, live);
}

/* The same when the last reference is the consumer's release: the release
 * says so, and the run fails so that no slot is refilled behind the
 * consumer's stream. */
static void failing_release_event_at_release_fails_the_run(void **state)
{
	struct gf_batch *a, *b;
	int live = t_fake_cuda_live(), rc;
	struct gf_loader *l = open_two_slots();

	(void)state;
	assert_int_equal(gf_loader_next(l, &a), 0);
	assert_int_equal(gf_loader_next(l, &b), 0);
	setenv("FAKE_CUDA_FAIL", "cuEventRecord", 1);
	rc = gf_loader_release(l, a);
	unsetenv("FAKE_CUDA_FAIL");
	assert_true(rc < 0);
	failed_run_then_new_epoch(l, b, live);
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
		cmocka_unit_test(release_event_at_last_reference),
		cmocka_unit_test(failing_release_event_reaches_next),
		cmocka_unit_test(failing_release_event_at_release_fails_the_run),
		cmocka_unit_test(failing_copy_reaches_next),
		cmocka_unit_test(open_failures),
	};

	return cmocka_run_group_tests_name("loader_gpu", tests, setup, teardown);
}
