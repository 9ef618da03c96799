/* Retries that end and waits that can be stopped: an EINTR/EAGAIN storm
 * fails a request in well under a second (bounded backoff, not 100,000
 * immediate retries); gf_io_interrupt() from another thread or a signal
 * handler, or the engine's cancel flag, ends a wait and the retry loop of
 * a request that comes back short forever within about 100 ms.  Both back
 * ends, and the inline pool (queue depth 1). */
#include "test_io_util.h"

#include <pthread.h>
#include <sys/time.h>
#include <time.h>

#define MiB (1u << 20)

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void add_fault(int op, int err, long long cut)
{
	struct gf_io_fault f = { .op = op, .err = err, .cut = cut };

	assert_int_equal(gf_io_fault_add(&f), 0);
}

/* The engines a case runs on: both back ends at depth 64, and the pool
 * at depth 1, which runs each call in the caller's thread. */
static const struct { enum gf_io_backend b; unsigned qd; const char *name; } engines[] = {
	{ GF_IO_URING, 0, "uring" }, { GF_IO_PSYNC, 0, "psync pool" }, { GF_IO_PSYNC, 1, "psync inline" },
};
#define NENGINES (sizeof(engines) / sizeof(engines[0]))

/* EAGAIN (or EINTR) on every attempt: the request fails with it, soon. */
static void retry_storm(struct t_fs *fs)
{
	const int errs[] = { -EAGAIN, -EINTR };
	uint8_t *buf = malloc(MiB);

	assert_non_null(buf);
	t_make_file(fs, "s.bin", MiB, 5);
	for (size_t e = 0; e < NENGINES; e++) {
		struct gf_io *io;
		struct gf_file *f;

		t_case(fs, engines[e].b, engines[e].name);
		io = t_io_open(engines[e].b, engines[e].qd, 0, 0);
		if (!io)
			continue;
		assert_int_equal(gf_file_open(io, t_path(fs, "s.bin"), GF_FILE_WRITE, 0, &f), 0);
		for (size_t k = 0; k < 2; k++) {
			uint64_t t0;
			ssize_t rc;

			gf_io_fault_clear();
			add_fault(-1, errs[k], -1);
			t0 = now_ms();
			rc = gf_io_read(io, f, buf, 4096, 0);
			print_message("%s: read failed after %llu ms, %u attempts\n", strerror(-errs[k]),
				      (unsigned long long)(now_ms() - t0), gf_io_fault_fired());
			assert_int_equal(rc, errs[k]);
			assert_true(now_ms() - t0 < 500);
			/* Retried a few times, not once and not 100,000 times. */
			assert_true(gf_io_fault_fired() >= 5);
			assert_true(gf_io_fault_fired() <= 200);
			t0 = now_ms();
			assert_int_equal(gf_io_write(io, f, buf, 4096, 0), errs[k]);
			assert_true(now_ms() - t0 < 500);
		}
		/* A few in a row are retried and the caller sees success. */
		gf_io_fault_clear();
		{
			struct gf_io_fault few = { .op = -1, .err = -EAGAIN, .cut = -1, .count = 8 };
			assert_int_equal(gf_io_fault_add(&few), 0);
		}
		assert_int_equal(gf_io_read(io, f, buf, MiB, 0), MiB);
		t_check(buf, MiB, 0, 5);
		gf_io_fault_clear();
		assert_int_equal(gf_file_close(f), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(buf);
}
T_FS_TESTS(retry_storm);

/* ---- interrupts ---- */

struct stopper {
	struct gf_io *io;
	volatile sig_atomic_t *flag;	/* set this instead, when non-NULL */
	unsigned delay_ms;
	uint64_t at_ms;			/* when it fired */
};

static void *stop_later(void *arg)
{
	struct stopper *s = arg;
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)s->delay_ms * 1000000L };

	nanosleep(&ts, NULL);
	s->at_ms = now_ms();
	if (s->flag)
		*s->flag = 1;
	else
		gf_io_interrupt(s->io);
	return NULL;
}

static struct gf_io *sig_io;
static volatile uint64_t sig_at_ms;

static void on_alarm(int sig)
{
	(void)sig;
	sig_at_ms = now_ms();
	gf_io_interrupt(sig_io);
}

/* Each read comes back one byte long: a 4 MiB request would take minutes
 * of resubmitting (the 11 minutes bench io ignored Ctrl-C for).  An
 * interrupt ends the wait within ~100 ms, the request with -ECANCELED, and
 * after gf_io_interrupt_clear() the engine works again. */
static void interrupt_wait(struct t_fs *fs)
{
	const size_t size = 4 * MiB;
	uint8_t *buf = malloc(size);

	assert_non_null(buf);
	t_make_file(fs, "w.bin", size, 6);
	for (size_t e = 0; e < NENGINES; e++) {
		struct gf_io *io;
		struct gf_file *f;

		t_case(fs, engines[e].b, engines[e].name);
		io = t_io_open(engines[e].b, engines[e].qd, 0, 0);
		if (!io)
			continue;
		assert_int_equal(gf_file_open(io, t_path(fs, "w.bin"), 0, 0, &f), 0);
		gf_io_fault_clear();
		add_fault(GF_IO_READ, 0, 1);

		/* gf_io_wait, interrupted from another thread. */
		{
			struct gf_io_req req = { .op = GF_IO_READ, .file = f, .buf = buf, .len = size };
			struct gf_io_req *p = &req;
			struct stopper st = { .io = io, .delay_ms = 50 };
			pthread_t th;
			uint64_t end;
			int rc;

			assert_int_equal(gf_io_submit(io, &p, 1), 1);
			assert_int_equal(pthread_create(&th, NULL, stop_later, &st), 0);
			/* -EINTR, or the count when the cancelled request
			 * completing was what the wait waited for. */
			rc = gf_io_wait(io, 1, -1);
			end = now_ms();
			pthread_join(th, NULL);
			print_message("wait returned %d %llu ms after the interrupt\n", rc,
				      (unsigned long long)(end - st.at_ms));
			assert_true(rc == -EINTR || rc == 1);
			assert_true(end - st.at_ms < 100);
			if (rc == -EINTR)
				assert_true(t_contains(gf_last_error(), "interrupted"));
			/* The request completes once, cancelled. */
			while (!req.done)
				assert_true(gf_io_poll(io) >= 0);
			assert_int_equal(req.res, -ECANCELED);
			assert_int_equal(gf_io_inflight(io), 0);
			/* Still interrupted: new work is refused. */
			assert_int_equal(gf_io_submit(io, &p, 1), -ECANCELED);
			assert_int_equal(gf_io_read(io, f, buf, 4096, 0), -ECANCELED);
		}
		/* Cleared: it works again (a short read still completes). */
		gf_io_interrupt_clear(io);
		gf_io_fault_clear();
		add_fault(GF_IO_READ, 0, 1000);
		assert_int_equal(gf_io_read(io, f, buf, 65536, 0), 65536);
		t_check(buf, 65536, 0, 6);
		add_fault(GF_IO_READ, 0, 1);

		/* A synchronous read, interrupted by a signal handler. */
		{
			struct sigaction sa = { .sa_handler = on_alarm }, old;
			struct itimerval it = { .it_value = { .tv_usec = 50000 } };
			uint64_t end;

			sig_io = io;
			sig_at_ms = 0;
			sigemptyset(&sa.sa_mask);
			assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
			assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
			assert_int_equal(gf_io_read(io, f, buf, size, 0), -ECANCELED);
			end = now_ms();
			sigaction(SIGALRM, &old, NULL);
			assert_true(sig_at_ms > 0);
			print_message("read ended %llu ms after the signal\n", (unsigned long long)(end - sig_at_ms));
			assert_true(end - sig_at_ms < 100);
			assert_int_equal(gf_io_inflight(io), 0);
		}
		gf_io_interrupt_clear(io);
		assert_int_equal(gf_file_close(f), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	gf_io_fault_clear();
	free(buf);
}
T_FS_TESTS(interrupt_wait);

/* The caller's cancel flag (bench's Ctrl-C flag) stops every engine that
 * was opened with it: here a checkpoint whose writes come back short. */
static void cancel_flag(struct t_fs *fs)
{
	const size_t size = 4 * MiB;
	uint8_t *buf = malloc(size);

	assert_non_null(buf);
	t_fill(buf, size, 0, 7);
	for (size_t i = 0; i < T_NBACKENDS; i++) {
		static volatile sig_atomic_t flag;
		struct gf_io_opts o = { .struct_size = sizeof(struct gf_io_opts),
			.backend = t_backends[i], .sqpoll_cpu = -1, .cpu_node = -1,
					.cancel = &flag };
		struct stopper st = { .flag = &flag, .delay_ms = 50 };
		struct gf_io *io;
		pthread_t th;
		uint64_t end;
		int rc;

		t_case(fs, t_backends[i], "cancel flag");
		flag = 0;
		rc = gf_io_open(&o, &io);
		if (rc == -EPERM || rc == -ENOSYS)
			continue;
		assert_int_equal(rc, 0);
		gf_io_fault_clear();
		add_fault(GF_IO_WRITE, 0, 1);
		assert_int_equal(pthread_create(&th, NULL, stop_later, &st), 0);
		rc = gf_io_write_file_atomic(io, t_path(fs, "c.bin"), buf, size, NULL);
		end = now_ms();
		pthread_join(th, NULL);
		print_message("checkpoint ended %llu ms after the flag was set\n",
			      (unsigned long long)(end - st.at_ms));
		assert_int_equal(rc, -ECANCELED);
		assert_true(end - st.at_ms < 100);
		/* Nothing left behind, no file under the final name. */
		assert_int_equal(t_count_names(fs->base, "c.bin"), 0);
		gf_io_fault_clear();
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(buf);
}
T_FS_TESTS(cancel_flag);

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_FS_CASES(retry_storm),
		T_FS_CASES(interrupt_wait),
		T_FS_CASES(cancel_flag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
