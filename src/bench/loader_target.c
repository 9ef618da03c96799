/* `gpufeed bench loader DATASET`: the loader library (gpufeed/loader.h)
 * run over a dataset the way a training loop runs it, with a consumer that
 * takes each batch, looks at it and gives it back.  One point (the
 * configuration), --repeats samples; each sample is --epochs epochs (or
 * --samples samples) timed from the first gf_loader_next to the last
 * release.  The runner's value is samples/s; the other figures (GB/s, CPU
 * s/GB, consumer wait %) come from the same samples and are summarised the
 * same way.  docs/bench-loader.md. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <jansson.h>
#include <gpufeed/dataset.h>
#include <gpufeed/loader.h>
#include <gpufeed/parse.h>

#include "bench/frame.h"
#include "bench/output.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/json_read.h"
#include "core/json_stamp.h"
#include "topo/render.h"

#define LOADER_SCHEMA "gpufeed-bench-loader/1"
#define LOADER_REPEATS_MAX 1000u
#define LOADER_FLAGS_MAX 8

struct loader_opts {
	unsigned batch_size;	/* 0: 256 */
	unsigned threads;	/* 0: the loader's default (2) */
	unsigned slots;		/* 0: the loader's default (4) */
	uint64_t block;		/* 0: the loader's default (4 MiB) */
	unsigned window;	/* 0: the loader's default (16) */
	int gpu;		/* -1: host memory */
	bool cold, warm;	/* neither: cold */
	unsigned epochs;	/* per sample; 0: 1 */
	uint64_t samples;	/* per sample, instead of whole epochs; 0: none */
	uint64_t seed;
	unsigned repeats;	/* 0: 3 */
	bool verify;
};

/* The derived figures, each summarised as the runner summarises its own. */
enum { FIG_SAMPLES_S, FIG_GB_S, FIG_CPU_S_GB, FIG_WAIT_PCT, FIGS };
static const char *const fig_key[FIGS] = { "samples_per_s", "gb_per_s", "cpu_s_per_gb", "wait_percent" };
static const char *const fig_unit[FIGS] = { "samples/s", "GB/s", "s/GB", "%" };
static const char *const fig_title[FIGS] = { "samples/s", "GB/s delivered", "CPU s per GB", "consumer wait %" };
static const int fig_decimals[FIGS] = { 0, 3, 3, 1 };

/* One sample as it ran: the raw counts every figure is computed from. */
struct loader_run {
	uint64_t samples, bytes, batches, bytes_read;
	double seconds, cpu_user_s, cpu_sys_s, wait_s;
	uint64_t rss, pss;	/* at the end of the sample, the loader still open */
};

struct loader_bench {
	struct loader_opts o;
	const char *path;
	const struct gf_topo *topo;
	volatile sig_atomic_t *cancel;
	struct gf_runner *run;
	struct gf_dataset *ds;
	struct gf_dataset_info info;
	struct gf_loader *l;
	uint64_t next_epoch;
	uint64_t epoch_samples;	/* this rank's samples per epoch */
	double quality, quality_full;
	int quality_rc;
	uint64_t rss_before, peak_rss, peak_pss;
	volatile uint64_t sink;	/* what the consumer read, so it is not optimised away */
	struct loader_run *runs;
	unsigned nruns;
	struct gf_runner_point point;		/* samples/s, from the runner */
	struct gf_runner_point figs[FIGS];	/* the same samples' figures */
	char flags[LOADER_FLAGS_MAX][256];
	unsigned nflags;
};

static void loader_init(void *opts)
{
	struct loader_opts *o = opts;

	o->gpu = -1;
}

static int set_gpu(void *opts, const char *value)
{
	struct loader_opts *o = opts;
	uint64_t n;

	if (!strcmp(value, "host")) {
		o->gpu = -1;
		return 0;
	}
	if (gf_parse_count(value, 0, 1023, &n))
		return gf_error(-EINVAL, "--gpu: '%s' is neither a GPU's NVML index (0-1023) nor 'host'", value);
	o->gpu = (int)n;
	return 0;
}

static int set_samples(void *opts, const char *value)
{
	struct loader_opts *o = opts;

	if (gf_parse_count(value, 1, UINT64_MAX, &o->samples))
		return gf_error(-EINVAL, "--samples: '%s' is not a count of samples >= 1", value);
	return 0;
}

static int set_seed(void *opts, const char *value)
{
	struct loader_opts *o = opts;

	if (gf_parse_count(value, 0, UINT64_MAX, &o->seed))
		return gf_error(-EINVAL, "--seed: '%s' is not a whole number", value);
	return 0;
}

static int loader_check(const void *opts, const char *operand)
{
	const struct loader_opts *o = opts;

	(void)operand;
	if (o->cold && o->warm)
		return gf_error(-EINVAL, "--cold and --warm: one or the other");
	if (o->samples && o->epochs)
		return gf_error(-EINVAL, "--samples and --epochs: one or the other");
	return 0;
}

/* ---- memory: RSS, its peak and PSS of this process ---- */

/* The value in kB of "Key:" in a /proc file, in bytes; 0 when absent. */
static uint64_t proc_kb(const char *path, const char *key)
{
	unsigned long long kb = 0;
	char *text = NULL, *at;
	struct gf_fs fs;
	size_t len;

	if (gf_fs_init(&fs, NULL))
		return 0;
	if (gf_fs_read(&fs, path, &text, &len))
		text = NULL;
	gf_fs_fini(&fs);
	if (text && (at = strstr(text, key)))
		sscanf(at + strlen(key), " %llu", &kb);
	free(text);
	return (uint64_t)kb << 10;
}

/* ---- the page cache: dropped (cold) or filled (warm) ---- */

/* Cold: every shard's data pages out of the page cache, so the loader's
 * reads come from the disk whatever read before (O_DIRECT does not read
 * the cache, but a buffered read in an earlier sample would). */
static int drop_pages(struct loader_bench *b)
{
	for (unsigned s = 0; s < b->info.shards; s++) {
		struct gf_shard_info si;
		int fd, rc;

		if ((rc = gf_dataset_shard(b->ds, s, &si)))
			return rc;
		if ((fd = open(si.data_path, O_RDONLY | O_CLOEXEC)) < 0)
			return gf_error(-errno, "%s: %s", si.data_path, strerror(errno));
		rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
		if (rc)
			return gf_error(-rc, "%s: posix_fadvise(DONTNEED): %s", si.data_path, strerror(rc));
	}
	return 0;
}

/* Warm: every shard's data read once through the page cache. */
static int fill_pages(struct loader_bench *b)
{
	size_t chunk = 1u << 20;
	char *buf = malloc(chunk);
	int rc = 0;

	if (!buf)
		return gf_error(-ENOMEM, "bench loader: out of memory");
	for (unsigned s = 0; s < b->info.shards && !rc; s++) {
		struct gf_shard_info si;
		ssize_t n;
		int fd;

		if ((rc = gf_dataset_shard(b->ds, s, &si)))
			break;
		if ((fd = open(si.data_path, O_RDONLY | O_CLOEXEC)) < 0) {
			rc = gf_error(-errno, "%s: %s", si.data_path, strerror(errno));
			break;
		}
		posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
		while ((n = read(fd, buf, chunk)) > 0)
			;
		if (n < 0)
			rc = gf_error(-errno, "%s: reading it into the page cache: %s", si.data_path, strerror(errno));
		close(fd);
	}
	free(buf);
	return rc;
}

/* ---- the run ---- */

static void flag(struct loader_bench *b, const char *fmt, unsigned long long x, unsigned long long y)
{
	if (b->nflags < LOADER_FLAGS_MAX)
		snprintf(b->flags[b->nflags++], sizeof(b->flags[0]), fmt, x, y);
}

/* The consumer: reads one 8-byte word of every 4 KiB of a host batch (the
 * batch is looked at, as a training step's collate would, without the
 * consumer's own work dominating); a GPU batch is the GPU's to read. */
static void consume(struct loader_bench *b, const struct gf_batch *bt)
{
	uint64_t x = 0, w;

	if (!bt->host || bt->dev)
		return;
	for (size_t at = 0; at + sizeof(w) <= bt->bytes; at += 4096) {
		memcpy(&w, (const char *)bt->host + at, sizeof(w));
		x ^= w;
	}
	b->sink ^= x;
}

/* The batch's sizes as the dataset says they must be: a fixed-size
 * dataset's batch is count x record_size bytes. */
static void check_batch(struct loader_bench *b, const struct gf_batch *bt)
{
	if (!b->info.record_size)
		return;
	if (bt->bytes != (uint64_t)bt->count * b->info.record_size)
		flag(b, "a batch of %llu samples held %llu bytes, not samples x the record size",
		     (unsigned long long)bt->count, (unsigned long long)bt->bytes);
	else if (bt->record_size != b->info.record_size)
		flag(b, "a batch said its records are %llu bytes; the dataset's are %llu",
		     (unsigned long long)bt->record_size, (unsigned long long)b->info.record_size);
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* One epoch, or what is left of the sample limit.  0 at the epoch's end or
 * the limit, -errno from the loader. */
static int one_epoch(struct loader_bench *b, struct loader_run *r, uint64_t *batches_seen)
{
	uint64_t want = b->o.samples;
	struct gf_batch *bt;
	int rc;

	if ((rc = gf_loader_set_epoch(b->l, b->next_epoch++)))
		return rc;
	while ((rc = gf_loader_next(b->l, &bt)) == 0) {
		consume(b, bt);
		check_batch(b, bt);
		r->samples += bt->count;
		r->bytes += bt->bytes;
		r->batches++;
		if ((rc = gf_loader_release(b->l, bt)))
			return rc;
		if (b->cancel && *b->cancel)
			return -ECANCELED;
		if (++*batches_seen % 64 == 0 && b->run) {
			uint64_t total = want ? want : b->epoch_samples * b->o.epochs;
			char detail[96];

			snprintf(detail, sizeof(detail), "%llu samples", (unsigned long long)r->samples);
			gf_runner_report(b->run, total ? (double)r->samples / (double)total : 0, detail);
		}
		if (want && r->samples >= want)
			return 0;
	}
	return rc == 1 ? 0 : rc;
}

static int op_sample(void *ctx, unsigned i, double *value)
{
	struct loader_bench *b = ctx;
	struct loader_run *r = &b->runs[b->nruns];
	struct gf_loader_counters c0, c1;
	struct rusage u0, u1;
	uint64_t batches_seen = 0, pss;
	double t0;
	int rc = 0;

	(void)i;
	memset(r, 0, sizeof(*r));
	if (b->o.cold && (rc = drop_pages(b)))
		return rc;
	gf_loader_counters(b->l, &c0);
	getrusage(RUSAGE_SELF, &u0);
	t0 = gf_bench_now();
	if (b->o.samples) {
		while (!rc && r->samples < b->o.samples) {
			uint64_t before = r->samples;

			rc = one_epoch(b, r, &batches_seen);
			if (!rc && r->samples == before)
				return gf_error(-EIO, "bench loader: %s: an epoch delivered no sample", b->path);
		}
	} else {
		for (unsigned e = 0; e < b->o.epochs && !rc; e++) {
			uint64_t before = r->samples;

			if (!(rc = one_epoch(b, r, &batches_seen)) && r->samples - before != b->epoch_samples)
				flag(b, "an epoch delivered %llu samples; the loader says an epoch has %llu",
				     (unsigned long long)(r->samples - before), (unsigned long long)b->epoch_samples);
		}
	}
	r->seconds = gf_bench_now() - t0;
	getrusage(RUSAGE_SELF, &u1);
	gf_loader_counters(b->l, &c1);
	if (rc)
		return rc;
	r->cpu_user_s = tv_s(u1.ru_utime) - tv_s(u0.ru_utime);
	r->cpu_sys_s = tv_s(u1.ru_stime) - tv_s(u0.ru_stime);
	r->wait_s = (double)(c1.wait_ns - c0.wait_ns) / 1e9;
	r->bytes_read = c1.bytes_read - c0.bytes_read;
	r->rss = proc_kb("/proc/self/status", "VmRSS:");
	pss = proc_kb("/proc/self/smaps_rollup", "Pss:");
	r->pss = pss;
	if (pss > b->peak_pss)
		b->peak_pss = pss;
	b->nruns++;
	if (r->seconds <= 0 || !r->bytes)
		return gf_error(-EIO, "bench loader: %s: a sample delivered nothing", b->path);
	*value = (double)r->samples / r->seconds;
	return 0;
}

static int op_prepare(void *ctx, unsigned i)
{
	struct loader_bench *b = ctx;

	(void)i;
	return b->o.warm ? fill_pages(b) : 0;
}

static void op_label(void *ctx, unsigned i, char *buf, size_t size)
{
	struct loader_bench *b = ctx;

	(void)i;
	snprintf(buf, size, "%s, batch %u, %s", b->o.warm ? "warm" : "cold", b->o.batch_size,
		 b->o.gpu < 0 ? "host" : "GPU");
}

static void op_attach(void *ctx, struct gf_runner *run)
{
	((struct loader_bench *)ctx)->run = run;
}

static const struct gf_bench_ops loader_ops = {
	.prepare = op_prepare, .sample = op_sample, .label = op_label, .attach = op_attach,
};

/* The figures of every sample that ran, summarised as the runner does. */
static int summarise(struct loader_bench *b)
{
	for (int k = 0; k < FIGS; k++) {
		struct gf_runner_point *p = &b->figs[k];

		p->status = b->point.status;
		memcpy(p->error, b->point.error, sizeof(p->error));
		if (p->status)
			continue;
		if (!(p->samples = calloc(b->nruns ? b->nruns : 1, sizeof(double))))
			return gf_error(-ENOMEM, "bench loader: out of memory");
		for (unsigned i = 0; i < b->nruns; i++) {
			const struct loader_run *r = &b->runs[i];
			double gb = (double)r->bytes / 1e9;

			p->samples[i] = k == FIG_SAMPLES_S ? (double)r->samples / r->seconds
					: k == FIG_GB_S	   ? gb / r->seconds
					: k == FIG_CPU_S_GB ? (r->cpu_user_s + r->cpu_sys_s) / gb
							    : 100.0 * r->wait_s / r->seconds;
		}
		p->nsamples = b->nruns;
		p->seconds = b->point.seconds;
		if (gf_stats_compute(p->samples, p->nsamples, &p->stats))
			return gf_error(-ENOMEM, "bench loader: out of memory");
	}
	return 0;
}

static void loader_free(struct loader_bench *b)
{
	if (!b)
		return;
	gf_loader_close(b->l);
	gf_dataset_close(b->ds);
	gf_runner_points_free(&b->point, 1);
	gf_runner_points_free(b->figs, FIGS);
	free(b->runs);
	free(b);
}

static int open_loader(struct loader_bench *b)
{
	struct gf_loader_opts lo = GF_LOADER_OPTS_INIT;
	int rc;

	if ((rc = gf_dataset_open(b->path, &b->ds)) || (rc = gf_dataset_info(b->ds, &b->info)))
		return rc;
	lo.batch_size = b->o.batch_size;
	lo.seed = b->o.seed;
	lo.block_bytes = (size_t)b->o.block;
	lo.window_blocks = b->o.window;
	lo.threads = b->o.threads;
	lo.slots = b->o.slots;
	lo.buffered = b->o.warm;
	lo.verify = b->o.verify;
	lo.gpu = b->o.gpu;
	lo.model = b->topo;
	b->rss_before = proc_kb("/proc/self/status", "VmRSS:");
	if ((rc = gf_loader_open(b->path, &lo, &b->l)))
		return rc;
	b->epoch_samples = gf_loader_samples(b->l);
	b->quality_rc = gf_loader_shuffle_quality(b->l, &b->quality, &b->quality_full);
	return 0;
}

static int loader_run(const void *opts, const char *operand, const struct gf_bench_env *env, void **res)
{
	struct gf_runner_opts ro = { .name = "gpufeed bench loader", .warmup = 0 };
	struct loader_bench *b;
	int rc;

	*res = NULL;
	if (!env || !env->model || !operand)
		return gf_error(-EINVAL, "bench loader: no %s", !operand ? "dataset" : "machine model");
	if ((rc = loader_check(opts, operand)))
		return rc;
	if (!(b = calloc(1, sizeof(*b))))
		return gf_error(-ENOMEM, "bench loader: out of memory");
	b->o = *(const struct loader_opts *)opts;
	b->o.batch_size = b->o.batch_size ? b->o.batch_size : 256;
	b->o.repeats = b->o.repeats ? b->o.repeats : 3;
	b->o.cold = !b->o.warm;
	b->o.epochs = b->o.samples ? 0 : b->o.epochs ? b->o.epochs : 1;
	b->path = operand;
	b->topo = env->model;
	b->cancel = env->cancel;
	if (!(b->runs = calloc(b->o.repeats, sizeof(*b->runs)))) {
		rc = gf_error(-ENOMEM, "bench loader: out of memory");
		goto fail;
	}
	if ((rc = open_loader(b)))
		goto fail;
	ro.repeats = b->o.repeats;
	gf_bench_env_runner(env, &ro);
	rc = gf_runner_run(&loader_ops, b, 1, &ro, &b->point);
	b->peak_rss = proc_kb("/proc/self/status", "VmHWM:");
	/* Close before the results: an error on a loader thread after the
	 * last batch is not the run's, and nothing of it outlives the run. */
	gf_loader_close(b->l);
	b->l = NULL;
	if (rc || (rc = summarise(b)))
		goto fail;
	*res = b;
	return 0;
fail:
	loader_free(b);
	return rc;
}

/* ---- the results ---- */

static unsigned loader_findings(const struct loader_bench *b)
{
	return (b->point.status != 0) + b->nflags;
}

static const char *loader_problem(const void *res)
{
	const struct loader_bench *b = res;

	return b && b->point.status ? b->point.error : "";
}

static json_t *config_json(const struct loader_bench *b)
{
	json_t *c = json_object();

	json_object_set_new(c, "dataset", gf_jstr(b->path));
	json_object_set_new(c, "batch_size", json_integer(b->o.batch_size));
	json_object_set_new(c, "threads", json_integer(b->o.threads ? b->o.threads : 2));
	json_object_set_new(c, "slots", json_integer(b->o.slots ? b->o.slots : 4));
	json_object_set_new(c, "block_bytes", json_integer((json_int_t)(b->o.block ? b->o.block
										: GF_LOADER_BLOCK_DEFAULT)));
	json_object_set_new(c, "window_blocks", json_integer(b->o.window ? b->o.window : GF_LOADER_WINDOW_DEFAULT));
	json_object_set_new(c, "gpu", b->o.gpu < 0 ? json_string("host") : json_integer(b->o.gpu));
	json_object_set_new(c, "cache", json_string(b->o.warm ? "warm" : "cold"));
	json_object_set_new(c, "reads", json_string(b->o.warm ? "buffered" : "O_DIRECT"));
	json_object_set_new(c, "epochs", json_integer(b->o.epochs));
	json_object_set_new(c, "sample_limit", json_integer((json_int_t)b->o.samples));
	json_object_set_new(c, "seed", json_integer((json_int_t)b->o.seed));
	json_object_set_new(c, "repeats", json_integer(b->o.repeats));
	json_object_set_new(c, "warmup", json_integer(0));
	json_object_set_new(c, "verify", json_boolean(b->o.verify));
	return c;
}

static json_t *dataset_json(const struct loader_bench *b)
{
	json_t *d = json_object();

	json_object_set_new(d, "kind", json_string(gf_dataset_kind_name(b->info.kind)));
	json_object_set_new(d, "samples", json_integer((json_int_t)b->info.samples));
	json_object_set_new(d, "shards", json_integer(b->info.shards));
	json_object_set_new(d, "data_bytes", json_integer((json_int_t)b->info.data_bytes));
	json_object_set_new(d, "file_bytes", json_integer((json_int_t)b->info.file_bytes));
	json_object_set_new(d, "record_size", json_integer((json_int_t)b->info.record_size));
	json_object_set_new(d, "min_size", json_integer((json_int_t)b->info.min_size));
	json_object_set_new(d, "max_size", json_integer((json_int_t)b->info.max_size));
	json_object_set_new(d, "samples_per_epoch", json_integer((json_int_t)b->epoch_samples));
	return d;
}

static json_t *runs_json(const struct loader_bench *b)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < b->nruns; i++) {
		const struct loader_run *r = &b->runs[i];
		json_t *o = json_object();

		json_object_set_new(o, "samples", json_integer((json_int_t)r->samples));
		json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
		json_object_set_new(o, "batches", json_integer((json_int_t)r->batches));
		json_object_set_new(o, "bytes_read", json_integer((json_int_t)r->bytes_read));
		json_object_set_new(o, "seconds", json_real(r->seconds));
		json_object_set_new(o, "cpu_user_s", json_real(r->cpu_user_s));
		json_object_set_new(o, "cpu_sys_s", json_real(r->cpu_sys_s));
		json_object_set_new(o, "wait_s", json_real(r->wait_s));
		json_object_set_new(o, "rss_bytes", json_integer((json_int_t)r->rss));
		json_object_set_new(o, "pss_bytes", json_integer((json_int_t)r->pss));
		json_array_append_new(a, o);
	}
	return a;
}

static const char *const conventions =
	"samples/s and GB/s (1e9 bytes) count the payload the consumer received, from the first "
	"gf_loader_next of a sample to the last release; CPU s/GB is getrusage(RUSAGE_SELF) user + system "
	"seconds over the same span (every thread of the process: the loader's, io_uring's workers, the "
	"consumer's) per GB delivered; consumer wait % is the loader's wait_ns counter over the span's wall "
	"time; bytes_read counts what the loader read from storage (alignment included); rss_bytes and "
	"pss_bytes are /proc/self/status VmRSS and /proc/self/smaps_rollup Pss at the end of each sample, the "
	"loader open; peak_rss_bytes is VmHWM after the run";

static int loader_write_json(const struct loader_bench *b, FILE *f)
{
	json_t *root = json_object(), *figs = json_object(), *mem = json_object(), *flags = json_array();

	gf_json_stamp(root, LOADER_SCHEMA);
	json_object_set_new(root, "machine", gf_bench_json_topology(b->topo));
	json_object_set_new(root, "config", config_json(b));
	json_object_set_new(root, "dataset", dataset_json(b));
	json_object_set_new(root, "conventions", json_string(conventions));
	for (int k = 0; k < FIGS; k++)
		json_object_set_new(figs, fig_key[k], gf_bench_json_point(&b->figs[k], fig_unit[k]));
	json_object_set_new(root, "figures", figs);
	json_object_set_new(root, "runs", runs_json(b));
	json_object_set_new(mem, "rss_before_open_bytes", json_integer((json_int_t)b->rss_before));
	json_object_set_new(mem, "peak_rss_bytes", json_integer((json_int_t)b->peak_rss));
	json_object_set_new(mem, "peak_pss_bytes", json_integer((json_int_t)b->peak_pss));
	json_object_set_new(root, "memory", mem);
	if (!b->quality_rc) {
		json_t *q = json_object();

		json_object_set_new(q, "score_bits", gf_bench_jnum(b->quality));
		json_object_set_new(q, "full_permutation_bits", gf_bench_jnum(b->quality_full));
		json_object_set_new(root, "shuffle_quality", q);
	} else {
		json_object_set_new(root, "shuffle_quality", json_null());
	}
	for (unsigned i = 0; i < b->nflags; i++)
		json_array_append_new(flags, json_string(b->flags[i]));
	json_object_set_new(root, "flags", flags);
	json_object_set_new(root, "findings", json_integer(loader_findings(b)));
	return gf_json_dump(root, f);
}

static int loader_print(const struct loader_bench *b, FILE *f)
{
	char data[32], block[32], rss[32], before[32], pss[32], sizes[64];

	gf_fmt_bytes(b->info.data_bytes, data, sizeof(data));
	gf_fmt_bytes(b->o.block ? b->o.block : GF_LOADER_BLOCK_DEFAULT, block, sizeof(block));
	if (b->info.record_size)
		snprintf(sizes, sizeof(sizes), "of %zu bytes", b->info.record_size);
	else
		snprintf(sizes, sizeof(sizes), "of %llu to %llu bytes", (unsigned long long)b->info.min_size,
			 (unsigned long long)b->info.max_size);
	fprintf(f, "dataset %s: %llu samples %s, %u shard%s, %s\n", b->path, (unsigned long long)b->info.samples,
		sizes, b->info.shards, b->info.shards == 1 ? "" : "s", data);
	fprintf(f, "loader: batch %u, %u thread%s, %u slots, blocks of %s shuffled %u at a time, seed %llu, %s\n",
		b->o.batch_size, b->o.threads ? b->o.threads : 2, b->o.threads == 1 ? "" : "s",
		b->o.slots ? b->o.slots : 4, block, b->o.window ? b->o.window : GF_LOADER_WINDOW_DEFAULT,
		(unsigned long long)b->o.seed, b->o.gpu < 0 ? "batches in host memory" : "batches copied to GPU");
	if (b->o.gpu >= 0)
		fprintf(f, "GPU %d (NVML index)\n", b->o.gpu);
	fprintf(f, "%s; %u sample%s of %llu %s each\n",
		b->o.warm ? "warm: buffered reads, the pages read into the cache first"
			  : "cold: O_DIRECT reads, the pages dropped before every sample",
		b->o.repeats, b->o.repeats == 1 ? "" : "s",
		(unsigned long long)(b->o.samples ? b->o.samples : b->o.epochs),
		b->o.samples ? "samples" : b->o.epochs == 1 ? "epoch" : "epochs");
	if (b->point.status) {
		fprintf(f, "failed: %s\n", b->point.error);
	} else {
		fprintf(f, "\n%-18s %12s %12s %12s %10s\n", "", "median", "min", "max", "IQR");
		for (int k = 0; k < FIGS; k++) {
			const struct gf_stats *s = &b->figs[k].stats;

			int d = fig_decimals[k];

			fprintf(f, "%-18s %12.*f %12.*f %12.*f %10.*f\n", fig_title[k], d, s->median, d, s->min, d,
				s->max, d, s->iqr);
		}
	}
	gf_fmt_bytes(b->peak_rss, rss, sizeof(rss));
	gf_fmt_bytes(b->rss_before, before, sizeof(before));
	gf_fmt_bytes(b->peak_pss, pss, sizeof(pss));
	fprintf(f, "\nmemory: peak RSS %s (%s before the loader opened)", rss, before);
	if (b->nruns)
		fprintf(f, ", peak PSS %s", pss);
	fputc('\n', f);
	if (!b->quality_rc)
		fprintf(f, "shuffle: %.2f bits of block entropy per batch (a full permutation: %.2f)\n", b->quality,
			b->quality_full);
	for (unsigned i = 0; i < b->nflags; i++)
		fprintf(f, "error: %s\n", b->flags[i]);
	return ferror(f) ? -EIO : 0;
}

/* ---- the target, as the frame sees it ---- */

/* A sample that failed (a read or checksum error on a loader thread, the
 * dataset changed under the run) is the run's failure, exit 3 as its
 * error says; figures that disagree with the dataset are findings. */
static enum gf_bench_outcome loader_outcome_(const void *r)
{
	const struct loader_bench *b = r;

	return b->point.status ? GF_BENCH_FAILED : gf_bench_outcome_of(b->nflags);
}

static unsigned loader_findings_(const void *r)
{
	return loader_findings(r);
}

static int loader_print_(const void *r, FILE *f)
{
	return loader_print(r, f);
}

static int loader_write_json_(const void *r, FILE *f)
{
	return loader_write_json(r, f);
}

static void loader_free_(void *r)
{
	loader_free(r);
}

static const struct gf_bench_opt_def loader_opt_defs[] = {
	GF_BENCH_COUNT("batch-size", "N", "samples per batch (default 256)", struct loader_opts, batch_size, 1,
		       1u << 24),
	GF_BENCH_COUNT("threads", "N", "the loader's I/O threads (default 2)", struct loader_opts, threads, 1, 256),
	GF_BENCH_COUNT("slots", "N", "batch buffers, pinned, reused (default 4)", struct loader_opts, slots, 2, 1024),
	GF_BENCH_SIZE("block", "SIZE", "bytes of a block: the unit of shuffling and of\nreading (default 4M)",
		      struct loader_opts, block, 4096, 1ull << 32),
	GF_BENCH_COUNT("window", "N", "blocks whose samples are shuffled together\n(default 16)", struct loader_opts,
		       window, 1, 1u << 20),
	GF_BENCH_CUSTOM("gpu", "N|host", "copy batches to GPU N (NVML index), or keep them\nin host memory (default host)",
			GF_BENCH_OPT_TEXT, set_gpu),
	GF_BENCH_FLAG("cold", "O_DIRECT reads, the dataset's pages dropped from\nthe page cache before every "
		      "sample (default)", struct loader_opts, cold),
	GF_BENCH_FLAG("warm", "buffered reads, the dataset read into the page\ncache first", struct loader_opts, warm),
	GF_BENCH_COUNT("epochs", "N", "epochs per sample (default 1)", struct loader_opts, epochs, 1, 1000000),
	GF_BENCH_CUSTOM("samples", "N", "samples per sample instead of whole epochs", GF_BENCH_OPT_COUNT, set_samples),
	GF_BENCH_CUSTOM("seed", "N", "the order's seed (default 0)", GF_BENCH_OPT_COUNT, set_seed),
	GF_BENCH_COUNT("repeats", "N", "samples per figure (default 3)", struct loader_opts, repeats, 1,
		       LOADER_REPEATS_MAX),
	GF_BENCH_FLAG("verify", "check every sample's checksum as it is read", struct loader_opts, verify),
	GF_BENCH_OPTS_END,
};

const struct gf_bench_def gf_bench_loader_def = {
	.pub = {
		.name = "loader",
		.summary = "the loader over a dataset: samples/s, GB/s, CPU s/GB",
		.description =
			"Runs gpufeed's loader over DATASET (a directory made by 'gpufeed pack', or a\n"
			"Megatron .bin/.idx prefix) as a training loop does: a consumer takes each\n"
			"batch, reads a word of every 4 KiB of it and gives it back.  A sample is\n"
			"--epochs epochs (or --samples samples) in the loader's shuffled order;\n"
			"each figure is the median of --repeats samples: samples/s and GB/s\n"
			"delivered, CPU seconds per GB (getrusage of the whole process), the\n"
			"share of wall time the consumer waited for a batch; beside them the\n"
			"peak RSS and PSS of the process and the order's shuffle quality.\n"
			"\n"
			"--cold (the default) reads with O_DIRECT and drops the dataset's pages\n"
			"from the page cache (posix_fadvise DONTNEED) before every sample; --warm\n"
			"reads through the page cache after reading the dataset into it.  Buffers\n"
			"and threads go to the GPU's NUMA node from the machine model (--root: a\n"
			"recording's); without --gpu, batches stay in host memory.\n",
		.operand = "DATASET",
		.schema = LOADER_SCHEMA,
		.exits = { "", "a batch whose size disagrees with the dataset's record\n"
			   "size, or an epoch of the wrong length",
			   "--cold with --warm, --samples with --epochs",
			   "DATASET cannot be opened (named, with the shard); a read\n"
			   "or checksum error during a sample; writing the output\n"
			   "failed; Ctrl-C",
			   "--gpu without a CUDA driver or that GPU; the loader's\n"
			   "buffers do not fit in memory" },
		.footer = "How it measures and its JSON: docs/bench-loader.md; the loader: docs/loader.md.\n",
	},
	.opts = loader_opt_defs,
	.opts_size = sizeof(struct loader_opts),
	.init = loader_init,
	.check = loader_check,
	.run = loader_run,
	.outcome = loader_outcome_,
	.findings = loader_findings_,
	.problem = loader_problem,
	.print = loader_print_,
	.write_json = loader_write_json_,
	.free_res = loader_free_,
};
