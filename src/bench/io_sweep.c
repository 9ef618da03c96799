/* The `bench io` sweep: which points run by default and in --quick, and
 * the names and sizes the command line uses. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "bench/io_opts.h"
#include "core/error.h"
#include "core/strutil.h"

static const char *const mode_names[] = { "seqread", "randread", "seqwrite", "randwrite" };
static const char *const cache_names[] = { "direct", "cold", "warm" };

const char *gf_bench_mode_name(enum gf_bench_mode m)
{
	return (unsigned)m < 4 ? mode_names[m] : "?";
}

int gf_bench_mode_parse(const char *s, enum gf_bench_mode *m)
{
	if (!s || !m)
		return gf_error(-EINVAL, "bench io: gf_bench_mode_parse: NULL argument");
	for (unsigned i = 0; i < 4; i++) {
		if (!strcmp(s, mode_names[i])) {
			*m = (enum gf_bench_mode)i;
			return 0;
		}
	}
	return gf_error(-EINVAL, "unknown mode '%s' (seqread, randread, seqwrite, randwrite)", s);
}

bool gf_bench_mode_writes(enum gf_bench_mode m)
{
	return m == GF_BENCH_SEQWRITE || m == GF_BENCH_RANDWRITE;
}

const char *gf_bench_cache_name(enum gf_bench_cache c)
{
	return (unsigned)c < 3 ? cache_names[c] : "?";
}

void gf_bench_sweep_default(struct gf_bench_sweep *s, bool quick)
{
	static const size_t full_bs[] = { 4u << 10, 64u << 10, 1u << 20, 16u << 20 };
	static const size_t quick_bs[] = { 4u << 10, 1u << 20 };

	if (!s)
		return;
	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < 4; i++)
		s->modes[s->nmodes++] = (enum gf_bench_mode)i;
	if (quick) {
		memcpy(s->bs, quick_bs, sizeof(quick_bs));
		s->nbs = 2;
	} else {
		memcpy(s->bs, full_bs, sizeof(full_bs));
		s->nbs = 4;
	}
	s->caches[s->ncaches++] = GF_CACHE_DIRECT;
	s->caches[s->ncaches++] = GF_CACHE_COLD;
	s->caches[s->ncaches++] = GF_CACHE_WARM;
	s->engines[s->nengines].engine = GF_IO_PSYNC;
	s->engines[s->nengines++].n = 1;
	if (!quick) {
		s->engines[s->nengines].engine = GF_IO_PSYNC;
		s->engines[s->nengines++].n = 4;
		s->engines[s->nengines].engine = GF_IO_URING;
		s->engines[s->nengines++].n = 1;
		s->engines[s->nengines].engine = GF_IO_URING;
		s->engines[s->nengines++].n = 8;
	}
	s->engines[s->nengines].engine = GF_IO_URING;
	s->engines[s->nengines++].n = 32;
	s->duration_s = quick ? 0.25 : 1.0;
}

unsigned gf_bench_sweep_points(const struct gf_bench_sweep *s, struct gf_bench_point *out, unsigned max)
{
	unsigned n = 0;

	if (!s)
		return 0;
	/* Counts beyond the arrays (a caller's sweep) are read as full. */
#define UPTO(count, array) ((count) < sizeof(array) / sizeof((array)[0]) ? (count) : sizeof(array) / sizeof((array)[0]))
	for (unsigned m = 0; m < UPTO(s->nmodes, s->modes); m++) {
		bool write = gf_bench_mode_writes(s->modes[m]);
		for (unsigned c = 0; c < UPTO(s->ncaches, s->caches); c++) {
			if (write && s->caches[c] == GF_CACHE_WARM)
				continue;	/* warm means cached reads */
			for (unsigned b = 0; b < UPTO(s->nbs, s->bs); b++) {
				for (unsigned e = 0; e < UPTO(s->nengines, s->engines); e++) {
					struct gf_bench_point p = {
						.mode = s->modes[m], .bs = s->bs[b], .cache = s->caches[c],
						.engine = s->engines[e].engine, .duration_s = s->duration_s,
					};
					/* psync N: N threads at depth 1 (fio psync,
					 * numjobs=N); uring N: one thread at depth N. */
					p.threads = p.engine == GF_IO_PSYNC ? s->engines[e].n : 1;
					p.qd = p.engine == GF_IO_PSYNC ? 1 : s->engines[e].n;
					if (out && n < max)
						out[n] = p;
					n++;
				}
			}
		}
	}
	return n;
}

static int add_mode(struct gf_bench_sweep *s, const char *item)
{
	enum gf_bench_mode m;
	int rc = gf_bench_mode_parse(item, &m);

	if (rc)
		return rc;
	if (s->nmodes >= 4)
		return gf_error(-E2BIG, "at most 4 modes");
	s->modes[s->nmodes++] = m;
	return 0;
}

static int add_bs(struct gf_bench_sweep *s, const char *item)
{
	uint64_t v;
	int rc = gf_parse_size(item, &v);

	if (rc)
		return rc;
	if (v < GF_BENCH_BS_MIN || v > GF_BENCH_BS_MAX)
		return gf_error(-ERANGE, "'%s': a block size is 512 to 1G", item);
	if (s->nbs >= sizeof(s->bs) / sizeof(s->bs[0]))
		return gf_error(-E2BIG, "at most %zu block sizes", sizeof(s->bs) / sizeof(s->bs[0]));
	s->bs[s->nbs++] = (size_t)v;
	return 0;
}

static int add_cache(struct gf_bench_sweep *s, const char *item)
{
	for (unsigned c = 0; c < 3; c++) {
		if (!strcmp(item, cache_names[c])) {
			if (s->ncaches >= 3)
				return gf_error(-E2BIG, "at most 3 cache states");
			s->caches[s->ncaches++] = (enum gf_bench_cache)c;
			return 0;
		}
	}
	return gf_error(-EINVAL, "unknown cache state '%s' (direct, cold, warm)", item);
}

static int add_engine(struct gf_bench_sweep *s, const char *item)
{
	const char *colon = strchr(item, ':');
	uint64_t n;
	bool uring = colon && !strncmp(item, "uring", (size_t)(colon - item)) && colon - item == 5;
	bool psync = colon && !strncmp(item, "psync", (size_t)(colon - item)) && colon - item == 5;

	if (!uring && !psync)
		return gf_error(-EINVAL, "'%s': not psync:N or uring:N", item);
	if (gf_parse_count(colon + 1, 1, uring ? GF_BENCH_QD_MAX : GF_BENCH_THREADS_MAX, &n))
		return gf_error(-EINVAL, "'%s': %s (%s)", item, gf_last_error(),
				uring ? "uring:N is the queue depth" : "psync:N is the number of threads");
	if (s->nengines >= sizeof(s->engines) / sizeof(s->engines[0]))
		return gf_error(-E2BIG, "at most %zu engines", sizeof(s->engines) / sizeof(s->engines[0]));
	s->engines[s->nengines].engine = uring ? GF_IO_URING : GF_IO_PSYNC;
	s->engines[s->nengines++].n = (unsigned)n;
	return 0;
}

int gf_bench_sweep_set(struct gf_bench_sweep *s, const char *list, const char *value)
{
	static const struct {
		const char *name;
		int (*add)(struct gf_bench_sweep *s, const char *item);
	} lists[] = { { "modes", add_mode }, { "bs", add_bs }, { "cache", add_cache }, { "engines", add_engine } };
	struct gf_bench_sweep t;
	const char *p;
	int rc = 0;

	if (!s || !list || !value)
		return gf_error(-EINVAL, "bench io: gf_bench_sweep_set: NULL argument");
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		if (strcmp(list, lists[i].name))
			continue;
		t = *s;		/* all or nothing: s changes only on success */
		if (i == 0)
			t.nmodes = 0;
		else if (i == 1)
			t.nbs = 0;
		else if (i == 2)
			t.ncaches = 0;
		else
			t.nengines = 0;
		if (!*value)
			return gf_error(-EINVAL, "an empty list");
		for (p = value; !rc; p++) {
			const char *end = strchr(p, ',');
			size_t len = end ? (size_t)(end - p) : strlen(p);
			char item[64];

			if (!len || len >= sizeof(item))
				return gf_error(-EINVAL, "'%s': %s item in the list", value, len ? "too long an" : "an empty");
			memcpy(item, p, len);
			item[len] = '\0';
			rc = lists[i].add(&t, item);
			if (!end)
				break;
			p = end;
		}
		if (!rc)
			*s = t;
		return rc;
	}
	return gf_error(-EINVAL, "bench io: no sweep list named '%s' (modes, bs, cache, engines)", list);
}
