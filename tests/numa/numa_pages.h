/* Shared by the guest helpers of tests/numa (xfer_pages.c, loader_pages.c):
 * the node of every page of a range, from the kernel (move_pages with no
 * target nodes: a query), and the ranges the stand-in libcuda was asked to
 * pin (its FAKE_CUDA_HOST_LOG), not what the library says it did. */
#ifndef GF_TESTS_NUMA_PAGES_H
#define GF_TESTS_NUMA_PAGES_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

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
	void **pages = calloc(n ? n : 1, sizeof(*pages));
	int *status = calloc(n ? n : 1, sizeof(*status));
	int rc = 0;

	if (!pages || !status) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		pages[i] = (void *)(base + i * pg);
	if (n && syscall(SYS_move_pages, 0, (unsigned long)n, pages, NULL, status, 0) != 0) {
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

static void count_add(struct count *all, const struct count *c)
{
	all->pages += c->pages;
	all->absent += c->absent;
	for (int k = 0; k < MAX_NODES; k++)
		all->node[k] += c->node[k];
}

static void print_count(const char *what, const struct count *c)
{
	printf("%s pages %zu node0 %zu node1 %zu absent %zu\n", what, c->pages, c->node[0], c->node[1], c->absent);
}

/* Runs the calling thread (before any other starts: the process) on cpu
 * alone; a negative cpu leaves it as it is.  0, or -1 with the reason on
 * stderr. */
static int pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return -1;
	}
	return 0;
}

/* A buffer mapped and touched by the calling thread, its pages counted:
 * where first touch (and the thread's memory policy) put pages here, so
 * where a buffer the library failed to place would have gone. */
static int control_pages(struct count *c)
{
	size_t len = 1u << 20;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int rc;

	if (p == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	memset(p, 1, len);
	rc = page_nodes((uintptr_t)p, len, c);
	munmap(p, len);
	return rc;
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

#endif
