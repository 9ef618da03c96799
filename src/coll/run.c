/* One collective measured as nccl-tests measures it (coll/run.h): its
 * src/common.cu (startColl, BenchTime, TimeTest) and each src/<coll>.cu
 * (RunColl), version 2.19; the counts and formulas are in counts.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/run.h"
#include "core/error.h"

/* A minifloat with e exponent bits and m mantissa bits (bias 2^(e-1)-1):
 * enough of IEEE half, bfloat16 and the fp8 formats for the pattern's
 * small non-negative values. */
static unsigned mini_encode(double v, int e, int m)
{
	int bias = (1 << (e - 1)) - 1, x;
	double f;

	if (v <= 0)
		return 0;
	f = frexp(v, &x);		/* v = f * 2^x, f in [0.5, 1) */
	x -= 1;
	f = f * 2 - 1;
	return ((unsigned)(x + bias) << m) | (unsigned)lround(f * (1 << m));
}

static double mini_decode(unsigned bits, int e, int m)
{
	int bias = (1 << (e - 1)) - 1, x = (int)((bits >> m) & ((1u << e) - 1));
	double f = (double)(bits & ((1u << m) - 1)) / (1 << m);
	double v = x ? ldexp(1 + f, x - bias) : ldexp(f, 1 - bias);

	return (bits >> (e + m)) & 1 ? -v : v;
}

static void put(gf_nccl_datatype t, void *p, size_t i, double v)
{
	switch (t) {
	case GF_NCCL_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
	case GF_NCCL_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
	case GF_NCCL_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
	case GF_NCCL_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	case GF_NCCL_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
	case GF_NCCL_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
	case GF_NCCL_FLOAT16: ((uint16_t *)p)[i] = (uint16_t)mini_encode(v, 5, 10); break;
	case GF_NCCL_FLOAT32: ((float *)p)[i] = (float)v; break;
	case GF_NCCL_FLOAT64: ((double *)p)[i] = v; break;
	case GF_NCCL_BFLOAT16: ((uint16_t *)p)[i] = (uint16_t)mini_encode(v, 8, 7); break;
	case GF_NCCL_FLOAT8E4M3: ((uint8_t *)p)[i] = (uint8_t)mini_encode(v, 4, 3); break;
	default: ((uint8_t *)p)[i] = (uint8_t)mini_encode(v, 5, 2); break;
	}
}

static double get(gf_nccl_datatype t, const void *p, size_t i)
{
	switch (t) {
	case GF_NCCL_INT8: return ((const int8_t *)p)[i];
	case GF_NCCL_UINT8: return ((const uint8_t *)p)[i];
	case GF_NCCL_INT32: return ((const int32_t *)p)[i];
	case GF_NCCL_UINT32: return ((const uint32_t *)p)[i];
	case GF_NCCL_INT64: return (double)((const int64_t *)p)[i];
	case GF_NCCL_UINT64: return (double)((const uint64_t *)p)[i];
	case GF_NCCL_FLOAT16: return mini_decode(((const uint16_t *)p)[i], 5, 10);
	case GF_NCCL_FLOAT32: return ((const float *)p)[i];
	case GF_NCCL_FLOAT64: return ((const double *)p)[i];
	case GF_NCCL_BFLOAT16: return mini_decode(((const uint16_t *)p)[i], 8, 7);
	case GF_NCCL_FLOAT8E4M3: return mini_decode(((const uint8_t *)p)[i], 4, 3);
	default: return mini_decode(((const uint8_t *)p)[i], 5, 2);
	}
}

static bool integral(gf_nccl_datatype t)
{
	return t <= GF_NCCL_UINT64;
}

/* Reduction of index i's values over every rank, as the host sees it. */
static double reduced(const struct gf_coll_run_opts *o, int nranks, size_t i, unsigned seed)
{
	double acc = gf_coll_pattern(o->redop, 0, nranks, i, seed);

	for (int r = 1; r < nranks; r++) {
		double v = gf_coll_pattern(o->redop, r, nranks, i, seed);

		switch (o->redop) {
		case GF_NCCL_PROD: acc *= v; break;
		case GF_NCCL_MAX: acc = v > acc ? v : acc; break;
		case GF_NCCL_MIN: acc = v < acc ? v : acc; break;
		default: acc += v; break;
		}
	}
	if (o->redop == GF_NCCL_AVG)
		acc = integral(o->dtype) ? floor(acc / nranks) : acc / nranks;
	return acc;
}

/* Relative error a floating type's rounding may leave in the pattern's
 * results (nccl-tests compares within a tolerance too). */
static double tolerance(gf_nccl_datatype t)
{
	switch (t) {
	case GF_NCCL_FLOAT8E4M3: return 0.07;
	case GF_NCCL_FLOAT8E5M2: return 0.13;
	case GF_NCCL_FLOAT16: return 1e-3;
	case GF_NCCL_BFLOAT16: return 8e-3;
	default: return 1e-6;
	}
}

/* ---- the measurement ---- */

struct gpu_bufs {
	gf_cu_deviceptr send, recv;
	gf_cu_event *ev;		/* [iters + 1] */
};

struct gf_coll_run {
	struct gf_coll_comm *c;
	struct gf_coll_run_opts o;
	size_t elt;
	size_t buf_bytes;
	struct gpu_bufs *b;		/* [ngpus] */
	/* the point being measured */
	struct gf_coll_counts k;
	size_t total_bytes;		/* max(send, recv) bytes: the shift's unit */
	char what[64];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void size_text(uint64_t b, char *buf, size_t size)
{
	if (b >= (1ull << 30) && !(b & ((1ull << 30) - 1)))
		snprintf(buf, size, "%llu GiB", (unsigned long long)(b >> 30));
	else if (b >= (1ull << 20) && !(b & ((1ull << 20) - 1)))
		snprintf(buf, size, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= (1ull << 10) && !(b & ((1ull << 10) - 1)))
		snprintf(buf, size, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(buf, size, "%llu B", (unsigned long long)b);
}

/* One launch of the op on every GPU of this process (startColl): buffers
 * shifted by `shift` bytes so iterations do not reuse the same cache
 * lines, in-place inputs inside the output as nccl-tests places them. */
static int launch(struct gf_coll_run *r, size_t shift)
{
	struct gf_coll_comm *c = r->c;
	const struct gf_nccl_ops *n = c->nccl;
	const struct gf_coll_run_opts *o = &r->o;
	gf_nccl_result res = GF_NCCL_SUCCESS, e;
	size_t cnt = r->k.param;
	int rc = 0;

	if (c->ngpus > 1 && (res = n->group_start()) != GF_NCCL_SUCCESS)
		return gf_coll_comm_ready(c, res, "ncclGroupStart");
	for (int i = 0; i < c->ngpus && res == GF_NCCL_SUCCESS; i++) {
		struct gf_coll_gpu *g = &c->gpu[i];
		char *rb = (char *)(uintptr_t)r->b[i].recv + shift;
		char *sb = (char *)(uintptr_t)r->b[i].send + shift;
		const void *s = o->in_place ? rb + r->k.send_inplace_off * r->elt * (size_t)g->rank : sb;
		void *d = o->in_place ? rb + r->k.recv_inplace_off * r->elt * (size_t)g->rank : rb;
		int nr = c->nranks;

		if ((rc = gf_cuda_dev_make_current(&g->dev)))
			break;
		switch (o->op) {
		case GF_COLL_ALL_REDUCE:
			res = n->all_reduce(s, d, cnt, o->dtype, o->redop, g->comm, g->stream);
			break;
		case GF_COLL_ALL_GATHER:
			res = n->all_gather(s, d, cnt, o->dtype, g->comm, g->stream);
			break;
		case GF_COLL_REDUCE_SCATTER:
			res = n->reduce_scatter(s, d, cnt, o->dtype, o->redop, g->comm, g->stream);
			break;
		case GF_COLL_BROADCAST:
			res = n->broadcast(s, d, cnt, o->dtype, o->root, g->comm, g->stream);
			break;
		case GF_COLL_REDUCE:
			res = n->reduce(s, d, cnt, o->dtype, o->redop, o->root, g->comm, g->stream);
			break;
		case GF_COLL_ALLTOALL:
			if ((res = n->group_start()) != GF_NCCL_SUCCESS)
				break;
			for (int p = 0; p < nr && res == GF_NCCL_SUCCESS; p++) {
				size_t off = (size_t)p * cnt * r->elt;

				res = n->send((const char *)s + off, cnt, o->dtype, p, g->comm, g->stream);
				if (res == GF_NCCL_SUCCESS)
					res = n->recv((char *)d + off, cnt, o->dtype, p, g->comm, g->stream);
			}
			e = n->group_end();
			if (res == GF_NCCL_SUCCESS)
				res = e;
			break;
		default:
			if ((res = n->group_start()) != GF_NCCL_SUCCESS)
				break;
			res = n->send(s, cnt, o->dtype, (g->rank + 1) % nr, g->comm, g->stream);
			if (res == GF_NCCL_SUCCESS)
				res = n->recv(d, cnt, o->dtype, (g->rank + nr - 1) % nr, g->comm, g->stream);
			e = n->group_end();
			if (res == GF_NCCL_SUCCESS)
				res = e;
			break;
		}
		if (res == GF_NCCL_IN_PROGRESS && c->ngpus == 1)
			break;		/* settled below */
		if (res == GF_NCCL_IN_PROGRESS)
			res = GF_NCCL_SUCCESS;
	}
	if (c->ngpus > 1) {
		e = n->group_end();
		if (res == GF_NCCL_SUCCESS)
			res = e;
	}
	if (rc) {
		gf_coll_comm_abort(c);
		return rc;
	}
	return gf_coll_comm_ready(c, res, r->what);
}

static int record(struct gf_coll_run *r, unsigned j)
{
	struct gf_coll_comm *c = r->c;

	for (int i = 0; i < c->ngpus; i++) {
		const struct gf_cuda_ops *cu = c->gpu[i].dev.ops;
		int rc;

		if ((rc = gf_cuda_dev_make_current(&c->gpu[i].dev)) ||
		    (rc = gf_cuda_check(cu, cu->event_record(r->b[i].ev[j], c->gpu[i].stream), "cuEventRecord")))
			return rc;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(const double *v, unsigned n, double q)
{
	double *s = malloc(n * sizeof(*s)), pos, out;
	unsigned lo;

	if (!s || !n) {
		free(s);
		return 0;
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	pos = q * (n - 1);
	lo = (unsigned)pos;
	out = lo + 1 < n ? s[lo] + (pos - lo) * (s[lo + 1] - s[lo]) : s[n - 1];
	free(s);
	return out;
}

/* Each iteration's time, the slowest GPU of this process's, from the
 * events between iterations (nccl-tests' per_iter_timing events); and the
 * GPU whose iterations took longest in all. */
static int iteration_times(struct gf_coll_run *r, double *iter_s, int *slowest)
{
	struct gf_coll_comm *c = r->c;
	double worst = -1;

	memset(iter_s, 0, r->o.iters * sizeof(*iter_s));
	for (int i = 0; i < c->ngpus; i++) {
		const struct gf_cuda_ops *cu = c->gpu[i].dev.ops;
		double sum = 0;
		int rc;

		if ((rc = gf_cuda_dev_make_current(&c->gpu[i].dev)))
			return rc;
		for (unsigned j = 0; j < r->o.iters; j++) {
			float ms = 0;

			if ((rc = gf_cuda_check(cu, cu->event_elapsed_time(&ms, r->b[i].ev[j], r->b[i].ev[j + 1]),
						"cuEventElapsedTime")))
				return rc;
			if (ms / 1e3 > iter_s[j])
				iter_s[j] = ms / 1e3;
			sum += ms;
		}
		if (sum > worst) {
			worst = sum;
			*slowest = c->gpu[i].rank;
		}
	}
	return 0;
}

/* What every rank sends rank 0 after a point. */
struct rank_figures {
	double time_s;
	long long wrong;
};

static int check_once(struct gf_coll_run *r, unsigned seed, long long *wrong)
{
	struct gf_coll_comm *c = r->c;
	const struct gf_coll_run_opts *o = &r->o;
	size_t elt = r->elt, nin = r->k.send, nout = r->k.recv, cnt = r->k.param;
	int nr = c->nranks, rc = 0;
	void *host = malloc((nin > nout ? nin : nout) * elt + 1);

	if (!host)
		return gf_error(-ENOMEM, "coll: out of memory for the check of %s", r->what);
	/* inputs: at the send buffer, or inside the output (in place) */
	for (int i = 0; i < c->ngpus && !rc; i++) {
		struct gf_coll_gpu *g = &c->gpu[i];
		const struct gf_cuda_ops *cu = g->dev.ops;
		gf_cu_deviceptr at = o->in_place ? r->b[i].recv + r->k.send_inplace_off * elt * (size_t)g->rank
						 : r->b[i].send;

		for (size_t j = 0; j < nin; j++)
			put(o->dtype, host, j, gf_coll_pattern(o->redop, g->rank, nr, j, seed));
		if (!(rc = gf_cuda_dev_make_current(&g->dev)))
			rc = gf_cuda_check(cu, cu->memcpy_htod_async(at, host, nin * elt, g->stream), "cuMemcpyHtoDAsync");
		if (!rc)
			rc = gf_cuda_check(cu, cu->stream_synchronize(g->stream), "cuStreamSynchronize");
	}
	if (rc || (rc = launch(r, 0)) || (rc = gf_coll_comm_wait(c, r->what)))
		goto out;
	for (int i = 0; i < c->ngpus && !rc; i++) {
		struct gf_coll_gpu *g = &c->gpu[i];
		const struct gf_cuda_ops *cu = g->dev.ops;
		gf_cu_deviceptr at = o->in_place ? r->b[i].recv + r->k.recv_inplace_off * elt * (size_t)g->rank
						 : r->b[i].recv;
		size_t nchk = nout;

		if (o->op == GF_COLL_REDUCE && g->rank != o->root)
			continue;	/* only the root receives */
		if (!(rc = gf_cuda_dev_make_current(&g->dev)))
			rc = gf_cuda_check(cu, cu->memcpy_dtoh_async(host, at, nchk * elt, g->stream), "cuMemcpyDtoHAsync");
		if (!rc)
			rc = gf_cuda_check(cu, cu->stream_synchronize(g->stream), "cuStreamSynchronize");
		for (size_t j = 0; !rc && j < nchk; j++) {
			double want, got = get(o->dtype, host, j);
			size_t blk = cnt ? j / cnt : 0, off = cnt ? j % cnt : j;

			switch (o->op) {
			case GF_COLL_ALL_REDUCE:
			case GF_COLL_REDUCE:
				want = reduced(o, nr, j, seed);
				break;
			case GF_COLL_REDUCE_SCATTER:
				want = reduced(o, nr, (size_t)g->rank * cnt + j, seed);
				break;
			case GF_COLL_BROADCAST:
				want = gf_coll_pattern(o->redop, o->root, nr, j, seed);
				break;
			case GF_COLL_ALL_GATHER:
				want = gf_coll_pattern(o->redop, (int)blk, nr, off, seed);
				break;
			case GF_COLL_ALLTOALL:
				want = gf_coll_pattern(o->redop, (int)blk, nr, (size_t)g->rank * cnt + off, seed);
				break;
			default:
				want = gf_coll_pattern(o->redop, (g->rank + nr - 1) % nr, nr, j, seed);
				break;
			}
			if (fabs(got - want) > tolerance(o->dtype) * fabs(want))
				(*wrong)++;
		}
	}
out:
	free(host);
	return rc;
}

/* The point's counts and name; -EINVAL when it does not fit the buffers. */
static int set_point(struct gf_coll_run *r, uint64_t size, size_t *total)
{
	char sz[32];

	gf_coll_counts_of(r->o.op, size, r->elt, r->c->nranks, &r->k);
	*total = (size_t)gf_coll_row_bytes(&r->k, r->elt);
	size_text(size, sz, sizeof(sz));
	snprintf(r->what, sizeof(r->what), "%s %s", gf_coll_op_name(r->o.op), sz);
	if (*total > r->buf_bytes)
		return gf_error(-EINVAL, "%s: %zu bytes do not fit the %zu-byte buffers", r->what, *total, r->buf_bytes);
	return 0;
}

int gf_coll_run_once(struct gf_coll_run *r, uint64_t size)
{
	size_t total;
	int rc;

	if (!r)
		return gf_error(-EINVAL, "gf_coll_run_once: no run");
	if ((rc = set_point(r, size, &total)) || (rc = launch(r, 0)))
		return rc;
	return gf_coll_comm_wait(r->c, r->what);
}

int gf_coll_run_point(struct gf_coll_run *r, uint64_t size, struct gf_coll_result *res)
{
	struct gf_coll_comm *c = r->c;
	struct rank_figures mine, *all = NULL;
	double *all_iters = NULL, t0, t;
	size_t steps, total;
	int rank0 = c->gpu[0].rank, rc;

	memset(res, 0, sizeof(*res));
	if ((rc = set_point(r, size, &total)))
		return rc;
	res->bytes = total;
	res->count = r->k.param;
	res->iters = r->o.iters;
	res->nranks = c->nranks;
	if (!(res->iter_s = calloc(r->o.iters, sizeof(*res->iter_s))))
		return gf_error(-ENOMEM, "coll: out of memory");
	steps = total ? r->buf_bytes / total : 1;

	for (unsigned j = 0; j < r->o.warmup_iters; j++)
		if ((rc = launch(r, total * (j % steps))))
			goto fail;
	/* nccl-tests' "Sync" launch, then every rank starts together */
	if ((rc = launch(r, 0)) || (rc = gf_coll_comm_wait(c, r->what)))
		goto fail;
	if (c->ctl && (rc = gf_coll_ctl_barrier(c->ctl, c->timeout_s, r->what)))
		goto fail;
	t0 = now_s();
	for (unsigned j = 0; j < r->o.iters; j++)
		if ((rc = launch(r, total * (j % steps))))
			goto fail;
	if ((rc = gf_coll_comm_wait(c, r->what)))
		goto fail;
	t = (now_s() - t0) / r->o.iters;
	/* The per-iteration samples come from a pass of their own: an event
	 * between iterations costs each a few microseconds (measured on 2 x
	 * H200: 1-4 MiB rows 10% below nccl-tests' when the timed pass carried
	 * them), which nccl-tests' average does not carry. */
	for (unsigned j = 0; j < r->o.iters; j++)
		if ((rc = record(r, j)) || (rc = launch(r, total * (j % steps))))
			goto fail;
	if ((rc = record(r, r->o.iters)) || (rc = gf_coll_comm_wait(c, r->what)))
		goto fail;
	if ((rc = iteration_times(r, res->iter_s, &res->slowest_rank)))
		goto fail;
	mine.time_s = t;
	mine.wrong = 0;
	for (unsigned k = 0; k < r->o.check; k++, res->checked++)
		if ((rc = check_once(r, 99 + k, &mine.wrong)))
			goto fail;
	res->time_s = t;
	res->wrong = mine.wrong;
	if (c->ctl) {
		/* nccl-tests' Allreduce(average) of the time; the slowest rank's
		 * iterations for p50/p99 */
		if (rank0 == 0 && (!(all = calloc((size_t)c->nranks, sizeof(*all))) ||
				   !(all_iters = calloc((size_t)c->nranks * r->o.iters, sizeof(*all_iters))) ||
				   !(res->rank_s = calloc((size_t)c->nranks, sizeof(*res->rank_s))))) {
			rc = gf_error(-ENOMEM, "coll: out of memory");
			gf_coll_ctl_abort(c->ctl, gf_last_error());
			goto fail;
		}
		if ((rc = gf_coll_ctl_gather(c->ctl, &mine, all, sizeof(mine), c->timeout_s, r->what)) ||
		    (rc = gf_coll_ctl_gather(c->ctl, res->iter_s, all_iters, r->o.iters * sizeof(double), c->timeout_s,
					     r->what)))
			goto fail;
		if (rank0 == 0) {
			double sum = 0, worst = -1;

			res->wrong = 0;
			for (int k = 0; k < c->nranks; k++) {
				res->rank_s[k] = all[k].time_s;
				sum += all[k].time_s;
				res->wrong += all[k].wrong;
				if (all[k].time_s > worst) {
					worst = all[k].time_s;
					res->slowest_rank = k;
				}
				for (unsigned j = 0; j < r->o.iters; j++)
					if (all_iters[(size_t)k * r->o.iters + j] > res->iter_s[j])
						res->iter_s[j] = all_iters[(size_t)k * r->o.iters + j];
			}
			res->time_s = sum / c->nranks;
		}
	}
	gf_coll_bw(r->o.op, r->k.param, r->elt, res->time_s, c->nranks, &res->algbw, &res->busbw);
	res->p50_s = quantile(res->iter_s, r->o.iters, 0.50);
	res->p99_s = quantile(res->iter_s, r->o.iters, 0.99);
	free(all);
	free(all_iters);
	return 0;
fail:
	free(all);
	free(all_iters);
	gf_coll_result_free(res);
	return rc;
}

void gf_coll_result_free(struct gf_coll_result *res)
{
	if (!res)
		return;
	free(res->iter_s);
	free(res->rank_s);
	res->iter_s = res->rank_s = NULL;
}

int gf_coll_run_open(struct gf_coll_comm *c, const struct gf_coll_run_opts *o, struct gf_coll_run **out)
{
	struct gf_coll_counts k;
	struct gf_coll_run *r;
	int rc = 0;

	*out = NULL;
	if (!c || !o || (unsigned)o->op >= GF_COLL_OPS || !gf_coll_dtype_size(o->dtype) || !o->iters)
		return gf_error(-EINVAL, "gf_coll_run_open: %s", !c || !o ? "no communicator or options"
								  : !o->iters ? "iters must be > 0"
									      : "unknown op or data type");
	if (gf_coll_op_rooted(o->op) && (o->root < 0 || o->root >= c->nranks))
		return gf_error(-EINVAL, "--root-rank %d: the job has ranks 0 to %d", o->root, c->nranks - 1);
	if (!(r = calloc(1, sizeof(*r))) || !(r->b = calloc((size_t)c->ngpus, sizeof(*r->b)))) {
		free(r);
		return gf_error(-ENOMEM, "coll: out of memory");
	}
	r->c = c;
	r->o = *o;
	r->elt = gf_coll_dtype_size(o->dtype);
	gf_coll_counts_of(o->op, o->max_bytes, r->elt, c->nranks, &k);
	r->buf_bytes = (size_t)gf_coll_row_bytes(&k, r->elt);
	if (r->buf_bytes < o->max_bytes)
		r->buf_bytes = o->max_bytes;
	if (!r->buf_bytes)
		r->buf_bytes = 16;
	for (int i = 0; i < c->ngpus && !rc; i++) {
		struct gf_coll_gpu *g = &c->gpu[i];
		const struct gf_cuda_ops *cu = g->dev.ops;
		char what[96];

		snprintf(what, sizeof(what), "cuMemAlloc %zu bytes on GPU %s", r->buf_bytes, g->dev.pci);
		if ((rc = gf_cuda_dev_make_current(&g->dev)) ||
		    (rc = gf_cuda_check(cu, cu->mem_alloc(&r->b[i].send, r->buf_bytes), what)) ||
		    (rc = gf_cuda_check(cu, cu->mem_alloc(&r->b[i].recv, r->buf_bytes), what)))
			break;
		if (!(r->b[i].ev = calloc(o->iters + 1, sizeof(*r->b[i].ev)))) {
			rc = gf_error(-ENOMEM, "coll: out of memory");
			break;
		}
		for (unsigned j = 0; j <= o->iters && !rc; j++)
			rc = gf_cuda_check(cu, cu->event_create(&r->b[i].ev[j], 0), "cuEventCreate");
	}
	if (rc) {
		gf_coll_run_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

void gf_coll_run_close(struct gf_coll_run *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->c->ngpus; i++) {
		struct gf_coll_gpu *g = &r->c->gpu[i];
		const struct gf_cuda_ops *cu = g->dev.ops;

		if (!cu || gf_cuda_dev_make_current(&g->dev))
			continue;
		for (unsigned j = 0; r->b[i].ev && j <= r->o.iters; j++)
			if (r->b[i].ev[j])
				cu->event_destroy(r->b[i].ev[j]);
		if (r->b[i].send)
			cu->mem_free(r->b[i].send);
		if (r->b[i].recv)
			cu->mem_free(r->b[i].recv);
		free(r->b[i].ev);
	}
	free(r->b);
	free(r);
}
