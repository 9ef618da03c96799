/* The buffer allocator: anonymous memory, placed, aligned, maybe locked,
 * maybe pinned for the GPUs (pinned.c), freed by its last reference.
 *
 * mbind() and move_pages() are called through syscall(2) so the library
 * needs no libnuma: two calls do not earn a dependency. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/error.h"
#include "core/log.h"
#include "core/opts.h"
#include "mem/host.h"
#include "mem/mem.h"

#define MPOL_PREFERRED_ 1
#define MPOL_BIND_ 2
#define MPOL_MF_MOVE_ (1 << 1)
#define NODE_BITS 1024

/* The first release's struct gf_buf_opts ends with flags. */
#define BUF_OPTS_V1_SIZE (offsetof(struct gf_buf_opts, flags) + sizeof(((struct gf_buf_opts *)0)->flags))
/* Every GF_BUF_* flag: others are refused, so a bit a later release gives
 * a meaning is never silently ignored by this one. */
#define BUF_FLAGS (GF_BUF_LOCK | GF_BUF_LOCK_REQUIRED | GF_BUF_HUGE | GF_BUF_NODE_STRICT | GF_BUF_NO_THP | GF_BUF_PINNED)

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (size_t)p : 4096;
}

int gf_memlock_limit(uint64_t *soft, uint64_t *hard)
{
	struct rlimit r;

	if (!soft && !hard)
		return gf_arg_error(__func__, "soft and hard are both NULL");
	if (getrlimit(RLIMIT_MEMLOCK, &r))
		return gf_error(-errno, "getrlimit(RLIMIT_MEMLOCK): %s", strerror(errno));
	if (soft)
		*soft = r.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)r.rlim_cur;
	if (hard)
		*hard = r.rlim_max == RLIM_INFINITY ? UINT64_MAX : (uint64_t)r.rlim_max;
	return 0;
}


static int place(struct gf_buf *b, void *addr, size_t len, int node, unsigned flags)
{
	unsigned long mask[NODE_BITS / (8 * sizeof(unsigned long))];
	const size_t wbits = 8 * sizeof(unsigned long);
	int mode = (flags & GF_BUF_NODE_STRICT) ? MPOL_BIND_ : MPOL_PREFERRED_;

	if (node >= NODE_BITS) {
		/* Like any node the kernel does not have: a warning unless strict. */
		if (flags & GF_BUF_NODE_STRICT)
			return gf_error(-EINVAL, "NUMA node %d out of range", node);
		GF_WARN(GF_LOG_IO, "buffer of %zu bytes: not placed on NUMA node %d (out of range)", len, node);
		return 0;
	}
	memset(mask, 0, sizeof(mask));
	mask[(size_t)node / wbits] |= 1UL << ((size_t)node % wbits);
	if (syscall(SYS_mbind, addr, len, mode, mask, (unsigned long)NODE_BITS + 1, MPOL_MF_MOVE_)) {
		int err = errno;
		if (flags & GF_BUF_NODE_STRICT)
			return gf_error(-err, "mbind to NUMA node %d: %s", node, strerror(err));
		GF_WARN(GF_LOG_IO, "buffer of %zu bytes: not placed on NUMA node %d (mbind: %s)", len, node,
			strerror(err));
		return 0;
	}
	b->placed = true;
	return 0;
}

static void *map_anon(size_t len, unsigned flags, bool *huge)
{
	void *p = MAP_FAILED;

	*huge = false;
	if (flags & GF_BUF_HUGE) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p != MAP_FAILED)
			*huge = true;
	}
	if (p == MAP_FAILED)
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int gf_buf_alloc(const struct gf_buf_opts *opts, struct gf_buf **out)
{
	size_t pg = page_size(), align, size, map_size, map_align;
	bool thp;
	struct gf_buf_opts o = GF_BUF_OPTS_INIT;
	struct gf_buf_impl *bi;
	struct gf_buf *b;
	uintptr_t start;
	unsigned flags;
	int rc;

	if (!opts || !out)
		return GF_NULL_ARG(!opts ? "opts" : "out");
	*out = NULL;
	rc = gf_opts_check(opts->struct_size, BUF_OPTS_V1_SIZE, __func__, "GF_BUF_OPTS_INIT");
	if (rc)
		return rc;
	gf_opts_copy(&o, sizeof(o), opts, opts->struct_size);
	opts = &o;
	if (!opts->size)
		return gf_arg_error(__func__, "size must be > 0");
	align = opts->align ? opts->align : pg;
	if (align & (align - 1))
		return gf_arg_error(__func__, "align %zu is not a power of two", align);
	if (opts->numa_node < -1)
		return gf_arg_error(__func__, "numa_node %d: a node, or -1 for none", opts->numa_node);
	if (opts->flags & ~BUF_FLAGS)
		return gf_arg_error(__func__, "flags 0x%x: unknown bits 0x%x", opts->flags, opts->flags & ~BUF_FLAGS);
	if (align < pg)
		align = pg;
	flags = opts->flags;
	if (flags & GF_BUF_LOCK_REQUIRED)
		flags |= GF_BUF_LOCK;
	if (opts->size > SIZE_MAX - 2 * align)
		return gf_error(-ENOMEM, "buffer: %zu bytes is too large", opts->size);
	size = (opts->size + pg - 1) / pg * pg;
	if (flags & GF_BUF_HUGE)
		size = (size + (2u << 20) - 1) / (2u << 20) * (2u << 20);
	/* Large buffers start on a 2 MiB boundary and ask for transparent
	 * huge pages: a 1 MiB O_DIRECT request then spans one or two
	 * physically contiguous pieces instead of 256 pages, which matters
	 * where the device takes few segments per request (virtio-blk: 254,
	 * so a 1 MiB read of scattered 4 KiB pages is split in two). */
	thp = size >= (2u << 20) && !(flags & (GF_BUF_NO_THP | GF_BUF_HUGE));
	/* Over-map by the alignment and trim, so any power of two works. */
	map_align = thp && align < (2u << 20) ? (2u << 20) : align;
	map_size = size + (map_align > pg ? map_align : 0);
	/* hugetlb maps and unmaps whole huge pages only: munmap of a length
	 * that ends inside one fails, and the mapping would leak. */
	if (flags & GF_BUF_HUGE)
		map_size = (map_size + (2u << 20) - 1) / (2u << 20) * (2u << 20);

	bi = calloc(1, sizeof(*bi));
	if (!bi)
		return gf_error(-ENOMEM, "buffer: out of memory");
	b = &bi->pub;
	bi->uring_index = -1;
	atomic_init(&bi->refs, 1);
	b->numa_node = opts->numa_node;
	bi->map = map_anon(map_size, flags, &b->huge);
	if (!bi->map) {
		int err = errno;
		free(bi);
		return gf_error(-err, "buffer: mmap of %zu bytes: %s", map_size, strerror(err));
	}
	if ((flags & GF_BUF_HUGE) && !b->huge) {
		GF_WARN(GF_LOG_IO, "buffer of %zu bytes: no hugetlb pages (%s); asked for transparent huge pages",
			size, strerror(ENOMEM));
		madvise(bi->map, map_size, MADV_HUGEPAGE);
	}
	if (thp)
		madvise(bi->map, map_size, MADV_HUGEPAGE);	/* a hint: nothing said if refused */
	bi->map_size = map_size;
	start = ((uintptr_t)bi->map + map_align - 1) & ~(uintptr_t)(map_align - 1);
	b->data = (void *)start;
	b->size = size;
	b->align = align;

	if (opts->numa_node >= 0) {
		rc = place(b, b->data, size, opts->numa_node, flags);
		if (rc) {
			gf_buf_free(b);
			return rc;
		}
	}
	if (flags & GF_BUF_LOCK) {
		uint64_t soft = 0;
		gf_memlock_limit(&soft, NULL);
		/* mlock faults every page in, on the node mbind chose. */
		if (mlock(b->data, size) == 0) {
			b->locked = true;
		} else {
			int err = errno;
			if (flags & GF_BUF_LOCK_REQUIRED) {
				gf_buf_free(b);
				return gf_error(-err, "buffer: mlock of %zu bytes: %s (RLIMIT_MEMLOCK %llu bytes; "
						"raise it with ulimit -l or LimitMEMLOCK=)", size, strerror(err),
						(unsigned long long)soft);
			}
			GF_WARN(GF_LOG_IO, "buffer of %zu bytes: not locked (mlock: %s; RLIMIT_MEMLOCK %llu bytes)",
				size, strerror(err), (unsigned long long)soft);
		}
	}
	if (!b->locked) {
		/* Touch every page now, on the chosen node, so the first I/O does
		 * not pay for the faults and the placement is real. */
		for (size_t off = 0; off < size; off += pg)
			((volatile char *)b->data)[off] = 0;
	}
	if ((flags & GF_BUF_PINNED) && (rc = gf_mem_pin_own(b, opts->gpu))) {
		gf_buf_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

void gf_buf__hold(struct gf_buf *b)
{
	atomic_fetch_add(&gf_buf__impl(b)->refs, 1);
}

void gf_buf__release(struct gf_buf *b)
{
	struct gf_buf_impl *bi = gf_buf__impl(b);

	if (atomic_fetch_sub(&bi->refs, 1) != 1)
		return;
	gf_mem_unpin(b);
	if (bi->map)
		munmap(bi->map, bi->map_size);
	free(bi);
}

void gf_buf_free(struct gf_buf *b)
{
	if (b)
		gf_buf__release(b);
}

int gf_mem_node_of(const void *addr)
{
	void *pages[1];
	int status[1] = { -1 };
	uintptr_t pg = page_size();

	if (!addr)
		return GF_NULL_ARG("addr");
	pages[0] = (void *)((uintptr_t)addr & ~(pg - 1));
	if (syscall(SYS_move_pages, 0, 1UL, pages, NULL, status, 0))
		return gf_error(-errno, "move_pages: %s", strerror(errno));
	return status[0];
}
