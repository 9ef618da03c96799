/* touch_pages: a static guest helper for tests/numa/placement.
 *
 *   touch_pages MIB [--cpu N] [--bind NODE] [--hold]
 *
 * Optionally places itself first (--cpu: sched_setaffinity to one CPU,
 * --bind: set_mempolicy(MPOL_BIND, NODE), as `numactl --physcpubind=N
 * --membind=NODE` would: the guest has no numactl), then maps MIB MiB of
 * anonymous memory, writes every page, and prints what the kernel says:
 *   pid, Cpus_allowed_list, Mems_allowed_list, its memory policy
 *   (get_mempolicy), the node of every page (move_pages with no target
 *   nodes: a query, exact), the mapping's numa_maps line, and the binding
 *   environment gpufeed run sets.  --hold: then prints "ready" and waits
 *   for a signal, so gpufeed verify can look at a live process.
 * Built with gcc -static: the guest has no shared libraries of its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_NODES 64

static void print_status_line(const char *key)
{
	char line[512];
	FILE *f = fopen("/proc/self/status", "r");
	size_t n = strlen(key);

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			char *v = line + n + 1;

			v += strspn(v, " \t");
			printf("%s %s", key, v);	/* v keeps its newline */
		}
	fclose(f);
}

static const char *policy_name(int mode)
{
	switch (mode & ~(MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)) {
	case MPOL_DEFAULT: return "default";
	case MPOL_PREFERRED: return "preferred";
	case MPOL_BIND: return "bind";
	case MPOL_INTERLEAVE: return "interleave";
	case MPOL_LOCAL: return "local";
	case 5: return "preferred-many";	/* MPOL_PREFERRED_MANY, Linux 5.15 */
	default: return "other";
	}
}

static void print_policy(void)
{
	int mode = -1;
	unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long)) + 1] = {0};

	if (syscall(SYS_get_mempolicy, &mode, mask, (unsigned long)MAX_NODES, NULL, 0UL) != 0) {
		printf("mempolicy error %s\n", strerror(errno));
		return;
	}
	printf("mempolicy %s nodes", policy_name(mode));
	for (int n = 0; n < MAX_NODES; n++)
		if (mask[n / (8 * sizeof(unsigned long))] & (1UL << (n % (8 * sizeof(unsigned long)))))
			printf(" %d", n);
	printf("\n");
}

/* The node of every page, by asking move_pages with no target nodes. */
static int print_page_nodes(char *base, size_t npages, long page)
{
	void **pages = calloc(npages, sizeof(*pages));
	int *status = calloc(npages, sizeof(*status));
	size_t per_node[MAX_NODES] = {0}, other = 0;

	if (!pages || !status)
		return -1;
	for (size_t i = 0; i < npages; i++)
		pages[i] = base + i * (size_t)page;
	if (syscall(SYS_move_pages, 0, (unsigned long)npages, pages, NULL, status, 0) != 0) {
		printf("move_pages error %s\n", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < npages; i++) {
		if (status[i] >= 0 && status[i] < MAX_NODES)
			per_node[status[i]]++;
		else
			other++;
	}
	printf("pages total %zu", npages);
	for (int n = 0; n < MAX_NODES; n++)
		if (per_node[n] || n < 2)
			printf(" node%d %zu", n, per_node[n]);
	printf(" other %zu\n", other);
	free(pages);
	free(status);
	return 0;
}

static void print_numa_maps(const char *base)
{
	char want[32], line[1024];
	FILE *f = fopen("/proc/self/numa_maps", "r");

	snprintf(want, sizeof(want), "%lx ", (unsigned long)base);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			printf("numa_maps %s", line);
	fclose(f);
}

static int place_self(int cpu, int node)
{
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0) {
			perror("sched_setaffinity");
			return -1;
		}
	}
	if (node >= 0) {
		unsigned long mask = 1UL << node;

		if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, (unsigned long)MAX_NODES) != 0) {
			perror("set_mempolicy");
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int cpu = -1, node = -1, hold = 0;
	long mib = 0, page = sysconf(_SC_PAGESIZE);
	size_t len;
	char *base;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--bind") && i + 1 < argc)
			node = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--hold"))
			hold = 1;
		else if (argv[i][0] != '-' && mib == 0)
			mib = atol(argv[i]);
		else {
			fprintf(stderr, "usage: touch_pages MIB [--cpu N] [--bind NODE] [--hold]\n");
			return 2;
		}
	}
	if (mib <= 0 || node >= MAX_NODES) {
		fprintf(stderr, "touch_pages: MIB must be > 0 and NODE < %d\n", MAX_NODES);
		return 2;
	}
	if (place_self(cpu, node))
		return 1;
	len = (size_t)mib << 20;
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (size_t off = 0; off < len; off += (size_t)page)
		base[off] = 1;	/* first touch: the page is allocated now, under the policy */

	printf("pid %d\n", (int)getpid());
	print_status_line("Cpus_allowed_list");
	print_status_line("Mems_allowed_list");
	printf("last_cpu %d\n", sched_getcpu());
	print_policy();
	if (print_page_nodes(base, len / (size_t)page, page))
		return 1;
	print_numa_maps(base);
	for (const char *const *e = (const char *const[]){"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
				"OMP_NUM_THREADS", "NCCL_IGNORE_CPU_AFFINITY", NULL}; *e; e++)
		printf("env %s=%s\n", *e, getenv(*e) ? getenv(*e) : "(unset)");
	if (hold) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();	/* until the test's SIGTERM */
	}
	return 0;
}
