/* A stand-in libnccl.so.2 for tests: communicators whose collectives move
 * real bytes between the ranks' buffers, so a data check can pass or fail,
 * in one process (ncclCommInitAll, or one thread driving every rank in a
 * group) or across processes.
 *
 * Ranks meet through files in a directory (FAKE_NCCL_DIR, else /dev/shm,
 * else TMPDIR, else /tmp) named from the unique id's bytes: a world file
 * (mapped shared: who arrived, an abort flag) and, for every collective,
 * one file per rank holding what it contributed, made under a temporary
 * name and renamed into place, so it appears whole.  A collective completes
 * on a rank when every rank's file of that sequence number is there; the
 * last reader removes each file.  ncclSend writes its file and is done
 * (eager); ncclRecv completes when the matching file is there.
 *
 * Device pointers are the stand-in CUDA's (tests/fakes/fake_cuda.c): read
 * and written through its fake_cuda_host_bytes(), found in the library
 * GPUFEED_CUDA_LIBRARY names (else libcuda.so.1) if it is loaded; without
 * it, buffers are host memory.  A communicator's device is the current
 * context's (fake_cuda_current_device), else 0.
 *
 * Calls outside a group are groups of one.  Blocking communicators (the
 * default) wait at ncclGroupEnd for their operations.  Non-blocking ones
 * (ncclCommInitRankConfig with config->blocking = 0) return ncclInProgress
 * when an operation cannot complete yet; ncclCommGetAsyncError moves it on
 * and says ncclInProgress until it completes, then ncclSuccess.  Calls on
 * one communicator come from one thread at a time, as NCCL asks.
 *
 * Variations, read from the environment (test variables, not gpufeed's):
 *   FAKE_NCCL_VERSION    ncclGetVersion's number (default 22809, 2.28.9),
 *                        so two ranks can differ
 *   FAKE_NCCL_FAIL       SYMBOL[=CODE],...: those calls return CODE (default
 *                        2, ncclSystemError) and do nothing; ncclGetLastError
 *                        then names the symbol
 *   FAKE_NCCL_HANG       RANK: that rank's collectives and sends/receives
 *                        never complete (its peers' neither): a non-blocking
 *                        communicator's async error stays ncclInProgress; a
 *                        blocking call waits until ncclCommAbort from another
 *                        thread, so only non-blocking tests should use it
 *   FAKE_NCCL_CORRUPT    RANK (empty: 0): every collective result that rank
 *                        receives has one wrong element (its last, a high
 *                        bit flipped)
 *   FAKE_NCCL_NO_CONFIG  set: no ncclCommInitRankConfig, as an NCCL older
 *                        than 2.14 (dlsym finds nothing: an IFUNC whose
 *                        resolver reads the variable)
 *   FAKE_NCCL_DIR        where the rendezvous files go
 *   FAKE_NCCL_NO_RESET_DEBUG  set: no ncclResetDebugInit, as an NCCL older
 *                        than 2.24 (an IFUNC, as FAKE_NCCL_NO_CONFIG)
 *
 * NCCL's own log, as NCCL keeps it (src/debug.cc): NCCL_DEBUG,
 * NCCL_DEBUG_SUBSYS and NCCL_DEBUG_FILE (%h, %p, %%) read at the first log
 * call and again after ncclResetDebugInit.  With INFO and the TUNING
 * subsystem (or ALL), rank 0 logs each collective's choice in NCCL 2.28's
 * words (src/enqueue.cc):
 *     host:pid:tid [dev] NCCL INFO AllReduce: 8388608 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..1}
 * The choice is the stand-in's: the first name of NCCL_ALGO and NCCL_PROTO
 * where set (as NCCL's forced choice), else RING, and LL below 64 KiB,
 * LL128 below 2 MiB, SIMPLE above; NCCL_MAX_NCHANNELS channels where set,
 * else 1 below 1 MiB and 2 above.  Sends and receives log nothing, as in
 * NCCL.
 * ncclCommAbort marks the world aborted: the other ranks' pending and
 * later operations fail with ncclRemoteError, as a dead peer's do.
 *
 * fake-soname: libnccl.so.2 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vendor/nccl/nccl_api.h"

#define MAXRANKS 64
#define MAXTOUCHED 64

enum kind { OP_COLL, OP_SEND, OP_RECV };
enum coll { C_ALL_REDUCE, C_ALL_GATHER, C_REDUCE_SCATTER, C_BROADCAST, C_REDUCE };

/* Shared by every rank of one unique id (mapped from the world file). */
struct world {
	int nranks;
	int arrived;
	int members;		/* communicators not yet destroyed */
	int aborted;
	int present[MAXRANKS];
};

/* One pending operation of this process (the bytes it sent are already in
 * its file; what it waits for is the others'). */
struct op {
	enum kind kind;
	enum coll coll;
	unsigned long long seq;
	void *recv;
	size_t count;
	gf_nccl_datatype type;
	gf_nccl_redop redop;
	int root, peer;
	struct op *next;
};

struct gf_nccl_comm_st {
	int rank, nranks, dev, blocking, hung, aborted, busy;
	gf_nccl_result error;		/* sticky: the first failure */
	char base[400];			/* "<dir>/fake-nccl-<id hex>" */
	struct world *w;
	unsigned long long seq;		/* collectives posted */
	unsigned long long sent[MAXRANKS], received[MAXRANKS];
	struct op *pending, **tail;
};

/* The header of a contribution file: its readers count themselves. */
struct contrib {
	size_t bytes;
	int readers;
};

static _Thread_local int group_depth;
static _Thread_local gf_nccl_comm touched[MAXTOUCHED];
static _Thread_local int ntouched;
static char last_error[256];

static const char *env(const char *name)
{
	const char *s = getenv(name);

	return s ? s : "";
}

static gf_nccl_result fail(gf_nccl_result r, const char *fmt, const char *what)
{
	snprintf(last_error, sizeof(last_error), fmt, what);
	return r;
}

/* FAKE_NCCL_FAIL=ncclAllReduce=5,ncclCommInitRank: the code for sym, or 0. */
static int injected(const char *sym)
{
	const char *p = env("FAKE_NCCL_FAIL");
	size_t len = strlen(sym);

	while (*p) {
		if (!strncmp(p, sym, len) && (p[len] == '\0' || p[len] == ',' || p[len] == '='))
			return p[len] == '=' ? atoi(p + len + 1) : GF_NCCL_SYSTEM_ERROR;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return 0;
}

#define FAIL_IF_INJECTED(sym) do { int c_ = injected(sym); \
	if (c_) return fail(c_, "%s failed (FAKE_NCCL_FAIL)", sym); } while (0)

static int rank_knob(const char *name)
{
	const char *s = getenv(name);

	return !s ? -1 : *s ? atoi(s) : 0;
}

/* ---- the stand-in CUDA's memory ---- */

typedef void *(*host_bytes_fn)(unsigned long long va, size_t len);
typedef int (*current_device_fn)(void);

static void *cuda_sym(const char *name)
{
	const char *lib = getenv("GPUFEED_CUDA_LIBRARY");
	void *h = dlopen(lib && *lib ? lib : "libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *p = h ? dlsym(h, name) : NULL;

	if (h)
		dlclose(h);	/* NOLOAD took a reference; the loader keeps its own */
	return p;
}

/* The bytes behind a buffer pointer, or NULL when it is none. */
static unsigned char *bytes_of(const void *ptr, size_t len)
{
	host_bytes_fn f;
	void *p = cuda_sym("fake_cuda_host_bytes");

	if (!len)
		return (unsigned char *)"";
	if (!p)
		return (unsigned char *)ptr;
	memcpy(&f, &p, sizeof(f));
	return f((unsigned long long)(uintptr_t)ptr, len);
}

static int current_device(void)
{
	current_device_fn f;
	void *p = cuda_sym("fake_cuda_current_device");
	int d;

	if (!p)
		return 0;
	memcpy(&f, &p, sizeof(f));
	d = f();
	return d < 0 ? 0 : d;
}

/* ---- data types and reductions ---- */

static size_t type_size(gf_nccl_datatype t)
{
	switch (t) {
	case GF_NCCL_INT8: case GF_NCCL_UINT8: case GF_NCCL_FLOAT8E4M3: case GF_NCCL_FLOAT8E5M2: return 1;
	case GF_NCCL_FLOAT16: case GF_NCCL_BFLOAT16: return 2;
	case GF_NCCL_INT32: case GF_NCCL_UINT32: case GF_NCCL_FLOAT32: return 4;
	case GF_NCCL_INT64: case GF_NCCL_UINT64: case GF_NCCL_FLOAT64: return 8;
	default: return 0;
	}
}

static float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
	float f;

	if (exp == 0x1f)
		bits = sign | 0x7f800000 | (man << 13);
	else if (exp)
		bits = sign | ((exp + 112) << 23) | (man << 13);
	else if (!man)
		bits = sign;
	else {
		f = (float)man / 16777216.0f;	/* man * 2^-24 */
		return sign ? -f : f;
	}
	memcpy(&f, &bits, sizeof(f));
	return f;
}

static uint16_t float_to_half(float f)
{
	uint32_t bits, sign, man;
	int exp;

	memcpy(&bits, &f, sizeof(bits));
	sign = (bits >> 16) & 0x8000;
	exp = (int)((bits >> 23) & 0xff) - 127 + 15;
	man = bits & 0x7fffff;
	if (((bits >> 23) & 0xff) == 0xff)
		return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
	if (exp >= 0x1f)
		return (uint16_t)(sign | 0x7c00);
	if (exp <= 0) {
		if (exp < -10)
			return (uint16_t)sign;
		man |= 0x800000;
		uint32_t shift = (uint32_t)(14 - exp), half = man >> shift, rest = man & ((1u << shift) - 1);
		uint32_t mid = 1u << (shift - 1);

		if (rest > mid || (rest == mid && (half & 1)))
			half++;
		return (uint16_t)(sign | half);
	}
	uint32_t h = sign | ((uint32_t)exp << 10) | (man >> 13), rest = man & 0x1fff;

	if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
		h++;	/* a carry into the exponent is still the right rounding */
	return (uint16_t)h;
}

static double load_f(gf_nccl_datatype t, const unsigned char *p, size_t i)
{
	float f;
	double d;
	uint16_t h;
	uint32_t bits;

	switch (t) {
	case GF_NCCL_FLOAT16:
		memcpy(&h, p + 2 * i, 2);
		return half_to_float(h);
	case GF_NCCL_BFLOAT16:
		memcpy(&h, p + 2 * i, 2);
		bits = (uint32_t)h << 16;
		memcpy(&f, &bits, 4);
		return f;
	case GF_NCCL_FLOAT32:
		memcpy(&f, p + 4 * i, 4);
		return f;
	default:
		memcpy(&d, p + 8 * i, 8);
		return d;
	}
}

static void store_f(gf_nccl_datatype t, unsigned char *p, size_t i, double v)
{
	float f = (float)v;
	uint16_t h;
	uint32_t bits;

	switch (t) {
	case GF_NCCL_FLOAT16:
		h = float_to_half(f);
		memcpy(p + 2 * i, &h, 2);
		break;
	case GF_NCCL_BFLOAT16:
		memcpy(&bits, &f, 4);
		bits += 0x7fff + ((bits >> 16) & 1);	/* round to nearest even */
		h = (uint16_t)(bits >> 16);
		memcpy(p + 2 * i, &h, 2);
		break;
	case GF_NCCL_FLOAT32:
		memcpy(p + 4 * i, &f, 4);
		break;
	default:
		memcpy(p + 8 * i, &v, 8);
		break;
	}
}

static int is_float(gf_nccl_datatype t)
{
	return t == GF_NCCL_FLOAT16 || t == GF_NCCL_BFLOAT16 || t == GF_NCCL_FLOAT32 || t == GF_NCCL_FLOAT64;
}

static int is_signed(gf_nccl_datatype t)
{
	return t == GF_NCCL_INT8 || t == GF_NCCL_INT32 || t == GF_NCCL_INT64;
}

/* Integers as 64-bit two's complement: sign-extended when signed. */
static unsigned long long load_i(gf_nccl_datatype t, const unsigned char *p, size_t i)
{
	size_t n = type_size(t);
	unsigned long long v = 0;

	memcpy(&v, p + n * i, n);	/* little-endian */
	if (is_signed(t) && n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~0ULL << (8 * n);
	return v;
}

static void store_i(gf_nccl_datatype t, unsigned char *p, size_t i, unsigned long long v)
{
	memcpy(p + type_size(t) * i, &v, type_size(t));
}

static double fold_f(gf_nccl_redop op, double a, double b)
{
	switch (op) {
	case GF_NCCL_PROD: return a * b;
	case GF_NCCL_MAX: return a > b ? a : b;
	case GF_NCCL_MIN: return a < b ? a : b;
	default: return a + b;
	}
}

static unsigned long long fold_i(gf_nccl_datatype t, gf_nccl_redop op, unsigned long long a, unsigned long long b)
{
	int sgn = is_signed(t);
	int less = sgn ? (long long)a < (long long)b : a < b;

	switch (op) {
	case GF_NCCL_PROD: return a * b;
	case GF_NCCL_MAX: return less ? b : a;
	case GF_NCCL_MIN: return less ? a : b;
	default: return a + b;
	}
}

/* out[i] = op over the ranks of in[r][first + i]. */
static void reduce_into(unsigned char *out, unsigned char *const *in, int nranks, size_t first, size_t count,
			gf_nccl_datatype t, gf_nccl_redop op)
{
	for (size_t i = 0; i < count; i++) {
		if (is_float(t)) {
			double acc = load_f(t, in[0], first + i);

			for (int r = 1; r < nranks; r++)
				acc = fold_f(op, acc, load_f(t, in[r], first + i));
			store_f(t, out, i, op == GF_NCCL_AVG ? acc / nranks : acc);
		} else {
			unsigned long long acc = load_i(t, in[0], first + i);

			for (int r = 1; r < nranks; r++)
				acc = fold_i(t, op, acc, load_i(t, in[r], first + i));
			if (op == GF_NCCL_AVG)
				acc = is_signed(t) ? (unsigned long long)((long long)acc / nranks) : acc / (unsigned)nranks;
			store_i(t, out, i, acc);
		}
	}
}

/* ---- rendezvous files ---- */

static const char *rendezvous_dir(void)
{
	const char *d = getenv("FAKE_NCCL_DIR");
	struct stat st;

	if (d && *d)
		return d;
	if (!stat("/dev/shm", &st) && S_ISDIR(st.st_mode) && !access("/dev/shm", W_OK))
		return "/dev/shm";
	d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

/* Writes [hdr][bytes] to `name`, whole or not at all. */
static int post_file(const char *name, const void *bytes, size_t len)
{
	char tmp[512];
	struct contrib c = { len, 0 };
	int fd, ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp%ld", name, (long)syscall(SYS_gettid));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	ok = write(fd, &c, sizeof(c)) == (ssize_t)sizeof(c) && (!len || write(fd, bytes, len) == (ssize_t)len);
	close(fd);
	if (!ok || rename(tmp, name)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The contribution in `name` mapped read-write (for its reader count), or
 * NULL when it is not there yet. */
static struct contrib *map_file(const char *name, size_t *maplen)
{
	int fd = open(name, O_RDWR);
	struct stat st;
	void *p;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(struct contrib)) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*maplen = (size_t)st.st_size;
	return p;
}

/* One reader done with `name`: the last of `readers` removes it. */
static void done_with(const char *name, struct contrib *c, size_t maplen, int readers)
{
	if (__atomic_add_fetch(&c->readers, 1, __ATOMIC_ACQ_REL) == readers)
		unlink(name);
	munmap(c, maplen);
}

static void coll_name(const gf_nccl_comm c, unsigned long long seq, int rank, char *buf, size_t size)
{
	snprintf(buf, size, "%s-c%llu-r%d", c->base, seq, rank);
}

static void p2p_name(const gf_nccl_comm c, int from, int to, unsigned long long n, char *buf, size_t size)
{
	snprintf(buf, size, "%s-p%d-%d-%llu", c->base, from, to, n);
}

/* ---- operations ---- */

static void corrupt(const gf_nccl_comm c, unsigned char *out, size_t count, gf_nccl_datatype t)
{
	size_t n = type_size(t);

	if (count && rank_knob("FAKE_NCCL_CORRUPT") == c->rank)
		out[(count - 1) * n + n - 1] ^= 0x40;
}

/* What `rank` contributes to collective `o`, in bytes. */
static size_t contributed(const gf_nccl_comm c, const struct op *o, int rank)
{
	size_t n = type_size(o->type) * o->count;

	switch (o->coll) {
	case C_REDUCE_SCATTER: return n * (size_t)c->nranks;
	case C_BROADCAST: return rank == o->root ? n : 0;
	default: return n;
	}
}

/* The result of collective `o` from every rank's contribution. */
static gf_nccl_result finish_coll(gf_nccl_comm c, struct op *o, unsigned char *const *in)
{
	size_t esz = type_size(o->type), n = esz * o->count, outlen = n;
	unsigned char *out;

	if (o->coll == C_ALL_GATHER)
		outlen = n * (size_t)c->nranks;
	if (o->coll == C_REDUCE && c->rank != o->root)
		return GF_NCCL_SUCCESS;
	out = bytes_of(o->recv, outlen);
	if (!out)
		return fail(GF_NCCL_INVALID_ARGUMENT, "%s: receive buffer is not device memory", "fake NCCL");
	switch (o->coll) {
	case C_ALL_REDUCE:
	case C_REDUCE:
		reduce_into(out, in, c->nranks, 0, o->count, o->type, o->redop);
		break;
	case C_REDUCE_SCATTER:
		reduce_into(out, in, c->nranks, (size_t)c->rank * o->count, o->count, o->type, o->redop);
		break;
	case C_ALL_GATHER:
		for (int r = 0; r < c->nranks; r++)
			memcpy(out + (size_t)r * n, in[r], n);
		break;
	case C_BROADCAST:
		memcpy(out, in[o->root], n);
		break;
	}
	corrupt(c, out, outlen / (esz ? esz : 1), o->type);
	return GF_NCCL_SUCCESS;
}

/* 1: done (or failed: c->error), 0: still waiting for a peer. */
static int try_coll(gf_nccl_comm c, struct op *o)
{
	struct contrib *files[MAXRANKS] = { 0 };
	unsigned char *in[MAXRANKS];
	size_t lens[MAXRANKS];
	char name[512];
	gf_nccl_result r;
	int r_i;

	for (r_i = 0; r_i < c->nranks; r_i++) {
		coll_name(c, o->seq, r_i, name, sizeof(name));
		files[r_i] = map_file(name, &lens[r_i]);
		if (!files[r_i])
			break;
		in[r_i] = (unsigned char *)(files[r_i] + 1);
		if (files[r_i]->bytes != contributed(c, o, r_i) && !c->error)
			c->error = fail(GF_NCCL_INVALID_USAGE, "%s: the ranks' counts or roots differ", "fake NCCL");
	}
	if (r_i < c->nranks) {
		for (int k = 0; k < r_i; k++)
			munmap(files[k], lens[k]);
		return 0;
	}
	r = c->error ? c->error : finish_coll(c, o, in);
	if (r && !c->error)
		c->error = r;
	for (r_i = 0; r_i < c->nranks; r_i++) {
		coll_name(c, o->seq, r_i, name, sizeof(name));
		done_with(name, files[r_i], lens[r_i], c->nranks);
	}
	return 1;
}

static int try_recv(gf_nccl_comm c, struct op *o)
{
	char name[512];
	size_t len, n = type_size(o->type) * o->count;
	struct contrib *f;
	unsigned char *out;

	p2p_name(c, o->peer, c->rank, o->seq, name, sizeof(name));
	f = map_file(name, &len);
	if (!f)
		return 0;
	out = bytes_of(o->recv, n);
	if (!out || f->bytes != n) {
		if (!c->error)
			c->error = fail(out ? GF_NCCL_INVALID_USAGE : GF_NCCL_INVALID_ARGUMENT,
					"%s: ncclRecv's size differs from ncclSend's, or its buffer is not device memory",
					"fake NCCL");
	} else
		memcpy(out, f + 1, n);
	done_with(name, f, len, 1);
	return 1;
}

/* Moves c's pending operations on; 1 when none is left. */
static int progress(gf_nccl_comm c)
{
	struct op **pp = &c->pending;

	while (*pp) {
		struct op *o = *pp;
		int done = !c->hung && (o->kind == OP_RECV ? try_recv(c, o) : try_coll(c, o));

		if (!done && c->w && __atomic_load_n(&c->w->aborted, __ATOMIC_ACQUIRE)) {
			if (!c->error)
				c->error = fail(GF_NCCL_REMOTE_ERROR, "%s: a peer aborted its communicator", "fake NCCL");
			done = 1;
		}
		if (done) {
			*pp = o->next;
			free(o);
		} else
			pp = &o->next;
	}
	c->tail = pp;
	return !c->pending;
}

static void touch(gf_nccl_comm c)
{
	for (int i = 0; i < ntouched; i++)
		if (touched[i] == c)
			return;
	if (ntouched < MAXTOUCHED)
		touched[ntouched++] = c;
}

static int ready(gf_nccl_comm c)
{
	return c->w && __atomic_load_n(&c->w->arrived, __ATOMIC_ACQUIRE) == c->nranks;
}

static void nap(void)
{
	struct timespec ts = { 0, 100000 };

	nanosleep(&ts, NULL);
}

/* The end of a group (or of a call outside one) for one communicator. */
static gf_nccl_result settle(gf_nccl_comm c, int wait)
{
	for (;;) {
		int done = ready(c) && progress(c);

		if (c->error)
			return c->error;
		if (done)
			return GF_NCCL_SUCCESS;
		if (c->w && __atomic_load_n(&c->w->aborted, __ATOMIC_ACQUIRE) && !ready(c))
			return c->error = fail(GF_NCCL_REMOTE_ERROR, "%s: a peer aborted during init", "fake NCCL");
		if (!wait)
			return GF_NCCL_IN_PROGRESS;
		if (__atomic_load_n(&c->aborted, __ATOMIC_ACQUIRE))
			return fail(GF_NCCL_SYSTEM_ERROR, "%s: communicator aborted while waiting", "fake NCCL");
		nap();
	}
}

/* A call on c in progress, which an ncclCommAbort from another thread
 * (the way out of a hang) waits for before freeing c:
 * `enter(c); return leave(c, body(c));`. */
static void enter(gf_nccl_comm c)
{
	if (c)
		__atomic_add_fetch(&c->busy, 1, __ATOMIC_ACQ_REL);
}

static gf_nccl_result leave(gf_nccl_comm c, gf_nccl_result r)
{
	if (c)
		__atomic_sub_fetch(&c->busy, 1, __ATOMIC_ACQ_REL);
	return r;
}

static gf_nccl_result end_of_call(gf_nccl_comm c)
{
	gf_nccl_result r;

	touch(c);
	if (group_depth)
		return GF_NCCL_SUCCESS;
	r = settle(c, c->blocking);
	ntouched = 0;
	return r;
}

static gf_nccl_result enqueue(gf_nccl_comm c, struct op o)
{
	struct op *p = malloc(sizeof(*p));

	if (!p)
		return fail(GF_NCCL_SYSTEM_ERROR, "%s: out of memory", "fake NCCL");
	*p = o;
	p->next = NULL;
	*c->tail = p;
	c->tail = &p->next;
	return GF_NCCL_SUCCESS;
}

/* ---- NCCL's log ---- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int log_level = -1;		/* -1: read the environment at the next call */
static int log_tuning;
static FILE *log_file;
static char log_path[4096];		/* NCCL_DEBUG_FILE expanded; "" for stdout */

static void log_init(void)
{
	const char *lvl = env("NCCL_DEBUG"), *sub = getenv("NCCL_DEBUG_SUBSYS"), *fn = env("NCCL_DEBUG_FILE");
	char path[4096], host[256] = "?";
	size_t n = 0;

	log_level = !strcasecmp(lvl, "INFO") || !strcasecmp(lvl, "TRACE");
	log_tuning = 0;
	if (sub) {
		int invert = *sub == '^';
		char list[512];

		snprintf(list, sizeof(list), "%s", sub + invert);
		for (char *save = NULL, *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save))
			if (!strcasecmp(w, "TUNING") || !strcasecmp(w, "ALL"))
				log_tuning = 1;
		log_tuning ^= invert;
	}
	log_file = stdout;
	log_path[0] = '\0';
	if (log_level <= 0 || !*fn)
		return;
	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, ".")] = '\0';
	for (const char *p = fn; *p && n + 64 < sizeof(path); p++) {
		if (*p != '%' || !p[1]) {
			path[n++] = *p;
			continue;
		}
		p++;
		if (*p == 'h')
			n += (size_t)snprintf(path + n, sizeof(path) - n, "%.40s", host);
		else if (*p == 'p')
			n += (size_t)snprintf(path + n, sizeof(path) - n, "%d", (int)getpid());
		else if (*p == '%')
			path[n++] = '%';
		else {
			path[n++] = '%';
			path[n++] = *p;
		}
	}
	path[n] = '\0';
	snprintf(log_path, sizeof(log_path), "%s", path);
}

/* NCCL opens its file at its first log call; the stand-in at its first
 * line, so a run that logs nothing leaves no file (nccl check's "NCCL wrote
 * no log" case). */
static FILE *log_out(void)
{
	FILE *f;

	if (log_file == stdout && log_path[0] && (f = fopen(log_path, "w"))) {
		setlinebuf(f);
		log_file = f;
	}
	return log_file;
}

/* ncclResetDebugInit: NCCL_DEBUG* read again at the next log call. */
static void reset_debug_init(void)
{
	pthread_mutex_lock(&log_lock);
	if (log_file && log_file != stdout)
		fclose(log_file);
	log_file = NULL;
	log_level = -1;
	pthread_mutex_unlock(&log_lock);
}

typedef void (*reset_debug_fn)(void);
void ncclResetDebugInit(void) __attribute__((ifunc("resolve_reset_debug")));
__attribute__((used)) static reset_debug_fn resolve_reset_debug(void);
__attribute__((used)) static reset_debug_fn resolve_reset_debug(void)
{
	return getenv("FAKE_NCCL_NO_RESET_DEBUG") ? NULL : reset_debug_init;
}

/* The first name of a list NCCL takes ("Ring,Tree", not "^Ring"),
 * upper-cased, or def. */
static void forced(const char *var, const char *def, char *buf, size_t size)
{
	const char *v = env(var);
	size_t i;

	if (!*v || *v == '^')
		v = def;
	for (i = 0; v[i] && v[i] != ',' && i + 1 < size; i++)
		buf[i] = (char)(v[i] >= 'a' && v[i] <= 'z' ? v[i] - 'a' + 'A' : v[i]);
	buf[i] = '\0';
}

static void log_choice(gf_nccl_comm c, enum coll coll, size_t count, gf_nccl_datatype t)
{
	static const char *const func[] = { "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce" };
	unsigned long long bytes = (unsigned long long)count * type_size(t);
	char algo[32], proto[32], host[256] = "?";
	int ch = rank_knob("NCCL_MAX_NCHANNELS");

	if (c->rank != 0)
		return;
	pthread_mutex_lock(&log_lock);
	if (log_level < 0)
		log_init();
	if (log_level > 0 && log_tuning) {
		forced("NCCL_ALGO", "RING", algo, sizeof(algo));
		forced("NCCL_PROTO", bytes < 65536 ? "LL" : bytes < (2u << 20) ? "LL128" : "SIMPLE", proto,
		       sizeof(proto));
		if (ch <= 0)
			ch = bytes < (1u << 20) ? 1 : 2;
		gethostname(host, sizeof(host) - 1);
		host[strcspn(host, ".")] = '\0';
		fprintf(log_out(), "%s:%d:%d [%d] NCCL INFO %s: %llu Bytes -> Algo %s proto %s channel{Lo..Hi}={0..%d}\n",
			host, (int)getpid(), (int)syscall(SYS_gettid), c->dev, func[coll], bytes, algo, proto, ch - 1);
	}
	pthread_mutex_unlock(&log_lock);
}

static gf_nccl_result collective(const char *sym, enum coll coll, const void *send, void *recv, size_t count,
				 gf_nccl_datatype t, gf_nccl_redop op, int root, gf_nccl_comm c)
{
	struct op o = { OP_COLL, coll, 0, recv, count, t, op, root, -1, NULL };
	char name[512];
	const unsigned char *in;
	size_t n;
	int r;

	FAIL_IF_INJECTED(sym);
	if (!c || c->aborted)
		return fail(GF_NCCL_INVALID_ARGUMENT, "%s: no communicator, or an aborted one", sym);
	if (!type_size(t) || op < GF_NCCL_SUM || op > GF_NCCL_AVG || root < 0 || root >= c->nranks ||
	    ((coll == C_ALL_REDUCE || coll == C_REDUCE || coll == C_REDUCE_SCATTER) && t >= GF_NCCL_FLOAT8E4M3))
		return fail(GF_NCCL_INVALID_ARGUMENT, "%s: bad datatype, operation or root", sym);
	if (c->error)
		return c->error;
	o.seq = c->seq++;
	log_choice(c, coll, count, t);
	if (!c->hung) {
		n = contributed(c, &o, c->rank);
		in = bytes_of(send, n);
		if (!in)
			return fail(GF_NCCL_INVALID_ARGUMENT, "%s: send buffer is not device memory", sym);
		coll_name(c, o.seq, c->rank, name, sizeof(name));
		if (post_file(name, in, n))
			return fail(GF_NCCL_SYSTEM_ERROR, "%s: cannot write its rendezvous file", sym);
	}
	r = enqueue(c, o);
	return r ? r : end_of_call(c);
}

/* ---- the API ---- */

gf_nccl_result ncclGetVersion(int *version)
{
	const char *v = getenv("FAKE_NCCL_VERSION");

	FAIL_IF_INJECTED("ncclGetVersion");
	*version = v && *v ? atoi(v) : 22809;
	return GF_NCCL_SUCCESS;
}

gf_nccl_result ncclGetUniqueId(struct gf_nccl_unique_id *id)
{
	static unsigned counter;
	struct timespec ts;
	unsigned long long seed[4];
	int fd;

	FAIL_IF_INJECTED("ncclGetUniqueId");
	memset(id, 0, sizeof(*id));
	clock_gettime(CLOCK_REALTIME, &ts);
	seed[0] = (unsigned long long)getpid();
	seed[1] = (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
	seed[2] = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
	seed[3] = 0;
	fd = open("/dev/urandom", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, &seed[3], sizeof(seed[3])) < 0)
			seed[3] = 0;
		close(fd);
	}
	memcpy(id->internal, seed, sizeof(seed));
	return GF_NCCL_SUCCESS;
}

static gf_nccl_result join(gf_nccl_comm *out, int nranks, const struct gf_nccl_unique_id *id, int rank, int dev,
			   int blocking)
{
	gf_nccl_comm c;
	char hex[65], name[512];
	const unsigned char *b = (const unsigned char *)id->internal;
	int fd, expect = 0;
	void *p;

	if (!out || nranks < 1 || nranks > MAXRANKS || rank < 0 || rank >= nranks)
		return fail(GF_NCCL_INVALID_ARGUMENT, "%s: bad nranks or rank", "ncclCommInitRank");
	c = calloc(1, sizeof(*c));
	if (!c)
		return fail(GF_NCCL_SYSTEM_ERROR, "%s: out of memory", "ncclCommInitRank");
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	snprintf(c->base, sizeof(c->base), "%s/fake-nccl-%s", rendezvous_dir(), hex);
	snprintf(name, sizeof(name), "%s-world", c->base);
	fd = open(name, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, sizeof(struct world))) {
		if (fd >= 0)
			close(fd);
		free(c);
		return fail(GF_NCCL_SYSTEM_ERROR, "%s: cannot create the rendezvous file", "ncclCommInitRank");
	}
	p = mmap(NULL, sizeof(struct world), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		free(c);
		return fail(GF_NCCL_SYSTEM_ERROR, "%s: cannot map the rendezvous file", "ncclCommInitRank");
	}
	c->w = p;
	if (!__atomic_compare_exchange_n(&c->w->nranks, &expect, nranks, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
	    expect != nranks) {
		munmap(p, sizeof(struct world));
		free(c);
		return fail(GF_NCCL_INVALID_ARGUMENT, "%s: nranks differs from the other ranks'", "ncclCommInitRank");
	}
	expect = 0;
	if (!__atomic_compare_exchange_n(&c->w->present[rank], &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		munmap(p, sizeof(struct world));
		free(c);
		return fail(GF_NCCL_INVALID_USAGE, "%s: two ranks with one number", "ncclCommInitRank");
	}
	__atomic_add_fetch(&c->w->members, 1, __ATOMIC_ACQ_REL);
	__atomic_add_fetch(&c->w->arrived, 1, __ATOMIC_ACQ_REL);
	c->rank = rank;
	c->nranks = nranks;
	c->dev = dev;
	c->blocking = blocking;
	c->hung = rank_knob("FAKE_NCCL_HANG") == rank;
	c->tail = &c->pending;
	*out = c;
	return GF_NCCL_SUCCESS;
}

gf_nccl_result ncclCommInitRank(gf_nccl_comm *comm, int nranks, struct gf_nccl_unique_id id, int rank)
{
	gf_nccl_result r;

	FAIL_IF_INJECTED("ncclCommInitRank");
	r = join(comm, nranks, &id, rank, current_device(), 1);
	return r ? r : end_of_call(*comm);
}

static gf_nccl_result init_rank_config(gf_nccl_comm *comm, int nranks, struct gf_nccl_unique_id id, int rank,
				       struct gf_nccl_config *config)
{
	int blocking = 1;
	gf_nccl_result r;

	FAIL_IF_INJECTED("ncclCommInitRankConfig");
	if (config) {
		if (config->magic != GF_NCCL_CONFIG_MAGIC || config->size < sizeof(size_t) + 3 * sizeof(int))
			return fail(GF_NCCL_INVALID_ARGUMENT, "%s: config not initialized", "ncclCommInitRankConfig");
		if (config->blocking != GF_NCCL_CONFIG_UNDEF_INT)
			blocking = config->blocking != 0;
	}
	r = join(comm, nranks, &id, rank, current_device(), blocking);
	return r ? r : end_of_call(*comm);
}

/* An IFUNC, so that FAKE_NCCL_NO_CONFIG can make the symbol absent to
 * dlsym, as in an NCCL before 2.14. */
typedef gf_nccl_result (*init_config_fn)(gf_nccl_comm *, int, struct gf_nccl_unique_id, int, struct gf_nccl_config *);
gf_nccl_result ncclCommInitRankConfig(gf_nccl_comm *comm, int nranks, struct gf_nccl_unique_id id, int rank,
				      struct gf_nccl_config *config) __attribute__((ifunc("resolve_init_config")));
__attribute__((used)) static init_config_fn resolve_init_config(void);
__attribute__((used)) static init_config_fn resolve_init_config(void)
{
	return getenv("FAKE_NCCL_NO_CONFIG") ? NULL : init_rank_config;
}

gf_nccl_result ncclCommInitAll(gf_nccl_comm *comms, int ndev, const int *devlist)
{
	struct gf_nccl_unique_id id;
	gf_nccl_result r;

	FAIL_IF_INJECTED("ncclCommInitAll");
	if (!comms || ndev < 1)
		return fail(GF_NCCL_INVALID_ARGUMENT, "%s: bad ndev", "ncclCommInitAll");
	ncclGetUniqueId(&id);
	for (int i = 0; i < ndev; i++) {
		r = join(&comms[i], ndev, &id, i, devlist ? devlist[i] : i, 1);
		if (r)
			return r;
	}
	return GF_NCCL_SUCCESS;
}

gf_nccl_result ncclCommGetAsyncError(gf_nccl_comm comm, gf_nccl_result *async_error)
{
	FAIL_IF_INJECTED("ncclCommGetAsyncError");
	if (!comm || !async_error)
		return fail(GF_NCCL_INVALID_ARGUMENT, "%s: NULL argument", "ncclCommGetAsyncError");
	*async_error = comm->aborted ? GF_NCCL_SUCCESS : settle(comm, 0);
	return GF_NCCL_SUCCESS;
}

static void release(gf_nccl_comm c)
{
	while (c->pending) {
		struct op *o = c->pending;

		c->pending = o->next;
		free(o);
	}
	/* The last member removes the world and what aborted ranks left. */
	if (c->w && !__atomic_sub_fetch(&c->w->members, 1, __ATOMIC_ACQ_REL)) {
		char pattern[512];
		glob_t g;

		snprintf(pattern, sizeof(pattern), "%s-*", c->base);
		if (!glob(pattern, GLOB_NOSORT, NULL, &g)) {
			for (size_t i = 0; i < g.gl_pathc; i++)
				unlink(g.gl_pathv[i]);
			globfree(&g);
		}
	}
	if (c->w)
		munmap(c->w, sizeof(struct world));
	free(c);
}

gf_nccl_result ncclCommFinalize(gf_nccl_comm comm)
{
	FAIL_IF_INJECTED("ncclCommFinalize");
	if (!comm)
		return fail(GF_NCCL_INVALID_ARGUMENT, "%s: NULL communicator", "ncclCommFinalize");
	enter(comm);
	return leave(comm, settle(comm, comm->blocking));
}

gf_nccl_result ncclCommDestroy(gf_nccl_comm comm)
{
	FAIL_IF_INJECTED("ncclCommDestroy");
	if (comm)
		release(comm);
	return GF_NCCL_SUCCESS;
}

gf_nccl_result ncclCommAbort(gf_nccl_comm comm)
{
	FAIL_IF_INJECTED("ncclCommAbort");
	if (!comm)
		return GF_NCCL_SUCCESS;
	__atomic_store_n(&comm->aborted, 1, __ATOMIC_RELEASE);
	if (comm->w)
		__atomic_store_n(&comm->w->aborted, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&comm->busy, __ATOMIC_ACQUIRE))
		nap();
	release(comm);
	return GF_NCCL_SUCCESS;
}

gf_nccl_result ncclCommCount(gf_nccl_comm comm, int *count)
{
	FAIL_IF_INJECTED("ncclCommCount");
	if (!comm || !count)
		return GF_NCCL_INVALID_ARGUMENT;
	*count = comm->nranks;
	return GF_NCCL_SUCCESS;
}

gf_nccl_result ncclCommCuDevice(gf_nccl_comm comm, int *device)
{
	FAIL_IF_INJECTED("ncclCommCuDevice");
	if (!comm || !device)
		return GF_NCCL_INVALID_ARGUMENT;
	*device = comm->dev;
	return GF_NCCL_SUCCESS;
}

gf_nccl_result ncclCommUserRank(gf_nccl_comm comm, int *rank)
{
	FAIL_IF_INJECTED("ncclCommUserRank");
	if (!comm || !rank)
		return GF_NCCL_INVALID_ARGUMENT;
	*rank = comm->rank;
	return GF_NCCL_SUCCESS;
}

const char *ncclGetErrorString(gf_nccl_result r)
{
	switch (r) {
	case GF_NCCL_SUCCESS: return "no error";
	case GF_NCCL_UNHANDLED_CUDA_ERROR: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
	case GF_NCCL_SYSTEM_ERROR: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
	case GF_NCCL_INTERNAL_ERROR: return "internal error - please report this issue to the NCCL developers";
	case GF_NCCL_INVALID_ARGUMENT: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
	case GF_NCCL_INVALID_USAGE: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
	case GF_NCCL_REMOTE_ERROR: return "remote process exited or there was a network error";
	case GF_NCCL_IN_PROGRESS: return "NCCL operation in progress";
	default: return "unknown result code";
	}
}

const char *ncclGetLastError(gf_nccl_comm comm)
{
	(void)comm;
	return last_error;
}

gf_nccl_result ncclGroupStart(void)
{
	FAIL_IF_INJECTED("ncclGroupStart");
	if (!group_depth++)
		ntouched = 0;
	return GF_NCCL_SUCCESS;
}

gf_nccl_result ncclGroupEnd(void)
{
	gf_nccl_result r;

	FAIL_IF_INJECTED("ncclGroupEnd");
	if (!group_depth)
		return fail(GF_NCCL_INVALID_USAGE, "%s: no ncclGroupStart", "ncclGroupEnd");
	if (--group_depth)
		return GF_NCCL_SUCCESS;
	/* The ranks of one process in one group finish together: move every
	 * communicator on in turn until all are done (blocking ones) or none
	 * can move (non-blocking ones: ncclInProgress). */
	for (;;) {
		int blocked = 0, unfinished = 0;

		r = GF_NCCL_SUCCESS;
		for (int i = 0; i < ntouched; i++) {
			gf_nccl_result st = settle(touched[i], 0);

			if (st == GF_NCCL_IN_PROGRESS) {
				unfinished = 1;
				blocked |= touched[i]->blocking;
			} else if (st && !r)
				r = st;
		}
		if (r)
			break;
		if (!blocked) {
			r = unfinished ? GF_NCCL_IN_PROGRESS : GF_NCCL_SUCCESS;
			break;
		}
		nap();
	}
	ntouched = 0;
	return r;
}

gf_nccl_result ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, gf_nccl_datatype t,
			     gf_nccl_redop op, gf_nccl_comm comm, gf_cu_stream stream)
{
	(void)stream;
	enter(comm);
	return leave(comm, collective("ncclAllReduce", C_ALL_REDUCE, sendbuff, recvbuff, count, t, op, 0, comm));
}

gf_nccl_result ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, gf_nccl_datatype t,
			     gf_nccl_comm comm, gf_cu_stream stream)
{
	(void)stream;
	enter(comm);
	return leave(comm, collective("ncclAllGather", C_ALL_GATHER, sendbuff, recvbuff, sendcount, t, GF_NCCL_SUM, 0, comm));
}

gf_nccl_result ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, gf_nccl_datatype t,
				 gf_nccl_redop op, gf_nccl_comm comm, gf_cu_stream stream)
{
	(void)stream;
	enter(comm);
	return leave(comm, collective("ncclReduceScatter", C_REDUCE_SCATTER, sendbuff, recvbuff, recvcount, t, op, 0, comm));
}

gf_nccl_result ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, gf_nccl_datatype t, int root,
			     gf_nccl_comm comm, gf_cu_stream stream)
{
	(void)stream;
	enter(comm);
	return leave(comm, collective("ncclBroadcast", C_BROADCAST, sendbuff, recvbuff, count, t, GF_NCCL_SUM, root, comm));
}

gf_nccl_result ncclReduce(const void *sendbuff, void *recvbuff, size_t count, gf_nccl_datatype t,
			  gf_nccl_redop op, int root, gf_nccl_comm comm, gf_cu_stream stream)
{
	(void)stream;
	enter(comm);
	return leave(comm, collective("ncclReduce", C_REDUCE, sendbuff, recvbuff, count, t, op, root, comm));
}

static gf_nccl_result p2p_check(const char *sym, gf_nccl_comm c, gf_nccl_datatype t, int peer)
{
	if (!c || c->aborted)
		return fail(GF_NCCL_INVALID_ARGUMENT, "%s: no communicator, or an aborted one", sym);
	if (!type_size(t) || peer < 0 || peer >= c->nranks)
		return fail(GF_NCCL_INVALID_ARGUMENT, "%s: bad datatype or peer", sym);
	return c->error;
}

static gf_nccl_result send_body(const void *sendbuff, size_t count, gf_nccl_datatype t, int peer,
				gf_nccl_comm comm)
{
	const unsigned char *in;
	char name[512];
	size_t n;
	gf_nccl_result r;

	FAIL_IF_INJECTED("ncclSend");
	r = p2p_check("ncclSend", comm, t, peer);
	if (r)
		return r;
	if (comm->hung) {
		struct op o = { OP_SEND, C_ALL_REDUCE, 0, NULL, count, t, GF_NCCL_SUM, 0, peer, NULL };

		r = enqueue(comm, o);
		return r ? r : end_of_call(comm);
	}
	n = type_size(t) * count;
	in = bytes_of(sendbuff, n);
	if (!in)
		return fail(GF_NCCL_INVALID_ARGUMENT, "%s: send buffer is not device memory", "ncclSend");
	p2p_name(comm, comm->rank, peer, comm->sent[peer]++, name, sizeof(name));
	if (post_file(name, in, n))
		return fail(GF_NCCL_SYSTEM_ERROR, "%s: cannot write its rendezvous file", "ncclSend");
	return end_of_call(comm);
}

static gf_nccl_result recv_body(void *recvbuff, size_t count, gf_nccl_datatype t, int peer, gf_nccl_comm comm)
{
	struct op o = { OP_RECV, C_ALL_REDUCE, 0, recvbuff, count, t, GF_NCCL_SUM, 0, peer, NULL };
	gf_nccl_result r;

	FAIL_IF_INJECTED("ncclRecv");
	r = p2p_check("ncclRecv", comm, t, peer);
	if (r)
		return r;
	o.seq = comm->received[peer]++;
	r = enqueue(comm, o);
	return r ? r : end_of_call(comm);
}

gf_nccl_result ncclSend(const void *sendbuff, size_t count, gf_nccl_datatype t, int peer, gf_nccl_comm comm,
			gf_cu_stream stream)
{
	(void)stream;
	enter(comm);
	return leave(comm, send_body(sendbuff, count, t, peer, comm));
}

gf_nccl_result ncclRecv(void *recvbuff, size_t count, gf_nccl_datatype t, int peer, gf_nccl_comm comm,
			gf_cu_stream stream)
{
	(void)stream;
	enter(comm);
	return leave(comm, recv_body(recvbuff, count, t, peer, comm));
}
