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
#include <sys/syscall.h>
#include <unistd.h>

#include <gpufeed/error.h>
#include <gpufeed/xfer.h>
#include "numa_pages.h"

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
	unsigned char *src, *back;
	size_t len;
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
	if (pin_cpu(cpu))
		return 1;
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
		count_add(&all, &c);
	}
	{
		char what[48];

		snprintf(what, sizeof(what), "staging-total ranges %d", n);
		print_count(what, &all);
	}

	/* Where first touch on this CPU puts pages: where unplaced staging
	 * would have gone. */
	if (control_pages(&control))
		return 1;
	print_count("control", &control);

	gf_xfer_dev_free(x, dev);
	gf_xfer_close(x);
	free(src);
	free(back);
	return 0;
}
