/* One point of `bench io`: N threads, each with its own engine, buffers on
 * the drive's NUMA node, keeping qd requests in flight for the duration.
 *
 * Completions are counted when they arrive; latency is submit to
 * completion as the caller sees it (like fio's clat plus submission).  CPU
 * time is the whole process's user+sys (getrusage RUSAGE_SELF), which on
 * Linux >= 5.12 includes io_uring's io-wq and SQPOLL threads. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "bench/histogram.h"
#include "bench/io_bench.h"
#include "core/affinity.h"
#include "core/error.h"
#include "core/log.h"
#include "core/strutil.h"
#include "io/engine.h"

/* How long a stopping job waits for its requests before cancelling them. */
#define STOP_GRACE_NS 200000000ull

struct run;

struct job {
	struct run *run;
	unsigned id;
	uint64_t lo, hi;		/* this job's region of the span */
	uint64_t nblocks;		/* blocks in the region */
	uint64_t pos;			/* blocks issued in this pass */
	uint64_t walk;			/* random: next index into the permutation */
	uint64_t perm_key;		/* random: this pass's permutation */
	unsigned perm_bits;		/* random: 2^bits >= nblocks */
	unsigned redrops;		/* passes that started cold again */
	struct gf_io_req **parked;	/* requests held at the end of a pass */
	unsigned nparked;
	uint64_t stop_ns;		/* when this job began to stop */
	bool cancelled;			/* its requests were asked to stop */
	uint64_t rng;
	struct gf_hist hist;
	uint64_t bytes, ios, t_end;
	bool stopping;
	struct gf_io *io;
	int err;
	char msg[256];
	char note[256];
	bool direct_used;
	enum gf_io_backend used;
	int buffer_node;
	pthread_t th;
};

struct run {
	struct gf_bench_io *b;
	const struct gf_bench_point *p;
	/* Start gate: jobs set up, then all start at once. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned nready;
	bool go;
	uint64_t t0, deadline, interval_ns;
	_Atomic uint64_t *slices;	/* bytes completed per interval */
	atomic_uint finished;		/* jobs that returned */
	unsigned nslices;
	struct job *jobs;
};

void gf_bench__fill(void *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed ? seed : 1, *p = buf;

	for (size_t i = 0; i < len / 8; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		p[i] = x * 0x2545f4914f6cdd1dull;
	}
}

/* A bijection of [0, 2^bits) keyed by key (multiply by an odd number and
 * xor-shift, each invertible modulo 2^bits): walking k = 0, 1, ... and
 * skipping values >= n visits every block of a region once, in random
 * order (fio's random map, without the map). */
static uint64_t permute(uint64_t k, unsigned bits, uint64_t key)
{
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
	unsigned sh = bits / 2 ? bits / 2 : 1;

	for (int round = 0; round < 3; round++) {
		k = (k * (0x9e3779b97f4a7c15ull | 1) + key) & mask;
		k ^= k >> sh;
		k = (k * ((key << 1) | 1)) & mask;
		key = key * 0x2545f4914f6cdd1dull + 0x632be59bd9b4e019ull;
	}
	return k;
}

static bool sequential(const struct gf_bench_point *p)
{
	return p->mode == GF_BENCH_SEQREAD || p->mode == GF_BENCH_SEQWRITE;
}

/* Whether a pass over a region must start from the device again: a cold
 * read must not re-read pages the last pass brought into the cache, and a
 * buffered write must not overwrite pages still dirty from the last pass
 * (they would reach the disk once, counted twice).  Direct I/O bypasses the
 * cache and a warm point re-reads on purpose. */
static bool fresh_passes(const struct gf_bench_point *p)
{
	return p->cache == GF_CACHE_COLD;
}

static void new_pass(struct job *j)
{
	j->pos = j->walk = 0;
	j->rng ^= j->rng >> 12;
	j->rng ^= j->rng << 25;
	j->rng ^= j->rng >> 27;
	j->perm_key = j->rng * 0x2545f4914f6cdd1dull;
}

/* The next offset of this pass; false when the pass is over and it must
 * start fresh first (fresh_passes), else the next pass starts here. */
static bool next_off(struct job *j, uint64_t *off)
{
	const struct gf_bench_point *p = j->run->p;

	if (j->pos >= j->nblocks) {
		if (fresh_passes(p))
			return false;
		new_pass(j);
	}
	if (sequential(p)) {
		*off = j->lo + j->pos++ * p->bs;
		return true;
	}
	uint64_t v;
	do
		v = permute(j->walk++, j->perm_bits, j->perm_key);
	while (v >= j->nblocks);
	j->pos++;
	*off = j->lo + v * p->bs;
	return true;
}

static int job_fail(struct job *j, int rc)
{
	if (!j->err) {
		j->err = rc;
		gf_strlcpy(j->msg, gf_last_error(), sizeof(j->msg));
	}
	return rc;
}

static void on_done(struct gf_io_req *req)
{
	struct job *j = req->user;
	struct run *r = j->run;
	uint64_t now = gf_io__now_ns();

	if (req->res < 0) {
		if (req->res == -ECANCELED && j->stopping)
			return;		/* we asked it to stop */
		if (!j->err) {
			j->err = (int)req->res;
			snprintf(j->msg, sizeof(j->msg), "%s: %s of %zu bytes at %llu: %s", r->b->target.path,
				 req->op == GF_IO_READ ? "read" : "write", req->len,
				 (unsigned long long)req->off, strerror((int)-req->res));
		}
		j->stopping = true;
		return;
	}
	gf_hist_add(&j->hist, now - req->submit_ns);
	j->bytes += (uint64_t)req->res;
	j->ios++;
	if (now > r->t0) {
		uint64_t s = (now - r->t0) / r->interval_ns;
		if (s < r->nslices)
			atomic_fetch_add_explicit(&r->slices[s], (uint64_t)req->res, memory_order_relaxed);
	}
	if (now >= r->deadline || (r->b->opts.cancel && *r->b->opts.cancel))
		j->stopping = true;	/* also here: cached reads can complete
					 * inside the submit, without a wait */
	if (!j->stopping) {
		/* Replace it at once, one submission per completion as fio
		 * does: batching replacements per wait let the device's queue
		 * run below depth and cost 10-15% of random IOPS on a virtio
		 * disk (bench/results/2026-11-22-h100-rand-submit-ab). */
		struct gf_io_req *rp = req;
		uint64_t off;
		int rc;

		if (!next_off(j, &off)) {
			j->parked[j->nparked++] = req;	/* the pass is over */
			return;
		}
		req->off = off;
		rc = gf_io_submit(j->io, &rp, 1);
		if (rc != 1) {
			job_fail(j, rc < 0 ? rc : -EBUSY);
			j->stopping = true;
		}
	}
}

/* Before a region is read or written again (fresh_passes): buffered
 * writes are pushed to the device and waited for, and the region's pages
 * are dropped, so the next pass reads from the device. */
static int fresh_region(struct job *j, struct gf_file *f)
{
	const char *path = j->run->b->target.path;
	int fd = gf_file_fd(f);
	off_t lo = (off_t)j->lo, len = (off_t)(j->hi - j->lo);

	if (gf_bench_mode_writes(j->run->p->mode) &&
	    sync_file_range(fd, lo, len, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				     SYNC_FILE_RANGE_WAIT_AFTER))
		return gf_error(-errno, "%s: sync_file_range: %s", path, strerror(errno));
	if (posix_fadvise(fd, lo, len, POSIX_FADV_DONTNEED))
		return gf_error(-EIO, "%s: posix_fadvise(DONTNEED) failed", path);
	return 0;
}

static void *job_main(void *arg)
{
	struct job *j = arg;
	struct run *r = j->run;
	const struct gf_bench_point *p = r->p;
	struct gf_bench_io *b = r->b;
	struct gf_io_opts o = { .struct_size = sizeof(struct gf_io_opts),
		.backend = p->engine, .queue_depth = p->qd, .sqpoll_cpu = -1, .cpu_node = -1,
		.threads = p->engine == GF_IO_PSYNC && p->qd > 1 ? p->qd : 0,
		.flags = p->sqpoll ? GF_IO_SQPOLL : 0, .cancel = b->opts.cancel,
	};
	struct gf_buf_opts bo = { .struct_size = sizeof(struct gf_buf_opts),
		.size = (size_t)p->qd * p->bs, .numa_node = b->target.numa_node };
	struct gf_io_req *reqs = NULL, **first = NULL;	/* the first batch */
	struct gf_file *f = NULL;
	struct gf_buf *buf = NULL;
	struct gf_io *io = NULL;
	unsigned flags = (gf_bench_mode_writes(p->mode) ? GF_FILE_WRITE : 0) | (p->cache == GF_CACHE_DIRECT ? GF_FILE_DIRECT : 0);
	int rc;

	if (b->have_cpus) {
		cpu_set_t set;
		gf_cpuset_to_sys(&b->cpus, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		o.cpu_node = b->target.numa_node;	/* psync workers too */
		o.flags |= GF_IO_WORKER_NODE;
	}
	rc = gf_io_open(&o, &io);
	j->io = io;
	if (!rc)
		rc = gf_file_open(io, b->target.path, flags, 0, &f);
	if (!rc) {
		bo.align = gf_file_info(f)->mem_align;
		rc = gf_buf_alloc(&bo, &buf);
	}
	if (!rc) {
		reqs = calloc(p->qd, sizeof(*reqs));
		first = calloc(p->qd, sizeof(*first));
		j->parked = calloc(p->qd, sizeof(*j->parked));
		if (!reqs || !first || !j->parked)
			rc = gf_error(-ENOMEM, "bench io: out of memory");
	}
	if (!rc) {
		struct stat st;
		if (fstat(gf_file_fd(f), &st) == 0 && !gf_bench__ours(b, &st))
			rc = gf_error(-ESTALE, "%s: no longer the file this run created (something was moved onto "
				      "the path): not touching it", b->target.path);
	}
	if (rc) {
		job_fail(j, rc);
	} else {
		j->used = gf_io_backend_of(io);
		/* O_DIRECT only counts when the blocks are aligned to it. */
		j->direct_used = gf_file_info(f)->direct && p->bs % gf_file_info(f)->offset_align == 0 &&
				 p->bs % gf_file_info(f)->mem_align == 0;
		/* The facts behind the engine's warnings (gpufeed/log.h). */
		if (gf_file_info(f)->direct_refused)
			snprintf(j->note, sizeof(j->note), "O_DIRECT refused by %s; using the page cache",
				 gf_file_info(f)->fs_type);
		else if (gf_io_fallback_error(io))
			snprintf(j->note, sizeof(j->note), "io_uring unavailable (%s); using the pread/pwrite pool",
				 strerror(-gf_io_fallback_error(io)));
		else if (buf->numa_node >= 0 && !buf->placed)
			snprintf(j->note, sizeof(j->note), "buffer not placed on NUMA node %d", buf->numa_node);
		j->buffer_node = gf_mem_node_of(buf->data);
		if (gf_bench_mode_writes(p->mode))
			gf_bench__fill(buf->data, buf->size, 0x51ed27aull + j->id);
		gf_io_register_buf(io, buf);	/* best effort, like fio's fixedbufs */
	}

	pthread_mutex_lock(&r->mu);
	r->nready++;
	pthread_cond_broadcast(&r->cv);
	while (!r->go)
		pthread_cond_wait(&r->cv, &r->mu);
	pthread_mutex_unlock(&r->mu);
	if (j->err)
		goto out;

	for (unsigned i = 0; i < p->qd; i++) {
		reqs[i].op = gf_bench_mode_writes(p->mode) ? GF_IO_WRITE : GF_IO_READ;
		reqs[i].file = f;
		reqs[i].buf = (char *)buf->data + (size_t)i * p->bs;
		reqs[i].len = p->bs;
		reqs[i].cb = on_done;
		reqs[i].user = j;
		j->parked[j->nparked++] = &reqs[i];
	}
	for (bool first_pass = true;; first_pass = false) {
		unsigned n = 0, held = j->nparked;

		if (j->stopping || j->err || !held)
			break;
		if (!first_pass && j->pos >= j->nblocks) {
			/* A pass is over and its requests are all back: the
			 * region starts from the device again. */
			rc = fresh_region(j, f);
			if (rc) {
				job_fail(j, rc);
				break;
			}
			j->redrops++;
			new_pass(j);
		}
		/* Out of parked[] first: completions inside the submit park
		 * again. */
		memcpy(first, j->parked, held * sizeof(*first));
		j->nparked = 0;
		for (uint64_t off; n < held && next_off(j, &off); n++)
			first[n]->off = off;
		for (unsigned i = n; i < held; i++)
			j->parked[j->nparked++] = first[i];	/* a region smaller than qd */
		/* One batch; from then on each completion's callback submits
		 * its replacement (on_done). */
		rc = gf_io_submit(io, first, n);
		if (rc < 0) {
			job_fail(j, rc);
			j->stopping = true;
		} else if ((unsigned)rc < n) {
			job_fail(j, gf_error(-EBUSY, "bench io: the engine took %d of %u requests", rc, n));
			j->stopping = true;
		}
		while (io && gf_io_inflight(io)) {
			uint64_t now;

			/* A bounded wait: a stop (Ctrl-C, the deadline) is seen
			 * even while a request hangs in retries. */
			rc = gf_io_wait(io, 1, 100);
			if (rc < 0 && rc != -EINTR && rc != -ETIME) {
				job_fail(j, rc);
				j->stopping = true;
				gf_io_close(io, GF_IO_CANCEL);
				io = NULL;
				break;
			}
			now = gf_io__now_ns();
			if (now >= r->deadline || (b->opts.cancel && *b->opts.cancel))
				j->stopping = true;
			if (j->stopping && !j->stop_ns)
				j->stop_ns = now;
			if (j->stopping && !j->cancelled && now - j->stop_ns > STOP_GRACE_NS) {
				/* Still busy well after the stop: cancel what is in
				 * flight rather than wait for it. */
				j->cancelled = true;
				for (unsigned i = 0; i < p->qd; i++)
					gf_io_cancel(io, &reqs[i]);
			}
		}
		if (!io)
			break;
	}
	if (io && !j->err && gf_bench_mode_writes(p->mode) && !j->direct_used && fdatasync(gf_file_fd(f))) {
		/* Buffered writes count until they are on the device (fio's
		 * end_fsync=1); otherwise this would measure memcpy. */
		job_fail(j, gf_error(-errno, "%s: fdatasync: %s", b->target.path, strerror(errno)));
	}
	j->t_end = gf_io__now_ns();
out:
	if (io) {
		if (f)
			gf_file_close(f);
		gf_io_close(io, GF_IO_CANCEL);
	}
	gf_buf_free(buf);
	free(reqs);
	free(first);
	free(j->parked);
	j->parked = NULL;
	atomic_fetch_add(&r->finished, 1);
	return NULL;
}

static double cpu_s(const struct rusage *a, const struct rusage *b, bool sys)
{
	const struct timeval *x = sys ? &a->ru_stime : &a->ru_utime, *y = sys ? &b->ru_stime : &b->ru_utime;

	return (double)(y->tv_sec - x->tv_sec) + (double)(y->tv_usec - x->tv_usec) / 1e6;
}

/* Until the jobs return: every 0.1 s, what they completed so far. */
static void report_progress(struct run *r, unsigned started)
{
	uint64_t last_bytes = 0, last_ns = r->t0;

	while (atomic_load(&r->finished) < started) {
		struct timespec ts = { 0, 100000000 };
		struct gf_bench_progress pr = { .point = r->p };
		uint64_t now;

		nanosleep(&ts, NULL);
		now = gf_io__now_ns();
		for (unsigned s = 0; s < r->nslices; s++)
			pr.bytes += atomic_load_explicit(&r->slices[s], memory_order_relaxed);
		pr.elapsed_s = (double)(now - r->t0) / 1e9;
		pr.gb_per_s_now = now > last_ns ? (double)(pr.bytes - last_bytes) / (double)(now - last_ns) : 0;
		last_bytes = pr.bytes;
		last_ns = now;
		if (r->b->in_point)
			r->b->in_point(&pr, r->b->in_point_ctx);
		else
			r->b->opts.progress(&pr, r->b->opts.progress_ctx);
	}
}

int gf_bench_io_check(const struct gf_bench_io *b, const struct gf_bench_point *p)
{
	if (!b || !p)
		return gf_error(-EINVAL, "bench io: gf_bench_io_check: NULL argument");
	if ((unsigned)p->mode > GF_BENCH_RANDWRITE || (unsigned)p->cache > GF_CACHE_WARM)
		return gf_error(-EINVAL, "bench io: not a mode or cache state (%d, %d)", (int)p->mode, (int)p->cache);
	if (!(p->duration_s > 0 && p->duration_s <= GF_DURATION_MAX))
		return gf_error(-EINVAL, "bench io: the duration must be a number of seconds in (0, one year]");
	if (!p->bs || !p->qd || !p->threads || p->duration_s <= 0)
		return gf_error(-EINVAL, "bench io: block size, queue depth, threads and duration must be > 0");
	if (p->qd > GF_BENCH_QD_MAX || p->threads > GF_BENCH_THREADS_MAX)
		return gf_error(-EINVAL, "bench io: at most %u in flight per thread and %u threads", GF_BENCH_QD_MAX,
				GF_BENCH_THREADS_MAX);
	if (p->bs > GF_BENCH_BS_MAX)
		return gf_error(-EINVAL, "bench io: block size above 1 GiB");
	/* Unaligned requests would quietly go through the page cache (the
	 * engine routes them to a buffered descriptor): refuse instead. */
	if (p->cache == GF_CACHE_DIRECT && b->target.direct_align && p->bs % b->target.direct_align)
		return gf_error(-EINVAL, "bench io: O_DIRECT on %s needs a block size that is a multiple of %u "
				"bytes; %zu is not", b->target.path, b->target.direct_align, p->bs);
	if (b->target.size / p->threads < p->bs)
		return gf_error(-EINVAL, "%s: %llu bytes is too small for %u thread(s) of %zu-byte blocks",
				b->target.path, (unsigned long long)b->target.size, p->threads, p->bs);
	if (p->engine != GF_IO_URING && p->engine != GF_IO_PSYNC)
		return gf_error(-EINVAL, "bench io: engine must be uring or psync");
	if (p->sqpoll && p->engine != GF_IO_URING)
		return gf_error(-EINVAL, "bench io: --sqpoll needs the uring engine");
	if (gf_bench_mode_writes(p->mode) && p->cache == GF_CACHE_WARM)
		return gf_error(-EINVAL, "bench io: warm applies to reads");
	if (gf_bench_mode_writes(p->mode) && !b->opts.writes)
		return gf_error(-EPERM, "bench io: opened for reads only");
	return 0;
}

int gf_bench_io_run(struct gf_bench_io *b, const struct gf_bench_point *p, struct gf_bench_result *res)
{
	struct run r = { .b = b, .p = p };
	struct rusage ru0, ru1;
	struct gf_hist all;
	uint64_t span, t_end = 0, dur_ns;
	int rc;

	if (!b || !p || !res)
		return gf_error(-EINVAL, "bench io: gf_bench_io_run: NULL argument");
	memset(res, 0, sizeof(*res));
	res->p = *p;
	rc = gf_bench_io_check(b, p);
	if (rc) {
		res->status = rc;
		gf_strlcpy(res->error, gf_last_error(), sizeof(res->error));
		return 0;
	}
	if (b->opts.cancel && *b->opts.cancel)
		return gf_error(-ECANCELED, "bench io: cancelled");
	dur_ns = (uint64_t)(p->duration_s * 1e9);
	span = b->target.size / p->bs * p->bs;
	if (p->cache == GF_CACHE_WARM) {
		uint64_t want = span, warmed = 0, unit = (uint64_t)p->bs * p->threads;

		/* Only what fits in memory can be warm. */
		if (b->target.memory_bytes && want > b->target.memory_bytes / 2)
			want = b->target.memory_bytes / 2 / unit * unit;
		/* The warm-up gets the point's duration, no more: a large file
		 * or device is warmed in part, and the point reads that part. */
		rc = gf_bench__warm_cache(b, want, dur_ns, &warmed);
		if (rc == -ECANCELED)
			return rc;
		if (!rc) {
			uint64_t got = warmed / unit * unit;
			if (got < span)
				snprintf(res->note, sizeof(res->note), "warm: the point reads the first %llu MiB of "
					 "%llu MiB, what was read into the cache first (%s)",
					 (unsigned long long)(got >> 20), (unsigned long long)(span >> 20),
					 want < span ? "half of memory" : "the warm-up is limited to the point's duration");
			/* res->note stays for the JSON "note"; the job notes are
			 * logged by the layer that made them (io/file, engine, buf). */
			if (got < span)
				GF_INFO(GF_LOG_BENCH, "%s", res->note);
			span = got ? got : unit;
		}
	} else {
		rc = gf_bench__drop_cache(b);
	}
	if (rc) {
		res->status = rc;
		gf_strlcpy(res->error, gf_last_error(), sizeof(res->error));
		return 0;
	}
	res->span = span;

	r.interval_ns = dur_ns / 100 > 100000000ull ? dur_ns / 100 : 100000000ull;
	r.nslices = (unsigned)(dur_ns / r.interval_ns) + 2;
	if (r.nslices > GF_LAT_SAMPLES_MAX)
		r.nslices = GF_LAT_SAMPLES_MAX;
	r.slices = calloc(r.nslices, sizeof(*r.slices));
	r.jobs = calloc(p->threads, sizeof(*r.jobs));
	if (!r.slices || !r.jobs) {
		free(r.slices);
		free(r.jobs);
		return gf_error(-ENOMEM, "bench io: out of memory");
	}
	pthread_mutex_init(&r.mu, NULL);
	pthread_cond_init(&r.cv, NULL);
	unsigned started = 0;
	uint64_t blocks = span / p->bs;
	for (unsigned i = 0; i < p->threads; i++) {
		struct job *j = &r.jobs[i];
		j->run = &r;
		j->id = i;
		j->buffer_node = -1;
		j->rng = 0x9e3779b97f4a7c15ull * (i + 1) ^ (uint64_t)gf_io__now_ns();
		/* Each thread its own slice, sequential or random: a page
		 * is never read by two threads in one pass. */
		j->lo = blocks * i / p->threads * p->bs;
		j->hi = blocks * (i + 1) / p->threads * p->bs;
		j->nblocks = (j->hi - j->lo) / p->bs;
		while (j->perm_bits < 64 && (1ull << j->perm_bits) < j->nblocks)
			j->perm_bits++;
		new_pass(j);
		rc = pthread_create(&j->th, NULL, job_main, j);
		if (rc) {
			j->err = -rc;
			snprintf(j->msg, sizeof(j->msg), "bench io: starting a thread: %s", strerror(rc));
			break;
		}
		started++;
	}
	pthread_mutex_lock(&r.mu);
	while (r.nready < started)
		pthread_cond_wait(&r.cv, &r.mu);
	getrusage(RUSAGE_SELF, &ru0);
	r.t0 = gf_io__now_ns();
	r.deadline = started == p->threads ? r.t0 + dur_ns : r.t0;	/* a thread missing: stop at once */
	r.go = true;
	pthread_cond_broadcast(&r.cv);
	pthread_mutex_unlock(&r.mu);
	if (b->in_point || b->opts.progress)
		report_progress(&r, started);
	for (unsigned i = 0; i < started; i++)
		pthread_join(r.jobs[i].th, NULL);
	getrusage(RUSAGE_SELF, &ru1);
	pthread_mutex_destroy(&r.mu);
	pthread_cond_destroy(&r.cv);

	memset(&all, 0, sizeof(all));
	res->direct_used = true;
	res->status = 0;
	for (unsigned i = 0; i < p->threads; i++) {
		struct job *j = &r.jobs[i];
		gf_hist_merge(&all, &j->hist);
		res->bytes += j->bytes;
		res->redrops += j->redrops;
		res->ios += j->ios;
		if (j->t_end > t_end)
			t_end = j->t_end;
		if (j->err && !res->status) {
			res->status = j->err;
			gf_strlcpy(res->error, j->msg, sizeof(res->error));
		}
		if (j->note[0] && !res->note[0])
			gf_strlcpy(res->note, j->note, sizeof(res->note));
		if (!j->direct_used)
			res->direct_used = false;
		if (i == 0) {
			gf_strlcpy(res->engine_used, gf_io_backend_name(j->used), sizeof(res->engine_used));
			b->target.buffer_node_actual = j->buffer_node;
		}
	}
	res->seconds = t_end > r.t0 ? (double)(t_end - r.t0) / 1e9 : 0;
	if (res->seconds > 0) {
		res->gb_per_s = (double)res->bytes / res->seconds / 1e9;
		res->iops = (double)res->ios / res->seconds;
	}
	res->lat_mean_us = all.count ? (double)all.sum_ns / (double)all.count / 1e3 : 0;
	res->lat_p50_us = gf_hist_quantile(&all, 0.50) / 1e3;
	res->lat_p99_us = gf_hist_quantile(&all, 0.99) / 1e3;
	res->lat_p999_us = gf_hist_quantile(&all, 0.999) / 1e3;
	res->lat_max_us = (double)all.max_ns / 1e3;
	res->cpu_user_s = cpu_s(&ru0, &ru1, false);
	res->cpu_sys_s = cpu_s(&ru0, &ru1, true);
	res->cpu_s_per_gb = res->bytes ? (res->cpu_user_s + res->cpu_sys_s) / ((double)res->bytes / 1e9) : 0;
	res->interval_s = (double)r.interval_ns / 1e9;
	/* Whole intervals only: the last, partial one would read low. */
	for (unsigned s = 0; s < r.nslices && (uint64_t)(s + 1) * r.interval_ns <= (t_end - r.t0); s++)
		res->samples[res->nsamples++] = (double)atomic_load(&r.slices[s]) / ((double)r.interval_ns / 1e9) / 1e9;
	free(r.slices);
	free(r.jobs);
	if (b->opts.cancel && *b->opts.cancel)
		return gf_error(-ECANCELED, "bench io: cancelled");
	return 0;
}
