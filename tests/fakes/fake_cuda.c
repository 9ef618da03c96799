/* A stand-in libcuda.so.1 for tests: GPUs whose "device memory" is host
 * memory behind made-up device addresses, so copies really move bytes and a
 * test can check them, and a device pointer used as a host pointer crashes
 * (it is never a valid host address).  Streams run synchronously.
 *
 * Variations, read from the environment (test variables, not gpufeed's):
 *   FAKE_CUDA_DEVICES   number of GPUs, 1..8 (default 2)
 *   FAKE_CUDA_PCI       their PCI addresses in CUDA ordinal order, comma
 *                       separated (default: 0000:00:07.0,0000:00:06.0, ...,
 *                       i.e. not PCI order, like CUDA's FASTEST_FIRST)
 *   FAKE_CUDA_FAIL      SYMBOL[=CODE],...: those calls return CODE
 *                       (default 999, CUDA_ERROR_UNKNOWN) and do nothing
 *   FAKE_CUDA_SCENARIO  no_device (cuInit: CUDA_ERROR_NO_DEVICE), zero
 *                       (cuInit succeeds, no devices), stub (cuInit:
 *                       CUDA_ERROR_STUB_LIBRARY), no_names (cuGetErrorName
 *                       and cuGetErrorString know no code)
 *   FAKE_CUDA_NO_PEER   A-B,...: ordinals A and B cannot reach each other
 *                       (cuDeviceCanAccessPeer 0 both ways)
 *   FAKE_CUDA_HOST_LOG  a file: cuMemHostRegister appends "register ADDR
 *                       BYTES pages N node0=A ... absent=C" (where the
 *                       pages are when pinned), cuMemHostUnregister
 *                       "unregister ADDR", so a test can look at the very
 *                       pages the driver was asked to pin (tests/numa)
 *
 * Kernels: cuModuleLoadData takes a NUL-terminated PTX text;
 * cuModuleGetFunction finds ".entry NAME" in it; cuLaunchKernel runs
 * gf_copy, gf_chase and gf_spin on the host with the parameters a real
 * launch would get (the kernels in gpu/kernels/).
 *
 * fake-soname: libcuda.so.1 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vendor/cuda/cuda_api.h"

#define MAXDEV 8
#define MAXALLOC 256
#define VA_BASE 0x7e0000000000ULL	/* far from any mmap of this process */

struct gf_cu_ctx_st {
	int dev;
	int retained;
	int peer[MAXDEV];
};
struct gf_cu_stream_st { int event_records; };
struct gf_cu_event_st { double ms; int recorded; };
struct gf_cu_function_st { char name[64]; struct gf_cu_function_st *next; };
/* A module owns the functions looked up in it, as the driver's does: they
 * go when it is unloaded. */
struct gf_cu_module_st { char *image; struct gf_cu_function_st *functions; };

struct alloc {
	unsigned long long va;	/* 0: slot free */
	size_t size;
	int dev;		/* -1: host memory (cuMemHostAlloc / registered) */
	unsigned char *host;
	int registered;		/* cuMemHostRegister'ed user memory */
};

static struct gf_cu_ctx_st ctxs[MAXDEV];
static struct alloc allocs[MAXALLOC];
static unsigned long long next_va = VA_BASE;
static _Thread_local struct gf_cu_ctx_st *current;
static int initialised;

static const char *env(const char *name)
{
	const char *s = getenv(name);

	return s ? s : "";
}

static int ndevices(void)
{
	int n = atoi(env("FAKE_CUDA_DEVICES"));

	if (!strcmp(env("FAKE_CUDA_SCENARIO"), "zero"))
		return 0;
	return n < 1 ? 2 : n > MAXDEV ? MAXDEV : n;
}

/* FAKE_CUDA_FAIL=cuMemAlloc_v2=2,cuStreamCreate: the code for sym, or 0. */
static int injected(const char *sym)
{
	const char *p = env("FAKE_CUDA_FAIL");
	size_t len = strlen(sym);

	while (*p) {
		if (!strncmp(p, sym, len) && (p[len] == '\0' || p[len] == ',' || p[len] == '='))
			return p[len] == '=' ? atoi(p + len + 1) : GF_CUDA_ERROR_UNKNOWN;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return 0;
}

#define FAIL_IF_INJECTED(sym) do { int c_ = injected(sym); if (c_) return c_; } while (0)
#define NEED_INIT() do { if (!initialised) return GF_CUDA_ERROR_NOT_INITIALIZED; } while (0)
#define NEED_CTX() do { NEED_INIT(); if (!current) return GF_CUDA_ERROR_INVALID_CONTEXT; } while (0)

gf_cu_result cuInit(unsigned int flags)
{
	const char *s = env("FAKE_CUDA_SCENARIO");

	FAIL_IF_INJECTED("cuInit");
	if (flags)
		return GF_CUDA_ERROR_INVALID_VALUE;
	if (!strcmp(s, "no_device"))
		return GF_CUDA_ERROR_NO_DEVICE;
	if (!strcmp(s, "stub"))
		return GF_CUDA_ERROR_STUB_LIBRARY;
	initialised = 1;
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuDriverGetVersion(int *v)
{
	*v = 13000;
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuDeviceGetCount(int *n)
{
	NEED_INIT();
	FAIL_IF_INJECTED("cuDeviceGetCount");
	*n = ndevices();
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuDeviceGet(gf_cu_device *d, int ordinal)
{
	NEED_INIT();
	if (ordinal < 0 || ordinal >= ndevices())
		return GF_CUDA_ERROR_INVALID_DEVICE;
	*d = ordinal;
	return GF_CUDA_SUCCESS;
}

/* Device d's PCI bus number: from FAKE_CUDA_PCI, else 7, 6, 9, 8, ... */
static void pci_address(int d, char *out, size_t size)
{
	const char *p = env("FAKE_CUDA_PCI");

	for (int i = 0; *p && i < d; i++) {
		p = strchr(p, ',');
		p = p ? p + 1 : "";
	}
	if (*p) {
		size_t len = strcspn(p, ",");

		snprintf(out, size, "%.*s", (int)len, p);
	} else {
		snprintf(out, size, "0000:00:%02X.0", 6 + (d ^ 1));
	}
}

gf_cu_result cuDeviceGetPCIBusId(char *buf, int len, gf_cu_device d)
{
	NEED_INIT();
	FAIL_IF_INJECTED("cuDeviceGetPCIBusId");
	if (d < 0 || d >= ndevices())
		return GF_CUDA_ERROR_INVALID_DEVICE;
	pci_address(d, buf, (size_t)len);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuDeviceGetAttribute(int *v, int attrib, gf_cu_device d)
{
	char pci[32];
	unsigned dom = 0, bus = 0, dev = 0;

	NEED_INIT();
	if (d < 0 || d >= ndevices())
		return GF_CUDA_ERROR_INVALID_DEVICE;
	pci_address(d, pci, sizeof(pci));
	sscanf(pci, "%x:%x:%x", &dom, &bus, &dev);
	switch (attrib) {
	case GF_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
	case GF_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
	case GF_CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *v = 3; break;
	case GF_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
	case GF_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *v = 1; break;
	case GF_CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: *v = 1; break;
	case GF_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *v = (int)dom; break;
	case GF_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *v = (int)bus; break;
	case GF_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *v = (int)dev; break;
	default: return GF_CUDA_ERROR_INVALID_VALUE;
	}
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuDeviceGetName(char *buf, int len, gf_cu_device d)
{
	NEED_INIT();
	snprintf(buf, (size_t)len, "Fake H200 %d", d);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuDevicePrimaryCtxRetain(gf_cu_context *c, gf_cu_device d)
{
	NEED_INIT();
	FAIL_IF_INJECTED("cuDevicePrimaryCtxRetain");
	if (d < 0 || d >= ndevices())
		return GF_CUDA_ERROR_INVALID_DEVICE;
	ctxs[d].dev = d;
	ctxs[d].retained++;
	*c = &ctxs[d];
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuDevicePrimaryCtxRelease_v2(gf_cu_device d)
{
	NEED_INIT();
	if (d < 0 || d >= ndevices() || ctxs[d].retained <= 0)
		return GF_CUDA_ERROR_INVALID_CONTEXT;
	if (--ctxs[d].retained == 0 && current == &ctxs[d])
		current = NULL;
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuCtxSetCurrent(gf_cu_context c)
{
	NEED_INIT();
	if (c && c->retained <= 0)
		return GF_CUDA_ERROR_INVALID_CONTEXT;
	current = c;
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuCtxSynchronize(void)
{
	NEED_CTX();
	return GF_CUDA_SUCCESS;
}

/* ---- memory: every allocation has a made-up address range ---- */

static struct alloc *new_alloc(size_t size, int dev, unsigned char *host)
{
	for (int i = 0; i < MAXALLOC; i++) {
		if (allocs[i].va)
			continue;
		allocs[i] = (struct alloc){ next_va, size, dev, host, 0 };
		/* A guard gap, so an overrun is an unknown address, not the next buffer. */
		next_va += (size + 2 * 4096 - 1) / 4096 * 4096;
		return &allocs[i];
	}
	return NULL;
}

/* The host bytes behind [va, va + len) of one device allocation, or NULL. */
static unsigned char *device_bytes(gf_cu_deviceptr va, size_t len, int *dev)
{
	for (int i = 0; i < MAXALLOC; i++) {
		struct alloc *a = &allocs[i];

		if (a->va && a->dev >= 0 && va >= a->va && va - a->va <= a->size && len <= a->size - (va - a->va)) {
			if (dev)
				*dev = a->dev;
			return a->host + (va - a->va);
		}
	}
	return NULL;
}

static struct alloc *host_alloc_of(const void *p)
{
	for (int i = 0; i < MAXALLOC; i++)
		if (allocs[i].va && allocs[i].dev < 0 && allocs[i].host == p)
			return &allocs[i];
	return NULL;
}

gf_cu_result cuMemAlloc_v2(gf_cu_deviceptr *p, size_t size)
{
	struct alloc *a;
	unsigned char *host;

	NEED_CTX();
	FAIL_IF_INJECTED("cuMemAlloc_v2");
	if (!size)
		return GF_CUDA_ERROR_INVALID_VALUE;
	host = calloc(1, size);
	a = host ? new_alloc(size, current->dev, host) : NULL;
	if (!a) {
		free(host);
		return GF_CUDA_ERROR_OUT_OF_MEMORY;
	}
	*p = a->va;
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuMemFree_v2(gf_cu_deviceptr p)
{
	NEED_CTX();
	for (int i = 0; i < MAXALLOC; i++) {
		if (allocs[i].va == p && allocs[i].dev >= 0) {
			free(allocs[i].host);
			allocs[i].va = 0;
			return GF_CUDA_SUCCESS;
		}
	}
	return GF_CUDA_ERROR_INVALID_VALUE;
}

gf_cu_result cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
	NEED_CTX();
	*total_bytes = 141ULL << 30;
	*free_bytes = *total_bytes - (1ULL << 30);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuMemHostAlloc(void **pp, size_t size, unsigned int flags)
{
	void *p = NULL;

	NEED_CTX();
	FAIL_IF_INJECTED("cuMemHostAlloc");
	if (!size || flags & ~(unsigned)(GF_CU_MEMHOSTALLOC_PORTABLE | GF_CU_MEMHOSTALLOC_DEVICEMAP |
					  GF_CU_MEMHOSTALLOC_WRITECOMBINED))
		return GF_CUDA_ERROR_INVALID_VALUE;
	if (posix_memalign(&p, 4096, size) || !new_alloc(size, -1, p)) {
		free(p);
		return GF_CUDA_ERROR_OUT_OF_MEMORY;
	}
	*pp = p;
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuMemFreeHost(void *p)
{
	struct alloc *a = host_alloc_of(p);

	NEED_CTX();
	if (!a || a->registered)
		return GF_CUDA_ERROR_INVALID_VALUE;
	free(a->host);
	a->va = 0;
	return GF_CUDA_SUCCESS;
}

/* FAKE_CUDA_HOST_LOG: one line per (un)registration, appended; a
 * registration with the node of each of its pages when it is pinned, as the
 * kernel says (move_pages with no target nodes: a query), "node1=256". */
static void host_log(const char *what, const void *p, size_t size)
{
	FILE *f = *env("FAKE_CUDA_HOST_LOG") ? fopen(env("FAKE_CUDA_HOST_LOG"), "a") : NULL;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = size / pg, node[8] = { 0 }, absent = 0;
	void **pages = NULL;
	int *status = NULL;

	if (!f)
		return;
	if (!size) {
		fprintf(f, "%s %p\n", what, p);
		fclose(f);
		return;
	}
	pages = calloc(n ? n : 1, sizeof(*pages));
	status = calloc(n ? n : 1, sizeof(*status));
	for (size_t i = 0; pages && i < n; i++)
		pages[i] = (char *)(uintptr_t)p + i * pg;
	if (!pages || !status || syscall(SYS_move_pages, 0, (unsigned long)n, pages, NULL, status, 0))
		absent = n;
	else
		for (size_t i = 0; i < n; i++) {
			if (status[i] >= 0 && status[i] < 8)
				node[status[i]]++;
			else
				absent++;
		}
	fprintf(f, "%s %p %zu pages %zu", what, p, size, n);
	for (int k = 0; k < 8; k++)
		if (node[k])
			fprintf(f, " node%d=%zu", k, node[k]);
	fprintf(f, " absent=%zu\n", absent);
	fclose(f);
	free(pages);
	free(status);
}

gf_cu_result cuMemHostRegister_v2(void *p, size_t size, unsigned int flags)
{
	struct alloc *a;

	NEED_CTX();
	FAIL_IF_INJECTED("cuMemHostRegister_v2");
	if (!p || !size || flags & ~(unsigned)(GF_CU_MEMHOSTREGISTER_PORTABLE | GF_CU_MEMHOSTREGISTER_DEVICEMAP |
						GF_CU_MEMHOSTREGISTER_READ_ONLY))
		return GF_CUDA_ERROR_INVALID_VALUE;
	if (host_alloc_of(p))
		return GF_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
	a = new_alloc(size, -1, p);
	if (!a)
		return GF_CUDA_ERROR_OUT_OF_MEMORY;
	a->registered = 1;
	host_log("register", p, size);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuMemHostUnregister(void *p)
{
	struct alloc *a = host_alloc_of(p);

	NEED_CTX();
	if (!a || !a->registered)
		return GF_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
	a->va = 0;
	host_log("unregister", p, 0);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuMemcpyHtoDAsync_v2(gf_cu_deviceptr dst, const void *src, size_t n, gf_cu_stream s)
{
	unsigned char *d = device_bytes(dst, n, NULL);

	(void)s;
	NEED_CTX();
	FAIL_IF_INJECTED("cuMemcpyHtoDAsync_v2");
	if (!d || !src)
		return GF_CUDA_ERROR_INVALID_VALUE;
	memcpy(d, src, n);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuMemcpyDtoHAsync_v2(void *dst, gf_cu_deviceptr src, size_t n, gf_cu_stream s)
{
	unsigned char *p = device_bytes(src, n, NULL);

	(void)s;
	NEED_CTX();
	FAIL_IF_INJECTED("cuMemcpyDtoHAsync_v2");
	if (!p || !dst)
		return GF_CUDA_ERROR_INVALID_VALUE;
	memcpy(dst, p, n);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuMemcpyDtoDAsync_v2(gf_cu_deviceptr dst, gf_cu_deviceptr src, size_t n, gf_cu_stream s)
{
	unsigned char *d = device_bytes(dst, n, NULL), *p = device_bytes(src, n, NULL);

	(void)s;
	NEED_CTX();
	FAIL_IF_INJECTED("cuMemcpyDtoDAsync_v2");
	if (!d || !p)
		return GF_CUDA_ERROR_INVALID_VALUE;
	memmove(d, p, n);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuMemcpyPeerAsync(gf_cu_deviceptr dst, gf_cu_context dctx, gf_cu_deviceptr src,
			       gf_cu_context sctx, size_t n, gf_cu_stream s)
{
	int ddev = -1, sdev = -1;
	unsigned char *d = device_bytes(dst, n, &ddev), *p = device_bytes(src, n, &sdev);

	(void)s;
	NEED_CTX();
	FAIL_IF_INJECTED("cuMemcpyPeerAsync");
	/* Each pointer must belong to the context named with it. */
	if (!d || !p || !dctx || !sctx || ddev != dctx->dev || sdev != sctx->dev)
		return GF_CUDA_ERROR_INVALID_VALUE;
	memmove(d, p, n);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuMemsetD8Async(gf_cu_deviceptr dst, unsigned char v, size_t n, gf_cu_stream s)
{
	unsigned char *d = device_bytes(dst, n, NULL);

	(void)s;
	NEED_CTX();
	if (!d)
		return GF_CUDA_ERROR_INVALID_VALUE;
	memset(d, v, n);
	return GF_CUDA_SUCCESS;
}

/* ---- streams and events (synchronous: work is done when issued) ---- */

gf_cu_result cuStreamCreate(gf_cu_stream *s, unsigned int flags)
{
	NEED_CTX();
	FAIL_IF_INJECTED("cuStreamCreate");
	if (flags & ~(unsigned)GF_CU_STREAM_NON_BLOCKING)
		return GF_CUDA_ERROR_INVALID_VALUE;
	*s = calloc(1, sizeof(**s));
	return *s ? GF_CUDA_SUCCESS : GF_CUDA_ERROR_OUT_OF_MEMORY;
}

gf_cu_result cuStreamDestroy_v2(gf_cu_stream s)
{
	NEED_CTX();
	free(s);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuStreamSynchronize(gf_cu_stream s)
{
	(void)s;
	NEED_CTX();
	FAIL_IF_INJECTED("cuStreamSynchronize");
	return GF_CUDA_SUCCESS;
}

/* Streams run synchronously here, so every event a stream could wait on
 * has already happened; the call still checks its arguments as the driver
 * does (flags must be 0 or CU_EVENT_WAIT_EXTERNAL, which we never pass). */
gf_cu_result cuStreamWaitEvent(gf_cu_stream s, gf_cu_event e, unsigned int flags)
{
	(void)s;
	NEED_CTX();
	FAIL_IF_INJECTED("cuStreamWaitEvent");
	if (!e || flags)
		return GF_CUDA_ERROR_INVALID_VALUE;
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuStreamQuery(gf_cu_stream s)
{
	(void)s;
	NEED_CTX();
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuEventCreate(gf_cu_event *e, unsigned int flags)
{
	NEED_CTX();
	if (flags & ~(unsigned)(GF_CU_EVENT_BLOCKING_SYNC | GF_CU_EVENT_DISABLE_TIMING))
		return GF_CUDA_ERROR_INVALID_VALUE;
	*e = calloc(1, sizeof(**e));
	return *e ? GF_CUDA_SUCCESS : GF_CUDA_ERROR_OUT_OF_MEMORY;
}

/* cuEventRecord calls on CUDA's default streams (NULL, CU_STREAM_LEGACY,
 * CU_STREAM_PER_THREAD: handles 0, 1, 2, never dereferenced). */
static _Atomic int default_stream_records;

static int is_default_stream(gf_cu_stream s)
{
	return (uintptr_t)s <= 2;
}

gf_cu_result cuEventRecord(gf_cu_event e, gf_cu_stream s)
{
	struct timespec ts;

	NEED_CTX();
	FAIL_IF_INJECTED("cuEventRecord");
	if (is_default_stream(s))
		default_stream_records++;
	else
		__atomic_fetch_add(&s->event_records, 1, __ATOMIC_RELAXED);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
	e->recorded = 1;
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuEventSynchronize(gf_cu_event e)
{
	(void)e;
	NEED_CTX();
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuEventQuery(gf_cu_event e)
{
	NEED_CTX();
	return e->recorded ? GF_CUDA_SUCCESS : GF_CUDA_ERROR_NOT_READY;
}

gf_cu_result cuEventElapsedTime_v2(float *ms, gf_cu_event a, gf_cu_event b)
{
	NEED_CTX();
	if (!a->recorded || !b->recorded)
		return GF_CUDA_ERROR_INVALID_HANDLE;
	*ms = (float)(b->ms - a->ms);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuEventDestroy_v2(gf_cu_event e)
{
	NEED_CTX();
	free(e);
	return GF_CUDA_SUCCESS;
}

/* ---- peers ---- */

/* FAKE_CUDA_NO_PEER names the pair a-b (either order). */
static int no_peer(int a, int b)
{
	const char *p = env("FAKE_CUDA_NO_PEER");

	while (*p) {
		char *end;
		long x = strtol(p, &end, 10), y = *end == '-' ? strtol(end + 1, &end, 10) : -1;

		if ((x == a && y == b) || (x == b && y == a))
			return 1;
		p = strchr(end, ',');
		if (!p)
			break;
		p++;
	}
	return 0;
}

gf_cu_result cuDeviceCanAccessPeer(int *can, gf_cu_device d, gf_cu_device peer)
{
	NEED_INIT();
	if (d < 0 || d >= ndevices() || peer < 0 || peer >= ndevices())
		return GF_CUDA_ERROR_INVALID_DEVICE;
	*can = d != peer && !no_peer(d, peer);
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuCtxEnablePeerAccess(gf_cu_context peer, unsigned int flags)
{
	NEED_CTX();
	FAIL_IF_INJECTED("cuCtxEnablePeerAccess");
	if (flags || !peer || peer == current)
		return GF_CUDA_ERROR_INVALID_VALUE;
	if (current->peer[peer->dev])
		return GF_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
	current->peer[peer->dev] = 1;
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuDeviceGetP2PAttribute(int *v, int attrib, gf_cu_device a, gf_cu_device b)
{
	NEED_INIT();
	if (a == b)
		return GF_CUDA_ERROR_INVALID_DEVICE;
	*v = attrib == GF_CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED;
	return GF_CUDA_SUCCESS;
}

/* ---- modules and kernels ---- */

gf_cu_result cuModuleLoadData(gf_cu_module *m, const void *image)
{
	NEED_CTX();
	FAIL_IF_INJECTED("cuModuleLoadData");
	if (!image || !strstr(image, ".version") || !strstr(image, ".target"))
		return GF_CUDA_ERROR_INVALID_PTX;
	*m = calloc(1, sizeof(**m));
	if (!*m || !((*m)->image = strdup(image))) {
		free(*m);
		return GF_CUDA_ERROR_OUT_OF_MEMORY;
	}
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuModuleGetFunction(gf_cu_function *f, gf_cu_module m, const char *name)
{
	char entry[80];

	NEED_CTX();
	snprintf(entry, sizeof(entry), ".entry %s(", name);
	if (!m || !strstr(m->image, entry))
		return GF_CUDA_ERROR_NOT_FOUND;
	*f = calloc(1, sizeof(**f));
	if (!*f)
		return GF_CUDA_ERROR_OUT_OF_MEMORY;
	snprintf((*f)->name, sizeof((*f)->name), "%s", name);
	(*f)->next = m->functions;
	m->functions = *f;
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuModuleUnload(gf_cu_module m)
{
	NEED_CTX();
	if (!m)
		return GF_CUDA_ERROR_INVALID_HANDLE;
	while (m->functions) {
		struct gf_cu_function_st *next = m->functions->next;

		free(m->functions);
		m->functions = next;
	}
	free(m->image);
	free(m);
	return GF_CUDA_SUCCESS;
}

/* A kernel reaches another GPU's memory only once the current context has
 * peer access to it (cuCtxEnablePeerAccess), as on a real GPU. */
static int reachable(int dev)
{
	return dev == current->dev || current->peer[dev];
}

/* gf_copy(dst, src, bytes): what the grid-stride kernel does. */
static gf_cu_result run_copy(void **params)
{
	gf_cu_deviceptr dst = *(gf_cu_deviceptr *)params[0], src = *(gf_cu_deviceptr *)params[1];
	unsigned long long n = *(unsigned long long *)params[2];
	int ddev = -1, sdev = -1;
	unsigned char *d = device_bytes(dst, n, &ddev), *s = device_bytes(src, n, &sdev);

	if (!d || !s || dst % 16 || src % 16 || !reachable(ddev) || !reachable(sdev))
		return GF_CUDA_ERROR_ILLEGAL_ADDRESS;
	memmove(d, s, n);
	return GF_CUDA_SUCCESS;
}

/* gf_chase(start, steps, out): p = *p, steps times; *out = p. */
static gf_cu_result run_chase(void **params)
{
	gf_cu_deviceptr p = *(gf_cu_deviceptr *)params[0];
	unsigned long long steps = *(unsigned long long *)params[1];
	gf_cu_deviceptr out = *(gf_cu_deviceptr *)params[2];
	unsigned char *o = device_bytes(out, sizeof(p), NULL);

	for (unsigned long long i = 0; i < steps; i++) {
		int dev = -1;
		unsigned char *b = device_bytes(p, sizeof(p), &dev);

		if (!b || !reachable(dev))
			return GF_CUDA_ERROR_ILLEGAL_ADDRESS;
		memcpy(&p, b, sizeof(p));
	}
	if (!o)
		return GF_CUDA_ERROR_ILLEGAL_ADDRESS;
	memcpy(o, &p, sizeof(p));
	return GF_CUDA_SUCCESS;
}

gf_cu_result cuLaunchKernel(gf_cu_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			    unsigned by, unsigned bz, unsigned shared, gf_cu_stream s, void **params,
			    void **extra)
{
	(void)shared;
	(void)s;
	NEED_CTX();
	FAIL_IF_INJECTED("cuLaunchKernel");
	if (!f || !gx || !gy || !gz || !bx || !by || !bz || bx * by * bz > 1024 || extra)
		return GF_CUDA_ERROR_INVALID_VALUE;
	if (!strcmp(f->name, "gf_copy"))
		return run_copy(params);
	if (!strcmp(f->name, "gf_chase"))
		return run_chase(params);
	return GF_CUDA_SUCCESS;	/* gf_spin: time passes on the GPU only */
}

/* ---- error names ---- */

static const struct { int code; const char *name, *text; } errors[] = {
	{ GF_CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
	{ GF_CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ GF_CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ GF_CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	{ GF_CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library" },
	{ GF_CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
	{ GF_CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
	{ GF_CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
	{ GF_CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed" },
	{ GF_CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ GF_CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
	  "an illegal memory access was encountered" },
	{ GF_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
	  "peer access is already enabled" },
	{ GF_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
	  "part or all of the requested memory range is already mapped" },
	{ GF_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
	  "pointer does not correspond to a registered memory region" },
	{ GF_CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

static int error_index(gf_cu_result r)
{
	if (!strcmp(env("FAKE_CUDA_SCENARIO"), "no_names"))
		return -1;
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == r)
			return (int)i;
	return -1;
}

gf_cu_result cuGetErrorName(gf_cu_result r, const char **s)
{
	int i = error_index(r);

	*s = i < 0 ? NULL : errors[i].name;
	return i < 0 ? GF_CUDA_ERROR_INVALID_VALUE : GF_CUDA_SUCCESS;
}

gf_cu_result cuGetErrorString(gf_cu_result r, const char **s)
{
	int i = error_index(r);

	*s = i < 0 ? NULL : errors[i].text;
	return i < 0 ? GF_CUDA_ERROR_INVALID_VALUE : GF_CUDA_SUCCESS;
}

/* ---- for tests: what is still allocated (device memory, pinned and
 * registered host memory), so a test can assert that a failed call left
 * nothing behind (dlsym'd by tests/unit/test_xfer*.c) ---- */
int fake_cuda_live_allocs(void);
int fake_cuda_live_allocs(void)
{
	int n = 0;

	for (int i = 0; i < MAXALLOC; i++)
		n += allocs[i].va != 0;
	return n;
}

/* ---- for tests: how many events were recorded on stream s (a stream of
 * cuStreamCreate, or a default stream), so a test can see that the code
 * under test marked a point on the caller's stream ---- */
int fake_cuda_event_records(gf_cu_stream s);
int fake_cuda_event_records(gf_cu_stream s)
{
	return is_default_stream(s) ? default_stream_records : __atomic_load_n(&s->event_records, __ATOMIC_RELAXED);
}

/* ---- for the stand-in NCCL (tests/fakes/fake_nccl.c, which finds these
 * with dlsym): the host bytes behind [va, va + len) of one device
 * allocation (NULL: not device memory), and the device of this thread's
 * current context (-1: none), so its collectives move real bytes and its
 * communicators sit on the GPU the caller chose ---- */
void *fake_cuda_host_bytes(gf_cu_deviceptr va, size_t len);
void *fake_cuda_host_bytes(gf_cu_deviceptr va, size_t len)
{
	return device_bytes(va, len, NULL);
}

int fake_cuda_current_device(void);
int fake_cuda_current_device(void)
{
	return current ? current->dev : -1;
}
