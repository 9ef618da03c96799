/* The step channel's writer (gf_step, the loader's hook) and reader
 * (stepchan.h says why the reader copies instead of mapping). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/env.h>
#include <gpufeed/step.h>
#include "core/error.h"
#include "core/stepchan.h"

_Static_assert(sizeof(_Atomic uint64_t) == 8 && sizeof(_Atomic int32_t) == 4, "the file's counters are 8 and 4 bytes");
_Static_assert(sizeof(struct gf_stepchan_page) == 88, "the channel's layout is ABI: append, never move");

enum { CHAN_UNKNOWN, CHAN_ON, CHAN_OFF };

/* This process's channel: state CHAN_UNKNOWN until the first marker. */
static _Atomic int chan_state;
static struct gf_stepchan_page *_Atomic chan_page;
static int chan_err;
static pthread_mutex_t chan_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int gf_stepchan_path(const char *dir, pid_t pid, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/" GF_STEPCHAN_PREFIX "%d" GF_STEPCHAN_SUFFIX, dir, (int)pid);

	if (n < 0 || (size_t)n >= size)
		return gf_error(-ENAMETOOLONG, "%s: the step channel's path is too long", dir);
	return 0;
}

/* A forked child (a DataLoader worker) has its parent's mapping: it must
 * not count its calls as the parent's, so it starts over with its own. */
static void forget_in_child(void)
{
	struct gf_stepchan_page *p = atomic_exchange(&chan_page, NULL);

	if (p)
		munmap(p, sizeof(*p));
	chan_err = 0;
	atomic_store(&chan_state, CHAN_UNKNOWN);
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, forget_in_child);
}

/* O_EXCL: a file left by an earlier process with this pid is replaced, never
 * written through (it may be another user's link). */
static int create(const char *dir, struct gf_stepchan_page **out)
{
	char path[4096];
	struct gf_stepchan_page *p;
	int fd, ret;

	if ((ret = gf_stepchan_path(dir, getpid(), path, sizeof(path))))
		return ret;
	if (unlink(path) && errno != ENOENT)
		return gf_error(-errno, "%s: cannot replace the step channel: %s", path, strerror(errno));
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return gf_error(-errno, "%s: cannot create the step channel (GPUFEED_DIAGNOSE): %s", path,
				strerror(errno));
	if (ftruncate(fd, sizeof(*p))) {
		ret = gf_error(-errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		ret = gf_error(-errno, "%s: mmap: %s", path, strerror(errno));
		goto out;
	}
	p->version = GF_STEPCHAN_VERSION;
	p->size = sizeof(*p);
	p->pid = getpid();
	p->created_ns = now_ns();
	/* the magic last: a reader never takes a half-written header */
	atomic_thread_fence(memory_order_release);
	memcpy(p->magic, GF_STEPCHAN_MAGIC, sizeof(p->magic));
	*out = p;
	ret = 0;
out:
	close(fd);
	if (ret)
		unlink(path);
	return ret;
}

/* The channel, opened on the first call: NULL when off or failed (*err). */
static struct gf_stepchan_page *channel(int *err)
{
	struct gf_stepchan_page *p = NULL;
	const char *dir;

	*err = 0;
	if (atomic_load_explicit(&chan_state, memory_order_acquire) == CHAN_ON)
		return atomic_load_explicit(&chan_page, memory_order_relaxed);
	if (atomic_load_explicit(&chan_state, memory_order_acquire) == CHAN_OFF) {
		*err = chan_err;
		return NULL;
	}
	pthread_once(&atfork_once, register_atfork);
	pthread_mutex_lock(&chan_mu);
	if (atomic_load(&chan_state) == CHAN_UNKNOWN) {
		dir = gf_env_str(GF_ENV_DIAGNOSE);
		chan_err = dir ? create(dir, &p) : 0;
		atomic_store(&chan_page, p);
		atomic_store_explicit(&chan_state, p ? CHAN_ON : CHAN_OFF, memory_order_release);
	}
	p = atomic_load(&chan_page);
	*err = chan_err;
	pthread_mutex_unlock(&chan_mu);
	return p;
}

static void store_max(_Atomic uint64_t *m, uint64_t v)
{
	uint64_t cur = atomic_load_explicit(m, memory_order_relaxed);

	while (v > cur && !atomic_compare_exchange_weak_explicit(m, &cur, v, memory_order_relaxed,
								 memory_order_relaxed))
		;
}

GF_API int gf_step(void)
{
	static _Thread_local int32_t tid;
	struct gf_stepchan_page *p;
	uint64_t t, prev;
	int err;

	if (!(p = channel(&err)))
		return err;
	if (!tid)
		tid = (int32_t)syscall(SYS_gettid);
	t = now_ns();
	atomic_store_explicit(&p->tid, tid, memory_order_relaxed);
	prev = atomic_exchange_explicit(&p->last_step_ns, t, memory_order_relaxed);
	if (prev && t > prev) {
		atomic_fetch_add_explicit(&p->step_sum_ns, t - prev, memory_order_relaxed);
		store_max(&p->step_max_ns, t - prev);
	}
	atomic_fetch_add_explicit(&p->steps, 1, memory_order_release);
	return 0;
}

GF_API int gf_step_input_wait(uint64_t wait_ns, uint64_t bytes)
{
	struct gf_stepchan_page *p;
	int err;

	if (!(p = channel(&err)))
		return err;
	atomic_fetch_add_explicit(&p->input_wait_ns, wait_ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->input_bytes, bytes, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->input_waits, 1, memory_order_release);
	return 0;
}

GF_API bool gf_step_enabled(void)
{
	int err;

	return channel(&err) != NULL;
}

void gf_stepchan_input(uint64_t wait_ns, uint64_t bytes)
{
	(void)gf_step_input_wait(wait_ns, bytes);
}

void gf_stepchan_reset(void)
{
	pthread_mutex_lock(&chan_mu);
	forget_in_child();
	pthread_mutex_unlock(&chan_mu);
}

static uint64_t u64_at(const unsigned char *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static int32_t i32_at(const unsigned char *b, size_t off)
{
	int32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* pread copies bytes, not 64-bit words: two equal copies in a row are a
 * snapshot no concurrent store tore. */
static int copy_stable(int fd, const char *name, unsigned char *buf, size_t size)
{
	unsigned char again[sizeof(struct gf_stepchan_page)];
	ssize_t n;

	for (int tries = 0; tries < 8; tries++) {
		if ((n = pread(fd, buf, size, 0)) < 0)
			return gf_error(-errno, "%s: %s", name, strerror(errno));
		if ((size_t)n < size)
			return gf_error(-EBADMSG, "%s: truncated step channel: %zd bytes of %zu", name, n, size);
		if (pread(fd, again, size, 0) == (ssize_t)size && !memcmp(buf, again, size))
			return 0;
	}
	return gf_error(-EAGAIN, "%s: the step channel changed under every read", name);
}

int gf_stepchan_read_fd(int fd, const char *name, struct gf_stepchan_counters *out)
{
	unsigned char b[sizeof(struct gf_stepchan_page)];
	struct stat st;
	uint32_t version, size;
	int ret;

	if (fstat(fd, &st))
		return gf_error(-errno, "%s: %s", name, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return gf_error(-EINVAL, "%s: not a regular file: not a step channel", name);
	if ((size_t)st.st_size < sizeof(b))
		return gf_error(-EBADMSG, "%s: truncated step channel: %lld bytes of %zu", name,
				(long long)st.st_size, sizeof(b));
	if ((ret = copy_stable(fd, name, b, sizeof(b))))
		return ret;
	if (memcmp(b, GF_STEPCHAN_MAGIC, 8))
		return gf_error(-EBADMSG, "%s: not a gpufeed step channel (no " GF_STEPCHAN_MAGIC " magic)", name);
	memcpy(&version, b + offsetof(struct gf_stepchan_page, version), 4);
	memcpy(&size, b + offsetof(struct gf_stepchan_page, size), 4);
	if (version != GF_STEPCHAN_VERSION)
		return gf_error(-EBADMSG, "%s: step channel version %u, this gpufeed reads version %u", name, version,
				GF_STEPCHAN_VERSION);
	if (size < sizeof(b) || size > (uint64_t)st.st_size)
		return gf_error(-EBADMSG, "%s: step channel header says %u bytes; the file has %lld and version %u "
				"has %zu", name, size, (long long)st.st_size, version, sizeof(b));
#define U64(f) u64_at(b, offsetof(struct gf_stepchan_page, f))
	*out = (struct gf_stepchan_counters){
		.pid = i32_at(b, offsetof(struct gf_stepchan_page, pid)),
		.tid = i32_at(b, offsetof(struct gf_stepchan_page, tid)),
		.created_ns = U64(created_ns),
		.steps = U64(steps),
		.last_step_ns = U64(last_step_ns),
		.step_sum_ns = U64(step_sum_ns),
		.step_max_ns = U64(step_max_ns),
		.input_waits = U64(input_waits),
		.input_wait_ns = U64(input_wait_ns),
		.input_bytes = U64(input_bytes),
	};
#undef U64
	if (out->pid <= 0)
		return gf_error(-EBADMSG, "%s: step channel names pid %d", name, (int)out->pid);
	return 0;
}

int gf_stepchan_read(const char *path, struct gf_stepchan_counters *out)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), ret;

	if (fd < 0)
		return gf_error(-errno, "%s: %s", path, strerror(errno));
	ret = gf_stepchan_read_fd(fd, path, out);
	close(fd);
	return ret;
}
