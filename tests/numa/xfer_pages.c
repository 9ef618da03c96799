/* xfer_pages: a guest helper for tests/numa/xfer-staging.
 *
 *   xfer_pages PCI [--cpu N] [--node N] [--depth D] [--chunk BYTES]
 *
 * Opens a bounce-path gf_xfer on the GPU at PCI (the stand-in libcuda,
 * GPUFEED_CUDA_LIBRARY, with FAKE_CUDA_PCI naming guest PCI functions and
 * FAKE_CUDA_HOST_LOG set), moves depth x 2 chunks through the staging pool
 * to the GPU and back, and prints where the staging pages are.  The ranges
 * come from the driver's side (every cuMemHostRegister the stand-in logged
 * and that is still registered), not from the library, and the node of each
 * of their pages from the kernel (move_pages with no target nodes: a query).
 *
 * --cpu runs it on one CPU first, so a buffer the library failed to place
 * would land by first touch on that CPU's node; a control buffer mapped and
 * touched here shows where that is.  --node sets gf_xfer_opts.numa_node.
 *
 * Lines: "claim numa_node N" (gf_xfer_numa_node: what the library says),
 * "staging ADDR BYTES pages P node0 A node1 B absent C" per range,
 * "numa_maps ..." for each, "staging-total ranges R pages P node0 A node1 B
 * absent C", "control pages P node0 A node1 B absent C", "bytes ok".
 * Exit 0, or 1 with the reason on stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include <gpufeed/xfer.h>

#define MAX_RANGES 16
#define MAX_NODES 2	/* the guest's; any other answer counts as absent */

struct range {
	uintptr_t addr;
	size_t size;
};

struct count {
	size_t pages, node[MAX_NODES], absent;
};

/* Counts the node of every page of [base, base + len) into c. */
static int page_nodes(uintptr_t base, size_t len, struct count *c)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = len / pg;
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status));
	int rc = 0;

	if (!pages || !status) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		pages[i] = (void *)(base + i * pg);
	if (syscall(SYS_move_pages, 0, (unsigned long)n, pages, NULL, status, 0) != 0) {
		fprintf(stderr, "move_pages: %s\n", strerror(errno));
		rc = -1;
		goto out;
	}
	c->pages += n;
	for (size_t i = 0; i < n; i++) {
		if (status[i] >= 0 && status[i] < MAX_NODES)
			c->node[status[i]]++;
		else
			c->absent++;	/* -ENOENT: never touched; or a node we do not know */
	}
out:
	free(pages);
	free(status);
	return rc;
}

static void print_count(const char *what, const struct count *c)
{
	printf("%s pages %zu node0 %zu node1 %zu absent %zu\n", what, c->pages, c->node[0], c->node[1], c->absent);
}

/* The numa_maps line of the mapping that starts at addr (mbind splits the
 * buffer's own range into a mapping of its own). */
static void print_numa_maps(uintptr_t addr)
{
	char want[32], line[1024];
	FILE *f = fopen("/proc/self/numa_maps", "r");

	if (!f)
		return;
	snprintf(want, sizeof(want), "%lx ", (unsigned long)addr);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			printf("numa_maps %s", line);
	fclose(f);
}

/* The ranges the stand-in driver holds registered, from its log. */
static int registered(const char *log, struct range *r, int max)
{
	char line[256], what[32];
	FILE *f = fopen(log, "r");
	int n = 0;

	if (!f) {
		fprintf(stderr, "%s: %s\n", log, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		void *p = NULL;
		size_t size = 0;

		if (sscanf(line, "%31s %p %zu", what, &p, &size) < 2)
			continue;
		if (!strcmp(what, "register") && n < max) {
			r[n++] = (struct range){ (uintptr_t)p, size };
		} else if (!strcmp(what, "unregister")) {
			for (int i = 0; i < n; i++)
				if (r[i].addr == (uintptr_t)p)
					r[i--] = r[--n];
		}
	}
	fclose(f);
	return n;
}

static int fail(const char *what)
{
	fprintf(stderr, "xfer_pages: %s: %s\n", what, gf_last_error());
	return 1;
}

int main(int argc, char **argv)
{
	struct gf_xfer_opts o = GF_XFER_OPTS_INIT;
	struct range r[MAX_RANGES];
	struct count all = { 0 }, control = { 0 };
	const char *log = getenv("FAKE_CUDA_HOST_LOG");
	struct gf_xfer *x;
	unsigned char *src, *back, *ctl;
	size_t len, ctl_len = 4u << 20;
	uint64_t dev;
	int cpu = -1, n;

	o.gpu = -1;
	o.path = GF_XFER_BOUNCE;
	o.chunk = 1u << 20;
	o.depth = 3;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--node") && i + 1 < argc)
			o.numa_node = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
			o.depth = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
			o.chunk = (size_t)atol(argv[++i]);
		else if (argv[i][0] != '-' && !o.pci)
			o.pci = argv[i];
		else {
			fprintf(stderr, "usage: xfer_pages PCI [--cpu N] [--node N] [--depth D] [--chunk BYTES]\n");
			return 2;
		}
	}
	if (!o.pci || !log || !*log) {
		fprintf(stderr, "xfer_pages: a PCI address and FAKE_CUDA_HOST_LOG are needed\n");
		return 2;
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("sched_setaffinity");
			return 1;
		}
	}
	printf("cpu %d\n", sched_getcpu());
	if (gf_xfer_open(&o, &x))
		return fail("gf_xfer_open");
	printf("pci %s\nclaim numa_node %d\n", gf_xfer_gpu_pci(x), gf_xfer_numa_node(x));

	/* The pool in use: bytes through every buffer, there and back. */
	len = 2 * o.depth * o.chunk;
	src = malloc(len);
	back = malloc(len);
	if (!src || !back)
		return 1;
	for (size_t i = 0; i < len; i++)
		src[i] = (unsigned char)(i * 131 + (i >> 20));
	if (gf_xfer_dev_alloc(x, len, &dev) || gf_xfer_copy_to_gpu(x, src, len, dev) ||
	    gf_xfer_copy_from_gpu(x, dev, back, len))
		return fail("through the pool");
	if (memcmp(src, back, len)) {
		fprintf(stderr, "xfer_pages: the bytes back from the GPU differ\n");
		return 1;
	}
	printf("bytes ok %zu\n", len);

	n = registered(log, r, MAX_RANGES);
	if (n < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		struct count c = { 0 };
		char what[64];

		if (page_nodes(r[i].addr, r[i].size, &c))
			return 1;
		snprintf(what, sizeof(what), "staging %#lx %zu", (unsigned long)r[i].addr, r[i].size);
		print_count(what, &c);
		print_numa_maps(r[i].addr);
		all.pages += c.pages;
		all.absent += c.absent;
		for (int k = 0; k < MAX_NODES; k++)
			all.node[k] += c.node[k];
	}
	{
		char what[48];

		snprintf(what, sizeof(what), "staging-total ranges %d", n);
		print_count(what, &all);
	}

	/* Where first touch on this CPU puts pages: where unplaced staging
	 * would have gone. */
	ctl = mmap(NULL, ctl_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED)
		return 1;
	memset(ctl, 1, ctl_len);
	if (page_nodes((uintptr_t)ctl, ctl_len, &control))
		return 1;
	print_count("control", &control);

	gf_xfer_dev_free(x, dev);
	gf_xfer_close(x);
	free(src);
	free(back);
	return 0;
}
