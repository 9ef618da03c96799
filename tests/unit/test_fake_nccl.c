/* The stand-in libnccl (tests/fakes/fake_nccl.c) the collectives' tests are
 * built on: every collective and send/recv moves the right bytes through
 * the stand-in CUDA's device memory, in one process and across two, the
 * reductions and data types, blocking and non-blocking communicators, and
 * its fault knobs (FAKE_NCCL_FAIL, _HANG, _CORRUPT), each of which a test
 * must see.  Every test ends with the rendezvous directory empty and no
 * device memory left. */
#include "helpers.h"
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include "vendor/cuda/cuda.h"
#include "vendor/nccl/nccl.h"

#define N 1000

static const struct gf_nccl_ops *nccl;
static const struct gf_cuda_ops *cu;
static char *dir;

static int count_files(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;

	assert_non_null(dp);
	while ((e = readdir(dp)))
		n += e->d_name[0] != '.';
	closedir(dp);
	return n;
}

static int setup(void **state)
{
	const char *cuda;
	char why[400], lib[600], buf[600];
	gf_cu_device d;
	gf_cu_context ctx;

	(void)state;
	t_use_fakes();
	cuda = getenv("GPUFEED_CUDA_LIBRARY");
	snprintf(buf, sizeof(buf), "%s", cuda);
	snprintf(lib, sizeof(lib), "%s/libnccl.so.2", dirname(buf));
	setenv("GPUFEED_NCCL_LIBRARY", getenv("GPUFEED_FAKE_NCCL") ? getenv("GPUFEED_FAKE_NCCL") : lib, 1);
	unsetenv("FAKE_NCCL_VERSION");
	unsetenv("FAKE_NCCL_FAIL");
	unsetenv("FAKE_NCCL_HANG");
	unsetenv("FAKE_NCCL_CORRUPT");
	unsetenv("FAKE_NCCL_NO_CONFIG");
	dir = t_mkdtemp();
	setenv("FAKE_NCCL_DIR", dir, 1);
	gf_nccl_unload();
	gf_cuda_unload();
	assert_int_equal(gf_nccl_load(&nccl, why, sizeof(why)), 0);
	assert_int_equal(gf_cuda_load(&cu, why, sizeof(why)), 0);
	assert_int_equal(cu->init(0), 0);
	assert_int_equal(cu->device_get(&d, 0), 0);
	assert_int_equal(cu->primary_ctx_retain(&ctx, d), 0);
	assert_int_equal(cu->ctx_set_current(ctx), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(count_files(dir), 0);
	assert_int_equal(t_fake_cuda_live(), 0);
	t_rmtree(dir);
	free(dir);
	return 0;
}

static void *dev_alloc(size_t bytes)
{
	gf_cu_deviceptr p;

	assert_int_equal(cu->mem_alloc(&p, bytes), 0);
	return (void *)(uintptr_t)p;
}

static void to_dev(void *d, const void *h, size_t bytes)
{
	assert_int_equal(cu->memcpy_htod_async((gf_cu_deviceptr)(uintptr_t)d, h, bytes, NULL), 0);
}

static void from_dev(void *h, const void *d, size_t bytes)
{
	assert_int_equal(cu->memcpy_dtoh_async(h, (gf_cu_deviceptr)(uintptr_t)d, bytes, NULL), 0);
}

static void dev_free(void *d)
{
	assert_int_equal(cu->mem_free((gf_cu_deviceptr)(uintptr_t)d), 0);
}

/* Two ranks' float buffers: send = rank + 1 + i (as `t`), recv cleared. */
struct pair {
	gf_nccl_comm comm[2];
	void *send[2], *recv[2];
};

static void make_pair(struct pair *p, size_t send_bytes, size_t recv_bytes)
{
	assert_int_equal(nccl->comm_init_all(p->comm, 2, NULL), 0);
	for (int r = 0; r < 2; r++) {
		p->send[r] = dev_alloc(send_bytes);
		p->recv[r] = dev_alloc(recv_bytes);
	}
}

static void free_pair(struct pair *p)
{
	for (int r = 0; r < 2; r++) {
		dev_free(p->send[r]);
		dev_free(p->recv[r]);
		assert_int_equal(nccl->comm_destroy(p->comm[r]), 0);
	}
}

static void fill_f32(struct pair *p, size_t count)
{
	float *h = malloc(count * sizeof(float));

	for (int r = 0; r < 2; r++) {
		for (size_t i = 0; i < count; i++)
			h[i] = (float)(r + 1 + (int)(i % 100));
		to_dev(p->send[r], h, count * sizeof(float));
	}
	free(h);
}

static void all_reduce_float32_every_op(void **state)
{
	struct pair p;
	float out[N];
	int v;

	(void)state;
	make_pair(&p, N * 4, N * 4);
	assert_int_equal(nccl->comm_count(p.comm[1], &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(nccl->comm_user_rank(p.comm[1], &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(nccl->comm_cu_device(p.comm[1], &v), 0);
	assert_int_equal(v, 1);
	fill_f32(&p, N);
	for (int op = GF_NCCL_SUM; op <= GF_NCCL_AVG; op++) {
		assert_int_equal(nccl->group_start(), 0);
		for (int r = 0; r < 2; r++)
			assert_int_equal(nccl->all_reduce(p.send[r], p.recv[r], N, GF_NCCL_FLOAT32, op, p.comm[r], NULL), 0);
		assert_int_equal(nccl->group_end(), 0);
		for (int r = 0; r < 2; r++) {
			from_dev(out, p.recv[r], sizeof(out));
			for (int i = 0; i < N; i++) {
				float a = (float)(1 + i % 100), b = a + 1;
				float want[] = { a + b, a * b, b, a, (a + b) / 2 };

				assert_float_equal(out[i], want[op], 0);
			}
		}
	}
	free_pair(&p);
}

static void all_reduce_integer_and_half_types(void **state)
{
	struct pair p;
	int32_t in32[2][4] = { { -5, 7, 100, -1 }, { 3, -9, 1, -1 } }, out32[4];
	uint8_t in8[2][3] = { { 200, 1, 5 }, { 100, 2, 6 } }, out8[3];
	/* 1.5 and 2.25 in IEEE half, and in bfloat16 (the top of the float). */
	uint16_t h[2] = { 0x3e00, 0x4080 }, b[2] = { 0x3fc0, 0x4010 }, out16;

	(void)state;
	make_pair(&p, 64, 64);
	for (int r = 0; r < 2; r++)
		to_dev(p.send[r], in32[r], sizeof(in32[r]));
	assert_int_equal(nccl->group_start(), 0);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nccl->all_reduce(p.send[r], p.recv[r], 4, GF_NCCL_INT32, GF_NCCL_MIN, p.comm[r], NULL), 0);
	assert_int_equal(nccl->group_end(), 0);
	from_dev(out32, p.recv[0], sizeof(out32));
	assert_int_equal(out32[0], -5);
	assert_int_equal(out32[1], -9);
	assert_int_equal(out32[2], 1);
	assert_int_equal(out32[3], -1);
	/* Unsigned bytes wrap, as on the GPU. */
	for (int r = 0; r < 2; r++)
		to_dev(p.send[r], in8[r], sizeof(in8[r]));
	assert_int_equal(nccl->group_start(), 0);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nccl->all_reduce(p.send[r], p.recv[r], 3, GF_NCCL_UINT8, GF_NCCL_SUM, p.comm[r], NULL), 0);
	assert_int_equal(nccl->group_end(), 0);
	from_dev(out8, p.recv[1], sizeof(out8));
	assert_int_equal(out8[0], 44);
	assert_int_equal(out8[1], 3);
	assert_int_equal(out8[2], 11);
	/* 1.5 + 2.25 = 3.75: 0x4380 in half, 0x4070 in bfloat16. */
	for (int t = 0; t < 2; t++) {
		uint16_t *in = t ? b : h;

		for (int r = 0; r < 2; r++)
			to_dev(p.send[r], &in[r], 2);
		assert_int_equal(nccl->group_start(), 0);
		for (int r = 0; r < 2; r++)
			assert_int_equal(nccl->all_reduce(p.send[r], p.recv[r], 1, t ? GF_NCCL_BFLOAT16 : GF_NCCL_FLOAT16,
							  GF_NCCL_SUM, p.comm[r], NULL), 0);
		assert_int_equal(nccl->group_end(), 0);
		from_dev(&out16, p.recv[0], 2);
		assert_int_equal(out16, t ? 0x4070 : 0x4380);
	}
	free_pair(&p);
}

static void gather_scatter_broadcast_reduce_send_recv(void **state)
{
	struct pair p;
	int32_t in[2][4] = { { 1, 2, 3, 4 }, { 10, 20, 30, 40 } }, out[8];

	(void)state;
	make_pair(&p, 64, 64);
	for (int r = 0; r < 2; r++)
		to_dev(p.send[r], in[r], sizeof(in[r]));
	assert_int_equal(nccl->group_start(), 0);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nccl->all_gather(p.send[r], p.recv[r], 4, GF_NCCL_INT32, p.comm[r], NULL), 0);
	assert_int_equal(nccl->group_end(), 0);
	from_dev(out, p.recv[1], sizeof(out));
	for (int i = 0; i < 8; i++)
		assert_int_equal(out[i], in[i / 4][i % 4]);
	/* Reduce-scatter: rank r gets the sum of block r. */
	assert_int_equal(nccl->group_start(), 0);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nccl->reduce_scatter(p.send[r], p.recv[r], 2, GF_NCCL_INT32, GF_NCCL_SUM, p.comm[r],
						      NULL), 0);
	assert_int_equal(nccl->group_end(), 0);
	from_dev(out, p.recv[0], 8);
	assert_int_equal(out[0], 11);
	assert_int_equal(out[1], 22);
	from_dev(out, p.recv[1], 8);
	assert_int_equal(out[0], 33);
	assert_int_equal(out[1], 44);
	/* Broadcast from rank 1. */
	assert_int_equal(nccl->group_start(), 0);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nccl->broadcast(p.send[r], p.recv[r], 4, GF_NCCL_INT32, 1, p.comm[r], NULL), 0);
	assert_int_equal(nccl->group_end(), 0);
	from_dev(out, p.recv[0], 16);
	assert_memory_equal(out, in[1], 16);
	/* Reduce to rank 0: rank 1's buffer is left alone. */
	memset(out, 0x5a, sizeof(out));
	to_dev(p.recv[1], out, 16);
	assert_int_equal(nccl->group_start(), 0);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nccl->reduce(p.send[r], p.recv[r], 4, GF_NCCL_INT32, GF_NCCL_MAX, 0, p.comm[r], NULL), 0);
	assert_int_equal(nccl->group_end(), 0);
	from_dev(out, p.recv[0], 16);
	assert_memory_equal(out, in[1], 16);
	from_dev(out, p.recv[1], 4);
	assert_int_equal(out[0], 0x5a5a5a5a);
	/* A swap: each rank sends to and receives from the other. */
	assert_int_equal(nccl->group_start(), 0);
	for (int r = 0; r < 2; r++) {
		assert_int_equal(nccl->recv(p.recv[r], 4, GF_NCCL_INT32, 1 - r, p.comm[r], NULL), 0);
		assert_int_equal(nccl->send(p.send[r], 4, GF_NCCL_INT32, 1 - r, p.comm[r], NULL), 0);
	}
	assert_int_equal(nccl->group_end(), 0);
	for (int r = 0; r < 2; r++) {
		from_dev(out, p.recv[r], 16);
		assert_memory_equal(out, in[1 - r], 16);
	}
	free_pair(&p);
}

/* FAKE_NCCL_CORRUPT: one wrong element, the last, on that rank only. */
static void corrupt_writes_one_wrong_element(void **state)
{
	struct pair p;
	float out[2][N];
	int wrong = 0;

	(void)state;
	setenv("FAKE_NCCL_CORRUPT", "1", 1);
	make_pair(&p, N * 4, N * 4);
	fill_f32(&p, N);
	assert_int_equal(nccl->group_start(), 0);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nccl->all_reduce(p.send[r], p.recv[r], N, GF_NCCL_FLOAT32, GF_NCCL_SUM, p.comm[r], NULL), 0);
	assert_int_equal(nccl->group_end(), 0);
	for (int r = 0; r < 2; r++)
		from_dev(out[r], p.recv[r], N * 4);
	for (int i = 0; i < N; i++) {
		assert_float_equal(out[0][i], (float)(3 + 2 * (i % 100)), 0);
		wrong += out[1][i] != out[0][i];
	}
	assert_int_equal(wrong, 1);
	assert_true(out[1][N - 1] != out[0][N - 1]);
	free_pair(&p);
}

static void injected_failure_is_returned_and_named(void **state)
{
	struct pair p;

	(void)state;
	make_pair(&p, 16, 16);
	setenv("FAKE_NCCL_FAIL", "ncclAllReduce=5", 1);
	assert_int_equal(nccl->all_reduce(p.send[0], p.recv[0], 4, GF_NCCL_FLOAT32, GF_NCCL_SUM, p.comm[0], NULL),
			 GF_NCCL_INVALID_USAGE);
	assert_int_equal(gf_nccl_check(nccl, p.comm[0], GF_NCCL_INVALID_USAGE, "ncclAllReduce"), -EINVAL);
	assert_string_equal(gf_last_error(), "ncclAllReduce: ncclInvalidUsage: ncclAllReduce failed (FAKE_NCCL_FAIL)");
	/* A device pointer the stand-in CUDA never gave out. */
	unsetenv("FAKE_NCCL_FAIL");
	assert_int_equal(nccl->all_reduce((void *)16, p.recv[0], 4, GF_NCCL_FLOAT32, GF_NCCL_SUM, p.comm[0], NULL),
			 GF_NCCL_INVALID_ARGUMENT);
	free_pair(&p);
}

/* Two non-blocking communicators of one unique id, driven from one thread. */
static void nonblocking_pair(struct pair *p, size_t bytes)
{
	struct gf_nccl_unique_id id;
	struct gf_nccl_config cfg = GF_NCCL_CONFIG_INIT;
	gf_nccl_result async;

	cfg.blocking = 0;
	assert_int_equal(nccl->get_unique_id(&id), 0);
	assert_int_equal(nccl->comm_init_rank_config(&p->comm[0], 2, id, 0, &cfg), GF_NCCL_IN_PROGRESS);
	assert_int_equal(nccl->comm_get_async_error(p->comm[0], &async), 0);
	assert_int_equal(async, GF_NCCL_IN_PROGRESS);
	assert_int_equal(nccl->comm_init_rank_config(&p->comm[1], 2, id, 1, &cfg), 0);
	assert_int_equal(nccl->comm_get_async_error(p->comm[0], &async), 0);
	assert_int_equal(async, GF_NCCL_SUCCESS);
	for (int r = 0; r < 2; r++) {
		p->send[r] = dev_alloc(bytes);
		p->recv[r] = dev_alloc(bytes);
	}
}

static void nonblocking_completes_when_polled(void **state)
{
	struct pair p;
	gf_nccl_result async;
	float out[N];

	(void)state;
	nonblocking_pair(&p, N * 4);
	fill_f32(&p, N);
	assert_int_equal(nccl->all_reduce(p.send[0], p.recv[0], N, GF_NCCL_FLOAT32, GF_NCCL_SUM, p.comm[0], NULL),
			 GF_NCCL_IN_PROGRESS);
	assert_int_equal(nccl->comm_get_async_error(p.comm[0], &async), 0);
	assert_int_equal(async, GF_NCCL_IN_PROGRESS);
	assert_int_equal(nccl->all_reduce(p.send[1], p.recv[1], N, GF_NCCL_FLOAT32, GF_NCCL_SUM, p.comm[1], NULL), 0);
	assert_int_equal(nccl->comm_get_async_error(p.comm[0], &async), 0);
	assert_int_equal(async, GF_NCCL_SUCCESS);
	for (int r = 0; r < 2; r++) {
		from_dev(out, p.recv[r], sizeof(out));
		for (int i = 0; i < N; i++)
			assert_float_equal(out[i], (float)(3 + 2 * (i % 100)), 0);
	}
	/* Both ranks in one group: done at its end. */
	assert_int_equal(nccl->group_start(), 0);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nccl->all_reduce(p.send[r], p.recv[r], N, GF_NCCL_FLOAT32, GF_NCCL_MAX, p.comm[r], NULL), 0);
	assert_int_equal(nccl->group_end(), 0);
	for (int r = 0; r < 2; r++) {
		from_dev(out, p.recv[r], sizeof(out));
		assert_float_equal(out[7], 9.0f, 0);
		assert_int_equal(nccl->comm_finalize(p.comm[r]), 0);
	}
	free_pair(&p);
}

/* FAKE_NCCL_HANG: the rank's collectives never complete, nor its peers';
 * ncclCommAbort is the way out, and a peer then sees ncclRemoteError. */
static void hang_until_abort(void **state)
{
	struct pair p;
	gf_nccl_result async;

	(void)state;
	setenv("FAKE_NCCL_HANG", "1", 1);
	nonblocking_pair(&p, 64);
	for (int r = 0; r < 2; r++)
		assert_int_equal(nccl->all_reduce(p.send[r], p.recv[r], 4, GF_NCCL_FLOAT32, GF_NCCL_SUM, p.comm[r], NULL),
				 GF_NCCL_IN_PROGRESS);
	for (int k = 0; k < 20; k++)
		for (int r = 0; r < 2; r++) {
			assert_int_equal(nccl->comm_get_async_error(p.comm[r], &async), 0);
			assert_int_equal(async, GF_NCCL_IN_PROGRESS);
		}
	assert_int_equal(nccl->comm_abort(p.comm[1]), 0);
	assert_int_equal(nccl->comm_get_async_error(p.comm[0], &async), 0);
	assert_int_equal(async, GF_NCCL_REMOTE_ERROR);
	assert_int_equal(nccl->comm_abort(p.comm[0]), 0);
	for (int r = 0; r < 2; r++) {
		dev_free(p.send[r]);
		dev_free(p.recv[r]);
	}
}

struct blocked_call {
	gf_nccl_comm comm;
	void *send, *recv;
	gf_nccl_result result;
};

static void *blocking_all_reduce(void *arg)
{
	struct blocked_call *b = arg;

	b->result = nccl->all_reduce(b->send, b->recv, 4, GF_NCCL_FLOAT32, GF_NCCL_SUM, b->comm, NULL);
	return NULL;
}

/* A blocking call waiting on the hung rank returns when ncclCommAbort
 * comes from another thread (the way out a watchdog takes). */
static void blocking_wait_ends_at_abort(void **state)
{
	struct pair p;
	struct blocked_call b;
	pthread_t t;
	struct timespec nap = { 0, 1000000 };

	(void)state;
	setenv("FAKE_NCCL_HANG", "0", 1);
	make_pair(&p, 64, 64);
	b = (struct blocked_call){ p.comm[1], p.send[1], p.recv[1], -1 };
	assert_int_equal(pthread_create(&t, NULL, blocking_all_reduce, &b), 0);
	/* Rank 1's contribution appears beside the world file once its call
	 * is under way: then it can only be waiting. */
	while (count_files(dir) < 2)
		nanosleep(&nap, NULL);
	assert_int_equal(nccl->comm_abort(p.comm[1]), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(b.result == GF_NCCL_SYSTEM_ERROR || b.result == GF_NCCL_REMOTE_ERROR);
	assert_int_equal(nccl->comm_abort(p.comm[0]), 0);
	for (int r = 0; r < 2; r++) {
		dev_free(p.send[r]);
		dev_free(p.recv[r]);
	}
}

/* ncclCommInitRank for every rank inside one group (one thread). */
static void init_ranks_in_a_group(void **state)
{
	struct gf_nccl_unique_id id;
	gf_nccl_comm c[3];
	int v;

	(void)state;
	assert_int_equal(nccl->get_unique_id(&id), 0);
	assert_int_equal(nccl->group_start(), 0);
	for (int r = 0; r < 3; r++)
		assert_int_equal(nccl->comm_init_rank(&c[r], 3, id, r), 0);
	assert_int_equal(nccl->group_end(), 0);
	for (int r = 0; r < 3; r++) {
		assert_int_equal(nccl->comm_user_rank(c[r], &v), 0);
		assert_int_equal(v, r);
		assert_int_equal(nccl->comm_destroy(c[r]), 0);
	}
	/* Two ranks with one number, and nranks that differ. */
	assert_int_equal(nccl->get_unique_id(&id), 0);
	assert_int_equal(nccl->group_start(), 0);
	assert_int_equal(nccl->comm_init_rank(&c[0], 2, id, 0), 0);
	assert_int_equal(nccl->comm_init_rank(&c[1], 2, id, 0), GF_NCCL_INVALID_USAGE);
	assert_int_equal(nccl->comm_init_rank(&c[1], 3, id, 1), GF_NCCL_INVALID_ARGUMENT);
	assert_int_equal(nccl->comm_init_rank(&c[1], 2, id, 1), 0);
	assert_int_equal(nccl->group_end(), 0);
	assert_int_equal(nccl->comm_destroy(c[0]), 0);
	assert_int_equal(nccl->comm_destroy(c[1]), 0);
}

/* Rank 1 in a child process, with its own NCCL version: blocking
 * collectives meet through the rendezvous files. */
static int child_rank(struct gf_nccl_unique_id id)
{
	gf_nccl_comm c;
	int32_t in[4] = { 10, 20, 30, 40 }, out[4];
	void *s = dev_alloc(16), *r = dev_alloc(16);
	int v;

	setenv("FAKE_NCCL_VERSION", "22703", 1);
	if (nccl->get_version(&v) || v != 22703)
		return 2;
	if (nccl->comm_init_rank(&c, 2, id, 1))
		return 3;
	to_dev(s, in, 16);
	if (nccl->all_reduce(s, r, 4, GF_NCCL_INT32, GF_NCCL_SUM, c, NULL))
		return 4;
	from_dev(out, r, 16);
	if (out[0] != 11 || out[3] != 44)
		return 5;
	if (nccl->send(s, 4, GF_NCCL_INT32, 0, c, NULL) || nccl->comm_destroy(c))
		return 6;
	return 0;
}

static void two_processes(void **state)
{
	struct gf_nccl_unique_id id;
	gf_nccl_comm c;
	int32_t in[4] = { 1, 2, 3, 4 }, out[4];
	void *s = dev_alloc(16), *r = dev_alloc(16);
	int status, v;
	pid_t pid;

	(void)state;
	assert_int_equal(nccl->get_unique_id(&id), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_rank(id));
	assert_int_equal(nccl->get_version(&v), 0);
	assert_int_equal(v, 22809);
	assert_int_equal(nccl->comm_init_rank(&c, 2, id, 0), 0);
	to_dev(s, in, 16);
	assert_int_equal(nccl->all_reduce(s, r, 4, GF_NCCL_INT32, GF_NCCL_SUM, c, NULL), 0);
	from_dev(out, r, 16);
	assert_int_equal(out[0], 11);
	assert_int_equal(out[3], 44);
	assert_int_equal(nccl->recv(r, 4, GF_NCCL_INT32, 1, c, NULL), 0);
	from_dev(out, r, 16);
	assert_int_equal(out[0], 10);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(nccl->comm_destroy(c), 0);
	dev_free(s);
	dev_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(all_reduce_float32_every_op, setup, teardown),
		cmocka_unit_test_setup_teardown(all_reduce_integer_and_half_types, setup, teardown),
		cmocka_unit_test_setup_teardown(gather_scatter_broadcast_reduce_send_recv, setup, teardown),
		cmocka_unit_test_setup_teardown(corrupt_writes_one_wrong_element, setup, teardown),
		cmocka_unit_test_setup_teardown(injected_failure_is_returned_and_named, setup, teardown),
		cmocka_unit_test_setup_teardown(nonblocking_completes_when_polled, setup, teardown),
		cmocka_unit_test_setup_teardown(hang_until_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(blocking_wait_ends_at_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(init_ranks_in_a_group, setup, teardown),
		cmocka_unit_test_setup_teardown(two_processes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
