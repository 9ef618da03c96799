/* The `bench io` sweep: which points run by default and in --quick, and
 * the names and sizes the command line uses. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpufeed/bench.h>
#include "core/error.h"

static const char *const mode_names[] = { "seqread", "randread", "seqwrite", "randwrite" };
static const char *const cache_names[] = { "direct", "cold", "warm" };

const char *gf_bench_mode_name(enum gf_bench_mode m)
{
	return (unsigned)m < 4 ? mode_names[m] : "?";
}

int gf_bench_mode_parse(const char *s, enum gf_bench_mode *m)
{
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

int gf_parse_size(const char *s, uint64_t *v)
{
	static const struct { const char *suffix; uint64_t mult; } units[] = {
		{ "", 1 }, { "b", 1 },
		{ "k", 1ull << 10 }, { "kib", 1ull << 10 }, { "kb", 1000 },
		{ "m", 1ull << 20 }, { "mib", 1ull << 20 }, { "mb", 1000000 },
		{ "g", 1ull << 30 }, { "gib", 1ull << 30 }, { "gb", 1000000000 },
		{ "t", 1ull << 40 }, { "tib", 1ull << 40 }, { "tb", 1000000000000ull },
	};
	char *end;
	unsigned long long n;

	if (!s || !*s || *s == '-')
		return gf_error(-EINVAL, "'%s': not a size (e.g. 4K, 1M, 16MiB, 4096)", s ? s : "");
	errno = 0;
	n = strtoull(s, &end, 10);
	if (end == s || errno)
		return gf_error(-EINVAL, "'%s': not a size (e.g. 4K, 1M, 16MiB, 4096)", s);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (n > UINT64_MAX / units[i].mult)
			return gf_error(-EINVAL, "'%s': too large", s);
		*v = n * units[i].mult;
		return 0;
	}
	return gf_error(-EINVAL, "'%s': unknown unit (K, M, G, T; KiB.. are the same, KB.. are powers of 10)", s);
}

void gf_bench_sweep_default(struct gf_bench_sweep *s, bool quick)
{
	static const size_t full_bs[] = { 4u << 10, 64u << 10, 1u << 20, 16u << 20 };
	static const size_t quick_bs[] = { 4u << 10, 1u << 20 };

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

	for (unsigned m = 0; m < s->nmodes; m++) {
		bool write = gf_bench_mode_writes(s->modes[m]);
		for (unsigned c = 0; c < s->ncaches; c++) {
			if (write && s->caches[c] == GF_CACHE_WARM)
				continue;	/* warm means cached reads */
			for (unsigned b = 0; b < s->nbs; b++) {
				for (unsigned e = 0; e < s->nengines; e++) {
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
