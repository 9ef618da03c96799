/* Insides of `bench io` shared by the target (io_target.c), the runner
 * (io_run.c) and the sweep (io_sweep.c). */
#ifndef GF_BENCH_IO_BENCH_H
#define GF_BENCH_IO_BENCH_H

#include <stdbool.h>
#include <sys/stat.h>
#include <gpufeed/bench.h>
#include <gpufeed/cpuset.h>

struct gf_bench_io {
	struct gf_bench_io_opts opts;
	struct gf_bench_target target;
	struct gf_cpuset cpus;		/* the drive's node's allowed CPUs */
	bool have_cpus;
	/* The file we created, by identity: a file moved onto the path
	 * while we run is someone else's, never written or removed. */
	dev_t dev;
	ino_t ino;
	bool removed;
	int excl_fd;			/* a block device claimed O_EXCL, -1 */
};

/* Whether st (of the path or of a descriptor opened on it) is the file
 * this run created; true for targets we did not create. */
bool gf_bench__ours(const struct gf_bench_io *b, const struct stat *st);

/* Fills buf with a non-repeating pseudo-random stream (xorshift64*), so
 * writes are neither zero pages nor compressible. */
void gf_bench__fill(void *buf, size_t len, uint64_t seed);
int gf_bench__drop_cache(struct gf_bench_io *b);
/* Reads [0, span) once, for at most budget_ns; *warmed is how much it read.
 * -ECANCELED when opts.cancel was set. */
int gf_bench__warm_cache(struct gf_bench_io *b, uint64_t span, uint64_t budget_ns, uint64_t *warmed);

#endif
