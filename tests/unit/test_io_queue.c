/* The queue: full (-EBUSY, or blocking with GF_IO_BLOCK_WHEN_FULL),
 * cancellation (once, -ECANCELED or the real result; -ENOENT when not in
 * flight), closing with requests in flight (GF_IO_DRAIN, GF_IO_CANCEL);
 * both back ends, on disk, tmpfs and ramfs.
 *
 * io_uring reads of cached files finish before a cancel can reach them,
 * so there the cases check what holds whatever the timing.  On psync a
 * request is held in flight for sure: its buffer is userfaultfd memory,
 * so the worker's pread() waits in the page fault until the case lets it
 * go, and the requests queued behind it have not started. */
#include "test_io_util.h"

#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#define LEN 65536u
#define NREQ 32

struct tally {
	pthread_t thread;
	unsigned calls[NREQ + 1];
	unsigned total;
	unsigned wrong_thread;
	bool closing;			/* set just before gf_io_close */
	unsigned during_close;
	unsigned cancelled;
	unsigned release_after;		/* post release after this many -ECANCELED */
	sem_t *release;
	struct gf_io_req *base;
};

static void tally_cb(struct gf_io_req *req)
{
	struct tally *t = req->user;

	t->calls[req - t->base]++;
	t->total++;
	if (!pthread_equal(pthread_self(), t->thread))
		t->wrong_thread++;
	if (t->closing)
		t->during_close++;
	if (req->res == -ECANCELED && ++t->cancelled == t->release_after && t->release)
		sem_post(t->release);
}

static void make_reqs(struct gf_io_req *req, struct gf_io_req **p, unsigned n, struct gf_file *f,
		      uint8_t *mem, struct tally *t)
{
	memset(mem, 0, (size_t)n * LEN);
	memset(t->calls, 0, sizeof(t->calls));
	t->total = t->wrong_thread = t->during_close = t->cancelled = 0;
	t->closing = false;
	t->thread = pthread_self();
	t->base = req;
	for (unsigned i = 0; i < n; i++) {
		req[i] = (struct gf_io_req){ .op = GF_IO_READ, .file = f, .buf = mem + (size_t)i * LEN,
					     .len = LEN, .off = (uint64_t)i * LEN, .cb = t ? tally_cb : NULL,
					     .user = t };
		p[i] = &req[i];
	}
}

/* Every request completed once, in this thread; with its data when it
 * was not cancelled.  Returns how many were cancelled. */
static unsigned check_all(struct gf_io_req *req, unsigned n, struct tally *t, bool may_cancel)
{
	unsigned cancelled = 0;

	assert_int_equal(t->wrong_thread, 0);
	for (unsigned i = 0; i < n; i++) {
		assert_true(req[i].done);
		assert_int_equal(t->calls[i], 1);
		if (req[i].res == -ECANCELED && may_cancel) {
			cancelled++;
			continue;
		}
		assert_int_equal(req[i].res, LEN);
		t_check(req[i].buf, LEN, req[i].off, 1);
	}
	assert_int_equal(t->total, n);
	return cancelled;
}

static struct gf_io_req reqs[NREQ];
static struct gf_io_req *ptrs[NREQ];
static struct tally tal;

static uint8_t *setup_file(struct t_fs *fs)
{
	uint8_t *mem = malloc((size_t)NREQ * LEN);

	assert_non_null(mem);
	t_make_file(fs, "q.bin", (size_t)NREQ * LEN, 1);
	return mem;
}

static void full_queue(struct t_fs *fs)
{
	uint8_t *mem = setup_file(fs);
	struct gf_io *io;
	struct gf_file *f;

	T_FOR_EACH_BACKEND(fs, io, "full queue, no blocking", 4, 0, 0) {
		assert_int_equal(gf_file_open(io, t_path(fs, "q.bin"), GF_FILE_READ, 0, &f), 0);
		make_reqs(reqs, ptrs, 6, f, mem, &tal);
		assert_int_equal(gf_io_submit(io, ptrs, 6), 4);
		assert_int_equal(gf_io_inflight(io), 4);
		/* Completions are only taken when asked for: still full. */
		assert_int_equal(gf_io_submit(io, ptrs + 4, 2), -EBUSY);
		assert_true(t_contains(gf_last_error(), "full"));
		assert_false(reqs[4].done);
		assert_int_equal(tal.total, 0);
		assert_int_equal(gf_io_wait(io, 4, -1), 4);
		assert_int_equal(gf_io_submit(io, ptrs + 4, 2), 2);
		assert_int_equal(gf_io_wait(io, 2, -1), 2);
		check_all(reqs, 6, &tal, false);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	T_FOR_EACH_BACKEND(fs, io, "full queue, blocking", 4, 0, GF_IO_BLOCK_WHEN_FULL) {
		assert_int_equal(gf_file_open(io, t_path(fs, "q.bin"), GF_FILE_READ, 0, &f), 0);
		make_reqs(reqs, ptrs, NREQ, f, mem, &tal);
		assert_int_equal(gf_io_submit(io, ptrs, NREQ), NREQ);
		/* Room for the last 4 came from completions, callbacks run. */
		assert_true(tal.total >= NREQ - 4);
		assert_true(gf_io_inflight(io) <= 4);
		assert_true(gf_io_wait(io, gf_io_inflight(io), -1) >= 0);
		assert_int_equal(gf_io_inflight(io), 0);
		check_all(reqs, NREQ, &tal, false);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	/* A queue of one on psync runs each call in this thread. */
	for (int block = 0; block < 2; block++) {
		t_case(fs, GF_IO_PSYNC, block ? "queue of one, blocking" : "queue of one");
		io = t_io_open(GF_IO_PSYNC, 1, 0, block ? GF_IO_BLOCK_WHEN_FULL : 0);
		assert_int_equal(gf_file_open(io, t_path(fs, "q.bin"), GF_FILE_READ, 0, &f), 0);
		make_reqs(reqs, ptrs, 3, f, mem, &tal);
		if (block) {
			assert_int_equal(gf_io_submit(io, ptrs, 3), 3);
			assert_int_equal(tal.total, 2);
		} else {
			assert_int_equal(gf_io_submit(io, ptrs, 3), 1);
			assert_int_equal(gf_io_submit(io, ptrs + 1, 2), -EBUSY);
			assert_int_equal(gf_io_wait(io, 1, -1), 1);
			assert_int_equal(gf_io_submit(io, ptrs + 1, 2), 1);
			assert_int_equal(gf_io_wait(io, 1, -1), 1);
			assert_int_equal(gf_io_submit(io, ptrs + 2, 1), 1);
		}
		assert_int_equal(gf_io_wait(io, 1, -1), 1);
		check_all(reqs, 3, &tal, false);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(mem);
}
T_FS_TESTS(full_queue);

/* Cancel what is in flight: every request completes once, cancelled or
 * whole; what is not in flight is -ENOENT. */
static void cancel(struct t_fs *fs)
{
	uint8_t *mem = setup_file(fs);
	struct gf_io *io;

	T_FOR_EACH_BACKEND(fs, io, "cancel", NREQ, 2, 0) {
		struct gf_io_req idle = { .op = GF_IO_READ };
		struct gf_file *f;

		assert_int_equal(gf_file_open(io, t_path(fs, "q.bin"), GF_FILE_READ, 0, &f), 0);
		/* Never submitted. */
		idle.file = f;
		assert_int_equal(gf_io_cancel(io, &idle), -ENOENT);
		assert_true(t_contains(gf_last_error(), "not in flight"));
		assert_int_equal(gf_io_cancel(io, NULL), -EINVAL);	/* not a request */

		make_reqs(reqs, ptrs, NREQ, f, mem, &tal);
		assert_int_equal(gf_io_submit(io, ptrs, NREQ), NREQ);
		for (unsigned i = 0; i < NREQ; i += 2)
			assert_int_equal(gf_io_cancel(io, &reqs[i]), 0);
		while (gf_io_inflight(io))
			assert_true(gf_io_wait(io, 1, -1) >= 0);
		check_all(reqs, NREQ, &tal, true);
		for (unsigned i = 1; i < NREQ; i += 2)
			assert_int_equal(reqs[i].res, LEN);	/* not cancelled */
		/* Completed: no longer in flight. */
		assert_int_equal(gf_io_cancel(io, &reqs[0]), -ENOENT);
		assert_int_equal(gf_io_cancel(io, &reqs[1]), -ENOENT);
		/* A cancelled request can go again. */
		make_reqs(reqs, ptrs, 1, f, mem, &tal);
		assert_int_equal(gf_io_submit(io, ptrs, 1), 1);
		assert_int_equal(gf_io_wait(io, 1, -1), 1);
		check_all(reqs, 1, &tal, false);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(mem);
}
T_FS_TESTS(cancel);

static void close_with_inflight(struct t_fs *fs)
{
	uint8_t *mem = setup_file(fs);
	struct gf_io *io;

	T_FOR_EACH_BACKEND(fs, io, "close, drain", NREQ, 0, 0) {
		struct gf_file *f;

		assert_int_equal(gf_file_open(io, t_path(fs, "q.bin"), GF_FILE_READ, 0, &f), 0);
		make_reqs(reqs, ptrs, NREQ, f, mem, &tal);
		assert_int_equal(gf_io_submit(io, ptrs, NREQ), NREQ);
		tal.closing = true;
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
		check_all(reqs, NREQ, &tal, false);
		assert_int_equal(tal.during_close, NREQ);
	}
	T_FOR_EACH_BACKEND(fs, io, "close, drain, an error", NREQ, 0, 0) {
		struct gf_io_fault eio = { .op = GF_IO_READ, .err = -EIO, .cut = -1, .off = 5 * LEN, .len = 1 };
		struct gf_file *f;

		assert_int_equal(gf_file_open(io, t_path(fs, "q.bin"), GF_FILE_READ, 0, &f), 0);
		make_reqs(reqs, ptrs, NREQ, f, mem, &tal);
		gf_io_fault_clear();
		assert_int_equal(gf_io_fault_add(&eio), 0);
		assert_int_equal(gf_io_submit(io, ptrs, NREQ), NREQ);
		tal.closing = true;
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), -EIO);
		gf_io_fault_clear();
		assert_int_equal(reqs[5].res, -EIO);
		reqs[5].res = LEN;	/* for check_all */
		t_fill(reqs[5].buf, LEN, reqs[5].off, 1);
		check_all(reqs, NREQ, &tal, false);
		assert_int_equal(tal.during_close, NREQ);
	}
	T_FOR_EACH_BACKEND(fs, io, "close, cancel", NREQ, 2, 0) {
		struct gf_file *f;

		assert_int_equal(gf_file_open(io, t_path(fs, "q.bin"), GF_FILE_READ, 0, &f), 0);
		make_reqs(reqs, ptrs, NREQ, f, mem, &tal);
		assert_int_equal(gf_io_submit(io, ptrs, NREQ), NREQ);
		tal.closing = true;
		assert_int_equal(gf_io_close(io, GF_IO_CANCEL), 0);
		check_all(reqs, NREQ, &tal, true);
		assert_int_equal(tal.during_close, NREQ);
	}
	free(mem);
}
T_FS_TESTS(close_with_inflight);

/* ---- psync, a request held in flight ---- */

struct blocker {
	int uffd;
	uint8_t *mem;
	size_t len;
	pthread_t th;
	sem_t faulted, release;
	bool resolved;
};

static void *blocker_main(void *arg)
{
	struct blocker *bl = arg;
	struct pollfd pfd = { .fd = bl->uffd, .events = POLLIN };
	struct uffdio_zeropage zp = { .range = { .start = (uintptr_t)bl->mem, .len = bl->len } };
	struct uffd_msg msg;

	/* Bounded: a case that failed before the fault must not hang. */
	if (poll(&pfd, 1, 10000) == 1 && read(bl->uffd, &msg, sizeof(msg)) == sizeof(msg))
		sem_post(&bl->faulted);
	else
		sem_post(&bl->faulted);	/* let the case see it failed */
	sem_wait(&bl->release);
	bl->resolved = ioctl(bl->uffd, UFFDIO_ZEROPAGE, &zp) == 0;
	return NULL;
}

/* Memory whose first touch waits for blocker_release(); false when
 * userfaultfd is not available here. */
static bool blocker_start(struct blocker *bl, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;

	memset(bl, 0, sizeof(*bl));
	bl->len = len;
	bl->uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (bl->uffd < 0)
		return false;
	if (ioctl(bl->uffd, UFFDIO_API, &api)) {
		close(bl->uffd);
		return false;
	}
	bl->mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(bl->mem != MAP_FAILED);
	reg = (struct uffdio_register){ .range = { .start = (uintptr_t)bl->mem, .len = len },
					.mode = UFFDIO_REGISTER_MODE_MISSING };
	assert_int_equal(ioctl(bl->uffd, UFFDIO_REGISTER, &reg), 0);
	assert_int_equal(sem_init(&bl->faulted, 0, 0), 0);
	assert_int_equal(sem_init(&bl->release, 0, 0), 0);
	assert_int_equal(pthread_create(&bl->th, NULL, blocker_main, bl), 0);
	return true;
}

/* Waits until something touched the memory (a worker is stuck there). */
static void blocker_wait_fault(struct blocker *bl)
{
	assert_int_equal(sem_wait(&bl->faulted), 0);
}

static void blocker_stop(struct blocker *bl)
{
	pthread_join(bl->th, NULL);
	assert_true(bl->resolved);
	sem_destroy(&bl->faulted);
	sem_destroy(&bl->release);
	munmap(bl->mem, bl->len);
	close(bl->uffd);
}

/* Worker busy with req 0 (held), reqs 1.. queued behind it. */
static struct gf_io *held_engine(struct t_fs *fs, struct blocker *bl, struct gf_file **f, uint8_t *mem,
				 unsigned n)
{
	struct gf_io *io;

	if (!blocker_start(bl, LEN)) {
		print_message("[  SKIP    ] userfaultfd: %s\n", strerror(errno));
		skip();
	}
	io = t_io_open(GF_IO_PSYNC, 8, 1, 0);
	assert_int_equal(gf_file_open(io, t_path(fs, "q.bin"), GF_FILE_READ, 0, f), 0);
	make_reqs(reqs, ptrs, n, *f, mem, &tal);
	reqs[0].buf = bl->mem;
	assert_int_equal(gf_io_submit(io, ptrs, 1), 1);
	blocker_wait_fault(bl);
	assert_int_equal(gf_io_submit(io, ptrs + 1, n - 1), (int)n - 1);
	return io;
}

static void psync_cancel_queued(struct t_fs *fs)
{
	uint8_t *mem = setup_file(fs);
	struct blocker bl;
	struct gf_file *f;
	struct gf_io *io;

	t_case(fs, GF_IO_PSYNC, "cancel queued requests");
	io = held_engine(fs, &bl, &f, mem, 4);
	/* Not started: cancelled at once, seen by the next poll. */
	assert_int_equal(gf_io_cancel(io, &reqs[1]), 0);
	assert_int_equal(gf_io_cancel(io, &reqs[2]), 0);
	assert_int_equal(gf_io_poll(io), 2);
	assert_int_equal(reqs[1].res, -ECANCELED);
	assert_int_equal(reqs[2].res, -ECANCELED);
	assert_int_equal(tal.total, 2);
	assert_int_equal(gf_io_inflight(io), 2);
	assert_int_equal(gf_io_cancel(io, &reqs[1]), -ENOENT);
	/* Started: it goes on, and ends with its real result. */
	assert_int_equal(gf_io_cancel(io, &reqs[0]), 0);
	assert_int_equal(gf_io_wait(io, 1, 50), -ETIME);
	assert_false(reqs[0].done);
	sem_post(&bl.release);
	while (gf_io_inflight(io))
		assert_true(gf_io_wait(io, 1, -1) >= 0);
	assert_int_equal(reqs[0].res, LEN);
	t_check(bl.mem, LEN, 0, 1);
	assert_int_equal(reqs[3].res, LEN);
	t_check(reqs[3].buf, LEN, 3 * LEN, 1);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(tal.calls[i], 1);
	assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	blocker_stop(&bl);
	free(mem);
}
T_FS_TESTS(psync_cancel_queued);

static void psync_close_held(struct t_fs *fs)
{
	uint8_t *mem = setup_file(fs);
	struct blocker bl;
	struct gf_file *f;
	struct gf_io *io;

	/* Cancel: the queued ones end -ECANCELED during the close; the last
	 * of their callbacks lets the held one finish, with its data. */
	t_case(fs, GF_IO_PSYNC, "close cancel, one held");
	io = held_engine(fs, &bl, &f, mem, 6);
	tal.release = &bl.release;
	tal.release_after = 5;
	tal.closing = true;
	assert_int_equal(gf_io_close(io, GF_IO_CANCEL), 0);
	assert_int_equal(tal.during_close, 6);
	for (unsigned i = 1; i < 6; i++)
		assert_int_equal(reqs[i].res, -ECANCELED);
	assert_int_equal(reqs[0].res, LEN);
	t_check(bl.mem, LEN, 0, 1);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(tal.calls[i], 1);
	blocker_stop(&bl);
	tal.release = NULL;

	/* Drain: all end with their data, during the close. */
	t_case(fs, GF_IO_PSYNC, "close drain, one held");
	io = held_engine(fs, &bl, &f, mem, 6);
	tal.closing = true;
	sem_post(&bl.release);
	assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	assert_int_equal(tal.during_close, 6);
	reqs[0].buf = bl.mem;
	assert_int_equal(check_all(reqs, 6, &tal, false), 0);
	blocker_stop(&bl);
	free(mem);
}
T_FS_TESTS(psync_close_held);

/* Callbacks that resubmit on cached data: the reads can complete inside the
 * submit, so a reap that drained "until empty" would never return.  One
 * gf_io_wait must give control back after about a queue's worth. */
struct resubmitter {
	struct gf_io *io;
	unsigned n;
	bool stop;
};

static void resubmit_cb(struct gf_io_req *req)
{
	struct resubmitter *r = req->user;

	r->n++;
	if (!r->stop)
		assert_int_equal(gf_io_submit(r->io, &req, 1), 1);
}

static void wait_returns_with_resubmitting_callbacks(struct t_fs *fs)
{
	enum { QD = 8 };
	struct gf_io_req rq[QD], *rp[QD];
	static char bufs[QD][4096];
	struct resubmitter r = { 0 };
	struct gf_file *f;
	struct gf_io *io;

	t_fs_need(fs);
	t_make_file(fs, "hot", 64 * 1024, 3);
	T_FOR_EACH_BACKEND(fs, io, "resubmitting callbacks", QD, 0, 0) {
		assert_int_equal(gf_file_open(io, t_path(fs, "hot"), 0, 0, &f), 0);
		memset(&r, 0, sizeof(r));
		r.io = io;
		for (unsigned i = 0; i < QD; i++) {
			rq[i] = (struct gf_io_req){ .op = GF_IO_READ, .file = f, .buf = bufs[i],
						      .len = 4096, .off = i * 4096, .cb = resubmit_cb, .user = &r };
			rp[i] = &rq[i];
		}
		assert_int_equal(gf_io_submit(io, rp, QD), QD);
		alarm(60);	/* a wait that never returns kills the test, not CI */
		for (int k = 0; k < 5; k++)
			assert_true(gf_io_wait(io, 1, -1) >= 1);	/* returns at all */
		alarm(0);
		r.stop = true;
		while (gf_io_inflight(io))
			gf_io_wait(io, gf_io_inflight(io), -1);
		assert_true(r.n >= 5);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(wait_returns_with_resubmitting_callbacks);

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_FS_CASES(full_queue),
		T_FS_CASES(cancel),
		T_FS_CASES(close_with_inflight),
		T_FS_CASES(psync_cancel_queued),
		T_FS_CASES(psync_close_held),
		T_FS_CASES(wait_returns_with_resubmitting_callbacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
