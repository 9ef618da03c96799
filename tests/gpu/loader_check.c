/* The loader on a real GPU: packs a dataset of variable-size samples (and
 * one of fixed-size records) into DIR, loads it onto the GPU for two
 * epochs with verify on, and copies every batch back from its device
 * memory to check each sample's bytes:
 *   - half the batches on the batch's own stream (work queued on it after
 *     gf_loader_next sees the bytes),
 *   - the other half on a consumer stream made to wait with
 *     gf_batch_wait_stream, the batch released before that copy has run
 *     and checked only some batches later: if the loader overwrote the
 *     slot's device memory before the consumer's work was done, the bytes
 *     differ (the release event of loader.h's stream rules);
 *   - a DLPack tensor that outlives gf_loader_release: a spin kernel and a
 *     copy of the tensor's bytes queued on the consumer stream after the
 *     release, the tensor deleted (on another thread) while the spin runs,
 *     the slot's refill asked for at once: the copy must still read the
 *     batch's bytes, because the release event goes on the consumer stream
 *     when the last reference (here the tensor's) goes.
 * Prints one line per dataset with the samples and GB/s delivered.
 *   loader_check [NVML_INDEX [DIR]]
 *   exit 0 all held, 1 a mismatch or an error, 77 no CUDA or no GPU */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/gpufeed.h>
#include "vendor/cuda/cuda.h"
#include "vendor/cuda/cuda_device.h"
#include "vendor/cuda/cuda_kernels.h"

#define LAG 3		/* batches between a consumer copy and its check */
#define MAX_SAMPLE (96u << 10)
#define SPIN_CYCLES 200000000ull	/* about 0.1 s at a GPU's 1.5-2 GHz */

static unsigned char sample_byte(uint64_t i, uint64_t k)
{
	return (unsigned char)((i * 2654435761u + k * 40503u + (k >> 8) * 31u + (i >> 8)) & 0xff);
}

static size_t var_size(uint64_t i)
{
	return (size_t)(1 + (i * 7919u) % MAX_SAMPLE);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes n sample files (or one flat file of fixed records) and packs them. */
static int make_dataset(const char *dir, const char *name, uint64_t n, size_t record_size, char *out, size_t outlen)
{
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	unsigned char *data = malloc(MAX_SAMPLE + 1);
	char in[4096], file[4200];
	const char *inputs[1] = { in };
	int rc = 0;

	if (!data)
		return -ENOMEM;
	snprintf(in, sizeof(in), "%s/%s.in", dir, name);
	snprintf(out, outlen, "%s/%s", dir, name);
	if (record_size) {
		FILE *f = fopen(in, "wb");

		for (uint64_t i = 0; f && i < n; i++) {
			for (size_t k = 0; k < record_size; k++)
				data[k] = sample_byte(i, k);
			fwrite(data, 1, record_size, f);
		}
		if (!f || fclose(f))
			rc = -EIO;
		po.input = GF_PACK_RECORDS;
		po.record_size = record_size;
	} else {
		if (mkdir(in, 0700) && errno != EEXIST)
			rc = -errno;
		for (uint64_t i = 0; !rc && i < n; i++) {
			FILE *f;

			snprintf(file, sizeof(file), "%s/s%07llu", in, (unsigned long long)i);
			for (size_t k = 0; k < var_size(i); k++)
				data[k] = sample_byte(i, k);
			if (!(f = fopen(file, "wb")) || fwrite(data, 1, var_size(i), f) != var_size(i) || fclose(f))
				rc = -EIO;
		}
		po.input = GF_PACK_FILES;
	}
	free(data);
	po.shard_bytes = 64u << 20;
	if (!rc && (rc = gf_pack(inputs, 1, out, &po, NULL)))
		fprintf(stderr, "loader_check: gf_pack: %s\n", gf_last_error());
	return rc;
}

/* The samples' own bytes, laid out as the batch says. */
static int check_bytes(const unsigned char *p, const uint64_t *samples, const uint64_t *offsets, unsigned count,
		       size_t record_size, const char *how)
{
	for (unsigned j = 0; j < count; j++) {
		uint64_t s = samples[j], len = offsets[j + 1] - offsets[j];

		if (len != (record_size ? record_size : var_size(s))) {
			printf("not ok - %s: sample %llu is %llu bytes\n", how, (unsigned long long)s,
			       (unsigned long long)len);
			return 1;
		}
		for (uint64_t k = 0; k < len; k++)
			if (p[offsets[j] + k] != sample_byte(s, k)) {
				printf("not ok - %s: sample %llu byte %llu differs on the GPU\n", how,
				       (unsigned long long)s, (unsigned long long)k);
				return 1;
			}
	}
	return 0;
}

struct pending {
	unsigned char *pinned;	/* the consumer's copy lands here */
	uint64_t *samples, *offsets;
	unsigned count;
	bool used;
};

static int run(int gpu, const char *path, size_t record_size, const struct gf_cuda_dev *dev, gf_cu_stream mine)
{
	const struct gf_cuda_ops *cu = dev->ops;
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct pending pend[LAG] = { 0 };
	struct gf_loader *l;
	struct gf_batch *b;
	size_t slot = (size_t)256 * (record_size ? record_size : MAX_SAMPLE);
	unsigned char *back = malloc(slot);
	uint64_t samples = 0, bytes = 0, nb = 0;
	double t0;
	int rc, fail = 0;

	o.batch_size = 256;
	o.gpu = gpu;
	o.verify = true;
	o.seed = 11;
	o.slots = 3;
	if ((rc = gf_loader_open(path, &o, &l))) {
		printf("not ok - loader on GPU %d: %s\n", gpu, gf_last_error());
		free(back);
		return rc == -ENOSYS || rc == -ENODEV ? 77 : 1;
	}
	for (unsigned i = 0; i < LAG; i++) {
		pend[i].samples = malloc(256 * sizeof(uint64_t));
		pend[i].offsets = malloc(257 * sizeof(uint64_t));
		if (cu->mem_host_alloc((void **)&pend[i].pinned, slot, 0) != GF_CUDA_SUCCESS)
			fail = 1;
	}
	t0 = now();
	for (unsigned e = 0; e < 2 && !fail; e++) {
		gf_loader_set_epoch(l, e);
		while (!fail && (rc = gf_loader_next(l, &b)) == 0) {
			struct pending *p = &pend[nb % LAG];

			if (p->used) {	/* the copy queued LAG batches ago */
				cu->stream_synchronize(mine);
				fail |= check_bytes(p->pinned, p->samples, p->offsets, p->count, record_size,
						    "consumer stream, released early");
				p->used = false;
			}
			if (nb % 2 == 0) {
				/* Work queued on the batch's stream sees its bytes. */
				gf_cuda_dev_make_current(dev);
				cu->memcpy_dtoh_async(back, b->dev, b->bytes, b->stream);
				cu->stream_synchronize(b->stream);
				fail |= check_bytes(back, b->samples, b->offsets, b->count, record_size, "batch stream");
			} else {
				/* A consumer stream: wait, queue, release before it ran. */
				if (gf_batch_wait_stream(b, mine)) {
					printf("not ok - gf_batch_wait_stream: %s\n", gf_last_error());
					fail = 1;
				}
				cu->memcpy_dtoh_async(p->pinned, b->dev, b->bytes, mine);
				memcpy(p->samples, b->samples, b->count * sizeof(uint64_t));
				memcpy(p->offsets, b->offsets, (b->count + 1) * sizeof(uint64_t));
				p->count = b->count;
				p->used = true;
			}
			samples += b->count;
			bytes += b->bytes;
			nb++;
			gf_loader_release(l, b);
		}
		if (rc < 0) {
			printf("not ok - gf_loader_next: %s\n", gf_last_error());
			fail = 1;
		}
	}
	cu->stream_synchronize(mine);
	for (unsigned i = 0; i < LAG; i++) {
		if (pend[i].used)
			fail |= check_bytes(pend[i].pinned, pend[i].samples, pend[i].offsets, pend[i].count,
					    record_size, "consumer stream, released early");
		if (pend[i].pinned)
			cu->mem_free_host(pend[i].pinned);
		free(pend[i].samples);
		free(pend[i].offsets);
	}
	if (!fail)
		printf("ok - loader on GPU %d, %s: %llu samples in %llu batches over 2 epochs, every byte checked on the "
		       "GPU (%.2f GB/s with the checks)\n", gpu, record_size ? "fixed-size records" : "variable sizes",
		       (unsigned long long)samples, (unsigned long long)nb, (double)bytes / (now() - t0) / 1e9);
	gf_loader_close(l);
	free(back);
	return fail;
}

static void *delete_tensor(void *t)
{
	struct gf_dl_managed_tensor *m = t;

	m->deleter(m);
	return NULL;
}

/* A tensor outliving its batch's release, read on the consumer stream
 * after a spin, deleted while the spin runs, its slot's refill asked for
 * at once (two slots, one thread: the next batch but one takes it). */
static int tensor_outlives_release(int gpu, const char *path, size_t record_size, const struct gf_cuda_dev *dev,
				   gf_cu_stream mine)
{
	const struct gf_cuda_ops *cu = dev->ops;
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_cuda_kernel spin = { 0 };
	struct gf_dl_managed_tensor *t = NULL;
	unsigned long long cycles = SPIN_CYCLES;
	void *args[] = { &cycles };
	uint64_t samples[256], offsets[257];
	unsigned char *pinned = NULL;
	struct gf_loader *l;
	struct gf_batch *b;
	unsigned count = 0;
	pthread_t th;
	int fail = 1;

	o.batch_size = 256;
	o.gpu = gpu;
	o.seed = 5;
	o.slots = 2;
	o.threads = 1;
	if (gf_loader_open(path, &o, &l)) {
		printf("not ok - loader on GPU %d: %s\n", gpu, gf_last_error());
		return 1;
	}
	gf_cuda_dev_make_current(dev);
	if (gf_cuda_kernel_load(cu, "spin", "gf_spin", &spin)) {
		printf("not ok - gf_spin: %s\n", gf_last_error());
		goto out;
	}
	if (gf_loader_next(l, &b) || gf_batch_wait_stream(b, mine) || gf_batch_dlpack(b, &t, NULL) ||
	    cu->mem_host_alloc((void **)&pinned, b->bytes, 0) != GF_CUDA_SUCCESS) {
		printf("not ok - the first batch as a tensor: %s\n", gf_last_error());
		goto out;
	}
	count = b->count;
	memcpy(samples, b->samples, count * sizeof(uint64_t));
	memcpy(offsets, b->offsets, (count + 1) * sizeof(uint64_t));
	gf_loader_release(l, b);
	/* After the release: work on the tensor, late on the consumer stream. */
	gf_cuda_dev_make_current(dev);
	if (cu->launch_kernel(spin.fn, 1, 1, 1, 1, 1, 1, 0, mine, args, NULL) != GF_CUDA_SUCCESS ||
	    cu->memcpy_dtoh_async(pinned, (gf_cu_deviceptr)(uintptr_t)t->dl_tensor.data, offsets[count], mine) !=
		    GF_CUDA_SUCCESS) {
		printf("not ok - the spin and the copy on the consumer stream\n");
		goto out;
	}
	/* The last reference goes on a thread of its own, as Python's GC may. */
	if (pthread_create(&th, NULL, delete_tensor, t) || pthread_join(th, NULL)) {
		printf("not ok - a thread to delete the tensor\n");
		goto out;
	}
	t = NULL;
	/* The next batch, released, then the one that refills the first slot. */
	if (gf_loader_next(l, &b) || gf_loader_release(l, b) || gf_loader_next(l, &b) ||
	    gf_loader_release(l, b)) {
		printf("not ok - the batches after the tensor: %s\n", gf_last_error());
		goto out;
	}
	gf_cuda_dev_make_current(dev);
	if (cu->stream_synchronize(mine) != GF_CUDA_SUCCESS) {
		printf("not ok - cuStreamSynchronize on the consumer stream\n");
		goto out;
	}
	fail = check_bytes(pinned, samples, offsets, count, record_size,
			   "tensor deleted after release, read on the consumer stream");
	if (!fail)
		printf("ok - loader on GPU %d, %s: a tensor read on the consumer stream after release and deleted "
		       "while the work ran keeps its slot until that work is done\n", gpu,
		       record_size ? "fixed-size records" : "variable sizes");
out:
	if (t)
		t->deleter(t);
	gf_loader_close(l);
	gf_cuda_dev_make_current(dev);
	cu->stream_synchronize(mine);
	if (pinned)
		cu->mem_free_host(pinned);
	if (spin.module)
		gf_cuda_kernel_unload(cu, &spin);
	return fail;
}

int main(int argc, char **argv)
{
	int gpu = argc > 1 ? atoi(argv[1]) : 0;
	const char *parent = argc > 2 ? argv[2] : ".";
	char dir[4096], var[4200], fixed[4200], cmd[4300];
	struct gf_cuda_dev dev = { 0 };
	gf_cu_stream mine = NULL;
	int rc, fail = 0;

	if ((rc = gf_cuda_dev_open_nvml((unsigned)gpu, &dev))) {
		printf("skip - loader_check: %s\n", gf_last_error());
		return 77;
	}
	snprintf(dir, sizeof(dir), "%s/gpufeed-loader-check.%d", parent, (int)getpid());
	if (mkdir(dir, 0700) || dev.ops->stream_create(&mine, GF_CU_STREAM_NON_BLOCKING) != GF_CUDA_SUCCESS) {
		printf("not ok - loader_check: %s: %s\n", dir, strerror(errno));
		gf_cuda_dev_close(&dev);
		return 1;
	}
	if (make_dataset(dir, "var", 3000, 0, var, sizeof(var)) || make_dataset(dir, "fixed", 20000, 4096, fixed,
										 sizeof(fixed)))
		fail = 1;
	if (!fail) {
		rc = run(gpu, var, 0, &dev, mine);
		fail |= rc == 1;
		if (rc != 77) {
			fail |= run(gpu, fixed, 4096, &dev, mine) == 1;
			fail |= tensor_outlives_release(gpu, var, 0, &dev, mine);
			fail |= tensor_outlives_release(gpu, fixed, 4096, &dev, mine);
		}
	}
	gf_cuda_dev_make_current(&dev);
	dev.ops->stream_destroy(mine);
	gf_cuda_dev_close(&dev);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fail = 1;
	return fail;
}
