/* loader_pages: a guest helper for tests/numa/loader-placement.
 *
 *   loader_pages pack DIR
 *   loader_pages run DIR [--gpu N] [--node N] [--cpu N] [--away N] [--batches N]
 *
 * pack: a flat file of RECORDS records of RECORD bytes (each byte a
 * function of the record and its place in it) packed into DIR with
 * gf_pack (GF_PACK_RECORDS).
 *
 * run: opens a gf_loader on DIR (2 I/O threads, 4 slots, read through the
 * page cache: the guest's tmpfs takes no O_DIRECT) copying to NVML GPU
 * --gpu (the stand-in NVML and libcuda, given the guest's PCI functions as
 * GPUs), --node sets gf_loader_opts.numa_node; takes --batches batches,
 * checks their bytes, and prints, while the loader is open:
 *   - the node of every page of every range the stand-in libcuda was asked
 *     to pin and still holds (FAKE_CUDA_HOST_LOG: the loader's slots), from
 *     move_pages, and the memory policy of the mapping holding each
 *     (/proc/self/numa_maps): not what the library says it did;
 *   - the same for every mapping that has a memory policy of its own (the
 *     slots and the I/O threads' read buffers: gf_buf_alloc's mbind);
 *   - each I/O thread's (named gf-loader-io) Cpus_allowed_list, beside the
 *     calling thread's;
 *   - a control buffer touched by the calling thread just before open (as
 *     the loader's buffers are, in open): where pages the loader did not
 *     place would have gone.
 * --cpu runs the process on one CPU (the loader's threads may use only
 * that one); --away binds the calling thread's own memory policy to a node
 * (MPOL_BIND) until the loader is open, so anything the loader does not
 * place lands there whatever CPU touches it, while the threads may still
 * use every CPU.
 *
 * Lines: "affinity LIST", "slot ADDR BYTES pages P node0 A node1 B absent C
 * policy POL", "slots-total ranges R pages ...", "placed ADDR BYTES pages
 * ... policy POL", "placed-total vmas V pages ...", "io-thread TID cpus
 * LIST", "io-threads N", "control pages ...", "bytes ok batches B samples
 * S bytes N", "device ok batches B".  Exit 0, or 1 with the reason on
 * stderr. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <gpufeed/dataset.h>
#include <gpufeed/error.h>
#include <gpufeed/loader.h>
#include "numa_pages.h"
#include "vendor/cuda/cuda_device.h"

#define RECORDS 1024u
#define RECORD 4096u
#define BATCH 16u
#define THREADS 2u
#define SLOTS 4u
#define MPOL_DEFAULT_ 0
#define MPOL_BIND_ 2
#define MAX_VMAS 4096

static unsigned char record_byte(uint64_t i, uint64_t k)
{
	return (unsigned char)((i * 2654435761u + k * 40503u + (k >> 8) * 31u + (i >> 8)) & 0xff);
}

static int fail(const char *what)
{
	fprintf(stderr, "loader_pages: %s: %s\n", what, gf_last_error());
	return 1;
}

static int pack(const char *dir)
{
	struct gf_pack_opts po = GF_PACK_OPTS_INIT;
	struct gf_pack_result res;
	char in[512];
	const char *inputs[1] = { in };
	unsigned char rec[RECORD];
	FILE *f;

	snprintf(in, sizeof(in), "%s.records", dir);
	if (!(f = fopen(in, "w"))) {
		perror(in);
		return 1;
	}
	for (uint64_t i = 0; i < RECORDS; i++) {
		for (uint64_t k = 0; k < RECORD; k++)
			rec[k] = record_byte(i, k);
		if (fwrite(rec, 1, RECORD, f) != RECORD) {
			perror(in);
			fclose(f);
			return 1;
		}
	}
	if (fclose(f)) {
		perror(in);
		return 1;
	}
	po.input = GF_PACK_RECORDS;
	po.record_size = RECORD;
	if (gf_pack(inputs, 1, dir, &po, &res))
		return fail("gf_pack");
	unlink(in);
	printf("packed samples %llu shards %llu bytes %llu\n", (unsigned long long)res.samples,
	       (unsigned long long)res.shards, (unsigned long long)res.data_bytes);
	return 0;
}

/* The process's mappings with their memory policy: /proc/self/maps and
 * numa_maps list the same VMAs in the same order. */
struct vma {
	uintptr_t start, end;
	char policy[48];
};

static int vmas(struct vma *v, int max)
{
	FILE *m = fopen("/proc/self/maps", "r"), *nm = fopen("/proc/self/numa_maps", "r");
	char line[1024], nline[4096];
	int n = 0;

	if (!m || !nm) {
		perror("/proc/self/maps or numa_maps");
		n = -1;
		goto out;
	}
	while (n < max && fgets(line, sizeof(line), m) && fgets(nline, sizeof(nline), nm)) {
		unsigned long s, e, ns;

		if (sscanf(line, "%lx-%lx", &s, &e) != 2 || sscanf(nline, "%lx %47s", &ns, v[n].policy) != 2 ||
		    ns != s) {
			fprintf(stderr, "loader_pages: maps and numa_maps disagree at %s", line);
			n = -1;
			goto out;
		}
		v[n].start = s;
		v[n].end = e;
		n++;
	}
out:
	if (m)
		fclose(m);
	if (nm)
		fclose(nm);
	return n;
}

static const char *policy_at(const struct vma *v, int n, uintptr_t addr)
{
	for (int i = 0; i < n; i++)
		if (addr >= v[i].start && addr < v[i].end)
			return v[i].policy;
	return "none";
}

/* The task's Cpus_allowed_list from its status file. */
static void cpus_allowed(const char *status, char *out, size_t len)
{
	char line[256];
	FILE *f = fopen(status, "r");

	snprintf(out, len, "?");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			snprintf(out, len, "%s", line + 18 + strspn(line + 18, " \t"));
			out[strcspn(out, "\n")] = 0;
		}
	if (f)
		fclose(f);
}

/* Each I/O thread's CPUs; waits (up to 10 s) until all THREADS are named,
 * as each names itself after binding.  The count of those seen. */
static unsigned io_threads(int print)
{
	unsigned seen = 0;

	for (int tries = 0; tries < 1000; tries++) {
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;

		seen = 0;
		while (d && (e = readdir(d))) {
			char path[300], comm[64] = "", cpus[256];
			FILE *f;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
			if ((f = fopen(path, "r"))) {
				if (!fgets(comm, sizeof(comm), f))
					comm[0] = 0;
				fclose(f);
			}
			if (strcmp(comm, "gf-loader-io\n"))
				continue;
			seen++;
			if (print) {
				snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
				cpus_allowed(path, cpus, sizeof(cpus));
				printf("io-thread %s cpus %s\n", e->d_name, cpus);
			}
		}
		if (d)
			closedir(d);
		if (print || seen >= THREADS)
			return seen;
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	return seen;
}

/* The batch's bytes are the packed records' (sample i is record i). */
static int check_batch(const struct gf_batch *b)
{
	const unsigned char *p = b->host;

	if (b->record_size != RECORD || b->bytes != (size_t)b->count * RECORD) {
		fprintf(stderr, "loader_pages: batch of %u samples: record_size %zu, %zu bytes\n", b->count,
			b->record_size, b->bytes);
		return 1;
	}
	for (unsigned j = 0; j < b->count; j++)
		for (uint64_t k = 0; k < RECORD; k++)
			if (p[(size_t)j * RECORD + k] != record_byte(b->samples[j], k)) {
				fprintf(stderr, "loader_pages: sample %llu byte %llu differs from what was packed\n",
					(unsigned long long)b->samples[j], (unsigned long long)k);
				return 1;
			}
	return 0;
}

/* The batch's GPU copy (the stand-in's device memory) equals its host bytes. */
static int check_device(struct gf_cuda_dev *dev, struct gf_batch *b)
{
	unsigned char *back = malloc(b->bytes);
	int rc = 1;

	if (!back)
		return 1;
	if (gf_batch_wait_stream(b, b->stream) || gf_cuda_dev_make_current(dev) ||
	    dev->ops->memcpy_dtoh_async(back, b->dev, b->bytes, NULL) != GF_CUDA_SUCCESS ||
	    dev->ops->ctx_synchronize() != GF_CUDA_SUCCESS)
		fprintf(stderr, "loader_pages: copying batch %llu back from the GPU failed\n",
			(unsigned long long)b->position);
	else if (memcmp(back, b->host, b->bytes))
		fprintf(stderr, "loader_pages: batch at %llu: the GPU's bytes differ\n", (unsigned long long)b->position);
	else
		rc = 0;
	free(back);
	return rc;
}

static int away(int node)
{
	unsigned long mask = 1UL << node;

	if (syscall(SYS_set_mempolicy, MPOL_BIND_, &mask, (unsigned long)(8 * sizeof(mask)))) {
		perror("set_mempolicy");
		return 1;
	}
	return 0;
}

static int run(const char *dir, int argc, char **argv)
{
	struct gf_loader_opts o = GF_LOADER_OPTS_INIT;
	struct gf_cuda_dev dev = { 0 };
	struct range r[MAX_RANGES];
	static struct vma v[MAX_VMAS];
	struct count slots = { 0 }, placed = { 0 }, control = { 0 };
	const char *log = getenv("FAKE_CUDA_HOST_LOG");
	struct gf_loader *l;
	struct gf_batch *b;
	unsigned batches = 6, nb = 0, samples = 0, devok = 0, nvma_placed = 0;
	size_t bytes = 0;
	char cpus[256];
	int cpu = -1, awaynode = -1, n, nv, rc;

	o.batch_size = BATCH;
	o.threads = THREADS;
	o.slots = SLOTS;
	o.buffered = true;
	o.seed = 7;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--gpu") && i + 1 < argc)
			o.gpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--node") && i + 1 < argc)
			o.numa_node = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--away") && i + 1 < argc)
			awaynode = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
			batches = (unsigned)atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: loader_pages run DIR [--gpu N] [--node N] [--cpu N] [--away N] "
					"[--batches N]\n");
			return 2;
		}
	}
	if (o.gpu >= 0 && (!log || !*log)) {
		fprintf(stderr, "loader_pages: a GPU needs FAKE_CUDA_HOST_LOG\n");
		return 2;
	}
	if (pin_cpu(cpu))
		return 1;
	if (awaynode >= 0 && away(awaynode))
		return 1;
	cpus_allowed("/proc/thread-self/status", cpus, sizeof(cpus));
	printf("cpu %d\naffinity %s\n", sched_getcpu(), cpus);
	if (o.gpu >= 0 && gf_cuda_dev_open_nvml((unsigned)o.gpu, &dev))
		return fail("the GPU, to read batches back");
	/* Where this thread's pages land, touched as the loader's are at open:
	 * where they would have gone had it not placed them. */
	if (control_pages(&control))
		return 1;
	if (gf_loader_open(dir, &o, &l))
		return fail("gf_loader_open");
	/* numa_maps shows the task's policy for a mapping without its own:
	 * back to the default, so a policy seen there is one the library set. */
	if (awaynode >= 0 && syscall(SYS_set_mempolicy, MPOL_DEFAULT_, NULL, 0UL)) {
		perror("set_mempolicy");
		return 1;
	}
	if (o.gpu >= 0)
		printf("pci %s\n", dev.pci);

	while (nb < batches && (rc = gf_loader_next(l, &b)) == 0) {
		if (check_batch(b) || (o.gpu >= 0 && check_device(&dev, b)))
			return 1;
		devok += o.gpu >= 0;
		nb++;
		samples += b->count;
		bytes += b->bytes;
		if (gf_loader_release(l, b))
			return fail("gf_loader_release");
	}
	if (nb < batches)
		return fail("gf_loader_next");
	printf("bytes ok batches %u samples %u bytes %zu\n", nb, samples, bytes);
	if (devok)
		printf("device ok batches %u\n", devok);

	if ((nv = vmas(v, MAX_VMAS)) < 0)
		return 1;
	n = 0;
	if (o.gpu >= 0 && (n = registered(log, r, MAX_RANGES)) < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		struct count c = { 0 };
		char what[160];

		if (page_nodes(r[i].addr, r[i].size, &c))
			return 1;
		snprintf(what, sizeof(what), "slot %#lx %zu", (unsigned long)r[i].addr, r[i].size);
		printf("%s pages %zu node0 %zu node1 %zu absent %zu policy %s\n", what, c.pages, c.node[0], c.node[1],
		       c.absent, policy_at(v, nv, r[i].addr));
		count_add(&slots, &c);
	}
	{
		char what[48];

		snprintf(what, sizeof(what), "slots-total ranges %d", n);
		print_count(what, &slots);
	}
	for (int i = 0; i < nv; i++) {
		struct count c = { 0 };

		if (!strcmp(v[i].policy, "default"))
			continue;
		if (page_nodes(v[i].start, v[i].end - v[i].start, &c))
			return 1;
		printf("placed %#lx %zu pages %zu node0 %zu node1 %zu absent %zu policy %s\n", (unsigned long)v[i].start,
		       (size_t)(v[i].end - v[i].start), c.pages, c.node[0], c.node[1], c.absent, v[i].policy);
		count_add(&placed, &c);
		nvma_placed++;
	}
	{
		char what[48];

		snprintf(what, sizeof(what), "placed-total vmas %u", nvma_placed);
		print_count(what, &placed);
	}
	io_threads(0);
	printf("io-threads %u\n", io_threads(1));
	print_count("control", &control);

	gf_loader_close(l);
	if (o.gpu >= 0)
		gf_cuda_dev_close(&dev);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "pack"))
		return pack(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "run"))
		return run(argv[2], argc - 3, argv + 3);
	fprintf(stderr, "usage: loader_pages pack DIR | loader_pages run DIR [options]\n");
	return 2;
}
